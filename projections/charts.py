"""What the post-session report charts of each system's combatants, read from their tracks.

A chart is a few measures of one combatant (Resilience and Fatigue, health and momentum, slots
filled, fatigue against endurance), each a number with the most it can be where the track has
one. What a system charts is its own (`Ruleset.charts`, from this module's `measure`s).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Measure:
    """One charted number of a combatant at one seq, and the most it can be (if bounded)."""

    label: str
    value: float
    limit: float | None = None
    #: The tracks it reads (its value's, its limit's), so a view can leave hidden ones out.
    track: str | None = None
    limit_track: str | None = None


#: A combatant's tracks (its `view()`) -> what its chart draws.
Measures = Callable[[Mapping[str, Any]], tuple[Measure, ...]]


def standing(status: str, condition: str | None) -> str:
    """What a chart marks a combatant as: its status, or while it is still in the fight, the
    condition its system names (`Ruleset.condition`)."""
    return condition if status == "active" and condition else status


def number(view: Mapping[str, Any], key: str) -> float | None:
    """The track `key` of a combatant's view as a number, if it is one."""
    value = view.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def measure(
    label: str, view: Mapping[str, Any], key: str, limit: str | None = None
) -> list[Measure]:
    """The track `key` as a measure labelled `label` (bounded by the track `limit`), if a number."""
    value = number(view, key)
    if value is None:
        return []
    return [Measure(label, value, number(view, limit) if limit else None, key, limit)]
