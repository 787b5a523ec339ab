"""How the CLI shows things to people: tables (as grids of text), one-line summaries, and the
words of a change (no logic here).

A table is a grid: its column names and its rows of text. On a terminal it is drawn by
`ledger.cli.terminal` (rich, imported only then: JSON output, plain rows and error lines never
load it); piped, or with `--plain`, it is a header line and one tab-separated line a row. Every
user-supplied string reaches rich as plain `Text` (never as markup), and control characters in
it are shown escaped (`visible`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import typer

from ledger import events, systems
from ledger.store import Head
from projections import gametime, words
from projections.changes import Change
from projections.core import State
from projections.diff import Downstream
from projections.findings import Finding
from projections.replay import Step
from projections.shown import Reading, Readings, Scene, pools_text, shown, when
from projections.shown import visible as visible

#: `--plain` was given: tab-separated rows even on a terminal.
_plain = False


def configure(plain: bool = False) -> None:
    """Set this run's output style (the app's callback calls it once a command line)."""
    global _plain
    _plain = plain


def plain() -> bool:
    """Tab-separated rows, not tables: asked for with --plain, or stdout is not a terminal."""
    return _plain or not sys.stdout.isatty()


def show(*grids: Grid) -> None:
    """Print tables for people: on a terminal tables as wide as their words need, or a block a
    row when even that is too wide (`ledger.cli.terminal`); else (or with --plain) each as a
    header line and one tab-separated line a row, nothing cut or wrapped."""
    if not plain():
        # rich is loaded here, and only here, for a table (a tenth of a second).
        from ledger.cli import terminal

        terminal.draw(grids)
        return
    for grid in grids:
        sys.stdout.write(grid_lines(grid))


def value(v: Any, reading: Reading | None = None) -> str:
    """A value in a table cell (as the audit's messages word it); a track's as `reading`, its
    system's, has it."""
    return shown(v, reading)


def summary(event: events.EventBase) -> str:
    """The fields of an event, compactly: `target=Ogre harm=2` (where it was imported from is
    a column of its own)."""
    body = events.body_of(event)
    parts = []
    for key, v in body.items():
        if key == "source" and events.origin(event):
            continue
        if key == "rules" and isinstance(v, Mapping):
            # The pinned house-rule table is long; `log --json` and `export` show it whole.
            parts.append(f"rules=({len(v)} house rules pinned)")
            continue
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"{key}={text}")
    return visible(" ".join(parts))


def told(step: Step) -> str:
    """`seq 9 (round 1, Session 3.md:41): the event in words`: its game time and where it was
    imported from, when it has them."""
    beside = ", ".join(p for p in (when(step.round, step.scene), step.source) if p)
    return visible(f"seq {step.record.seq}" + (f" ({beside})" if beside else "") + f": {step.text}")


def echo_step(step: Step) -> None:
    """`seq 9 (round 1): the event in words`, then the tracks it changed."""
    say([told(step), *change_lines(step.changes, systems.readings(step.state.system))])


def say(lines: Sequence[str]) -> None:
    """Print lines of prose: on a terminal wrapped at spaces to its width (`ledger.fit`), else
    (or with --plain) each as it is."""
    if not plain():
        from ledger.cli import terminal  # rich, for a terminal only (see `show`)

        terminal.say(lines)
        return
    for line in lines:
        typer.echo(line)


def change_lines(changes: Sequence[Change], read: Readings) -> list[str]:
    """`  Ogre resilience: 8 -> 7` lines; `read`: how the tracks of the encounter's system read."""
    return [_change_line(c, read) for c in changes]


def _change_line(c: Change, read: Readings) -> str:
    if c.track == "status" and c.after is None:
        return visible(f"  {c.combatant}: no longer in the encounter (was {value(c.before)})")
    reading = c.reading(read)
    return visible(
        f"  {c.combatant} {words.plain(c.track)}: {value(c.before, reading)} -> "
        f"{value(c.after, reading)}"
    )


def finding_line(f: Finding) -> str:
    """`warning [rule] seq 5: message`."""
    seqs = ", ".join(map(str, f.seq))
    return visible(f"{f.severity} [{f.rule}] seq {seqs}: {f.message}")


def tracks_tables(state: State) -> list[Grid]:
    """One table a side (players, then adversaries): a row a combatant, a column a track."""
    return track_grids(state.view(), systems.readings(state.system))


def proposal_lines(state: State) -> list[str]:
    """`  seq 14: Ash proposes: ...`, one line a proposal still open, told as it would play if
    a GM accepted it now."""
    ruleset = systems.ruleset(state.system)
    return [
        visible(f"  seq {seq}: {words.proposed_now(ruleset, state, proposal)}")
        for seq, proposal in state.proposals.items()
    ]


def pools_line(state: State) -> str | None:
    """`pools: sb 3`, or None when the system has no pools."""
    return pools_text(state.pools)


def log_table(
    records: Sequence[events.Recorded],
    retracted: Mapping[int, int],
    corrected: Mapping[int, Sequence[int]] | None = None,
    gone: frozenset[int] = frozenset(),
    rewound: Mapping[int, int] | None = None,
) -> Grid:
    """The stream, retracted, set aside and corrected events marked; the round and scene of
    each event when it has any."""
    shape = log_shape(records, gone, rewound)
    rows = list(log_rows(records, retracted, corrected, gone, shape, rewound))
    return log_columns(shape), rows


class LogShape(NamedTuple):
    """Which optional columns the log has: a round, a scene, where an event was imported from."""

    rounds: bool = False
    scenes: bool = False
    sources: bool = False


def log_shape(
    records: Iterable[events.Recorded],
    gone: frozenset[int],
    rewound: Mapping[int, int] | None = None,
) -> LogShape:
    """Whether any event of the stream is in a round, any in a scene, and any was imported from
    a file (the log then has those columns), read as the stream comes."""
    rounds = scenes = sources = False
    for r, at, where in gametime.stamps(records, _played(gone, rewound)):
        rounds, scenes = rounds or at is not None, scenes or where is not None
        sources = sources or bool(events.origin(r.event))
    return LogShape(rounds, scenes, sources)


def log_columns(shape: LogShape) -> list[str]:
    """The log's column names."""
    time = ["round"] * shape.rounds + ["scene"] * shape.scenes
    return ["seq", "recorded_at", *time, "type", *["source"] * shape.sources, "details"]


def _played(gone: frozenset[int], rewound: Mapping[int, int] | None) -> frozenset[int]:
    """The seqs that count for nothing, less those a rewind set aside: they were played in
    their round, and the log tells them so."""
    return gone - set(rewound or {})


def log_rows(
    records: Iterable[events.Recorded],
    retracted: Mapping[int, int],
    corrected: Mapping[int, Sequence[int]] | None,
    gone: frozenset[int],
    shape: LogShape,
    rewound: Mapping[int, int] | None = None,
) -> Iterator[list[str]]:
    """The log's rows, one an event, as the stream is read (none of it is kept)."""
    for r, at, where in gametime.stamps(records, _played(gone, rewound)):
        details = summary(r.event)
        if r.seq in retracted:
            details = f"(retracted by seq {retracted[r.seq]}) {details}"
        elif r.seq in (rewound or {}):
            details = f"(set aside by the rewind at seq {(rewound or {})[r.seq]}) {details}"
        fixes = (corrected or {}).get(r.seq)
        if fixes:
            details = f"(corrected by seq {', '.join(map(str, fixes))}) {details}"
        time = [value(at)] * shape.rounds + [value(where)] * shape.scenes
        source = [events.origin(r.event) or "-"] * shape.sources
        yield [str(r.seq), r.recorded_at, *time, r.type, *source, details]


#: Rows drawn as one table on a terminal; a longer grid is drawn a table of them at a time.
CHUNK = 1000


def show_rows(names: list[str], rows: Iterable[list[str]]) -> None:
    """A grid whose rows come as they are read: tab-separated lines as they come, or on a
    terminal a table every `CHUNK` rows (memory stays bounded however long the grid)."""
    if plain():
        sys.stdout.write(tsv(names))
        for row in rows:
            sys.stdout.write(tsv(visible(cell) for cell in row))
        return
    chunk: list[list[str]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            show((names, chunk))
            chunk = []
    if chunk:
        show((names, chunk))


def findings_table(findings: Sequence[Finding]) -> Grid:
    """One row a finding."""
    rows = [[f.severity, f.rule, ", ".join(map(str, f.seq)), f.message] for f in findings]
    return ["severity", "rule", "seq", "message"], rows


def heads_table(heads: Sequence[Head]) -> Grid:
    """`list`: one row an encounter, with its whole head digest (what a GM publishes); an
    erased encounter (whose title is gone with its contents) says so in its title's place."""
    rows = [
        [
            h.encounter,
            h.system,
            "(erased)" if h.erased else h.title or "-",
            str(h.seq),
            h.hash,
            h.updated_at,
        ]
        for h in heads
    ]
    return ["encounter", "system", "title", "events", "head", "updated"], rows


# The tracks as people read them, from the plain `tracks --json` document.

#: A table as text: its column names, then its rows of cells (unescaped).
Grid = tuple[list[str], list[list[str]]]


def tsv(cells: Iterable[str]) -> str:
    """One tab-separated line (a tab or line break inside a cell becomes a space)."""
    return "\t".join(" ".join(c.split()) if c else "" for c in cells) + "\n"


def grid_lines(grid: Grid) -> str:
    """A grid as `--plain` prints it: its header line, then one tab-separated line a row."""
    names, rows = grid
    return tsv(names) + "".join(tsv(visible(cell) for cell in row) for row in rows)


def track_grids(view: Mapping[str, Any], read: Readings) -> list[Grid]:
    """One grid a side (players, then adversaries): a row a combatant, a column a track, each
    value as `read` (how the tracks of the encounter's system read) has it."""
    grids: list[Grid] = []
    for side in ("player", "adversary"):
        rows = {n: t for n, t in view["combatants"].items() if t["side"] == side}
        if not rows:
            continue
        columns: list[str] = []
        for tracks in rows.values():
            for key in tracks:
                if key not in ("side", "status") and key not in columns:
                    columns.append(key)
        names = [name.replace("_", " ") for name in (side, "status", *columns)]
        cells = [
            [name, tracks["status"], *(shown(tracks.get(c), read.get(c)) for c in columns)]
            for name, tracks in rows.items()
        ]
        grids.append((names, cells))
    return grids


def tracks_header(encounter: str, system: str, seq: int, round_: int | None, scene: Scene) -> str:
    """`duel (SYSTEM) at seq 9, round 2`: the first line of `tracks`."""
    time = when(round_, scene)
    return visible(f"{encounter} ({system}) at seq {seq}" + (f", {time}" if time else ""))


# Plain words for what a change did: the downstream diff of an undo, redo or amend, and the
# entries of a combatant's history. One place, so that every command says it the same way.


def change(c: Change, read: Readings) -> str:
    """`Ogre resilience: 3 -> 4`, each value as the tables show it (`read`: how the tracks of
    the encounter's system read); a status in words: `Ogre is no longer defeated (status
    defeated -> active)`."""
    shown = value
    if c.track == "status" and c.after is None:
        return f"{c.combatant}: no longer in the encounter (was {shown(c.before)})"
    reading = c.reading(read)
    was = f"{shown(c.before, reading)} -> {shown(c.after, reading)}"
    if c.track == "status" and c.before is not None:
        if c.after == "active":
            return f"{c.combatant} is no longer {shown(c.before)} (status {was})"
        return f"{c.combatant} is now {shown(c.after)} (status {was})"
    return f"{c.combatant} {words.plain(c.track)}: {was}"


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
    if d.first_divergence is None and (d.findings_removed or d.findings_added):
        lines = ["Downstream: every seq folds as it did; the audit judges it otherwise."]
    elif d.first_divergence is None:
        lines = ["Downstream: nothing changes (every seq folds as it did)."]
    else:
        lines = [f"Downstream: the encounter changes from seq {d.first_divergence} on."]
    if d.changes:
        lines.append("Tracks changed:")
        lines += ["  " + change(c, read) for c in d.changes]
    else:
        lines.append("No track changed.")
    if d.rolls:
        lines.append("Rolls changed:")
        for roll in d.rolls:
            who = ", ".join(x for x in (roll.actor, repr(roll.stake) if roll.stake else None) if x)
            lines.append(f"  seq {roll.seq}" + (f" ({who})" if who else "") + f": {roll.text}")
    if d.findings_removed:
        lines.append("Findings gone:")
        lines += ["  " + finding(f) for f in d.findings_removed]
    if d.findings_added:
        lines.append("Findings added:")
        lines += ["  " + finding(f) for f in d.findings_added]
    return lines


def what_happened(step: Step, combatant: str) -> dict[str, str]:
    """{track: what the step did to it}, from its ruleset, for the tracks it touched."""
    ruleset = step.ruleset
    touched = ruleset.touches(step.before, step.record.seq, step.record.event, step.state)
    return dict(touched.get(combatant, {}))


def history_entry(step: Step, combatant: str) -> list[str]:
    """One `history` entry: the event in words, then each track it touched, before -> after and what
    happened to it (a track that ends where it started says so); an event that named the
    combatant and changed none of its tracks says, in words, what it was."""
    lines = [told(step)]
    notes = what_happened(step, combatant)
    read = systems.readings(step.state.system)
    for c in step.changes:
        line = change_lines([c], read)[0]
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
