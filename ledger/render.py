"""How the CLI shows things to people: rich tables and one-line summaries (no logic here).

rich is imported by the functions that build a table or a console, not with this module: JSON
output and error lines never need it. Every user-supplied string reaches rich as plain `Text`
(never as markup), and control characters in it are shown escaped (`visible`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ledger import events, fit, plaintext
from projections.registry import readings
from projections.shown import Reading, Readings, shown

if TYPE_CHECKING:
    from rich.table import Table

    from ledger.rows import Head
    from projections.core import State
    from projections.findings import Finding
    from projections.steps import Change, Step


#: `--plain` was given: tab-separated rows even on a terminal.
_plain = False


def configure(plain: bool = False) -> None:
    """Set this run's output style (the app's callback calls it once a command line)."""
    global _plain
    _plain = plain


def plain() -> bool:
    """Tab-separated rows, not tables: asked for with --plain, or stdout is not a terminal."""
    return _plain or not sys.stdout.isatty()


visible = plaintext.visible
literal = plaintext.literal
console = plaintext.console


def show(*tables: Table) -> None:
    """Print tables for people: on a terminal rich tables as wide as their words need, or a block
    a row when even that is too wide (`ledger.fit`); else (or with --plain) each as a header
    line and one tab-separated line a row, nothing cut or wrapped."""
    if not plain():
        fit.print_tables(console(), tables)
        return
    for table in tables:
        sys.stdout.write(plaintext.tsv([str(c.header) for c in table.columns]))
        cells = [[str(cell) for cell in column.cells] for column in table.columns]
        for row in zip(*cells, strict=True):
            sys.stdout.write(plaintext.tsv(row))


def value(v: Any, reading: Reading | None = None) -> str:
    """A value in a table cell (as the audit's messages word it); a track's as `reading`, its
    system's, has it."""
    return shown(v, reading)


def summary(event: events.EventBase) -> str:
    """The fields of an event, compactly: `target=Ogre harm=2`."""
    body = events.body_of(event)
    parts = []
    for key, v in body.items():
        if key == "rules" and isinstance(v, Mapping):
            # The pinned house-rule table is long; `log --json` and `export` show it whole.
            parts.append(f"rules=({len(v)} house rules pinned)")
            continue
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"{key}={text}")
    return visible(" ".join(parts))


def echo_step(step: Step) -> None:
    """`seq 9 (round 1): the event in words`, then the tracks it changed."""
    from projections.gametime import when

    time = when(step.round, step.scene)
    told = f"seq {step.record.seq}" + (f" ({time})" if time else "") + f": {step.text}"
    say([visible(told), *change_lines(step.changes, readings(step.state.system))])


def say(lines: Sequence[str]) -> None:
    """Print lines of prose: on a terminal wrapped at spaces to its width (`ledger.fit`), else
    (or with --plain) each as it is."""
    import typer

    if not plain():
        fit.print_lines(console(), lines)
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
        f"  {c.combatant} {c.track}: {value(c.before, reading)} -> {value(c.after, reading)}"
    )


def finding_line(f: Finding) -> str:
    """`warning [rule] seq 5: message`."""
    seqs = ", ".join(map(str, f.seq))
    return visible(f"{f.severity} [{f.rule}] seq {seqs}: {f.message}")


def tracks_tables(state: State) -> list[Table]:
    """One table a side (players, then adversaries): a row a combatant, a column a track."""
    grids = plaintext.track_grids(state.view(), readings(state.system))
    return [plaintext.table(grid) for grid in grids]


def pools_line(state: State) -> str | None:
    """`pools: sb 3`, or None when the system has no pools."""
    return plaintext.pools_line(state.pools)


def log_table(
    records: Sequence[events.Recorded],
    retracted: Mapping[int, int],
    corrected: Mapping[int, Sequence[int]] | None = None,
    gone: frozenset[int] = frozenset(),
) -> Table:
    """The stream, retracted and corrected events marked; the round and scene of each event
    when it has any."""
    from rich.table import Table

    from projections import gametime

    stamped = list(gametime.stamps(records, gone))
    rounds = any(at is not None for _, at, _ in stamped)
    scenes = any(where is not None for _, _, where in stamped)
    table = Table(title_justify="left")
    columns = ["seq", "recorded_at", *(["round"] * rounds), *(["scene"] * scenes), "type"]
    for name in (*columns, "details"):
        table.add_column(name)
    for r, at, where in stamped:
        details = summary(r.event)
        if r.seq in retracted:
            details = f"(retracted by seq {retracted[r.seq]}) {details}"
        fixes = (corrected or {}).get(r.seq)
        if fixes:
            details = f"(corrected by seq {', '.join(map(str, fixes))}) {details}"
        time = [literal(value(at))] * rounds + [literal(value(where))] * scenes
        table.add_row(str(r.seq), literal(r.recorded_at), *time, literal(r.type), literal(details))
    return table


def findings_table(findings: Sequence[Finding]) -> Table:
    """One row a finding."""
    from rich.table import Table

    table = Table(title_justify="left")
    for name in ("severity", "rule", "seq", "message"):
        table.add_column(name)
    for f in findings:
        table.add_row(f.severity, f.rule, ", ".join(map(str, f.seq)), literal(f.message))
    return table


def heads_table(heads: Sequence[Head]) -> Table:
    """`list`: one row an encounter, with its head."""
    from rich.table import Table

    table = Table()
    for column in ("encounter", "system", "title", "events", "head", "updated"):
        table.add_column(column)
    for h in heads:
        cells = (h.encounter, h.system, h.title or "-", str(h.seq), h.hash[:12], h.updated_at)
        table.add_row(*map(literal, cells))
    return table
