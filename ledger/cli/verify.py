"""`encounter verify`: the hash chains of a ledger file or of an exported file recomputed, and
checked against a published digest; `encounter repair`, which accepts a loss verify found;
`encounter migrate`, which brings a ledger of an earlier format up to this one; `encounter
erase`, which deletes an encounter's contents and keeps its chain checkable.

`ledger.cli` adds it (`commands`) to the app after the read commands (`ledger.reads`).
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ledger import api, jsonl
from ledger.cli import progress, render
from ledger.cli.errors import fail, guard, outcome
from ledger.cli.options import (
    Encounter,
    Expect,
    Json,
    Strict,
    emit_json,
    names_a_file,
    opened,
    tenant_of,
)
from ledger.dice import DiceReport
from ledger.errors import BadInput, LedgerError
from ledger.store import Head, chain
from ledger.store.chain import ChainReport
from projections.words import plural

#: `verify` (`ledger.cli` adds it to the app after the read commands).
commands = typer.Typer()


#: The fewest hex digits of a published digest `--head` takes: 64 bits, which a forger who
#: controls an event's free text cannot match by trying (48 bits fall to GPU-hours).
SHORTEST_HEAD = 16


def _head_problem(text: str) -> str | None:
    """What is wrong with a published digest given to --head (None: a whole hex digest, or its
    first `SHORTEST_HEAD` digits or more)."""
    if not text or len(text) > 64 or any(c not in "0123456789abcdefABCDEF" for c in text):
        return f"--head {text!r} is not a digest (64 hex digits, or the first {SHORTEST_HEAD}+)"
    if len(text) < SHORTEST_HEAD:
        return (
            f"--head {text!r} is {len(text)} hex digits: give at least the first "
            f"{SHORTEST_HEAD} of the published digest (a shorter prefix can be forged)"
        )
    return None


@commands.command()
def verify(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(help="One encounter, or an exported .jsonl file (default: all)."),
    ] = None,
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            help="The published digest (its first 16+ hex digits will do): exit 1 unless "
            "the chain ends there.",
        ),
    ] = None,
    json_: Json = False,
) -> None:
    """Recompute the hash chains and the dice the ledger rolled (once their seed is revealed);
    exit 1 when one is broken, a die does not match, or a chain does not end at --head."""
    wrong = _head_problem(head) if head is not None else None
    if wrong is not None:
        fail(BadInput(wrong))
    show = progress.wanted(json_)
    if name is not None and names_a_file(name):
        file = name
        size = Path(file).stat().st_size if show and Path(file).is_file() else 0
        with progress.bar(f"Verifying {Path(file).name}", None, size >= progress.LARGE_BYTES):
            reports = guard(lambda: jsonl.verify_file(file))
            intact = all(r.ok and r.unread is None for r in reports)
            rolled = guard(lambda: jsonl.dice_of_file(file)) if intact else {}
        problems: list[str] = []
    else:
        with opened(ctx, create=False) as ledger:
            heads = [h for h in ledger.encounters() if name is None or h.encounter == name]
            total = sum(h.seq for h in heads)
            what = f"Verifying {len(heads)} encounter{'s' * (len(heads) != 1)}"
            with progress.bar(what, total, show and total >= progress.LARGE_EVENTS) as step:
                # One encounter at a time, so that the bar moves between them.
                reports = [r for h in heads for r in _verified(ledger, h, step)]
                if not heads:
                    reports = guard(lambda: ledger.verify(name))
            problems = ledger.problems()
            # Dice are read from the events: a chain this build cannot read has none to show.
            readable = [r for r in reports if r.ok and r.unread is None and not r.erased]
            rolled = {r.encounter: _dice(ledger, r.encounter) for r in readable}
    # One encounter publishes its head; a whole file (or a file of several) one digest.
    digest = chain.file_digest({r.encounter: r.head for r in reports})
    whole = len(reports) > 1 or (name is None and bool(reports))
    ends_at = digest if whole else (reports[0].head if reports else None)
    matched = None if head is None else ends_at is not None and chain.matches(ends_at, head)
    if json_:
        _verify_document(reports, problems, digest if whole else None, matched, rolled)
    broken = bool(problems) or any(not r.ok or r.cache or r.invalid for r in reports)
    broken = broken or any(d is not None and not d.ok for d in rolled.values())
    outcome(1 if broken or matched is False else 0)
    for problem in problems:
        typer.echo(render.visible(f"{ctx.obj}: BROKEN: {problem}"))
    for r in reports:
        if r.ok and r.erased:
            typer.echo(
                f"{r.encounter}: {plural(r.events, 'event')}, {plural(r.erased, 'event')} erased, "
                "chain ok "
                f"(links only: erased contents cannot be checked), head {r.head}"
            )
        elif r.ok:
            typer.echo(f"{r.encounter}: {plural(r.events, 'event')}, chain ok, head {r.head}")
        else:
            typer.echo(f"{r.encounter}: BROKEN at seq {r.bad_seq}: {r.problem}")
        if r.cache is not None:
            typer.echo(f"{r.encounter}: CACHE DISAGREES: {r.cache} (the next write repairs it)")
        if r.unread is not None:
            typer.echo(f"{r.encounter}: NOT READABLE BY THIS BUILD: {r.unread}")
        if r.invalid is not None:
            seq = r.invalid.split()[1]
            typer.echo(
                f"{r.encounter}: NEVER ACCEPTED: {r.invalid} (another hand stored it; retract "
                f"it: encounter undo {r.encounter} {seq} --reason TEXT)"
            )
        checked = rolled.get(r.encounter)
        for line in checked.lines() if checked is not None else ():
            typer.echo(f"{r.encounter}: {line}")
    if not reports:
        typer.echo(render.visible(f"No encounters in {ctx.obj}."))
    elif whole and not broken:
        # A digest over chains that do not verify would publish a damaged file.
        typer.echo(f"all encounters ({len(reports)}): digest {digest}")
    if matched is True:
        typer.echo(f"head matches the published digest {head}")
    elif matched is False:
        if whole:
            found = f"this file's digest is {digest}"
        else:
            found = f"this chain ends at seq {reports[0].events} with head {ends_at}"
        typer.echo(
            f"head does NOT match the published digest {head}: {found} (events cut off, "
            "added or changed since it was published)"
        )
    if broken or matched is False:
        raise typer.Exit(1)


def _verify_document(
    reports: list[ChainReport],
    problems: list[str],
    digest: str | None,
    matched: bool | None,
    rolled: Mapping[str, DiceReport | None],
) -> NoReturn:
    """`verify --json`: one document, `{"ok", "problems", "encounters": [{"encounter",
    "events", "head", "ok", "bad_seq", "problem", "cache", "unread", "invalid", "erased",
    "dice"}],
    "digest", "head_matches"}` (`digest` over every head for a whole file, else null;
    `head_matches` null without --head; `dice` null without dice commitments, else `{"rolls",
    "dice", "checked", "awaiting", "committed_at", "bad_seq", "problem", "ok"}`); `ok` false
    and exit 1 when anything is broken (a die included) or the chain does not end at --head
    (each encounter's own `ok` is its chain's)."""
    encounters = []
    for r in reports:
        found = rolled.get(r.encounter)
        encounters.append({**r.document(), "dice": found.document() if found else None})
    ok = not problems and all(r.ok and r.cache is None and r.invalid is None for r in reports)
    ok = ok and all(d is None or d.ok for d in rolled.values())
    # "ok" is the exit code's answer: a chain that does not end at --head is not ok.
    ok = ok and matched is not False
    outcome(0 if ok else 1)
    emit_json(
        {
            "ok": ok,
            "problems": problems,
            "encounters": encounters,
            "digest": digest,
            "head_matches": matched,
        }
    )
    raise typer.Exit(0 if ok else 1)


def _dice(ledger: api.Ledger, encounter: str) -> DiceReport | None:
    return guard(lambda: ledger.dice(encounter))


@commands.command()
def repair(
    ctx: typer.Context,
    name: Encounter,
    accept_loss: Annotated[
        bool,
        typer.Option(
            "--accept-loss",
            help="Accept that events the ledger acknowledged are gone (required).",
        ),
    ] = False,
    reason: Annotated[
        str, typer.Option("--reason", help="Why the loss is accepted (kept in the ledger).")
    ] = "",
    expect: Expect = None,
    strict: Strict = False,
    json_: Json = False,
) -> None:
    """Let writes go on after events were removed from the end of an encounter: one note
    records what was lost and why, and `audit` reports it for good."""
    if not accept_loss:
        fail(BadInput("repair gives up acknowledged events for good: say so with --accept-loss"))
    if not reason.strip():
        fail(BadInput("repair needs --reason TEXT (the ledger keeps why events were given up)"))
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.repair(
                name, reason=reason, accept_loss=True, expect=expect, strict=strict
            )
        )
    if json_:
        emit_json(result.document())
        raise typer.Exit(0)
    record = result.records[-1]
    typer.echo(f"Recorded seq {record.seq}: {record.type}")
    typer.echo(render.visible(f"  {result.words[-1]}"))


@commands.command()
def erase(
    ctx: typer.Context,
    name: Annotated[
        str | None, typer.Argument(help="The encounter to erase (or --tenant-all).")
    ] = None,
    confirm: Annotated[
        str,
        typer.Option(
            "--confirm",
            help="The encounter's name again (with --tenant-all: the tenant's name).",
        ),
    ] = "",
    tenant_all: Annotated[
        bool,
        typer.Option("--tenant-all", help="Erase every encounter of the tenant (--tenant)."),
    ] = False,
    json_: Json = False,
) -> None:
    """Delete the contents of an encounter (or of every encounter of a tenant) for good, on a
    data-deletion request: each event keeps its place in the chain (seq, id, type, time,
    hashes), so `verify` still checks it and the head digest stays; reads then say it was
    erased."""
    tenant = tenant_of(ctx)
    if tenant_all and name is not None:
        fail(BadInput("erase takes an encounter or --tenant-all, not both"))
    if not tenant_all and name is None:
        fail(BadInput("erase needs an encounter's name (or --tenant-all for a whole tenant)"))
    wanted = tenant if tenant_all else name
    if confirm != wanted:
        what = f"every encounter of tenant {tenant!r}" if tenant_all else f"encounter {name!r}"
        again = "--confirm TENANT (the tenant's name)" if tenant_all else "--confirm NAME"
        fail(
            BadInput(
                f"erase deletes the contents of {what} for good: repeat the name with {again}; "
                "nothing was erased"
            )
        )
    try:
        with api.Ledger(ctx.obj, create=False, tenant=tenant) as ledger:
            if tenant_all:
                done = guard(lambda: ledger.erase_tenant(confirm=confirm))
            else:
                assert name is not None
                done = guard(lambda: ledger.erase(name, confirm=confirm))
    except LedgerError as exc:
        fail(exc)
    if json_:
        emit_json(done.document())
        raise typer.Exit(0)
    if tenant_all:
        typer.echo(
            f"Erased {plural(done.erased, 'event')} of {plural(len(done.encounters), 'encounter')} "
            "of tenant "
            f"{tenant!r}; their heads are unchanged (`encounter verify` checks the chains)."
        )
        return
    ((_, count, head),) = done.encounters
    if count:
        typer.echo(
            render.visible(
                f"Erased {plural(count, 'event')} of {name}; its head {head} is unchanged "
                f"(`encounter verify {name}` checks the chain)."
            )
        )
    else:
        typer.echo(render.visible(f"{name} was erased already: nothing more to erase."))


@commands.command()
def migrate(ctx: typer.Context, json_: Json = False) -> None:
    """Bring a ledger of an earlier format up to this one in place (any write does it too):
    every event becomes the default tenant's and gets a position; head digests stay."""
    result = guard(lambda: api.migrate(ctx.obj))
    if json_:
        emit_json(result.document())
        raise typer.Exit(0)
    if result.migrated:
        typer.echo(f"Migrated {result.location}: tenants and positions; head digests unchanged.")
    else:
        typer.echo(f"{result.location} is already of the current format.")


def _verified(ledger: api.Ledger, head: Head, step: Callable[[int], None]) -> list[ChainReport]:
    reports = guard(lambda: ledger.verify(head.encounter))
    step(head.seq)
    return reports
