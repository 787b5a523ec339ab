"""Fate's Edge verbs: `lock`, `roll`, `hit`, `fatigue`, `spend`, `suffer` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ledger import cli
from tests.cli.invoke import run

runner = CliRunner()
BLADE = ["--stat", "resilience=8", "--stat", "fatigue_capacity=3", "--stat", 'armor="light"']


def duel(tmp_path: Path) -> Path:
    """A Fate's Edge duel: Ash (Light, Body 3) against the Silken Blade (R 8, cap 3, Light)."""
    db = tmp_path / "e.db"
    assert run(db, "new", "duel", "--system", "fates-edge")[0] == 0
    ash = ["add", "duel", "Ash", "--side", "player", "--stat", 'armor="light"', "--stat", "body=3"]
    assert run(db, *ash)[0] == 0
    assert run(db, "add", "duel", "Silken Blade", "--side", "adversary", *BLADE)[0] == 0
    return db


def last_event(db: Path) -> dict[str, object]:
    code, out, _ = run(db, "log", "duel", "--json")
    assert code == 0
    event: dict[str, object] = json.loads(out.splitlines()[-1])
    return event


def attack(db: Path, stake: str = "cut", harm: int = 2) -> None:
    args = [
        "lock",
        "duel",
        stake,
        "--actor",
        "Ash",
        "--against",
        "Silken Blade",
        "--harm",
        str(harm),
    ]
    assert run(db, *args, "--target", "Silken Blade", "--dv", "3")[0] == 0


def test_lock_records_the_stakes_and_prints_the_effective_position(tmp_path: Path) -> None:
    db = duel(tmp_path)
    assert run(db, "fatigue", "duel", "Silken Blade", "1")[0] == 0
    args = ["lock", "duel", "cut", "--actor", "Ash", "--against", "Silken Blade", "--harm", "2"]
    code, out, err = run(db, *args, "--partial-harm", "1", "--partial", "she gives ground")
    assert (code, err) == (0, "")
    assert out == (
        "Recorded seq 5: stakes.locked\n"
        "  Ash locks the stakes of 'cut' against Silken Blade (an action at controlled Position, "
        "DV 3, standard Effect, Harm 2 on a success, on a Partial: Harm 1 and she gives ground); "
        "effective Position dominant (Silken Blade has Fatigue 1)\n"
    )
    event = last_event(db)
    assert (event["harm"], event["partial"], event["position"]) == (
        2,
        {"harm": 1, "text": "she gives ground"},
        "controlled",
    )


def test_roll_with_faces_prints_successes_sb_and_outcome(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    code, out, _ = run(db, "roll", "duel", "cut", "--dice", "10,7,1")
    assert code == 0
    assert out == (
        "Recorded seq 5: roll.made\n"
        "  Ash rolls 10, 7, 1 for 'cut': 3 successes vs DV 3: success, 1 SB (Position "
        "controlled); SB 0 -> 1\n"
        "  pools sb: 0 -> 1\n"
    )


def test_roll_json_is_one_document_with_the_computed_roll_and_nothing_else(
    tmp_path: Path,
) -> None:
    db = duel(tmp_path)
    attack(db)
    code, out, err = run(db, "roll", "duel", "cut", "--dice", "10,7,1", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert (doc["encounter"], doc["seq"]) == ("duel", 5)
    assert [(r["seq"], r["type"], r["dice"]) for r in doc["records"]] == [
        (5, "roll.made", [10, 7, 1])
    ]
    assert doc["rolls"] == [
        {
            "seq": 5,
            "stake": "cut",
            "actor": "Ash",
            "outcome": "success",
            "claimed": None,
            "successes": 3,
            "sb": 1,
            "dv": 3,
            "effective_position": "controlled",
        }
    ]
    assert doc["changes"] == [{"combatant": "pools", "track": "sb", "before": 0, "after": 1}]
    assert doc["findings"] == []


def test_roll_without_faces_rolls_the_pool_and_records_the_faces(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    code, out, _ = run(db, "roll", "duel", "cut", "--pool", "5")
    assert code == 0
    dice = last_event(db)["dice"]
    assert isinstance(dice, list) and len(dice) == 5 and all(1 <= d <= 10 for d in dice)
    assert f"Ash rolls {', '.join(map(str, dice))} for 'cut': " in out


def test_roll_with_neither_faces_nor_pool_is_bad_input(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    code, out, err = run(db, "roll", "duel", "cut")
    assert (code, out) == (2, "")
    assert err == "Error: roll needs --dice FACES (e.g. 6,7,1) or --pool N to roll N d10s\n"


def test_hit_prints_the_tracks_and_the_armor_arithmetic(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "10,7")[0] == 0
    code, out, _ = run(db, "hit", "duel", "Silken Blade", "2", "--stake", "cut")
    assert code == 0
    assert out == (
        "Recorded seq 6: hit.resolved\n"
        "  Ash hits Silken Blade for Harm 2: light armor converts it to 1 Harm + 1 Fatigue; "
        "Resilience 8 -> 7, Fatigue 0 -> 1\n"
        "  Silken Blade resilience: 8 -> 7\n"
        "  Silken Blade fatigue: 0 -> 1\n"
    )


def test_a_wound_that_clears_fatigue_and_marks_it_back_says_where_fatigue_stands(
    tmp_path: Path,
) -> None:
    # The rules text's worked hit: "A later unconverted wound clears that old Fatigue before
    # adding its new armor Fatigue". Fatigue 1 -> 0 -> 1 nets no change, and the line said only
    # that the Harm cleared it, which reads as Fatigue 0.
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "10,7")[0] == 0
    assert run(db, "hit", "duel", "Silken Blade", "2", "--stake", "cut")[0] == 0
    attack(db, stake="wound")
    assert run(db, "roll", "duel", "wound", "--dice", "10,7")[0] == 0
    code, out, _ = run(db, "hit", "duel", "Silken Blade", "2", "--stake", "wound")
    assert code == 0
    assert out == (
        "Recorded seq 9: hit.resolved\n"
        "  Ash hits Silken Blade for Harm 2: light armor converts it to 1 Harm + 1 Fatigue, "
        "the Harm clears the old Fatigue, then the new 1 marks it again (Fatigue 1 -> 0 -> 1); "
        "Resilience 7 -> 6\n"
        "  Silken Blade resilience: 7 -> 6\n"
    )
    doc = json.loads(run(db, "tracks", "duel", "--json")[1])["combatants"]["Silken Blade"]
    assert (doc["resilience"], doc["fatigue"]) == (6, 1)


def test_a_backstab_hit_ignores_armor(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db, harm=3)
    assert run(db, "roll", "duel", "cut", "--dice", "10,7")[0] == 0
    code, out, _ = run(
        db, "hit", "duel", "Silken Blade", "3", "--stake", "cut", "--ignore-armor", "1"
    )
    assert out == (
        "Recorded seq 6: hit.resolved\n"
        "  Ash hits Silken Blade for Harm 3: ignoring 1 armor step, no armor: all 3 stays Harm; "
        "Resilience 8 -> 5\n"
        "  Silken Blade resilience: 8 -> 5\n"
    )
    assert last_event(db)["ignore_armor"] == 1
    code, _, err = run(db, "hit", "duel", "Silken Blade", "3", "--ignore-armor", "lots")
    assert (code, err) == (
        2,
        "Error: --ignore-armor 'lots': give a whole number of armor steps, or 'all'\n",
    )
    code, _, err = run(db, "hit", "duel", "Silken Blade", "3", "--ignore-armor", "-1")
    assert (code, err) == (
        2,
        "Error: --ignore-armor '-1': armor steps ignored cannot be negative (0 ignores none)\n",
    )


def test_fatigue_overflows_once(tmp_path: Path) -> None:
    db = duel(tmp_path)
    code, out, _ = run(db, "fatigue", "duel", "Silken Blade", "4", "--cause", "poison")
    assert (code, out) == (
        0,
        "Recorded seq 4: fatigue.marked\n"
        "  Silken Blade marks 4 Fatigue (poison): Fatigue overflows (capacity 3): -1 Resilience; "
        "Resilience 8 -> 7\n"
        "  Silken Blade resilience: 8 -> 7\n",
    )


def test_spend_flags_sb_that_change_their_own_roll(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "10,7,1")[0] == 0
    code, out, _ = run(db, "spend", "duel", "1", "--for", "shape", "--stake", "cut")
    assert code == 0
    assert out.startswith(
        "Recorded seq 6: sb.spent\n"
        "  the GM spends 1 SB to shape the scene for 'cut'; SB 1 -> 0\n"
        "  pools sb: 1 -> 0\n"
        "error [sb-not-retroactive]"
    )


def test_strict_spend_beyond_the_pool_is_refused(tmp_path: Path) -> None:
    db = duel(tmp_path)
    code, out, err = run(db, "spend", "duel", "2", "--for", "complication", "--strict")
    assert (code, out) == (2, "")
    assert "sb-overspent" in err


def test_a_strict_second_roll_of_a_stake_is_refused_and_the_first_roll_stands(
    tmp_path: Path,
) -> None:
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "2,3")[0] == 0
    code, out, err = run(db, "roll", "duel", "cut", "--dice", "10,9,8", "--strict")
    assert (code, out) == (2, "")
    assert err == (
        "Error: refused (--strict): [stake-rolled-once] seq 6 rolls stake 'cut' again; it was "
        "rolled at seq 5 (0 successes vs DV 3: miss) and that roll stands: one roll resolves "
        "locked stakes\n"
    )
    code, out, _ = run(db, "tracks", "duel", "--json")
    assert [r["outcome"] for r in json.loads(out)["rolls"]] == ["miss"]


def test_a_second_roll_of_a_stake_is_flagged_and_changes_no_pool_or_roll(tmp_path: Path) -> None:
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "2,1")[0] == 0
    code, out, _ = run(db, "roll", "duel", "cut", "--dice", "1,1,1")
    assert (code, out) == (
        0,
        "Recorded seq 6: roll.made\n"
        "  Ash rolls 1, 1, 1 for 'cut' again: the first roll at seq 5 stands, this one changes "
        "nothing\n"
        "error [stake-rolled-once] seq 5, 6: seq 6 rolls stake 'cut' again; it was rolled at seq 5 "
        "(0 successes vs DV 3: miss) and that roll stands: one roll resolves locked stakes\n",
    )
    code, out, _ = run(db, "tracks", "duel", "--json")
    view = json.loads(out)
    assert (view["pools"], [r["seq"] for r in view["rolls"]]) == ({"sb": 1}, [5])


def test_suffer_applies_the_player_procedure(tmp_path: Path) -> None:
    db = duel(tmp_path)
    lock = ["lock", "duel", "stab", "--actor", "Ash", "--against", "Silken Blade"]
    assert run(db, *lock, "--kind", "defense", "--source", "consequence")[0] == 0
    assert run(db, "roll", "duel", "stab", "--dice", "2,3")[0] == 0
    code, out, _ = run(db, "suffer", "duel", "Ash", "2", "--stake", "stab")
    assert (code, out) == (
        0,
        "Recorded seq 6: harm.suffered\n"
        "  Ash suffers Harm 2 for 'stab': light armor converts it to 1 Harm + 1 Fatigue; "
        "Harm 0 -> 1, Fatigue 0 -> 1\n"
        "  Ash harm: 0 -> 1\n"
        "  Ash fatigue: 0 -> 1\n",
    )


def test_every_fates_edge_verb_has_help() -> None:
    for verb in ("lock", "roll", "hit", "fatigue", "spend", "suffer"):
        result = runner.invoke(cli.app, [verb, "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout


def test_history_says_what_a_suffered_consequence_did_to_a_players_fatigue(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    assert run(db, "new", "duel", "--system", "fates-edge")[0] == 0
    ash = ["add", "duel", "Ash", "--side", "player", "--stat", 'armor="medium"', "--stat", "body=1"]
    assert run(db, *ash)[0] == 0
    assert run(db, "add", "duel", "Silken Blade", "--side", "adversary", *BLADE)[0] == 0
    lock = ["lock", "duel", "d1", "--actor", "Ash", "--against", "Silken Blade", "--kind"]
    assert run(db, *lock, "defense", "--consequence-harm", "3")[0] == 0
    assert run(db, "roll", "duel", "d1", "--dice", "2,3")[0] == 0
    assert run(db, "suffer", "duel", "Ash", "3", "--stake", "d1")[0] == 0
    code, out, _ = run(db, "history", "duel", "Ash")
    assert code == 0
    assert "  Ash harm: 0 -> 3 (2 Harm and 1 for the Fatigue overflow)\n" in out
    assert "  Ash fatigue: 0 -> 0 (1 marked, then filled the track and overflowed)\n" in out


def test_amending_a_lock_after_its_roll_shows_the_roll_it_changed(tmp_path: Path) -> None:
    # "Position, DV, Effect, and the announced consequence are fixed when the roll is framed":
    # a GM correcting the lock's DV after the roll (a recording mistake) changes that roll's
    # outcome, and the diff said "No track changed" and nothing of the roll.
    db = duel(tmp_path)
    attack(db)
    assert run(db, "roll", "duel", "cut", "--dice", "10,7")[0] == 0
    code, out, _ = run(db, "amend", "duel", "4", "dv=4", "--reason", "hard resistance")
    assert code == 0
    assert out.splitlines()[2:] == [
        "Downstream: the encounter changes from seq 5 on.",
        "No track changed.",
        "Rolls changed:",
        "  seq 5 (Ash, 'cut'): 3 successes vs DV 3: success, 0 SB (Position controlled) -> "
        "3 successes vs DV 4: partial, 0 SB (Position controlled)",
    ]
    args = ["undo", "duel", "--reason", "it was DV 3", "--dry-run", "--json"]
    code, out, _ = run(db, *args)
    rolls = json.loads(out)["downstream"]["rolls"]
    assert [(r["seq"], r["before"]["outcome"], r["after"]["outcome"]) for r in rolls] == [
        (5, "partial", "success")
    ]
