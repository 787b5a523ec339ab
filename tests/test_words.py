"""Events in words (`projections.words.explain`) and game time (`round.started`)."""

from __future__ import annotations

from typing import Any

from projections import steps
from projections.registry import RULESETS
from projections.words import explain
from tests.streams import Fields, fold, stream


def told(system: str, *items: Fields) -> list[str]:
    """The words of every step of a stream, as replay tells them."""
    return [step.text for step in steps.replay(RULESETS, stream(system, *items))]


JOIN_BANDIT: dict[str, Any] = {
    "type": "combatant.joined",
    "name": "Bandit",
    "side": "adversary",
    "stats": {"level": 1},
}


def test_the_common_events_read_as_what_happened() -> None:
    words = told(
        "ssss",
        JOIN_BANDIT,
        {"type": "round.started", "round": 1, "scene": "the ford"},
        {"type": "note", "text": "rain"},
        {"type": "tracks.noted", "target": "Bandit", "values": {"penalties": 1}},
        {
            "type": "track.adjusted",
            "target": "Bandit",
            "track": "penalties",
            "value": 1,
            "reason": "the sheet",
        },
        {"type": "combatant.left", "name": "Bandit", "manner": "fled", "note": "into the reeds"},
        {"type": "scene.ended"},
    )
    assert words[1:] == [
        "Bandit joins as an adversary: a level-1 enemy, slots T1 0/3",
        "round 1 begins (scene the ford)",
        "note: rain",
        "the sheet shows Bandit at penalties 1 (the ledger has penalties 0)",
        "the GM sets Bandit's penalties to 1 (was 0): the sheet",
        "Bandit flees (into the reeds)",
        "the scene ends",
    ]


def test_an_undo_reads_as_the_seq_it_undid_and_why() -> None:
    records = stream(
        "ssss",
        JOIN_BANDIT,
        {"type": "harm.inflicted", "target": "Bandit", "level": 1},
        {"type": "event.retracted", "target": 3, "reason": "wrong target"},
    )
    before, after = fold(records, at=3), fold(records)
    assert explain(before, 4, records[3].event, after) == "seq 3 undone: wrong target"


def test_a_redo_reads_as_the_undo_it_reversed() -> None:
    assert told(
        "ssss",
        JOIN_BANDIT,
        {"type": "note", "text": "x"},
        {"type": "event.retracted", "target": 3, "reason": "oops"},
        {"type": "event.retracted", "target": 4, "reason": "redo", "kind": "redo"},
    )[-1] == ("the undo at seq 4 is reversed: what it undid counts again")


def test_later_events_carry_the_round_and_scene_of_the_latest_round_started() -> None:
    walked = list(
        steps.replay(
            RULESETS,
            stream(
                "ssss",
                JOIN_BANDIT,
                {"type": "round.started", "round": 1, "scene": 2},
                {"type": "note", "text": "a"},
                {"type": "round.started", "round": 2},
                {"type": "note", "text": "b", "round": 7},
                {"type": "note", "text": "c"},
            ),
        )
    )
    assert [(s.record.seq, s.round, s.scene) for s in walked] == [
        (1, None, None),
        (2, None, None),
        (3, 1, 2),
        (4, 1, 2),
        (5, 2, 2),
        (6, 7, 2),
        (7, 2, 2),
    ]
    assert walked[-1].document()["round"] == 2
    assert walked[-1].document()["text"] == "note: c"
