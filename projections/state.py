"""The projection state every system shares: combatants, rolls, stakes, the encounter.

Rulesets subclass these with their tracks; `State.view()` is the `tracks --json` contract. Every
class is a frozen, slotted dataclass (`projections.values`): a state handed out is never changed,
and cannot be, so the library hands out the states it keeps. The building blocks at the end are
what rulesets share to change a state.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, ClassVar, Final, Literal, Self, TypeVar, cast, get_args, get_type_hints

from pydantic import ValidationError

from ledger import events
from ledger.errors import BadInput, UnknownName, did_you_mean
from projections.growing import appended
from projections.policy import Policy
from projections.shown import GENERIC, Readings
from projections.values import (
    EMPTY,
    Value,
    builtins,
    copied_from,
    field_names,
    fields_of,
    hidden,
    per_class,
    replace,
    validated,
    value,
    with_entry,
)
from projections.values import Hidden as Hidden  # where rulesets have found it

#: What `view()` leaves out of every combatant: its key in the state, and when it joined.
_UNSHOWN: Final = frozenset(("name", "joined"))


@value
class Combatant(Value):
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
        """The combatant's public tracks (`tracks --json`): side, status, then its tracks (only
        those turned into JSON data: a hidden stat block is never read)."""
        return {name: builtins(getattr(self, name)) for name in track_names(type(self))}


@per_class
def track_names(kind: type[Combatant]) -> tuple[str, ...]:
    """The keys of a combatant class's `view()`, in order: the tracks an event may name."""
    kept = hidden(kind) | _UNSHOWN
    return tuple(n for n in field_names(kind) if n not in kept)


@value
class Roll(Value):
    """An effective roll with its computed outcome; rulesets subclass it with their numbers.

    Fields annotated `Hidden` are kept out of `dump()` (internal numbers the audit reads).
    """

    seq: int
    stake: str | None = None
    actor: str | None = None
    outcome: str | None = None
    claimed: str | None = None

    def dump(self, mode: Literal["json", "python"] = "json") -> dict[str, Any]:
        """The roll as `tracks --json` shows it (its hidden numbers left out)."""
        shown = _dumped(type(self))
        if mode == "python":
            return {name: getattr(self, name) for name in shown}
        return {name: builtins(getattr(self, name)) for name in shown}

    def describe(self) -> str:
        """The computed outcome and its numbers, for people: `success (successes 3, sb 1)`."""
        shown = self.dump("python")
        details = ", ".join(
            f"{k} {_plain(v)}" for k, v in shown.items() if v is not None and k not in _OWN
        )
        return f"{self.outcome}" + (f" ({details})" if details else "")


#: The fields every roll has, which `describe` does not list among its numbers.
_OWN: Final = frozenset(("seq", "stake", "actor", "outcome", "claimed"))


@per_class
def _dumped(kind: type[Roll]) -> tuple[str, ...]:
    # The fields `dump` shows.
    kept = hidden(kind)
    return tuple(n for n in field_names(kind) if n not in kept)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@value
class Lock(Value):
    """What a state keeps of a stakes lock: the fields a fold or an audit reads of it later.

    The event itself is in the log. Rulesets subclass it with the terms they read (the fields
    of the same names in their lock event).
    """

    stake: str
    actor: str
    target: str | None = None

    @classmethod
    def of(cls, event: events.StakesLocked) -> Self:
        """The lock's terms in `event` (its attributes of the same names)."""
        made: Self = _terms(cast(type, cls), type(event))(event)
        return made


@cache
def _terms(lock: type[Lock], kind: type[events.StakesLocked]) -> Callable[[Any], Any]:
    """What makes a lock of class `lock` from an event of class `kind`: the fields the event
    has read off it, the others at their defaults (once per pair of classes: every test of a
    fight locks its stakes). A model holds its fields in its `__dict__`, read as a mapping."""
    names = tuple(name for name in field_names(lock) if name in kind.model_fields)
    return copied_from(lock, names, in_dict=True)


@value
class Stake(Value):
    """Locked stakes: the first lock of a stake id stands. Rulesets with their own `Lock` name a
    subclass of this one holding it, in their state's `stakes`."""

    seq: int
    lock: Lock


@per_class
def stake_classes(kind: type[State]) -> tuple[type[Stake], type[Lock]]:
    """The classes of the stakes a state class holds and of their locks, as its `stakes`
    annotation names them."""
    stake: type[Stake] = get_args(get_type_hints(kind)["stakes"])[1]
    lock: type[Lock] = get_type_hints(stake)["lock"]
    return stake, lock


def stake_of(state: State, seq: int, event: events.StakesLocked) -> Stake:
    """The record of the stakes `event` locks at `seq`, of the classes the state holds."""
    stake, lock = stake_classes(type(state))
    return stake(seq=seq, lock=lock.of(event))


@value
class Skipped(Value):
    """A stored event that no longer applies (an undo removed what it names)."""

    seq: int
    type: str
    reason: str
    #: It cannot be read at all (`ledger.events.Unreadable`): only a retraction mends that.
    unreadable: bool = False


@value
class Proposal(Value):
    """An open proposal: who proposed what (the event's fields, `type` included), at `seq`."""

    seq: int
    by: str | None = None
    event: Mapping[str, Any] = EMPTY

    def document(self) -> dict[str, Any]:
        """The proposal as `tracks --json` lists it: `{"seq", "by", "event"}`."""
        return {"seq": self.seq, "by": self.by, "event": builtins(self.event)}


@value
class State(Value):
    """The folded encounter. Rulesets subclass it (naming their combatant and roll classes in
    `combatants` and `rolls`, and how their tracks read in `readings`); `view()` is the
    `tracks --json` contract."""

    #: How the system's tracks read (`projections.shown`): a track it does not name reads as
    #: any value of its shape does.
    readings: ClassVar[Readings] = GENERIC

    encounter: str
    system: str
    seq: int = 0
    title: str | None = None
    #: The pinned house-rule table, read-only all the way down (`values.frozen_json`).
    rules: Mapping[str, Any] = EMPTY
    combatants: Mapping[str, Combatant] = EMPTY
    stakes: Mapping[str, Stake] = EMPTY
    rolls: Sequence[Roll] = ()
    pools: Mapping[str, int] = EMPTY
    skipped: tuple[Skipped, ...] = ()
    #: Combatants the rules defeated (a system's own event set their status to `defeated`),
    #: with the seq that did, whose manner no `combatant.left` has recorded yet.
    unrecorded: Mapping[str, int] = EMPTY
    #: Game time from the latest `round.started`: events without their own are in this round.
    round: int | None = None
    scene: int | str | None = None
    #: Who may record what (`projections.policy`); None: no roles, anyone records anything.
    policy: Policy | None = None
    #: The user who plays each combatant that names one (`combatant.joined`'s `player`).
    players: Mapping[str, str] = EMPTY
    #: The proposals not yet ruled on, by the seq that made them.
    proposals: Mapping[int, Proposal] = EMPTY

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
        """The effective roll recorded at `seq`, if any (the rolls are in seq order)."""
        at = bisect_left(self.rolls, seq, key=_seq_of)
        if at < len(self.rolls) and self.rolls[at].seq == seq:
            return self.rolls[at]
        return None

    def view(self) -> dict[str, Any]:
        """The `tracks --json` document."""
        return {**self.view_without_rolls(), "rolls": [roll.dump() for roll in self.rolls]}

    def view_without_rolls(self) -> dict[str, Any]:
        """The `tracks --json` document but its rolls (a long fight's largest part); the open
        proposals are listed under `proposals` while there are any."""
        document = {
            "encounter": self.encounter,
            "system": self.system,
            "seq": self.seq,
            "combatants": {name: c.view() for name, c in self.combatants.items()},
            "pools": dict(self.pools),
        }
        if self.proposals:
            document["proposals"] = [p.document() for p in self.proposals.values()]
        return document


def _seq_of(roll: Roll) -> int:
    return roll.seq


S = TypeVar("S", bound=State)


def replace_combatant(state: S, combatant: Combatant) -> S:
    """The state with one combatant replaced (or added)."""
    return replace(state, combatants=with_entry(state.combatants, combatant.name, combatant))


# Building blocks that rulesets share.


def overridden(combatant: Combatant, where: str, **tracks: Any) -> Combatant:
    """The combatant with some tracks set by a GM, validated as the boundary validates (each
    field's constraints, then the class's `check`); bad input, saying `where`, otherwise."""
    try:
        return validated(type(combatant), {**fields_of(combatant), **tracks})
    except ValidationError as exc:
        raise BadInput(events.describe(exc, where)) from exc


def adjust_track(state: S, seq: int, event: events.TrackAdjusted) -> S:
    """Apply a GM override of one track, validated (the fold itself validates nothing)."""
    combatant = state.combatant(event.target, "target")
    where = f"track {event.track!r} of {event.target!r}"
    return replace_combatant(state, overridden(combatant, where, **{event.track: event.value}))


def add_roll(state: S, roll: Roll) -> S:
    """The state with one more effective roll."""
    return replace(state, rolls=appended(state.rolls, roll))


def not_a_roll(kind: str, named: int, seq: int, what: str = "roll") -> BadInput:
    """Bad input for an event at `seq` that names seq `named` as its roll, which it is not."""
    if named >= seq:  # no event at that seq yet
        return BadInput(
            f"{kind} at seq {seq} names {what} seq {named}; the {what} it resolves comes before it",
            code="unknown-seq",
        )
    return BadInput(f"{kind} names seq {named}, which is not an effective {what}")


def note_roll(state: S, seq: int, event: events.RollMade) -> S:
    """A roll in a system whose dice the ledger does not read: the table's outcome stands."""
    if event.actor is not None:
        state.combatant(event.actor, "actor")
    roll = Roll(seq=seq, stake=event.stake, actor=event.actor, outcome=event.outcome, claimed=None)
    return add_roll(state, roll)
