"""The `encounter` command: a thin typer shell over `ledger.service` (parse, call, render).

The generic commands are here; each system's verbs are in `ledger.verbs`, the shared plumbing
(the app, parameter types, errors, KEY=VALUE fields) in `ledger.shell`.
"""

# No `from __future__ import annotations`: typer reads every command's annotations each time the
# app runs, and would compile and evaluate string annotations there (twice each).
import gc
import sys
from pathlib import Path
from typing import Annotated

import typer

from ledger import events, files, render, service
from ledger.errors import BadInput
from ledger.shell import (
    Encounter,
    Expect,
    Json,
    Side,
    Source,
    Strict,
    System,
    app,
    emit_json,
    emit_recorded,
    fail,
    guard,
    names_a_file,
    opened,
    parse_pairs,
    read_json_object,
    record_command,
    source,
)

__all__ = ["Encounter", "Expect", "Json", "Strict", "app", "fail", "main", "record_command"]


@app.command()
def new(
    ctx: typer.Context,
    name: Encounter,
    system: Annotated[System, typer.Option("--system", help="The rule system.")],
    title: Annotated[str | None, typer.Option("--title", help="A title for people.")] = None,
    rules: Annotated[
        Path | None, typer.Option("--rules", help="A JSON file of house-rule overrides.")
    ] = None,
    json_: Json = False,
) -> None:
    """Open a new encounter, pinning its house rules."""
    overrides = read_json_object(rules, "--rules") if rules else {}
    with opened(ctx) as ledger:
        result = ledger.open(name, system.value, title=title, rules=overrides)
    if json_:
        emit_recorded(result)
    typer.echo(f"Opened {name!r} ({system.value}) at seq {result.seq}.")


@app.command()
def add(
    ctx: typer.Context,
    name: Encounter,
    combatant: Annotated[str, typer.Argument(help="The combatant's name.")],
    side: Annotated[Side, typer.Option("--side", help="player or adversary.")],
    stat: Annotated[
        list[str] | None, typer.Option("--stat", help="KEY=VALUE (JSON values); repeat.")
    ] = None,
    from_file: Annotated[
        Path | None, typer.Option("--from", help="A JSON file with the stat block.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Add a combatant with its stat block."""
    stats = read_json_object(from_file, "--from") if from_file else {}
    stats.update(parse_pairs(stat or [], "--stat"))
    fields = {"type": "combatant.joined", "name": combatant, "side": side.value, "stats": stats}
    record_command(ctx, name, fields, strict, expect, json_=json_)


@app.command()
def record(
    ctx: typer.Context,
    name: Encounter,
    type: Annotated[str, typer.Argument(help="The event type, e.g. hit.resolved.")],
    fields: Annotated[
        list[str] | None, typer.Argument(help="KEY=VALUE fields; values parse as JSON.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Record any event by its type."""
    data = parse_pairs(fields or [], "field")
    if "type" in data:
        fail(BadInput("give the type as the TYPE argument, not as a field"))
    record_command(ctx, name, {"type": type, **data}, strict, expect, json_=json_)


@app.command()
def undo(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[
        int | None, typer.Argument(help="The seq to retract (default: the last event).")
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the ruling is undone.")] = "",
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Retract a mistaken event; every later track is recomputed."""
    if not reason.strip():
        fail(BadInput("undo needs --reason TEXT (the ledger keeps why a ruling changed)"))
    with opened(ctx) as ledger:
        result = guard(lambda: ledger.undo(name, seq, reason=reason, strict=strict, expect=expect))
    if json_:
        emit_recorded(result)
    _show_retraction(result, "undid")


@app.command()
def redo(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[
        int | None,
        typer.Argument(help="The retraction, or the event it retracted (default: the last undo)."),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why.")] = "redo",
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Retract a retraction: the undone event counts again."""
    with opened(ctx) as ledger:
        result = guard(lambda: ledger.redo(name, seq, reason=reason, strict=strict, expect=expect))
    if json_:
        emit_recorded(result)
    _show_retraction(result, "redid")


@app.command()
def amend(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[int, typer.Argument(help="The seq of the event to correct.")],
    fields: Annotated[
        list[str] | None,
        typer.Argument(help="KEY=VALUE fields to change; values parse as JSON (null clears)."),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the event is corrected.")] = "",
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Correct an event: retract it and record it again with some fields changed, at once."""
    if not reason.strip():
        fail(BadInput("amend needs --reason TEXT (the ledger keeps why a ruling changed)"))
    changed = parse_pairs(fields or [], "field")
    if not changed:
        fail(BadInput("amend needs at least one KEY=VALUE field to change"))
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.amend(name, seq, changed, reason=reason, strict=strict, expect=expect)
        )
    if json_:
        emit_recorded(result)
    undone, redone = result.records
    typer.echo(
        f"Amended seq {seq}: retracted by seq {undone.seq}, recorded again as seq {redone.seq} "
        f"({redone.type})"
    )
    rolled = render.roll_line(result.state, redone.seq)
    if rolled:
        typer.echo(rolled)
    for line in render.change_lines(result.changes):
        typer.echo(line)
    for finding in result.findings:
        if finding.rule != "ruling-reversed":
            typer.echo(render.finding_line(finding))


def _show_retraction(result: service.Recorded, verb: str) -> None:
    record = result.records[-1]
    target = getattr(record.event, "target", "?")
    typer.echo(f"Recorded seq {record.seq}: event.retracted ({verb} seq {target})")
    if result.changes:
        typer.echo("Tracks changed:")
        for line in render.change_lines(result.changes):
            typer.echo(line)
    else:
        typer.echo("No track changed.")
    for finding in result.findings:
        if finding.rule != "ruling-reversed":
            typer.echo(render.finding_line(finding))


@app.command()
def log(ctx: typer.Context, name: Source, json_: Json = False) -> None:
    """Every event, retractions included; undone events marked with the seq that undid them."""
    from projections.core import excluded

    with source(ctx, name) as (ledger, encounter):
        records = guard(lambda: ledger.records(encounter))
    gone = excluded(records)
    by: dict[int, int] = {}
    for r in records:
        target = getattr(r.event, "target", None)
        if r.type == "event.retracted" and r.seq not in gone and isinstance(target, int):
            by[target] = r.seq
    if json_:
        # The export's lines, and on each event that does not count the seq that retracts it.
        for record in records:
            line = record.exchange()
            if record.seq in by:
                line["retracted_by"] = by[record.seq]
            emit_json(line)
        return
    render.console().print(render.log_table(records, by))


@app.command()
def tracks(
    ctx: typer.Context,
    name: Source,
    at: Annotated[int | None, typer.Option("--at", help="The tracks right after this seq.")] = None,
    without: Annotated[
        list[int] | None, typer.Option("--without", help="As if this seq never happened; repeat.")
    ] = None,
    json_: Json = False,
) -> None:
    """The tracks of every combatant (now, at a seq, or without some events)."""
    with source(ctx, name) as (ledger, encounter):
        state = guard(lambda: ledger.tracks(encounter, at=at, without=without or ()))
    if json_:
        emit_json(state.view())
        return
    out = render.console()
    typer.echo(f"{state.encounter} ({state.system}) at seq {state.seq}")
    for table in render.tracks_tables(state):
        out.print(table)
    pools = render.pools_line(state)
    if pools:
        out.print(pools)


@app.command()
def replay(
    ctx: typer.Context,
    name: Source,
    start: Annotated[int | None, typer.Option("--from", help="First seq shown.")] = None,
    end: Annotated[int | None, typer.Option("--to", help="Last seq folded.")] = None,
    without: Annotated[
        list[int] | None, typer.Option("--without", help="As if this seq never happened; repeat.")
    ] = None,
    json_: Json = False,
) -> None:
    """Step through the encounter: each effective event and the tracks it changed."""
    with source(ctx, name) as (ledger, encounter):
        steps = guard(lambda: list(ledger.replay(encounter, start, end, without or ())))
    for step in steps:
        if json_:
            emit_json(step.document())
            continue
        typer.echo(f"seq {step.record.seq} {step.record.type} {render.summary(step.record.event)}")
        if step.skipped is not None:
            typer.echo(f"  no longer applies: {step.skipped}")
        rolled = render.roll_line(step.state, step.record.seq)
        if rolled:
            typer.echo(rolled)
        for line in render.change_lines(step.changes):
            typer.echo(line)


@app.command()
def history(
    ctx: typer.Context,
    name: Source,
    combatant: Annotated[str, typer.Argument(help="Whose tracks to follow.")],
    track: Annotated[
        str | None, typer.Option("--track", help="Only this track (e.g. fatigue).")
    ] = None,
    json_: Json = False,
) -> None:
    """What happened to one combatant (or one track): each event that changed it, and how."""
    with source(ctx, name) as (ledger, encounter):
        found = guard(lambda: list(ledger.history(encounter, combatant, track)))
    if json_:
        for step in found:
            emit_json(
                {
                    "seq": step.record.seq,
                    "type": step.record.type,
                    "event": events.body_of(step.record.event),
                    "changes": [c.model_dump(mode="json") for c in step.changes],
                }
            )
        return
    if not found:
        what = f"{combatant}'s {track}" if track else f"{combatant}'s tracks"
        typer.echo(f"No event changed {what}.")
    for step in found:
        typer.echo(f"seq {step.record.seq} {step.record.type} {render.summary(step.record.event)}")
        for line in render.change_lines(step.changes):
            typer.echo(line)


@app.command()
def audit(ctx: typer.Context, name: Source, json_: Json = False) -> None:
    """Check the encounter against its rules; exit 1 when any finding is an error."""
    with source(ctx, name) as (ledger, encounter):
        findings = guard(lambda: ledger.audit(encounter))
    errors = sum(f.severity == "error" for f in findings)
    if json_:
        emit_json(
            {"encounter": encounter, "findings": [f.model_dump(mode="json") for f in findings]}
        )
    elif findings:
        render.console().print(render.findings_table(findings))
        warnings = sum(f.severity == "warning" for f in findings)
        notes = len(findings) - errors - warnings
        typer.echo(f"{errors} error(s), {warnings} warning(s), {notes} note(s).")
    else:
        typer.echo(f"{encounter}: no findings.")
    if errors:
        raise typer.Exit(1)


@app.command("list")
def list_(ctx: typer.Context, json_: Json = False) -> None:
    """The encounters in the ledger file."""
    if not Path(ctx.obj).exists():
        heads = []
    else:
        with opened(ctx, create=False) as ledger:
            heads = ledger.encounters()
    if json_:
        emit_json([h.model_dump(mode="json") for h in heads])
        return
    if not heads:
        typer.echo(f"No encounters in {ctx.obj}.")
        return
    from rich.table import Table

    table = Table()
    for column in ("encounter", "system", "title", "events", "head", "updated"):
        table.add_column(column)
    for h in heads:
        table.add_row(h.encounter, h.system, h.title or "-", str(h.seq), h.hash[:12], h.updated_at)
    render.console().print(table)


@app.command()
def export(
    ctx: typer.Context,
    name: Encounter,
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file.")] = None,
) -> None:
    """The encounter as JSON Lines, envelope and chain included."""
    with opened(ctx, create=False) as ledger:
        lines = guard(lambda: list(ledger.export(name)))
    text = "".join(line + "\n" for line in lines)
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(BadInput(f"cannot write {out}: {exc.strerror}"))
    typer.echo(f"Exported {len(lines)} events of {name!r} to {out}.", err=True)


@app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A JSON Lines file ('-' for stdin).")],
    into: Annotated[
        str | None, typer.Option("--into", help="The encounter to import into.")
    ] = None,
    new_ids: Annotated[
        bool, typer.Option("--new-ids", help="Fresh ids and seqs: copy under another name.")
    ] = False,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Import JSON Lines: all lines or none; events already stored are skipped."""
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except FileNotFoundError:
        fail(BadInput(f"no such file: {file}"))
    except UnicodeDecodeError as exc:
        fail(BadInput(f"{file} is not UTF-8 text (byte {exc.start})"))
    except OSError as exc:
        fail(BadInput(f"cannot read {file}: {exc.strerror}"))
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.import_lines(
                text.splitlines(),
                into=into,
                new_ids=new_ids,
                strict=strict,
                expect=expect,
                source="stdin" if str(file) == "-" else str(file),
            )
        )
    if json_:
        emit_json(result.model_dump(mode="json"))
        return
    typer.echo(
        f"Imported {result.appended} event{'s' * (result.appended != 1)} into {result.encounter!r} "
        f"({result.already_stored} already stored); head seq {result.head}."
    )


@app.command()
def verify(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(help="One encounter, or an exported .jsonl file (default: all)."),
    ] = None,
) -> None:
    """Recompute the hash chains; exit 1 when one is broken."""
    if name is not None and names_a_file(name):
        file = name
        reports = [guard(lambda: files.verify_file(file))]
    else:
        with opened(ctx, create=False) as ledger:
            reports = guard(lambda: ledger.verify(name))
    broken = False
    for r in reports:
        if r.ok:
            typer.echo(f"{r.encounter}: {r.events} events, chain ok, head {r.head}")
        else:
            broken = True
            typer.echo(f"{r.encounter}: BROKEN at seq {r.bad_seq}: {r.problem}")
    if not reports:
        typer.echo(f"No encounters in {ctx.obj}.")
    if broken:
        raise typer.Exit(1)


def _register_verbs() -> None:
    from ledger import verbs

    verbs.register_all(app)


_register_verbs()


def main() -> None:
    """Entry point of the `encounter` console script."""
    # Everything loaded so far (models, schemas, commands) lives until the process ends: moved
    # out of the collector's sight, it is not walked again by each collection during the
    # command nor by the collections at exit (about a tenth of a short command's time).
    gc.freeze()
    app()
