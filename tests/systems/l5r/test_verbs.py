"""The `damage` verb: a `damage.dealt` event from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.invoke import run

RINGS = 'rings={"air": 2, "earth": 2, "fire": 2, "water": 3, "void": 3}'


def duel(db: Path) -> Path:
    """An l5r encounter with Akodo (endurance 8, 2 Void points, physical resistance 2)."""
    assert run(db, "new", "duel", "--system", "l5r")[0] == 0
    add = ["add", "duel", "Akodo", "--side", "player", "--stat", "resistance.physical=2", "--stat"]
    code, _, err = run(db, *add, RINGS)
    assert (code, err) == (0, "")
    return db


def last_event(db: Path) -> dict[str, object]:
    code, out, _ = run(db, "log", "duel", "--json")
    assert code == 0
    event: dict[str, object] = json.loads(out.splitlines()[-1])
    return event


def test_damage_records_increases_reductions_and_prints_the_fatigue(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    verb = "damage duel Akodo 4 --increase 2 --increase 1 --reduction 1 --deadliness 5"
    code, out, err = run(db, *verb.split(), "--source", "katana")
    assert (code, err) == (0, "")
    assert out == (
        "Recorded seq 3: damage.dealt\n"
        "  Akodo takes 4 physical damage from katana: increased to 7, reductions 1 and "
        "resistance 2 leave 4; Akodo defends with 4 fatigue (fatigue 0 -> 4 of endurance 8)\n"
        "  Akodo fatigue: 0 -> 4\n"
    )
    event = last_event(db)
    assert {k: event[k] for k in ("amount", "increases", "reductions", "deadliness")} == {
        "amount": 4,
        "increases": [2, 1],
        "reductions": [1],
        "deadliness": 5,
    }
    assert (event["damage_type"], event["voluntary_critical"], event["source"]) == (
        "physical",
        False,
        "katana",
    )


def test_supernatural_damage_ignores_physical_resistance(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    code, out, _ = run(db, "damage", "duel", "Akodo", "3", "--type", "supernatural")
    assert (code, out) == (
        0,
        "Recorded seq 3: damage.dealt\n"
        "  Akodo takes 3 supernatural damage; Akodo defends with 3 fatigue (fatigue 0 -> 3 of "
        "endurance 8)\n"
        "  Akodo fatigue: 0 -> 3\n",
    )


def test_a_void_critical_spends_a_void_point(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    code, out, _ = run(db, "damage", "duel", "Akodo", "5", "--deadliness", "6", "--void-critical")
    assert code == 0
    assert "Akodo void points: 2 -> 1" in out


def test_cannot_defend_records_the_gms_flag_and_the_critical_strike(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    code, out, err = run(db, "damage", "duel", "Akodo", "5", "--deadliness", "4", "--cannot-defend")
    assert (code, err) == (0, "")
    assert out == (
        "Recorded seq 3: damage.dealt\n"
        "  Akodo takes 5 physical damage: resistance 2 leaves 3; Akodo cannot defend: a "
        "critical strike at severity 4 (the deadliness), to be resolved\n"
        "  Akodo criticals: - -> @3: 4 (due)\n"
        "info [obligation-open] seq 3: the critical strike on 'Akodo' from the damage at seq 3 "
        "(deadliness 4) is still due: record the severity it ends at (critical.resolved "
        "target=Akodo severity=N damage=3)\n"
    )
    assert last_event(db)["can_defend"] is False
    # Without the flag nothing of it is stored: the event is as it always was.
    assert run(db, "damage", "duel", "Akodo", "1")[0] == 0
    assert "can_defend" not in last_event(db)


def test_a_critical_strike_without_deadliness_is_refused_with_exit_2(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    code, out, err = run(db, "damage", "duel", "Akodo", "5", "--void-critical")
    assert (code, out) == (2, "")
    assert err == (
        "Error: damage.dealt: 3 damage to 'Akodo' becomes a critical strike (a voluntary "
        "critical), and a critical strike needs the source's deadliness: give deadliness\n"
    )


def test_strict_refuses_a_void_critical_that_is_not_allowed(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    assert run(db, "damage", "duel", "Akodo", "11")[0] == 0
    code, _, err = run(
        db, "damage", "duel", "Akodo", "3", "--deadliness", "5", "--void-critical", "--strict"
    )
    assert code == 2
    assert "void-critical-not-allowed" in err


def test_damage_to_an_unknown_target_is_bad_input(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    code, _, err = run(db, "damage", "duel", "Nobody", "3")
    assert code == 2
    assert err.startswith("Error: target 'Nobody' is not in encounter 'duel'")


def test_record_resolves_the_critical_strike_of_the_damage_it_names(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    for args in (["11"], ["4", "--deadliness", "6"], ["4", "--deadliness", "4"]):
        assert run(db, "damage", "duel", "Akodo", *args)[0] == 0
    resolve = "record duel critical.resolved target=Akodo severity=6"
    code, out, err = run(db, *resolve.split(), "damage=5")
    assert (code, err) == (0, "")
    assert out == (
        "Recorded seq 6: critical.resolved\n"
        "  the critical strike on Akodo from the damage at seq 5 (deadliness 4) resolves at "
        "severity 6\n"
        "  Akodo criticals: @4: 6 (due), @5: 4 (due) -> @4: 6 (due), @5: 6 (resolved @6)\n"
        "warning [critical-severity-raised] seq 5, 6: seq 6 resolves the critical strike from "
        "damage seq 5 on 'Akodo' at severity 6, above the source's deadliness 4; severity is "
        "based on the damage source and a Fitness check lowers it\n"
    )
    code, out, err = run(db, *resolve.split(), "damage=3")
    assert (code, out) == (2, "")
    assert err == (
        "Error: critical.resolved names damage seq 3, which left no pending critical strike on "
        "'Akodo' (pending: seq 4 at severity 6)\n"
    )


def test_the_damage_verb_has_help(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path / "e.db", "damage", "--help")
    assert code == 0
    assert "--void-critical" in out
