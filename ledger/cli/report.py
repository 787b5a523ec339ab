"""The commands that judge and publish an encounter: `audit`, `export` (JSON Lines, or the
Markdown session log) and `report --html`, with the helpers they share.

NAME is an encounter of the ledger file or a `.jsonl` file read into memory, as for every read.
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ledger import api, jsonl
from ledger.cli import progress, render
from ledger.cli.errors import fail, guard, outcome
from ledger.cli.options import Json, Source, emit_json, names_a_file, source
from ledger.errors import BadInput
from ledger.report import Report, reading
from ledger.report import html as html_report
from ledger.report import markdown as markdown_report
from projections import words
from projections.words import plural


class ExportFormat(StrEnum):
    """What `export` writes."""

    jsonl = "jsonl"
    md = "md"


Html = Annotated[
    Path | None,
    typer.Option("--html", help="Write the self-contained HTML report to FILE ('-': stdout)."),
]


@contextmanager
def loaded(ctx: typer.Context, name: str) -> Iterator[Report]:
    """The report of NAME (an encounter, or a `.jsonl` file), the ledger open and read as of
    one moment while it is written (its story is replayed again as it is written)."""
    published = True
    if names_a_file(name):
        # A hand-written file carries no chain: the hashes of the in-memory copy are made up
        # on reading it, so there is no head to publish.
        items = (item for _, item in jsonl.iter_lines(jsonl.lines(Path(name)), name))
        chain = guard(lambda: jsonl.chain_of(items, name))
        published = chain is not None
    # A ledger error while the report is written (as while it is built) is one line and its
    # exit code: `source` says it.
    with source(ctx, name) as (ledger, encounter), reading(ledger, encounter, published) as report:
        yield report


def write(
    ctx: typer.Context,
    name: str,
    out: Path,
    text: str | Iterable[str],
    what: str,
    *,
    force: bool = True,
) -> None:
    """Write `text` to `out` whole (a temporary file renamed over it), or to stdout for '-';
    never over the file the report was read from, nor over the ledger file. Without `force`,
    as `export --out` writes: no link followed, no file replaced."""
    chunks = [text] if isinstance(text, str) else text
    if str(out) == "-":
        guard(lambda: sys.stdout.writelines(chunks))
        return
    sources = [Path(ctx.obj)] + ([Path(name)] if names_a_file(name) else [])
    target = out.resolve()
    if any(target == s.resolve() for s in sources):
        fail(BadInput(f"{what} would overwrite {out}, which it is read from: choose another file"))
    if out.is_dir():
        fail(BadInput(f"cannot write {out}: it is a directory"))
    # A report is for sharing: it replaces the file there (following a link, as a plain write
    # would), whole or not at all. An export keeps export's promise (`force` from --force).
    guard(lambda: jsonl.write_whole(out, chunks, force=force))


def html(ctx: typer.Context, name: str, out: Path, report: Report) -> None:
    """Write the HTML report of `report` to `out` as it is rendered, and say so on stderr."""
    write(ctx, name, out, html_report.chunks(report), "the report")
    if str(out) != "-":
        typer.echo(
            f"Wrote the report of {report.encounter!r} to {out} ({plural(report.events, 'event')}, "
            f"{plural(sum(1 for c in report.charts if c.labels), 'chart')}, "
            f"{plural(len(report.audit), 'finding')}).",
            err=True,
        )


def markdown(ctx: typer.Context, name: str, out: Path | None, *, force: bool = False) -> None:
    """`export NAME --format md [--out FILE] [--force]`: the Markdown session log, written as
    every export is (no link followed, no file replaced, without --force)."""
    with loaded(ctx, name) as report:
        chunks = markdown_report.session_chunks(report)
        write(ctx, name, out or Path("-"), chunks, "the session log", force=force)
    if out is not None and str(out) != "-":
        typer.echo(f"Exported the session log of {report.encounter!r} to {out}.", err=True)


#: audit, export and report (`ledger.cli.COMMANDS` says where each is listed).
commands = typer.Typer()


@commands.command()
def audit(ctx: typer.Context, name: Source, html_: Html = None, json_: Json = False) -> None:
    """Check the encounter against its rules; exit 1 when any finding is an error."""
    acts: list[dict[str, object]] | None = None
    if html_ is not None:
        with loaded(ctx, name) as report:
            html(ctx, name, html_, report)
        encounter, findings = report.encounter, list(report.findings)
    else:
        with source(ctx, name) as (ledger, encounter):
            head = ledger.store.head(encounter) if progress.wanted(json_) else None
            show = head is not None and head.seq >= progress.LARGE_EVENTS
            what = f"Auditing {encounter} ({head.seq if head else 0:,} events)"
            with progress.bar(what, None, show):
                findings = guard(lambda: ledger.audit(encounter))
            # An encounter with roles: who did what (an act outside the policy is a finding).
            acts = guard(lambda: ledger.acts(encounter))
    errors = sum(f.severity == "error" for f in findings)
    outcome(1 if errors else 0)
    if json_:
        document = {
            "encounter": encounter,
            "findings": [f.model_dump(mode="json") for f in findings],
        }
        if acts is not None:
            document["acts"] = acts
        emit_json(document)
        if errors:
            raise typer.Exit(1)
        return
    if findings:
        render.show(render.findings_table(findings))
        warnings = sum(f.severity == "warning" for f in findings)
        notes = len(findings) - errors - warnings
        typer.echo(
            f"{words.plural(errors, 'error')}, {words.plural(warnings, 'warning')}, "
            f"{words.plural(notes, 'note')}."
        )
    else:
        typer.echo(f"{encounter}: no findings.")
    if acts is not None:
        typer.echo("Who did what:")
        rows = [[str(a["seq"]), who_did(a), str(a["type"])] for a in acts]
        render.show((["seq", "by", "act"], rows))
    if errors:
        raise typer.Exit(1)


def who_did(act: dict[str, object]) -> str:
    """`ben (entered by gm)`: who an act names, and the GM who entered it for them."""
    who = str(act["by"] or "nobody named")
    entered = act.get("entered_by")
    return f"{who} (entered by {entered})" if entered is not None else who


@commands.command()
def export(
    ctx: typer.Context,
    name: Source,
    out: Annotated[Path | None, typer.Option("--out", help="Write to this file.")] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace an existing --out file (through a symlink)."),
    ] = False,
    format_: Annotated[
        ExportFormat,
        typer.Option(
            "--format", help="jsonl: the events, chain included; md: the session log in words."
        ),
    ] = ExportFormat.jsonl,
) -> None:
    """The encounter as JSON Lines (envelope and chain included), or as a Markdown log."""
    if format_ is ExportFormat.md:
        markdown(ctx, name, out, force=force)
        return
    count = 0

    def lines(ledger: api.Ledger, encounter: str) -> Iterator[str]:
        nonlocal count
        for line in ledger.export(encounter):
            count += 1
            yield line + "\n"

    with source(ctx, name) as (ledger, encounter):
        if out is None:
            guard(lambda: sys.stdout.writelines(lines(ledger, encounter)))
            return
        if out.resolve() == Path(ctx.obj).resolve():
            fail(BadInput(f"export would overwrite {out}, the ledger file itself"))
        guard(lambda: jsonl.write_whole(out, lines(ledger, encounter), force=force))
    typer.echo(f"Exported {plural(count, 'event')} of {name!r} to {out}.", err=True)


@commands.command()
def report(ctx: typer.Context, name: Source, html_: Html = None) -> None:
    """The post-session report: the timeline in words, track charts, rulings and findings."""
    if html_ is None:
        fail(BadInput("report needs --html FILE (the Markdown log is export --format md)"))
    with loaded(ctx, name) as report:
        html(ctx, name, html_, report)


__all__ = ["ExportFormat", "Html", "commands", "html", "loaded", "markdown"]
