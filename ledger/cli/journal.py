"""`encounter import --from iron-vault`: an Iron Vault journal into an encounter of the system
that reads it, and what the import (or its dry run, in words) shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path

import typer

from ledger import systems
from ledger.cli import render
from ledger.cli.errors import fail, guard
from ledger.cli.options import emit_json, opened
from ledger.errors import BadInput
from ledger.ironvault import Journal
from projections.changes import changes
from projections.replay import Step
from projections.words import plural


class Format(StrEnum):
    """What `import` reads: JSON Lines, or the notes of an Iron Vault journal."""

    jsonl = "jsonl"
    iron_vault = "iron-vault"


def import_journal(
    ctx: typer.Context,
    paths: Sequence[Path],
    *,
    into: str | None,
    character: str | None,
    sheets: Sequence[Path],
    dry_run: bool,
    expect: int | None,
    json_: bool,
) -> None:
    """Import the notes `paths` name, then say what was (or, dry, would be) appended."""
    if into is None:
        fail(BadInput("import --from iron-vault needs --into NAME (the encounter to import into)"))
    name = into
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.import_iron_vault(
                list(paths),
                into=name,
                character=character,
                sheet=list(sheets),
                dry_run=dry_run,
                expect=expect,
            )
        )
    if json_:
        document = result.document()
        if dry_run:
            document["events"] = [_event(result, n) for n in range(len(result.folds))]
        emit_json(document)
        return
    _say(result)


def _event(result: Journal, index: int) -> dict[str, object]:
    step = _step(result, index)
    return {
        "seq": step.record.seq,
        "type": step.record.type,
        "source": step.source,
        "text": step.text,
    }


def _step(result: Journal, index: int) -> Step:
    before, record, after = result.folds[index]
    made = tuple(changes(before, after)) if before is not None else ()
    return Step(record, after, made, systems.ruleset(after.system), before)


def _say(result: Journal) -> None:
    count = f"{result.appended} event{'s' * (result.appended != 1)}"
    notes = f"{result.notes} note{'s' * (result.notes != 1)}"
    if result.dry_run:
        typer.echo(
            f"Would import {count} into {result.encounter!r} from {notes} "
            f"({result.already_stored} already stored):"
        )
        for index in range(len(result.folds)):
            step = _step(result, index)
            read = systems.readings(step.state.system)
            render.say([render.told(step), *render.change_lines(step.changes, read)])
    else:
        typer.echo(
            f"Imported {count} into {result.encounter!r} from {notes} "
            f"({result.already_stored} already stored); head seq {result.head}."
        )
    if result.kept:
        typer.echo(f"Kept as notes (not modelled): {_kept(result.kept)}.")
    if result.dry_run:
        typer.echo("Nothing was appended (--dry-run).")


def _kept(kept: Mapping[str, int]) -> str:
    # Iron Vault writes a comment as `- "text"`: a node name that says little to a reader.
    return ", ".join(
        plural(n, "comment") if name == "-" else f"{n} {name}" for name, n in sorted(kept.items())
    )
