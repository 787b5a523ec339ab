"""The reference commands of `encounter`: `schema` (the JSON Schema of the events) and `rules`
(a system's house rules, their defaults and meanings). Registered by `ledger.cli`."""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import json
from typing import Annotated

import typer

from ledger.shell import Json, System, app, emit_json, guard


def register() -> None:
    """Add the reference commands to the app."""

    @app.command()
    def schema(
        system: Annotated[
            System | None, typer.Option("--system", help="One system's events (default: all).")
        ] = None,
    ) -> None:
        """The JSON Schema (2020-12) of one line of an events file, from the event models."""
        from ledger import reference

        document = guard(lambda: reference.schema(system.value if system else None))
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))

    @app.command()
    def rules(
        system: Annotated[System, typer.Argument(help="The rule system.")],
        json_: Json = False,
    ) -> None:
        """A system's house rules: each key, its default, and what it means."""
        from ledger import reference, render

        found = guard(lambda: reference.rules(system.value))
        if json_:
            emit_json({"system": system.value, "rules": found})
            return
        from rich.table import Table

        table = Table()
        for column in ("rule", "default", "meaning"):
            table.add_column(column)
        for rule in found:
            default = json.dumps(rule["default"], ensure_ascii=False)
            table.add_row(rule["key"], default, rule["meaning"] or "")
        render.show(table)
        typer.echo(
            f"Override any of them with: encounter new NAME --system {system.value} "
            "--rules house.json"
        )
