"""An event as the table played it, and what the rules would have given instead, in words.

The ledger applies an event the rules forbid as the table played it (so its tracks match the
table's sheets); the finding says, with numbers, what the rules would have given, so that the GM
can amend or undo it. These helpers word both sides the same way.
"""

from __future__ import annotations

from ledger import events
from projections.changes import POOLS, changes
from projections.core import AnyRuleset, Roll, State
from projections.shown import shown as shown


def delta(before: State, after: State, name: str | None = None) -> str:
    """`fatigue 2 -> 5, incapacitated no -> yes`: the tracks of `name` (or every combatant and
    pool, each named) that differ from `before` to `after`; `no track changes` when none do."""
    parts = []
    read = type(after).readings
    for c in changes(before, after):
        if name is not None and c.combatant not in (name, POOLS):
            continue
        if c.combatant == POOLS:
            label = f"{c.track.upper()} pool"
        else:
            track = c.track.replace("_", " ")  # as the tables' headers say it
            label = track if name is not None else f"{c.combatant} {track}"
        reading = c.reading(read)
        parts.append(f"{label} {shown(c.before, reading)} -> {shown(c.after, reading)}")
    return ", ".join(parts) or "no track changes"


def as_played(before: State, after: State, name: str | None = None) -> str:
    """`recorded as played: fatigue 2 -> 5` (what the ledger applied)."""
    return f"recorded as played: {delta(before, after, name)}"


def rescored(ruleset: AnyRuleset, state: State, event: events.EventBase) -> Roll | None:
    """The earlier roll whose outcome `event` changed (a momentum burn), as it stands now."""
    seq = ruleset.rescores(event)
    return state.roll_at(seq) if seq is not None else None
