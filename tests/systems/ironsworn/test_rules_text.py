"""ironsworn-endure-harm.txt, the move typed at the `encounter` command, step by step as its text
gives them: "suffer -health ... If your health is 0, suffer -momentum equal to any remaining
-health. Then, roll +health or +iron, whichever is higher ... On a miss, also suffer -1 momentum.
If you are at 0 health, you must mark wounded or maimed (if currently unmarked) or roll on the
following table".

The rule-by-rule map (which test catches which sentence) is in the rules QA report; each rule
has its own fold or audit test in tests/systems/ironsworn/test_fold.py and test_audit.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.invoke import ok, run


def kira(db: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ok(db, "tracks", "pass", "--json"))["combatants"]["Kira"]
    return doc


def findings(db: Path) -> list[tuple[str, list[int]]]:
    _, out, _ = run(db, "audit", "pass", "--json")
    return [(f["rule"], f["seq"]) for f in json.loads(out)["findings"] if f["severity"] != "info"]


@pytest.fixture
def harmed(db: Path) -> Path:
    """Kira (iron 2, health 3, momentum 4) takes an epic foe's 5 harm at seq 4: health 3 -> 0
    and the 2 remaining -health come off momentum, 4 -> 2."""
    ok(db, "new", "pass", "--system", "ironsworn")
    stats = ["--stat", "iron=2", "--stat", "health=3", "--stat", "momentum=4"]
    ok(db, "add", "pass", "Kira", "--side", "player", *stats)
    ok(db, "add", "pass", "Wyrm", "--side", "adversary", "--stat", "rank=epic")
    ok(db, "endure-harm", "pass", "Kira", "--foe", "Wyrm")
    return db


def roll(db: Path, stat: str, die: int, challenge: str) -> None:
    ok(
        db,
        "action-roll",
        "pass",
        "Kira",
        "--stat",
        stat,
        "--die",
        str(die),
        "--challenge",
        challenge,
    )


def test_the_move_suffers_the_foes_rank_and_spills_what_health_cannot_take_into_momentum(
    harmed: Path,
) -> None:
    got = kira(harmed)
    assert (got["health"], got["momentum"]) == (0, 2)


def test_the_move_rolls_iron_when_it_beats_health_after_the_harm(harmed: Path) -> None:
    roll(harmed, "iron", 4, "3,9")  # 4 + iron 2 = 6: beats 3, not 9
    assert kira(harmed)["momentum"] == 2  # a weak hit: you press on
    assert findings(harmed) == []


def test_the_move_rolled_on_health_at_zero_instead_of_iron_breaks_endure_harm_stat(
    harmed: Path,
) -> None:
    roll(harmed, "health", 4, "3,9")
    assert findings(harmed) == [("endure-harm-stat", [5])]


def test_a_miss_at_zero_health_costs_one_momentum_and_owes_wounded_maimed_or_the_table(
    harmed: Path,
) -> None:
    roll(harmed, "iron", 1, "5,9")  # 1 + 2 = 3: a miss
    assert (kira(harmed)["health"], kira(harmed)["momentum"]) == (0, 1)
    ok(harmed, "record", "pass", "scene.ended")
    assert findings(harmed) == [("miss-at-zero-health", [5, 6])]


@pytest.mark.parametrize(
    ("settle", "conditions"),
    [
        (["debility.marked", "target=Kira", "debility=wounded"], []),
        (["debility.marked", "target=Kira", "debility=maimed"], []),
        (["oracle.rolled", "target=Kira", "table=endure_harm", "roll=15"], ["dying"]),
    ],
)
def test_marking_wounded_or_maimed_or_rolling_the_table_settles_the_miss_at_zero_health(
    harmed: Path, settle: list[str], conditions: list[str]
) -> None:
    roll(harmed, "iron", 1, "5,9")
    ok(harmed, "record", "pass", *settle)
    ok(harmed, "record", "pass", "scene.ended")
    assert findings(harmed) == []
    assert kira(harmed)["conditions"] == conditions
    # Marking a debility changes no health: Kira stays at 0.
    assert kira(harmed)["health"] == 0


def test_a_strong_hit_at_zero_health_cannot_shake_it_off_but_can_embrace_the_pain(
    harmed: Path,
) -> None:
    roll(harmed, "iron", 6, "2,3")  # 6 + 2 = 8: a strong hit
    ok(harmed, "record", "pass", "choice.made", "target=Kira", "option=shake_it_off")
    assert (kira(harmed)["health"], kira(harmed)["momentum"]) == (0, 2)
    assert findings(harmed) == [("shake-it-off-allowed", [6])]
