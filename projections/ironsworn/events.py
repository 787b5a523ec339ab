"""Ironsworn events and stat blocks (rules/ironsworn-endure-harm.txt)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field

from ledger.events.base import Amount, EventBase, Model, Name, SignedAmount, Text
from ledger.events.common import LedgerRolled, StakesLocked
from projections import stats as stat_texts

Rank = Literal["troublesome", "dangerous", "formidable", "extreme", "epic"]
Stat = Literal["edge", "heart", "iron", "shadow", "wits", "health", "spirit", "supply"]
Meter = Literal["health", "spirit", "supply", "momentum"]
#: Classic Ironsworn's debilities, then the impacts only Starforged has (an imported Starforged
#: journal marks them; each counts against max momentum and reset as a debility does).
Debility = Literal[
    "wounded",
    "shaken",
    "unprepared",
    "encumbered",
    "maimed",
    "corrupted",
    "cursed",
    "tormented",
    "permanently_harmed",
    "traumatized",
    "doomed",
    "indebted",
    "battered",
]
#: The strong-hit choices of Endure Harm.
Strong = Literal["shake_it_off", "embrace_the_pain"]
#: The values a character's sheet holds: (lowest, highest) of a stat, a meter and momentum.
STAT_RANGE: Final = (0, 5)
METER_RANGE: Final = (0, 5)
MOMENTUM_RANGE: Final = (-6, 10)
StatValue = Annotated[int, Field(ge=STAT_RANGE[0], le=STAT_RANGE[1])]
MeterValue = Annotated[int, Field(ge=METER_RANGE[0], le=METER_RANGE[1])]


class CharacterStats(Model, frozen=True):
    """An Ironsworn character: five stats, three meters, momentum and debilities."""

    edge: StatValue = 1
    heart: StatValue = 1
    iron: StatValue = 1
    shadow: StatValue = 1
    wits: StatValue = 1
    health: MeterValue = 5
    spirit: MeterValue = 5
    supply: MeterValue = 5
    #: Left out (or null): the encounter's house rule `momentum_start`.
    momentum: Annotated[
        int | None,
        Field(
            ge=MOMENTUM_RANGE[0],
            le=MOMENTUM_RANGE[1],
            json_schema_extra={stat_texts.DEFAULT_FROM: "house rule momentum_start"},
        ),
    ] = None
    debilities: tuple[Debility, ...] = ()


class FoeStats(Model, frozen=True):
    """An Ironsworn foe: only its rank matters to Endure Harm."""

    rank: Rank = "dangerous"


class IronswornRollMade(LedgerRolled, frozen=True):
    """An action roll: action die + stat + adds against two challenge dice."""

    type: Literal["roll.made"] = "roll.made"
    actor: Name
    move: Name = "endure_harm"
    stat: Stat
    action_die: Annotated[int, Field(ge=1, le=6)]
    challenge: tuple[Annotated[int, Field(ge=1, le=10)], Annotated[int, Field(ge=1, le=10)]]
    adds: Annotated[int, Field(ge=0, le=10)] = 0
    stake: Name | None = None
    outcome: Literal["strong_hit", "weak_hit", "miss"] | None = None


class IronswornHarmSuffered(EventBase, frozen=True):
    """-health from a foe's rank or an amount; the rest spills into -momentum at 0 health."""

    type: Literal["harm.suffered"] = "harm.suffered"
    target: Name
    amount: Amount | None = None
    rank: Rank | None = None
    foe: Name | None = None


class MomentumBurned(EventBase, frozen=True):
    """Momentum burned on a roll: cancels challenge dice below it, then resets."""

    type: Literal["momentum.burned"] = "momentum.burned"
    target: Name
    roll: Annotated[int, Field(ge=1)]


class ChoiceMade(EventBase, frozen=True):
    """The strong-hit choice of Endure Harm."""

    type: Literal["choice.made"] = "choice.made"
    target: Name
    option: Strong


class DebilityMarked(EventBase, frozen=True):
    """A debility is marked."""

    type: Literal["debility.marked"] = "debility.marked"
    target: Name
    debility: Debility


class DebilityCleared(EventBase, frozen=True):
    """A debility is cleared."""

    type: Literal["debility.cleared"] = "debility.cleared"
    target: Name
    debility: Debility


class OracleRolled(LedgerRolled, frozen=True):
    """A roll on the Endure Harm oracle table (1-100)."""

    type: Literal["oracle.rolled"] = "oracle.rolled"
    target: Name
    table: Literal["endure_harm"] = "endure_harm"
    roll: Annotated[int, Field(ge=1, le=100)]


class MeterChanged(EventBase, frozen=True):
    """A meter (health, spirit, supply, momentum) moves by a signed amount."""

    type: Literal["meter.changed"] = "meter.changed"
    target: Name
    meter: Meter
    amount: SignedAmount
    cause: Text | None = None


Events = (
    StakesLocked
    | IronswornRollMade
    | IronswornHarmSuffered
    | MomentumBurned
    | ChoiceMade
    | DebilityMarked
    | DebilityCleared
    | OracleRolled
    | MeterChanged
)
