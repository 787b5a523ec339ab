"""Fate's Edge fold: armor conversion, Resilience, Fatigue overflow, phases, rolls, SB, players."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import events
from ledger.errors import BadInput
from projections import core
from projections.fates_edge.model import FatesEdgeState
from tests import streams
from tests.streams import RULESETS, fold, stream, tracks

Event = dict[str, Any]
BLADE_STATS: dict[str, Any] = {
    "resilience": 8,
    "fatigue_capacity": 3,
    "armor": "light",
    "harm": 2,
    "pool": 6,
    "moves": [{"name": "Poisoned Cut", "cost": 1, "trigger": "after a hit"}],
}


def adversary(name: str = "Silken Blade", **stats: Any) -> Event:
    """An adversary joins; `stats` override the Silken Blade's."""
    return {
        "type": "combatant.joined",
        "name": name,
        "side": "adversary",
        "stats": {**BLADE_STATS, **stats},
    }


def player(name: str = "Ash", **stats: Any) -> Event:
    """A player joins (Light armor, Body 3 unless overridden)."""
    return {
        "type": "combatant.joined",
        "name": name,
        "side": "player",
        "stats": {"armor": "light", "body": 3, **stats},
    }


def lock(stake: str, against: str = "Silken Blade", actor: str = "Ash", **fields: Any) -> Event:
    """Stakes of a player-facing test against an adversary."""
    return {
        "type": "stakes.locked",
        "stake": stake,
        "actor": actor,
        "opposing": against,
        **fields,
    }


def attack(stake: str, harm: int, against: str = "Silken Blade", **fields: Any) -> Event:
    """Stakes of the player's damaging attack: Harm declared, DV 3."""
    return lock(stake, against, target=against, harm=harm, dv=3, **fields)


def roll(stake: str, *dice: int, **fields: Any) -> Event:
    """The faces of a roll for a stake."""
    return {"type": "roll.made", "stake": stake, "dice": list(dice), **fields}


def hit(harm: int, stake: str | None = None, target: str = "Silken Blade", **fields: Any) -> Event:
    """A hit with `harm` on `target`."""
    out: Event = {"type": "hit.resolved", "target": target, "harm": harm, **fields}
    if stake is not None:
        out["stake"] = stake
    return out


def landed(stake: str, harm: int, target: str = "Silken Blade", **fields: Any) -> list[Event]:
    """A successful attack: stakes, a 3-success roll, the hit."""
    return [attack(stake, harm, target, **fields), roll(stake, 10, 7, 2), hit(harm, stake, target)]


def spend(amount: int, purpose: str, **fields: Any) -> Event:
    """The GM spends SB."""
    return {"type": "sb.spent", "amount": amount, "purpose": purpose, **fields}


def suffer(stake: str, harm: int, target: str = "Ash") -> Event:
    """A player suffers the consequence of a failed response."""
    return {"type": "harm.suffered", "target": target, "stake": stake, "harm": harm}


def tired(amount: int, target: str = "Silken Blade") -> Event:
    """Fatigue marked directly."""
    return {"type": "fatigue.marked", "target": target, "amount": amount}


def fe(*items: Event, rules: dict[str, Any] | None = None) -> list[events.Recorded]:
    """A Fate's Edge stream."""
    return stream("fates-edge", *items, rules=rules)


def track(items: list[events.Recorded], name: str = "Silken Blade") -> dict[str, Any]:
    """One combatant's tracks after a stream."""
    view: dict[str, Any] = tracks(items)["combatants"][name]
    return view


def rf(items: list[events.Recorded], name: str = "Silken Blade") -> tuple[Any, Any]:
    """(resilience, fatigue) of an adversary after a stream."""
    view = track(items, name)
    return view["resilience"], view["fatigue"]


def refused(items: list[events.Recorded]) -> str:
    """Why the last event was refused as bad input (the fold keeps it aside as skipped)."""
    skipped = fold(items).skipped
    assert [s.seq for s in skipped] == [items[-1].seq]
    return skipped[-1].reason


def rolls(items: list[events.Recorded]) -> list[dict[str, Any]]:
    """The computed rolls."""
    out: list[dict[str, Any]] = tracks(items)["rolls"]
    return out


# Armor, then Resilience


ARMOR_TABLE = [
    # armor, incoming Harm, (Resilience, Fatigue) from R 8 / F 0 with capacity 9
    ("none", 1, (7, 0)),
    ("none", 2, (6, 0)),
    ("none", 3, (5, 0)),
    ("light", 1, (8, 1)),
    ("light", 2, (7, 1)),
    ("light", 3, (6, 1)),
    ("medium", 1, (8, 1)),
    ("medium", 2, (8, 1)),
    ("medium", 3, (6, 1)),
    ("heavy", 1, (8, 1)),
    ("heavy", 2, (8, 1)),
    ("heavy", 3, (8, 2)),
]


@pytest.mark.parametrize(("armor", "harm", "expected"), ARMOR_TABLE)
def test_each_cell_of_the_armor_table_converts_as_the_srd_default(
    armor: str, harm: int, expected: tuple[int, int]
) -> None:
    items = fe(player(), adversary(armor=armor, fatigue_capacity=9), *landed("a", harm))
    assert rf(items) == expected


ABOVE_THREE = [
    # Harm 4 and 5: the first 3 by the column, the excess stays Harm (Player's Guide H4/H5)
    ("none", 4, (4, 0)),
    ("none", 5, (3, 0)),
    ("light", 4, (5, 1)),
    ("light", 5, (4, 1)),
    ("medium", 4, (5, 1)),
    ("medium", 5, (4, 1)),
    ("heavy", 4, (7, 2)),
    ("heavy", 5, (6, 2)),
]


@pytest.mark.parametrize(("armor", "harm", "expected"), ABOVE_THREE)
def test_harm_above_three_converts_the_first_three_and_keeps_the_excess_as_harm(
    armor: str, harm: int, expected: tuple[int, int]
) -> None:
    items = fe(player(), adversary(armor=armor, fatigue_capacity=9), *landed("a", harm))
    assert rf(items) == expected


def test_remaining_harm_clears_existing_fatigue_before_the_new_armor_fatigue_is_added() -> None:
    items = fe(player(), adversary(fatigue_capacity=9), tired(2), *landed("a", 2))
    assert rf(items) == (7, 1)


def test_a_hit_that_converts_entirely_keeps_existing_fatigue() -> None:
    items = fe(player(), adversary(armor="medium", fatigue_capacity=9), tired(2), *landed("a", 2))
    assert rf(items) == (8, 3)


def test_no_resilience_point_is_taken_merely_because_the_attack_hit() -> None:
    items = fe(player(), adversary(armor="heavy", fatigue_capacity=9), *landed("a", 1))
    assert rf(items) == (8, 1)


def test_a_hit_for_zero_harm_changes_nothing() -> None:
    items = fe(player(), adversary(), *landed("a", 0))
    assert rf(items) == (8, 0)


@pytest.mark.parametrize(
    ("armor", "ignore", "expected"),
    [
        ("heavy", 1, (6, 1)),  # as Medium: H2+F1
        ("heavy", 2, (6, 1)),  # as Light: H2+F1
        ("heavy", 3, (5, 0)),  # as None
        ("medium", 1, (6, 1)),  # as Light
        ("light", 1, (5, 0)),  # as None
        ("light", 5, (5, 0)),  # never below None
        ("heavy", "all", (5, 0)),
        ("heavy", 0, (8, 2)),
    ],
)
def test_each_ignored_point_of_armor_is_one_category_lower(
    armor: str, ignore: int | str, expected: tuple[int, int]
) -> None:
    items = fe(
        player(),
        adversary(armor=armor, fatigue_capacity=9),
        attack("a", 3),
        roll("a", 10, 9),
        hit(3, "a", ignore_armor=ignore),
    )
    assert rf(items) == expected


def test_the_armor_table_is_read_from_the_pinned_rules() -> None:
    rules = {"armor_table": {"medium": ["F1", "H1+F1", "H1+F1"]}, "min_fatigue_per_armored_hit": 0}
    items = fe(
        player(), adversary(armor="medium", fatigue_capacity=9), *landed("a", 3), rules=rules
    )
    assert rf(items) == (7, 1)
    pinned: Any = fold(items).rules["armor_table"]
    assert pinned["light"] == ("F1", "H1+F1", "H2+F1")


def test_an_armor_cell_that_does_not_read_as_harm_and_fatigue_is_bad_input() -> None:
    with pytest.raises(BadInput, match="armor cell"):
        fold(fe(rules={"armor_table": {"light": ["F1", "two", "H2+F1"]}}))


# NPC Fatigue overflow


def test_fatigue_reaching_capacity_costs_one_resilience_and_clears() -> None:
    items = fe(player(), adversary(), tired(1), tired(1), tired(1))
    assert rf(items) == (7, 0)


def test_overflow_is_checked_once_and_the_excess_is_discarded() -> None:
    items = fe(player(), adversary(), tired(2), tired(5))
    assert rf(items) == (7, 0)


def test_a_hit_checks_overflow_once_after_adding_its_fatigue() -> None:
    items = fe(player(), adversary(armor="heavy", fatigue_capacity=2), tired(1), *landed("a", 3))
    assert rf(items) == (7, 0)


def test_heavy_armor_harm_4_overflows_a_small_track_once() -> None:
    # NOTES 1.4: Heavy, Harm 4 -> H1 + F2: R -1, clear Fatigue, add F2; overflow when cap <= 2.
    items = fe(player(), adversary(armor="heavy", fatigue_capacity=2), tired(1), *landed("a", 4))
    assert rf(items) == (6, 0)
    items = fe(player(), adversary(armor="heavy", fatigue_capacity=3), tired(1), *landed("a", 4))
    assert rf(items) == (7, 2)


def test_fatigue_capacity_can_be_a_governing_attribute() -> None:
    items = fe(player(), adversary(fatigue_capacity="Resolve", attributes={"Resolve": 2}), tired(1))
    assert track(items)["fatigue_capacity"] == 2
    assert rf(
        fe(
            player(),
            adversary(fatigue_capacity="Resolve", attributes={"Resolve": 2}),
            tired(1),
            tired(1),
        )
    ) == (7, 0)


# Ending the opposition


def test_resilience_zero_defeats_the_adversary() -> None:
    items = fe(player(), adversary(armor="none", resilience=3), *landed("a", 5))
    assert track(items)["status"] == "defeated"
    assert rf(items) == (0, 0)


def test_an_overflow_that_takes_the_last_resilience_defeats() -> None:
    items = fe(player(), adversary(resilience=1), tired(3))
    assert track(items)["status"] == "defeated"


def test_a_phased_adversary_starts_its_next_phase_at_listed_resilience_and_no_fatigue() -> None:
    items = fe(
        player(), adversary(armor="none", resilience=2, phases=[6]), tired(2), *landed("a", 5)
    )
    view = track(items)
    assert (view["phase"], view["resilience"], view["fatigue"], view["status"]) == (
        2,
        6,
        0,
        "active",
    )


def test_excess_damage_does_not_cross_phases_by_default() -> None:
    items = fe(player(), adversary(armor="light", resilience=2, phases=[6, 4]), *landed("a", 5))
    assert (track(items)["phase"], *rf(items)) == (2, 6, 0)


def test_excess_crosses_phases_when_the_rules_say_so() -> None:
    # Light 5 -> H4+F1: phase 1 absorbs 2, 2 cross into phase 2 (6 -> 4), then F1.
    rules = {"phase_excess_carries": True}
    items = fe(player(), adversary(resilience=2, phases=[6, 4]), *landed("a", 5), rules=rules)
    assert (track(items)["phase"], *rf(items)) == (2, 4, 1)


def test_an_adversary_whose_own_rules_carry_excess_carries_it() -> None:
    items = fe(player(), adversary(resilience=2, phases=[3, 4], carry_excess=True), *landed("a", 7))
    # Light 7 -> H6+F1: 2 end phase 1, 3 end phase 2, 1 crosses into phase 3 (4 -> 3), then F1.
    assert (track(items)["phase"], *rf(items)) == (3, 3, 1)


def test_the_last_phase_ending_defeats() -> None:
    items = fe(
        player(),
        adversary(armor="none", resilience=1, phases=[1]),
        *landed("a", 1),
        *landed("b", 1),
    )
    assert (track(items)["phase"], track(items)["status"]) == (2, "defeated")


def test_an_overflow_ending_a_phase_starts_the_next() -> None:
    items = fe(player(), adversary(resilience=1, phases=[5]), tired(3))
    assert (track(items)["phase"], *rf(items)) == (2, 5, 0)


def test_a_puzzle_adversary_is_not_worn_down_and_ends_only_by_its_resolution() -> None:
    riddle = adversary(
        "Riddle", resilience=None, resolution="answer the toll riddle", fatigue_capacity=None
    )
    items = fe(player(), riddle, *landed("a", 9, "Riddle"), tired(4, "Riddle"))
    assert track(items, "Riddle") == {
        "side": "adversary",
        "status": "active",
        "resilience": None,
        "fatigue": 0,
        "fatigue_capacity": None,
        "armor": "light",
        "phase": 1,
    }
    left = {"type": "combatant.left", "name": "Riddle", "manner": "resolved"}
    assert track(fe(player(), riddle, left), "Riddle")["status"] == "resolved"


@pytest.mark.parametrize("manner", ["bargained", "escaped", "surrendered"])
def test_bargain_escape_and_surrender_end_opposition_without_attrition(manner: str) -> None:
    items = fe(
        player(), adversary(), {"type": "combatant.left", "name": "Silken Blade", "manner": manner}
    )
    assert (track(items)["status"], *rf(items)) == (manner, 8, 0)


def test_an_adversary_has_no_harm_level_track_to_suffer_on() -> None:
    wrong = suffer("a", 2, "Silken Blade")
    assert "no Harm-level track" in refused(
        fe(player(), adversary(), attack("a", 2), roll("a", 1), wrong)
    )
    assert "harm" not in track(fe(player(), adversary()))


def test_a_gm_override_to_zero_resilience_ends_the_phase() -> None:
    adjust = {
        "type": "track.adjusted",
        "target": "Silken Blade",
        "track": "resilience",
        "value": 0,
        "reason": "thrown from the bridge",
    }
    items = fe(player(), adversary(phases=[4]), adjust)
    assert (track(items)["phase"], *rf(items)) == (2, 4, 0)


def override(track: str, value: Any, target: str = "Silken Blade") -> Event:
    """A GM override of one of the Silken Blade's tracks (unless `target` says whose)."""
    return streams.override(target, track, value, reason="ruling")


def test_a_gm_override_of_fatigue_to_capacity_or_above_is_refused_naming_both() -> None:
    for value in (3, 7):
        message = refused(fe(player(), adversary(), override("fatigue", value)))
        assert message == (
            "track 'fatigue' of 'Silken Blade': fatigue "
            f"{value} is not below fatigue_capacity 3 (Fatigue overflows at capacity)"
        )


def test_a_gm_override_of_capacity_down_to_the_fatigue_held_is_refused() -> None:
    message = refused(fe(player(), adversary(), tired(2), override("fatigue_capacity", 2)))
    assert message == (
        "track 'fatigue_capacity' of 'Silken Blade': fatigue 2 is not below "
        "fatigue_capacity 2 (Fatigue overflows at capacity)"
    )


def test_a_gm_override_of_a_players_fatigue_to_body_or_above_is_refused() -> None:
    message = refused(fe(player(), adversary(), override("fatigue", 3, "Ash")))
    assert message == (
        "track 'fatigue' of 'Ash': fatigue 3 is not below body 3 (Fatigue overflows at Body)"
    )
    assert track(fe(player(), adversary(), override("fatigue", 2, "Ash")), "Ash")["fatigue"] == 2


def test_an_adversary_cannot_join_already_at_zero_resilience() -> None:
    message = refused(fe(player(), adversary(resilience=0)))
    assert message == (
        "stats of 'Silken Blade': resilience 0 is an adversary already defeated; give its "
        "starting Resilience (or null, with a resolution, for a puzzle)"
    )


def test_a_gm_override_cannot_set_a_phase_past_the_last() -> None:
    message = refused(fe(player(), adversary(phases=[4]), override("phase", 3)))
    assert message == "track 'phase' of 'Silken Blade': phase 3 is past its last phase (2)"
    assert track(fe(player(), adversary(phases=[4]), override("phase", 2)))["phase"] == 2


def test_gm_overrides_that_keep_fatigue_below_capacity_are_applied() -> None:
    items = fe(player(), adversary(), override("fatigue", 2), override("fatigue_capacity", 5))
    assert (track(items)["fatigue"], track(items)["fatigue_capacity"]) == (2, 5)
    assert fold(items).skipped == ()


# Rolls and the SB pool


@pytest.mark.parametrize(
    ("dice", "successes", "sb", "outcome"),
    [
        ((6, 7, 8), 3, 0, "success"),
        ((10, 9), 3, 0, "success"),
        ((10, 1, 1), 2, 2, "partial"),
        ((5, 9, 1), 1, 1, "partial"),
        ((1, 2, 5), 0, 1, "miss"),
        ((10, 10), 4, 0, "success"),
    ],
)
def test_a_roll_counts_d10_successes_and_sb_against_the_dv(
    dice: tuple[int, ...], successes: int, sb: int, outcome: str
) -> None:
    items = fe(player(), adversary(), lock("a", dv=3), roll("a", *dice))
    got = rolls(items)[0]
    assert (got["successes"], got["sb"], got["outcome"], got["dv"]) == (successes, sb, outcome, 3)
    assert tracks(items)["pools"] == {"sb": sb}


def test_the_dv_defaults_to_the_pinned_default_when_the_lock_omits_it() -> None:
    items = fe(player(), adversary(), lock("a"), roll("a", 6, 7, 8, 9), rules={"dv_default": 4})
    assert (rolls(items)[0]["dv"], rolls(items)[0]["outcome"]) == (4, "success")


@pytest.mark.parametrize(
    ("position", "fatigue", "effective"),
    [
        ("desperate", 0, "desperate"),
        ("desperate", 1, "controlled"),
        ("desperate", 2, "dominant"),
        ("controlled", 0, "controlled"),
        ("controlled", 1, "dominant"),
        ("controlled", 2, "dominant"),
        ("dominant", 0, "dominant"),
        ("dominant", 2, "dominant"),
    ],
)
def test_each_marked_npc_fatigue_improves_the_players_position_capped_at_dominant(
    position: str, fatigue: int, effective: str
) -> None:
    marks = [tired(1) for _ in range(fatigue)]
    items = fe(
        player(), adversary(), *marks, lock("a", position=position, dv=4), roll("a", 6, 7, 8)
    )
    got = rolls(items)[0]
    # Excess improvement adds no dice and does not lower DV: 3 successes stay a Partial at DV 4.
    assert (got["effective_position"], got["dv"], got["outcome"]) == (effective, 4, "partial")


def test_effective_position_uses_the_fatigue_marked_when_the_stakes_were_locked() -> None:
    items = fe(
        player(), adversary(), tired(1), lock("a", position="desperate"), tired(1), roll("a", 6)
    )
    assert rolls(items)[0]["effective_position"] == "controlled"


def test_a_second_lock_of_a_stake_changes_nothing_the_first_fixed() -> None:
    items = fe(player(), adversary(), lock("a", dv=3), lock("a", dv=2), roll("a", 6, 7))
    assert (rolls(items)[0]["dv"], rolls(items)[0]["outcome"]) == (3, "partial")


def test_sb_are_spent_from_the_pool_and_never_below_zero() -> None:
    items = fe(player(), adversary(), lock("a"), roll("a", 1, 1, 1), spend(2, "complication"))
    assert tracks(items)["pools"] == {"sb": 1}
    assert tracks(fe(player(), adversary(), spend(2, "complication")))["pools"] == {"sb": 0}


def test_scene_end_carries_over_at_most_the_pinned_sb() -> None:
    items = fe(
        player(), adversary(), lock("a"), roll("a", 1, 1, 1, 1, 1, 1), {"type": "scene.ended"}
    )
    assert tracks(items)["pools"] == {"sb": 4}


def test_a_retracted_roll_takes_its_sb_and_outcome_with_it() -> None:
    items = fe(
        player(),
        adversary(),
        lock("a"),
        roll("a", 1, 1),
        {"type": "event.retracted", "target": 5, "reason": "dice fell off the table"},
    )
    assert (tracks(items)["pools"], rolls(items)) == ({"sb": 0}, [])


def test_a_second_roll_of_a_rolled_stake_adds_no_sb_and_no_roll() -> None:
    items = fe(player(), adversary(), lock("a", dv=3), roll("a", 6, 1), roll("a", 1, 1, 1))
    assert tracks(items)["pools"] == {"sb": 1}
    assert [(r["seq"], r["sb"], r["outcome"]) for r in rolls(items)] == [(5, 1, "partial")]


def test_a_second_roll_of_a_rolled_stake_changes_nothing_the_first_roll_fixed() -> None:
    items = fe(
        player(),
        adversary(),
        tired(1),
        lock("a", position="desperate", dv=3),
        roll("a", 2, 3),
        tired(1),
        roll("a", 10, 10, 1),
    )
    assert tracks(items) == tracks(items, without=[8])
    state = fold(items)
    assert isinstance(state, FatesEdgeState)
    first = state.roll_of("a")
    assert first is not None
    assert (first.seq, first.outcome, first.effective_position) == (6, "miss", "controlled")


def test_after_the_first_roll_is_retracted_the_next_roll_of_the_stake_counts() -> None:
    undo = {"type": "event.retracted", "target": 5, "reason": "the dice fell off the table"}
    items = fe(player(), adversary(), lock("a"), roll("a", 1, 1), undo, roll("a", 1, 6))
    assert tracks(items)["pools"] == {"sb": 1}
    assert [(r["seq"], r["outcome"]) for r in rolls(items)] == [(7, "partial")]


# Player side


def test_player_harm_clears_fatigue_and_raises_the_harm_level() -> None:
    items = fe(
        player(armor="none"),
        adversary(),
        lock("d", kind="defense", source="sb_attack"),
        tired(2, "Ash"),
        roll("d", 2),
        suffer("d", 2),
    )
    assert (track(items, "Ash")["harm"], track(items, "Ash")["fatigue"]) == (2, 0)


def test_the_srd_player_example_loses_the_overflow_excess() -> None:
    # Heavy armor, Body 2, Fatigue 1, takes Harm 3: F2 -> 3 >= 2 -> Harm 1, Fatigue 0.
    items = fe(
        player(armor="heavy", body=2),
        adversary(),
        lock("d", kind="defense"),
        tired(1, "Ash"),
        roll("d", 2),
        suffer("d", 3),
    )
    assert (track(items, "Ash")["harm"], track(items, "Ash")["fatigue"]) == (1, 0)


def test_player_overflow_may_loop_as_a_house_rule() -> None:
    items = fe(
        player(armor="heavy", body=1),
        adversary(),
        lock("d", kind="defense"),
        roll("d", 2),
        suffer("d", 3),
        rules={"player_overflow_may_loop": True},
    )
    # Heavy H3 -> F2 with Body 1: overflow twice -> Harm 2, Fatigue 0.
    assert (track(items, "Ash")["harm"], track(items, "Ash")["fatigue"]) == (2, 0)


def test_a_player_without_body_tracks_harm_but_no_fatigue() -> None:
    items = fe(
        player(armor="light", body=None),
        adversary(),
        lock("d", kind="defense"),
        roll("d", 2),
        suffer("d", 2),
    )
    assert (track(items, "Ash")["harm"], track(items, "Ash")["fatigue"]) == (1, None)
    assert "no Fatigue track" in refused(fe(player(body=None), adversary(), tired(1, "Ash")))


def test_a_player_above_harm_three_is_defeated() -> None:
    items = fe(
        player(armor="none"), adversary(), lock("d", kind="defense"), roll("d", 2), suffer("d", 4)
    )
    assert track(items, "Ash")["status"] == "defeated"


def test_a_bad_stat_block_is_bad_input_naming_the_field() -> None:
    assert "fatigue_capacity" in refused(fe(adversary(fatigue_capacity=None)))


# Invariants

HITS = st.lists(
    st.one_of(
        st.tuples(st.just("hit"), st.integers(0, 7), st.sampled_from([0, 1, 2, "all"])),
        st.tuples(st.just("tired"), st.integers(1, 5), st.just(0)),
    ),
    max_size=12,
)


def _stream(armor: str, hits: list[tuple[str, int, Any]]) -> list[events.Recorded]:
    items: list[Event] = [player(), adversary(armor=armor, resilience=5, phases=[3, 4])]
    for kind, amount, ignore in hits:
        items.append(hit(amount, ignore_armor=ignore) if kind == "hit" else tired(amount))
    return fe(*items)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["none", "light", "medium", "heavy"]), HITS)
def test_tracks_stay_within_bounds(armor: str, hits: list[tuple[str, int, Any]]) -> None:
    view = track(_stream(armor, hits))
    assert 0 <= view["fatigue"] < view["fatigue_capacity"]
    assert 0 <= view["resilience"] <= (5, 3, 4)[view["phase"] - 1]
    assert (view["status"] == "defeated") == (view["resilience"] == 0)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["none", "light", "heavy"]), HITS, st.integers(2, 14))
def test_folding_a_prefix_then_continuing_equals_folding_at_once(
    armor: str, hits: list[tuple[str, int, Any]], cut: int
) -> None:
    records = _stream(armor, hits)
    folder = core.RunningFold(RULESETS["fates-edge"])
    for record in records[:cut]:
        folder.add(record)
    middle = folder.state
    assert isinstance(middle, FatesEdgeState)
    rest = core.RunningFold(RULESETS["fates-edge"], middle)
    for record in records[cut:]:
        rest.add(record)
    assert rest.state == fold(records)
