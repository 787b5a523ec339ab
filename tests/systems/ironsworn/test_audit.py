"""Ironsworn audit: each rule id with a stream that breaks it and one that keeps it."""

from __future__ import annotations

import json
from typing import Any

from tests import paths
from tests.streams import audit, rules_hit, stream, tracks
from tests.systems.ironsworn.test_fold import Event, burn, choice, debility, harm, kira, meter, roll

EXAMPLES = paths.EXAMPLES


def hits(*items: Event, rules: dict[str, Any] | None = None) -> list[tuple[str, tuple[int, ...]]]:
    """(rule, seqs) of the errors and warnings a stream raises."""
    return rules_hit(stream("ironsworn", *items, rules=rules))


def severities(*items: Event, rules: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """(rule, severity) of every finding, info included."""
    return [(f.rule, f.severity) for f in audit(stream("ironsworn", *items, rules=rules))]


def oracle(result: int) -> Event:
    """Kira rolls on the Endure Harm oracle."""
    return {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": result}


# harm-before-roll


def test_an_endure_harm_roll_with_no_harm_before_it_is_flagged() -> None:
    assert hits(kira(), roll(4, (2, 3), stat="health")) == [("harm-before-roll", (3,))]


def test_an_endure_harm_roll_after_the_harm_is_clean() -> None:
    assert hits(kira(iron=3), harm(), roll(4, (2, 3))) == []


def test_a_second_harm_before_the_first_ones_roll_is_flagged() -> None:
    assert hits(kira(), harm(), harm(), roll(4, (2, 3))) == [("harm-before-roll", (3, 4))]


def test_a_harm_followed_by_another_move_is_flagged() -> None:
    assert hits(kira(), harm(), roll(4, (2, 3), move="strike")) == [("harm-before-roll", (3, 4))]


def test_one_harm_serves_one_roll() -> None:
    assert hits(kira(iron=3), harm(), roll(4, (2, 3)), roll(4, (2, 3))) == [
        ("harm-before-roll", (5,))
    ]


# endure-harm-stat


def test_rolling_health_when_iron_is_higher_is_flagged() -> None:
    # Health 5 -> 3 after dangerous harm; iron 4 is higher.
    assert hits(kira(iron=4), harm(), roll(4, (2, 3), stat="health")) == [
        ("endure-harm-stat", (4,))
    ]


def test_rolling_iron_when_health_after_the_harm_is_higher_is_flagged() -> None:
    assert hits(kira(iron=2), harm(rank="troublesome"), roll(4, (2, 3))) == [
        ("endure-harm-stat", (4,))
    ]


def test_the_stat_compares_with_health_after_the_harm_not_before() -> None:
    # Health was 5 (above iron 3) but is 2 after formidable harm: iron is right.
    assert hits(kira(iron=3), harm(rank="formidable"), roll(4, (2, 3))) == []


def test_rolling_another_stat_on_endure_harm_is_flagged() -> None:
    assert hits(kira(), harm(), roll(4, (2, 3), stat="heart")) == [("endure-harm-stat", (4,))]


def test_rolling_either_when_they_are_equal_is_clean() -> None:
    assert hits(kira(iron=3), harm(), roll(4, (2, 3), stat="health")) == []
    assert hits(kira(iron=3), harm(), roll(4, (2, 3))) == []


def test_other_moves_roll_any_stat() -> None:
    assert hits(kira(), roll(4, (2, 3), stat="heart", move="compel")) == []


# shake-it-off-allowed


def test_shake_it_off_on_a_strong_hit_with_health_left_is_clean() -> None:
    assert hits(kira(iron=3), harm(), roll(5, (2, 4)), choice("shake_it_off")) == []


def test_a_choice_on_a_weak_hit_is_flagged() -> None:
    assert hits(kira(iron=3), harm(), roll(1, (3, 9)), choice("embrace_the_pain")) == [
        ("shake-it-off-allowed", (4, 5))
    ]


def test_a_choice_on_a_miss_is_flagged() -> None:
    assert hits(kira(), harm(), roll(1, (5, 9), stat="health"), choice("shake_it_off")) == [
        ("shake-it-off-allowed", (4, 5))
    ]


def test_a_second_choice_on_one_strong_hit_is_flagged() -> None:
    items = (kira(iron=3), harm(), roll(5, (2, 4)), choice("embrace_the_pain"))
    assert hits(*items, choice("shake_it_off")) == [("shake-it-off-allowed", (5, 6))]


def test_a_choice_with_no_roll_is_flagged() -> None:
    assert hits(kira(), choice("embrace_the_pain")) == [("shake-it-off-allowed", (3,))]


def test_a_choice_after_another_move_is_flagged() -> None:
    items = (kira(iron=3), roll(5, (2, 4), move="strike"), choice("embrace_the_pain"))
    assert hits(*items) == [("shake-it-off-allowed", (3, 4))]


def test_shake_it_off_while_wounded_is_flagged() -> None:
    items = (kira(iron=3, debilities=["wounded"]), harm(), roll(5, (2, 4)))
    assert hits(*items, choice("shake_it_off")) == [("shake-it-off-allowed", (5,))]
    assert hits(*items, choice("embrace_the_pain")) == []


def test_shake_it_off_while_wounded_is_clean_when_the_house_rule_allows_it() -> None:
    items = (kira(iron=3, debilities=["wounded"]), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    assert hits(*items, rules={"wounded_blocks_shake_it_off": False}) == []


def test_shake_it_off_at_zero_health_is_flagged() -> None:
    items = (kira(iron=3, health=2), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    assert hits(*items) == [("shake-it-off-allowed", (5,))]


def test_the_commentary_text_lets_zero_health_regain_one() -> None:
    items = (kira(iron=3, health=2), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    assert hits(*items, rules={"strong_hit_text": "commentary"}) == []
    assert (
        tracks(stream("ironsworn", *items, rules={"strong_hit_text": "commentary"}))["combatants"][
            "Kira"
        ]["health"]
        == 1
    )


def test_shake_it_off_at_full_health_is_warned_or_refused_by_house_rule() -> None:
    items = (kira(), harm(amount=0), roll(5, (2, 4), stat="health"), choice("shake_it_off"))
    assert severities(*items) == [("shake-it-off-allowed", "warning")]
    assert severities(*items, rules={"shake_it_off_at_max_health": "disallowed"}) == [
        ("shake-it-off-allowed", "error")
    ]
    assert severities(*items, rules={"shake_it_off_at_max_health": "allowed"}) == []


def test_embrace_the_pain_at_max_momentum_is_noted_as_lost() -> None:
    items = (kira(iron=3, momentum=10), harm(), roll(5, (2, 4)), choice("embrace_the_pain"))
    assert severities(*items) == [("shake-it-off-allowed", "info")]


def test_a_choice_after_a_burn_made_the_strong_hit_is_clean() -> None:
    items = (kira(momentum=7), harm(), roll(1, (5, 6), stat="health"), burn(4))
    assert hits(*items, choice("embrace_the_pain")) == []


def reminders(
    *items: Event, rules: dict[str, Any] | None = None
) -> list[tuple[tuple[int, ...], str]]:
    """(seqs, message) of the reminders of obligations still open at the end of a stream."""
    findings = audit(stream("ironsworn", *items, rules=rules))
    return [(f.seq, f.message) for f in findings if f.rule == "obligation-open"]


def test_a_strong_hit_with_no_choice_yet_reminds_that_one_is_owed() -> None:
    # "On a strong hit, choose one": until choice.made, the +1 is missing from the sheet.
    assert reminders(kira(iron=3), harm(), roll(5, (2, 4))) == [
        (
            (4,),
            "Endure Harm strong hit at seq 4: 'Kira' chooses one: shake it off "
            "(-1 momentum, +1 health) or embrace the pain (+1 momentum)",
        )
    ]


def test_the_choice_closes_the_strong_hits_reminder() -> None:
    for option in ("shake_it_off", "embrace_the_pain"):
        assert reminders(kira(iron=3), harm(), roll(5, (2, 4)), choice(option)) == []


def test_a_weak_hit_or_a_strong_hit_of_another_move_owes_no_choice() -> None:
    assert reminders(kira(iron=3), harm(), roll(5, (2, 9))) == []
    assert reminders(kira(iron=3), roll(5, (2, 4), move="strike")) == []


def test_the_characters_next_roll_leaves_an_unmade_choice_behind() -> None:
    # The choice belongs to the moment after its roll: a later roll closes the reminder.
    assert reminders(kira(iron=3), harm(), roll(5, (2, 4)), roll(5, (2, 9), move="strike")) == []


def test_a_new_harm_leaves_an_unmade_choice_behind() -> None:
    # The sheet has moved on: a choice now would be judged by the new health.
    assert reminders(kira(iron=3), harm(), roll(5, (2, 4)), harm(amount=1)) == []


def test_a_burn_that_makes_a_strong_hit_opens_the_choice() -> None:
    items = (kira(momentum=7), harm(), roll(1, (5, 6), stat="health"), burn(4))
    assert [seqs for seqs, _ in reminders(*items)] == [(4,)]
    assert reminders(*items, choice("embrace_the_pain")) == []


def test_the_reminder_names_only_the_options_the_rules_give() -> None:
    # At 0 health (the move's text) or wounded, shaking it off gives nothing: the pain is left.
    at_zero = reminders(kira(iron=3, health=2), harm(), roll(5, (2, 4)))
    assert at_zero[0][1].endswith(
        "chooses one: embrace the pain (+1 momentum); at 0 health they cannot shake it off"
    )
    wounded = reminders(kira(iron=3, debilities=["wounded"]), harm(), roll(5, (2, 4)))
    assert wounded[0][1].endswith(
        "chooses one: embrace the pain (+1 momentum); wounded, they cannot shake it off"
    )
    # The commentary's wording ("you can regain 1 health") has no health condition.
    commentary = reminders(
        kira(iron=3, health=2), harm(), roll(5, (2, 4)), rules={"strong_hit_text": "commentary"}
    )
    assert commentary[0][1].endswith(
        "shake it off (-1 momentum, +1 health) or embrace the pain (+1 momentum)"
    )


# miss-at-zero-health


def zero_miss(*marked: str) -> tuple[Event, ...]:
    """Kira at 0 health misses Endure Harm at seq 4."""
    return (kira(iron=1, health=1, debilities=list(marked)), harm(), roll(1, (3, 9)))


def test_a_miss_at_zero_health_says_what_it_owes() -> None:
    findings = audit(stream("ironsworn", *zero_miss("wounded")))
    assert [(f.rule, f.severity, f.seq) for f in findings] == [("obligation-open", "info", (4,))]
    assert "must mark maimed or roll the Endure Harm oracle" in findings[0].message


def test_marking_wounded_after_a_miss_at_zero_health_is_clean() -> None:
    assert hits(*zero_miss(), debility("wounded"), harm(), roll(3, (1, 2))) == []


def test_marking_maimed_when_wounded_is_marked_is_clean() -> None:
    assert hits(*zero_miss("wounded"), debility("maimed"), harm(), roll(3, (1, 2))) == []


def test_rolling_the_oracle_instead_of_a_debility_is_clean() -> None:
    assert hits(*zero_miss(), oracle(77), harm(), roll(3, (1, 2))) == []


def test_moving_on_without_a_debility_or_the_oracle_is_flagged() -> None:
    assert hits(*zero_miss(), harm(), roll(3, (1, 2))) == [("miss-at-zero-health", (4, 5))]


def test_ending_the_scene_without_a_debility_or_the_oracle_is_flagged() -> None:
    assert hits(*zero_miss(), {"type": "scene.ended"}) == [("miss-at-zero-health", (4, 5))]


def test_marking_another_debility_does_not_settle_the_miss() -> None:
    items = (*zero_miss(), debility("shaken"), harm(), roll(3, (1, 2)))
    assert hits(*items) == [("miss-at-zero-health", (4, 6))]


def test_with_wounded_and_maimed_marked_the_oracle_is_mandatory() -> None:
    marked = zero_miss("wounded", "maimed")
    message = audit(stream("ironsworn", *marked))[0].message
    assert "roll the Endure Harm oracle (wounded and maimed are both marked)" in message
    assert hits(*marked, debility("maimed")) == [
        ("miss-at-zero-health", (4, 5)),
        ("debility-unchanged", (5,)),
    ]
    assert hits(*marked, oracle(5)) == []


def test_a_miss_with_health_left_owes_nothing() -> None:
    items = (harm(), roll(1, (8, 9), stat="health"), harm(), roll(1, (8, 9)))
    assert hits(kira(iron=1), *items) == []


def test_a_burn_that_turns_the_miss_into_a_hit_owes_nothing() -> None:
    items = (kira(iron=1, health=1, momentum=7), harm(), roll(1, (3, 9)), burn(4))
    assert hits(*items, harm(), roll(3, (1, 2))) == []


# oracle-not-owed


def test_an_oracle_roll_nothing_called_for_is_warned_and_its_tag_kept() -> None:
    items = (kira(iron=3), harm(), roll(5, (2, 4)), oracle(42))
    assert hits(*items) == [("oracle-not-owed", (5,))]
    assert tracks(stream("ironsworn", *items))["combatants"]["Kira"]["conditions"] == ["reeling"]


def test_an_oracle_roll_after_a_miss_with_health_left_is_warned() -> None:
    items = (kira(iron=1), harm(), roll(1, (5, 9), stat="health"))
    assert hits(*items, oracle(77)) == [("oracle-not-owed", (5,))]


def test_an_oracle_roll_after_a_debility_settled_the_miss_is_warned() -> None:
    assert hits(*zero_miss(), debility("wounded"), oracle(77)) == [("oracle-not-owed", (6,))]


def test_an_oracle_roll_after_a_burn_turned_the_miss_into_a_hit_is_warned() -> None:
    items = (kira(iron=1, health=1, momentum=7), harm(), roll(1, (3, 9)), burn(4))
    assert hits(*items, oracle(77)) == [("oracle-not-owed", (6,))]


def test_an_oracle_roll_after_a_burn_that_left_the_miss_at_zero_health_is_clean() -> None:
    items = (kira(iron=1, health=1, momentum=3), harm(), roll(1, (5, 9)), burn(4))
    assert hits(*items, oracle(77)) == [("momentum-burn-allowed", (4, 5))]


def test_rolling_the_oracle_again_while_reeling_is_clean() -> None:
    # "If you engage in any vigorous activity ... roll on this table again."
    assert hits(*zero_miss(), oracle(42), oracle(15)) == []


# momentum-burn-allowed

#: Health 3 after the harm, +health and a 1 make 4: a miss that a 6 or more turns into a weak hit.
MISS = roll(1, (5, 9), stat="health")


def test_a_burn_right_after_its_roll_that_helps_is_clean() -> None:
    assert hits(kira(momentum=6), harm(), MISS, burn(4)) == []


def test_a_burn_with_no_positive_momentum_is_flagged() -> None:
    assert hits(kira(momentum=0), harm(), MISS, burn(4)) == [("momentum-burn-allowed", (4, 5))]


def test_a_burn_that_changes_nothing_is_warned() -> None:
    findings = audit(stream("ironsworn", kira(momentum=3), harm(), MISS, burn(4)))
    assert [(f.rule, f.severity, f.seq) for f in findings] == [
        ("momentum-burn-allowed", "warning", (4, 5))
    ]
    assert "it stays a miss" in findings[0].message


def test_a_burn_on_a_strong_hit_is_warned() -> None:
    # The strong hit's choice is still owed at the end: a reminder beside the warning.
    assert severities(kira(iron=3, momentum=8), harm(), roll(5, (2, 4)), burn(4)) == [
        ("obligation-open", "info"),
        ("momentum-burn-allowed", "warning"),
    ]


def test_a_second_burn_on_one_roll_is_flagged() -> None:
    items = (kira(momentum=6), harm(), MISS, burn(4), burn(4))
    assert ("momentum-burn-allowed", (5, 6)) in hits(*items)


def test_a_burn_after_a_later_roll_is_flagged() -> None:
    items = (kira(momentum=6), harm(), MISS, roll(1, (5, 9), move="strike"))
    assert hits(*items, burn(4)) == [("momentum-burn-allowed", (4, 5, 6))]


def test_a_burn_after_the_choice_is_flagged() -> None:
    items = (kira(iron=3, momentum=8), harm(), roll(5, (2, 4)), choice("embrace_the_pain"))
    assert ("momentum-burn-allowed", (4, 5, 6)) in hits(*items, burn(4))


def test_a_burn_is_flagged_when_the_house_rules_allow_none() -> None:
    items = (kira(momentum=6), harm(), MISS, burn(4))
    assert hits(*items, rules={"burn_momentum_allowed": False}) == [
        ("momentum-burn-allowed", (4, 5))
    ]


# outcome-claim (common), recovery-blocked, permanent-debility-cleared


def test_a_claimed_outcome_the_dice_do_not_give_is_flagged() -> None:
    assert hits(kira(iron=3), harm(), roll(1, (3, 9), outcome="strong_hit")) == [
        ("outcome-claim", (4,))
    ]
    assert hits(kira(iron=3), harm(), roll(1, (3, 9), outcome="weak_hit")) == []


def test_raising_health_while_wounded_is_warned() -> None:
    assert hits(kira(health=2), debility("wounded"), meter("health", 1)) == [
        ("recovery-blocked", (4,))
    ]
    assert hits(kira(health=2), meter("health", 1)) == []


def test_clearing_maimed_is_warned_and_clearing_wounded_is_not() -> None:
    assert hits(kira(debilities=["maimed", "wounded"]), debility("maimed", "debility.cleared")) == [
        ("permanent-debility-cleared", (3,))
    ]
    assert hits(kira(debilities=["wounded"]), debility("wounded", "debility.cleared")) == []


def test_clearing_a_debility_not_marked_or_marking_one_twice_is_warned() -> None:
    assert hits(kira(), debility("shaken", "debility.cleared")) == [("debility-unchanged", (3,))]
    assert hits(kira(debilities=["shaken"]), debility("shaken")) == [("debility-unchanged", (3,))]
    assert hits(kira(debilities=["shaken"]), debility("shaken", "debility.cleared")) == []
    assert hits(kira(), debility("shaken")) == []


def test_harm_after_the_target_left_is_flagged() -> None:
    left = {"type": "combatant.left", "name": "Kira", "manner": "defeated"}
    assert hits(kira(), left, harm()) == [("event-after-defeat", (4,))]


def test_an_oracle_roll_for_one_who_left_is_flagged() -> None:
    """DESIGN 6: `event-after-defeat` covers any roll that involves a combatant who is no
    longer active; the Endure Harm oracle is rolled for its target."""
    left = {"type": "combatant.left", "name": "Kira", "manner": "escaped"}
    assert hits(*zero_miss(), left, oracle(40)) == [("event-after-defeat", (6,))]
    assert hits(*zero_miss(), oracle(40), left) == []


def test_harm_from_a_foe_who_fled_is_flagged() -> None:
    fled = {"type": "combatant.left", "name": "Chief", "manner": "fled"}
    chief = {"type": "combatant.joined", "name": "Chief", "side": "adversary", "stats": {}}
    assert hits(kira(), chief, fled, harm(foe="Chief")) == [("event-after-defeat", (5,))]
    assert hits(kira(), chief, harm(foe="Chief")) == []


# The example encounter


def load(name: str) -> list[Any]:
    """An example's stream (its `encounter.opened` line supplies the rules)."""
    lines = [json.loads(line) for line in (EXAMPLES / name).read_text().splitlines() if line]
    return stream("ironsworn", *lines[1:], rules=lines[0].get("rules"))


def test_the_ambush_example_folds_to_kira_at_the_edge() -> None:
    got = tracks(load("ironsworn-ambush.jsonl"))
    assert got["combatants"]["Kira"] == {
        "side": "player",
        "status": "active",
        "health": 0,
        "spirit": 4,
        "supply": 3,
        "momentum": -6,
        "max_momentum": 9,
        "momentum_reset": 1,
        "debilities": ["wounded"],
        "conditions": ["face_a_setback", "reeling"],
    }
    assert got["combatants"]["Bog Hound"]["status"] == "fled"
    assert [(r["seq"], r["outcome"], r["score"]) for r in got["rolls"]] == [
        (7, "strong_hit", 8),
        (9, "strong_hit", 8),
        (12, "weak_hit", 4),
        (15, "miss", 6),
        (18, "weak_hit", 6),
        (20, "weak_hit", 3),
        (22, "miss", 5),
    ]


def test_the_ambush_example_steps_through_harm_burn_and_debility() -> None:
    records = load("ironsworn-ambush.jsonl")
    kira_at = [tracks(records, at=at)["combatants"]["Kira"] for at in (8, 12, 13, 16, 21)]
    assert [(k["health"], k["momentum"]) for k in kira_at] == [
        (4, 3),
        (1, 4),
        (1, 2),
        (0, 1),
        (0, -6),
    ]


def test_the_ambush_example_breaks_only_the_stat_rule_and_owes_nothing() -> None:
    # Both misses at 0 health (seqs 15 and 22) are met, by wounded and by the oracle.
    findings = audit(load("ironsworn-ambush.jsonl"))
    assert [(f.rule, f.severity, f.seq) for f in findings] == [
        ("endure-harm-stat", "error", (18,)),
    ]
