"""What the statistics read of Ironsworn: the health and spirit a character lost, the foe whose
harm it was, and the exact chances of an action roll (the action die plus stat and adds, capped,
against two challenge dice: 600 outcomes, enumerated)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any, Final

from projections import core
from projections.ironsworn import events as vocab
from projections.ironsworn.model import Character, IronswornRoll, IronswornState, beaten
from projections.odds import Odds

#: The outcomes, best first.
ORDER: Final = ("strong_hit", "weak_hit", "miss")


def hurt(combatant: core.Combatant) -> Mapping[str, int]:
    """A character's health and spirit lost (a foe has no meters)."""
    if not isinstance(combatant, Character):
        return {}
    return {"health": -combatant.health, "spirit": -combatant.spirit}


def dealer(before: IronswornState, event: Any) -> str | None:
    """The foe a harm names."""
    if isinstance(event, vocab.IronswornHarmSuffered) and event.foe in before.combatants:
        return event.foe
    return None


def odds(before: IronswornState, event: Any, roll: core.Roll) -> Odds | None:
    """An action roll's chances of a strong hit, a weak hit and a miss, as its dice gave them
    (before any burn): the action die (cancelled when it equals negative momentum) plus stat
    and adds, capped, must beat each challenge die."""
    if not isinstance(event, vocab.IronswornRollMade) or not isinstance(roll, IronswornRoll):
        return None
    bonus = roll.stat_value + event.adds
    chances = action_odds(bonus, before.house.score_cap, roll.momentum)
    sign = "+" if bonus >= 0 else ""
    return Odds(
        group=f"d6{sign}{bonus}",
        outcome=beaten(roll.score, roll.challenge),
        chances=chances,
        order=ORDER,
    )


@cache
def action_odds(bonus: int, cap: int, momentum: int) -> Mapping[str, Fraction]:
    """The chances of each outcome of an action roll, by enumeration of d6 x d10 x d10."""
    found = dict.fromkeys(ORDER, Fraction(0))
    for die in range(1, 7):
        counted = 0 if momentum < 0 and -momentum == die else die
        score = min(cap, counted + bonus)
        for first in range(1, 11):
            for second in range(1, 11):
                found[beaten(score, (first, second))] += Fraction(1, 600)
    return MappingProxyType(found)
