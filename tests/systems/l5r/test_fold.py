"""L5R 5e fold: damage, resistance, defending with fatigue, critical strikes, recovery."""

from __future__ import annotations

from typing import Any

import pytest

from ledger import events
from tests import streams
from tests.streams import fold, stream, tracks

RINGS = {"air": 2, "earth": 2, "fire": 2, "water": 3, "void": 3}


def joined(name: str = "Akodo", side: str = "player", **stats: Any) -> dict[str, Any]:
    """A character with rings 2/2/2/3/3 (endurance 8, 2 Void points) unless `stats` say more."""
    return {
        "type": "combatant.joined",
        "name": name,
        "side": side,
        "stats": {"rings": RINGS, **stats},
    }


def damage(amount: int, target: str = "Akodo", **fields: Any) -> dict[str, Any]:
    """Physical damage to `target`."""
    return {"type": "damage.dealt", "target": target, "amount": amount, **fields}


def crit(severity: int, target: str = "Akodo", **fields: Any) -> dict[str, Any]:
    """A critical strike resolved at `severity`."""
    return {"type": "critical.resolved", "target": target, "severity": severity, **fields}


def of(records: list[events.Recorded], name: str = "Akodo") -> dict[str, Any]:
    """The tracks of one combatant after the stream."""
    combatant: dict[str, Any] = tracks(records)["combatants"][name]
    return combatant


def refusal(*items: dict[str, Any], rules: dict[str, Any] | None = None) -> str:
    """The bad-input message of the last item."""
    return streams.refusal("l5r", *items, rules=rules)


# Stats.


def test_endurance_defaults_to_twice_earth_plus_fire() -> None:
    rings = {**RINGS, "earth": 3, "fire": 2}
    assert of(stream("l5r", joined(rings=rings)))["endurance"] == 10


def test_a_given_endurance_overrides_the_default() -> None:
    assert of(stream("l5r", joined(endurance=7)))["endurance"] == 7


def test_void_points_default_to_half_the_void_ring_rounded_up() -> None:
    assert of(stream("l5r", joined()))["void_points"] == 2
    assert of(stream("l5r", joined(rings={**RINGS, "void": 2})))["void_points"] == 1


def test_the_house_rule_can_round_starting_void_points_down() -> None:
    records = stream("l5r", joined(), rules={"void_points_start": "half_rounded_down"})
    assert of(records)["void_points"] == 1


def test_given_void_points_are_kept() -> None:
    assert of(stream("l5r", joined(void_points=3)))["void_points"] == 3


def test_void_points_above_the_void_ring_are_bad_input() -> None:
    message = refusal(joined(void_points=4))
    assert "void_points 4 is more than the Void ring 3" in message


def test_stats_without_rings_are_bad_input_naming_the_stat_and_every_stat_of_the_side() -> None:
    message = refusal({"type": "combatant.joined", "name": "Akodo", "side": "player"})
    assert message == (
        "stats of 'Akodo' is missing stat 'rings'; an l5r player's stats: rings (object {air, "
        "earth, fire, water, void}; required), endurance (integer), void_points (integer), "
        'resistance (object {physical, supernatural}; default {"physical": 0, "supernatural": '
        "0})"
    )


def test_a_ring_of_zero_is_bad_input() -> None:
    message = refusal(joined(rings={**RINGS, "fire": 0}))
    assert "field 'rings.fire'" in message


def test_the_tracks_are_the_contract_keys_plus_resistance_and_rings() -> None:
    view = of(stream("l5r", joined(resistance={"physical": 2})))
    assert view == {
        "side": "player",
        "status": "active",
        "fatigue": 0,
        "endurance": 8,
        "incapacitated": False,
        "unconscious": False,
        "void_points": 2,
        "criticals": [],
        "resistance": {"physical": 2, "supernatural": 0},
        "rings": RINGS,
    }


# Increasing and reducing damage.


def test_increases_apply_before_reductions_and_the_floor_comes_once_at_the_end() -> None:
    # 1 + 4 - 3 = 2. Reducing first (1 - 3, floored at 0) and then increasing would give 4.
    records = stream("l5r", joined(), damage(1, increases=[4], reductions=[3]))
    assert of(records)["fatigue"] == 2


def test_several_increases_and_reductions_add_up() -> None:
    records = stream("l5r", joined(), damage(3, increases=[1, 2], reductions=[1, 1]))
    assert of(records)["fatigue"] == 4


def test_resistance_to_the_damage_type_is_one_of_the_reductions() -> None:
    armored = joined(resistance={"physical": 3, "supernatural": 1})
    physical = stream("l5r", armored, damage(5))
    supernatural = stream("l5r", armored, damage(5, damage_type="supernatural"))
    assert of(physical)["fatigue"] == 2
    assert of(supernatural)["fatigue"] == 4


def test_damage_reduced_to_zero_glances_off_with_no_fatigue_and_no_critical() -> None:
    records = stream(
        "l5r", joined(resistance={"physical": 3}), damage(4, reductions=[2], increases=[1])
    )
    view = of(records)
    assert (view["fatigue"], view["criticals"]) == (0, [])


def test_reductions_beyond_the_damage_floor_at_zero_not_below() -> None:
    records = stream("l5r", joined(), damage(3), damage(2, reductions=[9]))
    assert of(records)["fatigue"] == 3


def test_a_voluntary_critical_on_damage_reduced_to_zero_spends_no_void_point() -> None:
    records = stream("l5r", joined(resistance={"physical": 5}), damage(4, voluntary_critical=True))
    view = of(records)
    assert (view["void_points"], view["criticals"]) == (2, [])


# Defending against damage.


def test_a_character_defends_by_taking_fatigue_equal_to_the_remaining_damage() -> None:
    records = stream("l5r", joined(resistance={"physical": 1}), damage(4, increases=[2]))
    view = of(records)
    assert (view["fatigue"], view["criticals"], view["incapacitated"]) == (5, [], False)


def test_defending_needs_no_deadliness() -> None:
    assert of(stream("l5r", joined(), damage(3)))["fatigue"] == 3


def test_fatigue_equal_to_endurance_does_not_incapacitate() -> None:
    records = stream("l5r", joined(), damage(8))
    assert (of(records)["fatigue"], of(records)["incapacitated"]) == (8, False)


def test_fatigue_exceeding_endurance_incapacitates() -> None:
    records = stream("l5r", joined(), damage(9))
    assert (of(records)["fatigue"], of(records)["incapacitated"]) == (9, True)


def test_the_house_rule_reaches_incapacitates_at_fatigue_equal_to_endurance() -> None:
    records = stream("l5r", joined(), damage(8), rules={"incapacitation_comparison": ">="})
    assert of(records)["incapacitated"] is True


def test_the_reaches_house_rule_words_fatigue_equal_to_endurance_as_reaching_it() -> None:
    # Fatigue 8 at endurance 8 is not "over" it: the house rule makes reaching it incapacitate.
    reaches = {"incapacitation_comparison": ">="}
    message = refusal(joined(), damage(8), damage(1), rules=reaches)
    assert message == (
        "damage.dealt: 1 damage to 'Akodo' becomes a critical strike (Incapacitated: fatigue 8 "
        "reaching endurance 8), and a critical strike needs the source's deadliness: give "
        "deadliness"
    )


def test_the_hit_that_pushes_fatigue_over_endurance_is_defended_not_a_critical() -> None:
    records = stream("l5r", joined(), damage(6), damage(5, deadliness=5))
    view = of(records)
    assert (view["fatigue"], view["incapacitated"], view["criticals"]) == (11, True, [])


def test_fatigue_is_never_clamped_to_endurance() -> None:
    records = stream("l5r", joined(), damage(20))
    assert of(records)["fatigue"] == 20


# Critical strikes.


def test_an_incapacitated_character_cannot_defend_and_suffers_a_critical_strike() -> None:
    records = stream("l5r", joined(), damage(9), damage(3, deadliness=5))
    view = of(records)
    assert view["fatigue"] == 9
    assert view["criticals"] == [
        {"seq": 4, "severity": 5, "cause": "incapacitated", "resolved": None}
    ]


def test_a_critical_strike_without_deadliness_is_bad_input_saying_what_is_missing() -> None:
    message = refusal(joined(), damage(9), damage(3))
    assert message == (
        "damage.dealt: 3 damage to 'Akodo' becomes a critical strike (Incapacitated: fatigue 9 "
        "over endurance 8), and a critical strike needs the source's deadliness: give deadliness"
    )


def test_a_character_may_spend_a_void_point_to_take_a_critical_strike_instead() -> None:
    records = stream("l5r", joined(), damage(5, deadliness=6, voluntary_critical=True))
    view = of(records)
    assert (view["fatigue"], view["void_points"]) == (0, 1)
    assert view["criticals"] == [{"seq": 3, "severity": 6, "cause": "void", "resolved": None}]


def test_a_character_the_gm_says_cannot_defend_suffers_a_critical_strike() -> None:
    # NOTES 4.3 (4): Incapacitated is the text's one cause; others (unaware, bound) are the
    # GM's flag `can_defend=false`.
    records = stream("l5r", joined(), damage(5, deadliness=4, can_defend=False))
    view = of(records)
    assert (view["fatigue"], view["void_points"]) == (0, 2)
    assert view["criticals"] == [{"seq": 3, "severity": 4, "cause": "undefended", "resolved": None}]
    # Damage that glances off needs no defence: nothing happens.
    glancing = stream("l5r", joined(resistance={"physical": 3}), damage(3, can_defend=False))
    assert (of(glancing)["fatigue"], of(glancing)["criticals"]) == (0, [])
    message = refusal(joined(), damage(5, can_defend=False))
    assert "becomes a critical strike (it cannot defend)" in message


def test_a_voluntary_critical_without_deadliness_is_bad_input() -> None:
    message = refusal(joined(), damage(5, voluntary_critical=True))
    assert "(a voluntary critical)" in message


def test_resolving_a_critical_records_its_final_severity() -> None:
    records = stream(
        "l5r", joined(), damage(9), damage(2, deadliness=5), crit(3, fitness_successes=2)
    )
    assert of(records)["criticals"] == [
        {"seq": 4, "severity": 3, "cause": "incapacitated", "resolved": 5}
    ]


def test_pending_criticals_are_resolved_oldest_first() -> None:
    records = stream(
        "l5r",
        joined(),
        damage(9),
        damage(2, deadliness=5),
        damage(2, deadliness=7),
        crit(4),
    )
    assert [(c["seq"], c["severity"], c["resolved"]) for c in of(records)["criticals"]] == [
        (4, 4, 6),
        (5, 7, None),
    ]


#: Two criticals pending on an Incapacitated Akodo: seq 4 at deadliness 6, seq 5 at 4.
TWO_PENDING = [joined(), damage(9), damage(2, deadliness=6), damage(2, deadliness=4)]


def test_a_critical_resolved_naming_its_damage_resolves_that_critical() -> None:
    records = stream("l5r", *TWO_PENDING, crit(3, damage=5))
    assert [(c["seq"], c["severity"], c["resolved"]) for c in of(records)["criticals"]] == [
        (4, 6, None),
        (5, 3, 6),
    ]


def test_a_critical_resolved_naming_damage_that_left_no_pending_critical_is_bad_input() -> None:
    assert refusal(*TWO_PENDING, crit(3, damage=3)) == (
        "critical.resolved names damage seq 3, which left no pending critical strike on "
        "'Akodo' (pending: seq 4 at severity 6, seq 5 at severity 4)"
    )
    assert refusal(joined(), crit(3, damage=2)) == (
        "critical.resolved names damage seq 2, which left no pending critical strike on "
        "'Akodo' (pending: none)"
    )


def test_a_critical_resolved_naming_one_already_resolved_is_bad_input() -> None:
    message = refusal(*TWO_PENDING, crit(6, damage=4), crit(5, damage=4))
    assert message == (
        "critical.resolved: the critical strike from damage seq 4 on 'Akodo' was resolved at "
        "seq 6 (pending: seq 5 at severity 4)"
    )


def test_a_critical_resolved_without_damage_still_resolves_the_oldest_pending() -> None:
    records = stream("l5r", *TWO_PENDING, crit(6), crit(4))
    assert [(c["seq"], c["severity"], c["resolved"]) for c in of(records)["criticals"]] == [
        (4, 6, 6),
        (5, 4, 7),
    ]


def test_a_critical_resolved_with_none_pending_is_recorded_as_a_direct_one() -> None:
    records = stream("l5r", joined(), crit(6))
    assert of(records)["criticals"] == [{"seq": 3, "severity": 6, "cause": "direct", "resolved": 3}]


def test_a_critical_strike_adds_no_fatigue() -> None:
    records = stream("l5r", joined(), damage(4, deadliness=5, voluntary_critical=True))
    assert of(records)["fatigue"] == 0


# Recovering from fatigue.


def test_removing_fatigue_removes_that_much_to_a_minimum_of_zero() -> None:
    removed = {"type": "fatigue.removed", "target": "Akodo", "amount": 2, "cause": "Medicine"}
    records = stream("l5r", joined(), damage(5), removed)
    assert of(records)["fatigue"] == 3
    records = stream("l5r", joined(), damage(1), removed)
    assert of(records)["fatigue"] == 0


def test_removing_fatigue_to_endurance_ends_incapacitated() -> None:
    removed = {"type": "fatigue.removed", "target": "Akodo", "amount": 2}
    records = stream("l5r", joined(), damage(10), removed)
    assert (of(records)["fatigue"], of(records)["incapacitated"]) == (8, False)


def test_a_full_nights_rest_heals_twice_the_water_ring() -> None:
    rest = {"type": "rest.taken", "target": "Akodo"}
    assert of(stream("l5r", joined(), damage(10), rest))["fatigue"] == 4
    assert of(stream("l5r", joined(), damage(5), rest))["fatigue"] == 0


@pytest.mark.parametrize(
    ("endurance", "fatigue", "after"),
    [(8, 9, 4), (9, 9, 5), (10, 12, 5), (7, 4, 4)],
)
def test_scene_end_reduces_fatigue_to_half_endurance_rounded_up_if_over_it(
    endurance: int, fatigue: int, after: int
) -> None:
    records = stream("l5r", joined(endurance=endurance), damage(fatigue), {"type": "scene.ended"})
    assert of(records)["fatigue"] == after


def test_scene_end_lifts_incapacitated_with_the_fatigue() -> None:
    records = stream("l5r", joined(endurance=8), damage(9))
    assert of(records)["incapacitated"] is True
    records = stream("l5r", joined(endurance=8), damage(9), {"type": "scene.ended"})
    assert of(records)["incapacitated"] is False


def test_scene_end_recovers_every_character() -> None:
    records = stream(
        "l5r",
        joined(),
        joined("Bayushi", "adversary"),
        damage(7),
        damage(6, target="Bayushi"),
        {"type": "scene.ended"},
    )
    assert (of(records)["fatigue"], of(records, "Bayushi")["fatigue"]) == (4, 4)


# Void points.


def test_void_points_are_spent_and_gained_within_zero_and_the_void_ring() -> None:
    spend = {"type": "void.spent", "target": "Akodo", "amount": 1}
    gain = {"type": "void.gained", "target": "Akodo", "amount": 5}
    assert of(stream("l5r", joined(), spend))["void_points"] == 1
    assert of(stream("l5r", joined(), gain))["void_points"] == 3
    assert of(stream("l5r", joined(), spend, spend, spend))["void_points"] == 0


# Overrides and undo.


def test_a_gm_override_of_fatigue_re_evaluates_incapacitated() -> None:
    adjusted = {
        "type": "track.adjusted",
        "target": "Akodo",
        "track": "fatigue",
        "value": 9,
        "reason": "poison",
    }
    assert of(stream("l5r", joined(), adjusted))["incapacitated"] is True


def test_a_gm_override_cannot_give_more_void_points_than_the_void_ring() -> None:
    adjusted = {
        "type": "track.adjusted",
        "target": "Akodo",
        "track": "void_points",
        "value": 9,
        "reason": "blessing",
    }
    [skipped] = fold(stream("l5r", joined(), adjusted)).skipped
    assert skipped.reason == (
        "track 'void_points' of 'Akodo': void_points 9 is more than the Void ring 3 allows"
    )


def test_a_lower_endurance_re_evaluates_incapacitated() -> None:
    adjusted = {
        "type": "track.adjusted",
        "target": "Akodo",
        "track": "endurance",
        "value": 6,
        "reason": "Earth ring scar",
    }
    records = stream("l5r", joined(), damage(7), adjusted)
    assert (of(records)["endurance"], of(records)["incapacitated"]) == (6, True)


def test_undoing_the_incapacitating_hit_turns_the_later_critical_into_a_defended_hit() -> None:
    undo = {"type": "event.retracted", "target": 3, "reason": "that blow missed"}
    records = stream("l5r", joined(), damage(9), damage(3, deadliness=5), undo)
    view = of(records)
    assert (view["fatigue"], view["criticals"], view["incapacitated"]) == (3, [], False)


def test_damage_to_an_unknown_character_is_bad_input() -> None:
    message = refusal(joined(), damage(3, target="Nobody"))
    assert message.startswith("target 'Nobody' is not in encounter")


def test_a_roll_is_noted_with_the_tables_outcome() -> None:
    roll = {"type": "roll.made", "actor": "Akodo", "outcome": "success"}
    rolls = tracks(stream("l5r", joined(), roll))["rolls"]
    assert [(r["seq"], r["actor"], r["outcome"]) for r in rolls] == [(3, "Akodo", "success")]


def test_the_pinned_rules_table_has_the_documented_defaults() -> None:
    assert dict(fold(stream("l5r")).rules) == {
        "incapacitation_comparison": ">",
        "void_points_start": "half_rounded_up",
        "unconscious_severity": 10,
        "unconscious_ends": "incapacitated",
    }
