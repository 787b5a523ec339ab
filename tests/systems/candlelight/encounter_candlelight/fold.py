"""Candlelight's fold, its one audit rule (`snuffed-in-the-dark`) and its chart."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from ledger import events
from ledger.errors import BadInput
from projections import core
from projections.charts import Measure, measure
from projections.findings import Finding, warning

from . import events as vocab


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules."""

    dark_defeats: bool = True


class Holder(core.Combatant, frozen=True):
    """A combatant's candles: how many burn, and how many it holds."""

    lit: int
    candles: int


def join(state: core.State, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate the stat block and light every candle."""
    try:
        stats = vocab.Stats.model_validate(dict(event.stats))
    except ValidationError as exc:
        raise BadInput(events.describe(exc, f"stats of {event.name!r}")) from exc
    return Holder(
        name=event.name, side=event.side, joined=seq, lit=stats.candles, candles=stats.candles
    )


def _holder(state: core.State, name: str) -> Holder:
    found = state.combatant(name, "target")
    assert isinstance(found, Holder)
    return found


def apply(state: core.State, seq: int, event: Any) -> core.State:
    """Snuff or light candles; the last one out defeats (unless the house rule says not)."""
    match event:
        case vocab.CandleSnuffed():
            holder = _holder(state, event.target)
            lit = max(0, holder.lit - event.count)
            dark = lit == 0 and Rules.model_validate(state.rules).dark_defeats
            status = "defeated" if dark and holder.active else holder.status
            return core.replace_combatant(
                state, holder.model_copy(update={"lit": lit, "status": status})
            )
        case vocab.CandleLit():
            holder = _holder(state, event.target)
            lit = min(holder.candles, holder.lit + event.count)
            return core.replace_combatant(state, holder.model_copy(update={"lit": lit}))
        case events.RollMade():
            return core.note_roll(state, seq, event)
        case _:
            return state


def audit(before: core.State, seq: int, event: Any, after: core.State) -> Iterator[Finding]:
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


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """The candles still lit, against the candles held."""
    return tuple(measure("Candles lit", view, "lit", "candles"))


RULESET = core.Ruleset(
    key="candlelight",
    rules=Rules,
    start=lambda state: state,
    join=join,
    apply=apply,
    adjust=core.adjust_track,
    scene_end=core.unchanged,
    audit=audit,
)
