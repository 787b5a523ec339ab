"""Folding: the effective stream, tracks at a seq or without events, replay, and its invariants."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import BadInput, Ledger
from projections import core
from projections import replay as steps
from tests import paths
from tests.streams import RULESETS, audit, fold, ruleset_of, stream, tracks

GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 2}}
ASH = {"type": "combatant.joined", "name": "Ash", "side": "player"}


def harm(level: int, target: str = "Guard") -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": target, "level": level}


def retract(seq: int) -> dict[str, Any]:
    return {"type": "event.retracted", "target": seq, "reason": "wrong call"}


def slots(view: dict[str, Any], name: str = "Guard") -> dict[str, int]:
    return {t: s["filled"] for t, s in view["combatants"][name]["slots"].items()}


def test_a_retracted_hit_no_longer_counts() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1), retract(3))
    assert slots(tracks(records)) == {"1": 1, "2": 0}


def test_retracting_the_retraction_restores_the_hit() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1), retract(3), retract(5))
    assert slots(tracks(records)) == {"1": 1, "2": 1}


def test_a_third_retraction_in_the_chain_undoes_the_redo() -> None:
    records = stream("ssss", GUARD, harm(2), retract(3), retract(4), retract(5))
    assert slots(tracks(records)) == {"1": 0, "2": 0}


def test_later_tracks_are_recomputed_rather_than_patched() -> None:
    # Tier 1 full: the fourth harm 1 rose to tier 2. Undo an early one and the later harm
    # lands in tier 1 instead: an inverse-arithmetic undo would get this wrong.
    records = stream("ssss", GUARD, harm(1), harm(1), harm(1), harm(1), retract(3))
    assert slots(tracks(records)) == {"1": 3, "2": 0}


def test_tracks_at_a_seq_ignore_everything_after_it() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1), retract(3))
    assert slots(tracks(records, at=3)) == {"1": 0, "2": 1}
    assert slots(tracks(records, at=4)) == {"1": 1, "2": 1}
    assert tracks(records, at=4)["seq"] == 4


def test_tracks_without_an_event_are_as_if_it_never_happened() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1))
    assert slots(tracks(records, without=[3])) == {"1": 1, "2": 0}


def test_without_a_retraction_its_target_counts_again() -> None:
    records = stream("ssss", GUARD, harm(2), retract(3))
    assert slots(tracks(records, without=[4])) == {"1": 0, "2": 1}


def test_an_event_orphaned_by_an_undo_is_skipped_and_audited() -> None:
    records = stream("ssss", GUARD, harm(1), retract(2))
    state = fold(records)
    assert state.combatants == {}
    assert [(s.seq, s.type) for s in state.skipped] == [(3, "harm.inflicted")]
    orphaned = [f for f in audit(records) if f.rule == "event-orphaned"]
    assert [(f.severity, f.seq) for f in orphaned] == [("error", (3,))]
    assert "target 'Guard' is not in encounter" in orphaned[0].message


def test_replay_gives_one_step_per_effective_event_of_play_with_what_changed() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1), retract(3))
    walked = list(steps.replay(ruleset_of(records), records))
    # The undo at seq 5 is no step of the story as corrected, as no amend is (#24).
    assert [s.record.seq for s in walked] == [1, 2, 4]
    assert [(c.combatant, c.track, c.after) for c in walked[2].changes] == [
        ("Guard", "slots", {"1": {"filled": 1, "capacity": 3}, "2": {"filled": 0, "capacity": 3}}),
        ("Guard", "penalties", 1),
    ]
    # The last step of play ends where the whole stream does (the undo changed nothing after).
    assert walked[-1].state.view() == {**fold(records).view(), "seq": 4}


@pytest.mark.parametrize("example", sorted(paths.EXAMPLES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_a_replays_documents_are_the_same_with_the_views_of_the_steps_before_kept(
    example: Path,
) -> None:
    """`replay --json` keeps each combatant's last view and reuses it for a step that left
    the combatant as it was: every line is what the step alone gives (the whole example
    stream, its undos and amends included)."""
    with Ledger(":memory:") as ledger:
        done = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        records = ledger.records(done.encounter)
    walked = list(steps.replay(ruleset_of(records), records))
    seen: steps.Viewed = {}
    assert [s.document(seen) for s in walked] == [s.document() for s in walked]
    assert len(walked) > 5 and set(seen) == set(walked[-1].state.combatants)


def test_replay_between_two_seqs_starts_from_the_folded_past() -> None:
    records = stream("ssss", GUARD, harm(2), harm(1), harm(1))
    walked = list(steps.replay(ruleset_of(records), records, start=4, end=4))
    assert [s.record.seq for s in walked] == [4]
    assert slots(walked[0].state.view()) == {"1": 1, "2": 1}


def test_the_rules_table_is_read_from_the_opened_event_not_code_defaults() -> None:
    reading_b = {"top_tier_exhaustion_defeats_on_any_harm": True}
    boss = {**GUARD, "stats": {"level": 1}}
    records = stream("ssss", boss, harm(1), harm(1), harm(1), harm(1), rules=reading_b)
    assert tracks(records)["combatants"]["Guard"]["status"] == "defeated"
    assert fold(records).rules["top_tier_exhaustion_defeats_on_any_harm"] is True


# Properties over random streams.


@st.composite
def ssss_items(draw: st.DrawFn) -> list[dict[str, Any]]:
    level = draw(st.integers(0, 5))
    items: list[dict[str, Any]] = [{**GUARD, "stats": {"level": level}}, ASH]
    for _ in range(draw(st.integers(0, 20))):
        seq = len(items) + 2
        kind = draw(st.sampled_from(["harm", "harm", "harm", "hurt", "grit", "note", "retract"]))
        if kind == "harm":
            items.append(harm(draw(st.integers(1, 6))))
        elif kind == "hurt":
            items.append(harm(draw(st.integers(1, 4)), "Ash"))
        elif kind == "grit":
            items.append(
                {
                    "type": "grit.used",
                    "target": "Ash",
                    "from_level": draw(st.integers(1, 4)),
                    "to_level": draw(st.integers(0, 3)),
                }
            )
        elif kind == "note":
            items.append({"type": "note", "text": "x"})
        else:
            items.append(retract(draw(st.integers(2, seq - 1))))
    return items


@given(ssss_items(), st.data())
def test_folding_a_prefix_then_the_rest_equals_folding_all_at_once(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    records = stream("ssss", *items)
    cut = data.draw(st.integers(1, len(records)))
    assert fold(records, at=cut) == fold(records[:cut])
    # Continue from the folded prefix, one event at a time, over the whole effective stream.
    effective = core.effective(records)
    head = [r for r in effective if r.seq <= cut]
    folder = core.RunningFold(ruleset_of(records))
    for record in head:
        folder.add(record)
    for record in effective[len(head) :]:
        folder.add(record)
    assert folder.state == fold(records)


@given(ssss_items(), st.data())
def test_undo_then_redo_restores_every_track(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    records = stream("ssss", *items)
    before = fold(records).view()
    gone = core.excluded(records)
    candidates = [r.seq for r in records if r.seq > 1 and r.seq not in gone]
    target = data.draw(st.sampled_from(candidates))
    n = len(records)
    undone = stream("ssss", *items, retract(target), retract(n + 1))
    after = fold(undone).view()
    assert {**after, "seq": None} == {**before, "seq": None}


@given(ssss_items(), st.data())
def test_without_n_equals_the_fold_of_the_stream_lacking_n(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    records = stream("ssss", *items)
    n = data.draw(st.integers(2, len(records)))
    lacking = [r for r in records if r.seq != n]
    assert (
        fold(records, without=[n]).view()["combatants"]
        == (core.fold(ruleset_of(lacking), lacking).view()["combatants"])
    )


@given(ssss_items())
def test_harm_slots_never_overfill(items: list[dict[str, Any]]) -> None:
    for step in steps.replay(RULESETS["ssss"], stream("ssss", *items)):
        guard = step.state.view()["combatants"].get("Guard")
        if guard:
            assert all(0 <= s["filled"] <= s["capacity"] for s in guard["slots"].values())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ssss_items())
def test_recording_one_event_at_a_time_equals_folding_the_stored_stream(
    items: list[dict[str, Any]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp, Ledger(Path(tmp) / "p.db") as ledger:
        ledger.open("p", "ssss")
        last = None
        for item in items:
            seq_before = ledger.store.require("p").seq
            try:
                last = ledger.record("p", item)
            except BadInput:
                assert ledger.store.require("p").seq == seq_before
        stored = ledger.records("p")
        from_scratch = core.fold(ruleset_of(stored), stored)
        if last is not None:
            assert last.state == from_scratch
        assert ledger.tracks("p") == from_scratch


def test_a_gm_override_keeps_what_the_view_does_not_show() -> None:
    kira = {
        "type": "combatant.joined",
        "name": "Kira",
        "side": "player",
        "stats": {"iron": 3, "health": 5, "momentum": 2},
    }
    adjusted = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "momentum",
        "value": 5,
        "reason": "asset",
    }
    roll = {
        "type": "roll.made",
        "actor": "Kira",
        "move": "face_danger",
        "stat": "iron",
        "action_die": 4,
        "challenge": [6, 8],
    }
    state = fold(stream("ironsworn", kira, adjusted, roll))
    # The action score still reads iron 3, which only the hidden stat block holds.
    assert state.view()["rolls"][0]["score"] == 7
    assert state.view()["combatants"]["Kira"]["momentum"] == 5


def test_a_state_replaced_with_an_update_leaves_the_original_as_it_was() -> None:
    state = core.State(encounter="ford", system="ssss", pools=core.read_only({"sb": 2}))
    later = core.replace(state, seq=7, pools=core.with_entry(state.pools, "sb", 3))
    assert (state.seq, dict(state.pools)) == (0, {"sb": 2})
    assert (later.seq, dict(later.pools)) == (7, {"sb": 3})
    assert later == core.State(encounter="ford", system="ssss", seq=7, pools={"sb": 3})
    with pytest.raises(AttributeError):
        later.seq = 8  # type: ignore[misc]  # still frozen
