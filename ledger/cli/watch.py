"""`encounter watch`: a full-screen terminal view of an encounter, redrawn as it changes.

The tracks, the open proposals and the last events in words, drawn with rich's `Live` on the
terminal's alternate screen (so it works the same over ssh), redrawn within a second of any
append by any writer or process: a thread follows the encounter (`Ledger.follow`) on a
connection of its own and wakes the drawing loop, which also reads the keyboard (q quits).
Only this command loads this module (and rich with it), as `ledger.cli.terminal` for tables.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import sys
import termios
import threading
import tty
from collections.abc import Iterator
from itertools import islice

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from ledger import api, systems
from ledger.api import Followed
from ledger.cli import render, terminal
from ledger.store import DEFAULT_TENANT
from projections import core

#: How long the drawing loop waits for a key before it looks for new events (seconds).
TICK = 0.1
#: Keys that quit.
QUIT = frozenset({b"q", b"Q", b"\x1b"})


def screen(book: api.Ledger, encounter: str, last: int, console: Console) -> RenderableType:
    """What the view shows now: the tracks, the open proposals and the last events in words,
    as many of the newest of them as the console's height leaves room for (the screen crops
    what does not fit at the bottom, where the newest event is)."""
    state = book.tracks(encounter)
    read = systems.readings(state.system)
    parts: list[RenderableType] = [
        Text(
            render.tracks_header(state.encounter, state.system, state.seq, state.round, state.scene)
            + "   (q quits)",
            style="bold",
        )
    ]
    parts += [terminal.table(grid) for grid in render.track_grids(state.view(), read)]
    pools = render.pools_line(state)
    if pools:
        parts.append(Text(pools))
    parts.append(Text("Open proposals", style="bold"))
    lines = render.proposal_lines(state)
    parts += [Text(line) for line in lines] or [Text("  none", style="dim")]
    every = [Text(line) for line in recent(book, encounter, state, last)]
    told = newest_fitting(console, every, height(console, parts) + 1)
    # The heading says how many the height cut the list to, when it had to.
    heading = f"Last {last if told == every else len(told)} events"
    if every and not told:
        heading = "Last events: no room under the tracks (a taller terminal shows them)"
    parts.append(Text(heading, style="bold"))
    return Group(*parts, *told)


def height(console: Console, parts: list[RenderableType]) -> int:
    """How many lines `parts` take on the console, at its width."""
    return len(console.render_lines(Group(*parts), console.options.update(height=None)))


def newest_fitting(console: Console, told: list[Text], used: int) -> list[Text]:
    """The newest of the events `told` that fit in the console's height below `used` lines."""
    room = console.size.height - used
    kept: list[Text] = []
    for line in reversed(told):
        room -= height(console, [line])
        if room < 0:
            break
        kept.insert(0, line)
    return kept


def recent(book: api.Ledger, encounter: str, state: core.State, last: int) -> list[str]:
    """The last `last` stored events, each in words as it played (`replay --as-played`)."""
    start = max(1, state.seq - last + 1)
    told = []
    for step in islice(book.replay(encounter, start=start, as_played=True), last):
        who = f" [{step.record.event.by}]" if step.record.event.by else ""
        told.append(render.visible(f"  seq {step.record.seq}{who}: {step.text}"))
    return told


def run(
    location: str, encounter: str, last: int, poll: float, tenant: str = DEFAULT_TENANT
) -> None:
    """Draw the view until q (or Ctrl-C), redrawing when an event is appended or the
    terminal is resized."""
    woken: queue.Queue[Followed | None] = queue.Queue()
    stop = threading.Event()
    with api.Ledger(location, create=False, readonly=True, tenant=tenant) as book:
        head = book.store.require(encounter).seq
        follower = threading.Thread(
            target=_follow, args=(location, encounter, head, poll, stop, woken, tenant), daemon=True
        )
        follower.start()
        signal.signal(signal.SIGWINCH, lambda *_: woken.put(None))
        # Ctrl-C asks the loop to end at its next tick (never a KeyboardInterrupt raised in the
        # middle of a redraw, which could leave the terminal as it was drawn).
        quitting = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: quitting.set())
        console = Console(highlight=False, emoji=False)
        try:
            with (
                _keys() as keys,
                Live(
                    screen(book, encounter, last, console),
                    console=console,
                    screen=True,
                    auto_refresh=False,
                    redirect_stdout=False,
                    redirect_stderr=False,
                ) as live,
            ):
                for key in keys:
                    if key in QUIT or quitting.is_set():
                        break
                    if _drained(woken):
                        live.update(screen(book, encounter, last, console), refresh=True)
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            follower.join(timeout=2)


def _follow(
    location: str,
    encounter: str,
    head: int,
    poll: float,
    stop: threading.Event,
    woken: queue.Queue[Followed | None],
    tenant: str,
) -> None:
    """Hand each appended event to the drawing loop (on a connection of this thread's own)."""
    with api.Ledger(location, create=False, readonly=True, tenant=tenant) as book:
        for followed in book.follow(encounter, after=head, poll=poll, stop=stop.is_set):
            woken.put(followed)


def _drained(woken: queue.Queue[Followed | None]) -> bool:
    """Whether anything woke the view since it was last drawn (emptying the queue)."""
    found = False
    while True:
        try:
            woken.get_nowait()
        except queue.Empty:
            return found
        found = True


@contextlib.contextmanager
def _keys() -> Iterator[Iterator[bytes]]:
    """The keys typed, one by one (b"" when none came within a tick), the terminal in cbreak
    mode (no echo, no line buffering; Ctrl-C still interrupts) until the block ends."""
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def typed() -> Iterator[bytes]:
        while True:
            ready, _, _ = select.select([fd], [], [], TICK)
            if not ready:
                yield b""
                continue
            key = os.read(fd, 1)
            if not key:  # the terminal closed
                return
            yield key

    try:
        yield typed()
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
