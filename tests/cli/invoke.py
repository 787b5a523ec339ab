"""The command line run in-process on a ledger file, as most CLI tests drive it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ledger import cli

runner = CliRunner()


def run(db: Path, *args: str) -> tuple[int, str, str]:
    """`encounter --db DB ARGS...`: (exit code, stdout, stderr)."""
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path, *args: str) -> str:
    """The stdout of a command that must succeed without a word on stderr."""
    code, out, err = run(db, *args)
    assert (code, err) == (0, ""), out
    return out
