"""Ironsworn fold: Endure Harm, action rolls, momentum, debilities and the oracle."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.errors import BadInput
from projections import core
from projections import replay as steps
from projections.ironsworn import model as ironsworn_model
from tests.streams import RULESETS, fold, rules_hit, stream, tracks

Event = dict[str, Any]


def kira(**stats: Any) -> Event:
    """Kira joins: iron 2 unless told, the rest of the sheet from the defaults."""
    return {
        "type": "combatant.joined",
        "name": "Kira",
        "side": "player",
        "stats": {"iron": 2, **stats},
    }


def foe(name: str, rank: str) -> Event:
    """A foe of a rank joins."""
    return {"type": "combatant.joined", "name": name, "side": "adversary", "stats": {"rank": rank}}


def harm(**fields: Any) -> Event:
    """Kira suffers harm."""
    return {"type": "harm.suffered", "target": "Kira", **fields}


def roll(die: int, challenge: tuple[int, int], stat: str = "iron", **fields: Any) -> Event:
    """Kira rolls (Endure Harm unless `move` says otherwise)."""
    return {
        "type": "roll.made",
        "actor": "Kira",
        "stat": stat,
        "action_die": die,
        "challenge": list(challenge),
        **fields,
    }


def choice(option: str) -> Event:
    """Kira's strong-hit choice."""
    return {"type": "choice.made", "target": "Kira", "option": option}


def burn(on: int) -> Event:
    """Kira burns momentum on the roll at seq `on`."""
    return {"type": "momentum.burned", "target": "Kira", "roll": on}


def debility(name: str, kind: str = "debility.marked") -> Event:
    """Kira marks (or clears) a debility."""
    return {"type": kind, "target": "Kira", "debility": name}


def meter(name: str, amount: int) -> Event:
    """One of Kira's meters moves."""
    return {"type": "meter.changed", "target": "Kira", "meter": name, "amount": amount}


def sheet(*items: Event, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Kira's tracks after the stream."""
    kira_tracks: dict[str, Any] = tracks(stream("ironsworn", *items, rules=rules))["combatants"][
        "Kira"
    ]
    return kira_tracks


def last_roll(*items: Event, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """The last roll of the stream as `tracks --json` shows it."""
    rolled: dict[str, Any] = tracks(stream("ironsworn", *items, rules=rules))["rolls"][-1]
    return rolled


# Suffering harm: "suffer -health equal to your foe's rank or as appropriate to the situation".

RANKS = [("troublesome", 1), ("dangerous", 2), ("formidable", 3), ("extreme", 4), ("epic", 5)]


@pytest.mark.parametrize(("rank", "amount"), RANKS)
def test_an_attack_by_a_foe_deals_harm_equal_to_its_rank(rank: str, amount: int) -> None:
    got = sheet(kira(), foe("Raider", rank), harm(foe="Raider"))
    assert got["health"] == 5 - amount
    assert got["momentum"] == 2


@pytest.mark.parametrize(("rank", "amount"), RANKS)
def test_a_rank_named_on_the_harm_deals_that_ranks_harm(rank: str, amount: int) -> None:
    assert sheet(kira(), harm(rank=rank))["health"] == 5 - amount


def test_an_amount_from_a_move_or_asset_overrides_the_foes_rank() -> None:
    got = sheet(kira(), foe("Chief", "formidable"), harm(amount=1, foe="Chief", rank="epic"))
    assert got["health"] == 4


def test_a_rank_named_on_the_harm_overrides_the_foes_rank() -> None:
    assert (
        sheet(kira(), foe("Chief", "formidable"), harm(rank="troublesome", foe="Chief"))["health"]
        == 4
    )


def test_if_in_doubt_the_harm_is_dangerous_two() -> None:
    assert sheet(kira(), harm())["health"] == 3


def test_the_harm_in_doubt_is_a_house_rule() -> None:
    assert sheet(kira(), harm(), rules={"harm_default": 3})["health"] == 2


def test_the_harm_of_each_rank_is_a_house_rule() -> None:
    rules = {
        "rank_harm": {"troublesome": 1, "dangerous": 3, "formidable": 3, "extreme": 4, "epic": 5}
    }
    assert sheet(kira(), harm(rank="dangerous"), rules=rules)["health"] == 2


def test_harm_past_zero_health_spills_into_momentum() -> None:
    got = sheet(kira(health=2, momentum=3), harm(rank="extreme"))
    assert (got["health"], got["momentum"]) == (0, 1)


def test_harm_at_zero_health_is_all_momentum() -> None:
    got = sheet(kira(health=0, momentum=2), harm(rank="formidable"))
    assert (got["health"], got["momentum"]) == (0, -1)


def test_harm_that_exactly_empties_health_leaves_momentum_alone() -> None:
    got = sheet(kira(health=3, momentum=2), harm(rank="formidable"))
    assert (got["health"], got["momentum"]) == (0, 2)


def test_momentum_lost_past_minus_six_is_lost_and_owes_a_setback() -> None:
    got = sheet(kira(health=0, momentum=-5), harm(rank="formidable"))
    assert got["momentum"] == -6
    assert got["conditions"] == ["face_a_setback"]


# The action roll (NOTES 2.2).


def test_the_endure_harm_roll_uses_health_after_the_harm() -> None:
    # Health 5 -> 3; +health 3 and a 2 make 5, which beats a 4 but not a 6.
    rolled = last_roll(kira(iron=1), harm(), roll(2, (4, 6), stat="health"))
    assert (rolled["score"], rolled["outcome"]) == (5, "weak_hit")


def test_the_action_score_is_capped_at_ten() -> None:
    rolled = last_roll(kira(iron=4), harm(), roll(6, (10, 9), adds=3))
    assert (rolled["score"], rolled["outcome"]) == (10, "weak_hit")


def test_the_score_cap_is_a_house_rule() -> None:
    rolled = last_roll(kira(iron=4), harm(), roll(6, (10, 9), adds=3), rules={"score_cap": 11})
    assert (rolled["score"], rolled["outcome"]) == (11, "strong_hit")


def test_ties_go_to_the_challenge_dice() -> None:
    rolled = last_roll(kira(iron=3), harm(), roll(2, (5, 5)))
    assert (rolled["score"], rolled["outcome"], rolled["match"]) == (5, "miss", True)


def test_a_score_beating_both_dice_is_a_strong_hit() -> None:
    rolled = last_roll(kira(iron=3), harm(), roll(4, (6, 2)))
    assert (rolled["outcome"], rolled["match"]) == ("strong_hit", False)


def test_equal_challenge_dice_are_a_match() -> None:
    assert last_roll(kira(), harm(), roll(6, (3, 3)))["match"] is True


@pytest.mark.parametrize("momentum", [-1, -3, -6])
def test_negative_momentum_equal_to_the_action_die_cancels_it(momentum: int) -> None:
    """-1 against a 1 is the edge (a mutation run found it unpinned): cancelled, the score is
    the stat alone, 2, which does not beat a 2."""
    rolled = last_roll(kira(iron=2, momentum=momentum), harm(), roll(-momentum, (2, 9)))
    assert (rolled["score"], rolled["outcome"]) == (2, "miss")


def test_negative_momentum_unequal_to_the_action_die_leaves_it() -> None:
    assert last_roll(kira(iron=2, momentum=-3), harm(), roll(4, (2, 9)))["score"] == 6


# Strong hit: "choose one".


def test_shake_it_off_trades_one_momentum_for_one_health() -> None:
    got = sheet(kira(iron=3), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    assert (got["health"], got["momentum"]) == (4, 1)


def test_embrace_the_pain_takes_one_momentum() -> None:
    got = sheet(kira(iron=3), harm(), roll(5, (2, 4)), choice("embrace_the_pain"))
    assert (got["health"], got["momentum"]) == (3, 3)


def test_a_momentum_gain_at_max_momentum_is_lost() -> None:
    got = sheet(kira(iron=3, momentum=10), harm(), roll(5, (2, 4)), choice("embrace_the_pain"))
    assert got["momentum"] == 10


def test_the_commentary_strong_hit_regains_health_at_no_cost() -> None:
    rules = {"strong_hit_text": "commentary"}
    got = sheet(kira(iron=3), harm(), roll(5, (2, 4)), choice("shake_it_off"), rules=rules)
    assert (got["health"], got["momentum"]) == (4, 2)


def test_shake_it_off_at_zero_health_changes_neither_health_nor_momentum() -> None:
    # "If your health is greater than 0": at 0 the exchange does not happen, and is flagged.
    items = (kira(iron=3, health=1, momentum=4), harm(amount=1), roll(6, (1, 2)))
    got = sheet(*items, choice("shake_it_off"))
    assert (got["health"], got["momentum"]) == (0, 4)
    assert rules_hit(stream("ironsworn", *items, choice("shake_it_off"))) == [
        ("shake-it-off-allowed", (5,))
    ]


def test_shake_it_off_while_wounded_changes_neither_health_nor_momentum() -> None:
    # Wounded blocks the +1 health, and the -1 momentum is only paid in exchange for it.
    items = (kira(iron=3, debilities=["wounded"]), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    got = sheet(*items)
    assert (got["health"], got["momentum"]) == (3, 2)
    assert rules_hit(stream("ironsworn", *items)) == [("shake-it-off-allowed", (5,))]


def test_shake_it_off_at_full_health_pays_the_momentum_unless_the_house_rule_disallows_it() -> None:
    items = (kira(), harm(amount=0), roll(5, (2, 4), stat="health"), choice("shake_it_off"))
    got = sheet(*items)
    assert (got["health"], got["momentum"]) == (5, 1)
    refused = sheet(*items, rules={"shake_it_off_at_max_health": "disallowed"})
    assert (refused["health"], refused["momentum"]) == (5, 2)


def test_shake_it_off_while_wounded_heals_when_the_house_rule_allows_it() -> None:
    items = (kira(iron=3, debilities=["wounded"]), harm(), roll(5, (2, 4)), choice("shake_it_off"))
    got = sheet(*items, rules={"wounded_blocks_shake_it_off": False})
    assert (got["health"], got["momentum"]) == (4, 1)


def said(*items: Event, rules: dict[str, Any] | None = None) -> str:
    """The words `replay` prints for the last event of the stream."""
    records = stream("ironsworn", *items, rules=rules)
    return list(steps.replay(RULESETS["ironsworn"], records))[-1].text


def test_a_shake_it_off_that_changes_nothing_names_the_reason_the_house_rules_give() -> None:
    # Wounded with a house rule that lets the wounded shake it off: 0 health is what stops it
    # (the audit says so too), not the wound.
    at_zero = (kira(iron=3, health=2, debilities=["wounded"]), harm(), roll(6, (1, 2)))
    allowed = {"wounded_blocks_shake_it_off": False}
    assert said(*at_zero, choice("shake_it_off"), rules=allowed) == (
        "Kira shakes it off: at 0 health there is nothing to shake off, so momentum is kept"
    )
    assert said(*at_zero, choice("shake_it_off")) == (
        "Kira shakes it off: wounded, health cannot rise, so momentum is kept"
    )
    # The commentary's free +1 health at full health: nothing to regain, and nothing paid.
    full = (kira(iron=3), harm(amount=0), roll(6, (1, 2)), choice("shake_it_off"))
    assert said(*full, rules={"strong_hit_text": "commentary"}) == (
        "Kira shakes it off: health is already full, so momentum is kept"
    )


# Weak hit: "you press on"; miss: "also suffer -1 momentum".


def test_a_weak_hit_changes_nothing() -> None:
    got = sheet(kira(iron=3), harm(), roll(1, (3, 9)))
    assert (got["health"], got["momentum"]) == (3, 2)


def test_an_endure_harm_miss_costs_one_momentum() -> None:
    got = sheet(kira(iron=1), harm(), roll(1, (3, 9)))
    assert (got["health"], got["momentum"]) == (3, 1)


def test_a_miss_on_another_move_costs_no_momentum_by_itself() -> None:
    assert sheet(kira(iron=1), roll(1, (3, 9), move="strike"))["momentum"] == 2


def test_an_endure_harm_miss_at_minus_six_owes_a_setback() -> None:
    got = sheet(kira(iron=1, health=0, momentum=-6), harm(amount=0), roll(1, (3, 9)))
    assert (got["momentum"], got["conditions"]) == (-6, ["face_a_setback"])


# Debilities: max momentum 10 - n, reset 2/1/0; wounded is temporary, maimed permanent.


@pytest.mark.parametrize(
    ("marked", "top", "reset"),
    [
        ((), 10, 2),
        (("wounded",), 9, 1),
        (("wounded", "maimed"), 8, 0),
        (("wounded", "maimed", "shaken"), 7, 0),
    ],
)
def test_debilities_lower_max_momentum_and_reset(
    marked: tuple[str, ...], top: int, reset: int
) -> None:
    got = sheet(kira(), *(debility(d) for d in marked))
    assert (got["max_momentum"], got["momentum_reset"], got["debilities"]) == (
        top,
        reset,
        list(marked),
    )


def test_marking_wounded_does_not_change_health() -> None:
    got = sheet(kira(health=0), debility("wounded"))
    assert (got["health"], got["debilities"]) == (0, ["wounded"])


def test_a_new_debility_pulls_momentum_down_to_the_new_max() -> None:
    assert sheet(kira(momentum=10), debility("maimed"))["momentum"] == 9


def test_clearing_wounded_restores_max_momentum_and_reset() -> None:
    got = sheet(kira(), debility("wounded"), debility("wounded", "debility.cleared"))
    assert (got["max_momentum"], got["momentum_reset"], got["debilities"]) == (10, 2, [])


def test_marking_a_marked_debility_again_changes_nothing() -> None:
    assert sheet(kira(), debility("wounded"), debility("wounded"))["max_momentum"] == 9


def test_the_momentum_constants_are_house_rules() -> None:
    rules = {"momentum_max": 8, "momentum_start": 0, "momentum_reset": [3, 2, 1]}
    got = sheet(kira(), debility("shaken"), rules=rules)
    assert (got["momentum"], got["max_momentum"], got["momentum_reset"]) == (0, 7, 2)


def test_a_sheet_without_momentum_starts_at_the_house_rule_and_one_with_it_at_its_own() -> None:
    # The stat block's momentum left out (or null) is the encounter's momentum_start, as
    # `encounter add --help` says ("default house rule momentum_start"); given, it stands.
    rules = {"momentum_start": 4}
    assert sheet(kira(), rules=rules)["momentum"] == 4
    assert sheet(kira(momentum=None), rules=rules)["momentum"] == 4
    assert sheet(kira(momentum=-1), rules=rules)["momentum"] == -1
    assert sheet(kira())["momentum"] == 2


# The Endure Harm oracle (d100).


@pytest.mark.parametrize(
    ("result", "tag"),
    [
        (1, "face_death"),
        (10, "face_death"),
        (11, "dying"),
        (20, "dying"),
        (21, "unconscious"),
        (35, "unconscious"),
        (36, "reeling"),
        (50, "reeling"),
        (51, "battered"),
        (100, "battered"),
    ],
)
def test_each_oracle_row_sets_its_condition(result: int, tag: str) -> None:
    oracle = {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": result}
    assert sheet(kira(), oracle)["conditions"] == [tag]


def test_a_new_oracle_roll_replaces_the_last_oracle_tag_but_not_a_setback() -> None:
    first = {"type": "oracle.rolled", "target": "Kira", "roll": 40}
    again = {"type": "oracle.rolled", "target": "Kira", "roll": 15}
    got = sheet(kira(health=0, momentum=-6), harm(amount=1), first, again)
    assert got["conditions"] == ["face_a_setback", "dying"]


# Burning momentum: the momentum held at the roll replaces the outcome, then momentum resets.


def test_a_burn_cancelling_both_dice_turns_a_miss_into_a_strong_hit() -> None:
    items = (kira(iron=1, momentum=7), harm(), roll(1, (5, 6)), burn(4))
    assert last_roll(*items)["outcome"] == "strong_hit"
    assert last_roll(*items)["burned"] is True
    assert sheet(*items)["momentum"] == 2


def test_a_burn_cancelling_one_die_makes_a_weak_hit() -> None:
    items = (kira(iron=1, momentum=6), harm(), roll(1, (5, 9)), burn(4))
    assert last_roll(*items)["outcome"] == "weak_hit"


def test_a_burn_uses_the_momentum_held_at_the_roll_not_after_the_miss() -> None:
    # Held 6 at the roll; the miss drops it to 5; a 5 is below 6 but not below 5.
    items = (kira(iron=1, momentum=6), harm(), roll(1, (5, 6)))
    assert sheet(*items)["momentum"] == 5
    assert last_roll(*items, burn(4))["outcome"] == "weak_hit"


def test_after_a_burn_the_miss_costs_nothing_and_momentum_is_the_reset() -> None:
    items = (kira(iron=1, momentum=5, debilities=["shaken"]), harm(), roll(1, (3, 9)), burn(4))
    assert sheet(*items)["momentum"] == 1


def test_retracting_a_burn_brings_back_the_miss_and_its_cost() -> None:
    undo = {"type": "event.retracted", "target": 5, "reason": "burned by mistake"}
    items = (kira(iron=1, momentum=5), harm(), roll(1, (3, 9)), burn(4), undo)
    assert last_roll(*items)["outcome"] == "miss"
    assert last_roll(*items)["burned"] is False
    assert sheet(*items)["momentum"] == 4


def test_a_burn_that_leaves_an_endure_harm_miss_resets_momentum_then_costs_one() -> None:
    # Held 3 at the roll: neither 6 nor 9 is below it, so it stays a miss and still costs 1.
    items = (kira(iron=1, momentum=3), harm(amount=1), roll(1, (6, 9), stat="health"), burn(4))
    assert last_roll(*items)["outcome"] == "miss"
    assert sheet(*items)["momentum"] == 1
    assert rules_hit(stream("ironsworn", *items)) == [("momentum-burn-allowed", (4, 5))]


def test_a_burn_that_leaves_a_miss_with_a_reset_of_zero_takes_momentum_below_zero() -> None:
    marked = ["wounded", "shaken"]
    items = (kira(iron=1, momentum=3, debilities=marked), harm(), roll(1, (5, 9)), burn(4))
    assert sheet(*items)["momentum"] == -1


def test_a_burn_that_leaves_a_miss_past_minus_six_owes_a_setback() -> None:
    reset = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "momentum_reset",
        "value": -6,
        "reason": "a cursed asset",
    }
    items = (kira(iron=1, momentum=3), reset, harm(), roll(1, (5, 9)), burn(5))
    got = sheet(*items)
    assert (got["momentum"], got["conditions"]) == (-6, ["face_a_setback"])


def test_a_burn_that_leaves_another_moves_miss_only_resets_momentum() -> None:
    items = (kira(iron=1, momentum=3), roll(1, (5, 9), move="strike"), burn(3))
    assert last_roll(*items)["outcome"] == "miss"
    assert sheet(*items)["momentum"] == 2


# Meters.


def test_meters_stay_between_zero_and_five() -> None:
    got = sheet(kira(spirit=4, supply=1), meter("spirit", 3), meter("supply", -2))
    assert (got["spirit"], got["supply"]) == (5, 0)


@pytest.mark.parametrize(
    ("blocker", "name"), [("wounded", "health"), ("shaken", "spirit"), ("unprepared", "supply")]
)
def test_a_meter_cannot_rise_while_its_debility_is_marked(blocker: str, name: str) -> None:
    got = sheet(kira(**{name: 2}), debility(blocker), meter(name, 2), meter(name, -1))
    assert got[name] == 1


def test_momentum_changes_stay_within_the_range() -> None:
    got = sheet(kira(momentum=8), debility("wounded"), meter("momentum", 3))
    assert got["momentum"] == 9
    low = sheet(kira(momentum=-4), meter("momentum", -5))
    assert (low["momentum"], low["conditions"]) == (-6, ["face_a_setback"])


# Retractions recompute; nothing is patched by inverse arithmetic.


def test_retracting_harm_that_spilled_restores_health_and_momentum() -> None:
    undo = {"type": "event.retracted", "target": 3, "reason": "the blow was parried"}
    items = (kira(health=1, momentum=2), harm(rank="formidable"))
    assert (sheet(*items)["health"], sheet(*items)["momentum"]) == (0, 0)
    got = sheet(*items, undo)
    assert (got["health"], got["momentum"]) == (1, 2)


def test_retracting_a_debility_brings_back_the_momentum_it_capped() -> None:
    undo = {"type": "event.retracted", "target": 3, "reason": "not maimed after all"}
    items = (kira(momentum=10), debility("maimed"), undo)
    assert sheet(*items)["momentum"] == 10


# GM overrides and bad input.


def test_the_gm_clears_oracle_conditions_with_an_adjustment() -> None:
    adjust = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "conditions",
        "value": [],
        "reason": "took a breather",
    }
    oracle = {"type": "oracle.rolled", "target": "Kira", "roll": 40}
    assert sheet(kira(), oracle, adjust)["conditions"] == []


def test_an_adjusted_max_momentum_stays_an_offset_when_debilities_change() -> None:
    adjust = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "max_momentum",
        "value": 9,
        "reason": "asset: maimed does not count",
    }
    got = sheet(kira(momentum=9), adjust, debility("wounded"))
    assert (got["max_momentum"], got["momentum"]) == (8, 8)


def test_an_adjustment_outside_the_momentum_range_is_refused() -> None:
    adjust = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "momentum",
        "value": 11,
        "reason": "typo",
    }
    state = fold(stream("ironsworn", kira(), adjust))
    assert state.skipped[0].seq == 3
    assert "outside -6..10" in state.skipped[0].reason


def test_an_adjusted_debility_list_recomputes_max_momentum() -> None:
    adjust = {
        "type": "track.adjusted",
        "target": "Kira",
        "track": "debilities",
        "value": ["maimed", "cursed"],
        "reason": "carried over",
    }
    assert sheet(kira(), adjust)["max_momentum"] == 8


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        ({"type": "harm.suffered", "target": "Raider"}, "'Raider' is a foe"),
        (harm(foe="Nobody"), "foe 'Nobody' is not in encounter"),
        (harm(foe="Kira"), "'Kira', which is not an adversary"),
        (burn(2), "seq 2, which is not an effective roll"),
        (burn(9), "momentum.burned at seq 4 names roll seq 9; the roll it resolves comes before"),
        (
            {**kira(momentum=10, debilities=["wounded"]), "name": "Ash"},
            "momentum 10 is outside -6..9 (1 debility)",
        ),
    ],
)
def test_references_that_do_not_fit_are_bad_input(event: Event, reason: str) -> None:
    state = fold(stream("ironsworn", kira(), foe("Raider", "dangerous"), event))
    assert len(state.skipped) == 1
    assert reason in state.skipped[0].reason


def test_a_burn_on_someone_elses_roll_is_bad_input() -> None:
    other = {**kira(), "name": "Ash"}
    state = fold(
        stream(
            "ironsworn",
            kira(),
            other,
            roll(1, (3, 9), move="strike"),
            {"type": "momentum.burned", "target": "Ash", "roll": 4},
        )
    )
    assert "is 'Kira''s, not 'Ash''s" in state.skipped[0].reason


def test_an_unknown_house_rule_is_bad_input() -> None:
    with pytest.raises(BadInput, match="ironsworn rules"):
        fold(stream("ironsworn", rules={"harm_defualt": 3}))


def test_a_foe_has_only_its_rank() -> None:
    got = tracks(stream("ironsworn", foe("Wyrm", "epic")))["combatants"]["Wyrm"]
    assert got == {"side": "adversary", "status": "active", "rank": "epic"}


# Invariants.

EVENTS = st.one_of(
    st.builds(lambda a: harm(amount=a), st.integers(0, 7)),
    st.builds(lambda r: harm(rank=r), st.sampled_from([r for r, _ in RANKS])),
    st.builds(
        lambda d, c1, c2, s, m: roll(d, (c1, c2), stat=s, move=m),
        st.integers(1, 6),
        st.integers(1, 10),
        st.integers(1, 10),
        st.sampled_from(["iron", "health", "heart"]),
        st.sampled_from(["endure_harm", "strike"]),
    ),
    st.builds(choice, st.sampled_from(["shake_it_off", "embrace_the_pain"])),
    st.builds(
        debility,
        st.sampled_from(["wounded", "maimed", "shaken", "cursed"]),
        st.sampled_from(["debility.marked", "debility.cleared"]),
    ),
    st.builds(meter, st.sampled_from(["health", "spirit", "momentum"]), st.integers(-8, 8)),
    st.builds(
        lambda r: {"type": "oracle.rolled", "target": "Kira", "roll": r}, st.integers(1, 100)
    ),
    st.just({"type": "momentum.burned", "target": "Kira", "roll": 3}),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(EVENTS, max_size=14), st.integers(-6, 10), st.integers(0, 5))
def test_tracks_stay_in_bounds_and_folding_a_prefix_then_the_rest_is_the_same(
    items: list[Event], momentum: int, health: int
) -> None:
    records = stream("ironsworn", kira(health=health, momentum=momentum), roll(3, (4, 5)), *items)
    whole = fold(records)
    half = len(records) // 2
    folder = core.RunningFold(RULESETS["ironsworn"], fold(records[:half]))
    for record in records[half:]:
        folder.add(record)
    assert folder.state == whole
    for at in range(2, len(records) + 1):
        c = fold(records, at=at).combatants["Kira"]
        assert isinstance(c, ironsworn_model.Character)
        assert 0 <= c.health <= 5 and 0 <= c.spirit <= 5
        assert -6 <= c.momentum <= c.max_momentum == 10 - len(c.debilities)
        assert c.momentum_reset == (2, 1, 0)[min(len(c.debilities), 2)]


def test_a_house_rule_for_one_rank_keeps_the_others() -> None:
    from tests.streams import stream, tracks

    kira = {"type": "combatant.joined", "name": "Kira", "side": "player"}
    harm = {"type": "harm.suffered", "target": "Kira", "rank": "dangerous"}
    doc = tracks(stream("ironsworn", kira, harm, rules={"rank_harm": {"epic": 6}}))
    assert doc["combatants"]["Kira"]["health"] == 3
