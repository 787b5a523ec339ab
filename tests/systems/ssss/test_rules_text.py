"""enemy-harm-slots.txt, sentence by sentence: the rules the other ssss tests leave implicit,
and NOTES.md 3.3's worked examples typed at the `encounter` command.

The rule-by-rule map (which test catches which sentence) is in the rules QA report; the slot
arithmetic itself is held by tests/systems/ssss/test_fold.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import cli
from ledger.errors import BadInput
from tests import streams
from tests.streams import stream, tracks

runner = CliRunner()


def enemy(level: int, name: str = "Foe", **stats: Any) -> dict[str, Any]:
    """An enemy of `level`."""
    return {
        "type": "combatant.joined",
        "name": name,
        "side": "adversary",
        "stats": {"level": level, **stats},
    }


def throw(**fields: Any) -> dict[str, Any]:
    """A Throw by the enemy as the GM enters it."""
    return {"type": "throw.made", "actor": "Foe", "outcome": "won", "harm_level": 1, **fields}


# "Enemy Throws: Enemies do not possess or use Skills. Whenever an enemy makes a Throw, the GM
# chooses the most appropriate Attribute - STONES, SCROLLS, SWORDS, OR SORCERY".


@pytest.mark.parametrize("attribute", ["stones", "scrolls", "swords", "sorcery"])
def test_the_gm_chooses_one_of_the_four_attributes_for_an_enemy_throw(attribute: str) -> None:
    records = stream("ssss", enemy(1), throw(attribute=attribute))
    (rolled,) = tracks(records)["rolls"]
    assert (rolled["seq"], rolled["attribute"], rolled["harm_level"]) == (3, attribute, 1)


def test_an_enemy_throw_on_anything_but_the_four_attributes_is_bad_input() -> None:
    with pytest.raises(BadInput, match="'stones', 'scrolls', 'swords' or 'sorcery'"):
        stream("ssss", enemy(1), throw(attribute="grit"))


def test_enemies_do_not_possess_or_use_skills_so_a_throw_naming_one_is_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown field 'skill'"):
        stream("ssss", enemy(1), throw(attribute="swords", skill="blades"))


def test_enemies_do_not_possess_skills_so_a_stat_block_listing_them_is_bad_input() -> None:
    message = streams.refusal("ssss", enemy(1, skills={"blades": 2}))
    assert message.startswith("stats of 'Foe' has unknown stat 'skills'")


# "Ancient and Gods are separate bestiary tags"; "Their standard bestiary profile is +4 in every
# Attribute and +5 in a defining Attribute": data, not a change to the Harm slots.


@pytest.mark.parametrize("tags", [["ancient"], ["god"], ["ancient", "god"]])
def test_ancient_and_god_are_tags_that_leave_the_level_5_slots_as_they_are(
    tags: list[str],
) -> None:
    profile: dict[str, Any] = {"stones": 4, "scrolls": 4, "swords": 4, "sorcery": 5}
    tagged = tracks(stream("ssss", enemy(5, tags=tags, **profile)))["combatants"]["Foe"]
    plain = tracks(stream("ssss", enemy(5)))["combatants"]["Foe"]
    assert tagged["tags"] == tags
    assert tagged["slots"] == plain["slots"]
    assert {tier: s["capacity"] for tier, s in tagged["slots"].items()} == dict.fromkeys(
        ["1", "2", "3", "4", "5"], 3
    )


# NOTES.md 3.3, through the command a GM types: every number the examples state, the tracks
# and the audit's findings with their seqs.


def ok(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    return result.stdout


def typed(db: Path, level: int, hits: list[int]) -> dict[str, Any]:
    """A fresh encounter with one enemy of `level`, harm of each level in `hits` recorded at
    seqs 3, 4, ...; returns {"tracks": the enemy's tracks, "audit": the findings}."""
    ok(db, "new", "fight", "--system", "ssss")
    ok(db, "add", "fight", "Foe", "--side", "adversary", "--stat", f"level={level}")
    for level_hit in hits:
        ok(db, "record", "fight", "harm.inflicted", "target=Foe", f"level={level_hit}")
    doc = json.loads(ok(db, "tracks", "fight", "--json"))["combatants"]["Foe"]
    result = runner.invoke(cli.app, ["--db", str(db), "audit", "fight", "--json"])
    findings = json.loads(result.stdout)["findings"]
    return {"tracks": doc, "audit": findings, "audit_exit": result.exit_code}


def filled(doc: dict[str, Any]) -> dict[str, int]:
    return {tier: s["filled"] for tier, s in doc["slots"].items()}


def placement(findings: list[dict[str, Any]]) -> list[tuple[tuple[int, ...], str]]:
    """(seqs, message) of each slot-placement finding."""
    return [(tuple(f["seq"]), f["message"]) for f in findings if f["rule"] == "slot-placement"]


def test_notes_example_1_a_level_0_civilian_holds_one_harm_1_and_the_second_defeats(
    db: Path,
) -> None:
    got = typed(db, 0, [1, 1])
    assert (got["tracks"]["status"], filled(got["tracks"])) == ("defeated", {"1": 1})
    assert placement(got["audit"]) == [
        ((4,), "harm 1 on 'Foe' finds no free slot at tier 1 or above: defeated")
    ]
    assert all(f["severity"] == "info" for f in got["audit"] if f["rule"] == "slot-placement")


def test_notes_example_3_a_level_2_enemy_takes_h2_and_six_h1_then_falls(db: Path) -> None:
    # H2 -> tier 2; H1 x3 -> tier 1; the 4th and 5th H1 rise to tier 2; the 6th H1 defeats.
    got = typed(db, 2, [2, 1, 1, 1, 1, 1, 1])
    assert (got["tracks"]["status"], filled(got["tracks"])) == ("defeated", {"1": 3, "2": 3})
    assert got["tracks"]["penalties"] == 2  # tier 1 once, tier 2 once
    assert placement(got["audit"]) == [
        ((7,), "harm 1 on 'Foe' rises to tier 2: no free slot at tier 1"),
        ((8,), "harm 1 on 'Foe' rises to tier 2: no free slot at tier 1"),
        ((9,), "harm 1 on 'Foe' finds no free slot at tier 1 or above: defeated"),
    ]


def test_notes_example_4_a_level_4_boss_survives_h4_absorbs_h1_late_and_falls_to_the_last_h4(
    db: Path,
) -> None:
    # H4, H3 x3, the 4th H3 rises to tier 4, H4 fills tier 4, H1 still fits (reading A), and
    # the last H4 finds no tier 4 slot and no tier 5: defeated.
    got = typed(db, 4, [4, 3, 3, 3, 3, 4, 1])
    assert (got["tracks"]["status"], filled(got["tracks"])) == (
        "active",
        {"1": 1, "2": 0, "3": 3, "4": 3},
    )
    ok(db, "record", "fight", "harm.inflicted", "target=Foe", "level=4")
    doc = json.loads(ok(db, "tracks", "fight", "--json"))["combatants"]["Foe"]
    assert (doc["status"], doc["penalties"]) == ("defeated", 3)
