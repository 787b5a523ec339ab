"""What the report charts of an ssss combatant (`projections.charts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.charts import Measure


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """An enemy's slots filling, tier by tier, against each tier's capacity; a player's
    injuries (how many, and the worst level)."""
    slots = view.get("slots")
    if isinstance(slots, Mapping):
        return tuple(
            Measure(f"Tier {tier}", float(slot["filled"]), float(slot["capacity"]))
            for tier, slot in slots.items()
            if isinstance(slot, Mapping)
        )
    harm = view.get("harm")
    if isinstance(harm, list | tuple):
        levels = [level for level in harm if isinstance(level, int)]
        return (
            Measure("Injuries", float(len(levels))),
            Measure("Worst injury", float(max(levels, default=0))),
        )
    return ()
