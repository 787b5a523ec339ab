"""The commands that write: new, add, record, round, undo, redo, amend, rewind, import and
copy, and what every recording command (a system's verbs included) prints of what it did.

Each builds its arguments, calls one `ledger.api.Ledger` method and shows the result.
"""

# No `from __future__ import annotations`: typer reads every command's annotations each time the
# app runs.
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from ledger import api, events, jsonl, systems
from ledger.cli import conventions, journal, progress, render
from ledger.cli.errors import fail, guard
from ledger.cli.options import (
    By,
    Encounter,
    Expect,
    Json,
    Propose,
    Round,
    Scene,
    Side,
    Strict,
    SystemChoice,
    emit_json,
    game_time,
    opened,
    parse_pairs,
    read_json_object,
    tenant_of,
)
from ledger.dice import Throw
from ledger.errors import BadInput, LedgerError
from ledger.events import common
from projections.shown import end_of

#: The writing commands (`ledger.cli` adds them to the app first).
commands = typer.Typer()


def show_recorded(result: api.Written, note: str = "") -> None:
    """`Recorded seq N: type`, the event in its ruleset's words, the tracks it changed and the
    findings it raised."""
    for record, words in zip(result.records, result.words, strict=True):
        event = record.event
        # A GM entering an act in a player's name sees whose it is now (`--as gm --by ana`).
        whose = f" (by {event.by}, entered by {event.entered_by})" if event.entered_by else ""
        typer.echo(render.visible(f"Recorded seq {record.seq}: {record.type}{whose}{note}"))
        typer.echo(render.visible(f"  {words}"))
    if result.downstream is not None:
        # A retraction or correction recorded by its type: the same diff as undo and amend.
        for line in render.downstream(result.downstream, systems.readings(result.system)):
            typer.echo(line)
        for finding in result.findings:
            if finding.rule == "ruling-reversed":
                typer.echo(render.finding_line(finding))
        return
    for line in render.change_lines(result.changes, systems.readings(result.system)):
        typer.echo(line)
    show_findings(result)


def show_findings(result: api.Written, quiet_rulings: bool = False) -> None:
    """The findings a write raised; with `quiet_rulings`, not the `ruling-reversed` note that
    every retraction raises (a command that retracts says so in its own words)."""
    for finding in result.findings:
        if not (quiet_rulings and finding.rule == "ruling-reversed"):
            typer.echo(render.finding_line(finding))


def emit_recorded(result: api.Written) -> NoReturn:
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
    propose: bool = False,
    roll: Sequence[Throw] = (),
    bare: Mapping[str, str] | None = None,
) -> api.Written:
    """Record one event dict (with the game time in `stamp`, and the dice `roll` names rolled
    by the ledger) and print what it did: the building block of friendly verbs (`propose`: a
    proposal of it, which changes nothing until a GM accepts it). With `json_`, the JSON
    document is printed instead and the command ends here. `bare`: the fields typed as
    KEY=VALUE whose value read as a number, a boolean or null, each with what was typed (a
    refusal of one as text says how to quote it)."""
    for key, value in (stamp or {}).items():
        if key in fields and fields[key] != value:
            fail(BadInput(f"--{key} {value!r} and the field {key}={fields[key]!r} disagree"))
    # A system's verb says so: its event on another system's encounter is refused as such.
    verb = ctx.info_name if systems.verb_owner(ctx.info_name or "") else None
    with opened(ctx) as ledger:
        try:
            if propose:
                system = ledger.store.require(encounter).system
                systems.refuse_other(encounter, system, verb, fields.get("type"))
                result = ledger.propose(
                    encounter, fields, strict=strict, expect=expect, stamp=stamp
                )
            else:
                result = ledger.record(
                    encounter,
                    {**fields, **(stamp or {})},
                    strict=strict,
                    expect=expect,
                    verb=verb,
                    roll=roll,
                )
        except LedgerError as exc:
            fail(_quoting(exc, bare or {}))
    if json_:
        emit_recorded(result)
    show_recorded(result)
    return result


@commands.command()
def new(
    ctx: typer.Context,
    name: Encounter,
    system: Annotated[SystemChoice, typer.Option("--system", help="The rule system.")],
    title: Annotated[str | None, typer.Option("--title", help="A title for people.")] = None,
    rules: Annotated[
        Path | None, typer.Option("--rules", help="A JSON file of house-rule overrides.")
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            help="A JSON file of policy keys (who may record what); opened --as USER, the "
            "defaults are pinned without one.",
        ),
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Open a new encounter, pinning its house rules (and, opened --as a user, who may record
    what: that user is its GM)."""
    overrides = read_json_object(rules, "--rules") if rules else {}
    table = read_json_object(policy, "--policy") if policy else None
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.open(
                name,
                system.value,
                title=title,
                rules=overrides,
                expect=expect,
                policy=table,
                strict=strict,
            )
        )
    if json_:
        emit_recorded(result)
    typer.echo(f"Opened {name!r} ({system.value}) at seq {result.seq}.")


@commands.command()
def add(
    ctx: typer.Context,
    name: Encounter,
    combatant: Annotated[str, typer.Argument(help="The combatant's name.")],
    side: Annotated[Side, typer.Option("--side", help="player or adversary.")],
    stat: Annotated[
        list[str] | None, typer.Option("--stat", help="KEY=VALUE (JSON values); repeat.")
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--stat-file", "--from", help="A JSON file with the stat block."),
    ] = None,
    player: Annotated[
        str | None,
        typer.Option("--player", metavar="USER", help="The user who plays it (records its rolls)."),
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Add a combatant with its stat block."""
    stats = read_json_object(from_file, "--stat-file") if from_file else {}
    stats.update(parse_pairs(stat or [], "--stat"))
    fields = {"type": "combatant.joined", "name": combatant, "side": side.value, "stats": stats}
    if player is not None:
        fields["player"] = player
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


def _quoting(exc: LedgerError, bare: Mapping[str, str]) -> LedgerError:
    """`exc`, saying how to quote a typed value that read as JSON where text was wanted
    (`target=42` is the number 42: a combatant named 42 is `target='"42"'`)."""
    for key, typed in bare.items():
        if f"field {key!r}: input should be a valid string" in str(exc):
            return exc.reworded(f"{exc}; for the text {typed}, quote it: {key}='\"{typed}\"'")
    return exc


def _bare(pairs: Sequence[str], data: Mapping[str, Any]) -> dict[str, str]:
    """The KEY=VALUE pairs whose value read as a number, a boolean or null: key -> as typed."""
    typed = dict(pair.partition("=")[::2] for pair in pairs)
    return {
        key: text
        for key, text in typed.items()
        if key in data and (data[key] is None or isinstance(data[key], int | float | bool))
    }


@commands.command()
def record(
    ctx: typer.Context,
    name: Encounter,
    type: Annotated[str, typer.Argument(help="The event type, e.g. hit.resolved.")],
    fields: Annotated[
        list[str] | None, typer.Argument(help="KEY=VALUE fields; values parse as JSON.")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
    propose: Propose = False,
) -> None:
    """Record any event by its type."""
    data = parse_pairs(fields or [], "field")
    if "type" in data:
        fail(BadInput("give the type as the TYPE argument, not as a field"))
    stamp = game_time(round_, scene, by)
    if type == "round.started" and "round" in stamp:
        # The event's own round is its `round` field: `encounter round NAME N` says it plainly.
        fail(BadInput("round.started takes its round as the field round=N, not --round"))
    record_command(
        ctx,
        name,
        {"type": type, **data},
        strict,
        expect,
        json_=json_,
        stamp=stamp,
        propose=propose,
        bare=_bare(fields or [], data),
    )


@commands.command("round")
def start_round(
    ctx: typer.Context,
    name: Encounter,
    number: Annotated[int, typer.Argument(help="The round that starts now.")],
    scene: Scene = None,
    by: By = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Start a game round: later events are in round N (and scene S) until the next one."""
    fields = {"type": "round.started", "round": number}
    record_command(ctx, name, fields, strict, expect, json_=json_, stamp=game_time(None, scene, by))


@commands.command("end-scene")
def end_scene(
    ctx: typer.Context,
    name: Encounter,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """End the scene (scene.ended): the system's scene-end recovery applies (fatigue eased,
    pools carried over: each system says what, in its words)."""
    fields = {"type": "scene.ended"}
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@commands.command()
def leave(
    ctx: typer.Context,
    name: Encounter,
    combatant: Annotated[
        str,
        typer.Argument(help="Who stops opposing.", autocompletion=conventions.complete_combatants),
    ],
    manner: Annotated[common.Manner, typer.Option("--manner", help="How.")] = "defeated",
    note: Annotated[str | None, typer.Option("--note", help="In words.")] = None,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """A combatant stops opposing (combatant.left): defeated as the fiction tells it, fled,
    surrendered, bargained, escaped, resolved (a puzzle)..."""
    fields: dict[str, Any] = {"type": "combatant.left", "name": combatant, "manner": manner}
    if note is not None:
        fields["note"] = note
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


@commands.command("note")
def note_(
    ctx: typer.Context,
    name: Encounter,
    text: Annotated[str, typer.Argument(help="The note.")],
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """A note in the log (it changes no track)."""
    fields = {"type": "note", "text": text}
    record_command(
        ctx, name, fields, strict, expect, json_=json_, stamp=game_time(round_, scene, by)
    )


DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Say what it would change downstream, and append nothing (what if we had ruled "
        "otherwise?).",
    ),
]


@commands.command()
def undo(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[
        int | None, typer.Argument(help="The seq to retract (default: the last event).")
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the ruling is undone.")] = "",
    strict: Strict = False,
    expect: Expect = None,
    dry_run: DryRun = False,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Retract a mistaken event (or a correction); every later track is recomputed, and what
    that changed downstream is shown."""
    if not reason.strip():
        fail(BadInput("undo needs --reason TEXT (the ledger keeps why a ruling changed)"))
    stamp = game_time(round_, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.undo(
                name,
                seq,
                reason=reason,
                strict=strict,
                expect=expect,
                dry_run=dry_run,
                stamp=stamp,
            )
        )
    if json_:
        emit_recorded(result)
    _show_revision(result, "undoes" if dry_run else "undid", "undo")


@commands.command()
def redo(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[
        int | None,
        typer.Argument(help="The retraction, or the event it retracted (default: the last undo)."),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why.")] = "redo",
    strict: Strict = False,
    expect: Expect = None,
    dry_run: DryRun = False,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Retract a retraction: the undone event counts again, and what that changed downstream
    is shown."""
    stamp = game_time(round_, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.redo(
                name,
                seq,
                reason=reason,
                strict=strict,
                expect=expect,
                dry_run=dry_run,
                stamp=stamp,
            )
        )
    if json_:
        emit_recorded(result)
    _show_revision(result, "redoes" if dry_run else "redid", "redo")


@commands.command(context_settings={"ignore_unknown_options": True})
def amend(
    ctx: typer.Context,
    name: Encounter,
    seq: Annotated[int, typer.Argument(help="The seq of the event to correct.")],
    fields: Annotated[
        list[str] | None,
        typer.Argument(help="KEY=VALUE fields to change (JSON values; null removes a field)."),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the event is corrected.")] = "",
    strict: Strict = False,
    expect: Expect = None,
    dry_run: DryRun = False,
    json_: Json = False,
    round_: Round = None,
    scene: Scene = None,
    by: By = None,
) -> None:
    """Correct an event where it happened: one event.corrected, which the fold reads at SEQ
    itself, so every later event is judged against the corrected one; shows what changed."""
    if not reason.strip():
        fail(BadInput("amend needs --reason TEXT (the ledger keeps why a ruling changed)"))
    changed = parse_pairs(options_as_pairs(fields or []), "field")
    if not changed:
        fail(BadInput("amend needs at least one KEY=VALUE field to change"))
    stamp = game_time(round_, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.amend(
                name,
                seq,
                changed,
                reason=reason,
                strict=strict,
                expect=expect,
                dry_run=dry_run,
                stamp=stamp,
            )
        )
    if json_:
        emit_recorded(result)
    _show_revision(result, "corrects", "amend")


def options_as_pairs(words: list[str]) -> list[str]:
    """A verb's options given to `amend` as KEY=VALUE pairs: `--using heart` and
    `--using=heart` both read as `--using=heart` (`Ledger.amend` knows the option names)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and "=" not in word and i + 1 < len(words):
            out.append(f"{word}={words[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


@commands.command()
def rewind(
    ctx: typer.Context,
    name: Encounter,
    round_: Annotated[
        int,
        typer.Option(
            "--round", help="The game round whose end the encounter goes back to (0: the set-up)."
        ),
    ],
    reason: Annotated[str, typer.Option("--reason", help="Why the fight is rewound.")] = "",
    scene: Annotated[
        str | None, typer.Option("--scene", help="The round of this scene (as tracks --round).")
    ] = None,
    strict: Strict = False,
    expect: Expect = None,
    dry_run: DryRun = False,
    json_: Json = False,
    by: By = None,
) -> None:
    """Go back to the end of game round N, as one act: every event played after it is set
    aside (one undo brings them all back); later events build on the rewound state, and what
    that changed downstream is shown."""
    if not reason.strip():
        fail(BadInput("rewind needs --reason TEXT (the ledger keeps why a ruling changed)"))
    stamp = game_time(None, scene, by)
    with opened(ctx) as ledger:
        result = guard(
            lambda: ledger.rewind(
                name,
                round_,
                reason=reason,
                scene=stamp.get("scene"),
                strict=strict,
                expect=expect,
                dry_run=dry_run,
                by=stamp.get("by"),
            )
        )
    if json_:
        emit_recorded(result)
    _show_revision(result, "back to", "rewind")


def _show_revision(result: api.Written, verb: str, command: str) -> None:
    """What an undo, redo, amend or rewind recorded (or would record), then its downstream
    diff."""
    record = result.records[-1]
    target = getattr(record.event, "target", "?")
    what = f"{verb} seq {target}"
    changed = getattr(record.event, "fields", None)
    if changed:
        what += ": " + render.fields(changed)
    if isinstance(record.event, events.EncounterRewound):
        count = len(result.set_aside)
        what = (
            f"{verb} {end_of(record.event.round)}, seq {record.event.after}: "
            f"{count} event{'s' * (count != 1)} set aside"
        )
    if result.dry_run:
        said = f"Dry run: {command} would record seq {record.seq}: {record.type} ({what})"
    else:
        said = f"Recorded seq {record.seq}: {record.type} ({what})"
    typer.echo(render.visible(said))
    typer.echo(render.visible(f"  {result.words[-1]}"))
    read = systems.readings(result.system)
    if result.downstream is None:
        for line in render.change_lines(result.changes, read) or ["No track changed."]:
            typer.echo(line)
        show_findings(result, quiet_rulings=True)
    else:
        for line in render.downstream(result.downstream, read):
            typer.echo(line)
    if result.dry_run:
        typer.echo("Nothing was appended (--dry-run).")


@commands.command("import")
def import_(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(
            help="A JSON Lines file ('-' for stdin); with --from iron-vault, journal notes or "
            "folders of them."
        ),
    ],
    from_: Annotated[
        journal.Format,
        typer.Option("--from", help="What the files are: JSON Lines, or an Iron Vault journal."),
    ] = journal.Format.jsonl,
    into: Annotated[
        str | None, typer.Option("--into", help="The encounter to import into.")
    ] = None,
    new_ids: Annotated[
        bool, typer.Option("--new-ids", help="Fresh ids and seqs: copy under another name.")
    ] = False,
    unchained: Annotated[
        bool,
        typer.Option(
            "--unchained",
            help="Take lines whose hash chain is missing or broken, unverified (audit says so).",
        ),
    ] = False,
    character: Annotated[
        str | None,
        typer.Option("--character", help="Iron Vault: whom a block with no actor node is about."),
    ] = None,
    sheet: Annotated[
        list[Path] | None,
        typer.Option(
            "--sheet", help="Iron Vault: a character note whose front matter holds the sheet."
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Iron Vault: print what would be appended, in words."),
    ] = False,
    strict: Strict = False,
    expect: Expect = None,
    json_: Json = False,
) -> None:
    """Import JSON Lines, or an Iron Vault journal's mechanics blocks (--from iron-vault; into
    an encounter of the system that reads them): all events or none; events already stored
    are skipped."""
    if from_ is journal.Format.iron_vault:
        if new_ids or unchained or strict:
            fail(BadInput("--new-ids, --unchained and --strict are for JSON Lines imports"))
        journal.import_journal(
            ctx, files, into=into, character=character, sheets=sheet or [], dry_run=dry_run,
            expect=expect, json_=json_,
        )  # fmt: skip
        return
    if character is not None or sheet or dry_run:
        fail(BadInput("--character, --sheet and --dry-run are for --from iron-vault"))
    if len(files) != 1:
        fail(BadInput(f"import reads one JSON Lines file, not {len(files)}"))
    file = files[0]
    stdin = str(file) == "-"
    lines = jsonl.stdin_lines() if stdin else guard(lambda: jsonl.lines(file))
    size = 0 if stdin else file.stat().st_size
    show = progress.wanted(json_) and size >= progress.LARGE_BYTES
    with opened(ctx) as ledger, progress.bar(f"Importing {file.name}", size, show) as advance:
        result = guard(
            lambda: ledger.import_lines(
                progress.by_size(lines, advance),
                into=into,
                new_ids=new_ids,
                strict=strict,
                expect=expect,
                source="stdin" if stdin else str(file),
                unchained=unchained,
            )
        )
    if json_:
        emit_json(result.document())
        return
    # An unchained import appends a note of its own after the file's events (the audit
    # reports it): said, so that the head's seq adds up.
    marked = " and a note that they are unverified" if unchained and result.appended else ""
    typer.echo(
        f"Imported {result.appended} event{'s' * (result.appended != 1)} into {result.encounter!r} "
        f"({result.already_stored} already stored){marked}; head seq {result.head}."
    )


@commands.command("copy")
def copy_(
    ctx: typer.Context,
    source: Annotated[
        str, typer.Option("--from", help="The ledger to copy: a file or a postgresql:// URL.")
    ],
    target: Annotated[
        str, typer.Option("--to", help="The ledger to copy into (created when missing).")
    ],
    json_: Json = False,
) -> None:
    """Copy every encounter of one ledger into another (SQLite and PostgreSQL alike); with
    --tenant, that tenant's encounters, into the same tenant."""
    result = guard(lambda: api.copy_ledger(source, target, tenant=tenant_of(ctx)))
    if json_:
        emit_json(result.document())
        return
    for done in result.encounters:
        typer.echo(
            f"{done.encounter}: {done.appended} appended, {done.already_stored} already stored; "
            f"head seq {done.head}"
        )
    count, erased = len(result.encounters), len(result.erased)
    left_out = (
        f"; left out {erased} erased encounter{'s' * (erased != 1)}: {', '.join(result.erased)}"
        if erased
        else ""
    )
    typer.echo(
        render.visible(
            f"Copied {count} encounter{'s' * (count != 1)} from {result.source} to "
            f"{result.target} ({result.appended} event{'s' * (result.appended != 1)} appended, "
            f"{result.already_stored} already stored){left_out}."
        )
    )
