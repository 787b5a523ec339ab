"""Game time on the command line: `round`, `--round/--scene/--by`, `tracks --round`,
`replay --round`, the log's round column, and `replay --step` under a pseudo-terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest
from freezegun import freeze_time

from tests import paths
from tests.cli.invoke import ok, run

ROOT = paths.ROOT


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def rounds(db: Path) -> Path:
    """A bandit fight over two rounds of scene 'ford': seqs 4-5 in round 1, 7-8 in round 2."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "ssss")
        ok(db, "add", "ford", "Bandit", "--side", "adversary", "--stat", "level=2")
        ok(db, "round", "ford", "1", "--scene", "ford", "--by", "gm")
        ok(db, "harm", "ford", "Bandit", "1")
        ok(db, "harm", "ford", "Bandit", "1", "--by", "Ash")
        ok(db, "round", "ford", "2")
        ok(db, "harm", "ford", "Bandit", "2")
        ok(db, "harm", "ford", "Bandit", "1", "--round", "2", "--scene", "ford")
    return db


def test_round_starts_a_round_and_later_events_carry_it(db: Path) -> None:
    ok(db, "new", "ford", "--system", "ssss")
    assert ok(db, "round", "ford", "1", "--scene", "the ford") == (
        "Recorded seq 2: round.started\n  round 1 begins (scene the ford)\n"
    )
    assert ok(db, "record", "ford", "note", "text=rain", "--by", "Ash", "--json") != ""
    [step] = [json.loads(x) for x in ok(db, "replay", "ford", "--from", "3", "--json").splitlines()]
    assert (step["round"], step["scene"], step["event"]) == (
        1,
        "the ford",
        {"text": "rain", "by": "Ash"},
    )


def test_every_recording_verb_takes_round_scene_and_by(rounds: Path) -> None:
    stored = [json.loads(x) for x in ok(rounds, "log", "ford", "--json").splitlines()]
    assert [(e["seq"], e.get("round"), e.get("scene"), e.get("by")) for e in stored[2:]] == [
        (3, 1, "ford", "gm"),
        (4, None, None, None),
        (5, None, None, "Ash"),
        (6, 2, None, None),
        (7, None, None, None),
        (8, 2, "ford", None),
    ]
    assert run(rounds, "record", "ford", "round.started", "round=3", "--round", "3")[::2] == (
        2,
        "Error: round.started takes its round as the field round=N, not --round\n",
    )
    assert run(rounds, "record", "ford", "note", "text=x", "round=2", "--round", "3")[::2] == (
        2,
        "Error: --round 3 and the field round=2 disagree\n",
    )
    assert run(rounds, "round", "ford", "-1")[0] == 2
    assert run(rounds, "harm", "ford", "Bandit", "1", "--scene", " ")[::2] == (
        2,
        "Error: --scene takes a scene's name or number, not an empty text\n",
    )


def test_undo_redo_and_amend_take_round_scene_and_by_too(rounds: Path) -> None:
    ok(rounds, "undo", "ford", "8", "--reason", "wrong target", "--by", "gm", "--round", "3")
    ok(rounds, "redo", "ford", "--by", "Kim", "--scene", "bridge")
    ok(rounds, "amend", "ford", "7", "level=1", "--reason", "a glancing blow", "--by", "gm")
    ok(rounds, "undo", "ford", "8", "--reason", "dry", "--dry-run", "--by", "gm")
    stored = [json.loads(x) for x in ok(rounds, "log", "ford", "--json").splitlines()]
    assert [
        (e["seq"], e["type"], e.get("round"), e.get("scene"), e.get("by")) for e in stored[8:]
    ] == [
        (9, "event.retracted", 3, None, "gm"),
        (10, "event.retracted", None, "bridge", "Kim"),
        (11, "event.corrected", None, None, "gm"),
    ]
    assert run(rounds, "undo", "ford", "--reason", "x", "--round", "-1")[0] == 2
    assert len(ok(rounds, "log", "ford", "--json").splitlines()) == 11


def test_replay_shows_the_round_and_scene_of_each_event_and_one_round_alone(rounds: Path) -> None:
    assert ok(rounds, "replay", "ford", "--round", "2") == (
        "seq 6 (round 2, scene ford): round 2 begins\n"
        "seq 7 (round 2, scene ford): Bandit takes level-2 harm in a level-2 slot (1/3 filled); "
        "penalties 1 -> 2\n"
        "  Bandit slots: T1:2/3 T2:0/3 -> T1:2/3 T2:1/3\n"
        "  Bandit penalties: 1 -> 2\n"
        "seq 8 (round 2, scene ford): Bandit takes level-1 harm in a level-1 slot (3/3 filled)\n"
        "  Bandit slots: T1:2/3 T2:1/3 -> T1:3/3 T2:1/3\n"
    )
    assert run(rounds, "replay", "ford", "--round", "5")[::2] == (
        2,
        "Error: no effective event of encounter 'ford' is in round 5 (rounds: 1, 2; 0 is the "
        "set-up)\n",
    )


def test_replay_of_round_0_is_the_set_up_that_tracks_round_0_ends(rounds: Path) -> None:
    told = ok(rounds, "replay", "ford", "--round", "0")
    assert [line.split(":")[0] for line in told.splitlines() if line.startswith("seq")] == [
        "seq 1",
        "seq 2",
    ]
    assert json.loads(ok(rounds, "tracks", "ford", "--round", "0", "--json"))["seq"] == 2


def test_replay_of_a_round_outside_from_and_to_says_the_round_is_elsewhere(rounds: Path) -> None:
    """Round 1 has effective events, only not in seqs 6-8: the refusal says where it looked,
    and which rounds it found there, never that the round is empty."""
    assert run(rounds, "replay", "ford", "--round", "1", "--from", "6")[::2] == (
        2,
        "Error: no effective event of encounter 'ford' in seqs 6-8 is in round 1 "
        "(rounds there: 2)\n",
    )
    assert run(rounds, "replay", "ford", "--round", "2", "--as-played", "--to", "3")[::2] == (
        2,
        "Error: no event of encounter 'ford' in seqs 1-3 is in round 2 (rounds there: 1)\n",
    )


def test_tracks_at_the_end_of_a_round(rounds: Path) -> None:
    doc = json.loads(ok(rounds, "tracks", "ford", "--round", "1", "--json"))
    assert (doc["seq"], doc["combatants"]["Bandit"]["slots"]["1"]["filled"]) == (5, 2)
    assert ok(rounds, "tracks", "ford", "--round", "1", "--plain").splitlines()[0] == (
        "ford (ssss) at seq 5, round 1, scene ford"
    )
    assert json.loads(ok(rounds, "tracks", "ford", "--round", "2", "--json"))["seq"] == 8
    code, _, err = run(rounds, "tracks", "ford", "--round", "3")
    assert (code, err) == (
        2,
        "Error: no effective event of encounter 'ford' is in round 3 (rounds: 1, 2; 0 is the "
        "set-up)\n",
    )
    assert run(rounds, "tracks", "ford", "--round", "1", "--at", "4")[::2] == (
        2,
        "Error: --round (the end of a round) does not combine with --at or --without\n",
    )


def test_the_end_of_a_round_whose_last_event_came_late_is_headed_by_that_round(
    rounds: Path,
) -> None:
    ok(rounds, "harm", "ford", "Bandit", "1", "--round", "1")  # seq 9, recorded in round 2
    assert json.loads(ok(rounds, "tracks", "ford", "--round", "1", "--json"))["seq"] == 9
    assert ok(rounds, "tracks", "ford", "--round", "1", "--plain").splitlines()[0] == (
        "ford (ssss) at seq 9, round 1, scene ford"
    )
    assert ok(rounds, "tracks", "ford", "--plain").splitlines()[0] == (
        "ford (ssss) at seq 9, round 2, scene ford"
    )


def test_an_undone_round_started_stamps_nothing(rounds: Path) -> None:
    ok(rounds, "undo", "ford", "6", "--reason", "still round 1")
    doc = json.loads(ok(rounds, "tracks", "ford", "--round", "1", "--json"))
    assert doc["seq"] == 7  # seq 7 is in round 1 now; seq 8 names round 2 itself
    assert json.loads(ok(rounds, "tracks", "ford", "--round", "2", "--json"))["seq"] == 8


def test_the_log_shows_round_and_scene_columns_when_the_encounter_has_game_time(
    rounds: Path,
) -> None:
    lines = ok(rounds, "log", "ford", "--plain").splitlines()
    assert lines[0] == "seq\trecorded_at\tround\tscene\ttype\tdetails"
    assert lines[4].split("\t")[:5] == [
        "4",
        "2026-11-29T20:00:00.000000Z",
        "1",
        "ford",
        "harm.inflicted",
    ]
    assert lines[1].split("\t")[2:4] == ["-", "-"]


def test_replay_step_refuses_when_stdin_is_not_a_terminal(rounds: Path) -> None:
    code, out, err = run(rounds, "replay", "ford", "--step")
    assert (code, out, err) == (
        2,
        "",
        "Error: replay --step reads Enter from a terminal; standard input is not one\n",
    )


def _spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1"}
    return pexpect.spawn(
        sys.executable, ["-m", "ledger", *args], env=env, encoding="utf-8", timeout=60
    )


@pytest.mark.slow
def test_replay_step_waits_for_enter_and_q_quits_under_a_terminal() -> None:
    example = str(ROOT / "examples" / "ssss-bandits.jsonl")
    child = _spawn("replay", example, "--step")
    child.expect_exact("seq 1: encounter 'ssss-bandits' opens")
    child.expect_exact("-- 1/")
    assert "seq 2:" not in child.before
    child.sendline("")
    child.expect_exact("seq 2: Ash joins as a player")
    child.expect_exact("-- 2/")
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert "seq 3:" not in child.before
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_replay_step_of_one_round_reads_to_the_end() -> None:
    example = str(ROOT / "examples" / "ssss-bandits.jsonl")
    child = _spawn("replay", example, "--step", "--round", "1", "--to", "9")
    child.expect_exact("seq 7 (round 1): note")
    for _ in range(2):
        child.expect_exact("Enter for the next event")
        child.sendline("")
    child.expect_exact("seq 9 (round 1): Bandit Thug takes level-1 harm")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
