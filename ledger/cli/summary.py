"""`encounter stats` and `encounter recap`: what the fight came to, in numbers and in a few
lines to post (`ledger.report.statistics`, `ledger.report.recap`).

NAME is an encounter of the ledger file or a `.jsonl` file read into memory, as for every read.
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
from typing import Annotated

import typer

from ledger.cli.errors import guard
from ledger.cli.options import Json, Source, emit_json, source
from ledger.cli.report import loaded
from ledger.report import markdown as markdown_report
from ledger.report import recap as recaps

#: `stats` and `recap` (`ledger.cli` adds them to the app with the report commands).
commands = typer.Typer()


@commands.command()
def stats(ctx: typer.Context, name: Source, json_: Json = False) -> None:
    """Statistics: damage dealt and taken by combatant, track and round; rolls per actor beside
    the chances their dice gave; the GM's pools; who fell when; rulings and findings."""
    with source(ctx, name) as (ledger, encounter):
        found = guard(lambda: ledger.stats(encounter))
    if json_:
        emit_json(found.document())
        return
    typer.echo(markdown_report.statistics_text(found))


@commands.command()
def recap(
    ctx: typer.Context,
    name: Source,
    format_: Annotated[
        recaps.Form,
        typer.Option(
            "--format",
            help="md: Markdown; discord: a Discord message (2,000 characters at most); text: "
            "plain text.",
        ),
    ] = recaps.Form.md,
) -> None:
    """A short summary to post: who fought whom, the decisive moments in words, who fell, the
    numbers (the same facts as the report)."""
    with loaded(ctx, name) as report:
        text = recaps.recap(report, format_)
    typer.echo(text, nl=False)
