"""Stones, Scrolls, Swords and Sorcery verbs: `harm`, a `harm.inflicted` event."""

# No `from __future__ import annotations`: typer reads these annotations at registration,
# where `cli` is a local name (imported late: ledger.cli imports this module).
from typing import Annotated, Any

import typer

from ledger import conventions

#: Completion of combatant names from the ledger file.
who = conventions.complete_combatants


def register(app: typer.Typer) -> None:
    """Add `harm` to the app."""
    from ledger import cli

    @app.command()
    def harm(
        ctx: typer.Context,
        name: cli.Encounter,
        target: Annotated[str, typer.Argument(help="Who takes the Harm.", autocompletion=who)],
        level: Annotated[int, typer.Argument(help="The Harm level.")],
        throw: Annotated[
            int | None, typer.Option("--throw", help="The seq of the Throw that inflicted it.")
        ] = None,
        strict: cli.Strict = False,
        expect: cli.Expect = None,
        json_: cli.Json = False,
        round_: cli.Round = None,
        scene: cli.Scene = None,
        by: cli.By = None,
    ) -> None:
        """Inflict Harm: the lowest free slot at or above its level, else defeat."""
        fields: dict[str, Any] = {"type": "harm.inflicted", "target": target, "level": level}
        if throw is not None:
            fields["throw"] = throw
        cli.record_command(
            ctx, name, fields, strict, expect, json_=json_, stamp=cli.game_time(round_, scene, by)
        )
