"""How Legend of the Five Rings tracks read: critical strikes, where each came from.

The system's state names these readings (`State.readings`); they read plain values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from projections.charts import Measure, measure
from projections.shown import Reading, Readings


def criticals_cell(v: Any) -> str | None:
    """`@12: 4 (resolved @13), @14: 5 (due)`: each strike's damage seq, its severity, and
    whether it is settled."""
    if not (
        isinstance(v, list | tuple)
        and v
        and all(isinstance(x, Mapping) and {"seq", "severity"} <= set(x) for x in v)
    ):
        return None  # a sheet (`tracks.noted`) may say anything
    return ", ".join(
        f"@{x['seq']}: {x['severity']}"
        + (f" (resolved @{x['resolved']})" if x.get("resolved") else " (due)")
        for x in v
    )


TRACKS: Final[Readings] = MappingProxyType({"criticals": Reading(cell=criticals_cell)})


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
