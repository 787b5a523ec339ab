"""The commands of the live table: propose, accept, reject, gm add and policy.

Players propose, a GM rules; each command appends one event through `ledger.api.Ledger` (the
policy in force judges it: a refused act is one line, exit 2, and nothing appended) and shows
what it did as every recording command does.
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import json
from pathlib import Path
from typing import Annotated

import typer

from ledger.cli.errors import fail, guard
from ledger.cli.options import (
    By,
    Encounter,
    Expect,
    Json,
    Round,
    Scene,
    Strict,
    emit_json,
    game_time,
    opened,
    parse_pairs,
    read_json_object,
    source,
)
from ledger.cli.write import emit_recorded, record_command, show_recorded
from ledger.errors import BadInput
from projections import policy as policies

#: The live table's commands (`ledger.cli` adds them to the app).
commands = typer.Typer()

Seq = Annotated[int, typer.Argument(help="The seq of the proposal.")]
Fields = Annotated[
    list[str] | None,
    typer.Argument(help="KEY=VALUE fields; values parse as JSON (null removes a field)."),
]


@commands.command()
def propose(
    ctx: typer.Context,
    name: Encounter,
    type: Annotated[str, typer.Argument(help="The event type proposed, e.g. hit.resolved.")],
    fields: Fields = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Propose an event: it changes nothing until a GM accepts it (`accept`), with changes."""
    data = parse_pairs(fields or [], "field")
    if "type" in data:
        fail(BadInput("give the type as the TYPE argument, not as a field"))
    # As `record --propose` does it: one path for a proposal, whichever command makes it.
    record_command(
        ctx,
        name,
        {"type": type, **data},
        strict=strict,
        expect=expect,
        json_=json_,
        stamp=game_time(round_, scene, by),
        propose=True,
    )


@commands.command()
def accept(
    ctx: typer.Context,
    name: Encounter,
    seq: Seq,
    fields: Annotated[
        list[str] | None,
        typer.Argument(help="KEY=VALUE changes to the proposed fields (harm=1 halves Harm 2)."),
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Accept a proposal (a GM's ruling): it applies here, with the changes given."""
    changes = parse_pairs(fields or [], "field")
    stamp = game_time(round_, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.accept(
                name, seq, changes or None, strict=strict, expect=expect, stamp=stamp
            )
        )
    if json_:
        emit_recorded(result)
    show_recorded(result)


@commands.command()
def reject(
    ctx: typer.Context,
    name: Encounter,
    seq: Seq,
    reason: Annotated[str, typer.Option("--reason", help="Why, for the table.")] = "",
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Reject a proposal (a GM's ruling): it is closed and never applies."""
    if not reason.strip():
        fail(BadInput("reject needs --reason TEXT (the table hears why)"))
    stamp = game_time(round_, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.reject(
                name, seq, reason=reason, strict=strict, expect=expect, stamp=stamp
            )
        )
    if json_:
        emit_recorded(result)
    show_recorded(result)


gm = typer.Typer(help="An encounter's GMs: who rules on proposals and records anything.")
commands.add_typer(gm, name="gm")


@gm.command("add")
def gm_add(
    ctx: typer.Context,
    name: Encounter,
    user: Annotated[str, typer.Argument(help="The user who becomes a GM.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why, for the record.")] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Make a user a GM of the encounter (a GM's act: one policy.changed)."""
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.add_gm(name, user, reason=reason, expect=expect, strict=strict)
        )
    if json_:
        emit_recorded(result)
    show_recorded(result)


@commands.command()
def policy(
    ctx: typer.Context,
    name: Encounter,
    set_: Annotated[
        Path | None,
        typer.Option("--set", help="A JSON file of policy keys to put in force (a GM's act)."),
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why, for the record.")] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Who may record what in the encounter (or, with --set, put another policy in force)."""
    if set_ is not None:
        table = read_json_object(set_, "--set")
        with opened(ctx) as ledger:
            result = guard(
                lambda: ledger.set_policy(name, table, reason=reason, expect=expect, strict=strict)
            )
        if json_:
            emit_recorded(result)
        show_recorded(result)
        return
    with source(ctx, name) as (ledger, encounter):
        state = guard(lambda: ledger.tracks(encounter))
    found = state.policy
    if json_:
        emit_json(
            {
                "encounter": state.encounter,
                "policy": found.table() if found else None,
                "players": dict(state.players),
            }
        )
        return
    if found is None:
        typer.echo(
            f"{state.encounter!r} has no roles: it was opened by nobody named, so anyone "
            "records anything (open one with --as USER to have a GM and players)."
        )
        return
    for key, value in found.table().items():
        typer.echo(f"{key}: {json.dumps(value, ensure_ascii=False)}  ({policies.KEYS[key]})")
    for combatant, player in state.players.items():
        typer.echo(f"{combatant} is played by {player}")
