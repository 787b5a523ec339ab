"""Legend of the Five Rings 5e events and stat blocks (rules/l5r-damage.txt)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from ledger.events.base import (
    Amount,
    EventBase,
    Model,
    Name,
    Positive,
    Seq,
    Text,
    own_source_in_place,
)
from ledger.events.common import RollMade, StakesLocked

Ring = Annotated[int, Field(ge=1, le=10)]


#: The damage types of l5r-damage.txt (which resistance applies).
DamageType = Literal["physical", "supernatural"]


class Rings(Model, frozen=True):
    """The five rings."""

    air: Ring
    earth: Ring
    fire: Ring
    water: Ring
    void: Ring


class Resistance(Model, frozen=True):
    """Resistance by damage type (armor and similar protection)."""

    physical: Amount = 0
    supernatural: Amount = 0


class CharacterStats(Model, frozen=True):
    """An L5R character: rings, and optionally endurance, Void points and resistance."""

    rings: Rings
    endurance: Positive | None = None
    void_points: Amount | None = None
    # model_construct: the same value as `Resistance()`, without building its validator here.
    resistance: Resistance = Resistance.model_construct()


class DamageDealt(EventBase, frozen=True):
    """Damage to a character: increases, then reductions (with resistance), floor 0."""

    type: Literal["damage.dealt"] = "damage.dealt"
    target: Name
    amount: Amount
    damage_type: DamageType = "physical"
    # This event's own `source` (older than the envelope's, DESIGN 4) keeps its meaning here:
    # the event cannot carry where it was imported from.
    source: Text | None = None  # type: ignore[assignment]
    deadliness: Amount | None = None
    increases: tuple[Amount, ...] = ()
    reductions: tuple[Amount, ...] = ()
    voluntary_critical: bool = False
    #: False: the target cannot defend for a cause besides Incapacitated (unaware, bound, a
    #: technique), so damage left after reductions is a critical strike (NOTES 4.3: a GM's
    #: flag). Unset (stored as nothing) is the rules' default: they defend.
    can_defend: bool | None = None

    @model_serializer(mode="wrap")
    def _own_source_in_place(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return own_source_in_place(self, handler, after="damage_type")


class CriticalResolved(EventBase, frozen=True):
    """The severity a critical strike ended at, after any Fitness check."""

    type: Literal["critical.resolved"] = "critical.resolved"
    target: Name
    severity: Amount
    fitness_successes: Amount | None = None
    #: The damage.dealt whose pending critical strike this resolves (None: the oldest pending).
    damage: Seq | None = None


class FatigueRemoved(EventBase, frozen=True):
    """Fatigue removed by rest or an effect such as Medicine."""

    type: Literal["fatigue.removed"] = "fatigue.removed"
    target: Name
    amount: Amount
    cause: Text | None = None


class RestTaken(EventBase, frozen=True):
    """A full night's rest: heals fatigue equal to twice the Water ring."""

    type: Literal["rest.taken"] = "rest.taken"
    target: Name


class VoidSpent(EventBase, frozen=True):
    """Void points spent."""

    type: Literal["void.spent"] = "void.spent"
    target: Name
    amount: Positive


class VoidGained(EventBase, frozen=True):
    """Void points gained."""

    type: Literal["void.gained"] = "void.gained"
    target: Name
    amount: Positive


Events = (
    StakesLocked
    | RollMade
    | DamageDealt
    | CriticalResolved
    | FatigueRemoved
    | RestTaken
    | VoidSpent
    | VoidGained
)
