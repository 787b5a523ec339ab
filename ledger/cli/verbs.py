"""A rule system's verbs (data, `projections.verbs`) as typer commands.

Each verb becomes a command whose parameters are the verb's params, in order, between the
encounter's name and the options every recording command takes (`--strict`, `--expect`,
`--json`, `--round`, `--scene`, `--by`, and `--roll` where it has dice); its body parses what
was given, rolls the dice the table left out (the ledger stores faces only; with `--roll` the
ledger rolls them from the committed seed, inside the write), builds the event and records it
(`write.record_command`). A system's description is all it takes: no system imports the CLI.
"""

# No `from __future__ import annotations`: typer reads the annotations built here.
import inspect
import random
from collections.abc import Callable
from typing import Annotated, Any

import typer

from ledger import systems
from ledger.cli import conventions
from ledger.cli.errors import fail, guard
from ledger.cli.options import (
    By,
    Encounter,
    Expect,
    Json,
    Propose,
    Round,
    Scene,
    Strict,
    game_time,
    opened,
)
from ledger.cli.write import record_command
from ledger.dice import Throw
from ledger.errors import BadInput
from projections.system import System
from projections.verbs import REQUIRED, Dice, Param, Verb

#: The options every recording command takes, after the verb's own (name, annotation, default).
_TRAILING: tuple[tuple[str, Any, Any], ...] = (
    ("strict", Strict, False),
    ("expect", Expect, None),
    ("json_", Json, False),
    ("round_", Round, None),
    ("scene", Scene, None),
    ("by", By, None),
    ("propose", Propose, False),
)


AsPlayed = Annotated[
    bool,
    typer.Option(
        "--as-played",
        help="Record it as the table played it, though it names a stake never locked (the "
        "audit flags it).",
    ),
]


def roll_flags(system: str, verb: Verb) -> tuple[str, ...]:
    """The flags of a verb's `--roll` (the ledger rolls its dice from the committed seed):
    none when it has no dice or its event cannot say the ledger rolled them; `--ledger-roll`
    alone where a param of its own is spelled `--roll` (the oracle's d100)."""
    model = systems.vocabulary(system).models.get(verb.event)
    if not verb.dice or model is None or "ledger_rolled" not in model.model_fields:
        return ()
    taken = any("--roll" in p.flags for p in verb.params)
    return ("--ledger-roll",) if taken else ("--roll", "--ledger-roll")


def commands(system: System) -> typer.Typer:
    """A typer app holding one command per verb of `system`."""
    app = typer.Typer()
    for verb in systems.verbs(system.key):
        app.command(verb.name, help=verb.help)(_callback(verb, roll_flags(system.key, verb)))
    return app


def _annotation(param: Param) -> Any:
    complete = conventions.complete_combatants if param.complete == "combatants" else None
    if param.flags:
        info: Any = typer.Option(
            *param.flags, help=param.help or None, hidden=param.hidden, autocompletion=complete
        )
    else:
        info = typer.Argument(help=param.help or None, autocompletion=complete)
    return Annotated[param.type, info]


def _callback(verb: Verb, rolling: tuple[str, ...]) -> Callable[..., None]:
    """The command of one verb: a function whose signature typer reads (with a `--roll` flag
    spelled `rolling`, when it has one)."""

    reads = any(p.infer is not None or p.stake for p in verb.params)
    checks = any(p.stake for p in verb.params)

    def run(ctx: typer.Context, name: str, **values: Any) -> None:
        strict, expect, json_ = values.pop("strict"), values.pop("expect"), values.pop("json_")
        played = bool(values.pop("as_played", False))
        stamp = game_time(values.pop("round_"), values.pop("scene"), values.pop("by"))
        propose = values.pop("propose")
        by_ledger = bool(values.pop("ledger_roll", False))
        throws: list[Throw] = []
        try:
            for param in verb.params:
                if param.parse is not None and values.get(param.name) is not None:
                    values[param.name] = param.parse(values[param.name])
            if reads:
                # What the table left out, or named wrong, is read off the encounter as it is.
                with opened(ctx, create=False) as ledger:
                    state = guard(lambda: ledger.tracks(name))
                unlocked = None if played else verb.unlocked(values, state)
                if unlocked is not None:
                    fail(BadInput(unlocked, code="unknown-name"))
                values = verb.inferred(values, state)
            for dice in verb.dice:
                if by_ledger:
                    throws.append(_throw(verb, dice, values, rolling[0]))
                else:
                    _roll(verb, dice, values)
            fields = verb.fields(values)
        except ValueError as exc:
            fail(BadInput(str(exc)))
        if propose and throws:
            fail(BadInput(f"a proposal's dice are given (--dice): {rolling[0]} rolls in a write"))
        record_command(
            ctx,
            name,
            fields,
            strict,
            expect,
            json_=json_,
            stamp=stamp,
            propose=propose,
            roll=throws,
        )

    context = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )
    parameters = [
        context,
        inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, annotation=Encounter),
    ]
    for param in verb.params:
        default = inspect.Parameter.empty if param.default is REQUIRED else param.default
        parameters.append(
            inspect.Parameter(
                param.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default,
                annotation=_annotation(param),
            )
        )
    if rolling:
        flag = typer.Option(
            *rolling,
            help="Let the ledger roll the dice left out, from the seed committed with `encounter "
            "dice commit` (anyone can check them once it is revealed).",
        )
        parameters.append(
            inspect.Parameter(
                "ledger_roll",
                inspect.Parameter.KEYWORD_ONLY,
                default=False,
                annotation=Annotated[bool, flag],
            )
        )
    trailing = [*_TRAILING, *([("as_played", AsPlayed, False)] if checks else [])]
    parameters += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in trailing
    ]
    run.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    run.__name__ = verb.name.replace("-", "_")
    run.__doc__ = verb.help
    return run


def _count(verb: Verb, dice: Dice, values: dict[str, Any]) -> int:
    """How many dice to roll: `dice.count`, or the value of the param it names (a count given
    below 1 or above `dice.most` is refused naming its option, not taken for a count left out
    nor left to the event's field to refuse in its own words)."""
    if isinstance(dice.count, int):
        return dice.count
    count = values.get(dice.count)
    if not isinstance(count, int):
        raise ValueError(dice.missing or f"{verb.name} needs the dice of {dice.field}")
    param = next((p for p in verb.params if p.name == dice.count), None)
    flag = param.flags[0] if param is not None and param.flags else dice.count
    if count < 1:
        raise ValueError(f"{flag} must be at least 1 (got {count})")
    if dice.most is not None and count > dice.most:
        raise ValueError(f"{flag} must be at most {dice.most} (got {count})")
    return count


def _throw(verb: Verb, dice: Dice, values: dict[str, Any], flag: str) -> Throw:
    """The dice the ledger is to roll into `dice`'s field (none of its faces may be given)."""
    param = verb.param_of(dice.field)
    key = param.name if param is not None else dice.field
    if values.get(key) is not None:
        given = param.flags[0] if param is not None and param.flags else dice.field
        raise ValueError(f"{flag} lets the ledger roll the dice: leave out {given}")
    return Throw(dice.field, dice.sides, _count(verb, dice, values), dice.single)


def _roll(verb: Verb, dice: Dice, values: dict[str, Any]) -> None:
    """Roll `dice` into the value of the param that fills its field, when none was given."""
    param = verb.param_of(dice.field)
    key = param.name if param is not None else dice.field
    if values.get(key) is not None:
        return
    faces = [random.randint(1, dice.sides) for _ in range(_count(verb, dice, values))]
    values[key] = faces[0] if dice.single else faces
