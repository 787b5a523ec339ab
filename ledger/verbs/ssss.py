"""Stones, Scrolls, Swords and Sorcery verbs: `harm`, a `harm.inflicted` event."""

# No `from __future__ import annotations`: typer reads these annotations when the CLI loads
# the verbs.
from typing import Annotated, Any

import typer

from ledger.cli import conventions
from ledger.cli.options import By, Encounter, Expect, Json, Round, Scene, Strict, game_time
from ledger.cli.write import record_command

#: The verbs (`ledger.systems.ssss` names this app).
verbs = typer.Typer()

#: Completion of combatant names from the ledger file.
who = conventions.complete_combatants


@verbs.command()
def harm(
    ctx: typer.Context,
    name: Encounter,
    target: Annotated[str, typer.Argument(help="Who takes the Harm.", autocompletion=who)],
    level: Annotated[int, typer.Argument(help="The Harm level.")],
    throw: Annotated[
        int | None, typer.Option("--throw", help="The seq of the Throw that inflicted it.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Inflict Harm: the lowest free slot at or above its level, else defeat."""
    fields: dict[str, Any] = {"type": "harm.inflicted", "target": target, "level": level}
    if throw is not None:
        fields["throw"] = throw
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )
