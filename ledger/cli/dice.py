"""`encounter dice commit` and `encounter dice reveal`: dice anyone can verify.

A commitment keeps a secret seed outside the ledger file and appends its SHA-256; a roll verb's
`--roll` then lets the ledger roll from it (`ledger.dice`); the reveal appends the seed, and
`encounter verify` recomputes every die.
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import typer

from ledger import dice as seeds
from ledger import events
from ledger.cli.errors import guard
from ledger.cli.options import By, Encounter, Expect, Json, Strict, opened
from ledger.cli.write import emit_recorded, show_recorded

#: The `dice` group (`ledger.cli` adds it to the app after the reading commands).
commands = typer.Typer()
group = typer.Typer(
    no_args_is_help=True,
    help="Dice anyone can verify: commit to a secret seed, let the ledger roll (a roll verb's "
    "--roll), reveal the seed.",
)
commands.add_typer(group, name="dice")


@group.command("commit")
def commit(
    ctx: typer.Context,
    name: Encounter,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    by: By = None,
) -> None:
    """Draw a secret seed, keep it outside the ledger file (your state directory), and append
    dice.committed with its SHA-256: from here on a roll verb's --roll lets the ledger roll."""
    with opened(ctx) as ledger:
        result = guard(lambda: ledger.commit_dice(name, strict=strict, expect=expect, by=by))
    if json_:
        emit_recorded(result)
    show_recorded(result)
    event = result.records[-1].event
    assert isinstance(event, events.DiceCommitted)
    typer.echo(
        f"The seed stays in {seeds.seed_file(event.digest)} (readable by you alone) until "
        f"`encounter dice reveal {name}`."
    )


@group.command("reveal")
def reveal(
    ctx: typer.Context,
    name: Encounter,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    by: By = None,
) -> None:
    """Append dice.revealed with the seed of the open commitment: `encounter verify` then
    recomputes every die the ledger rolled under it (an export carries both events)."""
    with opened(ctx) as ledger:
        result = guard(lambda: ledger.reveal_dice(name, strict=strict, expect=expect, by=by))
    if json_:
        emit_recorded(result)
    show_recorded(result)
    typer.echo(f"Check every die: `encounter verify {name}` (or an export of it).")
