"""Stones, Scrolls, Swords and Sorcery data: the house rules, enemies' Harm slots, players,
throws and the state, and where a harm lands (`free_tier`, `place`).

The fold (`projections.ssss.fold`) and the words (`projections.ssss.words`) share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import BaseModel, Field

from projections import core
from projections.shown import Readings
from projections.ssss.shown import TRACKS
from projections.values import EMPTY, Hidden


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 5.3)."""

    #: The text's "maximum of 3 Harm slots at each Level"; a table may allow fewer.
    max_per_tier: int = Field(default=3, ge=1, le=3)
    #: "Once their available Level 4 Harm is exhausted, further Harm defeats them": tier 4 only,
    #: and only where it is the top tier (a god's free tier-5 slots still hold harm).
    top_tier_exhaustion_defeats_on_any_harm: bool = False
    penalty_stacking: Literal["per_distinct_tier", "highest_only"] = "per_distinct_tier"
    pc_lethal_harm_level: int = Field(default=4, ge=1, le=10)


@core.value
class Slot(core.Value):
    """One tier of Harm slots."""

    filled: Annotated[int, Field(ge=0)]
    capacity: Annotated[int, Field(ge=0)]

    def check(self) -> None:
        """No more slots filled than the tier has."""
        # A GM override (track.adjusted) cannot fill more slots than the tier has.
        if self.filled > self.capacity:
            raise ValueError(f"{self.filled} filled slots exceed the tier's {self.capacity}")


@core.value
class Enemy(core.Combatant):
    """An enemy's Harm slots by tier, and its penalty count."""

    #: Its Enemy Level, 0-5 as the text has them (a GM override past them is refused).
    level: Annotated[int, Field(ge=0, le=5)]
    slots: Mapping[str, Slot]
    penalties: Annotated[int, Field(ge=0)] = 0
    tags: tuple[str, ...] = ()
    #: Its Attributes, as its stat block gives them (what its Throws use; no track).
    attributes: Hidden[Mapping[str, int]] = EMPTY


@core.value
class Player(core.Combatant):
    """A player: the harm levels recorded against them (after Grit), and the sheet as given.

    Harm at `pc_lethal_harm_level` or above defeats them; Grit that lessens every such injury
    below that level undoes the defeat.
    """

    harm: tuple[int, ...] = ()
    record: Mapping[str, Any] = EMPTY


@core.value
class ThrowRoll(core.Roll):
    """A Throw as entered: the attribute and the harm level it gave."""

    attribute: str | None = None
    harm_level: int | None = None


@core.value
class SsssState(core.State):
    """The encounter with its house rules read once."""

    readings: ClassVar[Readings] = TRACKS

    combatants: Mapping[str, Enemy | Player] = EMPTY
    rolls: Sequence[core.Roll | ThrowRoll] = ()
    house: Rules = Rules()


#: The tier of the text's "Level 4 Harm" (the Level 4 Enemies note).
LEVEL_4_TIER: Final = "4"


def free_tier(enemy: Enemy, level: int) -> int | None:
    """The text's placement: the lowest tier >= `level` with a free slot, or None."""
    for tier in sorted(enemy.slots, key=int):
        slot = enemy.slots[tier]
        if int(tier) >= level and slot.filled < slot.capacity:
            return int(tier)
    return None


def passed(enemy: Enemy, level: int, tier: int) -> tuple[tuple[bool, tuple[int, ...]], ...]:
    """The tiers harm of `level` rose past to land in `tier`, in runs: (has slots, the tiers).
    A tier with slots was full (the harm lands in the lowest free one); the others have none."""
    runs: list[tuple[bool, tuple[int, ...]]] = []
    for t in range(level, tier):
        slot = enemy.slots.get(str(t))
        has = slot is not None and slot.capacity > 0
        if runs and runs[-1][0] == has:
            runs[-1] = (has, (*runs[-1][1], t))
        else:
            runs.append((has, (t,)))
    return tuple(runs)


def level_4_exhausted(enemy: Enemy, rules: Rules) -> bool:
    """Whether the literal reading defeats on any harm: tier 4 is the top tier, and full."""
    if not rules.top_tier_exhaustion_defeats_on_any_harm:
        return False
    top = max((int(t) for t, s in enemy.slots.items() if s.capacity > 0), default=None)
    slot = enemy.slots.get(LEVEL_4_TIER)
    return top == int(LEVEL_4_TIER) and slot is not None and slot.filled >= slot.capacity


def place(enemy: Enemy, level: int, rules: Rules) -> int | None:
    """The tier Harm of `level` lands in, or None (defeated): `free_tier`, unless the house
    rule finds the enemy's Level 4 Harm exhausted."""
    if level_4_exhausted(enemy, rules):
        return None
    return free_tier(enemy, level)


def penalties(slots: Mapping[str, Slot], rules: Rules) -> int:
    held = [t for t, s in slots.items() if s.filled > 0]
    if rules.penalty_stacking == "highest_only":
        return min(1, len(held))
    return len(held)
