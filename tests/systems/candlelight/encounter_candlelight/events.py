"""Candlelight's events and stat block."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ledger.events.base import EventBase, Model, Name
from ledger.events.common import RollMade, StakesLocked

Count = Annotated[int, Field(ge=1, le=20)]


class Stats(Model, frozen=True):
    """A combatant of either side: the candles it holds."""

    candles: Count


class CandleSnuffed(EventBase, frozen=True):
    """A blow snuffs candles; the last one out leaves the combatant in the dark."""

    type: Literal["candle.snuffed"] = "candle.snuffed"
    target: Name
    count: Count = 1


class CandleLit(EventBase, frozen=True):
    """Candles lit again, never more than the combatant holds."""

    type: Literal["candle.lit"] = "candle.lit"
    target: Name
    count: Count = 1


Events = StakesLocked | RollMade | CandleSnuffed | CandleLit
