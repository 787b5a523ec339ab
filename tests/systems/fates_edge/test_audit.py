"""Fate's Edge audit: each rule with a stream that breaks it and one that keeps it."""

from __future__ import annotations

from typing import Any

import pytest

from ledger import Ledger
from ledger.errors import RuleRefused
from projections.findings import Finding
from tests.streams import audit, rules_hit
from tests.systems.fates_edge.test_fold import (
    Event,
    adversary,
    attack,
    fe,
    hit,
    landed,
    lock,
    player,
    roll,
    spend,
    suffer,
    tired,
)

ASH, BLADE = player(), adversary()
#: A test that fills the GM's pool with 3 SB (seqs 4 and 5).
BANK = [lock("bank", dv=3), roll("bank", 1, 1, 1)]


def defense(stake: str, **fields: Any) -> Event:
    """An attack by the Silken Blade that Ash must answer (an ordinary, SB-bought attack)."""
    fields = {"kind": "defense", "source": "sb_attack", "dv": 3, **fields}
    return lock(stake, consequence="a stiletto between the ribs", **fields)


def found(*items: Event, rules: dict[str, Any] | None = None) -> list[tuple[str, tuple[int, ...]]]:
    """(rule, seqs) of the errors and warnings of a stream (seq 2 Ash, 3 Silken Blade, ...)."""
    return rules_hit(fe(ASH, BLADE, *items, rules=rules))


def only(rule: str, *items: Event) -> Finding:
    """The one non-info finding of a stream, which must be `rule`."""
    out = [f for f in audit(fe(ASH, BLADE, *items)) if f.severity != "info"]
    assert [f.rule for f in out] == [rule]
    return out[0]


# consequence-charged-once


def test_a_second_hit_for_one_consequence_is_flagged() -> None:
    assert found(*landed("a", 2), hit(2, "a")) == [("consequence-charged-once", (6, 7))]


def test_a_second_harm_for_one_failed_response_is_flagged() -> None:
    items = [*BANK, spend(1, "attack", stake="d"), defense("d"), roll("d", 2), suffer("d", 2)]
    assert found(*items, suffer("d", 2)) == [("consequence-charged-once", (9, 10))]


def test_one_hit_per_consequence_and_the_actors_own_consequence_on_a_partial_are_kept() -> None:
    items = [
        attack("a", 2, partial={"harm": 1}, consequence_harm=1),
        roll("a", 6, 1),
        hit(1, "a"),
        suffer("a", 1),
    ]
    assert found(*items) == []


# hit-without-success


def test_a_hit_on_a_miss_is_flagged() -> None:
    finding = only("hit-without-success", attack("a", 2), roll("a", 3, 1), hit(2, "a"))
    assert finding.seq == (4, 5, 6)
    assert "missed at seq 5 (0 successes vs DV 3)" in finding.message


def test_a_hit_with_no_stake_is_a_warning() -> None:
    finding = only("hit-without-success", hit(2))
    assert (finding.severity, finding.seq) == ("warning", (4,))


def test_a_hit_on_stakes_never_rolled_or_never_locked_is_flagged() -> None:
    assert found(attack("a", 2), hit(2, "a")) == [("hit-without-success", (4, 5))]
    assert found(hit(2, "zz")) == [("hit-without-success", (4,))]


def test_a_hit_before_the_roll_says_the_stakes_had_no_roll_before_it() -> None:
    # An amended roll: its corrected copy is recorded after the hit it should have preceded.
    undo = {"type": "event.retracted", "target": 5, "reason": "amended: wrong dice"}
    items = [attack("a", 2), roll("a", 2, 3), hit(2, "a"), undo, roll("a", 10, 9, 8)]
    finding = only("hit-without-success", *items)
    assert (finding.seq, finding.message) == (
        (4, 6),
        "hit 2 Harm on 'Silken Blade' at seq 6 for stakes 'a', which had no roll before seq 6; "
        "a Miss makes no progress: by the rules it changes nothing; recorded as played: "
        "resilience 8 -> 7, fatigue 0 -> 1",
    )


def test_harm_before_the_roll_says_the_stakes_had_no_roll_before_it() -> None:
    items = [*BANK, spend(1, "attack", stake="d"), defense("d"), suffer("d", 2), roll("d", 2)]
    finding = only("hit-without-success", *items)
    assert (finding.seq, finding.message) == (
        (7, 8),
        "harm 2 on 'Ash' at seq 8 for stakes 'd', which had no roll before seq 8; "
        "harm follows a failed response: by the rules it changes nothing; recorded as played: "
        "harm 0 -> 1, fatigue 0 -> 1",
    )


def test_harm_after_a_successful_action_is_flagged() -> None:
    items = [attack("a", 2, consequence_harm=2), roll("a", 10, 9), suffer("a", 2)]
    assert found(*items) == [("hit-without-success", (4, 5, 6))]


def test_a_hit_on_a_success_is_kept() -> None:
    assert found(*landed("a", 2)) == []


# partial-is-lesser


def test_a_partial_hit_beyond_the_declared_lesser_progress_is_flagged() -> None:
    items = [attack("a", 3, partial={"harm": 1}), roll("a", 6, 7), hit(3, "a")]
    finding = only("partial-is-lesser", *items)
    assert "hit 3 Harm on a Partial" in finding.message
    assert "declared lesser progress was 1 Harm" in finding.message


def test_a_partial_hit_with_no_declared_lesser_harm_is_flagged() -> None:
    items = [attack("a", 3, partial={"text": "she gives ground"}), roll("a", 6), hit(3, "a")]
    assert "was no lesser Harm" in only("partial-is-lesser", *items).message


def test_partial_defense_harm_beyond_the_agreed_protection_is_flagged() -> None:
    items = [*BANK, spend(1, "attack"), defense("d", partial={"harm": 1}), roll("d", 6)]
    assert found(*items, suffer("d", 2)) == [("partial-is-lesser", (7, 8, 9))]
    # Light armor: Harm 1 would have been 1 Fatigue; Harm 2 is a Harm level and 1 Fatigue.
    assert only("partial-is-lesser", *items, suffer("d", 2)).message == (
        "harm 2 on 'Ash' at seq 9 on a Partial defense (1 success vs DV 3, seq 8) whose lesser "
        "protection agreed before the roll was Harm 1: by the rules Harm 1: fatigue 0 -> 1; "
        "recorded as played: harm 0 -> 1, fatigue 0 -> 1"
    )


def test_a_partial_defense_with_no_protection_agreed_says_none_was_and_the_harm_charged() -> None:
    items = [*BANK, spend(1, "attack"), defense("d"), roll("d", 6), suffer("d", 3)]
    assert only("partial-is-lesser", *items).message == (
        "harm 3 on 'Ash' at seq 9 on a Partial defense (1 success vs DV 3, seq 8): no lesser "
        "protection was agreed before the roll, so the Partial should have protected as the GM "
        "rules (agree it with the stakes, partial.harm), not charged the full Harm 3; recorded "
        "as played: harm 0 -> 2, fatigue 0 -> 1"
    )


def test_a_partial_hit_beyond_its_lesser_progress_says_what_the_lesser_harm_gives() -> None:
    items = [attack("a", 3, partial={"harm": 2}), roll("a", 6, 7), hit(3, "a")]
    assert only("partial-is-lesser", *items).message.endswith(
        "not full weapon damage: by the rules Harm 2: resilience 8 -> 7, fatigue 0 -> 1; "
        "recorded as played: resilience 8 -> 6, fatigue 0 -> 1"
    )


def test_a_lesser_progress_no_less_than_a_successes_harm_is_flagged_at_the_lock() -> None:
    # "A Partial grants the stated lesser progress, not automatically full weapon damage":
    # a Partial framed at the full Harm lets the full Harm through with no finding at the hit.
    assert only("partial-is-lesser", attack("a", 2, partial={"harm": 2})).message == (
        "stakes 'a' at seq 4 declare Harm 2 on a Partial, no less than the Harm 2 of a success; "
        "a Partial grants the stated lesser progress, not full weapon damage"
    )
    assert found(attack("a", 2, partial={"harm": 2}))[0] == ("partial-is-lesser", (4,))


def test_lesser_protection_no_less_than_the_harm_of_a_miss_is_flagged_at_the_lock() -> None:
    # The Silken Blade's printed Harm 2 is what a miss lets in when no consequence names one.
    items = [*BANK, spend(1, "attack"), defense("d", partial={"harm": 2})]
    assert only("partial-is-lesser", *items).message == (
        "stakes 'd' at seq 7 agree Harm 2 on a Partial defense, no less than the Harm 2 a miss "
        "lets in; a Partial defense uses the lesser protection agreed before the roll"
    )


def test_a_lesser_progress_below_the_harm_with_its_effect_is_kept() -> None:
    assert found(attack("a", 2, partial={"harm": 2}, effect="great", effect_harm=1)) == []


def test_the_declared_lesser_progress_and_protection_are_kept() -> None:
    items = [
        attack("a", 3, partial={"harm": 1}),
        roll("a", 6, 1),
        hit(1, "a"),
        spend(1, "attack"),
        defense("d", partial={"harm": 1}),
        roll("d", 6),
        suffer("d", 1),
    ]
    assert found(*items) == []


# effect-declared-before-roll


def test_effect_that_secretly_multiplies_harm_is_flagged() -> None:
    items = [attack("a", 2, effect="great"), roll("a", 10, 9), hit(4, "a")]
    finding = only("effect-declared-before-roll", *items)
    assert "hit 4 Harm" in finding.message and "declared Harm 2" in finding.message


def test_a_hit_whose_stakes_declared_no_harm_is_flagged() -> None:
    items = [lock("a", target="Silken Blade", dv=3), roll("a", 10, 9), hit(2, "a")]
    assert found(*items) == [("effect-declared-before-roll", (4, 5, 6))]


def test_harm_beyond_the_announced_consequence_is_flagged() -> None:
    items = [*BANK, spend(1, "attack"), defense("d", consequence_harm=1), roll("d", 2)]
    assert found(*items, suffer("d", 2)) == [("effect-declared-before-roll", (7, 8, 9))]


def test_harm_beyond_the_adversarys_printed_harm_is_flagged_when_none_was_announced() -> None:
    items = [*BANK, spend(1, "attack"), defense("d"), roll("d", 2), suffer("d", 3)]
    assert "was Harm 2" in only("effect-declared-before-roll", *items).message


def test_harm_from_effect_declared_before_the_roll_is_kept() -> None:
    items = [attack("a", 2, effect="great", effect_harm=1), roll("a", 10, 9), hit(3, "a")]
    assert found(*items) == []


# sb-not-retroactive


def test_sb_from_a_roll_spent_to_change_that_roll_is_flagged() -> None:
    items = [attack("a", 2), roll("a", 6, 7, 1), spend(1, "shape", stake="a")]
    finding = only("sb-not-retroactive", *items)
    assert finding.seq == (4, 5, 6)
    assert "generated 1 SB" in finding.message


def test_earlier_sb_shaping_a_test_after_its_stakes_locked_is_flagged() -> None:
    items = [attack("a", 2), roll("a", 1), lock("b", dv=3), spend(1, "shape", stake="b")]
    assert found(*items) == [("sb-not-retroactive", (6, 7))]


def test_shaping_locked_stakes_not_yet_rolled_says_the_stakes_stay_as_locked() -> None:
    items = [attack("a", 2), roll("a", 1), lock("b", dv=3), spend(1, "shape", stake="b")]
    message = only("sb-not-retroactive", *items).message
    assert "the stakes stay as locked; recorded as played: SB pool 1 -> 0" in message
    assert "roll" not in message.split("locked at seq 6; ")[1]


def test_paying_for_an_attack_after_its_roll_is_flagged() -> None:
    items = [
        attack("a", 2),
        roll("a", 1),
        defense("d"),
        roll("d", 2),
        spend(1, "attack", stake="d"),
    ]
    assert ("sb-not-retroactive", (6, 7, 8)) in found(*items)


def test_sb_spent_on_the_next_test_or_on_fallout_is_kept() -> None:
    items = [
        attack("a", 2),
        roll("a", 10, 9, 1, 1),
        spend(1, "complication", stake="a"),
        spend(1, "shape", stake="b"),
        lock("b", dv=3),
    ]
    assert found(*items) == []


# sb-overspent


def test_spending_more_sb_than_the_pool_holds_is_flagged() -> None:
    items = [attack("a", 2), roll("a", 1, 6), spend(2, "complication")]
    assert "spends 2 SB with 1 in the GM's pool" in only("sb-overspent", *items).message


def test_spending_what_the_pool_holds_is_kept() -> None:
    assert found(attack("a", 2), roll("a", 1, 1, 6), spend(2, "complication")) == []


# npc-attack-needs-sb


def test_a_new_attack_with_no_sb_spent_is_flagged() -> None:
    finding = only("npc-attack-needs-sb", defense("d"), roll("d", 6))
    assert (finding.seq, "costs 1 SB" in finding.message) == ((4, 5), True)


def test_a_defense_framed_as_a_player_test_still_needs_sb() -> None:
    assert found(defense("d", source="player"), roll("d", 6)) == [("npc-attack-needs-sb", (4, 5))]


def test_an_attack_bought_ahead_or_by_stake_and_a_consequence_are_kept() -> None:
    items = [
        attack("a", 2),
        roll("a", 1, 1, 6),
        spend(1, "attack"),
        defense("d"),
        roll("d", 6),
        spend(1, "attack", stake="e"),
        defense("e"),
        roll("e", 7),
        defense("f", source="consequence"),
        roll("f", 2),
        suffer("f", 2),
    ]
    assert found(*items) == []


def test_an_opportunity_attack_is_free_only_when_expressly_free() -> None:
    free = adversary("Cutthroat", moves=[{"name": "Back-Turned Stab", "cost": 0, "free": True}])
    kept = [
        free,
        lock("o", "Cutthroat", kind="defense", source="opportunity", move="Back-Turned Stab", dv=3),
        roll("o", 6),
    ]
    assert found(*kept) == []
    opportunity = lock("o", kind="defense", source="opportunity", dv=3)
    flagged = only("npc-attack-needs-sb", opportunity, roll("o", 6))
    assert (flagged.severity, flagged.seq) == ("warning", (4, 5))
    # Its SB paid before the roll, the attack owes nothing.
    paid = [*BANK, opportunity, spend(1, "attack", stake="o"), roll("o", 6)]
    assert found(*paid) == []


# move-cost


def test_a_move_paid_below_its_printed_cost_is_flagged() -> None:
    grasp = adversary("Hag", moves=[{"name": "Drowning Grasp", "cost": 2}], fatigue_capacity=3)
    items = [
        grasp,
        attack("a", 2, "Hag"),
        roll("a", 1, 1, 6),
        spend(1, "move", move="Drowning Grasp", stake="g"),
        lock("g", "Hag", kind="defense", source="sb_move", move="Drowning Grasp", dv=3),
        roll("g", 6),
    ]
    assert found(*items) == [("move-cost", (7, 8, 9))]


def test_a_move_bought_ahead_at_the_wrong_cost_is_flagged_once() -> None:
    grasp = adversary("Hag", moves=[{"name": "Drowning Grasp", "cost": 2}])
    items = [
        grasp,
        attack("a", 2, "Hag"),
        roll("a", 1, 1, 6),
        spend(1, "move", move="Drowning Grasp"),
        lock("g", "Hag", kind="defense", source="sb_move", move="Drowning Grasp", dv=3),
        roll("g", 6),
    ]
    assert found(*items) == [("move-cost", (7,))]


def test_a_move_the_adversary_does_not_list_is_flagged() -> None:
    items = [lock("g", kind="defense", source="sb_move", move="Vanish", dv=3)]
    assert found(*items) == [("move-cost", (4,))]


def test_a_move_paid_at_its_printed_cost_is_kept() -> None:
    grasp = adversary("Hag", moves=[{"name": "Drowning Grasp", "cost": 2}])
    items = [
        grasp,
        attack("a", 2, "Hag"),
        roll("a", 1, 1, 6),
        spend(2, "move", move="Drowning Grasp"),
        lock("g", "Hag", kind="defense", source="sb_move", move="Drowning Grasp", dv=3),
        roll("g", 6),
    ]
    assert found(*items) == []


# move-trigger


def test_poisoned_cut_used_as_a_second_attack_is_flagged() -> None:
    items = [
        attack("a", 2),
        roll("a", 1, 6),
        spend(1, "move", move="Poisoned Cut", stake="p"),
        lock("p", kind="defense", source="sb_move", move="Poisoned Cut", dv=3),
    ]
    assert ("move-trigger", (7,)) in found(*items)


def test_poisoned_cut_bought_with_no_hit_is_flagged() -> None:
    items = [attack("a", 2), roll("a", 1, 6), spend(1, "move", move="Poisoned Cut")]
    assert "with no hit by 'Silken Blade'" in only("move-trigger", *items).message


def test_poisoned_cut_bought_twice_for_one_hit_is_flagged() -> None:
    items = [
        attack("a", 2),
        roll("a", 1, 1, 6),
        spend(1, "attack"),
        defense("d"),
        roll("d", 2),
        suffer("d", 2),
        spend(1, "move", move="Poisoned Cut"),
        tired(1, "Ash"),
    ]
    assert found(*items) == []
    again = found(*items, spend(1, "move", move="Poisoned Cut"))
    assert again == [("sb-overspent", (12,)), ("move-trigger", (9, 12))]


# defense-avoids-hit


def test_harm_after_a_successful_defense_is_one_finding_the_rule_that_says_more() -> None:
    # One mistake, one finding (#24): `defense-avoids-hit` refines `hit-without-success`.
    items = [*BANK, spend(1, "attack"), defense("d"), roll("d", 10, 9), suffer("d", 2)]
    assert found(*items) == [("defense-avoids-hit", (7, 8, 9))]


def test_a_paid_move_that_expressly_bypasses_a_defense_is_kept() -> None:
    hag = adversary("Hag", moves=[{"name": "Curse", "cost": 1, "unavoidable": True}])
    items = [
        hag,
        attack("a", 2, "Hag"),
        roll("a", 1, 6, 7, 8),
        spend(1, "move", move="Curse"),
        lock("c", "Hag", kind="defense", source="sb_move", move="Curse", dv=3),
        suffer("c", 1),
    ]
    assert found(*items) == []


def test_a_paid_move_inflicts_no_harm_without_a_failed_response() -> None:
    grasp = adversary("Hag", moves=[{"name": "Drowning Grasp", "cost": 2}])
    items = [
        grasp,
        attack("a", 2, "Hag"),
        roll("a", 1, 1, 6),
        spend(2, "move", move="Drowning Grasp"),
        lock("g", "Hag", kind="defense", source="sb_move", move="Drowning Grasp", dv=3),
        suffer("g", 2),
    ]
    assert found(*items) == [("hit-without-success", (8, 9))]


def test_harm_after_a_failed_defense_is_kept() -> None:
    assert found(*BANK, spend(1, "attack"), defense("d"), roll("d", 2), suffer("d", 2)) == []


# no-retaliation


def test_weapon_harm_from_a_successful_defense_is_flagged() -> None:
    items = [*BANK, spend(1, "attack"), defense("d"), roll("d", 10, 9), hit(2, "d")]
    assert "deals no weapon Harm" in only("no-retaliation", *items).message


def test_a_declared_riposte_is_kept() -> None:
    items = [*BANK, spend(1, "attack"), defense("d", harm=1), roll("d", 10, 9), hit(1, "d")]
    assert found(*items) == []


# fatigue-no-outgoing-harm


def test_a_fatigued_adversary_dealing_more_than_its_printed_harm_is_flagged() -> None:
    items = [*BANK, tired(1), spend(1, "attack"), defense("d"), roll("d", 2), suffer("d", 3)]
    assert found(*items) == [("fatigue-no-outgoing-harm", (8, 9, 10))]


def test_stakes_announcing_more_harm_from_a_fatigued_adversary_are_flagged() -> None:
    assert found(tired(2), defense("d", consequence_harm=4)) == [("fatigue-no-outgoing-harm", (5,))]


def test_a_fatigued_adversary_dealing_its_printed_harm_is_kept() -> None:
    items = [*BANK, tired(2), spend(1, "attack"), defense("d"), roll("d", 2), suffer("d", 2)]
    assert found(*items) == []


# dv-default


def test_npc_opposition_at_an_unusual_dv_is_a_warning() -> None:
    finding = only("dv-default", lock("a", dv=6))
    assert (finding.severity, "DV 6" in finding.message) == ("warning", True)


def test_npc_opposition_at_dv_3_or_4_is_kept() -> None:
    assert found(lock("a", dv=3), lock("b", dv=4), lock("c")) == []


def test_the_hard_dv_is_read_from_the_pinned_rules() -> None:
    assert found(lock("a", dv=5), rules={"dv_hard": 5}) == []


# npc-does-not-roll and puzzle-needs-resolution (rules text sentences with no DESIGN id)


def test_an_adversary_rolling_its_printed_pool_is_a_warning() -> None:
    items = [lock("n", actor="Silken Blade", opposing="Ash"), roll("n", 6, 7, actor="Silken Blade")]
    assert found(*items) == [("npc-does-not-roll", (4,)), ("npc-does-not-roll", (5,))]


def test_a_puzzle_adversary_left_as_defeated_is_a_warning() -> None:
    riddle = adversary("Riddle", resilience=None, resolution="answer the riddle")
    left = {"type": "combatant.left", "name": "Riddle", "manner": "defeated"}
    assert found(riddle, left) == [("puzzle-needs-resolution", (5,))]
    resolved = {"type": "combatant.left", "name": "Riddle", "manner": "resolved"}
    assert found(riddle, resolved) == []


# stake-rolled-once: one roll resolves locked stakes; a second one is flagged and the first stands


def test_a_second_roll_of_a_stake_is_flagged_and_the_first_roll_stands() -> None:
    items = [attack("a", 2), roll("a", 3, 1), roll("a", 10, 9, 8), hit(2, "a")]
    assert found(*items) == [
        ("stake-rolled-once", (5, 6)),
        ("hit-without-success", (4, 5, 7)),
    ]
    (reroll, _) = [f for f in audit(fe(ASH, BLADE, *items)) if f.severity != "info"]
    assert (reroll.severity, reroll.message) == (
        "error",
        "seq 6 rolls stake 'a' again; it was rolled at seq 5 (0 successes vs DV 3: miss) and "
        "that roll stands: one roll resolves locked stakes",
    )


def test_the_sb_of_a_second_roll_of_a_stake_are_not_in_the_pool() -> None:
    items = [lock("a", dv=3), roll("a", 2, 3), roll("a", 1, 1, 1), spend(1, "complication")]
    assert found(*items) == [("stake-rolled-once", (5, 6)), ("sb-overspent", (7,))]


def test_a_second_roll_of_a_stake_is_flagged_once_whatever_outcome_it_claims() -> None:
    items = [attack("a", 2), roll("a", 3, 1), roll("a", 10, 9, 8, outcome="miss")]
    assert found(*items) == [("stake-rolled-once", (5, 6))]


def test_each_further_roll_of_a_stake_is_flagged_against_the_first() -> None:
    items = [attack("a", 2), roll("a", 3, 1), roll("a", 1, 1), roll("a", 10, 9, 8), hit(2, "a")]
    assert found(*items) == [
        ("stake-rolled-once", (5, 6)),
        ("stake-rolled-once", (5, 7)),
        ("hit-without-success", (4, 5, 8)),
    ]


def test_rolling_a_stake_again_after_its_roll_was_undone_keeps_the_rule() -> None:
    undo = {"type": "event.retracted", "target": 5, "reason": "the dice fell off the table"}
    items = [attack("a", 2), roll("a", 3, 1), undo, roll("a", 10, 9, 8), hit(2, "a")]
    assert found(*items) == []


def test_each_stake_rolled_once_keeps_the_rule() -> None:
    assert found(*landed("a", 2), *landed("b", 1)) == []


def test_a_strict_reroll_is_refused_unless_the_first_roll_was_undone(ledger: Ledger) -> None:
    ledger.open("duel", "fates-edge")
    for joined in (ASH, BLADE):
        ledger.join("duel", joined["name"], joined["side"], joined["stats"])
    ledger.record("duel", attack("a", 2))
    ledger.record("duel", roll("a", 3, 1))
    with pytest.raises(RuleRefused, match=r"\[stake-rolled-once\] seq 6 rolls stake 'a' again"):
        ledger.record("duel", roll("a", 10, 9, 8), strict=True)
    assert ledger.tracks("duel").seq == 5
    ledger.undo("duel", 5, reason="the dice fell off the table")
    assert ledger.record("duel", roll("a", 10, 9, 8), strict=True).seq == 7
    assert [r.outcome for r in ledger.tracks("duel").rolls] == ["success"]


# outcome-claim (common) reads the computed Fate's Edge outcome


def test_a_claimed_outcome_that_the_dice_do_not_give_is_flagged() -> None:
    assert found(lock("a", dv=3), roll("a", 6, 7, outcome="success")) == [("outcome-claim", (5,))]
    assert found(lock("a", dv=3), roll("a", 6, 7, outcome="partial")) == []


# consequence-on-actor: harm from a failed response lands on who responded (#24).


def test_harm_of_a_failed_defense_charged_to_another_player_is_flagged_with_its_seqs() -> None:
    # seq 2 Ash, 3 the Silken Blade, 4 Brin; the bank at 5-6, the attack bought at 7.
    brin = player("Brin")
    items = [brin, *BANK, spend(1, "attack", stake="d"), defense("d"), roll("d", 2)]
    assert rules_hit(fe(ASH, BLADE, *items, suffer("d", 2, target="Brin"))) == [
        ("consequence-on-actor", (8, 9, 10))
    ]
    (finding,) = [
        f for f in audit(fe(ASH, BLADE, *items, suffer("d", 2, "Brin"))) if f.severity == "error"
    ]
    assert finding.message.startswith(
        "harm 2 on 'Brin' at seq 10 charges the consequence of stakes 'd' (seq 8), the response "
        "of 'Ash', which failed at seq 9; harm from a failed response is the consequence of that "
        "response and lands on 'Ash', who made it: by the rules 'Brin' takes nothing from it; "
        "recorded as played: "
    )


def test_harm_of_a_failed_response_on_who_responded_or_whom_the_stakes_named_is_kept() -> None:
    brin = player("Brin")
    items = [brin, *BANK, spend(1, "attack", stake="d"), defense("d"), roll("d", 2)]
    assert rules_hit(fe(ASH, BLADE, *items, suffer("d", 2))) == []
    named = [brin, *BANK, spend(1, "attack", stake="d"), defense("d", target="Brin"), roll("d", 2)]
    assert rules_hit(fe(ASH, BLADE, *named, suffer("d", 2, "Brin"))) == []
