"""What the report charts of an Ironsworn combatant (`projections.charts`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.charts import Measure, measure


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Health and momentum (against max momentum); a foe has no meters. (Spirit and supply
    are meters of the journey more than of a fight: a chart of them is mostly flat.)"""
    return (
        *measure("Health", view, "health"),
        *measure("Momentum", view, "momentum", "max_momentum"),
    )
