"""Ironsworn verbs: `endure-harm` (harm.suffered), `action-roll` (roll.made), `oracle`.

The choices they offer are the events' own (`ledger.events.ironsworn`). Dice left out on the
command line are rolled here, at the edge: the ledger stores faces only.
"""

# No `from __future__ import annotations`: typer reads these annotations when the CLI loads
# the verbs.
import random
from typing import Annotated, Any

import typer

from ledger.cli import conventions
from ledger.cli.errors import fail
from ledger.cli.options import By, Encounter, Expect, Json, Round, Scene, Strict, game_time
from ledger.cli.write import record_command
from ledger.errors import BadInput
from ledger.events.ironsworn import Rank, Stat

#: The verbs (`ledger.systems.ironsworn` names this app).
verbs = typer.Typer()


def challenge_dice(text: str | None) -> list[int]:
    """Two challenge dice from `A,B`, or rolled when not given."""
    if text is None:
        return [random.randint(1, 10), random.randint(1, 10)]
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise BadInput(f"--challenge {text!r} is not two dice like 3,8")
    return [int(p) for p in parts]


#: Completion of combatant names from the ledger file.
who = conventions.complete_combatants


@verbs.command("endure-harm")
def endure_harm(
    ctx: typer.Context,
    name: Encounter,
    target: Annotated[
        str, typer.Argument(help="The character who suffers the harm.", autocompletion=who)
    ],
    amount: Annotated[
        int | None, typer.Option("--amount", help="The harm, as a move or asset names it.")
    ] = None,
    rank: Annotated[
        Rank | None, typer.Option("--rank", help="Harm of a rank: troublesome 1 ... epic 5.")
    ] = None,
    foe: Annotated[
        str | None,
        typer.Option("--foe", help="The attacking foe: its rank is the harm.", autocompletion=who),
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Endure Harm: -health (amount, else rank, else the foe's rank, else 2), rest -momentum."""
    fields: dict[str, Any] = {"type": "harm.suffered", "target": target}
    if amount is not None:
        fields["amount"] = amount
    if rank is not None:
        fields["rank"] = rank
    if foe is not None:
        fields["foe"] = foe
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("action-roll")
def action_roll(
    ctx: typer.Context,
    name: Encounter,
    actor: Annotated[str, typer.Argument(help="The character who rolls.", autocompletion=who)],
    using: Annotated[
        Stat | None, typer.Option("--using", help="The stat or meter added (required).")
    ] = None,
    stat: Annotated[Stat | None, typer.Option("--stat", hidden=True)] = None,
    move: Annotated[
        str, typer.Option("--move", help="The move: endure_harm, or another.")
    ] = "endure_harm",
    die: Annotated[
        int | None, typer.Option("--die", help="The action die (d6); rolled when left out.")
    ] = None,
    challenge: Annotated[
        str | None,
        typer.Option("--challenge", help="The challenge dice as A,B; rolled when left out."),
    ] = None,
    adds: Annotated[int, typer.Option("--adds", help="Adds to the action score.")] = 0,
    outcome: Annotated[
        str | None,
        typer.Option("--outcome", help="The table's call (strong_hit/weak_hit/miss), checked."),
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """An action roll: d6 + stat + adds (max 10) against two d10s."""
    stat = using or stat  # --stat: the old spelling (add's --stat is KEY=VALUE)
    if stat is None:
        fail(BadInput("action-roll needs --using STAT (edge, heart, iron, ...)"))
    try:
        dice = challenge_dice(challenge)
    except BadInput as exc:
        fail(exc)
    fields: dict[str, Any] = {
        "type": "roll.made",
        "actor": actor,
        "move": move,
        "stat": stat,
        "action_die": random.randint(1, 6) if die is None else die,
        "challenge": dice,
        "adds": adds,
    }
    if outcome is not None:
        fields["outcome"] = outcome
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("oracle")
def oracle(
    ctx: typer.Context,
    name: Encounter,
    target: Annotated[
        str, typer.Argument(help="The character the result is for.", autocompletion=who)
    ],
    result: Annotated[
        int | None, typer.Option("--roll", help="The d100 result; rolled when left out.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Roll on the Endure Harm oracle (d100): face death, dying, unconscious, reeling..."""
    fields: dict[str, Any] = {
        "type": "oracle.rolled",
        "target": target,
        "table": "endure_harm",
        "roll": random.randint(1, 100) if result is None else result,
    }
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )
