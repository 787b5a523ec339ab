"""The edges of the l5r rules that no other test pinned: each test here kills a mutant of
`projections/l5r/` (a flipped comparison, a shifted bound, a dropped branch) that every other
test let through. Quotes are from l5r-damage.txt; house defaults from NOTES.md 4.2, 4.3 and 5.4.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger import events
from projections.l5r.fold import RULESET
from tests import streams
from tests.streams import audit, fold, rules_hit, stream, tracks
from tests.systems.l5r.test_fold import RINGS, crit, damage, joined, of


def override(track: str, value: object, target: str = "Akodo") -> dict[str, Any]:
    """A GM override of one of Akodo's tracks (unless `target` says whose)."""
    return streams.override(target, track, value)


def skipped(*items: dict[str, Any]) -> list[str]:
    """Why the fold skipped events of a stream (a refused GM override)."""
    return [s.reason for s in fold(stream("l5r", joined(), *items)).skipped]


def knocked_out(
    *more: dict[str, Any], rules: dict[str, Any] | None = None
) -> list[events.Recorded]:
    """Akodo (endurance 8) defends to fatigue 9 (seq 3), then takes a critical strike while
    Incapacitated (seq 4, deadliness 5) resolved at 3 (seq 5): Unconscious from seq 4."""
    return stream("l5r", joined(), damage(9), damage(2, deadliness=5), crit(3), *more, rules=rules)


# Stats: the rings, and Void points at the start (NOTES 5.4 `void_points_session_start`).


def test_rings_run_from_1_to_10() -> None:
    low = {"air": 1, "earth": 1, "fire": 1, "water": 1, "void": 1}
    assert of(stream("l5r", joined(rings=low)))["endurance"] == 4  # (1 + 1) x 2
    high = {**RINGS, "earth": 10, "fire": 10, "void": 10}
    assert of(stream("l5r", joined(rings=high)))["endurance"] == 40
    message = streams.refusal("l5r", joined(rings={**RINGS, "void": 11}))
    assert message.endswith("field 'rings.void': input should be less than or equal to 10 (got 11)")


@pytest.mark.parametrize(("ring", "points"), [(1, 0), (2, 1), (3, 1), (4, 2), (5, 2)])
def test_void_points_rounded_down_are_half_the_ring(ring: int, points: int) -> None:
    records = stream(
        "l5r",
        joined(rings={**RINGS, "void": ring}),
        rules={"void_points_start": "half_rounded_down"},
    )
    assert of(records)["void_points"] == points


# GM overrides: "fatigue never negative", "0 <= void_points <= void_ring" (NOTES 5.4 invariants).


def test_a_gm_override_may_set_each_track_to_its_bound_and_not_past_it() -> None:
    at_bounds = stream(
        "l5r",
        joined(),
        override("fatigue", 0),
        override("endurance", 1),
        override("void_points", 0),
        override("void_points", 3),  # the Void ring
    )
    view = of(at_bounds)
    assert (view["fatigue"], view["endurance"], view["void_points"]) == (0, 1, 3)
    assert fold(at_bounds).skipped == ()
    past = skipped(
        override("fatigue", -1),
        override("endurance", 0),
        override("void_points", -1),
        override("void_points", 4),
    )
    assert past == [
        "track 'fatigue' of 'Akodo' field 'fatigue': input should be greater than or equal to 0 "
        "(got -1)",
        "track 'endurance' of 'Akodo' field 'endurance': input should be greater than or equal "
        "to 1 (got 0)",
        "track 'void_points' of 'Akodo' field 'void_points': input should be greater than or "
        "equal to 0 (got -1)",
        "track 'void_points' of 'Akodo': void_points 4 is more than the Void ring 3 allows",
    ]


def test_a_gm_override_of_incapacitated_stands_until_fatigue_or_endurance_changes() -> None:
    # The fold re-evaluates Incapacitated after a change of fatigue or endurance (NOTES 4.3 2),
    # not after an override of the condition itself: the GM's word stands, and an
    # "Incapacitated character cannot defend against damage".
    records = stream("l5r", joined(), override("incapacitated", True), damage(2, deadliness=5))
    view = of(records)
    assert (view["fatigue"], view["incapacitated"]) == (0, True)
    assert view["criticals"] == [
        {"seq": 4, "severity": 5, "cause": "incapacitated", "resolved": None}
    ]


# Void points spent as played (the audit says what the rules give).


def test_the_last_void_point_spent_on_a_refused_voluntary_critical_is_spent_as_played() -> None:
    # "a character who is not Incapacitated may spend 1 Void point": Incapacitated, the table
    # spent it anyway; the ledger records it, and the audit says the rules kept it.
    records = stream(
        "l5r",
        joined(void_points=1),
        damage(9),
        damage(2, deadliness=5, voluntary_critical=True),
    )
    assert of(records)["void_points"] == 0
    (refused,) = [f for f in audit(records) if f.rule == "void-critical-not-allowed"]
    assert refused.seq == (4,)
    assert "Void points stay 1; recorded as played" in refused.message
    assert refused.message.endswith("Void points 1 -> 0")


# Unconscious: since when (the seqs of `critical-unconscious`), and the house +10 (NOTES 5.4).


def test_knocked_out_again_after_waking_is_unconscious_since_the_second_time() -> None:
    records = knocked_out(
        {"type": "fatigue.removed", "target": "Akodo", "amount": 2},  # 6: fatigue 7, awake
        damage(2),  # 7: defended, fatigue 9, Incapacitated again
        damage(2, deadliness=15),  # 8: knocked out again
        crit(13, damage=8),
        damage(2, deadliness=5),  # 10: no +10
    )
    assert of(records)["unconscious"] is True
    assert rules_hit(records) == [("critical-unconscious", (8, 10))]


def test_a_gm_knock_out_dates_unconscious_from_the_override() -> None:
    records = stream(
        "l5r", joined(), override("unconscious", True), damage(2, deadliness=5), crit(4)
    )
    assert rules_hit(records) == [("critical-unconscious", (3, 4))]
    # An override of an Unconscious character keeps the seq it was knocked out at.
    again = knocked_out(override("unconscious", True), damage(2, deadliness=5))
    assert rules_hit(again) == [("critical-unconscious", (4, 7))]


def test_damage_reduced_to_0_on_an_unconscious_character_asks_no_severity() -> None:
    # "If a character reduces damage they would suffer to 0 ... it glances off harmlessly":
    # no critical strike, so no +10 is missing from its deadliness.
    records = knocked_out(damage(2, deadliness=5, reductions=[2]))
    assert of(records)["criticals"][-1]["seq"] == 4
    assert rules_hit(records) == []


def test_a_direct_critical_at_exactly_the_10_less_its_successes_keeps_the_rule() -> None:
    assert rules_hit(knocked_out(crit(8, fitness_successes=2))) == []
    assert rules_hit(knocked_out(crit(7, fitness_successes=2))) == [
        ("critical-unconscious", (4, 6))
    ]


def test_a_house_modifier_of_1_asks_for_1_more() -> None:
    one = {"unconscious_severity": 1}
    assert rules_hit(knocked_out(damage(2, deadliness=0), rules=one)) == [
        ("critical-unconscious", (4, 6))
    ]
    assert rules_hit(knocked_out(damage(2, deadliness=1), rules=one)) == []


# The report's condition marks: Unconscious before Incapacitated.


def test_the_condition_marked_is_unconscious_else_incapacitated_else_none() -> None:
    def condition(*items: dict[str, Any]) -> str | None:
        view = tracks(stream("l5r", joined(), *items))["combatants"]["Akodo"]
        return RULESET.condition(view)

    assert condition() is None
    assert condition(damage(9)) == "incapacitated"
    assert condition(damage(9), damage(2, deadliness=5)) == "unconscious"
    assert condition(override("unconscious", True)) == "unconscious"
