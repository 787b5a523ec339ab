"""The chances the dice give a roll, exactly: what a ruleset answers for `Ruleset.odds`, so that
the statistics set the outcomes a table rolled beside the outcomes its dice make likely ("was it
really a bad dice night?"). Fractions, never floats: enumerations and convolutions of small
dice are exact."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Odds:
    """One roll's chances: `group` names the rolls alike in their odds (`3d10`, `d6+3`);
    `outcome` is what the dice gave (before anything changed it, as a momentum burn does);
    `chances` the probability of each outcome (read-only: a `MappingProxyType`); `measure` a
    number the dice make, with the value rolled and the value expected (`successes`: 2
    rolled, 1.8 expected)."""

    group: str
    outcome: str
    chances: Mapping[str, Fraction]
    measure: str | None = None
    value: int | None = None
    expected: Fraction | None = None
    #: The order the outcomes are told in, best first.
    order: tuple[str, ...] = field(default=())


def distribution(faces: Mapping[int, Fraction], dice: int) -> dict[int, Fraction]:
    """The distribution of the sum over `dice` dice, each of which gives a number with the
    chance `faces` says (a convolution)."""
    total = {0: Fraction(1)}
    for _ in range(dice):
        step: dict[int, Fraction] = {}
        for have, p in total.items():
            for add, q in faces.items():
                step[have + add] = step.get(have + add, Fraction(0)) + p * q
        total = step
    return total


def tally(outcomes: Iterable[str]) -> dict[str, int]:
    """How many times each outcome came up, in the order first seen."""
    found: dict[str, int] = {}
    for outcome in outcomes:
        found[outcome] = found.get(outcome, 0) + 1
    return found
