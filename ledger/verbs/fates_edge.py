"""Fate's Edge verbs: `lock`, `roll`, `hit`, `fatigue`, `spend`, `suffer`.

Each builds one event and records it through `shell.record_command`; the choices they offer are
the events' own (`ledger.events.fates_edge`). Dice left out of `roll` are rolled here, at the
edge: the ledger stores faces only, never a bare outcome.
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
from ledger.events.fates_edge import Effect, Position, Purpose, StakeKind, StakeSource

#: The verbs (`ledger.systems.fates_edge` names this app).
verbs = typer.Typer()


def parse_dice(text: str | None, pool: int | None) -> list[int]:
    """d10 faces from `6,7,1`, or `pool` dice rolled when no faces are given."""
    if text is None:
        if pool is None or pool < 1:
            raise BadInput("roll needs --dice FACES (e.g. 6,7,1) or --pool N to roll N d10s")
        return [random.randint(1, 10) for _ in range(pool)]
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise BadInput(f"--dice {text!r} is not d10 faces like 6,7,1")
    return [int(p) for p in parts]


def _set(fields: dict[str, Any], **values: Any) -> dict[str, Any]:
    """`fields` with the values that were given (None means left out)."""
    return {**fields, **{k: v for k, v in values.items() if v is not None}}


#: Completion of combatant names from the ledger file.
who = conventions.complete_combatants


Stake = Annotated[str, typer.Argument(help="The stake id naming this test.")]
Target = Annotated[str, typer.Argument(help="Who takes it.", autocompletion=who)]


@verbs.command("lock")
def lock(
    ctx: typer.Context,
    name: Encounter,
    stake: Stake,
    actor: Annotated[
        str, typer.Option("--actor", help="The player who rolls.", autocompletion=who)
    ],
    against: Annotated[
        str | None,
        typer.Option("--against", help="The opposing adversary.", autocompletion=who),
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="Whom a hit lands on.", autocompletion=who)
    ] = None,
    kind: Annotated[StakeKind, typer.Option("--kind", help="action or defense.")] = "action",
    position: Annotated[
        Position, typer.Option("--position", help="The locked Position.")
    ] = "controlled",
    dv: Annotated[int | None, typer.Option("--dv", help="DV (default: the rules').")] = None,
    effect: Annotated[Effect, typer.Option("--effect", help="Effect.")] = "standard",
    harm: Annotated[int | None, typer.Option("--harm", help="Harm on a success.")] = None,
    effect_harm: Annotated[
        int | None, typer.Option("--effect-harm", help="Damage change from Effect.")
    ] = None,
    consequence_harm: Annotated[
        int | None, typer.Option("--consequence-harm", help="Harm if the response fails.")
    ] = None,
    partial_harm: Annotated[
        int | None, typer.Option("--partial-harm", help="Harm a Partial deals (or lets in).")
    ] = None,
    partial: Annotated[
        str | None, typer.Option("--partial", help="The lesser progress or protection.")
    ] = None,
    origin: Annotated[
        StakeSource, typer.Option("--origin", help="What put the test on the table.")
    ] = "player",
    source: Annotated[StakeSource | None, typer.Option("--source", hidden=True)] = None,
    move: Annotated[str | None, typer.Option("--move", help="The adversary's move.")] = None,
    intent: Annotated[str | None, typer.Option("--intent", help="What is attempted.")] = None,
    consequence: Annotated[
        str | None, typer.Option("--consequence", help="What a failure costs.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Lock the stakes of a test: Position, DV, Effect, Harm and consequence, before rolling."""
    lesser = _set({}, harm=partial_harm, text=partial)
    fields = _set(
        {"type": "stakes.locked", "stake": stake, "actor": actor, "kind": kind},
        opposing=against,
        target=target,
        position=position,
        dv=dv,
        effect=effect,
        harm=harm,
        effect_harm=effect_harm,
        consequence_harm=consequence_harm,
        partial=lesser or None,
        source=source or origin,  # --source: the old spelling of --origin
        move=move,
        intent=intent,
        consequence=consequence,
    )
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("roll")
def roll(
    ctx: typer.Context,
    name: Encounter,
    stake: Stake,
    dice: Annotated[str | None, typer.Option("--dice", help="The d10 faces, e.g. 6,7,1.")] = None,
    pool: Annotated[
        int | None, typer.Option("--pool", help="Roll this many d10s when --dice is left out.")
    ] = None,
    actor: Annotated[str | None, typer.Option("--actor", help="Who rolls.")] = None,
    claim: Annotated[
        str | None, typer.Option("--outcome", help="The table's call, checked by the audit.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Roll (or record the faces of) a locked test: successes, SB and outcome."""
    try:
        faces = parse_dice(dice, pool)
    except BadInput as exc:
        fail(exc)
    fields = _set({"type": "roll.made", "stake": stake, "dice": faces}, actor=actor, outcome=claim)
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("hit")
def hit(
    ctx: typer.Context,
    name: Encounter,
    target: Target,
    harm: Annotated[int, typer.Argument(help="Incoming Harm, bonuses included.")],
    stake: Annotated[str | None, typer.Option("--stake", help="The stake it resolves.")] = None,
    ignore_armor: Annotated[
        str | None, typer.Option("--ignore-armor", help="Armor points ignored, or 'all'.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """A damaging hit: armor conversion, Resilience, Fatigue, one overflow check."""
    ignore: int | str | None = ignore_armor
    if ignore_armor is not None and ignore_armor != "all":
        if not ignore_armor.isdigit():
            why = (
                "armor steps ignored cannot be negative (0 ignores none)"
                if ignore_armor.lstrip("-").isdigit()
                else "give a whole number of armor steps, or 'all'"
            )
            fail(BadInput(f"--ignore-armor {ignore_armor!r}: {why}"))
        ignore = int(ignore_armor)
    fields = _set(
        {"type": "hit.resolved", "target": target, "harm": harm},
        stake=stake,
        ignore_armor=ignore,
    )
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("fatigue")
def fatigue(
    ctx: typer.Context,
    name: Encounter,
    target: Target,
    amount: Annotated[int, typer.Argument(help="Fatigue marked.")],
    cause: Annotated[str | None, typer.Option("--cause", help="Why.")] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Mark Fatigue directly, with one overflow check."""
    fields = _set({"type": "fatigue.marked", "target": target, "amount": amount}, cause=cause)
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("spend")
def spend(
    ctx: typer.Context,
    name: Encounter,
    amount: Annotated[int, typer.Argument(help="SB spent.")],
    purpose: Annotated[Purpose, typer.Option("--for", help="What the SB buy.")],
    move: Annotated[str | None, typer.Option("--move", help="The named move.")] = None,
    stake: Annotated[
        str | None, typer.Option("--stake", help="The stake it buys or shapes.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """The GM spends Story Beats from the pool."""
    fields = _set(
        {"type": "sb.spent", "amount": amount, "purpose": purpose},
        move=move,
        stake=stake,
    )
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@verbs.command("suffer")
def suffer(
    ctx: typer.Context,
    name: Encounter,
    target: Target,
    harm: Annotated[int, typer.Argument(help="The Harm of the consequence.")],
    stake: Annotated[str, typer.Option("--stake", help="The failed response's stake.")],
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """A player suffers the consequence of a failed response (armor, Harm, Fatigue)."""
    fields = {"type": "harm.suffered", "target": target, "stake": stake, "harm": harm}
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )
