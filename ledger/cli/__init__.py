"""The `encounter` command: a thin typer shell over `ledger.api` (parse, call, render).

The commands are grouped by what they do: `write` (new, add, record, round, undo, redo, amend,
import, copy), `read` (log, tracks, replay, history, audit, list, export), `verify`, `report`
and `reference` (schema, rules, views); each rule system's verbs are added when a command line
names one (`errors.OneLineErrors`). `options` holds the shared parameters and the callback.
"""

import sys

import typer

from ledger.cli import errors, options, read, reference, report, verify, write

app = typer.Typer(
    cls=errors.OneLineErrors,
    no_args_is_help=True,
    add_completion=True,
    help="Record, audit, undo and replay tabletop encounters in an append-only ledger.",
    pretty_exceptions_enable=False,
)
app.callback()(options.main_options)
# In this order: `--help` lists them so.
app.registered_commands.extend(
    command
    for commands in (write.commands, read.commands, verify.commands, report.commands)
    for command in commands.registered_commands
)
app.registered_commands.extend(reference.commands.registered_commands)


def main() -> None:
    """Entry point of the `encounter` console script and `python -m ledger`."""
    if sys.argv[1:] == ["--version"]:
        typer.echo(f"encounter {options.version()}")
        return
    app()


__all__ = ["app", "main"]
