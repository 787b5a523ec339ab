"""The shared parameters of the `encounter` command (typer `Annotated` types), the app's
callback (`--db`, `--plain`, `--version`), opening the ledger a command names, and reading
KEY=VALUE fields and JSON files from the command line.
"""

# No `from __future__ import annotations`: typer reads the callback's annotations (and those of
# the parameter types below, in every command) each time the app runs.
import json
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger import __version__, api, jsonl, systems
from ledger.cli import conventions, render
from ledger.cli.errors import fail
from ledger.errors import BadInput, LedgerError, UnknownName
from ledger.store import DEFAULT_DB, DEFAULT_TENANT
from projections import gametime


class Side(StrEnum):
    """Which side a combatant is on."""

    player = "player"
    adversary = "adversary"


if TYPE_CHECKING:

    class SystemChoice(StrEnum):
        """The `--system` choice: the key of every rule system found (`ledger.systems`)."""

else:
    # Built from the systems found (the cache of the entry points: no description is loaded).
    SystemChoice = StrEnum("SystemChoice", {key: key for key in systems.known()}, module=__name__)


DbOption = Annotated[
    str,
    typer.Option(
        "--db",
        envvar="ENCOUNTER_DB",
        help="The ledger file, or a postgresql:// URL.",
        show_default=True,
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Strict = Annotated[
    bool, typer.Option("--strict", help="Refuse (exit 2) an event that would add an audit error.")
]
Expect = Annotated[
    int | None,
    typer.Option("--expect", help="The seq you last saw; a stale one is a conflict (exit 3)."),
]
Encounter = Annotated[
    str,
    typer.Argument(help="The encounter's name.", autocompletion=conventions.complete_encounters),
]
Combatant = Annotated[
    str,
    typer.Argument(help="The combatant's name.", autocompletion=conventions.complete_combatants),
]
Without = Annotated[
    list[int] | None, typer.Option("--without", help="As if this seq never happened; repeat.")
]
Source = Annotated[
    str,
    typer.Argument(
        help="The encounter's name, or a .jsonl file (read, nothing written).",
        autocompletion=conventions.complete_encounters,
    ),
]
Round = Annotated[
    int | None,
    typer.Option("--round", help="The game round it happened in (default: the current round)."),
]
Scene = Annotated[
    str | None,
    typer.Option("--scene", help="The scene it happened in (default: the current scene)."),
]
By = Annotated[
    str | None,
    typer.Option(
        "--by", help="Who acts (a GM, a player, a bot); with --as, a GM recording for them."
    ),
]
Propose = Annotated[
    bool,
    typer.Option("--propose", help="Propose it instead: it changes nothing until a GM accepts it."),
]


def game_time(round_: int | None, scene: str | None, by: str | None) -> dict[str, Any]:
    """The optional envelope fields every event may carry: `round`, `scene` and `by`
    (a scene given as a whole number, `--scene 2`, is stored as one)."""
    stamp: dict[str, Any] = {}
    if round_ is not None:
        stamp["round"] = round_
    if scene is not None:
        if not scene.strip():
            fail(BadInput("--scene takes a scene's name or number, not an empty text"))
        stamp["scene"] = gametime.scene_of(scene)
    if by is not None:
        stamp["by"] = by
    return stamp


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"encounter {__version__}")
        raise typer.Exit(0)


def main_options(
    ctx: typer.Context,
    db: DbOption = DEFAULT_DB,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain",
            help="Tab-separated rows instead of tables (the default when not a terminal).",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version."),
    ] = False,
    tenant: Annotated[
        str,
        typer.Option(
            "--tenant",
            envvar="ENCOUNTER_TENANT",
            metavar="TENANT",
            help="Whose encounters: a hosted ledger keeps each tenant's (a Discord guild, a VTT "
            "world) apart.",
            show_default=True,
        ),
    ] = DEFAULT_TENANT,
    user: Annotated[
        str | None,
        typer.Option(
            "--as",
            envvar="ENCOUNTER_USER",
            metavar="USER",
            help="Who acts: every event written names this user, and an encounter's policy "
            "says what they may record.",
        ),
    ] = None,
) -> None:
    """Record, audit, undo and replay tabletop encounters in an append-only ledger.

    --db, --tenant, --plain and --as may also follow the command: encounter tracks ford --db
    other.db
    """
    ctx.obj = db
    ctx.meta[USER] = user
    # `--tenant ""` is a mistake (a bot's `--tenant "$GUILD"` with the guild unset), refused
    # when the ledger opens, never the default tenant's encounters; an empty
    # ENCOUNTER_TENANT is unset, as an empty environment variable usually is.
    given = ctx.get_parameter_source("tenant")
    typed = given is not None and given.name == "COMMANDLINE"
    ctx.meta[TENANT] = tenant if tenant or typed else DEFAULT_TENANT
    render.configure(plain=plain)


#: Where the callback keeps the acting user (`--as`) for the command (click's shared `meta`).
USER = "encounter.user"
#: ... and the tenant (`--tenant`).
TENANT = "encounter.tenant"


def tenant_of(ctx: typer.Context) -> str:
    """The tenant the command line names (`--tenant`, `ENCOUNTER_TENANT`, else `default`)."""
    found = ctx.meta.get(TENANT)
    return DEFAULT_TENANT if found is None else str(found)


@contextmanager
def opened(ctx: typer.Context, create: bool = True) -> Iterator[api.Ledger]:
    """The ledger file named by --db / ENCOUNTER_DB; errors become one line and an exit code."""
    user = ctx.meta.get(USER) if create else None
    try:
        with api.Ledger(
            ctx.obj, create=create, readonly=not create, user=user, tenant=tenant_of(ctx)
        ) as ledger:
            yield ledger
    except LedgerError as exc:
        fail(exc)


def names_a_file(name: str) -> bool:
    """A read command's NAME that is a JSON Lines file rather than an encounter."""
    return name.endswith(".jsonl") or (("/" in name or "\\" in name) and Path(name).exists())


@contextmanager
def source(ctx: typer.Context, name: str) -> Iterator[tuple[api.Ledger, str]]:
    """An encounter in the ledger file, or a .jsonl file read into memory."""
    try:
        if names_a_file(name):
            ledger, encounter = api.load(name)
            with ledger:
                yield ledger, encounter
        else:
            with api.Ledger(ctx.obj, create=False, readonly=True, tenant=tenant_of(ctx)) as ledger:
                yield ledger, name
    except LedgerError as exc:
        fail(exc)


def emit_json(document: Any) -> None:
    """JSON on stdout, one document."""
    typer.echo(json.dumps(document, ensure_ascii=False))


def parse_value(text: str, what: str = "value") -> Any:
    """A command-line value: JSON when it parses as JSON, else the text itself; JSON the
    ledger refuses (a key given twice, nested too deeply, a number too long) is bad input
    naming `what`."""
    try:
        return jsonl.loads(text)
    except jsonl.Refused as exc:
        fail(BadInput(f"{what}: {exc}"))
    except json.JSONDecodeError:
        return text
    except ValueError:
        # NaN or infinity: read as the stdlib reads them, for the event to refuse by name.
        return json.loads(text)


def parse_pairs(pairs: list[str], what: str) -> dict[str, Any]:
    """KEY=VALUE pairs (values parse as JSON); dotted keys nest: `rings.air=3`."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            fail(BadInput(f"{what} {pair!r} is not KEY=VALUE"))
        node = out
        *parents, leaf = key.split(".")
        if len(parents) >= jsonl.MAX_DEPTH:
            fail(BadInput(f"{what} {key!r} nests more than {jsonl.MAX_DEPTH} levels"))
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                fail(BadInput(f"{what} {pair!r}: {part!r} is already a value"))
            node = child
        if leaf in node:
            fail(BadInput(f"{what} {key!r} is given twice"))
        node[leaf] = parse_value(raw, f"{what} {key!r}")
    try:
        jsonl.check_depth(out, f"{what}s")
    except jsonl.Refused as exc:
        fail(BadInput(str(exc)))
    return out


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from a file (strict: a key given twice, deep nesting or an endless number
    is refused), or bad input naming the file."""
    try:
        data = jsonl.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(UnknownName(f"{what}: no such file {path}", code="no-file"))
    except UnicodeDecodeError as exc:
        fail(BadInput(f"{what}: {path} is not UTF-8 text (byte {exc.start})"))
    except json.JSONDecodeError as exc:
        fail(BadInput(f"{what}: {path} is not valid JSON ({exc})"))
    except ValueError as exc:
        fail(BadInput(f"{what}: {path}: {exc}"))
    except OSError as exc:
        fail(BadInput(f"{what}: cannot read {path}: {exc.strerror}"))
    if not isinstance(data, dict):
        fail(BadInput(f"{what}: {path} must hold a JSON object"))
    return data
