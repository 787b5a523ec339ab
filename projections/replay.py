"""Replay: an encounter step by step, each step with the tracks (and pools) it changed."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ledger import events
from ledger.errors import BadInput, UnknownName
from projections import words
from projections.changes import Change, changes
from projections.core import AnyRuleset, RunningFold, State
from projections.revisions import REVISION_MODELS, standing
from projections.shown import Scene
from projections.state import Combatant


@dataclass(frozen=True, slots=True)
class Step:
    """One replay step: the effective event and the encounter after it (and before it), and
    the ruleset that tells it."""

    record: events.Recorded
    state: State
    changes: tuple[Change, ...]
    ruleset: AnyRuleset
    before: State | None = None

    @property
    def text(self) -> str:
        """The event in words, as its ruleset tells it (`projections.words.explain`)."""
        return words.explain(
            self.ruleset, self.before, self.record.seq, self.record.event, self.state
        )

    def only(self, changes: tuple[Change, ...]) -> Step:
        """This step with only these changes (what `history` shows of one combatant)."""
        return replace(self, changes=changes)

    @property
    def round(self) -> int | None:
        """The game round the event happened in: its own, else the latest `round.started`."""
        own = self.record.event.round
        return own if own is not None else self.state.round

    @property
    def scene(self) -> int | str | None:
        """The scene the event happened in: its own, else the latest `round.started`'s."""
        own = self.record.event.scene
        return own if own is not None else self.state.scene

    @property
    def source(self) -> str | None:
        """Where the event was imported from (`Session 3.md:41`), or None."""
        return events.origin(self.record.event)

    @property
    def skipped(self) -> str | None:
        """Why this step's event no longer applies (after an undo or with --without), or None."""
        last = self.state.skipped[-1] if self.state.skipped else None
        return last.reason if last is not None and last.seq == self.record.seq else None

    def document(self, seen: Viewed | None = None) -> dict[str, Any]:
        """The `replay --json` line (with `skipped` when the event no longer applies).

        `seen`: the views of the steps before, by combatant, kept by the caller across a
        replay: a combatant the step left as it was (the very same value) is not turned into
        JSON data again (a step changes one or two of them)."""
        doc = {
            "seq": self.record.seq,
            "type": self.record.type,
            "event": events.body_of(self.record.event),
            "combatants": {name: _view(name, c, seen) for name, c in self.state.combatants.items()},
            "pools": dict(self.state.pools),
            "round": self.round,
            "scene": self.scene,
            "text": self.text,
        }
        if self.skipped is not None:
            doc["skipped"] = self.skipped
        return doc


#: The last view of each combatant, with the value it is the view of (`Step.document`).
Viewed = dict[str, tuple[Combatant, dict[str, Any]]]


def _view(name: str, combatant: Combatant, seen: Viewed | None) -> dict[str, Any]:
    if seen is None:
        return combatant.view()
    kept = seen.get(name)
    if kept is not None and kept[0] is combatant:
        return kept[1]
    view = combatant.view()
    seen[name] = (combatant, view)
    return view


def replay(
    ruleset: AnyRuleset,
    records: Sequence[events.Recorded],
    start: int | None = None,
    end: int | None = None,
) -> Iterator[Step]:
    """One step per effective table event in [start, end] (as corrected: rulings are not
    steps), with the tracks after it."""
    now = standing(records)
    return replay_stream(ruleset, records, now.gone, start, end, now.fixes)


def replay_stream(
    ruleset: AnyRuleset,
    records: Iterable[events.Recorded],
    gone: frozenset[int],
    start: int | None = None,
    end: int | None = None,
    fixes: Mapping[int, Sequence[events.Recorded]] | None = None,
) -> Iterator[Step]:
    """`replay` over stored rows read once, in seq order, skipping the seqs in `gone` and
    reading those in `fixes` as corrected. The story as corrected tells a ruling the same way
    whether it was an undo or an amend: neither is a step of its own (the undone event is left
    out, the amended one told as amended, where it was); `as_played` tells both as steps."""
    folder = RunningFold(ruleset, fixes=fixes)
    previous: State | None = None
    for record in records:
        if end is not None and record.seq > end:
            break
        if record.seq in gone:
            continue
        state = folder.add(record)
        shown = start is None or record.seq >= start
        if shown and not isinstance(record.event, events.EventRetracted | events.EventCorrected):
            assert folder.last is not None  # the event as the fold read it (corrected)
            yield Step(
                record=folder.last,
                state=state,
                changes=tuple(changes(previous, state)),
                ruleset=ruleset,
                before=previous,
            )
        previous = state


def as_played(
    ruleset: AnyRuleset,
    records: Iterable[events.Recorded],
    reread: Callable[[int, int], Iterable[events.Recorded]],
    start: int | None = None,
    end: int | None = None,
    every: int = 256,
) -> Iterator[Step]:
    """The story as it happened at the table: one step per stored event in [start, end], each
    with the tracks as the table knew them right after it (`tracks --at SEQ`). A retraction or
    correction is a step of its own, whose changes are everything it changed from its target
    on; `reread(after, upto)` gives the stored events again for that refold."""
    revisions: list[events.Recorded] = []
    now = standing(())
    folder = RunningFold(ruleset)
    checkpoints: list[tuple[int, State]] = []
    previous: State | None = None
    for record in records:
        if end is not None and record.seq > end:
            break
        if type(record.event) in REVISION_MODELS:
            revisions.append(record)
            then, now = now, standing(revisions)
            fork = then.first_change(now) or record.seq
            checkpoints = [c for c in checkpoints if c[0] < fork]
            after, state = checkpoints[-1] if checkpoints else (0, None)
            folder = RunningFold(ruleset, state, now.fixes)
            for earlier in reread(after, record.seq - 1):
                if earlier.seq not in now.gone:
                    folder.add(earlier)
                _checkpoint(checkpoints, earlier.seq, folder.state, every)
        state = folder.add(record)
        _checkpoint(checkpoints, record.seq, state, every)
        if start is None or record.seq >= start:
            yield Step(
                record=record,
                state=state,
                changes=tuple(changes(previous, state)),
                ruleset=ruleset,
                before=previous,
            )
        previous = state


def in_setup(step: Step, rounds: Collection[int]) -> bool:
    """Whether `step` is of the set-up: no round of its own, and no round seen before it
    (`rounds`). Round 0, when no event is in it, is the set-up (`--round 0`)."""
    return step.round is None and not rounds


def round_end(encounter: str, steps: Iterable[Step], round: int, scene: Scene = None) -> Step:
    """The step that ends game round `round` (of `scene`, when given): the last effective event
    of play in it, with every undo and correction in force applied (an undo, a correction or a
    rewind is not play: it ends no round). `tracks --round N` is its state, and a rewind to
    round N sets aside what was played after it. Round 0, when no event is in it, is the
    set-up: the last event before the first round (of no scene named). Unknown name when no
    event is in that round."""
    if not isinstance(round, int) or isinstance(round, bool) or round < 0:
        raise BadInput(f"a round is a whole number from 0, not {round!r}")
    found: Step | None = None
    setup: Step | None = None
    rounds: set[int] = set()
    for step in steps:
        if type(step.record.event) in REVISION_MODELS:
            continue
        at, where = step.round, step.scene
        if in_setup(step, rounds):
            setup = step
        if at is not None and (scene is None or where == scene):
            rounds.add(at)
            if at == round:
                found = step
    if found is None and round == 0 and scene is None:
        found = setup
    if found is None:
        where = f" of scene {scene}" if scene is not None else ""
        known = ", ".join(map(str, sorted(rounds))) or "none: record `encounter round`"
        if setup is not None and scene is None and rounds and 0 not in rounds:
            known += "; 0 is the set-up"
        raise UnknownName(
            f"no effective event of encounter {encounter!r} is in round {round}{where} "
            f"(rounds: {known})",
            code="unknown-round",
        )
    return found


def _checkpoint(
    checkpoints: list[tuple[int, State]], seq: int, state: State | None, every: int
) -> None:
    if seq % every == 0 and state is not None:
        checkpoints.append((seq, state))


def _names(event: Any, before: State | None, name: str) -> bool:
    # The event names the combatant in a role, or (a roll) the stake it resolves does.
    roles = [getattr(event, role, None) for role in ("name", "target", "actor", "opposing")]
    stake = getattr(event, "stake", None)
    if before is not None and isinstance(stake, str) and stake in before.stakes:
        lock = before.stakes[stake].lock
        roles += [lock.actor, lock.target, getattr(lock, "opposing", None)]
    return name in roles


def _tracks_named(event: Any) -> set[str]:
    # The tracks an event names outright (an override, a sheet noted, a meter changed).
    named = {getattr(event, key, None) for key in ("track", "meter")}
    values = getattr(event, "values", None)
    if isinstance(values, Mapping):
        named |= set(values)
    return {t for t in named if isinstance(t, str)}


def touched(
    ruleset: AnyRuleset, step: Step, combatant: str, track: str | None = None
) -> tuple[Change, ...] | None:
    """What one replay step did to `combatant` (or one of its tracks), or None when it touched
    none of its tracks: the tracks it changed, and those it touched that ended where they
    started (a Fatigue track filled and cleared; an override or a sheet naming the track), as
    changes from a value to the same value."""
    event, seq = step.record.event, step.record.seq
    mine = [c for c in step.changes if c.combatant == combatant]
    named = _names(event, step.before, combatant)
    within = set(ruleset.touches(step.before, seq, event, step.state).get(combatant, {}))
    if named and getattr(event, "target", None) == combatant:
        within |= _tracks_named(event)
    who = step.state.combatants.get(combatant)
    view = who.view() if who is not None else {}
    moved = {c.track for c in mine}
    mine += [
        Change(combatant=combatant, track=t, before=view[t], after=view[t])
        for t in sorted(within - moved)
        if t in view
    ]
    if track is not None:
        mine = [c for c in mine if c.track == track]
    return tuple(mine) if mine else None
