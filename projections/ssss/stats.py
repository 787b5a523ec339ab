"""What the statistics read of SSSS: the Harm slots an enemy has filled, the harm levels on a
player, and who threw the Throw a harm names (the texts give no odds of a Throw)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections import core
from projections.ssss import events as vocab
from projections.ssss.model import Enemy, Player, SsssState


def hurt(combatant: core.Combatant) -> Mapping[str, int]:
    """An enemy's filled Harm slots; the sum of a player's recorded harm levels."""
    if isinstance(combatant, Enemy):
        return {"slots": sum(slot.filled for slot in combatant.slots.values())}
    if isinstance(combatant, Player):
        return {"harm": sum(combatant.harm)}
    return {}


def dealer(before: SsssState, event: Any) -> str | None:
    """The thrower of the Throw a harm names."""
    if not isinstance(event, vocab.HarmInflicted) or event.throw is None:
        return None
    thrown = before.roll_at(event.throw)
    return thrown.actor if thrown is not None else None
