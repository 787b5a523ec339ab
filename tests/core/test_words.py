"""Events in words (`projections.words.explain`) and game time (`round.started`)."""

from __future__ import annotations

from typing import Any

from projections import replay as steps
from projections.words import explain
from tests.streams import RULESETS, Fields, fold, stream


def told(system: str, *items: Fields) -> list[str]:
    """The words of every step of a stream, as `replay --as-played` tells them (each ruling a
    step of its own)."""
    records = stream(system, *items)
    played = steps.as_played(RULESETS[system], records, lambda a, b: records[a:b])
    return [step.text for step in played]


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
    told = explain(RULESETS["ssss"], before, 4, records[3].event, after)
    assert told == "seq 3 undone: wrong target"


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
            RULESETS["ssss"],
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


KAEDE: dict[str, Any] = {
    "type": "combatant.joined",
    "name": "Kaede",
    "side": "player",
    "stats": {
        "rings": {"air": 2, "earth": 1, "fire": 1, "water": 2, "void": 2},
        "resistance": {"physical": 1},
    },
}


def test_every_l5r_event_reads_in_words() -> None:
    words = told(
        "l5r",
        KAEDE,
        {"type": "damage.dealt", "target": "Kaede", "amount": 4},
        {"type": "damage.dealt", "target": "Kaede", "amount": 3},
        {"type": "damage.dealt", "target": "Kaede", "amount": 1},
        {"type": "damage.dealt", "target": "Kaede", "amount": 5, "deadliness": 5},
        {"type": "critical.resolved", "target": "Kaede", "severity": 3, "fitness_successes": 2},
        {"type": "fatigue.removed", "target": "Kaede", "amount": 2, "cause": "medicine"},
        {"type": "rest.taken", "target": "Kaede"},
        {"type": "void.spent", "target": "Kaede", "amount": 1},
        {"type": "void.gained", "target": "Kaede", "amount": 3},
        {"type": "scene.ended"},
        {"type": "roll.made", "actor": "Kaede", "outcome": "success"},
    )
    assert words[1:] == [
        "Kaede joins as a player: rings air 2, earth 1, fire 1, water 2, void 2; endurance 4, "
        "1 Void point, resistance physical 1",
        "Kaede takes 4 physical damage: resistance 1 leaves 3; Kaede defends with 3 fatigue "
        "(fatigue 0 -> 3 of endurance 4)",
        "Kaede takes 3 physical damage: resistance 1 leaves 2; Kaede defends with 2 fatigue "
        "(fatigue 3 -> 5 of endurance 4): Incapacitated",
        "Kaede takes 1 physical damage: resistance 1 reduces it to 0: the blow glances off",
        "Kaede takes 5 physical damage: resistance 1 leaves 4; Kaede is Incapacitated and "
        "cannot defend: a critical strike at severity 5 (the deadliness), to be resolved; Kaede "
        "falls Unconscious",
        "the critical strike on Kaede from the damage at seq 6 (deadliness 5) resolves at "
        "severity 3 after 2 Fitness successes",
        "Kaede recovers 2 fatigue (medicine): fatigue 5 -> 3, no longer Incapacitated, no longer "
        "Unconscious",
        "Kaede rests: twice Water 2 heals 4 fatigue: fatigue 3 -> 0",
        "Kaede spends 1 Void point: Void points 1 -> 0",
        "Kaede gains 3 Void points: Void points 0 -> 2 (capped at the Void ring, 2)",
        "the scene ends: fatigue above half endurance falls to it",
        "Kaede rolls: success",
    ]


def test_l5r_words_keep_what_was_asked_of_a_blow_that_came_to_nothing() -> None:
    """A critical strike chosen on damage that comes to 0 does not happen (no damage, no
    defense, no critical strike), and a direct one keeps its Fitness successes."""
    words = told(
        "l5r",
        KAEDE,
        {"type": "damage.dealt", "target": "Kaede", "amount": 1, "voluntary_critical": True},
        {"type": "critical.resolved", "target": "Kaede", "severity": 2, "fitness_successes": 2},
    )
    assert words[2:] == [
        "Kaede takes 1 physical damage: resistance 1 reduces it to 0: the blow glances off; no "
        "critical strike, though one was chosen",
        "Kaede suffers a direct critical strike at severity 2 after 2 Fitness successes",
    ]


def test_every_ironsworn_event_reads_in_words() -> None:
    words = told(
        "ironsworn",
        {"type": "combatant.joined", "name": "Kai", "side": "player", "stats": {"health": 1}},
        {
            "type": "combatant.joined",
            "name": "Chief",
            "side": "adversary",
            "stats": {"rank": "formidable"},
        },
        {"type": "harm.suffered", "target": "Kai", "foe": "Chief"},
        {"type": "roll.made", "actor": "Kai", "stat": "iron", "action_die": 1, "challenge": [5, 9]},
        {"type": "meter.changed", "target": "Kai", "meter": "momentum", "amount": 5},
        {"type": "roll.made", "actor": "Kai", "stat": "iron", "action_die": 4, "challenge": [5, 9]},
        {"type": "momentum.burned", "target": "Kai", "roll": 7},
        {"type": "oracle.rolled", "target": "Kai", "roll": 42},
        {"type": "debility.marked", "target": "Kai", "debility": "wounded"},
        {"type": "choice.made", "target": "Kai", "option": "shake_it_off"},
        {"type": "choice.made", "target": "Kai", "option": "embrace_the_pain"},
        {"type": "debility.cleared", "target": "Kai", "debility": "wounded"},
    )
    assert words[1:] == [
        "Kai joins as a player: edge 1, heart 1, iron 1, shadow 1, wits 1; health 1, spirit 5, "
        "supply 5, momentum 2 (max 10, reset 2)",
        "Chief joins as an adversary: a formidable foe",
        "Kai endures 3 harm from Chief (formidable): health 1 -> 0, momentum 2 -> 0 (2 past zero)",
        "Kai rolls Endure Harm +iron: d6 1 + iron 1 = score 2 vs 5, 9: miss; momentum 0 -> -1",
        "Kai's momentum +5: momentum -1 -> 4",
        "Kai rolls Endure Harm +iron: d6 4 + iron 1 = score 5 vs 5, 9: miss; momentum 4 -> 3",
        "Kai burns momentum 4 on the roll at seq 7: miss -> miss: momentum 3 -> 1",
        "Kai rolls 42 on the Endure Harm oracle: reeling",
        "Kai marks wounded: max momentum 10 -> 9, momentum reset 2 -> 1, debilities none -> "
        "wounded",
        "Kai shakes it off: wounded, health cannot rise, so momentum is kept",
        "Kai embraces the pain: momentum 1 -> 2",
        "Kai clears wounded: max momentum 9 -> 10, momentum reset 1 -> 2, debilities wounded -> "
        "none",
    ]
