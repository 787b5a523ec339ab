"""The statistics of the shipped examples equal figures worked out by hand from their events,
and the chances of a roll equal a brute-force count of its dice's faces."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from ledger import Ledger
from projections.fates_edge import stats as fates_edge_stats
from projections.ironsworn import stats as ironsworn_stats
from projections.statistics import Stats
from tests import paths


@pytest.fixture(scope="module")
def examples() -> Iterator[dict[str, Stats]]:
    with Ledger(":memory:") as ledger:
        found = {}
        for example in sorted(paths.EXAMPLES.glob("*.jsonl")):
            lines = example.read_text(encoding="utf-8").splitlines()
            name = ledger.import_lines(lines, into=example.stem).encounter
            found[name] = ledger.stats(name)
        yield found


def fighters(stats: Stats) -> dict[str, tuple[Any, ...]]:
    return {f.name: (dict(f.taken), dict(f.recovered), dict(f.dealt)) for f in stats.fighters}


def test_fates_edge_damage_counts_resilience_over_every_phase(examples: dict[str, Stats]) -> None:
    stats = examples["fates-edge-ambush"]
    # The Hag: 4 -> 1 (seq 18, Brin), 1 -> phase 2 at 6 (seq 26, Ash: 1 more), 6 -> 1 (seq 31,
    # Brin), 1 -> 0 (seq 43, Brin). The Cutthroat: Fatigue +1 (seq 10), overflow into
    # Resilience 3 -> 2 with Fatigue 1 -> 0 (seq 34), Fatigue +1 (seq 35): all Ash's, 3 marked.
    # Brin's Fatigue: +1 (seq 23), +1 that overflows into Harm (seq 28): 2 marked, 2 cleared.
    # An overflow's reset is no recovery (adversary-resolution.txt: "clear Fatigue").
    assert fighters(stats) == {
        "Ash": ({"fatigue": 1}, {}, {"fatigue": 3, "resilience": 2}),
        "Brin": ({"fatigue": 2, "harm": 1}, {}, {"resilience": 9}),
        "Marsh Hag": ({"resilience": 10}, {}, {"fatigue": 1}),
        "Reed Cutthroat": ({"fatigue": 3, "resilience": 1}, {}, {"fatigue": 1}),
        "Ferryman's Riddle": ({}, {}, {}),
    }
    cleared = {f.name: dict(f.cleared) for f in stats.fighters if f.cleared}
    assert cleared == {"Brin": {"fatigue": 2}, "Reed Cutthroat": {"fatigue": 2}}


def test_fates_edge_rolls_pools_defeats_and_rulings(examples: dict[str, Stats]) -> None:
    stats = examples["fates-edge-ambush"]
    rolls = {r.actor: (r.rolls, dict(r.outcomes)) for r in stats.rollers}
    assert rolls == {
        "Ash": (6, {"success": 3, "partial": 2, "miss": 1}),
        "Brin": (5, {"success": 4, "partial": 1, "miss": 0}),
    }
    brin = next(r for r in stats.rollers if r.actor == "Brin")
    three = next(g for g in brin.groups if g.group == "3d10")
    # 7,8,10 (4) at seq 13, 6,2,4 (1) at 22, 10,10,2 (4) at 30, 9,9,9 (3) at 42.
    assert (three.rolls, three.value, three.expected_value) == (4, 12, Fraction(36, 5))
    assert [(p.pool, p.gained, dict(p.lowered)) for p in stats.pools] == [
        ("sb", 6, {"sb.spent": 4})
    ]
    assert [(d.seq, d.combatant, d.status) for d in stats.defeats] == [
        (43, "Marsh Hag", "defeated"),
        (44, "Reed Cutthroat", "surrendered"),
        (47, "Ferryman's Riddle", "resolved"),
    ]
    assert (dict(stats.rulings), dict(stats.in_force)) == ({"undo": 1}, {"undo": 1})
    assert dict(stats.findings) == {"info": 2, "error": 5, "warning": 1}
    assert dict(stats.dice) == {"ledger": 0, "typed": 11}


def faces_of(pool: int) -> Iterator[tuple[int, ...]]:
    return itertools.product(range(1, 11), repeat=pool)


@pytest.mark.parametrize(("pool", "dv"), [(1, 1), (2, 3), (3, 3), (4, 5)])
def test_fates_edge_chances_equal_a_count_of_every_face(pool: int, dv: int) -> None:
    counted = {"success": 0, "partial": 0, "miss": 0}
    for faces in faces_of(pool):
        hits = sum(2 if f == 10 else 1 if f >= 6 else 0 for f in faces)
        counted["success" if hits >= dv else "partial" if hits else "miss"] += 1
    chances = fates_edge_stats.distribution_chances(pool, dv)
    assert chances == {k: Fraction(n, 10**pool) for k, n in counted.items()}


def test_ironsworn_damage_and_the_foes_who_dealt_it(examples: dict[str, Stats]) -> None:
    stats = examples["ironsworn-ambush"]
    # Health 5 -> 3 (Raider), shake it off 3 -> 4, 4 -> 1 (Chief), 1 -> 0 (Bog Hound); later
    # harm at 0 health goes to momentum, which is not a damage track.
    assert fighters(stats) == {
        "Kira": ({"health": 6}, {"health": 1}, {}),
        "Raider": ({}, {}, {"health": 2}),
        "Raider Chief": ({}, {}, {"health": 3}),
        "Bog Hound": ({}, {}, {"health": 1}),
    }
    by_round = {f.name: dict(f.taken_by_round) for f in stats.fighters}
    assert by_round["Kira"] == {(1, "health"): 2, (3, "health"): 3, (4, "health"): 1}
    assert [(d.round, d.combatant, d.status) for d in stats.defeats] == [(8, "Bog Hound", "fled")]


def action_chances(bonus: int, momentum: int = 2) -> dict[str, Fraction]:
    """Every d6 x d10 x d10 outcome counted, as the rules text scores it."""
    counted = {"strong_hit": 0, "weak_hit": 0, "miss": 0}
    for die, first, second in itertools.product(range(1, 7), range(1, 11), range(1, 11)):
        score = min(10, (0 if momentum < 0 and -momentum == die else die) + bonus)
        beats = (score > first) + (score > second)
        counted[("miss", "weak_hit", "strong_hit")[beats]] += 1
    return {k: Fraction(n, 600) for k, n in counted.items()}


def test_ironsworn_rolls_are_counted_as_their_dice_gave_them_beside_exact_odds(
    examples: dict[str, Stats],
) -> None:
    [kira] = examples["ironsworn-ambush"].rollers
    # Seqs 7 strong, 9 strong, 12 miss (burned to a weak hit at 13), 15 miss, 18 weak,
    # 20 weak, 22 miss. Momentum at each roll: 4, 3, 5, 2, -2, -4, -6.
    assert (kira.rolls, dict(kira.outcomes), kira.changed) == (
        7,
        {"strong_hit": 2, "weak_hit": 2, "miss": 3},
        1,
    )
    rolls = [(3, 4), (2, 3), (3, 5), (3, 2), (0, -2), (3, -4), (3, -6)]
    expected: dict[str, Fraction] = {"strong_hit": Fraction(0), "weak_hit": Fraction(0)}
    expected["miss"] = Fraction(0)
    for bonus, momentum in rolls:
        for outcome, chance in action_chances(bonus, momentum).items():
            expected[outcome] += chance
    assert dict(kira.expected) == expected
    assert ironsworn_stats.action_odds(3, 10, -4) == action_chances(3, -4)


def test_ssss_damage_is_slots_filled_and_harm_levels_dealt_by_the_thrower(
    examples: dict[str, Stats],
) -> None:
    stats = examples["ssss-bandits"]
    # The Thug's one tier fills at seqs 9 (Ash), 16 (Ash), 18 (Wren); seq 20 finds no slot.
    # Grit lessens Ash's level-2 harm to 1 and Wren's level-3 harm to nothing.
    assert fighters(stats) == {
        "Ash": ({"harm": 2}, {"harm": 1}, {"slots": 3}),
        "Wren": ({"harm": 3}, {"harm": 3}, {"slots": 3}),
        "Bandit Chief": ({"slots": 3}, {}, {"harm": 3}),
        "Bandit Thug": ({"slots": 3}, {}, {"harm": 2}),
        "Cutpurse": ({}, {}, {}),
    }
    rolls = {r.actor: (r.rolls, r.with_odds) for r in stats.rollers}
    assert rolls["Ash"] == (4, 0)  # the texts give no odds of a Throw


def test_l5r_damage_is_fatigue_and_critical_strikes(examples: dict[str, Stats]) -> None:
    stats = examples["l5r-duel"]
    # Toshiro: fatigue 0 -> 3 -> 6 -> 11, two critical strikes, rest at the end leaves 1;
    # Kaeru: 0 -> 4 -> 10, one critical strike, 10 -> 5 at the scene's end.
    assert fighters(stats) == {
        "Akodo Toshiro": ({"fatigue": 11, "criticals": 2}, {"fatigue": 10}, {}),
        "Bayushi Kaeru": ({"fatigue": 10, "criticals": 1}, {"fatigue": 5}, {}),
    }
    assert stats.rollers == ()
