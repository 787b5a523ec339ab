"""Plain words for what a change did: the downstream diff of an undo, redo or amend, and the
entries of a combatant's history. One place, so that every command says it the same way."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ledger import render
from projections import gametime
from projections.downstream import Downstream
from projections.findings import Finding
from projections.registry import RULESETS, readings
from projections.shown import Readings
from projections.steps import Change, Step


def change(c: Change, read: Readings) -> str:
    """`Ogre resilience: 3 -> 4`, each value as the tables show it (`read`: how the tracks of
    the encounter's system read); a status in words: `Ogre is no longer defeated (status
    defeated -> active)`."""
    shown = render.value
    if c.track == "status" and c.after is None:
        return f"{c.combatant}: no longer in the encounter (was {shown(c.before)})"
    reading = c.reading(read)
    was = f"{shown(c.before, reading)} -> {shown(c.after, reading)}"
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


def downstream(d: Downstream, read: Readings) -> list[str]:
    """The whole diff, one line each: where the story as it stood and as it stands part,
    every track that differs at the end (before -> after, as `read` has the tracks of the
    encounter's system read), and the audit findings the change removes and adds."""
    if d.first_divergence is None:
        lines = ["Downstream: nothing changes (every seq folds as it did)."]
    else:
        lines = [f"Downstream: the encounter changes from seq {d.first_divergence} on."]
    if d.changes:
        lines.append("Tracks changed:")
        lines += ["  " + change(c, read) for c in d.changes]
    else:
        lines.append("No track changed.")
    if d.findings_removed:
        lines.append("Findings gone:")
        lines += ["  " + finding(f) for f in d.findings_removed]
    if d.findings_added:
        lines.append("Findings added:")
        lines += ["  " + finding(f) for f in d.findings_added]
    return lines


def what_happened(step: Step, combatant: str) -> dict[str, str]:
    """{track: what the step did to it}, from its ruleset, for the tracks it touched."""
    ruleset = RULESETS[step.state.system]
    touched = ruleset.touches(step.before, step.record.seq, step.record.event, step.state)
    return dict(touched.get(combatant, {}))


def history_entry(step: Step, combatant: str) -> list[str]:
    """One `history` entry: the event in words, then each track it touched, before -> after and what
    happened to it (a track that ends where it started says so); an event that named the
    combatant and changed none of its tracks says, in words, what it was."""
    record = step.record
    time = gametime.when(step.round, step.scene)
    told = f"seq {record.seq}" + (f" ({time})" if time else "") + f": {step.text}"
    lines = [render.visible(told)]
    notes = what_happened(step, combatant)
    read = readings(step.state.system)
    for c in step.changes:
        line = render.change_lines([c], read)[0]
        if c.track in notes:
            line += f" ({notes[c.track]})"
        elif c.before == c.after:
            line += " (touched; no net change)"
        lines.append(line)
    if not step.changes:
        lines.append("  no track changed")
    return lines


def _field(value: Any) -> str:
    # As it is typed on the command line: text as it is, anything else as JSON.
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
