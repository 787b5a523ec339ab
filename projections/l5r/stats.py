"""What the statistics read of L5R: the fatigue a character took and the critical strikes it
suffered, and who dealt damage whose `source` names a combatant (the ledger records no dice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections import core
from projections.l5r import events as vocab
from projections.l5r.model import Character, L5rState


def hurt(combatant: core.Combatant) -> Mapping[str, int]:
    """Fatigue, and the critical strikes suffered."""
    if not isinstance(combatant, Character):
        return {}
    return {"fatigue": combatant.fatigue, "criticals": len(combatant.criticals)}


def dealer(before: L5rState, event: Any) -> str | None:
    """The combatant a damage's `source` names, when it names one."""
    if isinstance(event, vocab.DamageDealt) and event.source in before.combatants:
        return event.source
    return None
