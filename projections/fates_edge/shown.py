"""What the report charts of a Fate's Edge combatant (`projections.charts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.charts import Measure, measure, number


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Resilience stepping down and Fatigue filling toward capacity; a player's Harm and
    Fatigue against Body. A puzzle adversary (no Resilience) has nothing to chart."""
    if view.get("side") == "adversary":
        if number(view, "resilience") is None:
            return ()
        return (
            *measure("Resilience", view, "resilience"),
            *measure("Fatigue", view, "fatigue", "fatigue_capacity"),
        )
    return (*measure("Harm", view, "harm"), *measure("Fatigue", view, "fatigue", "body"))
