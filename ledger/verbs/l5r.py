"""L5R verbs: `damage`, a `damage.dealt` event from positional amounts and options."""

# No `from __future__ import annotations`: typer reads these annotations when the CLI loads
# the verbs.
from typing import Annotated, Any

import typer

from ledger.cli import conventions
from ledger.cli.options import By, Encounter, Expect, Json, Round, Scene, Strict, game_time
from ledger.cli.write import record_command
from ledger.events.l5r import DamageType

#: The verbs (`ledger.systems.l5r` names this app).
verbs = typer.Typer()


#: Completion of combatant names from the ledger file.
who = conventions.complete_combatants


@verbs.command()
def damage(
    ctx: typer.Context,
    name: Encounter,
    target: Annotated[str, typer.Argument(help="Who takes the damage.", autocompletion=who)],
    amount: Annotated[int, typer.Argument(help="The damage dealt, before changes.")],
    damage_type: Annotated[
        DamageType, typer.Option("--type", help="The damage type (picks the resistance).")
    ] = "physical",
    deadliness: Annotated[
        int | None,
        typer.Option("--deadliness", help="The source's deadliness (needed for a critical)."),
    ] = None,
    increase: Annotated[
        list[int] | None, typer.Option("--increase", help="A damage increase; repeat.")
    ] = None,
    reduction: Annotated[
        list[int] | None,
        typer.Option("--reduction", help="A reduction besides resistance; repeat."),
    ] = None,
    void_critical: Annotated[
        bool,
        typer.Option("--void-critical", help="Spend 1 Void point to take a critical strike."),
    ] = False,
    weapon: Annotated[
        str | None, typer.Option("--weapon", help="The weapon, power or phenomenon.")
    ] = None,
    source: Annotated[str | None, typer.Option("--source", hidden=True)] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Deal damage: increases, then reductions and resistance; fatigue or a critical strike."""
    fields: dict[str, Any] = {
        "type": "damage.dealt",
        "target": target,
        "amount": amount,
        "damage_type": damage_type,
        "increases": increase or [],
        "reductions": reduction or [],
        "voluntary_critical": void_critical,
    }
    if deadliness is not None:
        fields["deadliness"] = deadliness
    # --source is the old spelling of --weapon (lock's --source was another thing).
    if (weapon or source) is not None:
        fields["source"] = weapon or source
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )
