"""An event as the table played it, and what the rules would have given instead, in words.

The ledger applies an event the rules forbid as the table played it (so its tracks match the
table's sheets); the finding says, with numbers, what the rules would have given, so that the GM
can amend or undo it. These helpers word both sides the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger import events
from projections.core import Roll, State
from projections.registry import RULESETS
from projections.steps import changes


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


def delta(before: State, after: State, name: str | None = None) -> str:
    """`fatigue 2 -> 5, incapacitated no -> yes`: the tracks of `name` (or every combatant and
    pool, each named) that differ from `before` to `after`; `no track changes` when none do."""
    parts = []
    for c in changes(before, after):
        if name is not None and c.combatant not in (name, "pools"):
            continue
        if c.combatant == "pools":
            label = f"{c.track.upper()} pool"
        else:
            label = c.track if name is not None else f"{c.combatant} {c.track}"
        parts.append(f"{label} {shown(c.before)} -> {shown(c.after)}")
    return ", ".join(parts) or "no track changes"


def as_played(before: State, after: State, name: str | None = None) -> str:
    """`recorded as played: fatigue 2 -> 5` (what the ledger applied)."""
    return f"recorded as played: {delta(before, after, name)}"


def rescored(state: State, event: events.EventBase) -> Roll | None:
    """The earlier roll whose outcome `event` changed (a momentum burn), as it stands now."""
    seq = RULESETS[state.system].rescores(event)
    return state.roll_at(seq) if seq is not None else None
