"""The reference commands of `encounter`: `schema` (the JSON Schema of the events), `events`
(a system's event types and their fields, in words), `rules` (a system's house rules, their
defaults and meanings), `examples` (the shipped example encounters, and a copy of them) and
`views` (the SQL views and the track_changes read model for sqlite-utils and Datasette).
`ledger.cli` adds them (`commands`) to the app last."""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import json
import shutil
import site
import sys
import sysconfig
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

import ledger
from ledger import api, reference
from ledger.cli import render
from ledger.cli.errors import fail, guard
from ledger.cli.options import Json, SystemChoice, emit_json, tenant_of
from ledger.errors import BadInput
from ledger.store import views as sql_views

#: The reference commands (`ledger.cli` adds them to the app last).
commands = typer.Typer()


@commands.command()
def schema(
    system: Annotated[
        SystemChoice | None,
        typer.Option("--system", help="One system's events (default: all)."),
    ] = None,
) -> None:
    """The JSON Schema (2020-12) of one line of an events file, from the event models."""
    document = guard(lambda: reference.schema(system.value if system else None))
    typer.echo(json.dumps(document, indent=2, ensure_ascii=False))


@commands.command()
def events(
    system: Annotated[SystemChoice, typer.Argument(help="The rule system.")],
    kind: Annotated[str | None, typer.Argument(help="One event type (default: all).")] = None,
    json_: Json = False,
) -> None:
    """A system's event types: what each means, the command that records it, and its fields
    (kind, required or default, meaning), as `record` takes them (KEY=VALUE)."""
    if kind is not None:
        docs = [guard(lambda: reference.event_doc(system.value, kind))]
    else:
        docs = guard(lambda: reference.event_docs(system.value))
    if json_:
        emit_json({"system": system.value, "events": [doc.document() for doc in docs]})
        return
    for number, doc in enumerate(docs):
        if number:
            typer.echo("")
        typer.echo(render.visible(f"{doc.type}: {doc.meaning}"))
        if doc.verbs:
            typer.echo("  recorded by: " + ", ".join(f"encounter {v}" for v in doc.verbs))
        for field in doc.fields:
            typer.echo(render.visible(f"  {field}"))
        if doc.type == "combatant.joined":
            for side, listed in reference.stat_listing(system.value):
                typer.echo(render.visible(f"  stats of {side_article(side)}: {listed}"))
    if kind is None:
        typer.echo(f"\nOne type: encounter events {system.value} TYPE")


def side_article(side: str) -> str:
    """`a player`, `an adversary`."""
    return f"{'an' if side[:1] in 'aeiou' else 'a'} {side}"


@commands.command()
def rules(
    system: Annotated[SystemChoice, typer.Argument(help="The rule system.")],
    json_: Json = False,
) -> None:
    """A system's house rules: each key, its default, and what it means."""
    found = guard(lambda: reference.rules(system.value))
    if json_:
        emit_json({"system": system.value, "rules": found})
        return
    rows = [
        [rule["key"], json.dumps(rule["default"], ensure_ascii=False), rule["meaning"] or ""]
        for rule in found
    ]
    render.show((["rule", "default", "meaning"], rows))
    typer.echo(
        f"Override any of them with: encounter new NAME --system {system.value} --rules house.json"
    )


class ExampleAction(StrEnum):
    """What `examples` does besides listing."""

    copy = "copy"


@commands.command()
def examples(
    action: Annotated[
        ExampleAction | None, typer.Argument(help="copy: copy the examples into DIR.")
    ] = None,
    folder: Annotated[Path | None, typer.Argument(help="Where copy puts them (created).")] = None,
    json_: Json = False,
) -> None:
    """The example encounters shipped with the ledger (one per system) and where they are;
    `examples copy DIR` copies them, to replay, audit or import."""
    where = shipped_examples()
    if where is None:
        fail(
            BadInput(
                "the shipped examples are not installed here (examples/ in a checkout, "
                "share/encounter-ledger/examples/ beside an installed package)"
            )
        )
    found = sorted(where.glob("*.jsonl"))
    if action is ExampleAction.copy:
        if folder is None:
            fail(BadInput("examples copy needs DIR, the folder to copy them into"))
        copied = guard(lambda: copy_examples(where, folder))
        if json_:
            emit_json({"from": str(where), "to": str(folder), "copied": copied})
            return
        typer.echo(f"Copied {len(copied)} files from {where} to {folder}.")
        typer.echo(f"Try: encounter replay {folder / found[0].name}" if found else "")
        return
    if folder is not None:
        fail(BadInput(f"{folder}: only examples copy takes a folder"))
    listed = [_example(path) for path in found]
    if json_:
        emit_json({"folder": str(where), "examples": listed})
        return
    typer.echo(f"Examples in {where}:")
    rows = [[e["file"], e["system"], str(e["events"]), e["title"]] for e in listed]
    render.show((["file", "system", "events", "title"], rows))
    if found:
        typer.echo(f"Try: encounter replay {found[0]}")
    typer.echo("Copy them: encounter examples copy DIR")


def shipped_examples() -> Path | None:
    """The folder of the shipped examples: `examples/` of the checkout this package runs from,
    else `share/encounter-ledger/examples/` under the interpreter's prefix (a wheel installed
    in a virtualenv or by pipx) or the user's base (`pip install --user`)."""
    data = Path("share", "encounter-ledger", "examples")
    places = [
        _checkout(),
        Path(sys.prefix) / data,
        Path(sysconfig.get_path("data")) / data,
        Path(site.getuserbase()) / data,
    ]
    return next((p for p in places if any(p.glob("*.jsonl"))), None)


def _checkout() -> Path:
    """`examples/` beside the package, as a checkout (or an editable install) has it."""
    return Path(ledger.__file__).resolve().parent.parent / "examples"


def copy_examples(where: Path, folder: Path) -> list[str]:
    """Copy every file of the examples folder, its subfolders included (the Iron Vault journal),
    into `folder` (made when missing); a file of the same name there that differs is bad input,
    and then nothing is copied."""
    files = sorted(p.relative_to(where) for p in where.rglob("*") if p.is_file())
    if folder.exists() and not folder.is_dir():
        raise BadInput(f"{folder} is not a folder")
    for name in files:
        there = folder / name
        if there.exists() and there.read_bytes() != (where / name).read_bytes():
            raise BadInput(
                f"{there} exists and differs from the shipped {name}; choose another folder"
            )
    for name in files:
        try:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(where / name, folder / name)
        except OSError as exc:  # a folder that cannot be made or written: one line, no traceback
            raise BadInput(f"cannot write {exc.filename or folder}: {exc.strerror}") from exc
    return [name.as_posix() for name in files]


def _example(path: Path) -> dict[str, Any]:
    """An example file: its name, system, event count and title (from its first line)."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        first = json.loads(lines[0]) if lines else {}
    except ValueError:
        first = {}
    return {
        "file": path.name,
        "path": str(path),
        "system": str(first.get("system", "?")),
        "events": len(lines),
        "title": str(first.get("title") or ""),
    }


@commands.command()
def views(
    ctx: typer.Context,
    drop: Annotated[
        bool,
        typer.Option(
            "--drop",
            help="Delete this tenant's read model instead (and the views, once no other "
            "tenant's is left).",
        ),
    ] = False,
) -> None:
    """Create the SQL views (events_view, encounters) and rebuild the track_changes table,
    for sqlite-utils and Datasette users; a cache, never needed by the ledger itself."""
    # Writable, but never created: views of a file that does not exist would be empty.
    with guard(lambda: api.Ledger(ctx.obj, create=False, tenant=tenant_of(ctx))) as ledger:
        if drop:
            if guard(ledger.drop_views):
                typer.echo(render.visible(f"Dropped track_changes and the views from {ctx.obj}."))
            else:
                typer.echo(
                    render.visible(
                        f"Dropped tenant {ledger.tenant}'s rows of track_changes from {ctx.obj} "
                        "(other tenants' rows and the views stay)."
                    )
                )
            return
        counts = guard(ledger.rebuild_views)
    each = ", ".join(f"{name} {n}" for name, n in counts.items()) or "no encounters"
    typer.echo(
        f"Rebuilt track_changes: {sum(counts.values())} rows ({each}). "
        f"Views: {', '.join(sql_views.SQLITE_VIEWS)}."
    )
