"""The live commands: `watch` (a terminal view that follows an encounter) and `serve` (a
read-only page for players that follows it in their browsers).

Both read through `Ledger.follow`. rich is loaded only by `watch` (`ledger.cli.watch`), the
web stack only when `serve` runs (`ledger.live.serve` imports the optional extra `[serve]`
then).
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import sys
from typing import Annotated

import typer

from ledger.cli.errors import fail, guard
from ledger.cli.options import Encounter, opened, tenant_of
from ledger.errors import BadInput, UnknownName
from ledger.live import serve as web
from ledger.store import is_postgres

#: The live commands (`ledger.cli` adds them to the app).
commands = typer.Typer()

Poll = Annotated[
    float,
    typer.Option(
        "--poll",
        help="How often to look for new events, in seconds.",
        min=0.05,
        max=5,
        metavar="SECONDS",
    ),
]


@commands.command()
def watch(
    ctx: typer.Context,
    name: Encounter,
    last: Annotated[
        int, typer.Option("--last", help="How many of the last events to show.", min=1, max=200)
    ] = 8,
    poll: Poll = 0.2,
) -> None:
    """Watch an encounter live: the tracks, the open proposals and the last events, redrawn
    within a second of any append by anyone; q quits."""
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        fail(BadInput("watch draws on a terminal; standard input and output must be one"))
    _exists(ctx, name)
    from ledger.cli import watch as view  # rich: only this command draws live

    guard(lambda: view.run(ctx.obj, name, last, poll, tenant_of(ctx)))


@commands.command()
def serve(
    ctx: typer.Context,
    name: Encounter,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Where to listen: 127.0.0.1 (this machine only), or 0.0.0.0 for the players' "
            "devices on the LAN (then a read-only token is in the URL).",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="The port.", min=0, max=65535)] = 8765,
    poll: Poll = 0.2,
) -> None:
    """Serve a read-only live page of an encounter for the players: tracks, charts and the
    events in words, updated within a second of any append; GM-only values never sent."""
    _exists(ctx, name)
    guard(lambda: web.run(ctx.obj, name, host=host, port=port, poll=poll, tenant=tenant_of(ctx)))


def _exists(ctx: typer.Context, name: str) -> None:
    """Bad input, before anything is drawn or served, for an encounter the ledger lacks."""
    location = ctx.obj
    if not is_postgres(location) and name.endswith(".jsonl"):
        fail(UnknownName(f"{name}: watch and serve follow an encounter of a ledger, not a file"))
    with opened(ctx, create=False) as ledger:
        guard(lambda: ledger.store.require(name))
