"""Ironsworn in words: conditions as the rules text names them, and a loss momentum's floor
cannot take, wherever a reader meets them (replay, tracks, the report); `--json` keeps the keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from projections import replay as steps
from projections.ironsworn.shown import move_name
from tests import paths
from tests.cli.invoke import ok
from tests.streams import RULESETS, audit, stream

Event = dict[str, Any]

KIRA: Event = {
    "type": "combatant.joined",
    "name": "Kira",
    "side": "player",
    "stats": {"iron": 3, "health": 1, "momentum": -4},
}


def harm(amount: int) -> Event:
    """Kira suffers `amount` harm."""
    return {"type": "harm.suffered", "target": "Kira", "amount": amount}


def roll(die: int, challenge: tuple[int, int]) -> Event:
    """Kira rolls Endure Harm +iron."""
    return {
        "type": "roll.made",
        "actor": "Kira",
        "move": "endure_harm",
        "stat": "iron",
        "action_die": die,
        "challenge": list(challenge),
    }


def oracle(result: int) -> Event:
    """Kira rolls on the Endure Harm oracle."""
    return {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": result}


def said(*items: Event) -> list[str]:
    """The words `replay` prints for each event after the set-up."""
    records = stream("ironsworn", KIRA, *items)
    return [step.text for step in steps.replay(RULESETS["ironsworn"], records)][2:]


def test_a_setback_and_an_oracle_result_read_as_the_rules_name_them() -> None:
    # 1 health, momentum -4: 4 harm takes 1 health and 3 momentum, past the floor of -6.
    told = said(harm(4), roll(1, (9, 9)), oracle(5))
    assert told[0] == (
        "Kira endures 4 harm: health 1 -> 0, momentum -4 -> -6, conditions none -> Face a "
        "Setback (3 past zero; -1 momentum not taken: momentum is at its floor, -6)"
    )
    assert told[1].endswith(": miss, a match (-1 momentum not taken: momentum is at its floor, -6)")
    assert told[2] == "Kira rolls 5 on the Endure Harm oracle: Face Death"


def test_a_miss_at_momentum_minus_6_says_the_minus_1_it_could_not_take() -> None:
    # 3 harm on 1 health: momentum -4 -> -6 exactly, no setback yet; the miss's -1 is one.
    told = said(harm(3), roll(1, (9, 9)))
    assert told[-1] == (
        "Kira rolls Endure Harm +iron: d6 1 + iron 3 = score 4 vs 9, 9: miss, a match; "
        "conditions none -> Face a Setback (-1 momentum not taken: momentum is at its floor, -6)"
    )


def test_a_momentum_loss_past_the_floor_says_what_it_could_not_take() -> None:
    lost = {"type": "meter.changed", "target": "Kira", "meter": "momentum", "amount": -3}
    assert said(lost, lost) == [
        "Kira's momentum -3: momentum -4 -> -6, conditions none -> Face a Setback "
        "(-1 momentum not taken: momentum is at its floor, -6)",
        "Kira's momentum -3: no change (-3 momentum not taken: momentum is at its floor, -6)",
    ]


def test_a_miss_above_the_floor_reads_as_before() -> None:
    assert said(roll(1, (9, 9)))[-1] == (
        "Kira rolls Endure Harm +iron: d6 1 + iron 3 = score 4 vs 9, 9: miss, a match; "
        "momentum -4 -> -5"
    )


def test_an_audit_message_names_the_strong_hit_choice_in_words() -> None:
    choice = {"type": "choice.made", "target": "Kira", "option": "shake_it_off"}
    [found] = [f for f in audit(stream("ironsworn", KIRA, choice)) if f.seq == (3,)]
    assert found.message.startswith("shake it off at seq 3: 'Kira' has made no roll")


def _example(db: Path) -> None:
    ok(db, "import", str(paths.EXAMPLES / "ironsworn-ambush.jsonl"))


def test_the_tracks_table_the_replay_and_the_session_log_name_conditions_in_words(
    db: Path,
) -> None:
    _example(db)
    table = ok(db, "tracks", "ironsworn-ambush")
    assert "Face a Setback, reeling" in table
    replayed = ok(db, "replay", "ironsworn-ambush")
    assert "conditions: - -> Face a Setback\n" in replayed
    assert "conditions: Face a Setback -> Face a Setback, reeling\n" in replayed
    log = ok(db, "export", "ironsworn-ambush", "--format", "md")
    assert "| Face a Setback, reeling |" in log
    assert "face_a_setback" not in table + replayed + log


def test_tracks_json_keeps_the_condition_keys(db: Path) -> None:
    _example(db)
    document = json.loads(ok(db, "tracks", "ironsworn-ambush", "--json"))
    assert document["combatants"]["Kira"]["conditions"] == ["face_a_setback", "reeling"]


def test_an_outcome_claim_names_both_outcomes_in_words() -> None:
    claimed = {**roll(6, (2, 9)), "outcome": "strong_hit"}
    [found] = [f for f in audit(stream("ironsworn", KIRA, claimed)) if f.rule == "outcome-claim"]
    assert found.message == (
        "roll at seq 3 was recorded as a strong hit, but the rules give a weak hit"
    )


def test_a_move_reads_as_the_rules_text_names_it() -> None:
    assert [
        move_name(key)
        for key in ("endure_harm", "secure_an_advantage", "face_danger", "Endure Harm", "strike")
    ] == ["Endure Harm", "Secure an Advantage", "Face Danger", "Endure Harm", "Strike"]
