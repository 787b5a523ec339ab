"""Candlelight's verb: `snuff`, a `candle.snuffed` event."""

# No `from __future__ import annotations`: typer reads these annotations when the CLI loads
# the verbs.
from typing import Annotated

import typer

from ledger.cli.options import By, Encounter, Expect, Json, Round, Scene, Strict, game_time
from ledger.cli.write import record_command as record

verbs = typer.Typer()


@verbs.command()
def snuff(
    ctx: typer.Context,
    name: Encounter,
    target: Annotated[str, typer.Argument(help="Whose candles go out.")],
    count: Annotated[int, typer.Argument(help="How many candles.")] = 1,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Snuff candles: the last one out leaves the combatant in the dark (defeated)."""
    fields = {"type": "candle.snuffed", "target": target, "count": count}
    record(ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by))
