"""How the `encounter` command fails: one `Error:` line on stderr (or, under `--json`, the
error document) and the exit code DESIGN.md gives, for a ledger's error and for a usage mistake
alike; what the ledger noticed and worked around is one `Warning:` line.

`OneLineErrors` is the app's group: it hoists global options, puts examples under help, adds a
rule system's verbs when a command line names one, and ends every failure in one line.
"""

# No `from __future__ import annotations`: typer reads the annotations each time the app runs.
import json
import os
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
import typer.core

from ledger import systems
from ledger.cli import conventions, render
from ledger.errors import BadInput, LedgerError, LedgerWarning
from ledger.systems import discovery

T = TypeVar("T")


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
            conventions.examples(self, conventions.all_examples())
        if not standalone_mode:
            return super().main(words, prog_name, complete_var, standalone_mode, **extra)
        with warnings.catch_warnings():
            # What the ledger noticed and worked around is one line on stderr, as errors are.
            warnings.simplefilter("always", LedgerWarning)
            warnings.showwarning = _warning_line
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
            conventions.examples(self, conventions.all_examples())

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


def fail(exc: LedgerError) -> NoReturn:
    """Print the error on stderr (one line, or its JSON document) and exit with its code."""
    report(exc)
    raise typer.Exit(exc.exit_code)


def guard(call: Callable[[], T]) -> T:
    """`call()`, its ledger error printed as one line with the error's exit code."""
    try:
        return call()
    except LedgerError as exc:
        fail(exc)
