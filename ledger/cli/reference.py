"""The reference commands of `encounter`: `schema` (the JSON Schema of the events), `rules`
(a system's house rules, their defaults and meanings) and `views` (the SQL views and the
track_changes read model for sqlite-utils and Datasette). `ledger.cli` adds them (`commands`)
to the app last."""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import json
from typing import Annotated

import typer

from ledger import api, reference
from ledger.cli import render
from ledger.cli.errors import guard
from ledger.cli.options import Json, SystemChoice, emit_json
from ledger.store import views as sql_views

#: The reference commands (`ledger.cli` adds them to the app last).
commands = typer.Typer()


@commands.command()
def schema(
    system: Annotated[
        SystemChoice | None,
        typer.Option("--system", help="One system's events (default: all)."),
    ] = None,
) -> None:
    """The JSON Schema (2020-12) of one line of an events file, from the event models."""
    document = guard(lambda: reference.schema(system.value if system else None))
    typer.echo(json.dumps(document, indent=2, ensure_ascii=False))


@commands.command()
def rules(
    system: Annotated[SystemChoice, typer.Argument(help="The rule system.")],
    json_: Json = False,
) -> None:
    """A system's house rules: each key, its default, and what it means."""
    found = guard(lambda: reference.rules(system.value))
    if json_:
        emit_json({"system": system.value, "rules": found})
        return
    rows = [
        [rule["key"], json.dumps(rule["default"], ensure_ascii=False), rule["meaning"] or ""]
        for rule in found
    ]
    render.show((["rule", "default", "meaning"], rows))
    typer.echo(
        f"Override any of them with: encounter new NAME --system {system.value} --rules house.json"
    )


@commands.command()
def views(
    ctx: typer.Context,
    drop: Annotated[
        bool, typer.Option("--drop", help="Delete the read model and the views instead.")
    ] = False,
) -> None:
    """Create the SQL views (events_view, encounters) and rebuild the track_changes table,
    for sqlite-utils and Datasette users; a cache, never needed by the ledger itself."""
    # Writable, but never created: views of a file that does not exist would be empty.
    with guard(lambda: api.Ledger(ctx.obj, create=False)) as ledger:
        if drop:
            guard(ledger.drop_views)
            typer.echo(f"Dropped track_changes and the views from {ctx.obj}.")
            return
        counts = guard(ledger.rebuild_views)
    each = ", ".join(f"{name} {n}" for name, n in counts.items()) or "no encounters"
    typer.echo(
        f"Rebuilt track_changes: {sum(counts.values())} rows ({each}). "
        f"Views: {', '.join(sql_views.SQLITE_VIEWS)}."
    )
