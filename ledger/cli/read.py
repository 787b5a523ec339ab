"""The read commands of `encounter`: log, tracks, replay, history, list.

They never write: NAME may be an encounter of the ledger file or a `.jsonl` file read into
memory. `ledger.cli` adds them (`commands`) to the app after the writing commands.
"""

# No `from __future__ import annotations`: typer reads these annotations each time the app runs.
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Annotated

import typer

from ledger import events
from ledger.cli import conventions, render
from ledger.cli.errors import fail, guard
from ledger.cli.options import Json, Source, Without, emit_json, opened, source
from ledger.errors import BadInput, UnknownName
from ledger.store import is_postgres
from projections import gametime
from projections.replay import Step, Viewed, in_setup
from projections.revisions import standing


def _next(shown: int, total: int) -> bool:
    """Wait for Enter before the next step of `replay --step`; False when the reader quits."""
    try:
        answer = input(f"-- {shown}/{total}: Enter for the next event, q to quit -- ")
    except (EOFError, KeyboardInterrupt):
        typer.echo()
        return False
    return answer.strip().lower() not in ("q", "quit")


#: The read commands (`ledger.cli` adds them to the app after the writing ones).
commands = typer.Typer()


@commands.command()
def log(ctx: typer.Context, name: Source, json_: Json = False) -> None:
    """Every event, retractions and corrections included; undone events marked with the seq
    that undid them (or the rewind that set them aside), corrected ones with the seqs of the
    corrections in force."""
    with source(ctx, name) as (ledger, encounter):
        # The stream is read as it is printed (twice for the table: its columns first), never
        # held whole: memory stays bounded however long the encounter.
        head = guard(lambda: ledger.store.readable(encounter))
        revisions = guard(lambda: ledger.revisions(head))  # few, however long the encounter
        now = standing(revisions)
        by: dict[int, int] = {}
        for r in revisions:
            target = getattr(r.event, "target", None)
            if r.type == "event.retracted" and r.seq not in now.gone and isinstance(target, int):
                by[target] = r.seq
        fixed = {seq: [r.seq for r in fixes] for seq, fixes in now.fixes.items()}
        if json_:
            # The export's lines, and on each event that does not count the seq that retracts
            # it, or the rewind that set it aside (on each corrected one, the corrections in
            # force).
            guard(lambda: _log_lines(ledger.iter_records(encounter), by, now.rewound, fixed))
            return
        shape = guard(
            lambda: render.log_shape(ledger.iter_records(encounter), now.gone, now.rewound)
        )
        rows = render.log_rows(
            guard(lambda: ledger.iter_records(encounter)), by, fixed, now.gone, shape, now.rewound
        )
        guard(lambda: render.show_rows(render.log_columns(shape), rows))


def _log_lines(
    records: Iterable[events.Recorded],
    by: dict[int, int],
    rewound: Mapping[int, int],
    fixed: dict[int, list[int]],
) -> None:
    """`log --json`: each record as exported, marked as retracted, set aside or corrected."""
    for record in records:
        line = record.exchange()
        if record.seq in by:
            line["retracted_by"] = by[record.seq]
        if record.seq in rewound:
            line["rewound_by"] = rewound[record.seq]
        if record.seq in fixed:
            line["corrected_by"] = fixed[record.seq]
        emit_json(line)


def what_if_line(without: list[int]) -> str:
    """`What if seq 9 had not happened:`, heading a read made `--without` it."""
    return f"{_what_if_text(without)[0].upper()}{_what_if_text(without)[1:]}:"


def _what_if_text(without: list[int]) -> str:
    seqs = sorted(set(without))
    named = (
        f"seq {seqs[0]}"
        if len(seqs) == 1
        else "seqs " + ", ".join(map(str, seqs[:-1])) + f" and {seqs[-1]}"
    )
    return f"what if {named} had not happened"


def what_if(without: list[int] | None) -> dict[str, dict[str, object]]:
    """What `--without` makes of a read, as its JSON key: `{"what_if": {"without": [9],
    "text": "what if seq 9 had not happened"}}` (nothing without it)."""
    if not without:
        return {}
    return {"what_if": {"without": sorted(set(without)), "text": _what_if_text(without)}}


@commands.command()
def tracks(
    ctx: typer.Context,
    name: Source,
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            help="The tracks right after this seq, as the table knew them then (undos and "
            "amends recorded later not applied; `replay --as-played --to SEQ` agrees).",
        ),
    ] = None,
    corrected: Annotated[
        bool,
        typer.Option(
            "--corrected",
            help="With --at: apply every undo and amend in force today, as `replay --to "
            "SEQ` tells it.",
        ),
    ] = False,
    without: Without = None,
    round_: Annotated[
        int | None,
        typer.Option("--round", help="The tracks at the end of this game round (0: the set-up)."),
    ] = None,
    scene: Annotated[
        str | None, typer.Option("--scene", help="With --round: the round of this scene.")
    ] = None,
    json_: Json = False,
) -> None:
    """The tracks of every combatant (now, at a seq, at the end of a round, or without some
    events)."""
    if round_ is not None and (at is not None or without):
        fail(BadInput("--round (the end of a round) does not combine with --at or --without"))
    if scene is not None and round_ is None:
        fail(BadInput("--scene picks the scene of --round N: give --round too"))
    with source(ctx, name) as (ledger, encounter):
        if round_ is not None:
            number = round_
            state = guard(lambda: ledger.round_tracks(encounter, number, gametime.scene_of(scene)))
        else:
            state = guard(
                lambda: ledger.tracks(encounter, at=at, without=without or (), corrected=corrected)
            )
    if json_:
        emit_json({**state.view(), **what_if(without)})
        return
    if without:
        typer.echo(what_if_line(without))
    # `--round N`: the end of round N, even when its last event was recorded (backdated)
    # after round N+1 began.
    shown, where = state.round, state.scene
    if round_ is not None:
        shown, where = round_, (state.scene if scene is None else gametime.scene_of(scene))
    typer.echo(render.tracks_header(state.encounter, state.system, state.seq, shown, where))
    render.show(*render.tracks_tables(state))
    pools = render.pools_line(state)
    if pools:
        typer.echo(pools)
    if state.proposals:
        typer.echo("Open proposals (a GM accepts or rejects each):")
        render.say(render.proposal_lines(state))


@commands.command()
def replay(
    ctx: typer.Context,
    name: Source,
    start: Annotated[
        int | None, typer.Option("--from-seq", "--from", help="First seq shown.")
    ] = None,
    end: Annotated[
        int | None,
        typer.Option(
            "--to-seq",
            "--to",
            help="Last seq folded (it ends where `tracks --at SEQ --corrected` is; with "
            "--as-played, where `tracks --at SEQ` is).",
        ),
    ] = None,
    as_played: Annotated[
        bool,
        typer.Option(
            "--as-played",
            help="Tell it as it happened at the table: every event as recorded, each undo "
            "and amend a step of its own that changes the tracks where it was recorded.",
        ),
    ] = False,
    without: Without = None,
    round_: Annotated[
        int | None,
        typer.Option("--round", help="Only the events of this game round (0: the set-up)."),
    ] = None,
    scene: Annotated[
        str | None, typer.Option("--scene", help="Only the events of this scene.")
    ] = None,
    step_: Annotated[
        bool,
        typer.Option("--step", help="One event at a time: Enter for the next, q to quit."),
    ] = False,
    json_: Json = False,
) -> None:
    """Step through the encounter in words, as corrected (each event as amended, where it
    happened; undone events left out; undos and amends are not steps: --as-played tells them),
    and the tracks each step changed."""
    if step_ and json_:
        fail(BadInput("--step waits for Enter between events; it does not combine with --json"))
    if step_ and not sys.stdin.isatty():
        fail(BadInput("replay --step reads Enter from a terminal; standard input is not one"))
    wanted = gametime.scene_of(scene)
    with source(ctx, name) as (ledger, encounter):
        # Each step is printed as it is folded and then let go (memory stays bounded however
        # long the encounter); only --step, which counts them, holds them.
        steps = guard(lambda: ledger.replay(encounter, start, end, without or (), as_played))
        looked = _Looked()
        chosen: Iterable[Step] = looked.choose(steps, round_, scene is not None, wanted)
        if step_:
            chosen = guard(lambda: list(chosen))
        if without and not json_:
            typer.echo(what_if_line(without))
        shown = guard(lambda: _steps(chosen, json_, step_, what_if(without)))
    if not shown and (round_ is not None or scene is not None):
        fail(looked.nothing(encounter, round_, wanted, as_played, start, end))


class _Looked:
    """What `replay --round/--scene` passed by: the rounds it found (in the scene asked for)
    and the last seq, for a refusal that says where it looked and what it found there."""

    def __init__(self) -> None:
        self.rounds: set[int] = set()
        self.last = 0
        #: Whether events came before the first round (the set-up, which round 0 also holds).
        self.setup = False

    def choose(
        self, steps: Iterable[Step], round_: int | None, by_scene: bool, wanted: gametime.Scene
    ) -> Iterator[Step]:
        """The steps of the round and scene asked for; round 0, with no scene named, holds the
        set-up too (the events before the first round), as `tracks --round 0` ends it."""
        for s in steps:
            self.last = s.record.seq
            in_scene = not by_scene or s.scene == wanted
            setup = not by_scene and in_setup(s, self.rounds)
            self.setup = self.setup or setup
            if in_scene and s.round is not None:
                self.rounds.add(s.round)
            if in_scene and (round_ is None or s.round == round_ or (round_ == 0 and setup)):
                yield s

    def nothing(
        self,
        encounter: str,
        round_: int | None,
        wanted: gametime.Scene,
        as_played: bool,
        start: int | None,
        end: int | None,
    ) -> UnknownName:
        """`no effective event of encounter 'ford' in seqs 6-8 is in round 1 (rounds there:
        2)`: the rounds listed as `tracks --round` lists them."""
        what = "event" if as_played else "effective event"
        ranged = start is not None or end is not None
        span = f" in seqs {start or 1}-{end if end is not None else self.last}" if ranged else ""
        time = gametime.when(round_, wanted)
        found = ""
        if round_ is not None:
            known = ", ".join(map(str, sorted(self.rounds)))
            label = "rounds there" if ranged else "rounds"
            if known and self.setup and 0 not in self.rounds and not ranged:
                known += "; 0 is the set-up"
            found = (
                f" ({label}: {known or ('none' if ranged else 'none: record `encounter round`')})"
            )
        return UnknownName(
            f"no {what} of encounter {encounter!r}{span} is in {time}{found}", code="unknown-round"
        )


def _steps(
    chosen: Iterable[Step], json_: bool, step_: bool, hypothetical: dict[str, dict[str, object]]
) -> int:
    """Print each step as it comes (with `step_`, `chosen` is a list: wait for Enter between
    them; under `--json` each carries `hypothetical`, the what-if of `--without`); how many were
    printed."""
    total = len(chosen) if isinstance(chosen, list) else 0
    shown = 0
    seen: Viewed = {}  # each combatant's last view: most steps leave most of them as they were
    for step in chosen:
        shown += 1
        if json_:
            emit_json({**step.document(seen), **hypothetical})
            continue
        render.echo_step(step)
        if step_ and shown < total and not _next(shown, total):
            break
    return shown


@commands.command()
def history(
    ctx: typer.Context,
    name: Source,
    combatant: Annotated[
        str,
        typer.Argument(
            help="Whose tracks to follow.", autocompletion=conventions.complete_combatants
        ),
    ],
    track: Annotated[
        str | None, typer.Option("--track", help="Only this track (e.g. fatigue).")
    ] = None,
    json_: Json = False,
) -> None:
    """What happened to one combatant (or one track): every event of the story as
    corrected that touched it, even where the net change is zero, and what it did."""
    with source(ctx, name) as (ledger, encounter):
        found = guard(lambda: list(ledger.history(encounter, combatant, track)))
    if json_:
        for step in found:
            emit_json(
                {
                    "seq": step.record.seq,
                    "type": step.record.type,
                    "event": events.body_of(step.record.event),
                    "changes": [c.document() for c in step.changes],
                    "what": render.what_happened(step, combatant),
                    "round": step.round,
                    "scene": step.scene,
                    "text": step.text,
                }
            )
        return
    if not found:
        what = f"{combatant}'s {track}" if track else combatant
        typer.echo(f"No event touched {what}.")
    for step in found:
        render.say(render.history_entry(step, combatant))


@commands.command("list")
def list_(ctx: typer.Context, json_: Json = False) -> None:
    """The encounters in the ledger file."""
    location = ctx.obj
    if not is_postgres(location) and not Path(location).exists() and Path(location).parent.is_dir():
        heads = []
    else:
        with opened(ctx, create=False) as ledger:
            heads = ledger.encounters()
    if json_:
        emit_json([h.document() for h in heads])
        return
    if not heads:
        typer.echo(render.visible(f"No encounters in {ctx.obj}."))
        return
    render.show(render.heads_table(heads))
