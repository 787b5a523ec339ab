"""The edges of the ssss rules that no other test pinned: each test here kills a mutant of
`projections/ssss/` (a flipped comparison, a min for a max, a shifted bound) that every other
test let through. Quotes are from enemy-harm-slots.txt; house defaults from NOTES.md 5.3.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ledger import events
from ledger.errors import BadInput
from tests import streams
from tests.streams import override, rules_hit, stream, tracks

ASH = {"type": "combatant.joined", "name": "Ash", "side": "player"}
READING_B = {"top_tier_exhaustion_defeats_on_any_harm": True}


def enemy(level: int) -> dict[str, Any]:
    """An enemy of `level` with the full slot layout."""
    return {
        "type": "combatant.joined",
        "name": "Foe",
        "side": "adversary",
        "stats": {"level": level},
    }


def harm(level: int, target: str = "Foe") -> dict[str, Any]:
    """Harm of `level` inflicted on `target`."""
    return {"type": "harm.inflicted", "target": target, "level": level}


def grit(from_level: int, to_level: int) -> dict[str, Any]:
    """Ash's Grit on an injury."""
    return {"type": "grit.used", "target": "Ash", "from_level": from_level, "to_level": to_level}


def of(records: list[events.Recorded], name: str = "Foe") -> dict[str, Any]:
    """The tracks of one combatant."""
    combatant: dict[str, Any] = tracks(records)["combatants"][name]
    return combatant


# Player harm: "Level 4 Harm would ordinarily kill a character outright" (Level 4 Enemies);
# NOTES.md 5.3 `pc_lethal_harm_level = 4`.


def test_harm_3_leaves_a_player_standing_only_harm_4_kills_outright() -> None:
    assert of(stream("ssss", ASH, harm(3, "Ash")), "Ash")["status"] == "active"


def test_harm_4_kills_a_player_whatever_lesser_harm_they_already_hold() -> None:
    doc = of(stream("ssss", ASH, harm(1, "Ash"), harm(4, "Ash")), "Ash")
    assert (doc["status"], doc["harm"]) == ("defeated", [1, 4])


def test_grit_lessening_the_lethal_injury_revives_a_player_who_also_holds_lesser_harm() -> None:
    # "the target may attempt to lessen or resist entirely the injury using Grit"
    doc = of(stream("ssss", ASH, harm(1, "Ash"), harm(4, "Ash"), grit(4, 3)), "Ash")
    assert (doc["status"], doc["harm"]) == ("active", [1, 3])


def test_grit_lessens_the_latest_injury_of_its_level_even_with_later_harm_after_it() -> None:
    records = stream("ssss", ASH, *(harm(h, "Ash") for h in (2, 1, 2, 1)), grit(2, 1))
    assert of(records, "Ash")["harm"] == [2, 1, 1, 1]


def test_grit_that_keeps_the_injury_at_its_level_raises_nothing() -> None:
    # NOTES.md 5.3: "Grit can only lower or negate a harm level, never raise it".
    assert rules_hit(stream("ssss", ASH, harm(2, "Ash"), grit(2, 2))) == []


def test_a_house_lethal_level_of_1_kills_at_any_harm_and_resisting_it_revives() -> None:
    rules = {"pc_lethal_harm_level": 1}
    assert of(stream("ssss", ASH, harm(1, "Ash"), rules=rules), "Ash")["status"] == "defeated"
    resisted = of(stream("ssss", ASH, harm(1, "Ash"), grit(1, 0), rules=rules), "Ash")
    assert (resisted["status"], resisted["harm"]) == ("active", [])


def test_a_house_lethal_level_of_10_lets_a_player_survive_harm_9() -> None:
    records = stream("ssss", ASH, harm(9, "Ash"), rules={"pc_lethal_harm_level": 10})
    assert of(records, "Ash")["status"] == "active"


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (
            {"pc_lethal_harm_level": 0},
            "'pc_lethal_harm_level': input should be greater than or equal to 1 (got 0)",
        ),
        (
            {"pc_lethal_harm_level": 11},
            "'pc_lethal_harm_level': input should be less than or equal to 10 (got 11)",
        ),
    ],
)
def test_a_lethal_level_outside_1_to_10_is_bad_input(rules: dict[str, int], message: str) -> None:
    with pytest.raises(BadInput, match=re.escape(message)):
        streams.fold(stream("ssss", rules=rules))


def test_a_gm_override_of_a_players_harm_is_applied_as_given() -> None:
    records = stream("ssss", ASH, harm(2, "Ash"), override("Ash", "harm", [1]))
    assert of(records, "Ash")["harm"] == [1]


# "with a maximum of 3 Harm slots at each Level"; NOTES.md 5.3 `max_per_tier = 3`, a table may
# allow fewer, down to one.


def test_a_house_maximum_of_one_slot_a_tier_gives_one_slot_at_each_tier() -> None:
    doc = of(stream("ssss", enemy(3), rules={"max_per_tier": 1}))
    assert {tier: s["capacity"] for tier, s in doc["slots"].items()} == {"1": 1, "2": 1, "3": 1}


def test_a_gm_override_may_fill_a_tier_to_exactly_its_slots() -> None:
    # NOTES.md 5.3: "filled[t] <= slot_layout[t]".
    full = {"1": {"filled": 3, "capacity": 3}, "2": {"filled": 0, "capacity": 3}}
    doc = of(stream("ssss", enemy(2), override("Foe", "slots", full), harm(1)))
    assert (doc["slots"]["1"]["filled"], doc["slots"]["2"]["filled"]) == (3, 1)


@pytest.mark.parametrize(
    ("track", "value", "field"),
    [
        ("slots", {"1": {"filled": -1, "capacity": 3}}, "slots.1.filled"),
        ("slots", {"1": {"filled": 0, "capacity": -1}}, "slots.1.capacity"),
        ("penalties", -1, "penalties"),
    ],
)
def test_a_gm_override_to_a_negative_count_is_bad_input(
    track: str, value: object, field: str
) -> None:
    message = streams.refusal("ssss", enemy(2), override("Foe", track, value))
    assert message.startswith(f"track {track!r} of 'Foe' field {field!r}: input should be greater")


def test_harm_rises_past_a_tier_the_gm_emptied_to_no_slots() -> None:
    # "continuing upwards until there is an available slot".
    trimmed = {"1": {"filled": 0, "capacity": 0}, "2": {"filled": 0, "capacity": 3}}
    doc = of(stream("ssss", enemy(2), override("Foe", "slots", trimmed), harm(1)))
    assert doc["slots"] == {"1": {"filled": 0, "capacity": 0}, "2": {"filled": 1, "capacity": 3}}


def test_reading_b_counts_a_tier_5_the_gm_emptied_as_no_tier_5() -> None:
    # "Once their available Level 4 Harm is exhausted, further Harm defeats them": a god whose
    # tier 5 the GM set to no slots has tier 4 as its top tier.
    layout = {t: {"filled": 0, "capacity": 3} for t in ("1", "2", "3")}
    layout |= {"4": {"filled": 3, "capacity": 3}, "5": {"filled": 0, "capacity": 0}}
    records = stream("ssss", enemy(5), override("Foe", "slots", layout), harm(1), rules=READING_B)
    doc = of(records)
    assert (doc["status"], doc["slots"]["1"]["filled"]) == ("defeated", 0)


# Harm levels: "Harm of level h" starts at 1; Grit's `to_level` 0 resists it entirely.


def test_harm_10_is_the_highest_level_recorded_and_defeats_a_god() -> None:
    assert of(stream("ssss", enemy(5), harm(10)))["status"] == "defeated"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (harm(0, "Ash"), "harm.inflicted event field 'level': input should be greater than or"),
        (harm(11, "Ash"), "harm.inflicted event field 'level': input should be less than or"),
        (grit(2, -1), "grit.used event field 'to_level': input should be greater than or"),
        (grit(2, 11), "grit.used event field 'to_level': input should be less than or"),
    ],
)
def test_harm_and_grit_levels_outside_their_range_are_bad_input(
    item: dict[str, Any], message: str
) -> None:
    with pytest.raises(BadInput, match=message):
        stream("ssss", ASH, harm(2, "Ash"), item)


def test_a_gm_override_of_an_enemys_penalties_is_kept_as_given() -> None:
    # NOTES.md 5.3: the penalty table is GM input; only a new slot layout recounts them.
    records = stream("ssss", enemy(2), harm(1), override("Foe", "penalties", 2))
    assert of(records)["penalties"] == 2


def throw(harm_level: int, **fields: Any) -> dict[str, Any]:
    """A Throw by the enemy as the GM enters it."""
    made = {"type": "throw.made", "actor": "Foe", "attribute": "swords", "outcome": "won"}
    return {**made, "harm_level": harm_level, **fields}


@pytest.mark.parametrize("level", [0, 10])
def test_a_throw_may_give_harm_0_to_10(level: int) -> None:
    (rolled,) = tracks(stream("ssss", enemy(1), throw(level)))["rolls"]
    assert rolled["harm_level"] == level


@pytest.mark.parametrize("grit_stat", [0, 10])
def test_a_player_sheet_may_hold_grit_0_to_10(grit_stat: int) -> None:
    sheet = {**ASH, "stats": {"grit": grit_stat}}
    assert of(stream("ssss", sheet), "Ash")["record"] == {"grit": grit_stat}


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([throw(-1)], "throw.made event field 'harm_level': input should be greater than"),
        ([throw(11)], "throw.made event field 'harm_level': input should be less than"),
        ([throw(1), {**harm(1), "throw": 0}], "field 'throw': input should be greater than"),
    ],
)
def test_throws_and_sheets_outside_their_range_are_bad_input(
    items: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(BadInput, match=message):
        streams.fold(stream("ssss", enemy(1), *items))


@pytest.mark.parametrize(
    ("joined", "message"),
    [
        (
            {**enemy(2), "stats": {"level": 2, "slots": {"1": -1, "2": 3}}},
            "stats of 'Foe' field 'slots.1': input should be greater than or equal to 0 (got -1)",
        ),
        (
            {**ASH, "stats": {"grit": -1}},
            "stats of 'Ash' field 'grit': input should be greater than or equal to 0 (got -1)",
        ),
        (
            {**ASH, "stats": {"grit": 11}},
            "stats of 'Ash' field 'grit': input should be less than or equal to 10 (got 11)",
        ),
    ],
)
def test_a_stat_block_outside_its_range_is_bad_input(joined: dict[str, Any], message: str) -> None:
    assert streams.refusal("ssss", joined) == message
