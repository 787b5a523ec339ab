"""Ironsworn verbs: `endure-harm`, `action-roll` and `oracle` record the same events as `record`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.invoke import ok, run


def last_event(db: Path) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(ok(db, "log", "ambush", "--json").splitlines()[-1])
    return event


@pytest.fixture
def ambush(db: Path) -> Path:
    ok(db, "new", "ambush", "--system", "ironsworn")
    ok(db, "add", "ambush", "Kira", "--side", "player", "--stat", "iron=3", "--stat", "momentum=6")
    ok(db, "add", "ambush", "Chief", "--side", "adversary", "--stat", "rank=formidable")
    return db


def test_endure_harm_from_a_foe_takes_its_rank_off_health(ambush: Path) -> None:
    out = ok(ambush, "endure-harm", "ambush", "Kira", "--foe", "Chief")
    assert out == (
        "Recorded seq 4: harm.suffered\n"
        "  Kira endures 3 harm from Chief (formidable): health 5 -> 2\n"
        "  Kira health: 5 -> 2\n"
    )


def test_endure_harm_with_a_rank_and_an_amount_records_both(ambush: Path) -> None:
    ok(ambush, "endure-harm", "ambush", "Kira", "--rank", "epic", "--amount", "1")
    event = last_event(ambush)
    assert (event["type"], event["amount"], event["rank"]) == ("harm.suffered", 1, "epic")


def test_endure_harm_on_an_unknown_character_is_bad_input(ambush: Path) -> None:
    code, out, err = run(ambush, "endure-harm", "ambush", "Nobody")
    assert (code, out) == (2, "")
    assert err.startswith("Error: target 'Nobody' is not in encounter 'ambush'")


def test_an_action_roll_with_given_dice_shows_its_outcome(ambush: Path) -> None:
    ok(ambush, "endure-harm", "ambush", "Kira", "--rank", "dangerous")
    out = ok(
        ambush,
        "action-roll",
        "ambush",
        "Kira",
        "--stat",
        "iron",
        "--die",
        "1",
        "--challenge",
        "5,5",
    )
    assert out == (
        "Recorded seq 5: roll.made\n"
        "  Kira rolls Endure Harm +iron: d6 1 + iron 3 = score 4 vs 5, 5: miss, a match; "
        "momentum 6 -> 5\n"
        "  Kira momentum: 6 -> 5\n"
    )


def test_an_action_roll_without_dice_rolls_them(ambush: Path) -> None:
    ok(ambush, "action-roll", "ambush", "Kira", "--stat", "wits", "--move", "face_danger")
    event = last_event(ambush)
    assert 1 <= event["action_die"] <= 6
    assert all(1 <= d <= 10 for d in event["challenge"])
    assert event["move"] == "face_danger"


def test_a_claimed_outcome_is_checked(ambush: Path) -> None:
    ok(ambush, "endure-harm", "ambush", "Kira")
    out = ok(
        ambush,
        "action-roll",
        "ambush",
        "Kira",
        "--stat",
        "iron",
        "--die",
        "6",
        "--challenge",
        "2,4",
        "--outcome",
        "miss",
    )
    assert "error [outcome-claim] seq 5" in out


def test_strict_refuses_a_roll_with_the_wrong_stat(ambush: Path) -> None:
    ok(ambush, "endure-harm", "ambush", "Kira", "--amount", "0")
    code, out, err = run(
        ambush,
        "action-roll",
        "ambush",
        "Kira",
        "--stat",
        "iron",
        "--die",
        "2",
        "--challenge",
        "1,1",
        "--strict",
    )
    assert (code, out) == (2, "")
    assert "endure-harm-stat" in err


def test_malformed_challenge_dice_are_bad_input(ambush: Path) -> None:
    code, out, err = run(
        ambush, "action-roll", "ambush", "Kira", "--stat", "iron", "--challenge", "3"
    )
    assert (code, out) == (2, "")
    assert err == "Error: --challenge '3' is not two dice like 3,8\n"


def test_an_out_of_range_die_is_bad_input(ambush: Path) -> None:
    code, _, err = run(
        ambush,
        "action-roll",
        "ambush",
        "Kira",
        "--stat",
        "iron",
        "--die",
        "7",
        "--challenge",
        "3,4",
    )
    assert code == 2
    assert "action_die" in err


def test_the_oracle_after_a_miss_at_zero_health_sets_its_condition(ambush: Path) -> None:
    ok(ambush, "endure-harm", "ambush", "Kira", "--amount", "5")
    miss = ("--stat", "iron", "--die", "1", "--challenge", "5,9")  # health 0: a miss owes
    ok(ambush, "action-roll", "ambush", "Kira", *miss)
    out = ok(ambush, "oracle", "ambush", "Kira", "--roll", "15")
    assert out == (
        "Recorded seq 6: oracle.rolled\n"
        "  Kira rolls 15 on the Endure Harm oracle: dying\n"
        "  Kira conditions: - -> dying\n"
    )


def test_an_oracle_nothing_called_for_sets_its_condition_and_is_warned(ambush: Path) -> None:
    out = ok(ambush, "oracle", "ambush", "Kira", "--roll", "15")
    assert out == (
        "Recorded seq 4: oracle.rolled\n"
        "  Kira rolls 15 on the Endure Harm oracle: dying\n"
        "  Kira conditions: - -> dying\n"
        "warning [oracle-not-owed] seq 4: seq 4 rolls the Endure Harm oracle for 'Kira', "
        "who owes no roll on it (it follows an Endure Harm miss at 0 health); "
        "the ledger keeps its tag: recorded as played: conditions - -> dying\n"
    )


def test_the_oracle_rolls_a_d100_when_none_is_given(ambush: Path) -> None:
    ok(ambush, "oracle", "ambush", "Kira")
    event = last_event(ambush)
    assert (event["table"], 1 <= event["roll"] <= 100) == ("endure_harm", True)


@pytest.mark.parametrize("verb", ["endure-harm", "action-roll", "oracle"])
def test_every_verb_has_help(db: Path, verb: str) -> None:
    code, out, _ = run(db, verb, "--help")
    assert code == 0
    assert "--strict" in out and "--expect" in out


def test_an_amended_roll_is_told_in_words_where_it_changed(ambush: Path) -> None:
    """The amend's own line and its 'Rolls changed' say the roll as the replay does: the
    move, the stat, the score against the challenge dice, the outcome in words."""
    ok(
        ambush,
        "action-roll",
        "ambush",
        "Kira",
        "--using",
        "iron",
        "--die",
        "5",
        "--challenge",
        "2,7",
    )
    out = ok(ambush, "amend", "ambush", "4", "action_die=1", "--reason", "misread")
    lines = out.splitlines()
    assert lines[1] == (
        "  seq 4 corrected to action die 1: misread; its roll is now weak hit (Endure Harm "
        "+iron: score 4 vs 2, 7)"
    )
    assert lines[lines.index("Rolls changed:") + 1] == (
        "  seq 4 (Kira): strong hit (Endure Harm +iron: score 8 vs 2, 7) -> weak hit (Endure "
        "Harm +iron: score 4 vs 2, 7)"
    )


def test_a_track_named_in_two_words_reads_in_words_where_it_changed(ambush: Path) -> None:
    """`max_momentum` is the key (`history --track max_momentum`); a change line says it as
    the event's own words and the tables' headers do."""
    out = ok(ambush, "record", "ambush", "debility.marked", "target=Kira", "debility=wounded")
    assert out.splitlines()[2:4] == [
        "  Kira max momentum: 10 -> 9",
        "  Kira momentum reset: 2 -> 1",
    ]
    assert "  Kira max momentum: 10 -> 9\n" in ok(ambush, "replay", "ambush")
    assert "  Kira max momentum: 10 -> 9" in ok(
        ambush, "history", "ambush", "Kira", "--track", "max_momentum"
    )
