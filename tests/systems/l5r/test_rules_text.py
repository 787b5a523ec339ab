"""l5r-damage.txt, sentence by sentence: the rules the other l5r tests leave implicit, and
NOTES.md 4.2's scene-end examples typed at the `encounter` command.

The rule-by-rule map (which test catches which sentence) is in the rules QA report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import cli
from tests.streams import rules_hit, stream, tracks

runner = CliRunner()
RINGS = {"air": 2, "earth": 2, "fire": 2, "water": 3, "void": 3}  # endurance 8, 2 Void points


def joined(**stats: Any) -> dict[str, Any]:
    """Akodo, rings 2/2/2/3/3, unless `stats` say more."""
    return {
        "type": "combatant.joined",
        "name": "Akodo",
        "side": "player",
        "stats": {"rings": RINGS, **stats},
    }


def damage(amount: int, **fields: Any) -> dict[str, Any]:
    """Physical damage to Akodo."""
    return {"type": "damage.dealt", "target": "Akodo", "amount": amount, **fields}


def akodo(*items: dict[str, Any]) -> dict[str, Any]:
    """Akodo's tracks after the stream."""
    doc: dict[str, Any] = tracks(stream("l5r", *items))["combatants"]["Akodo"]
    return doc


# "If a character reduces damage they would suffer to 0, they do not need to defend against
# it": that holds for an Incapacitated character too, who cannot defend but need not.


def test_damage_reduced_to_0_glances_off_an_incapacitated_character_with_no_critical() -> None:
    got = akodo(joined(resistance={"physical": 3}), damage(12), damage(3, deadliness=6))
    assert (got["fatigue"], got["incapacitated"], got["criticals"]) == (9, True, [])


def test_damage_left_after_reductions_on_an_incapacitated_character_is_a_critical() -> None:
    got = akodo(joined(resistance={"physical": 3}), damage(12), damage(4, deadliness=6))
    assert got["criticals"] == [
        {"seq": 4, "severity": 6, "cause": "incapacitated", "resolved": None}
    ]
    assert got["fatigue"] == 9


# "Before dealing damage to a character, first apply any increases to the damage, and then
# apply any reductions to the damage, to a minimum of 0": the floor applies to the total, so an
# increase is not lost to a reduction that alone would floor the base at 0.


def test_an_increase_survives_a_reduction_larger_than_the_base_damage() -> None:
    # 2 + 5 - 4 = 3; flooring 2 - 4 at 0 before the increase would give 5.
    assert akodo(joined(), damage(2, increases=[5], reductions=[4]))["fatigue"] == 3


# "a character who is not Incapacitated may spend 1 Void point to voluntarily suffer a critical
# strike instead of defending": one point, and no fatigue.


def test_a_voluntary_critical_spends_exactly_one_void_point_and_takes_no_fatigue() -> None:
    got = akodo(joined(void_points=3), damage(4, deadliness=5, voluntary_critical=True))
    assert (got["void_points"], got["fatigue"]) == (2, 0)
    assert got["criticals"] == [{"seq": 3, "severity": 5, "cause": "void", "resolved": None}]


def test_a_voluntary_critical_while_incapacitated_breaks_the_rule_with_both_seqs() -> None:
    records = stream("l5r", joined(), damage(9), damage(2, deadliness=5, voluntary_critical=True))
    assert rules_hit(records) == [("void-critical-not-allowed", (4,))]
    # Applied as played: the critical strike is due and the point the table spent is gone.
    got = tracks(records)["combatants"]["Akodo"]
    assert (got["void_points"], got["fatigue"], got["criticals"][0]["seq"]) == (1, 9, 4)


# "Consequences of Fatigue: After a character suffers fatigue, if their fatigue exceeds their
# endurance, the character suffers the Incapacitated condition": exactly at endurance is not
# exceeding; one more is.


@pytest.mark.parametrize(("taken", "down"), [(7, False), (8, False), (9, True)])
def test_incapacitated_comes_only_when_fatigue_exceeds_endurance(taken: int, down: bool) -> None:
    assert akodo(joined(), damage(taken))["incapacitated"] is down


# NOTES.md 4.2, the scene-end examples typed at the command line: E 8, F 9 -> 4 (Incapacitated
# removed); E 9, F 9 -> 5; E 10, F 12 -> 5; E 7, F 4 -> 4 (unchanged).


def ok(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    return result.stdout


@pytest.mark.parametrize(
    ("endurance", "fatigue", "after", "down_before"),
    [(8, 9, 4, True), (9, 9, 5, False), (10, 12, 5, True), (7, 4, 4, False)],
)
def test_notes_scene_end_examples_reduce_fatigue_to_half_endurance_rounded_up_if_over_it(
    db: Path, endurance: int, fatigue: int, after: int, down_before: bool
) -> None:
    ok(db, "new", "duel", "--system", "l5r")
    rings = "rings=" + json.dumps(RINGS)
    ok(
        db,
        "add",
        "duel",
        "Akodo",
        "--side",
        "player",
        "--stat",
        rings,
        "--stat",
        f"endurance={endurance}",
    )
    ok(db, "damage", "duel", "Akodo", str(fatigue))
    before = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]
    assert (before["fatigue"], before["incapacitated"]) == (fatigue, down_before)
    ok(db, "record", "duel", "scene.ended")
    doc = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]
    assert (doc["fatigue"], doc["endurance"], doc["incapacitated"]) == (after, endurance, False)
