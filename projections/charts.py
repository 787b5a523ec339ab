"""What the post-session report charts of each system's combatants, read from their tracks.

A chart is a few measures of one combatant (Resilience and Fatigue, health and momentum, slots
filled, fatigue against endurance), each a number with the most it can be where the track has
one. Like `projections.registry`, this is one of the few places that names every system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Measure:
    """One charted number of a combatant at one seq, and the most it can be (if bounded)."""

    label: str
    value: float
    limit: float | None = None


#: A combatant's tracks (its `view()`) -> what its chart draws.
Measures = Callable[[Mapping[str, Any]], tuple[Measure, ...]]


def _number(view: Mapping[str, Any], key: str) -> float | None:
    value = view.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _measure(
    label: str, view: Mapping[str, Any], key: str, limit: str | None = None
) -> list[Measure]:
    value = _number(view, key)
    if value is None:
        return []
    return [Measure(label, value, _number(view, limit) if limit else None)]


def fates_edge(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Resilience stepping down and Fatigue filling toward capacity; a player's Harm and
    Fatigue against Body. A puzzle adversary (no Resilience) has nothing to chart."""
    if view.get("side") == "adversary":
        if _number(view, "resilience") is None:
            return ()
        return (
            *_measure("Resilience", view, "resilience"),
            *_measure("Fatigue", view, "fatigue", "fatigue_capacity"),
        )
    return (*_measure("Harm", view, "harm"), *_measure("Fatigue", view, "fatigue", "body"))


def ironsworn(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Health and momentum (against max momentum); a foe has no meters. (Spirit and supply
    are meters of the journey more than of a fight: a chart of them is mostly flat.)"""
    return (
        *_measure("Health", view, "health"),
        *_measure("Momentum", view, "momentum", "max_momentum"),
    )


def ssss(view: Mapping[str, Any]) -> tuple[Measure, ...]:
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


def l5r(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Fatigue against endurance, Void points, and critical strikes taken."""
    criticals = view.get("criticals")
    count = (
        [Measure("Critical strikes", float(len(criticals)))] if isinstance(criticals, list) else []
    )
    return (
        *_measure("Fatigue", view, "fatigue", "endurance"),
        *_measure("Void points", view, "void_points"),
        *count,
    )


def nothing(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """A system this module does not know: its combatants' charts show only their changes."""
    return ()


#: System key -> what its charts draw.
CHARTS: Final[Mapping[str, Measures]] = MappingProxyType(
    {
        "fates-edge": fates_edge,
        "ironsworn": ironsworn,
        "ssss": ssss,
        "l5r": l5r,
    }
)


def measures(system: str) -> Measures:
    """What the charts of `system`'s combatants draw."""
    return CHARTS.get(system, nothing)
