"""What the statistics read of L5R: the fatigue a character took and the critical strikes it
suffered, and who dealt damage (the combatant its `source` names, else whoever the event says
struck, else the weapon its `source` names; the ledger records no dice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections import acts, core
from projections.l5r import events as vocab
from projections.l5r.model import Character, L5rState


def hurt(combatant: core.Combatant) -> Mapping[str, int]:
    """Fatigue, and the critical strikes suffered."""
    if not isinstance(combatant, Character):
        return {}
    return {"fatigue": combatant.fatigue, "criticals": len(combatant.criticals)}


def dealer(before: L5rState, event: Any) -> str | None:
    """Who dealt a damage: the combatant its `source` names; else the combatant the event
    says struck (`acts.striker`); else its `source` itself, a weapon or a trap credited by
    name (`Kaeru's katana`); None when it names none."""
    if not isinstance(event, vocab.DamageDealt):
        return None
    if event.source in before.combatants:
        return event.source
    return acts.striker(before, event, event.target) or event.source
