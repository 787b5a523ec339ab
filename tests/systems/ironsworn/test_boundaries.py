"""The edges of the Ironsworn rules that no other test pinned: each test here kills a mutant of
`projections/ironsworn/` (a shifted bound, a dropped check) that every other test let through.
Quotes are from ironsworn-endure-harm.txt; invariants and house defaults from NOTES.md 5.2.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ledger.errors import BadInput
from tests import streams
from tests.streams import stream, tracks
from tests.systems.ironsworn.test_fold import kira

Event = dict[str, Any]


def override(track: str, value: object) -> Event:
    """A GM override of one of Kira's tracks."""
    return {
        "type": "track.adjusted",
        "target": "Kira",
        "track": track,
        "value": value,
        "reason": "GM",
    }


def sheet(*items: Event, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Kira's tracks after the stream."""
    kira_tracks: dict[str, Any] = tracks(stream("ironsworn", *items, rules=rules))["combatants"][
        "Kira"
    ]
    return kira_tracks


def test_wounded_stops_health_rising_by_a_single_point() -> None:
    # NOTES.md 5.2: "While wounded: no event may increase health".
    raised = {"type": "meter.changed", "target": "Kira", "meter": "health", "amount": 1}
    assert sheet(kira(health=3, debilities=["wounded"]), raised)["health"] == 3


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ({"momentum": 10, "debilities": ["wounded"]}, "momentum 10 is outside -6..9 (1 debility)"),
        ({"momentum": 9, "debilities": ["wounded", "shaken"]}, "momentum 9 is outside -6..8"),
    ],
)
def test_a_sheet_with_momentum_above_its_debilities_max_is_bad_input(
    stats: dict[str, Any], message: str
) -> None:
    # NOTES.md 5.2: "-6 <= momentum <= max_momentum at all times", max_momentum = 10 - debilities.
    assert streams.refusal("ironsworn", kira(**stats)).startswith(f"stats of 'Kira': {message}")


def test_a_gm_override_may_set_health_to_0_but_not_below() -> None:
    # NOTES.md 5.2: "0 <= health <= 5".
    assert sheet(kira(), override("health", 0))["health"] == 0
    message = streams.refusal("ironsworn", kira(), override("health", -1))
    assert message == (
        "track 'health' of 'Kira' field 'health': input should be greater than or equal to 0 "
        "(got -1)"
    )


@pytest.mark.parametrize("value", [True, "9"])
def test_a_max_momentum_override_that_is_not_a_whole_number_is_bad_input(value: object) -> None:
    message = streams.refusal("ironsworn", kira(), override("max_momentum", value))
    assert message == "track 'max_momentum' of 'Kira' takes a whole number"


# House rules (NOTES.md 5.2 "Configurable defaults") at the edges of their ranges.


@pytest.mark.parametrize(
    "rules",
    [
        {"harm_default": 0},
        {"rank_harm": {"epic": 0}},
        {"score_cap": 1},
        {"momentum_min": 0},
        {"momentum_max": 0},
    ],
)
def test_house_rules_at_the_edge_of_their_range_are_taken(rules: dict[str, Any]) -> None:
    assert tracks(stream("ironsworn", rules=rules))["combatants"] == {}


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"harm_default": -1}, "'harm_default': input should be greater than or equal to 0"),
        (
            {"rank_harm": {"epic": -1}},
            "'rank_harm.epic': input should be greater than or equal to 0",
        ),
        ({"score_cap": 0}, "'score_cap': input should be greater than or equal to 1"),
        ({"momentum_min": 1}, "'momentum_min': input should be less than or equal to 0"),
        ({"momentum_max": -1}, "'momentum_max': input should be greater than or equal to 0"),
    ],
)
def test_house_rules_past_the_edge_of_their_range_are_bad_input(
    rules: dict[str, Any], message: str
) -> None:
    with pytest.raises(BadInput, match=re.escape(f"ironsworn rules field {message}")):
        streams.fold(stream("ironsworn", rules=rules))


# "Then, roll +health or +iron, whichever is higher": the audit says what the rules give, the
# score capped at 10 (NOTES.md 5.2 "score = min(10, die + value + adds)").


def endure_harm_stat(*items: Event) -> list[tuple[tuple[int, ...], str]]:
    """(seqs, message) of each endure-harm-stat finding."""
    found = streams.audit(stream("ironsworn", *items))
    return [(f.seq, f.message) for f in found if f.rule == "endure-harm-stat"]


def endure(die: int, challenge: tuple[int, int], stat: str, **fields: Any) -> Event:
    """Kira's Endure Harm roll."""
    return {
        "type": "roll.made",
        "actor": "Kira",
        "stat": stat,
        "action_die": die,
        "challenge": list(challenge),
        "move": "endure_harm",
        **fields,
    }


HARM = {"type": "harm.suffered", "target": "Kira"}


def test_the_lower_of_health_and_iron_is_flagged_with_both_scores() -> None:
    # Dangerous harm by default: health 5 -> 3; iron 4 is higher.
    assert endure_harm_stat(kira(iron=4), HARM, endure(4, (2, 7), "health")) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +health (3); +health after the harm is 3 and +iron "
            "is 4: roll the higher; by the rules +iron 4: score 8 vs 2, 7, strong hit; recorded "
            "as played: +health 3, score 7, weak hit",
        )
    ]


def test_another_stat_is_flagged_with_both_scores() -> None:
    assert endure_harm_stat(kira(), HARM, endure(4, (2, 5), "heart")) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +heart; it rolls +health (3) or +iron (2), whichever "
            "is higher: by the rules +health 3: score 7 vs 2, 5, strong hit; recorded as played: "
            "+heart 1, score 5, weak hit",
        )
    ]


def test_the_scores_of_the_finding_count_the_adds_and_a_cancelled_action_die() -> None:
    """Both scores are action scores: the adds count, and negative momentum equal to the
    action die cancels it, in the rules' score as in the played one."""
    assert endure_harm_stat(
        kira(iron=4, momentum=-2), HARM, endure(2, (3, 6), "health", adds=1)
    ) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +health (3); +health after the harm is 3 and +iron "
            "is 4: roll the higher; by the rules +iron 4: score 5 vs 3, 6, weak hit; recorded "
            "as played: +health 3, score 4, weak hit",
        )
    ]


# NOTES.md 5.2: "max_momentum = 10 - n_debilities", "momentum_reset = {0: 2, 1: 1, >= 2: 0}";
# a GM override of either shows as given, whatever debilities are marked.


def test_a_max_momentum_override_with_a_debility_marked_shows_as_given() -> None:
    assert sheet(kira(debilities=["wounded"]), override("max_momentum", 8))["max_momentum"] == 8


@pytest.mark.parametrize("marked", [["wounded", "shaken"], ["wounded", "shaken", "maimed"]])
def test_a_momentum_reset_override_with_two_or_more_debilities_shows_as_given(
    marked: list[str],
) -> None:
    assert sheet(kira(debilities=marked), override("momentum_reset", 1))["momentum_reset"] == 1
