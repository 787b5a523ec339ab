"""The edges of the Fate's Edge rules that no other test pinned: each test here kills a mutant of
`projections/fates_edge/` (a shifted bound, a dropped check) that every other test let through.
Quotes are from adversary-resolution.txt; the SRD procedure and house defaults from NOTES.md 1.3,
1.7 and 5.1.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger import BadInput
from tests.streams import audit, fold, override, refusal
from tests.systems.fates_edge.test_audit import BANK, defense, found, only
from tests.systems.fates_edge.test_fold import (
    Event,
    adversary,
    attack,
    fe,
    hit,
    landed,
    lock,
    player,
    rf,
    roll,
    spend,
    suffer,
    tired,
    track,
)


def reminders(*items: Event) -> list[tuple[str, tuple[int, ...]]]:
    """(rule, seqs) of the obligations still open at the end of a stream (Ash, Silken Blade)."""
    return [
        (f.rule, f.seq) for f in audit(fe(player(), adversary(), *items)) if f.severity == "info"
    ]


def test_a_player_at_harm_three_is_dying_not_dead() -> None:
    # NOTES.md 1.3: "Harm 3: incapacitated or dying. Harm above 3: dead."
    items = fe(
        player(armor="none"), adversary(), lock("d", kind="defense"), roll("d", 2), suffer("d", 3)
    )
    assert (track(items, "Ash")["harm"], track(items, "Ash")["status"]) == (3, "active")


def test_a_position_ladder_missing_a_rung_is_refused() -> None:
    # NOTES.md 5.1: position_ladder = [Desperate, Controlled, Dominant], the SRD's three steps.
    message = refusal("fates-edge", rules={"position_ladder": ["desperate", "dominant"]})
    assert message == (
        "fates-edge rules: position_ladder orders desperate, controlled and dominant, once each"
    )


def test_sb_spent_for_a_locked_attack_settles_what_it_owes() -> None:
    # "To introduce a new attack ... spend SB: ... 1 SB for an ordinary attack": once the SB is
    # spent for it, nothing is owed; before, the reminder names the lock.
    assert reminders(*BANK, defense("d")) == [("obligation-open", (6,))]
    assert reminders(*BANK, defense("d"), spend(1, "attack", stake="d")) == []


def test_a_move_paid_less_than_its_printed_cost_is_still_owed() -> None:
    # "Pay a named move's printed cost": 1 SB toward a 2-SB move leaves it owing before its roll.
    lunge = adversary(moves=[{"name": "Lunge", "cost": 2}])
    items = [
        *BANK,
        defense("d", source="sb_move", move="Lunge"),
        spend(1, "move", move="Lunge", stake="d"),
    ]
    out = [f for f in audit(fe(player(), lunge, *items)) if f.severity == "info"]
    assert [(f.rule, f.seq) for f in out] == [("obligation-open", (6,))]
    assert "needs 2 SB spent for it before its roll (1 paid so far)" in out[0].message


def test_an_after_hit_move_is_bought_from_the_adversary_the_stakes_face() -> None:
    # "Pay a named move's printed cost and respect its trigger": two adversaries list Poisoned
    # Cut at different costs; the one the stakes face landed the hit, so its cost is the price.
    cheap = adversary(
        "Adder", moves=[{"name": "Poisoned Cut", "cost": 1, "trigger": "after a hit"}]
    )
    dear = adversary("Viper", moves=[{"name": "Poisoned Cut", "cost": 2, "trigger": "after a hit"}])
    items = [
        cheap,
        dear,
        *BANK,
        defense("d", opposing="Viper"),
        spend(1, "attack", stake="d"),
        roll("d", 2),
        suffer("d", 2),
        spend(2, "move", move="Poisoned Cut", stake="d"),
    ]
    assert found(*items) == []


# Phases when excess carries (phase_excess_carries, or the adversary's own carry_excess)


def test_an_overflow_ending_a_phase_carries_no_fatigue_into_the_next_even_when_excess_carries() -> (
    None
):
    # "When Fatigue reaches or exceeds its capacity, subtract 1 Resilience, clear Fatigue, and
    # discard excess Fatigue": nothing of it is left to cross into the next phase.
    items = fe(player(), adversary(resilience=1, phases=[5], carry_excess=True), tired(3))
    assert (track(items)["phase"], *rf(items)) == (2, 5, 0)


def test_a_hit_ending_a_phase_exactly_marks_its_fatigue_in_the_next_when_excess_carries() -> None:
    # As the excess Harm does, the converted Fatigue "then" added lands in the phase that goes
    # on: Light Harm 4 -> H3+F1 ends a Resilience 3 phase exactly, then F1 in phase 2.
    items = fe(
        player(),
        adversary(resilience=3, phases=[6], carry_excess=True),
        lock("a", target="Silken Blade", harm=4, dv=3),
        roll("a", 10, 7),
        {"type": "hit.resolved", "target": "Silken Blade", "stake": "a", "harm": 4},
    )
    assert (track(items)["phase"], *rf(items)) == (2, 6, 1)


# House rules (NOTES.md 5.1 "Configurable defaults") at the edges of their ranges.


@pytest.mark.parametrize(
    "rules",
    [
        {"min_fatigue_per_armored_hit": 0},
        {"dv_default": 1, "dv_hard": 1},
        {"ordinary_attack_sb_cost": 0},
        {"player_dead_above_harm": 0},
        {"sb_carry_over_max": 0},
    ],
)
def test_house_rules_at_the_bottom_of_their_range_are_accepted(rules: dict[str, Any]) -> None:
    pinned = fold(fe(rules=rules)).rules
    assert {key: pinned[key] for key in rules} == rules


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"min_fatigue_per_armored_hit": -1}, "min_fatigue_per_armored_hit"),
        ({"dv_default": 0}, "dv_default"),
        ({"dv_hard": 0}, "dv_hard"),
        ({"ordinary_attack_sb_cost": -1}, "ordinary_attack_sb_cost"),
        ({"player_dead_above_harm": -1}, "player_dead_above_harm"),
        ({"sb_carry_over_max": -1}, "sb_carry_over_max"),
    ],
)
def test_house_rules_below_their_range_are_refused_naming_the_field(
    rules: dict[str, Any], field: str
) -> None:
    assert field in refusal("fates-edge", rules=rules)


def test_the_minimum_fatigue_per_armored_hit_defaults_to_one() -> None:
    # NOTES.md 1.3 "Minimum 1 Fatigue per hit, even if conversion would give 0" (1.7 item 2: the
    # default is yes): a pinned cell with no Fatigue still marks 1; with the minimum 0, none.
    table = {"armor_table": {"light": ["F1", "H2", "H2+F1"]}}
    items = [
        player(),
        adversary(fatigue_capacity=9),
        lock("a", target="Silken Blade", harm=2, dv=3),
    ]
    items += [
        roll("a", 10, 7),
        {"type": "hit.resolved", "target": "Silken Blade", "stake": "a", "harm": 2},
    ]
    assert rf(fe(*items, rules=table)) == (6, 1)
    assert rf(fe(*items, rules={**table, "min_fatigue_per_armored_hit": 0})) == (6, 0)


# Charges, consequences and SB provenance the fold keeps for the audit


def test_a_third_hit_for_one_consequence_cites_the_first_charge() -> None:
    # "Never charge damage twice for one consequence": the charge is the first hit, however many
    # follow it.
    items = [*landed("a", 2), hit(2, "a"), hit(2, "a")]
    assert found(*items) == [
        ("consequence-charged-once", (6, 7)),
        ("consequence-charged-once", (6, 8)),
    ]


def test_a_third_harm_for_one_failed_response_cites_the_first_charge() -> None:
    items = [*BANK, spend(1, "attack", stake="d"), defense("d"), roll("d", 2), suffer("d", 2)]
    assert found(*items, suffer("d", 2), suffer("d", 2)) == [
        ("consequence-charged-once", (9, 10)),
        ("consequence-charged-once", (9, 11)),
    ]


@pytest.mark.parametrize(
    ("fields", "dice", "harm"),
    [
        ({}, (6, 7, 8), None),  # a successful defense avoids the hit: nothing is owed
        ({}, (2,), 2),  # a missed defense lets in the adversary's printed Harm
        ({"consequence_harm": 3}, (2,), 3),  # ... or the Harm announced with the stakes
        ({"consequence_harm": 0}, (2,), None),  # Harm 0 deals none
        ({"partial": {"harm": 1}}, (6,), 1),  # a Partial defense: the lesser Harm agreed
        ({}, (6,), None),  # a Partial defense with no lesser Harm agreed: the GM rules
        ({"kind": "action", "consequence_harm": 2}, (2,), 2),  # a missed action's consequence
        ({"kind": "action"}, (2,), None),  # a missed action announcing no Harm lets in none
        ({"kind": "action", "partial": {"harm": 1}}, (6,), None),  # a Partial action hurts no one
    ],
)
def test_a_failed_response_owes_its_announced_consequence_until_it_is_charged(
    fields: dict[str, Any], dice: tuple[int, ...], harm: int | None
) -> None:
    # "Harm from a previously announced failed response is the consequence of that response":
    # a miss lets in what was announced, a Partial defense the lesser protection agreed.
    items = [*BANK, spend(1, "attack", stake="d"), defense("d", **fields), roll("d", *dice)]
    out = [f for f in audit(fe(player(), adversary(), *items)) if f.severity == "info"]
    if harm is None:
        assert out == []
        return
    assert [(f.rule, f.seq) for f in out] == [("obligation-open", (7, 8))]
    assert f"announced consequence, Harm {harm}, is not charged yet" in out[0].message
    assert reminders(*items, suffer("d", harm)) == []


def test_a_second_lock_of_a_stake_keeps_the_fatigue_the_first_saw() -> None:
    # "Position, DV, Effect, and the announced consequence are fixed when the roll is framed":
    # Fatigue marked after the first lock does not step the Position through a second lock.
    items = [
        lock("a", position="desperate"),
        tired(1),
        lock("a", position="desperate"),
        roll("a", 6),
    ]
    view = fold(fe(player(), adversary(), *items)).view()
    assert view["rolls"][0]["effective_position"] == "desperate"


def test_sb_kept_for_the_next_attack_is_not_claimed_by_a_consequence() -> None:
    # "Harm from a previously announced failed response is the consequence of that response,
    # not a free extra NPC attack": it costs nothing, so the SB kept ahead pays the next attack.
    items = [*BANK, spend(1, "attack"), defense("c", source="consequence"), defense("d")]
    assert reminders(*items) == []
    assert found(*items, roll("c", 2), roll("d", 6, 7, 8)) == []


def test_sb_spent_naming_no_stake_pays_the_attack_still_owing_it() -> None:
    # "spend SB: ... 1 SB for an ordinary attack": the GM paying what the audit reminded of.
    items = [*BANK, defense("d"), spend(1, "attack")]
    assert reminders(*items) == []
    assert found(*items, roll("d", 6, 7, 8)) == []


def test_an_adversary_at_zero_resilience_cannot_stand_up_by_status_alone() -> None:
    # "At zero Resilience the adversary is defeated": it stands up with some Resilience first.
    down = {"type": "track.adjusted", "target": "Silken Blade", "track": "resilience"}
    up = {"type": "track.adjusted", "target": "Silken Blade", "track": "status"}
    message = refusal(
        "fates-edge",
        player(),
        adversary(),
        {**down, "value": 0, "reason": "thrown from the bridge"},
        {**up, "value": "active", "reason": "it climbs back"},
    )
    assert message.startswith("'Silken Blade' has Resilience 0 and would be defeated again")


def test_an_adversary_at_zero_resilience_may_still_be_said_to_have_fled() -> None:
    # "Bargains, escape, surrender ... can end opposition": a status other than active is no
    # standing up, so the override is applied.
    down = {"type": "track.adjusted", "target": "Silken Blade", "track": "resilience"}
    up = {"type": "track.adjusted", "target": "Silken Blade", "track": "status"}
    items = fe(
        player(),
        adversary(),
        {**down, "value": 0, "reason": "thrown from the bridge"},
        {**up, "value": "fled", "reason": "it crawls away"},
    )
    assert (track(items)["status"], fold(items).skipped) == ("fled", ())


def test_sb_kept_for_an_ordinary_attack_does_not_pay_a_named_move() -> None:
    # "use the creature's listed move, or 1 SB for an ordinary attack": SB kept ahead for an
    # attack is not claimed by the lock of a move, which still owes its printed cost.
    lunge = adversary(moves=[{"name": "Lunge", "cost": 1}])
    items = [*BANK, spend(1, "attack"), defense("m", source="sb_move", move="Lunge")]
    out = [f for f in audit(fe(player(), lunge, *items)) if f.severity == "info"]
    assert [(f.rule, f.seq) for f in out] == [("obligation-open", (7,))]


def test_sb_spent_on_a_move_naming_no_stake_does_not_pay_an_ordinary_attack() -> None:
    # "use the creature's listed move, or 1 SB for an ordinary attack": a spend on a move is
    # kept for a lock of that move; the ordinary attack still owes its SB.
    lunge = adversary(moves=[{"name": "Lunge", "cost": 1}])
    items = [*BANK, defense("d"), spend(1, "move", move="Lunge")]
    out = [f for f in audit(fe(player(), lunge, *items)) if f.severity == "info"]
    assert [(f.rule, f.seq) for f in out] == [("obligation-open", (6,))]


def test_a_bad_player_stat_block_lists_the_players_stats() -> None:
    # DESIGN.md 4: a player's stats are `armor` and `body`, not an adversary's.
    message = refusal("fates-edge", player(resilience=3))
    assert message == (
        "stats of 'Ash' has unknown stat 'resilience'; a fates-edge player's stats: "
        "armor (none|light|medium|heavy; default none), body (integer)"
    )


# Audit rules at their edges


def test_a_roll_for_stakes_never_locked_is_flagged_as_such_and_nothing_else() -> None:
    # DESIGN.md 4: "a roll.made naming a stake that was never locked" is recorded and flagged.
    assert found(roll("x", 6, 7, 8)) == [("stakes-before-roll", (4,))]


def test_sb_spent_on_a_move_the_adversary_does_not_list_is_flagged() -> None:
    # "Pay a named move's printed cost": a move the stat block does not list has none.
    items = [*BANK, defense("d"), spend(1, "move", move="Pounce", stake="d")]
    assert ("move-cost", (7,)) in found(*items)
    assert found(*BANK, spend(1, "move", move="Pounce")) == [("move-cost", (6,))]


def test_announcing_more_than_the_printed_harm_of_an_adversary_with_no_fatigue_is_kept() -> None:
    # "Fatigue never increases the adversary's outgoing Harm": with no Fatigue marked, a larger
    # announced Harm is no Fatigue bonus (the consequence is the GM's to state).
    assert found(defense("d", consequence_harm=4)) == []
    assert found(tired(1), defense("d", consequence_harm=4)) == [("fatigue-no-outgoing-harm", (5,))]


def test_a_partial_defense_below_the_announced_harm_is_lesser_even_above_the_printed() -> None:
    # "A Partial defense uses the lesser protection agreed before the roll": lesser than what a
    # miss lets in, the announced Harm 4 (the printed Harm 2 is only its default).
    assert found(defense("d", consequence_harm=4, partial={"harm": 3})) == []
    assert found(defense("d", partial={"harm": 2})) == [("partial-is-lesser", (4,))]


def test_a_partial_no_less_than_a_success_says_the_harm_of_a_success() -> None:
    # "A Partial grants the stated lesser progress, not automatically full weapon damage": a
    # success deals the declared Harm with the Effect's change.
    finding = only("partial-is-lesser", attack("a", 2, effect_harm=1, partial={"harm": 3}))
    assert "declare Harm 3 on a Partial, no less than the Harm 3 of a success" in finding.message


def test_a_puzzle_adversary_resolved_after_a_hit_owes_nothing() -> None:
    # "A puzzle adversary with no Resilience still requires its stated Resolution": once it is
    # met (combatant.left, manner resolved), no reminder stays.
    riddle = adversary("Riddle", resilience=None, resolution="answer the riddle")
    items = [riddle, *landed("a", 2, "Riddle")]
    assert reminders(*items) == [("obligation-open", (7,))]
    assert (
        reminders(*items, {"type": "combatant.left", "name": "Riddle", "manner": "resolved"}) == []
    )


def test_a_failed_response_of_a_player_who_fled_owes_nothing() -> None:
    # The consequence lands on the player who made the response; one who has left takes none.
    items = [*BANK, spend(1, "attack", stake="d"), defense("d"), roll("d", 2)]
    assert reminders(*items) == [("obligation-open", (7, 8))]
    assert reminders(*items, {"type": "combatant.left", "name": "Ash", "manner": "fled"}) == []


def test_harm_on_a_player_naming_no_locked_stakes_is_flagged() -> None:
    # "Harm from a previously announced failed response is the consequence of that response":
    # no stake is a warning (DESIGN.md 4), a stake never locked an error.
    assert found(hit(2, target="Ash")) == [("hit-without-success", (4,))]
    assert found(suffer("zz", 2)) == [("hit-without-success", (4,))]
    assert [f.severity for f in audit(fe(player(), adversary(), suffer("zz", 2)))] == ["error"]


def test_harm_above_the_announced_consequence_says_what_the_announced_harm_gives() -> None:
    # "Position, DV, Effect, and the announced consequence are fixed when the roll is framed":
    # by the rules Harm 2 through Ash's Light armor (H1+F1), as played Harm 3 (H2+F1).
    items = [*BANK, spend(1, "attack", stake="d"), defense("d", consequence_harm=2), roll("d", 2)]
    finding = only("effect-declared-before-roll", *items, suffer("d", 3))
    assert finding.seq == (7, 8, 9)
    assert finding.message.endswith(
        "by the rules Harm 2: harm 0 -> 1, fatigue 0 -> 1; "
        "recorded as played: harm 0 -> 2, fatigue 0 -> 1"
    )


def test_harm_at_the_printed_harm_of_a_tired_adversary_is_no_fatigue_bonus() -> None:
    # "Fatigue never increases the adversary's outgoing Harm": Harm 2, its printed Harm, is not
    # raised by its Fatigue; it is only more than the Harm 1 announced with the stakes.
    items = [*BANK, tired(1), spend(1, "attack", stake="d"), defense("d", consequence_harm=1)]
    assert found(*items, roll("d", 2), suffer("d", 2)) == [
        ("effect-declared-before-roll", (8, 9, 10))
    ]


def test_harm_as_announced_by_a_tired_adversary_is_flagged_once_at_the_lock() -> None:
    # The announcement above the printed Harm is the mistake (flagged when the stakes lock);
    # the harm that follows it as announced is not flagged again.
    items = [*BANK, tired(1), spend(1, "attack", stake="d"), defense("d", consequence_harm=3)]
    assert found(*items, roll("d", 2), suffer("d", 3)) == [("fatigue-no-outgoing-harm", (8,))]


def test_harm_above_the_printed_after_fatigue_marked_since_the_lock_is_a_fatigue_bonus() -> None:
    # "Fatigue never increases the adversary's outgoing Harm": Fatigue marked after the stakes
    # locked counts too; by the rules the Harm is the announced 1 (no more than the printed 2).
    items = [*BANK, spend(1, "attack", stake="d"), defense("d", consequence_harm=1), tired(1)]
    finding = only("fatigue-no-outgoing-harm", *items, roll("d", 2), suffer("d", 3))
    assert finding.seq == (7, 9, 10)
    assert "by the rules Harm 1: fatigue 0 -> 1; recorded as played: harm 0 -> 2" in finding.message


def test_a_hit_above_the_declared_harm_with_no_effect_change_is_flagged() -> None:
    # "Any change to damage from Effect must be stated before the roll": none stated, Harm 2
    # declared, a Harm 3 hit is more than declared; by the rules Harm 2 (Light: H1+F1).
    finding = only("effect-declared-before-roll", *landed("a", 2)[:2], hit(3, "a"))
    assert finding.seq == (4, 5, 6)
    assert "by the rules Harm 2: resilience 8 -> 7, fatigue 0 -> 1" in finding.message


def test_a_hit_above_the_declared_harm_and_its_effect_says_what_both_give() -> None:
    # Harm 2 declared, +1 from Effect stated before the roll: by the rules Harm 3 (H2+F1).
    items = [attack("a", 2, effect="great", effect_harm=1), roll("a", 10, 7), hit(4, "a")]
    finding = only("effect-declared-before-roll", *items)
    assert "by the rules Harm 3: resilience 8 -> 6, fatigue 0 -> 1" in finding.message


def test_a_gm_override_cannot_give_fatigue_to_a_player_with_no_fatigue_track() -> None:
    # NOTES.md 1.3: a player's Fatigue track is sized by Body; without a body it has none, and
    # fatigue.marked is refused: so is an override that would make one up.
    message = refusal("fates-edge", player(body=None), override("Ash", "fatigue", 1))
    assert message == (
        "track 'fatigue' of 'Ash': a player has a Fatigue track only with a body: set body first"
    )


def test_a_body_given_by_override_brings_its_fatigue_track_and_taking_it_away_ends_it() -> None:
    given = fe(player(body=None), adversary(), override("Ash", "body", 3), tired(2, "Ash"))
    assert (track(given, "Ash")["fatigue"], track(given, "Ash")["harm"]) == (2, 0)
    # "Fatigue overflows at Body": the third mark is 1 more Harm and clears the track.
    over = fe(player(body=None), adversary(), override("Ash", "body", 3), tired(3, "Ash"))
    assert (track(over, "Ash")["fatigue"], track(over, "Ash")["harm"]) == (0, 1)
    taken = fe(player(), adversary(), tired(2, "Ash"), override("Ash", "body", None))
    assert (track(taken, "Ash")["fatigue"], track(taken, "Ash")["body"]) == (None, None)


def test_a_puzzle_adversary_needs_its_resolution() -> None:
    # NOTES.md 1.3: a non-combat obstacle (Resilience null) ends by its resolution, not by harm.
    message = refusal("fates-edge", adversary(resilience=None, fatigue_capacity=None))
    assert message.startswith(
        "stats of 'Silken Blade': a puzzle adversary (resilience null) needs a 'resolution'"
    )


def test_a_move_listed_without_a_cost_costs_1_sb() -> None:
    # "Pay a named move's printed cost": a move listed with none is taken at 1 SB, what the
    # rules text prices an ordinary attack at (the ledger's default for a cost left out).
    pouncer = adversary(moves=[{"name": "Pounce"}])
    paid = fe(player(), pouncer, *BANK, spend(1, "move", move="Pounce"))
    assert [f for f in audit(paid) if f.severity != "info"] == []
    over = fe(player(), pouncer, *BANK, spend(2, "move", move="Pounce"))
    assert [f.rule for f in audit(over) if f.severity != "info"] == ["move-cost"]


def test_a_governing_attribute_of_0_still_gives_a_fatigue_track_of_1() -> None:
    # NOTES.md (ambiguity 5): "an attribute name resolves to that attribute's value"; the
    # ledger keeps a track of at least 1, as a track of 0 would overflow on nothing.
    ogre = adversary(fatigue_capacity="body", attributes={"body": 0})
    assert track(fe(player(), ogre))["fatigue_capacity"] == 1


@pytest.mark.parametrize(
    ("target", "name", "value", "bound"),
    [
        ("Silken Blade", "resilience", -1, "greater than or equal to 0"),
        ("Silken Blade", "fatigue", -1, "greater than or equal to 0"),
        ("Silken Blade", "phase", 0, "greater than or equal to 1"),
        ("Ash", "harm", -1, "greater than or equal to 0"),
        ("Ash", "fatigue", -1, "greater than or equal to 0"),
    ],
)
def test_a_gm_override_stops_at_each_tracks_floor(
    target: str, name: str, value: int, bound: str
) -> None:
    # "Subtract remaining Harm from Resilience" down to 0, where "the adversary is defeated";
    # Fatigue and Harm count up from 0; phases from 1. An override is held to the same floors.
    message = refusal("fates-edge", player(), adversary(), override(target, name, value))
    assert message == (
        f"track {name!r} of {target!r} field {name!r}: input should be {bound} (got {value})"
    )


@pytest.mark.parametrize("face", [0, 11])
def test_a_d10_face_outside_1_to_10_is_refused(face: int) -> None:
    # A Fate's Edge roll is a pool of d10s: a face is 1 to 10.
    bound = "greater than or equal to 1" if face < 1 else "less than or equal to 10"
    with pytest.raises(BadInput, match=rf"field 'dice\.0': input should be {bound} \(got {face}\)"):
        fe(player(), adversary(), lock("a"), roll("a", face))
