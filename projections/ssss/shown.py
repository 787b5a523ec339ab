"""How Stones, Scrolls, Swords and Sorcery tracks read: an enemy's Harm slots by tier.

The system's state names these readings (`State.readings`); they read plain values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from projections.charts import Measure
from projections.shown import Reading, Readings


def _tiers(v: Any) -> bool:
    # Slots as the fold keeps them; a sheet (`tracks.noted`) may say anything else.
    return (
        isinstance(v, Mapping)
        and bool(v)
        and all(isinstance(x, Mapping) and {"filled", "capacity"} <= set(x) for x in v.values())
    )


def slots_cell(v: Any) -> str | None:
    """`T1:1/3 T2:0/3`: each tier's slots filled of its capacity."""
    if not _tiers(v):
        return None
    return " ".join(f"T{k}:{x['filled']}/{x['capacity']}" for k, x in v.items())


def slots_sentence(v: Any) -> str | None:
    """`T1 1/3, T2 0/3`, as a sentence reads the slots."""
    if not _tiers(v):
        return None
    return ", ".join(f"T{k} {x['filled']}/{x['capacity']}" for k, x in v.items())


TRACKS: Final[Readings] = MappingProxyType(
    {"slots": Reading(cell=slots_cell, sentence=slots_sentence)}
)


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
