"""PLACEHOLDER ruleset for ironsworn: being replaced by the full ruleset (not done)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from ledger import events
from projections import core
from projections.findings import Finding


class Rules(BaseModel, frozen=True, extra="forbid"):
    """No house rules yet."""


def join(state: core.State, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """A combatant with no tracks."""
    return core.Combatant(name=event.name, side=event.side, joined=seq)


def apply(state: core.State, seq: int, event: Any) -> core.State:
    """Nothing yet."""
    return state


def audit(before: core.State, seq: int, event: Any, after: core.State) -> Iterator[Finding]:
    """Nothing yet."""
    return iter(())


RULESET = core.Ruleset(
    key="ironsworn",
    rules=Rules,
    start=lambda s: s,
    join=join,
    apply=apply,
    adjust=core.adjust_track,
    scene_end=core.unchanged,
    audit=audit,
)
