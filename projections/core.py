"""The functional core: the effective stream, and the fold of the events every system shares.

A ruleset (`projections.ruleset`, one per system) supplies what the common events mean for its
combatants and how its own events change them; this module owns everything the systems share.
Nothing here does I/O, reads a clock or draws a random number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any, Final, get_args

from ledger import events
from ledger.errors import BadInput
from ledger.events import common as common_events
from projections import proposals
from projections.revisions import Standing, corrected, standing
from projections.revisions import excluded as excluded  # where readers have found it
from projections.ruleset import AnyRuleset as AnyRuleset
from projections.ruleset import Ruleset as Ruleset
from projections.ruleset import pinned_rules as pinned_rules
from projections.ruleset import played_by as played_by
from projections.state import Combatant as Combatant
from projections.state import Lock as Lock
from projections.state import Roll as Roll
from projections.state import Skipped as Skipped
from projections.state import Stake as Stake
from projections.state import State as State
from projections.state import add_roll as add_roll
from projections.state import adjust_track as adjust_track
from projections.state import not_a_roll as not_a_roll
from projections.state import note_roll as note_roll
from projections.state import overridden as overridden
from projections.state import replace_combatant as replace_combatant
from projections.state import stake_of, track_names
from projections.values import EMPTY as EMPTY
from projections.values import Value as Value
from projections.values import builtins as builtins
from projections.values import fields_of as fields_of
from projections.values import from_json, to_json
from projections.values import frozen_json as frozen_json
from projections.values import read_only as read_only
from projections.values import replace as replace
from projections.values import value as value
from projections.values import with_entry as with_entry
from projections.values import without as without


def state_to_json(state: State) -> str | None:
    """A state as a snapshot's text (None: it holds something a snapshot cannot carry)."""
    try:
        return to_json(state)
    except (TypeError, ValueError):
        return None


def state_from_json(text: str, ruleset: AnyRuleset) -> State | None:
    """The state a snapshot's text holds, of its system's state class (None: it holds none;
    a cache only, so whatever it is, it is not read)."""
    try:
        found: State = from_json(text, ruleset.state)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
    return found


def open_state(ruleset: AnyRuleset, encounter: str, opened: events.EncounterOpened) -> State:
    """The state right after `encounter.opened`."""
    base = State(
        encounter=encounter,
        system=opened.system,
        seq=1,
        title=opened.title,
        rules=frozen_json(pinned_rules(ruleset, opened.rules, as_played=True)),
    )
    after: State = ruleset.start(proposals.policy_set(base, opened.policy))
    return after


#: The fields of an event that name a combatant, by the role they name it in.
ROLES: Final = ("target", "actor", "opposing")


@cache
def roles_of(kind: type[events.EventBase], roles: tuple[str, ...] = ROLES) -> tuple[str, ...]:
    """Which of `roles` an event class has fields for (asked once per class: asking an event
    for a field it lacks goes through pydantic's slow `__getattr__`, and folds ask on every
    event)."""
    return tuple(r for r in roles if r in kind.model_fields)


def _check_names(state: State, event: events.EventBase) -> None:
    for role in roles_of(type(event)):
        name = getattr(event, role)
        if isinstance(name, str):
            state.combatant(name, role)


# What each common event does; the fold looks the handler up by the event's class. A handler
# returns the state it was given when the event changes nothing (a note): no copy is made.
# A ruleset of any system answers with Any, hence the `after: State` beside each call.


def _opened(ruleset: AnyRuleset, state: State, seq: int, event: events.EncounterOpened) -> State:
    raise BadInput(f"seq {seq}: an encounter is opened once, at seq 1")


def _joined(ruleset: AnyRuleset, state: State, seq: int, event: events.CombatantJoined) -> State:
    if event.name == "pools":
        # Track changes name the GM's pools as the combatant `pools`.
        raise BadInput("'pools' names the GM's pools in track changes; choose another name")
    if event.name in state.combatants:
        raise BadInput(f"combatant {event.name!r} already joined encounter {state.encounter!r}")
    if event.player is not None:
        state = replace(state, players=with_entry(state.players, event.name, event.player))
    return replace_combatant(state, ruleset.join(state, seq, event))


def _left(ruleset: AnyRuleset, state: State, seq: int, event: events.CombatantLeft) -> State:
    left = state.combatant(event.name)
    state = _recorded(state, event.name)
    return replace_combatant(state, replace(left, status=event.manner))


def _recorded(state: State, name: str) -> State:
    """The state with no defeat of `name` left unrecorded."""
    if name not in state.unrecorded:
        return state
    return replace(state, unrecorded=without(state.unrecorded, name))


def _defeats(before: State, after: State, seq: int) -> State:
    """`after` with each combatant a system's event defeated noted as unrecorded (until a
    `combatant.left` says how), and each it stood back up no longer so."""
    if after.combatants is before.combatants:
        return after
    for name, who in after.combatants.items():
        was = before.combatants.get(name)
        if was is who or was is None or was.status == who.status:
            continue
        if who.status == "defeated" and was.active:
            after = replace(after, unrecorded=with_entry(after.unrecorded, name, seq))
        elif who.active:
            after = _recorded(after, name)
    return after


def _locked(ruleset: AnyRuleset, state: State, seq: int, event: events.StakesLocked) -> State:
    _check_names(state, event)
    if event.stake not in state.stakes:
        stake = stake_of(state, seq, event)
        state = replace(state, stakes=with_entry(state.stakes, event.stake, stake))
    after: State = ruleset.apply(state, seq, event)
    return after


def _same(ruleset: AnyRuleset, state: State, seq: int, event: events.EventBase) -> State:
    # A retraction (the effective stream has already dropped its target), a correction (the
    # fold has already read its target corrected, at the target's seq), a note.
    return state


def _adjusted(ruleset: AnyRuleset, state: State, seq: int, event: events.TrackAdjusted) -> State:
    tracks = track_names(type(state.combatant(event.target, "target")))
    if event.track == "status":
        return _stand(ruleset, state, seq, event)
    if event.track == "side":
        raise BadInput(
            f"track 'side' of {event.target!r} is fixed when it joins: undo its "
            "combatant.joined and add it again on the other side"
        )
    if event.track not in tracks:
        raise BadInput(_unknown_track(event.target, event.track, tracks), code="unknown-track")
    after: State = ruleset.adjust(state, seq, event)
    return after


def _noted(ruleset: AnyRuleset, state: State, seq: int, event: events.TracksNoted) -> State:
    tracks = track_names(type(state.combatant(event.target, "target")))
    if not event.values:
        raise BadInput(
            f"tracks.noted for {event.target!r} names no track: give what the sheet says, as "
            f"values={{TRACK: VALUE}} (tracks: {', '.join(tracks)})",
            code="bad-input",
        )
    for track in event.values:
        if track not in tracks:
            raise BadInput(_unknown_track(event.target, track, tracks), code="unknown-track")
    return state


def _round(ruleset: AnyRuleset, state: State, seq: int, event: events.RoundStarted) -> State:
    scene = event.scene if event.scene is not None else state.scene
    return replace(state, round=event.round, scene=scene)


def _rewound(ruleset: AnyRuleset, state: State, seq: int, event: events.EncounterRewound) -> State:
    # The effective stream has already set aside what the rewind took back; the game is at
    # the end of its round again, so later events without a round of their own are in it.
    scene = event.scene if event.scene is not None else state.scene
    return replace(state, round=event.round, scene=scene)


def _scene_ended(ruleset: AnyRuleset, state: State, seq: int, event: events.SceneEnded) -> State:
    after: State = ruleset.scene_end(state, seq)
    return after


def _own(ruleset: AnyRuleset, state: State, seq: int, event: events.EventBase) -> State:
    # One of the system's own events: its ruleset's `apply` says what it does.
    _check_names(state, event)
    after: State = ruleset.apply(state, seq, event)
    return _defeats(state, after, seq)


def _unreadable(ruleset: AnyRuleset, state: State, seq: int, event: events.Unreadable) -> State:
    # The fold sets it aside, as an event that no longer applies (`RunningFold._skip`).
    raise BadInput(event.problem)


def _proposed(ruleset: AnyRuleset, state: State, seq: int, event: events.ProposalMade) -> State:
    return proposals.made(state, seq, event)


def _accepted(ruleset: AnyRuleset, state: State, seq: int, event: events.ProposalAccepted) -> State:
    # The proposed event, as the GM changed it, folds here: at the acceptance's position.
    fact = proposals.applied(ruleset, state, event)
    return advance(ruleset, proposals.closed(state, event.target), seq, fact)


def _rejected(ruleset: AnyRuleset, state: State, seq: int, event: events.ProposalRejected) -> State:
    return proposals.rejected(state, event)


def _policy(ruleset: AnyRuleset, state: State, seq: int, event: events.PolicyChanged) -> State:
    return proposals.policy_set(state, event.policy)


Handler = Callable[[AnyRuleset, State, int, Any], State]

#: The handler of each common event class (a subclass, as a system's `stakes.locked`, inherits it).
_COMMON: Final[Mapping[type, Handler]] = MappingProxyType(
    {
        events.EncounterOpened: _opened,
        events.CombatantJoined: _joined,
        events.CombatantLeft: _left,
        events.StakesLocked: _locked,
        events.EventRetracted: _same,
        events.EventCorrected: _same,
        events.TrackAdjusted: _adjusted,
        events.TracksNoted: _noted,
        events.RoundStarted: _round,
        events.SceneEnded: _scene_ended,
        events.Note: _same,
        events.Unreadable: _unreadable,
        events.ProposalMade: _proposed,
        events.ProposalAccepted: _accepted,
        events.ProposalRejected: _rejected,
        events.PolicyChanged: _policy,
        events.EncounterRewound: _rewound,
        # What the dice are checked against: nothing in the fight changes.
        events.DiceCommitted: _same,
        events.DiceRevealed: _same,
    }
)


@cache
def handler(kind: type) -> Handler:
    """What the fold does with an event of class `kind`: a common event's handler, else the
    ruleset's `apply` (looked up once per class: a fold asks for it on every event)."""
    return next((_COMMON[c] for c in kind.__mro__ if c in _COMMON), _own)


def advance(ruleset: AnyRuleset, state: State, seq: int, event: events.EventBase) -> State:
    """Fold one event, leaving `seq` as it was (`RunningFold` sets it when it hands a state out);
    raises `BadInput` when the event names something the state does not hold."""
    return handler(type(event))(ruleset, state, seq, event)


#: What a GM may set a combatant's status to: in the fight, defeated, or a manner of leaving.
STATUSES: tuple[str, ...] = ("active", *get_args(common_events.Manner))


def _stand(ruleset: AnyRuleset, state: State, seq: int, event: events.TrackAdjusted) -> State:
    """A GM's override of a status: stand a defeated combatant back up, or put one down."""
    if event.value not in STATUSES:
        raise BadInput(
            f"track 'status' of {event.target!r} takes one of {', '.join(STATUSES)} "
            f"(got {json.dumps(event.value)})"
        )
    after: State = ruleset.adjust(state, seq, event)
    # The GM sets the status: a defeat it records or undoes is no longer owed its manner.
    return _recorded(after, event.target)


def _unknown_track(target: str, track: str, tracks: Iterable[str]) -> str:
    known = ", ".join(k for k in tracks if k not in ("side", "status"))
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


class RunningFold:
    """Folds an effective stream one event at a time; stored events that no longer apply
    (after an undo) are kept aside in `State.skipped` instead of stopping the fold.

    The state's `seq` is written when the state is asked for (`state`, `add`), not on every
    event: a fold that only wants the end (`feed`) copies no state for a note.
    """

    def __init__(
        self,
        ruleset: AnyRuleset,
        state: State | None = None,
        fixes: Mapping[int, Sequence[events.Recorded]] | None = None,
    ) -> None:
        #: The ruleset of the encounter being folded.
        self.ruleset = ruleset
        self._state = state
        #: The seq of the last event folded (the state's own may lag until it is asked for).
        self._seq = state.seq if state is not None else 0
        #: The corrections in force, by the seq they correct: the fold reads those seqs so.
        self.fixes = fixes or {}
        #: The last event folded, as the fold read it (corrected): what the audit judges.
        self.last: events.Recorded | None = None

    @property
    def state(self) -> State | None:
        """The encounter after the events folded so far (None before `encounter.opened`)."""
        state = self._state
        if state is not None and state.seq != self._seq:
            state = self._state = replace(state, seq=self._seq)
        return state

    def add(self, record: events.Recorded, strict: bool = False) -> State:
        """Fold one stored event (as corrected); with `strict`, a stale reference raises instead."""
        self.feed(record, strict)
        state = self.state
        assert state is not None  # `feed` raises before an encounter.opened
        return state

    def feed(self, record: events.Recorded, strict: bool = False) -> None:
        """`add`, without handing the state out (a fold that wants only the end)."""
        self.last = record
        state = self._state
        if self.fixes and record.seq in self.fixes and state is not None:
            try:
                record = self.last = corrected(record, self.fixes[record.seq])
            except BadInput as exc:
                if strict:
                    raise
                return self._skip(state, record, str(exc))
        event = record.event
        if state is None:
            if not isinstance(event, events.EncounterOpened) or record.seq != 1:
                raise BadInput(f"seq {record.seq}: an encounter starts with encounter.opened")
            if event.system != self.ruleset.key:
                raise BadInput(
                    f"seq 1 opens {event.system!r}, but the fold is given the rules of "
                    f"{self.ruleset.key!r}"
                )
            self._state = open_state(self.ruleset, record.encounter, event)
            self._seq = record.seq
            return
        try:
            self._state = advance(self.ruleset, state, record.seq, event)
        except BadInput as exc:
            if strict:
                raise
            return self._skip(state, record, str(exc))
        self._seq = record.seq

    def _skip(self, state: State, record: events.Recorded, reason: str) -> None:
        unreadable = isinstance(record.event, events.Unreadable)
        skipped = Skipped(seq=record.seq, type=record.type, reason=reason, unreadable=unreadable)
        self._state = replace(state, skipped=(*state.skipped, skipped))
        self._seq = record.seq


#: The name `RunningFold` had before 0.2 (deprecated).
Folder = RunningFold


def fold(
    ruleset: AnyRuleset,
    records: Sequence[events.Recorded],
    at: int | None = None,
    without: Iterable[int] = (),
    corrected_today: bool = False,
) -> State:
    """The encounter after its effective stream (at `at`, without `without`); its `seq` is
    `at` (default: the last seq), even when the events left out come last. At a past seq it
    is the encounter as the table knew it then, or with `corrected_today` as corrected now."""
    now = standing_at(records, at, without, corrected_today)
    folder = RunningFold(ruleset, fixes=now.fixes)
    for record in records:
        if at is not None and record.seq > at:
            break
        if record.seq not in now.gone:
            folder.feed(record)
    if folder.state is None:
        raise BadInput("the stream has no encounter.opened")
    top = at if at is not None else records[-1].seq
    return folder.state if folder.state.seq == top else replace(folder.state, seq=top)
