"""Undoing or correcting a recent event refolds only what follows it.

A write session keeps the state after each of its last events (`session.RECENT_KEPT`), beside
the checkpoints every 256 seqs: an undo of the hit just recorded, or of a line five lines back in
an import, folds again from the event before its target, not from the last checkpoint. Every
answer equals the fold of the stream from its start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import BadInput, Ledger, session
from ledger.store import BULK_CACHE_KIB, Store
from tests.longstreams import lines, skirmish
from tests.test_fuzz import FUZZ, STRATEGIES, Event, record_all, undoable

HIT = {"type": "harm.inflicted", "target": "Sage", "level": 1}


@pytest.fixture
def fight(tmp_path: Path) -> Ledger:
    """A 300-event skirmish (a checkpoint at 256), then ten hits recorded by the same ledger."""
    ledger = Ledger(tmp_path / "fight.db")
    ledger.import_lines(lines(skirmish(300)), into="big")
    for _ in range(10):
        ledger.record("big", HIT)
    return ledger


def test_undoing_an_event_just_recorded_refolds_only_from_it(
    fight: Ledger, folded: list[int]
) -> None:
    with fight:
        done = fight.undo("big", 307, reason="the wrong hit")
        # Both stories from seq 307 (as it stood, it counted): never from the checkpoint at 256.
        assert folded and min(folded) == 307
        assert done.state == fight.refold("big")


def test_a_revision_after_an_undo_starts_from_a_state_the_undo_left_standing(
    fight: Ledger,
) -> None:
    with fight:
        fight.undo("big", 308, reason="the wrong hit")
        # The states after 308 were folded with 308 counting: an amend of 309 must not use them.
        amended = fight.amend("big", 309, {"level": 2}, reason="it was worse")
        assert amended.state == fight.refold("big")
        redone = fight.redo("big")
        assert redone.state == fight.refold("big")


def test_an_undo_inside_an_import_refolds_from_the_line_before_its_target(
    folded: list[int],
) -> None:
    source = list(lines(skirmish(2000)))
    undos = sum('"event.retracted"' in line for line in source)
    assert undos >= 4
    with Ledger(":memory:") as ledger:
        ledger.import_lines(source, into="big")
        # Each line once; each undo (of the line five back) folds its five again, twice at most.
        assert len(folded) <= len(source) + 12 * undos
        assert ledger.tracks("big") == ledger.refold("big")


def test_a_session_keeps_only_its_last_states() -> None:
    with Ledger(":memory:") as ledger:
        ledger.import_lines(lines(skirmish(100)), into="big")
        kept = ledger._cache["big"].recent
    assert len(kept) == session.RECENT_KEPT
    assert [seq for seq, _ in kept] == list(range(100 - session.RECENT_KEPT + 1, 101))
    assert all(state.seq == seq for seq, state in kept)


def test_an_import_takes_a_larger_page_cache_and_gives_it_back(tmp_path: Path) -> None:
    statements: list[str] = []
    with Ledger(tmp_path / "big.db") as ledger:
        assert isinstance(ledger.store, Store)
        conn = ledger.store.conn
        (before,) = conn.execute("PRAGMA cache_size").fetchone()
        conn.set_trace_callback(statements.append)
        ledger.import_lines(lines(skirmish(50)), into="big")
        ledger.record("big", HIT)
        conn.set_trace_callback(None)
        (after,) = conn.execute("PRAGMA cache_size").fetchone()
    begins = [n for n, s in enumerate(statements) if s == "BEGIN IMMEDIATE"]
    assert statements[begins[0] - 1] == f"PRAGMA cache_size={-BULK_CACHE_KIB}"
    assert f"PRAGMA cache_size={before}" in statements[begins[0] : begins[1]]
    assert after == before  # a single write after the import runs with the usual cache
    assert f"PRAGMA cache_size={-BULK_CACHE_KIB}" not in statements[begins[1] :]


def revise(ledger: Ledger, step: tuple[str, int], stream: list[Event], system: str) -> Any:
    """One step of a session: record the next event, undo one of the last few, or redo."""
    kind, pick = step
    if kind == "record":
        return ledger.record("fuzz", stream[pick % len(stream)])
    if kind == "redo":
        return ledger.redo("fuzz")
    records = ledger.records("fuzz")
    target = undoable(records[-session.RECENT_KEPT - 4 :], pick)
    return ledger.undo("fuzz", target, reason="fuzz") if target is not None else None


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_every_revision_of_a_recent_event_equals_the_fold_from_the_start(system: str) -> None:
    steps = st.tuples(st.sampled_from(["record", "undo", "undo", "redo"]), st.integers(0, 60))

    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=24), st.lists(steps, max_size=12))
    def check(stream: list[Event], plan: list[tuple[str, int]]) -> None:
        with record_all(system, stream) as ledger:
            for step in plan:
                try:
                    done = revise(ledger, step, stream, system)
                except BadInput:
                    continue  # nothing to redo, a target already back, an event refused
                if done is not None:
                    assert done.state == ledger.refold("fuzz")

    check()
