"""Every word the four systems can say, checked for the grammar players read (#24): articles
(`an extreme blow`, not `a extreme`), plurals (`1 Void point`, `2 Void points`), and Fatigue
and Harm as the rules count them (`1 Fatigue`, `2 Fatigue`: never `Fatigues`).

The corpus is every step of every shipped example (as corrected and as played), their audits
and session logs, and streams that give each system's events one and several of a thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

import ledger
from ledger.report import build
from ledger.report import markdown as markdown_report
from projections import replay as steps
from tests import paths
from tests.streams import RULESETS, Fields, audit, stream

#: Nouns counted in words, singular and plural.
NOUNS = {
    "point": "points",
    "Void point": "Void points",
    "success": "successes",
    "slot": "slots",
    "step": "steps",
    "armor step": "armor steps",
    "debility": "debilities",
    "event": "events",
    "finding": "findings",
    "error": "errors",
    "warning": "warnings",
    "note": "notes",
    "ruling": "rulings",
    "change": "changes",
    "phase": "phases",
    "house rule": "house rules",
    "critical strike": "critical strikes",
}
#: Counted as the rules count them: never with a plural s.
MASS = ("Fatigue", "Harm", "SB", "harm", "fatigue", "momentum")

_VOWEL_A = re.compile(r"\b[Aa] (?!one\b|once\b|use|uni|ur)[aeiouAEIOU]\w*")
_CONSONANT_AN = re.compile(r"\b[Aa]n (?!SB\b|l5r\b|ssss\b|hour)[b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w*")


def _one_many() -> Iterator[tuple[re.Pattern[str], str]]:
    for one, many in NOUNS.items():
        yield re.compile(rf"(?<![\d.-])\b1 {re.escape(many)}\b"), f"1 {many}"
        yield re.compile(rf"(?<![\d.-])\b(?:[02-9]|\d\d+) {re.escape(one)}\b(?!s)"), f"N {one}"
    for mass in MASS:
        yield re.compile(rf"\b{mass}s\b"), f"{mass}s"
    yield re.compile(r"\(s\)"), "(s)"


PLURALS = list(_one_many())


def problems(text: str) -> list[str]:
    """What is wrong with the grammar of one text."""
    found = [f"'a' before a vowel: {m.group(0)!r}" for m in _VOWEL_A.finditer(text)]
    found += [f"'an' before a consonant: {m.group(0)!r}" for m in _CONSONANT_AN.finditer(text)]
    found += [f"{why}: {m.group(0)!r}" for pattern, why in PLURALS for m in pattern.finditer(text)]
    return found


def test_the_checks_catch_what_they_name() -> None:
    assert problems("Chief joins as an adversary: a extreme foe") == [
        "'a' before a vowel: 'a extreme'"
    ]
    assert problems("spends 1 Void points, then 2 Void point") == [
        "1 Void points: '1 Void points'",
        "N Void point: '2 Void point'",
    ]
    assert problems("marks 2 Fatigues; 1 error(s)") == ["Fatigues: 'Fatigues'", "(s): '(s)'"]
    assert problems("an extreme blow, a dangerous foe, an SB, 1 Fatigue, 2 Fatigue") == []


def example_words() -> Iterator[tuple[str, str]]:
    """(where, text) for everything the shipped examples say."""
    for path in sorted(paths.EXAMPLES.glob("*.jsonl")):
        book, name = ledger.load(path)
        with book:
            for step in book.replay(name):
                yield f"{path.stem} seq {step.record.seq}", step.text
            for step in book.replay(name, as_played=True):
                yield f"{path.stem} as played seq {step.record.seq}", step.text
            for finding in book.audit(name):
                yield f"{path.stem} {finding.rule}", finding.message
            for who in book.tracks(name).combatants:
                for step in book.history(name, who):
                    yield f"{path.stem} history {who}", step.text
            yield f"{path.stem} session log", markdown_report.session_log(build(book, name))


def join(name: str, side: str, **stats: Any) -> Fields:
    return {"type": "combatant.joined", "name": name, "side": side, "stats": stats}


#: Streams that make each system count one and several of its things.
STREAMS: dict[str, list[tuple[Fields, ...]]] = {
    "fates-edge": [
        (
            join("Ash", "player", armor="heavy", body=2),
            join("Ogre", "adversary", resilience=6, fatigue_capacity=3, armor="light", harm=2),
            {"type": "fatigue.marked", "target": "Ogre", "amount": 1},
            {"type": "fatigue.marked", "target": "Ogre", "amount": 2},
            {"type": "hit.resolved", "target": "Ogre", "harm": 1, "ignore_armor": 1},
            {"type": "hit.resolved", "target": "Ogre", "harm": 3, "ignore_armor": 2},
            {"type": "sb.spent", "amount": 1, "purpose": "attack"},
            {"type": "sb.spent", "amount": 2, "purpose": "shape"},
            {
                "type": "stakes.locked",
                "stake": "parry",
                "actor": "Ash",
                "opposing": "Ogre",
                "kind": "defense",
                "consequence_harm": 2,
            },
            {"type": "roll.made", "stake": "parry", "dice": [1, 2, 6]},
            {"type": "roll.made", "stake": "never", "dice": [10, 10]},
            {"type": "harm.suffered", "target": "Ash", "stake": "parry", "harm": 2},
            {"type": "hit.resolved", "target": "Ash", "harm": 3},
            {"type": "hit.resolved", "target": "Ash", "harm": 3},
            {"type": "fatigue.marked", "target": "Ash", "amount": 2},
            {"type": "hit.resolved", "target": "Ash", "harm": 3},
            {"type": "scene.ended"},
        ),
    ],
    "ironsworn": [
        (
            join("Kira", "player", iron=2, health=3, momentum=6),
            join("Chief", "adversary", rank="extreme"),
            join("Rat", "adversary", rank="troublesome"),
            {"type": "harm.suffered", "target": "Kira", "foe": "Chief"},
            {"type": "harm.suffered", "target": "Kira", "rank": "extreme"},
            {"type": "harm.suffered", "target": "Kira", "rank": "epic"},
            {"type": "harm.suffered", "target": "Kira", "amount": 1},
            {
                "type": "roll.made",
                "actor": "Kira",
                "stat": "iron",
                "action_die": 1,
                "challenge": [5, 9],
            },
            {"type": "momentum.burned", "target": "Kira", "roll": 9},
            {"type": "debility.marked", "target": "Kira", "debility": "wounded"},
            {"type": "debility.marked", "target": "Kira", "debility": "shaken"},
            {"type": "debility.cleared", "target": "Kira", "debility": "shaken"},
            {"type": "oracle.rolled", "target": "Kira", "roll": 1},
            {"type": "meter.changed", "target": "Kira", "meter": "spirit", "amount": -1},
            {"type": "meter.changed", "target": "Kira", "meter": "momentum", "amount": 2},
            {"type": "choice.made", "target": "Kira", "option": "shake_it_off"},
            {"type": "choice.made", "target": "Kira", "option": "embrace_the_pain"},
        ),
    ],
    "ssss": [
        (
            join("Ash", "player", swords=2, grit=2),
            join("Boss", "adversary", level=2, slots={"1": 1, "2": 2}, swords=3),
            join("Rat", "adversary", level=0),
            {
                "type": "throw.made",
                "actor": "Boss",
                "attribute": "swords",
                "outcome": "a cut",
                "harm_level": 2,
                "draw_break": True,
            },
            {"type": "harm.inflicted", "target": "Ash", "level": 2, "throw": 5},
            {"type": "grit.used", "target": "Ash", "from_level": 2, "to_level": 1},
            {"type": "grit.used", "target": "Ash", "from_level": 1, "to_level": 0},
            {"type": "harm.inflicted", "target": "Boss", "level": 1},
            {"type": "harm.inflicted", "target": "Boss", "level": 1},
            {"type": "harm.inflicted", "target": "Boss", "level": 1},
            {"type": "harm.inflicted", "target": "Boss", "level": 2},
            {"type": "harm.inflicted", "target": "Rat", "level": 1},
            {"type": "harm.inflicted", "target": "Rat", "level": 1},
            {"type": "harm.inflicted", "target": "Ash", "level": 4},
        ),
    ],
    "l5r": [
        (
            join(
                "Akodo",
                "player",
                rings={"air": 2, "earth": 2, "fire": 2, "water": 2, "void": 3},
                void_points=1,
            ),
            {"type": "damage.dealt", "target": "Akodo", "amount": 1},
            {"type": "damage.dealt", "target": "Akodo", "amount": 9, "increases": [1, 2]},
            {"type": "damage.dealt", "target": "Akodo", "amount": 2, "deadliness": 5},
            {"type": "critical.resolved", "target": "Akodo", "severity": 3},
            {"type": "void.spent", "target": "Akodo", "amount": 1},
            {"type": "void.spent", "target": "Akodo", "amount": 2},
            {"type": "void.gained", "target": "Akodo", "amount": 1},
            {"type": "void.gained", "target": "Akodo", "amount": 2},
            {"type": "fatigue.removed", "target": "Akodo", "amount": 1},
            {"type": "fatigue.removed", "target": "Akodo", "amount": 3},
            {"type": "rest.taken", "target": "Akodo"},
            {"type": "critical.resolved", "target": "Akodo", "severity": 2},
            {"type": "scene.ended"},
        ),
    ],
}


def _rereader(records: list[Any]) -> Any:
    """What `as_played` rereads: the stored events after one seq up to another."""
    return lambda after, upto: records[after:upto]


def stream_words() -> Iterator[tuple[str, str]]:
    """(where, text) for every step of the streams above, and their audits."""
    for system, streams in STREAMS.items():
        for items in streams:
            records = stream(system, *items)
            ruleset = RULESETS[system]
            for step in steps.as_played(ruleset, records, _rereader(records)):
                yield f"{system} seq {step.record.seq}", step.text
            for finding in audit(records):
                yield f"{system} {finding.rule}", finding.message


@pytest.mark.parametrize("source", [example_words, stream_words], ids=["examples", "streams"])
def test_every_word_the_systems_say_keeps_articles_and_plurals(source: Any) -> None:
    wrong = [f"{where}: {problem}" for where, text in source() for problem in problems(text)]
    assert wrong == []


def said(system: str, *items: Fields) -> list[str]:
    """The words of every step of a stream (as corrected)."""
    return [step.text for step in steps.replay(RULESETS[system], stream(system, *items))]


def test_a_rank_reads_with_its_article_an_extreme_blow_from_an_extreme_foe() -> None:
    told = said(
        "ironsworn",
        join("Kira", "player", health=5),
        join("Chief", "adversary", rank="extreme"),
        {"type": "harm.suffered", "target": "Kira", "rank": "extreme"},
    )
    assert told[2] == "Chief joins as an adversary: an extreme foe"
    assert told[3] == "Kira endures 4 harm (an extreme blow): health 5 -> 1"


def test_an_adversary_s_fatigue_overflow_reads_as_resilience_it_has_no_harm_track() -> None:
    told = said(
        "fates-edge",
        join("Ogre", "adversary", resilience=6, fatigue_capacity=2),
        {"type": "fatigue.marked", "target": "Ogre", "amount": 2},
    )
    assert told[-1] == (
        "Ogre marks 2 Fatigue: Fatigue overflows (capacity 2): -1 Resilience; Resilience 6 -> 5"
    )


def test_a_player_at_the_last_harm_level_reads_as_the_srd_says_then_dead_past_it() -> None:
    told = said(
        "fates-edge",
        join("Ash", "player"),
        {"type": "hit.resolved", "target": "Ash", "harm": 3},
        {"type": "hit.resolved", "target": "Ash", "harm": 1},
    )
    assert told[-2] == (
        "Ash is hit for Harm 3: no armor: all 3 stays Harm, Harm 3: incapacitated or dying; "
        "Harm 0 -> 3"
    )
    assert (
        told[-1]
        == "Ash is hit for Harm 1: no armor: all 1 stays Harm; Harm 3 -> 4: dead (Harm 4, above 3)"
    )
