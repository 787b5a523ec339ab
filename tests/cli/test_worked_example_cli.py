"""The Silken Blade's worked hits (adversary-resolution.txt), typed at the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli

runner = CliRunner()
BLADE = ["--stat", "resilience=8", "--stat", "fatigue_capacity=3", "--stat", "armor=light"]


def ok(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    assert (result.exit_code, result.stderr) == (0, ""), result.stdout
    return result.stdout


def blade(db: Path) -> tuple[int, int]:
    doc = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Silken Blade"]
    return doc["resilience"], doc["fatigue"]


@pytest.fixture
def duel(db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLUMNS", "100")
    ok(db, "new", "duel", "--system", "fates-edge")
    ok(db, "add", "duel", "Ash", "--side", "player")
    ok(db, "add", "duel", "Silken Blade", "--side", "adversary", *BLADE)
    return db


def strike(db: Path, stake: str, harm: int, dice: str, *hit: str) -> str:
    ok(
        db,
        "lock",
        "duel",
        stake,
        "--actor",
        "Ash",
        "--against",
        "Silken Blade",
        "--target",
        "Silken Blade",
        "--harm",
        str(harm),
    )
    ok(db, "roll", "duel", stake, "--dice", dice)
    return ok(db, "hit", "duel", "Silken Blade", str(harm), "--stake", stake, *hit)


def test_a_harm_2_hit_becomes_1_harm_and_1_fatigue(duel: Path) -> None:
    out = strike(duel, "cut", 2, "10,7,4")
    assert "Silken Blade resilience: 8 -> 7" in out
    assert "Silken Blade fatigue: 0 -> 1" in out
    assert blade(duel) == (7, 1)


def test_a_later_wound_clears_the_old_fatigue_before_adding_its_own(duel: Path) -> None:
    strike(duel, "cut", 2, "10,7,4")
    strike(duel, "again", 2, "9,8,6")
    assert blade(duel) == (6, 1)


def test_three_harm_1_hits_fill_the_track_clear_it_and_remove_1_resilience(duel: Path) -> None:
    assert [blade(duel)] == [(8, 0)]
    strike(duel, "one", 1, "6,6,6")
    assert blade(duel) == (8, 1)
    strike(duel, "two", 1, "7,7,7")
    assert blade(duel) == (8, 2)
    out = strike(duel, "three", 1, "8,8,8")
    assert "Silken Blade resilience: 8 -> 7" in out
    assert blade(duel) == (7, 0)


def test_a_harm_3_backstab_ignores_light_armor_and_clears_fatigue(duel: Path) -> None:
    ok(duel, "fatigue", "duel", "Silken Blade", "2")
    assert blade(duel) == (8, 2)
    strike(duel, "backstab", 3, "10,6,3", "--ignore-armor", "1")
    assert blade(duel) == (5, 0)
    assert runner.invoke(cli.app, ["--db", str(duel), "audit", "duel"]).exit_code == 0
