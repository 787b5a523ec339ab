"""`encounter watch`'s screen, in process, as a terminal of the table's size shows it: the
tracks, the open proposals and, in the room left, the newest events."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.screen import Screen

from ledger import Ledger
from ledger.cli import watch


def shown(book: Ledger, width: int, height: int) -> list[str]:
    """The lines a `width` x `height` terminal shows of the view (Live's screen crops it)."""
    console = Console(width=width, height=height, file=io.StringIO(), color_system=None)
    with console.capture() as captured:
        console.print(Screen(watch.screen(book, "duel", 8, console)))
    return [line.rstrip() for line in captured.get().splitlines()]


def opened(db: Path) -> Ledger:
    book = Ledger(db, user="gm")
    book.open("duel", "fates-edge")
    book.join("duel", "Ash", "player", {"armor": "light"}, player="ana")
    book.join("duel", "Brin", "player", {"armor": "light"}, player="ben")
    book.join(
        "duel", "Ogre", "adversary", {"resilience": 6, "fatigue_capacity": 3, "armor": "none"}
    )
    # Each note wraps on an 80-column terminal: eight of them do not fit under the tracks.
    roars = "the Ogre roars across the bridge, and the planks shake under Ash and Brin"
    for n in range(1, 9):
        book.record("duel", {"type": "note", "text": f"note {n}: {roars}"})
    return book


def test_a_24_line_terminal_shows_the_newest_events_not_the_oldest(db: Path) -> None:
    with opened(db) as book:
        book.record("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
        lines = shown(book, 80, 24)
    assert len(lines) == 24
    told = [line for line in lines if line.startswith("  seq ")]
    assert told, lines
    # The newest event is on screen, and the events told are the newest ones, in order.
    assert told[-1].startswith("  seq 13 [gm]: Ogre is hit for Harm 2")
    seqs = [int(line.split()[1]) for line in told]
    assert seqs == list(range(14 - len(seqs), 14))
    assert f"Last {len(seqs)} events" in lines


def test_a_tall_terminal_shows_all_the_events_asked_for(db: Path) -> None:
    with opened(db) as book:
        lines = shown(book, 120, 60)
    told = [int(line.split()[1]) for line in lines if line.startswith("  seq ")]
    assert told == list(range(5, 13))
    assert "Last 8 events" in lines


def test_a_terminal_with_no_room_for_an_event_says_so_rather_than_last_0(db: Path) -> None:
    with opened(db) as book:
        full = shown(book, 120, 60)
        # The height that leaves one line under the tracks and proposals: the heading's.
        height = full.index("Last 8 events") + 1
        lines = shown(book, 120, height)
    assert not [line for line in lines if line.startswith("  seq ")]
    assert lines[-1] == "Last events: no room under the tracks (a taller terminal shows them)"
