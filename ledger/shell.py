"""The plumbing of the `encounter` command: the typer app and its shared parameters, one-line
errors, opening the ledger file, KEY=VALUE fields, and printing what a write did.

The commands live in `ledger.cli` (generic) and in each rule system's verbs, which the app adds
when a command line needs them (`OneLineErrors.get_command`): `encounter tracks` loads no verbs,
`encounter lock` only those of the system whose verb `lock` is, `--help` every system's.
"""

# No `from __future__ import annotations`: typer reads the callback's annotations (and those of
# the parameter types below, in every command) each time the app runs.
import json
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
import typer.core

from ledger import conventions, files, helptext, render, service, systems
from ledger.errors import BadInput, LedgerError, LedgerWarning, UnknownName
from projections import gametime
from projections.registry import readings


class OneLineErrors(typer.core.TyperGroup):
    """Usage mistakes (an unknown option, a bad choice, a missing argument) end like every other
    bad input: one `Error:` line on stderr and exit 2, not a usage screen."""

    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        words = conventions.hoist(sys.argv[1:] if args is None else args)
        global _json_errors
        _json_errors = conventions.wants_json(words)
        self._help = conventions.wants_help(words)
        conventions.tidy(self)
        if self._help:
            conventions.examples(self, helptext.examples())
        if not standalone_mode:
            return super().main(words, prog_name, complete_var, standalone_mode, **extra)
        with warnings.catch_warnings():
            # What the ledger noticed and worked around is one line on stderr, as errors are.
            warnings.simplefilter("always", LedgerWarning)
            warnings.showwarning = _warning_line
            from ledger.systems import discovery

            discovery.report()  # a system that does not load, said once
            self._run(words, prog_name, complete_var, **extra)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Whether this command line asks for help (the examples are then put under it).
        self._help = False
        #: The systems whose verbs have been added.
        self._added: set[str] = set()

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A command by name; a rule system's verb is added the first time it is named."""
        command = super().get_command(ctx, cmd_name)
        if command is None:
            owner = systems.verb_owner(cmd_name)
            if owner is None and systems.cached():
                # The cache of the systems may be older than an edit of a system's verbs.
                systems.rescan()
                owner = systems.verb_owner(cmd_name)
            if owner is not None:
                self.add_verbs(systems.get(owner))
                command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command: the generic ones, then each system's verbs (help groups them)."""
        for system in systems.every():
            self.add_verbs(system)
        names: list[str] = super().list_commands(ctx)
        return names

    def add_verbs(self, system: systems.System) -> None:
        """Add a system's verbs (once), under a help panel of its own; verbs that do not load
        are a warning, and the other commands work."""
        if system.key in self._added:
            return
        self._added.add(system.key)
        try:
            verbs = system.load_verbs()
        except Exception as exc:  # a third party's module: say so, never a traceback
            warnings.warn(
                f"the verbs of {system.key!r} ({system.verbs}) do not load "
                f"({type(exc).__name__}: {exc})",
                LedgerWarning,
                stacklevel=2,
            )
            return
        if verbs is None:
            return
        panel = f"{system.title} ({system.key})"
        for name, command in typer.main.get_group(verbs).commands.items():
            if name in self.commands:
                continue  # a verb another system (or the ledger) has already: the first stays
            setattr(command, "rich_help_panel", panel)  # noqa: B010 - typer reads it for help
            self.add_command(command, name)
        conventions.tidy(self)
        if self._help:
            conventions.examples(self, helptext.examples())

    def _run(
        self, words: list[str], prog_name: str | None, complete_var: str | None, **extra: Any
    ) -> NoReturn:
        try:
            code = super().main(words, prog_name, complete_var, False, **extra)
        except typer.TyperException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                sys.exit(0)  # typer has printed the help already
            message = " ".join(exc.format_message().split())
            # typer checks a choice with pydantic, whose message starts `Value error, `.
            message = message.replace(": Value error, ", ": ")
            hint, code = "see --help", "usage"
            if re.fullmatch(r"No such option: -\d+", message):
                # A negative number where an argument was meant: `--` ends the options.
                hint = "a negative number reads as an option: put -- before it"
            param = getattr(exc, "param", None)
            if isinstance(exc, typer.BadParameter) and getattr(param, "name", None) == "system":
                # The `--system` choice (`new`, `schema`, `rules`): no rule system of that key.
                code = "unknown-system"
            report(BadInput(f"{message} ({hint})", code=code), exc.exit_code)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Error: aborted", err=True)
            sys.exit(1)
        except LedgerError as exc:  # a command that let one through: still one line
            report(exc)
            sys.exit(exc.exit_code)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a reader that closed the pipe (`replay | head`) ends it quietly,
        with the exit code the command had said it ends with (`outcome`), else 0."""
        global _outcome
        _outcome = 0
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # Nothing more can reach the reader; the exit code still can (`audit | head` of
            # an encounter with errors exits 1, as `verify | head` of a broken chain). Point
            # stdout at /dev/null so the interpreter's final flush does not complain.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(_outcome) from None


#: Whether this run's command line asked for `--json` (its errors are then JSON documents).
_json_errors = False
#: The exit code this run's command ends with, once it knows (see `outcome`).
_outcome = 0


def outcome(code: int) -> None:
    """Say the exit code the command ends with, before printing what it found: a reader that
    closes the pipe early (`audit | head`) then still gets it."""
    global _outcome
    _outcome = code


def report(exc: LedgerError, exit_code: int | None = None) -> None:
    """An error on stderr: one `Error:` line, or under `--json` the error document."""
    if _json_errors:
        document = exc.document()
        if exit_code is not None:
            document["error"]["exit_code"] = exit_code
        typer.echo(json.dumps(document, ensure_ascii=False), err=True)
    else:
        typer.echo(render.visible(f"Error: {exc}"), err=True)


def _warning_line(message: Warning | str, *_: Any, **__: Any) -> None:
    typer.echo(render.visible(f"Warning: {message}"), err=True)


app = typer.Typer(
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=True,
    help="Record, audit, undo and replay tabletop encounters in an append-only ledger.",
    pretty_exceptions_enable=False,
)

T = TypeVar("T")


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
By = Annotated[str | None, typer.Option("--by", help="Who records it (a GM, a player, a bot).")]


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
        import ledger

        typer.echo(f"encounter {ledger.__version__}")
        raise typer.Exit(0)


@app.callback()
def main_options(
    ctx: typer.Context,
    db: DbOption = service.DEFAULT_DB,
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
) -> None:
    """Record, audit, undo and replay tabletop encounters in an append-only ledger.

    --db and --plain may also follow the command: encounter tracks ford --db other.db
    """
    ctx.obj = db
    render.configure(plain=plain)


def fail(exc: LedgerError) -> NoReturn:
    """Print the error on stderr (one line, or its JSON document) and exit with its code."""
    report(exc)
    raise typer.Exit(exc.exit_code)


@contextmanager
def opened(ctx: typer.Context, create: bool = True) -> Iterator[service.Ledger]:
    """The ledger file named by --db / ENCOUNTER_DB; errors become one line and an exit code."""
    try:
        with service.Ledger(ctx.obj, create=create, readonly=not create) as ledger:
            yield ledger
    except LedgerError as exc:
        fail(exc)


def names_a_file(name: str) -> bool:
    """A read command's NAME that is a JSON Lines file rather than an encounter."""
    return name.endswith(".jsonl") or (("/" in name or "\\" in name) and Path(name).exists())


@contextmanager
def source(ctx: typer.Context, name: str) -> Iterator[tuple[service.Ledger, str]]:
    """An encounter in the ledger file, or a .jsonl file read into memory."""
    try:
        if names_a_file(name):
            ledger, encounter = files.load(name)
            with ledger:
                yield ledger, encounter
        else:
            with service.Ledger(ctx.obj, create=False, readonly=True) as ledger:
                yield ledger, name
    except LedgerError as exc:
        fail(exc)


def emit_json(document: Any) -> None:
    """JSON on stdout, one document."""
    typer.echo(json.dumps(document, ensure_ascii=False))


def show_recorded(result: service.Written, note: str = "") -> None:
    """`Recorded seq N: type`, the event in its ruleset's words, the tracks it changed and the
    findings it raised."""
    for record, words in zip(result.records, result.words, strict=True):
        typer.echo(f"Recorded seq {record.seq}: {record.type}{note}")
        typer.echo(render.visible(f"  {words}"))
    if result.downstream is not None:
        # A retraction or correction recorded by its type: the same diff as undo and amend.
        from ledger import change_words

        for line in change_words.downstream(result.downstream, readings(result.system)):
            typer.echo(line)
        for finding in result.findings:
            if finding.rule == "ruling-reversed":
                typer.echo(render.finding_line(finding))
        return
    for line in render.change_lines(result.changes, readings(result.system)):
        typer.echo(line)
    show_findings(result)


def show_findings(result: service.Written, quiet_rulings: bool = False) -> None:
    """The findings a write raised; with `quiet_rulings`, not the `ruling-reversed` note that
    every retraction raises (a command that retracts says so in its own words)."""
    for finding in result.findings:
        if not (quiet_rulings and finding.rule == "ruling-reversed"):
            typer.echo(render.finding_line(finding))


def emit_recorded(result: service.Written) -> NoReturn:
    """Print a write's `--json` document and end the command (a verb's own lines for people
    never follow it)."""
    emit_json(result.document())
    raise typer.Exit(0)


def record_command(
    ctx: typer.Context,
    encounter: str,
    fields: Mapping[str, Any],
    strict: bool = False,
    expect: int | None = None,
    json_: bool = False,
    stamp: Mapping[str, Any] | None = None,
) -> service.Written:
    """Record one event dict (with the game time in `stamp`) and print what it did: the
    building block of friendly verbs. With `json_`, the JSON document is printed instead and
    the command ends here."""
    for key, value in (stamp or {}).items():
        if key in fields and fields[key] != value:
            fail(BadInput(f"--{key} {value!r} and the field {key}={fields[key]!r} disagree"))
    # A system's verb says so: its event on another system's encounter is refused as such.
    verb = ctx.info_name if systems.verb_owner(ctx.info_name or "") else None
    with opened(ctx) as ledger:
        try:
            result = ledger.record(
                encounter, {**fields, **(stamp or {})}, strict=strict, expect=expect, verb=verb
            )
        except LedgerError as exc:
            fail(exc)
    if json_:
        emit_recorded(result)
    show_recorded(result)
    return result


def parse_value(text: str) -> Any:
    """A command-line value: JSON when it parses as JSON, else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_pairs(pairs: list[str], what: str) -> dict[str, Any]:
    """KEY=VALUE pairs (values parse as JSON); dotted keys nest: `rings.air=3`."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key:
            fail(BadInput(f"{what} {pair!r} is not KEY=VALUE"))
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                fail(BadInput(f"{what} {pair!r}: {part!r} is already a value"))
            node = child
        if leaf in node:
            fail(BadInput(f"{what} {key!r} is given twice"))
        node[leaf] = parse_value(raw)
    return out


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from a file, or bad input naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(UnknownName(f"{what}: no such file {path}", code="no-file"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        fail(BadInput(f"{what}: {path} is not valid JSON ({exc})"))
    except OSError as exc:
        fail(BadInput(f"{what}: cannot read {path}: {exc.strerror}"))
    if not isinstance(data, dict):
        fail(BadInput(f"{what}: {path} must hold a JSON object"))
    return data


def guard(call: Callable[[], T]) -> T:
    """`call()`, its ledger error printed as one line with the error's exit code."""
    try:
        return call()
    except LedgerError as exc:
        fail(exc)
