"""`Ledger.follow`: every event after a seq, in order, as any writer or process appends it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ledger import BadInput, Ledger, UnknownName
from ledger.api import Followed
from tests import paths


@pytest.fixture
def ford(db: Path) -> Path:
    with Ledger(db) as book:
        book.open("ford", "ssss")
        book.join("ford", "Bandit", "adversary", {"level": 2})
    return db


def note(db: Path, text: str) -> None:
    with Ledger(db) as book:
        book.record("ford", {"type": "note", "text": text})


def test_follow_hands_out_the_stored_events_after_a_seq_then_the_new_ones(ford: Path) -> None:
    seen: list[Followed] = []
    with Ledger(ford) as book:
        stream = book.follow("ford", after=1, poll=0.01)
        seen.append(next(stream))
        writer = threading.Timer(0.05, note, (ford, "the ford floods"))
        writer.start()
        seen.append(next(stream))
        writer.join()
    assert [(f.encounter, f.seq, f.record.type) for f in seen] == [
        ("ford", 2, "combatant.joined"),
        ("ford", 3, "note"),
    ]
    assert seen[1].position is None and getattr(seen[1].event, "text", None) == "the ford floods"


def test_follow_never_misses_repeats_or_reorders_a_burst_of_appends(ford: Path) -> None:
    with Ledger(ford) as book:
        stream = book.follow("ford", after=2, poll=0.01)

        def burst() -> None:
            for i in range(20):
                note(ford, f"n{i}")

        writer = threading.Thread(target=burst)
        writer.start()
        seqs = [next(stream).seq for _ in range(20)]
        writer.join()
    assert seqs == list(range(3, 23))


def test_follow_ends_when_told_to_stop(ford: Path) -> None:
    stop = threading.Event()
    with Ledger(ford) as book:
        stream = book.follow("ford", after=2, poll=0.01, stop=stop.is_set)
        threading.Timer(0.05, stop.set).start()
        started = time.monotonic()
        assert list(stream) == []
    assert time.monotonic() - started < 2


def test_follow_refuses_an_unknown_encounter_and_a_seq_past_the_head(ford: Path) -> None:
    with Ledger(ford) as book:
        with pytest.raises(UnknownName, match="encounter 'forde' is not in"):
            book.follow("forde")
        with pytest.raises(BadInput, match="at seq 2: there is no seq 9"):
            book.follow("ford", after=9)
        with pytest.raises(BadInput, match="not -1"):
            book.follow("ford", after=-1)


@pytest.mark.slow
def test_follow_wakes_within_a_second_of_an_append_by_another_process(ford: Path) -> None:
    with Ledger(ford) as book:
        stream = book.follow("ford", after=2)
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "ledger", "--db", str(ford), "record", "ford", "note",
             "text=from another process"],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(paths.ROOT)},
        )  # fmt: skip
        appended = time.monotonic()
        got = next(stream)
        woke = time.monotonic()
    assert got.seq == 3
    assert woke - appended < 1.0, (appended - started, woke - appended)
