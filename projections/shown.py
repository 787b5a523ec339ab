"""Track values and game time in words for people, from plain values (no model needed).

The `tracks` command's fast path renders a stored head view with these, without loading the
event models or the folds; `projections.played` and `projections.gametime` re-export them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Scene = int | str | None


def shown(v: Any) -> str:
    """A track value for people: `3`, `wounded, maimed`, `T1:1/3 T2:0/3`, `-` for none."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Mapping):
        if v and all(
            isinstance(x, Mapping) and {"filled", "capacity"} <= set(x) for x in v.values()
        ):
            return " ".join(f"T{k}:{x['filled']}/{x['capacity']}" for k, x in v.items())
        return ", ".join(f"{k} {shown(x)}" for k, x in v.items()) or "-"
    if isinstance(v, list | tuple):
        if v and all(isinstance(x, Mapping) and {"seq", "severity"} <= set(x) for x in v):
            # Critical strikes: where each came from, its severity, and whether it is settled.
            return ", ".join(
                f"@{x['seq']}: {x['severity']}"
                + (f" (resolved @{x['resolved']})" if x.get("resolved") else " (due)")
                for x in v
            )
        if v and all(isinstance(x, Mapping) and "seq" in x for x in v):
            return ", ".join(
                "@"
                + str(x["seq"])
                + "".join(f" {k} {shown(y)}" for k, y in x.items() if k != "seq")
                for x in v
            )
        return ", ".join(shown(x) for x in v) or "-"
    return str(v)


def when(round_: int | None, scene: Scene) -> str:
    """`round 2`, `round 2, scene the ford`, `scene 3`, or `` when there is no game time."""
    parts = []
    if round_ is not None:
        parts.append(f"round {round_}")
    if scene is not None:
        parts.append(f"scene {scene}")
    return ", ".join(parts)
