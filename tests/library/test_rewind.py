"""`Ledger.rewind`: back to the end of a round as one act, on both stores. The encounter is
then as `tracks --round N` showed it, later events build on that, and one undo brings back
everything the rewind set aside."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ledger import BadInput, Ledger, UnknownName, events
from ledger.store import snapshots
from projections import core
from tests.stores import Backend
from tests.streams import ruleset_of


def harm(level: int, target: str = "Bandit") -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": target, "level": level}


def three_rounds(ledger: Ledger) -> None:
    """ssss `ford`: round 1 is seqs 4-5, round 2 seqs 6-7, round 3 seqs 8-9 (Guard joins)."""
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 5})
    ledger.join("ford", "Ash", "player", {})
    ledger.record("ford", {"type": "round.started", "round": 1})
    ledger.record("ford", harm(1))
    ledger.record("ford", {"type": "round.started", "round": 2})
    ledger.record("ford", harm(2))
    ledger.record("ford", {"type": "round.started", "round": 3})
    ledger.join("ford", "Guard", "adversary", {"level": 1})


def filled(ledger: Ledger, name: str = "Bandit") -> dict[str, int]:
    """The tiers of `name` that hold harm, and how many slots each."""
    slots = ledger.tracks("ford").view()["combatants"][name]["slots"]
    return {tier: slot["filled"] for tier, slot in slots.items() if slot["filled"]}


def test_a_rewind_leaves_the_encounter_as_it_was_at_the_end_of_the_round(ledger: Ledger) -> None:
    three_rounds(ledger)
    end_of_one = ledger.round_tracks("ford", 1).view()
    done = ledger.rewind("ford", 1, reason="the ambush never happened")
    assert done.seq == 10 and done.set_aside == (6, 7, 8, 9)
    event = done.records[0].event
    assert isinstance(event, events.EncounterRewound)
    assert (event.round, event.after) == (1, 5)
    now = ledger.tracks("ford").view()
    assert now["combatants"] == end_of_one["combatants"]
    assert "Guard" not in now["combatants"]
    assert [(c.combatant, c.track, c.after) for c in done.changes][1:] == [
        ("Bandit", "penalties", 1),
        ("Guard", "status", None),
    ]
    assert filled(ledger) == {"1": 1}
    assert done.downstream is not None and done.downstream.first_divergence == 7


def test_later_events_build_on_the_rewound_state_in_the_round_it_went_back_to(
    ledger: Ledger,
) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="replay round 2")
    assert ledger.tracks("ford").round == 1
    ledger.record("ford", {"type": "round.started", "round": 2})
    ledger.record("ford", harm(3))
    assert filled(ledger) == {"1": 1, "3": 1}
    assert [s.record.seq for s in ledger.replay("ford") if s.round == 2] == [11, 12]
    # The new round 2 is the round now: its end is the replayed harm, not the set-aside one.
    assert ledger.round_tracks("ford", 2).seq == 12


def test_one_undo_of_the_rewind_brings_back_all_it_set_aside(ledger: Ledger) -> None:
    three_rounds(ledger)
    before = ledger.tracks("ford").view()
    ledger.rewind("ford", 1, reason="mistake")
    undone = ledger.undo("ford", reason="no, it all happened")
    assert undone.records[0].event == events.EventRetracted(target=10, reason="no, it all happened")
    assert ledger.tracks("ford").view()["combatants"] == before["combatants"]
    redone = ledger.redo("ford")
    assert redone.records[0].event.target == 11  # type: ignore[attr-defined]
    assert "Guard" not in ledger.tracks("ford").combatants


def test_a_redo_with_no_seq_does_not_reach_back_past_a_rewind(ledger: Ledger) -> None:
    three_rounds(ledger)
    ledger.undo("ford", 9, reason="the guard came later")
    ledger.rewind("ford", 1, reason="replay round 2")
    with pytest.raises(BadInput, match="has nothing to redo since the rewind at seq 11"):
        ledger.redo("ford")
    with pytest.raises(BadInput, match="seq 10 undid seq 9, and seq 9 is set aside by the rewind"):
        ledger.redo("ford", 10)
    assert ledger.tracks("ford").seq == 11


def test_an_event_the_rewind_set_aside_cannot_be_undone_or_amended_alone(ledger: Ledger) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="replay")
    advice = "seq 7 is set aside by the rewind at seq 10: undo seq 10 to bring it back"
    with pytest.raises(BadInput, match=advice):
        ledger.undo("ford", 7, reason="x")
    with pytest.raises(BadInput, match=advice):
        ledger.amend("ford", 7, {"level": 3}, reason="x")
    with pytest.raises(BadInput, match="a rewind is undone"):
        ledger.amend("ford", 10, {"round": 2}, reason="x")
    assert ledger.tracks("ford").seq == 10


def test_a_round_that_never_started_is_refused_and_nothing_is_appended(ledger: Ledger) -> None:
    three_rounds(ledger)
    with pytest.raises(UnknownName) as refused:
        ledger.rewind("ford", 7, reason="x")
    assert str(refused.value) == (
        "no effective event of encounter 'ford' is in round 7 (rounds: 1, 2, 3; 0 is the set-up)"
    )
    assert (refused.value.code, refused.value.exit_code) == ("unknown-round", 2)
    with pytest.raises(BadInput, match=r"nothing to rewind: .* after the end of round 3 \(seq 9\)"):
        ledger.rewind("ford", 3, reason="x")
    with pytest.raises(BadInput, match="rewind needs a reason"):
        ledger.rewind("ford", 1, reason=" ")
    assert ledger.tracks("ford").seq == 9


def test_a_dry_run_says_what_the_rewind_would_do_and_appends_nothing(ledger: Ledger) -> None:
    three_rounds(ledger)
    dry = ledger.rewind("ford", 2, reason="what if", dry_run=True)
    assert dry.dry_run and dry.set_aside == (8, 9)
    assert [(c.combatant, c.track) for c in dry.changes] == [("Guard", "status")]
    assert ledger.tracks("ford").seq == 9


def test_an_undo_recorded_after_the_round_stays_in_force_through_the_rewind(
    ledger: Ledger,
) -> None:
    three_rounds(ledger)
    ledger.undo("ford", 5, reason="the first blow missed")  # seq 10, recorded in round 3
    shown = ledger.round_tracks("ford", 2).view()["combatants"]
    ledger.rewind("ford", 2, reason="back")
    assert ledger.tracks("ford").view()["combatants"] == shown
    assert filled(ledger) == {"2": 1}


def test_an_event_undone_before_the_rewind_is_not_among_those_it_sets_aside(
    ledger: Ledger,
) -> None:
    three_rounds(ledger)
    ledger.undo("ford", 9, reason="the guard never came")  # seq 10
    done = ledger.rewind("ford", 2, reason="back")
    assert done.set_aside == (8,)
    ledger.undo("ford", reason="no: round 3 stands")  # the rewind, seq 12
    assert "Guard" not in ledger.tracks("ford").view()["combatants"]


def test_tracks_at_a_seq_before_the_rewind_show_what_the_table_knew_then(ledger: Ledger) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="replay")
    assert "Guard" in ledger.tracks("ford", at=9).combatants
    assert "Guard" not in ledger.tracks("ford", at=9, corrected=True).combatants
    assert ledger.tracks("ford", at=10).combatants.keys() == {"Bandit", "Ash"}


def test_the_audit_lists_the_rewind_and_a_redone_round_is_judged_as_played_now(
    ledger: Ledger,
) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="the ambush never happened")
    assert [(f.rule, f.seq, f.message) for f in ledger.audit("ford")] == [
        (
            "ruling-reversed",
            (10,),
            "seq 10 rewinds to the end of round 1 (seq 5): what was played after it is set "
            "aside: the ambush never happened",
        )
    ]


def test_a_rewind_by_its_event_type_is_filled_in_and_checked(ledger: Ledger) -> None:
    three_rounds(ledger)
    with pytest.raises(BadInput, match=r"after=6: round 1 ends at seq 5"):
        ledger.record("ford", {"type": "encounter.rewound", "round": 1, "reason": "x", "after": 6})
    done = ledger.record("ford", {"type": "encounter.rewound", "round": 1, "reason": "x"})
    assert done.records[0].event.after == 5  # type: ignore[attr-defined]
    assert done.downstream is not None


def test_an_exported_rewind_imports_and_folds_the_same(ledger: Ledger) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="replay")
    ledger.record("ford", harm(3))
    lines = list(ledger.export("ford"))
    with Ledger(":memory:") as other:
        assert other.import_lines(lines).appended == 11
        assert other.tracks("ford") == ledger.tracks("ford")
        records = other.records("ford")
        assert other.tracks("ford") == core.fold(ruleset_of(records), records)


def test_snapshots_are_read_only_under_the_rewinds_they_were_folded_with(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshots, "EVERY", 4)
    with backend.ledger() as ledger:
        three_rounds(ledger)
        for n in range(6):
            ledger.record("ford", {"type": "note", "text": f"round 3, note {n}"})
        ledger.rewind("ford", 1, reason="replay")  # seq 16
        ledger.record("ford", harm(3))
        for n in range(3):
            ledger.record("ford", {"type": "note", "text": f"round 1 again, note {n}"})
        ledger.undo("ford", 16, reason="it all happened")  # seq 21
    with backend.ledger() as ledger:  # a new process: only the sealed snapshots carry over
        records = ledger.records("ford")
        for at in range(1, len(records) + 1):
            pure = core.fold(ruleset_of(records), records, at=at)
            assert ledger.tracks("ford", at=at) == pure, at
            pure = core.fold(ruleset_of(records), records, at=at, corrected_today=True)
            assert ledger.tracks("ford", at=at, corrected=True) == pure, at
        assert "Guard" in ledger.tracks("ford").combatants
        assert "Guard" not in ledger.tracks("ford", at=20).combatants
    stored = backend.execute("SELECT seq FROM snapshots WHERE encounter = ?", ("ford",))
    assert (20,) in stored  # the rewound state, which the undo made stale


def test_the_as_played_replay_tells_the_rewind_as_one_step(ledger: Ledger) -> None:
    three_rounds(ledger)
    ledger.rewind("ford", 1, reason="replay")
    [step] = [s for s in ledger.replay("ford", as_played=True) if s.record.seq == 10]
    assert [(c.combatant, c.track) for c in step.changes] == [
        ("Bandit", "slots"),
        ("Bandit", "penalties"),
        ("Guard", "status"),
    ]
    assert step.text.startswith("back to the end of round 1 (seq 5)")
    log = [json.loads(line) for line in ledger.export("ford")]
    assert log[-1]["type"] == "encounter.rewound" and log[-1]["after"] == 5


def test_round_0_is_the_set_up_a_rewind_can_go_back_to(ledger: Ledger) -> None:
    three_rounds(ledger)
    set_up = ledger.round_tracks("ford", 0)
    assert set_up.seq == 3 and set_up.round is None
    done = ledger.rewind("ford", 0, reason="start the fight again")
    assert done.set_aside == (4, 5, 6, 7, 8, 9)
    event = done.records[0].event
    assert isinstance(event, events.EncounterRewound) and (event.round, event.after) == (0, 3)
    assert ledger.tracks("ford").view()["combatants"] == set_up.view()["combatants"]
    assert filled(ledger) == {}
    # Later events build on the set-up, in round 0 until a round starts.
    ledger.record("ford", harm(2))
    assert filled(ledger) == {"2": 1}
    ledger.undo("ford", 10, reason="no, it all happened")
    assert filled(ledger) == {"1": 1, "2": 2}
