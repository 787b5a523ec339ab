"""How the `encounter` command fails: one `Error:` line on stderr (or, under `--json`, the
error document) and the exit code DESIGN.md gives, for a ledger's error and for a usage mistake
alike (`ledger.cli.OneLineErrors` reports those); what the ledger noticed and worked around is
one `Warning:` line.
"""

# No `from __future__ import annotations`: typer reads the annotations each time the app runs.
import json
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
import typer.core

from ledger.cli import render
from ledger.errors import LedgerError

T = TypeVar("T")


#: Whether this run's command line asked for `--json` (its errors are then JSON documents).
_json_errors = False
#: The exit code this run's command ends with, once it knows (see `outcome`).
_outcome = 0


def json_errors(wanted: bool) -> None:
    """Say whether this run's errors are JSON documents (the command line asked for --json)."""
    global _json_errors
    _json_errors = wanted


def exit_code() -> int:
    """The exit code this run's command has said it ends with (`outcome`)."""
    return _outcome


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


def warning_line(message: Warning | str, *_: Any, **__: Any) -> None:
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
