"""Candlelight's fold, its one audit rule (`snuffed-in-the-dark`) and its chart."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, ClassVar, assert_never

from pydantic import BaseModel, Field, ValidationError

from ledger import events
from ledger.errors import BadInput
from ledger.events.common import Common
from projections import core
from projections.charts import Measure, measure
from projections.findings import Finding, warning
from projections.shown import Readings

from . import events as vocab
from .shown import TRACKS


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules."""

    dark_defeats: bool = True


@core.value
class Holder(core.Combatant):
    """A combatant's candles: how many burn, and how many it holds."""

    lit: Annotated[int, Field(ge=0)]  # a GM's override is validated so; the fold is not
    candles: int

    def check(self) -> None:
        """No more candles lit than held (a GM's override must keep it)."""
        if self.lit > self.candles:
            raise ValueError(f"{self.lit} lit is more than the {self.candles} candles held")


@core.value
class CandlelightState(core.State):
    """The encounter with its house rules read once (its combatants named, for snapshots)."""

    readings: ClassVar[Readings] = TRACKS

    combatants: Mapping[str, Holder] = core.EMPTY
    house: Rules = Rules()


def _holder(state: core.State, name: str) -> Holder:
    found = state.combatant(name, "target")
    assert isinstance(found, Holder)
    return found


class Candlelight(core.Ruleset[CandlelightState, vocab.Events]):
    """Candles snuffed and lit; the last one out defeats."""

    key = "candlelight"
    rules = Rules
    state = CandlelightState
    own_events = vocab.Events
    attrition = frozenset({"candle.snuffed"})

    def join(self, state: CandlelightState, seq: int, event: events.CombatantJoined) -> Holder:
        """Validate the stat block and light every candle."""
        try:
            stats = vocab.Stats.model_validate(dict(event.stats))
        except ValidationError as exc:
            raise BadInput(events.describe(exc, f"stats of {event.name!r}")) from exc
        return Holder(
            name=event.name, side=event.side, joined=seq, lit=stats.candles, candles=stats.candles
        )

    def apply(self, state: CandlelightState, seq: int, event: vocab.Events) -> CandlelightState:
        """Snuff or light candles; the last one out defeats (unless the house rule says not)."""
        match event:
            case vocab.CandleSnuffed():
                holder = _holder(state, event.target)
                lit = max(0, holder.lit - event.count)
                dark = lit == 0 and state.house.dark_defeats
                status = "defeated" if dark and holder.active else holder.status
                return core.replace_combatant(state, core.replace(holder, lit=lit, status=status))
            case vocab.CandleLit():
                holder = _holder(state, event.target)
                lit = min(holder.candles, holder.lit + event.count)
                return core.replace_combatant(state, core.replace(holder, lit=lit))
            case events.RollMade():
                return core.note_roll(state, seq, event)
            case events.StakesLocked():
                return state  # the core keeps the lock
            case _:
                assert_never(event)

    def adjust(
        self, state: CandlelightState, seq: int, event: events.TrackAdjusted
    ) -> CandlelightState:
        """A GM override of one track."""
        return core.adjust_track(state, seq, event)

    def audit(
        self,
        before: CandlelightState,
        seq: int,
        event: Common | vocab.Events,
        after: CandlelightState,
    ) -> Iterator[Finding]:
        """`snuffed-in-the-dark`: a blow snuffs more candles than still burn."""
        if isinstance(event, vocab.CandleSnuffed):
            holder = _holder(before, event.target)
            if event.count > holder.lit:
                yield warning(
                    "snuffed-in-the-dark",
                    (seq,),
                    f"seq {seq} snuffs {event.count} candles of {event.target!r}, who has "
                    f"{holder.lit} lit: {event.count - holder.lit} snuffed in the dark",
                )

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """The candles still lit, against the candles held."""
        return tuple(measure("Candles lit", view, "lit", "candles"))


RULESET = Candlelight()
