"""The `encounter` command: a thin typer shell over `ledger.api` (parse, call, render).

The commands are grouped by what they do, a module each: `write` (new, add, record, round,
undo, redo, amend, rewind, import, copy), `read` (log, tracks, replay, history, list), `report`
(audit, export, report), `verify`, `summary` (stats, recap), `dice` (dice commit, dice reveal),
and `reference` (schema, rules, views); each rule system's verbs
(`verbs`) come from its description. A command line loads only the module of the command it
names and builds only that command, and a verb's only its system's (`OneLineErrors.get_command`,
click's lazy group); `--help` loads them all. `options` holds the shared parameters and the
callback.
"""

import importlib
import os
import re
import sys
import warnings
from typing import Any, Final, NoReturn

import typer
import typer.core

from ledger import systems
from ledger.cli import conventions, errors, options
from ledger.errors import BadInput, LedgerError, LedgerWarning
from projections.system import System

#: Every command of the ledger, in the order `--help` lists them, and the module of
#: `ledger.cli` that defines it (tests/cli/test_conventions.py holds the two together).
COMMANDS: Final = {
    **dict.fromkeys(
        (
            "new",
            "add",
            "record",
            "round",
            "end-scene",
            "leave",
            "note",
            "undo",
            "redo",
            "amend",
            "rewind",
        ),
        "write",
    ),
    **dict.fromkeys(("import", "copy"), "write"),
    **dict.fromkeys(("propose", "accept", "reject", "gm", "policy"), "table"),
    **dict.fromkeys(("log", "tracks", "replay", "history"), "read"),
    "audit": "report",
    "list": "read",
    "export": "report",
    "verify": "verify",
    "repair": "verify",
    "migrate": "verify",
    "erase": "verify",
    "report": "report",
    "stats": "summary",
    "recap": "summary",
    "dice": "dice",
    **dict.fromkeys(("watch", "serve"), "live"),
    **dict.fromkeys(("schema", "events", "rules", "examples", "views"), "reference"),
}


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
        errors.json_errors(conventions.wants_json(words))
        self._help = conventions.wants_help(words)
        self._notes = conventions.notes(words) if self._help else {}
        conventions.tidy(self)
        if self._help:
            conventions.examples(self, conventions.all_examples(), self._notes)
        if not standalone_mode:
            return super().main(words, prog_name, complete_var, standalone_mode, **extra)
        with warnings.catch_warnings():
            # What the ledger noticed and worked around is one line on stderr, as errors are.
            warnings.simplefilter("always", LedgerWarning)
            warnings.showwarning = errors.warning_line
            self._run(words, prog_name, complete_var, **extra)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Whether this command line asks for help (the examples are then put under it).
        self._help = False
        #: What the help of the commands it names says besides the options and examples.
        self._notes = dict[str, str]()
        #: The systems whose verbs have been added.
        self._added: set[str] = set()
        #: The modules of `ledger.cli` whose commands have been added.
        self._modules: set[str] = set()
        #: Whether the command chooses a system by its key (`new`, `schema`, `rules`).
        self._choosing = False

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A command by name, its module loaded the first time one of its commands is named;
        a rule system's verbs are added the first time one of them is named."""
        if cmd_name in _CHOOSING:
            self._choosing = True
        if cmd_name in COMMANDS:
            self.add_module(COMMANDS[cmd_name], only=cmd_name)
        command = super().get_command(ctx, cmd_name)
        if command is None:
            owner = systems.verb_owner(cmd_name)
            if owner is not None:
                self.add_verbs(systems.get(owner))
                command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command: the ledger's in their order, then each system's verbs (help groups
        them by system)."""
        for module in dict.fromkeys(COMMANDS.values()):
            self.add_module(module)
        systems.report()
        for system in systems.every():
            self.add_verbs(system)
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def add_module(self, module: str, only: str | None = None) -> None:
        """Add the commands of one module of `ledger.cli` (once), or `only` the one of that
        name: a command line builds only the click command it runs (all of `write`'s thirteen
        took 9 ms a command line)."""
        if module in self._modules or only in self.commands:
            return
        made = importlib.import_module(f"ledger.cli.{module}").commands
        if only is None:
            self._modules.add(module)
        else:
            one = typer.Typer(
                pretty_exceptions_short=made.pretty_exceptions_short,
                rich_markup_mode=made.rich_markup_mode,
            )
            one.registered_commands = [
                info
                for info in made.registered_commands
                if (info.name or typer.main.get_command_name(info.callback.__name__)) == only
            ]
            one.registered_groups = [info for info in made.registered_groups if info.name == only]
            made = one
        for name, command in typer.main.get_group(made).commands.items():
            self.add_command(command, name)
        self._tidied()

    def add_verbs(self, system: System) -> None:
        """Add a system's verbs (once), under a help panel of its own; verbs that do not load
        are a warning, and the other commands work."""
        if system.key in self._added:
            return
        self._added.add(system.key)
        if system.verbs is None:
            return
        try:
            made = importlib.import_module("ledger.cli.verbs").commands(system)
        except Exception as exc:  # a third party's verbs: say so, never a traceback
            warnings.warn(
                f"the verbs of {system.key!r} do not load ({type(exc).__name__}: {exc})",
                LedgerWarning,
                stacklevel=2,
            )
            return
        panel = f"{system.title} ({system.key})"
        for name, command in typer.main.get_group(made).commands.items():
            if name in self.commands:
                continue  # a verb another system (or the ledger) has already: the first stays
            setattr(command, "rich_help_panel", panel)  # noqa: B010 - typer reads it for help
            self.add_command(command, name)
        self._tidied()

    def _tidied(self) -> None:
        """Help as people read it, on every command added so far (with their examples, when
        this command line asks for help)."""
        conventions.tidy(self)
        if self._help:
            conventions.examples(self, conventions.all_examples(), self._notes)

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
            errors.report(BadInput(f"{message} ({hint})", code=code), exc.exit_code)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Error: aborted", err=True)
            sys.exit(1)
        except LedgerError as exc:  # a command that let one through: still one line
            errors.report(exc)
            sys.exit(exc.exit_code)
        if self._choosing:
            # A system that does not load is said where systems are chosen among, once the
            # command has done what it was asked (an error about it says it already).
            systems.report()
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a reader that closed the pipe (`replay | head`) ends it quietly,
        with the exit code the command had said it ends with (`outcome`), else 0."""
        errors.outcome(0)
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # Nothing more can reach the reader; the exit code still can (`audit | head` of
            # an encounter with errors exits 1, as `verify | head` of a broken chain). Point
            # stdout at /dev/null so the interpreter's final flush does not complain.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(errors.exit_code()) from None


#: The commands that choose a system by its key.
_CHOOSING = frozenset({"new", "schema", "rules"})

app = typer.Typer(
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=True,
    help="Record, audit, undo and replay tabletop encounters in an append-only ledger.",
    pretty_exceptions_enable=False,
)
app.callback()(options.main_options)


def main() -> None:
    """Run the `encounter` command line (`ledger.main` answers `--version` before this)."""
    app()


__all__ = ["app", "main"]
