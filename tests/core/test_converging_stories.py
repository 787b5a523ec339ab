"""The downstream diff folds the story once where the two stories meet again.

An undo, redo or amend folds the rest of the encounter twice, as it stood and as it stands. Once
the seqs whose standing differs are behind and the two states are equal, the rest folds and
audits alike, so it is folded once: the diff, the findings and the tracks must be exactly those
of folding both stories to the end.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import BadInput, Ledger, Written
from projections import core
from projections import diff as downstream
from tests.core.test_fuzz import (
    CAST,
    FUZZ,
    STRATEGIES,
    Event,
    correctable,
    new_values,
    record_all,
    undoable,
)


def told(written: Written) -> dict[str, Any]:
    """What a revision says: its diff, its findings and the tracks after it."""
    diff = written.downstream
    return {
        "downstream": diff.document() if diff is not None else None,
        "findings": [f.model_dump() for f in written.findings],
        "tracks": written.state.view(),
    }


def both_ways(
    monkeypatch: pytest.MonkeyPatch, ledger: Ledger, revise: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The dry run of `revise(ledger)` as folded, and with the stories never joined."""
    met = told(revise(ledger))
    with monkeypatch.context() as patched:
        patched.setattr(downstream, "converged", lambda was, now: False)
        apart = told(revise(ledger))
    return met, apart


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_an_undo_tells_what_folding_both_stories_to_the_end_tells(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30), st.integers(0, 40))
    def check(stream: list[Event], pick: int) -> None:
        with record_all(system, stream) as ledger:
            target = undoable(ledger.records("fuzz"), pick)
            if target is None:
                return

            def undo(ledger: Ledger) -> Written:
                return ledger.undo("fuzz", target, reason="fuzz", dry_run=True)

            try:
                met, apart = both_ways(monkeypatch, ledger, undo)
            except BadInput:
                return
            assert met == apart

    check()


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_an_amend_tells_what_folding_both_stories_to_the_end_tells(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30), st.integers(0, 40), st.data())
    def check(stream: list[Event], pick: int, data: st.DataObject) -> None:
        with record_all(system, stream) as ledger:
            facts = correctable(system, ledger.records("fuzz"))
            if not facts:
                return
            target = facts[pick % len(facts)]
            fields = new_values(data, dict(target.body()))

            def amend(ledger: Ledger) -> Written:
                return ledger.amend("fuzz", target.seq, fields, reason="fuzz", dry_run=True)

            try:
                met, apart = both_ways(monkeypatch, ledger, amend)
            except BadInput:
                return
            assert met == apart

    check()


def test_undoing_an_early_note_of_a_long_fight_folds_the_rest_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Ledger(":memory:") as ledger:
        ledger.open("long", "ssss")
        for joined in CAST["ssss"]:
            ledger.record("long", joined)
        note = ledger.record("long", {"type": "note", "text": "the ogre roars"}).seq
        for n in range(300):
            ledger.record("long", {"type": "note", "text": f"round {n}"})
            ledger.record("long", {"type": "harm.inflicted", "target": "Bo", "level": 1})
            ledger.undo("long", reason="a misread")
        folded: list[int] = []
        fold = core.RunningFold.feed

        def counting(self: core.RunningFold, record: Any, strict: bool = False) -> None:
            folded.append(record.seq)
            fold(self, record, strict)

        monkeypatch.setattr(core.RunningFold, "feed", counting)
        undone = ledger.undo("long", note, reason="it was not said")
        assert undone.downstream is not None and undone.downstream.first_divergence is None
        assert undone.downstream.changes == ()
        # The two stories meet right after the note: the 900 events after it are folded once,
        # not twice (a few more: the stories are compared, then folded once from there).
        assert len(folded) < 1.2 * (undone.records[0].seq - note)
