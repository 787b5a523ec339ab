"""What the report charts of an L5R combatant (`projections.charts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.charts import Measure, measure


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Fatigue against endurance, Void points, and critical strikes taken."""
    criticals = view.get("criticals")
    count = (
        [Measure("Critical strikes", float(len(criticals)))] if isinstance(criticals, list) else []
    )
    return (
        *measure("Fatigue", view, "fatigue", "endurance"),
        *measure("Void points", view, "void_points"),
        *count,
    )
