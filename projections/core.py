"""The functional core: effective stream, fold, tracks at a seq or without events, replay, diffs.

A ruleset (one module per system) supplies what the common events mean for its combatants and
how its own events change them; this module owns everything the systems share. Nothing here does
I/O, reads a clock or draws a random number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Self, TypeVar, get_args

from pydantic import BaseModel, JsonValue, SerializeAsAny

from ledger import events
from ledger.errors import BadInput, UnknownName, did_you_mean
from ledger.events import common as common_events
from projections.findings import Finding
from projections.log import Log
from projections.revisions import Standing, corrected, standing
from projections.revisions import excluded as excluded  # where readers have found it


class Value(BaseModel, frozen=True):
    """A frozen model of the projections, with a `model_copy` made for folds."""

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A shallow copy with `update` applied, without validation (as pydantic's own).

        A fold copies the state, and usually a combatant, for every event; pydantic's generic
        copy (copying the instance dict, the set of given fields, extras and private attributes
        one by one) was a quarter of a fold. These models are frozen, closed and have no private
        attributes, so the set of given fields can be shared until an update adds to it.
        """
        if deep:
            return super().model_copy(update=update, deep=True)
        copied = object.__new__(type(self))
        values = self.__dict__.copy()
        given = self.__pydantic_fields_set__
        if update:
            values.update(update)
            if not given.issuperset(update):
                given = given | update.keys()
        object.__setattr__(copied, "__dict__", values)
        object.__setattr__(copied, "__pydantic_fields_set__", given)
        object.__setattr__(copied, "__pydantic_extra__", None)
        object.__setattr__(copied, "__pydantic_private__", None)
        return copied


class Combatant(Value, frozen=True):
    """What every system tracks of a combatant; rulesets subclass it with their tracks."""

    name: str
    side: events.Side
    status: str = "active"
    joined: int

    @property
    def active(self) -> bool:
        """Still opposing: neither defeated nor gone."""
        return self.status == "active"

    def view(self) -> dict[str, Any]:
        """The combatant's public tracks (`tracks --json`): side, status, then its tracks."""
        return self.model_dump(mode="json", exclude={"name", "joined"})


class Roll(Value, frozen=True):
    """An effective roll with its computed outcome; rulesets subclass it with their numbers."""

    seq: int
    stake: str | None = None
    actor: str | None = None
    outcome: str | None = None
    claimed: str | None = None

    def describe(self) -> str:
        """The computed outcome and its numbers, for people: `success (successes 3, sb 1)`."""
        shown = self.model_dump(exclude={"seq", "stake", "actor", "outcome", "claimed"})
        details = ", ".join(f"{k} {_plain(v)}" for k, v in shown.items() if v is not None)
        return f"{self.outcome}" + (f" ({details})" if details else "")


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


class Stake(Value, frozen=True):
    """Locked stakes: the first lock of a stake id stands."""

    seq: int
    lock: SerializeAsAny[events.StakesLocked]


class Skipped(Value, frozen=True):
    """A stored event that no longer applies (an undo removed what it names)."""

    seq: int
    type: str
    reason: str


class State(Value, frozen=True):
    """The folded encounter. Rulesets subclass it; `view()` is the `tracks --json` contract."""

    encounter: str
    system: str
    seq: int = 0
    title: str | None = None
    rules: Mapping[str, JsonValue] = {}
    combatants: Mapping[str, SerializeAsAny[Combatant]] = {}
    stakes: Mapping[str, Stake] = {}
    rolls: Log[SerializeAsAny[Roll]] = Log()
    pools: Mapping[str, int] = {}
    skipped: tuple[Skipped, ...] = ()
    #: Game time from the latest `round.started`: events without their own are in this round.
    round: int | None = None
    scene: int | str | None = None

    def combatant(self, name: str, role: str = "combatant") -> Combatant:
        """The named combatant, or bad input naming the known ones."""
        try:
            return self.combatants[name]
        except KeyError:
            known = ", ".join(self.combatants) or "none yet"
            raise UnknownName(
                f"{role} {name!r} is not in encounter {self.encounter!r}"
                f"{did_you_mean(name, self.combatants)} (known: {known})",
                code="unknown-combatant",
            ) from None

    def roll_at(self, seq: int) -> Roll | None:
        """The effective roll recorded at `seq`, if any."""
        for roll in reversed(self.rolls):
            if roll.seq == seq:
                return roll
        return None

    def view(self) -> dict[str, Any]:
        """The `tracks --json` document."""
        return {
            "encounter": self.encounter,
            "system": self.system,
            "seq": self.seq,
            "combatants": {name: c.view() for name, c in self.combatants.items()},
            "pools": dict(self.pools),
            "rolls": [roll.model_dump(mode="json") for roll in self.rolls],
        }


V = TypeVar("V", bound=Value)
S = TypeVar("S", bound=State)


def _own_dicts(model: V) -> V:
    # A copy of the model with its own (shallow) copies of its dict fields.
    updates = {k: dict(v) for k, v in model.__dict__.items() if isinstance(v, dict)}
    return model.model_copy(update=updates) if updates else model


def detached(state: S) -> S:
    """A copy of `state` whose dicts (its own, and its combatants') are copies: what the
    library hands out, so that a caller editing one cannot change the state the next write is
    checked against. The values in them are frozen models, numbers or text, and the roll log
    is immutable, so sharing those is safe; a deep copy would cost more than the write."""
    copied = _own_dicts(state)
    combatants = {name: _own_dicts(c) for name, c in state.combatants.items()}
    rules = json.loads(json.dumps(state.rules))
    return copied.model_copy(update={"combatants": combatants, "rules": rules})


def replace_combatant(state: State, combatant: Combatant) -> State:
    """The state with one combatant replaced (or added)."""
    return state.model_copy(update={"combatants": {**state.combatants, combatant.name: combatant}})


@dataclass(frozen=True)
class Ruleset:
    """One system: its house-rule table and what its events do to the encounter.

    `start` builds the system's initial state from the common one; `join` validates stats and
    builds a combatant; `apply` folds the system's own events (and `roll.made`); `adjust` applies
    a GM override; `scene_end` applies scene-end recovery; `audit` yields the findings one event
    raises, given the states before and after it. `explain` tells one event in words from
    the states before and after it (None: the common words of `projections.words` serve).
    `obligations` yields a reminder (an info finding at the seq that opened it) for each
    obligation still open in a state: the audit shows it while it is open and drops it once
    met. `rescores` names the earlier roll an event changes the outcome of (a momentum burn).
    `touches` says, for each combatant, what an event did to each track it touched, even one
    that ended where it started (`history`).
    """

    key: str
    rules: type[BaseModel]
    start: Callable[[State], State]
    join: Callable[[State, int, events.CombatantJoined], Combatant]
    apply: Callable[[State, int, Any], State]
    adjust: Callable[[State, int, events.TrackAdjusted], State]
    scene_end: Callable[[State, int], State]
    audit: Callable[[State, int, Any, State], Iterable[Finding]]
    explain: Callable[[State | None, int, Any, State], str | None] = lambda b, seq, e, a: None
    obligations: Callable[[State], Iterable[Finding]] = lambda s: ()
    rescores: Callable[[Any], int | None] = lambda e: None
    touches: Callable[[State | None, int, Any, State], Mapping[str, Mapping[str, str]]] = (
        lambda b, seq, e, a: {}
    )


def pinned_rules(ruleset: Ruleset, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The full house-rule table: the system's defaults with `overrides` applied and checked."""
    from pydantic import ValidationError
    from pydantic_core import to_json

    try:
        # Strict, as JSON: a house rule is data from a file, so "yes" is not a boolean.
        table = ruleset.rules.model_validate_json(to_json(dict(overrides)), strict=True)
    except ValidationError as exc:
        raise BadInput(
            events.describe(exc, f"{ruleset.key} rules", known=ruleset.rules.model_fields),
            code=events.code_of(exc, "unknown-rule"),
        ) from exc
    return table.model_dump(mode="json")


def open_state(ruleset: Ruleset, encounter: str, opened: events.EncounterOpened) -> State:
    """The state right after `encounter.opened`."""
    base = State(
        encounter=encounter,
        system=opened.system,
        seq=1,
        title=opened.title,
        rules=pinned_rules(ruleset, opened.rules),
    )
    return ruleset.start(base)


@cache
def _roles(kind: type[events.EventBase]) -> tuple[str, ...]:
    # Which of the naming fields an event type has (asking each event is slow on a long fold).
    return tuple(r for r in ("target", "actor", "opposing") if r in kind.model_fields)


def _check_names(state: State, event: events.EventBase) -> None:
    for role in _roles(type(event)):
        name = getattr(event, role)
        if isinstance(name, str):
            state.combatant(name, role)


def step(ruleset: Ruleset, state: State, seq: int, event: events.Event) -> State:
    """Fold one event; raises `BadInput` when it names something the state does not hold."""
    match event:
        case events.EncounterOpened():
            raise BadInput(f"seq {seq}: an encounter is opened once, at seq 1")
        case events.CombatantJoined():
            if event.name == "pools":
                # Track changes name the GM's pools as the combatant `pools`.
                raise BadInput("'pools' names the GM's pools in track changes; choose another name")
            if event.name in state.combatants:
                raise BadInput(
                    f"combatant {event.name!r} already joined encounter {state.encounter!r}"
                )
            state = replace_combatant(state, ruleset.join(state, seq, event))
        case events.CombatantLeft():
            left = state.combatant(event.name)
            state = replace_combatant(state, left.model_copy(update={"status": event.manner}))
        case events.StakesLocked():
            _check_names(state, event)
            if event.stake not in state.stakes:
                stakes = {**state.stakes, event.stake: Stake(seq=seq, lock=event)}
                state = state.model_copy(update={"stakes": stakes})
            state = ruleset.apply(state, seq, event)
        case events.EventRetracted():
            pass  # the effective stream has already dropped its target
        case events.EventCorrected():
            pass  # the fold has already read its target corrected, at the target's seq
        case events.TrackAdjusted():
            view = state.combatant(event.target, "target").view()
            if event.track == "status":
                state = _stand(ruleset, state, seq, event)
            elif event.track == "side":
                raise BadInput(
                    f"track 'side' of {event.target!r} is fixed when it joins: undo its "
                    "combatant.joined and add it again on the other side"
                )
            elif event.track not in view:
                raise BadInput(_unknown_track(event.target, event.track, view))
            else:
                state = ruleset.adjust(state, seq, event)
        case events.TracksNoted():
            view = state.combatant(event.target, "target").view()
            for track in event.values:
                if track not in view:
                    raise BadInput(_unknown_track(event.target, track, view))
        case events.RoundStarted():
            scene = event.scene if event.scene is not None else state.scene
            state = state.model_copy(update={"round": event.round, "scene": scene})
        case events.SceneEnded():
            state = ruleset.scene_end(state, seq)
        case events.Note():
            pass
        case _:
            _check_names(state, event)
            state = ruleset.apply(state, seq, event)
    return state.model_copy(update={"seq": seq})


#: What a GM may set a combatant's status to: in the fight, defeated, or a manner of leaving.
STATUSES: tuple[str, ...] = ("active", *get_args(common_events.Manner))


def _stand(ruleset: Ruleset, state: State, seq: int, event: events.TrackAdjusted) -> State:
    """A GM's override of a status: stand a defeated combatant back up, or put one down."""
    if event.value not in STATUSES:
        raise BadInput(
            f"track 'status' of {event.target!r} takes one of {', '.join(STATUSES)} "
            f"(got {json.dumps(event.value)})"
        )
    return ruleset.adjust(state, seq, event)


def _unknown_track(target: str, track: str, view: Mapping[str, Any]) -> str:
    known = ", ".join(k for k in view if k not in ("side", "status"))
    return f"{target!r} has no track {track!r} (tracks: {known})"


def effective(
    records: Sequence[events.Recorded], at: int | None = None, without: Iterable[int] = ()
) -> list[events.Recorded]:
    """The events that count at `at` (default: now), less retracted ones and `without`."""
    upto = [r for r in records if at is None or r.seq <= at]
    gone = excluded(upto, without)
    return [r for r in upto if r.seq not in gone]


def standing_at(
    records: Sequence[events.Recorded],
    at: int | None = None,
    without: Iterable[int] = (),
    corrected_today: bool = False,
) -> Standing:
    """Which events count at `at`, and how corrected: as the table knew it then (the
    retractions and corrections recorded by `at`), or with `corrected_today` as now."""
    known = records if corrected_today or at is None else [r for r in records if r.seq <= at]
    return standing(known, without)


class Folder:
    """Folds an effective stream one event at a time; stored events that no longer apply
    (after an undo) are kept aside in `State.skipped` instead of stopping the fold."""

    def __init__(
        self,
        registry: Mapping[str, Ruleset],
        state: State | None = None,
        fixes: Mapping[int, Sequence[events.Recorded]] | None = None,
    ) -> None:
        self._registry = registry
        self.state = state
        self._ruleset: Ruleset | None = None
        #: The corrections in force, by the seq they correct: the fold reads those seqs so.
        self.fixes = fixes or {}
        #: The last event folded, as the fold read it (corrected): what the audit judges.
        self.last: events.Recorded | None = None

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset of the encounter being folded."""
        if self._ruleset is None:
            if self.state is None:
                raise BadInput("no encounter.opened yet")
            # Looked up once: a fold asks for it on every event.
            self._ruleset = self._registry[self.state.system]
        return self._ruleset

    def add(self, record: events.Recorded, strict: bool = False) -> State:
        """Fold one stored event (as corrected); with `strict`, a stale reference raises instead."""
        self.last = record
        if self.fixes and record.seq in self.fixes and self.state is not None:
            try:
                record = self.last = corrected(record, self.fixes[record.seq])
            except BadInput as exc:
                if strict:
                    raise
                return self._skip(record, str(exc))
        event = record.event
        if self.state is None:
            if not isinstance(event, events.EncounterOpened) or record.seq != 1:
                raise BadInput(f"seq {record.seq}: an encounter starts with encounter.opened")
            self.state = open_state(self._registry[event.system], record.encounter, event)
            return self.state
        try:
            self.state = step(self.ruleset, self.state, record.seq, event)
        except BadInput as exc:
            if strict:
                raise
            return self._skip(record, str(exc))
        return self.state

    def _skip(self, record: events.Recorded, reason: str) -> State:
        assert self.state is not None
        skipped = Skipped(seq=record.seq, type=record.type, reason=reason)
        self.state = self.state.model_copy(
            update={"seq": record.seq, "skipped": (*self.state.skipped, skipped)}
        )
        return self.state


def fold(
    registry: Mapping[str, Ruleset],
    records: Sequence[events.Recorded],
    at: int | None = None,
    without: Iterable[int] = (),
    corrected_today: bool = False,
) -> State:
    """The encounter after its effective stream (at `at`, without `without`); its `seq` is
    `at` (default: the last seq), even when the events left out come last. At a past seq it
    is the encounter as the table knew it then, or with `corrected_today` as corrected now."""
    now = standing_at(records, at, without, corrected_today)
    folder = Folder(registry, fixes=now.fixes)
    for record in records:
        if at is not None and record.seq > at:
            break
        if record.seq not in now.gone:
            folder.add(record)
    if folder.state is None:
        raise BadInput("the stream has no encounter.opened")
    top = at if at is not None else records[-1].seq
    return folder.state if folder.state.seq == top else folder.state.model_copy(update={"seq": top})


# Building blocks that rulesets share.


def adjust_track(state: State, seq: int, event: events.TrackAdjusted) -> State:
    """Apply a GM override by rebuilding the combatant with the constructor (which validates)."""
    from pydantic import ValidationError

    combatant = state.combatant(event.target, "target")
    # dict(), not model_dump(): fields kept out of the view (`exclude=True`) must survive.
    data = {**dict(combatant), event.track: event.value}
    try:
        updated = type(combatant).model_validate(data)
    except ValidationError as exc:
        raise BadInput(events.describe(exc, f"track {event.track!r} of {event.target!r}")) from exc
    return replace_combatant(state, updated)


def unchanged(state: State, seq: int) -> State:
    """No scene-end recovery."""
    return state


#: One `fields_set` per distinct set of given fields, shared by every roll that has it.
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def add_roll(state: State, roll: Roll) -> State:
    """The state with one more effective roll."""
    # pydantic keeps, on every instance, the set of fields given to its constructor: about 700
    # of a roll's 1,100 bytes. The state holds every roll of the encounter, so rolls share one
    # copy of that set (never mutated: pydantic copies it before a `model_copy` updates it).
    given = roll.__pydantic_fields_set__
    shared = _FIELDS_SETS.setdefault(frozenset(given), set(given))
    object.__setattr__(roll, "__pydantic_fields_set__", shared)
    return state.model_copy(update={"rolls": Log.of(state.rolls).appended(roll)})


def not_a_roll(kind: str, named: int, seq: int, what: str = "roll") -> BadInput:
    """Bad input for an event at `seq` that names seq `named` as its roll, which it is not."""
    if named >= seq:
        return BadInput(
            f"{kind} at seq {seq} names {what} seq {named}; the {what} it resolves comes before it"
        )
    return BadInput(f"{kind} names seq {named}, which is not an effective {what}")


def note_roll(state: State, seq: int, event: events.RollMade) -> State:
    """A roll in a system whose dice the ledger does not read: the table's outcome stands."""
    if event.actor is not None:
        state.combatant(event.actor, "actor")
    roll = Roll(seq=seq, stake=event.stake, actor=event.actor, outcome=event.outcome, claimed=None)
    return add_roll(state, roll)
