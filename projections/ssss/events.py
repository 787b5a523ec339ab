"""Stones, Scrolls, Swords and Sorcery events and stat blocks (rules/enemy-harm-slots.txt)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from ledger.events.base import EventBase, Model, Name, Text
from ledger.events.common import RollMade, StakesLocked
from ledger.events.frozen import JsonObject, frozen_object

Attribute = Literal["stones", "scrolls", "swords", "sorcery"]
Tier = Literal["1", "2", "3", "4", "5"]
Level = Annotated[int, Field(ge=0, le=5)]
HarmLevel = Annotated[int, Field(ge=1, le=10)]
#: An Attribute's bonus on a sheet (an Ancient's +5 at most, by the Yorelle expansion).
Bonus = Annotated[int, Field(ge=-10, le=10)]
#: The four Attributes, as a stat block names them.
ATTRIBUTES: tuple[Attribute, ...] = ("stones", "scrolls", "swords", "sorcery")


def max_slots(level: int, per_tier: int = 3) -> dict[int, int]:
    """The most Harm slots an enemy of `level` may have, per tier (cumulative, 3 a tier)."""
    if level == 0:
        return {1: 1}
    return {tier: per_tier for tier in range(1, level + 1)}


class EnemyStats(Model, frozen=True):
    """An enemy: its Level, an optional GM-trimmed slot layout, bestiary tags, and its
    Attributes (the bonuses its Throws use)."""

    level: Level
    slots: (
        Annotated[dict[Tier, Annotated[int, Field(ge=0, le=3)]], AfterValidator(frozen_object)]
        | None
    ) = None
    tags: tuple[Name, ...] = ()
    stones: Bonus | None = None
    scrolls: Bonus | None = None
    swords: Bonus | None = None
    sorcery: Bonus | None = None

    @model_validator(mode="after")
    def _within_level(self) -> EnemyStats:
        if self.slots is None:
            return self
        most = max_slots(self.level)
        for tier, count in self.slots.items():
            allowed = most.get(int(tier), 0)
            if count > allowed:
                raise ValueError(
                    f"level {self.level} allows {allowed} slot{'s' * (allowed != 1)} at tier "
                    f"{tier}, not {count}"
                )
        return self


class PlayerStats(Model, frozen=True, extra="allow"):
    """A player's sheet, kept as given (the texts do not define it): the four Attributes, the
    Grit that lessens an injury, and any other key the sheet has (skills, Words of Power...)."""

    stones: Bonus | None = None
    scrolls: Bonus | None = None
    swords: Bonus | None = None
    sorcery: Bonus | None = None
    grit: Annotated[int, Field(ge=0, le=10)] | None = None


class PlayerRecord(Model, frozen=True):
    """A player's harm record, kept as given (the texts do not define it)."""

    record: JsonObject = Field(default={}, validate_default=True)


class ThrowMade(EventBase, frozen=True):
    """A Throw, entered by the GM: the texts do not give its mechanics."""

    type: Literal["throw.made"] = "throw.made"
    actor: Name
    attribute: Attribute
    outcome: Text
    harm_level: Annotated[int, Field(ge=0, le=10)] | None = None
    draw_break: bool | Text | None = None


class HarmInflicted(EventBase, frozen=True):
    """Harm of a level placed in the lowest free slot at or above it, or defeat."""

    type: Literal["harm.inflicted"] = "harm.inflicted"
    target: Name
    level: HarmLevel
    throw: Annotated[int, Field(ge=1)] | None = None


class GritUsed(EventBase, frozen=True):
    """A player lessens (or, with `to_level` 0, resists) an injury with Grit."""

    type: Literal["grit.used"] = "grit.used"
    target: Name
    from_level: HarmLevel
    to_level: Annotated[int, Field(ge=0, le=10)]


Events = StakesLocked | RollMade | ThrowMade | HarmInflicted | GritUsed
