"""Plain words for what a change did: the downstream diff of an undo, redo or amend, and the
entries of a combatant's history. One place, so that every command says it the same way."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ledger import render
from projections.downstream import Downstream
from projections.findings import Finding
from projections.steps import Change


def shown(value: Any) -> str:
    """A value in a sentence, as the tables show it (`T1:1/3 T2:0/3`, `yes`, `-`)."""
    return render.value(value)


def change(c: Change) -> str:
    """`Ogre resilience: 3 -> 4`; a status in words: `Ogre is no longer defeated (status
    defeated -> active)`."""
    if c.track == "status" and c.after is None:
        return f"{c.combatant}: no longer in the encounter (was {shown(c.before)})"
    was = f"{shown(c.before)} -> {shown(c.after)}"
    if c.track == "status" and c.before is not None:
        if c.after == "active":
            return f"{c.combatant} is no longer {shown(c.before)} (status {was})"
        return f"{c.combatant} is now {shown(c.after)} (status {was})"
    return f"{c.combatant} {c.track}: {was}"


def fields(changed: Mapping[str, Any]) -> str:
    """A correction's fields: `dice=[10,7,2] harm=3`."""
    return " ".join(f"{k}={_field(v)}" for k, v in changed.items())


def finding(f: Finding) -> str:
    """`error [rule] seq 4, 6: message`."""
    return f"{f.severity} [{f.rule}] seq {', '.join(map(str, f.seq))}: {f.message}"


def downstream(d: Downstream) -> list[str]:
    """The whole diff, one line each: where the story as it stood and as it stands part,
    every track that differs at the end (before -> after), and the audit findings the change
    removes and adds."""
    if d.first_divergence is None:
        lines = ["Downstream: nothing changes (every seq folds as it did)."]
    else:
        lines = [f"Downstream: the encounter changes from seq {d.first_divergence} on."]
    if d.changes:
        lines.append("Tracks changed:")
        lines += ["  " + change(c) for c in d.changes]
    else:
        lines.append("No track changed.")
    if d.findings_removed:
        lines.append("Findings gone:")
        lines += ["  " + finding(f) for f in d.findings_removed]
    if d.findings_added:
        lines.append("Findings added:")
        lines += ["  " + finding(f) for f in d.findings_added]
    return lines


def history_entry(
    seq: int, kind: str, summary: str, mine: Sequence[Change], named: bool, net_zero: Sequence[str]
) -> list[str]:
    """One history entry: the event, then what it did to the combatant. `net_zero` names the
    tracks it touched that ended where they started (a Fatigue track filled and cleared)."""
    lines = [f"seq {seq} {kind} {summary}".rstrip()]
    lines += ["  " + change(c) for c in mine]
    for track in net_zero:
        lines.append(f"  {track}: touched, and back where it was")
    if not mine and not net_zero:
        lines.append("  no track changed" if named else "  (no change)")
    return lines


def _field(value: Any) -> str:
    # As it is typed on the command line: text as it is, anything else as JSON.
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
