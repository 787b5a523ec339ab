"""The projection state every system shares: combatants, rolls, stakes, the encounter.

Rulesets subclass these with their tracks; `State.view()` is the `tracks --json` contract. The
building blocks at the end are what rulesets share to change a state.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Final, Literal, TypeVar, cast

from pydantic import BaseModel, Field, JsonValue, SerializeAsAny, TypeAdapter

from ledger import events
from ledger.errors import BadInput, UnknownName, did_you_mean
from projections.log import Log


class Value(BaseModel, frozen=True):
    """A frozen model of the projections (copied with pydantic's own `model_copy`)."""


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


@cache
def track_names(kind: type[Combatant]) -> tuple[str, ...]:
    """The keys of a combatant class's `view()`, in order: the tracks an event may name."""
    hidden = ("name", "joined")
    return tuple(n for n, f in kind.model_fields.items() if not f.exclude and n not in hidden)


@dataclass(frozen=True, slots=True, kw_only=True)
class Roll:
    """An effective roll with its computed outcome; rulesets subclass it with their numbers.

    A plain frozen, slotted dataclass: the state holds every roll of the encounter, and a
    pydantic model would carry its own dict and set of given fields (most of its bytes).
    Fields annotated `Hidden` are kept out of `dump()`, as the `exclude=True` of a model.
    """

    seq: int
    stake: str | None = None
    actor: str | None = None
    outcome: str | None = None
    claimed: str | None = None

    def dump(self, mode: Literal["json", "python"] = "json") -> dict[str, Any]:
        """The roll as `tracks --json` shows it (its hidden numbers left out)."""
        # mypy takes a dataclass's class for unhashable (its instances' __hash__ shadows it).
        shown: dict[str, Any] = _adapter(cast(Hashable, type(self))).dump_python(self, mode=mode)
        return shown

    def dump_json(self) -> str:
        """`dump()` as compact JSON text (as pydantic writes a model's)."""
        return _adapter(cast(Hashable, type(self))).dump_json(self).decode()

    def describe(self) -> str:
        """The computed outcome and its numbers, for people: `success (successes 3, sb 1)`."""
        shown = self.dump("python")
        details = ", ".join(
            f"{k} {_plain(v)}" for k, v in shown.items() if v is not None and k not in _OWN
        )
        return f"{self.outcome}" + (f" ({details})" if details else "")


#: The fields every roll has, which `describe` does not list among its numbers.
_OWN: Final = frozenset(("seq", "stake", "actor", "outcome", "claimed"))

T = TypeVar("T")
#: A field of a roll kept out of its `dump()` (internal numbers the audit reads).
Hidden = Annotated[T, Field(exclude=True)]


@cache
def _adapter(kind: Hashable) -> TypeAdapter[Any]:
    # One adapter per roll class, built on first dump (a fold that dumps nothing builds none).
    return TypeAdapter(cast(type[Roll], kind))


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
        return {**self.view_without_rolls(), "rolls": [roll.dump() for roll in self.rolls]}

    def view_without_rolls(self) -> dict[str, Any]:
        """The `tracks --json` document but its rolls (a long fight's largest part)."""
        return {
            "encounter": self.encounter,
            "system": self.system,
            "seq": self.seq,
            "combatants": {name: c.view() for name, c in self.combatants.items()},
            "pools": dict(self.pools),
        }


V = TypeVar("V", bound=Value)
S = TypeVar("S", bound=State)


def _own_dicts(model: V) -> V:
    # A copy of the model with its own (shallow) copies of its dict fields.
    updates = {k: dict(v) for k, v in model if isinstance(v, dict)}
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


def replace_combatant(state: S, combatant: Combatant) -> S:
    """The state with one combatant replaced (or added)."""
    return state.model_copy(update={"combatants": {**state.combatants, combatant.name: combatant}})


# Building blocks that rulesets share.


def adjust_track(state: S, seq: int, event: events.TrackAdjusted) -> S:
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


def add_roll(state: S, roll: Roll) -> S:
    """The state with one more effective roll."""
    return state.model_copy(update={"rolls": Log.of(state.rolls).appended(roll)})


def not_a_roll(kind: str, named: int, seq: int, what: str = "roll") -> BadInput:
    """Bad input for an event at `seq` that names seq `named` as its roll, which it is not."""
    if named >= seq:
        return BadInput(
            f"{kind} at seq {seq} names {what} seq {named}; the {what} it resolves comes before it"
        )
    return BadInput(f"{kind} names seq {named}, which is not an effective {what}")


def note_roll(state: S, seq: int, event: events.RollMade) -> S:
    """A roll in a system whose dice the ledger does not read: the table's outcome stands."""
    if event.actor is not None:
        state.combatant(event.actor, "actor")
    roll = Roll(seq=seq, stake=event.stake, actor=event.actor, outcome=event.outcome, claimed=None)
    return add_roll(state, roll)
