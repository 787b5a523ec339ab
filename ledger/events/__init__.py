"""The event vocabulary: the frozen models every system shares, the stored envelope, and
parsing an event in its encounter's system.

An event's `type` is its stored contract. Each system reads `roll.made`, `stakes.locked` and
`harm.suffered` with its own fields, so an event is parsed by the model its type names in its
encounter's system (`parse`, given that system's `Vocabulary`), known from `encounter.opened` at
seq 1: the type picks the member of the union as a discriminator would, without building
validators for the others. A system's own events live in its folder (`projections.<key>.events`);
`ledger.systems` hands out each system's vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import core_schema

from ledger.errors import BadInput, BrokenChain, UnknownVersion, did_you_mean
from ledger.events import versions
from ledger.events.base import (
    TEXT_MAX,
    EventBase,
    Name,
    Side,
    Source,
    SystemKey,
    code_of,
    describe,
)
from ledger.events.common import (
    CombatantJoined,
    CombatantLeft,
    Common,
    DiceCommitted,
    DiceRevealed,
    EncounterOpened,
    EncounterRewound,
    EventCorrected,
    EventRetracted,
    LedgerRolled,
    Note,
    PolicyChanged,
    ProposalAccepted,
    ProposalMade,
    ProposalRejected,
    RollMade,
    RoundStarted,
    SceneEnded,
    StakesLocked,
    TrackAdjusted,
    TracksNoted,
)
from ledger.events.portable import plain, walked

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

#: Any event of any system (for type hints; parse with `parse`). Which events a system has is
#: known from its ruleset: narrow with `isinstance` or `match`.
Event = EventBase

#: Keys of an exchanged (JSON Lines) event that belong to the envelope, not the event.
ENVELOPE_KEYS: Final = ("encounter", "seq", "id", "recorded_at", "hash", "prev_hash")
#: Keys a reader adds to an exchanged line (`log --json`); ignored when the line is read back.
ANNOTATION_KEYS: Final = ("retracted_by", "corrected_by", "rewound_by")


def _none(kind: str) -> list[str]:
    return []


@dataclass(frozen=True, slots=True, eq=False)
class Vocabulary:
    """The events of one system: its key, and its models (the common ones, then its own) by
    type; `owners(kind)` names the other systems that have a type this one has not (each key
    with its article, for an error's words)."""

    system: str
    models: Mapping[str, type[EventBase]]
    owners: Callable[[str], list[str]] = field(default=_none)

    @classmethod
    def of(cls, system: str, union: Any, owners: Callable[[str], list[str]] = _none) -> Vocabulary:
        """The vocabulary of a system whose own events are the union `union`."""
        members = get_args(Common | union)
        return cls(system, {m.model_fields["type"].default: m for m in members}, owners)

    @property
    def types(self) -> tuple[str, ...]:
        """Every event type the system accepts, sorted."""
        return tuple(sorted(self.models))


def parse(data: Mapping[str, Any], vocabulary: Vocabulary) -> Event:
    """Validate one event (envelope keys already removed) of the system `vocabulary` names
    (an `encounter.opened` of the system it opens: `ledger.systems.parse` picks it)."""
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadInput("event has no 'type' (a string such as \"hit.resolved\")")
    # An older body is read in today's shape; one of an unknown version is refused as such.
    data = versions.upcast(kind, data)
    system = vocabulary.system
    model = vocabulary.models.get(kind)
    if model is not None and not plain(data):
        data = walked(data, f"{kind} event")
    if model is None:
        known = ", ".join(vocabulary.types)
        others = vocabulary.owners(kind)
        where = (
            f": it is {' and '.join(others)} event"
            if others
            else did_you_mean(kind, vocabulary.types)
        )
        raise BadInput(
            f"unknown event type {kind!r} for {system}{where} (known: {known})",
            code="wrong-system" if others else "unknown-type",
        )
    try:
        # JSON, not Python objects: strict JSON validation takes a list for a tuple field and
        # still refuses "3" for a number or "yes" for a boolean.
        event: Event = model.__pydantic_validator__.validate_json(_json(data))
    except ValidationError as exc:
        raise BadInput(describe(exc, f"{kind} event"), code=code_of(exc, "unknown-field")) from exc
    return event


def _json(data: Mapping[str, Any]) -> str:
    """The fields as JSON text for the validator (which says what is wrong with them)."""
    return json.dumps(dict(data))


def read_stored(
    kind: str, body: str, vocabulary: Vocabulary
) -> tuple[Event, dict[str, Any] | None]:
    """A stored event validated for its system, in one pass when it is of its type's current
    version, and the body as stored when it was of an older one (upcast; else None).

    The body text is validated as it is by the model of its type, rather than loaded and
    dumped again: reads of long encounters spend most of their time here.
    """
    model = vocabulary.models.get(kind)
    if model is not None and not versions.may_need_upcast(kind):
        try:
            # The model's own validator, on the body as stored (`type` is its default): no
            # union to dispatch, no text to splice, and a read builds only the validators of
            # the event types it meets. This runs once for every stored event a read folds.
            event: Event = model.__pydantic_validator__.validate_json(body)
        except ValidationError:
            pass  # parse again below, for the one-line explanation
        else:
            return event, None
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise BadInput(f"body is not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise BadInput("body is not a JSON object")
    event = parse({**data, "type": kind}, vocabulary)
    return event, data if versions.version_of(kind, data) < versions.current(kind) else None


class Unreadable(EventBase, frozen=True):
    """A stored event its system's models refuse: the ledger never accepted it (another hand
    inserted the row, as a database role that may INSERT can). It is read as it is stored,
    folds as nothing, and is reported by `verify` and `audit`; an undo retracts it like any
    other event. Never parsed from input: no vocabulary holds it."""

    #: The type stored with it.
    type: str
    #: The body as stored.
    text: str
    #: Why its system's models refuse it.
    problem: str

    def stored(self) -> dict[str, Any]:
        """The body as stored, as an exchanged line carries it (empty when it is not a JSON
        object, which the chain itself then refuses)."""
        try:
            data = json.loads(self.text)
        except (ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}


def from_row(row: Sequence[Any], vocabulary: Vocabulary) -> Recorded:
    """A stored row (encounter, seq, id, type, recorded_at, body, prev_hash, hash) as the
    record it holds; a body the models refuse is an `Unreadable` event (or, when a newer build
    wrote it, an unknown version)."""
    encounter, seq, id_, type_, recorded_at, body, prev_hash, hash_ = row
    if not isinstance(body, str) or not isinstance(type_, str):
        raise BrokenChain(f"encounter {encounter!r} seq {seq}: stored row is not text")
    try:
        event, as_stored = read_stored(type_, body, vocabulary)
    except UnknownVersion as exc:
        # Not tampering: a newer build wrote it (the chain still verifies).
        raise UnknownVersion(f"encounter {encounter!r} seq {seq}: {exc}") from exc
    except BadInput as exc:
        event, as_stored = Unreadable(type=type_, text=body, problem=str(exc)), None
    return Recorded(encounter, seq, id_, recorded_at, prev_hash, hash_, event, as_stored)


def body_of(event: EventBase) -> dict[str, Any]:
    """The stored `body` of an event: its fields (defaults filled in) without `type` or nulls."""
    # The serializer itself (what model_dump calls): every append and export dumps a body.
    # Without `exclude`, whose set pydantic reads on every call: `type` is dropped below.
    serializer = event.__pydantic_serializer__
    if flat(type(event)):
        # Only scalar fields: pydantic's own exclude_none drops exactly the top-level nulls
        # (in C, half the time); it would reach into a nested model's or a mapping's too.
        dumped = serializer.to_python(event, mode="json", exclude_none=True)
        return versions.stamped(dumped.pop("type"), dumped)
    dumped = serializer.to_python(event, mode="json")
    kind = dumped.pop("type")
    return versions.stamped(kind, {k: v for k, v in dumped.items() if v is not None})


def origin(event: EventBase) -> str | None:
    """Where an imported event came from, `Session 3.md:41`, or None (an event of its own
    `source`, such as a weapon a damage came from, names no note)."""
    source = getattr(event, "source", None)
    return str(source) if isinstance(source, Source) else None


@cache
def flat(model: type[BaseModel]) -> bool:
    """Whether every field of this model holds text, a whole number, a boolean, null or one of
    its literals (nothing nested: no model, mapping or sequence)."""
    return all(_scalar_type(f.annotation) for f in model.model_fields.values())


def _scalar_type(kind: Any) -> bool:
    if kind in (str, int, bool, type(None)):
        return True
    if kind is Source:
        # Nested, but every field of it is required and scalar: `exclude_none` finds no null
        # inside it to drop, so an event that may carry it still dumps by the fast path.
        return True
    origin = get_origin(kind)
    if origin is Literal:
        return all(type(v) in (str, int, bool) for v in get_args(kind))
    if origin is Annotated:
        return _scalar_type(get_args(kind)[0])
    if origin in (Union, UnionType):
        return all(_scalar_type(a) for a in get_args(kind))
    return False


@cache
def float_free(model: type[BaseModel]) -> bool:
    """Whether no float can occur in an event of this model's body (read from its field
    types: a float, or a value of any JSON type, can hold one)."""
    return all(_float_free_type(f.annotation) for f in model.model_fields.values())


def _float_free_type(kind: Any) -> bool:
    if kind in (str, int, bool, type(None)):
        return True
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return float_free(kind)
    origin = get_origin(kind)
    if origin is Literal:
        return all(not isinstance(v, float) for v in get_args(kind))
    if origin is Annotated:
        return _float_free_type(get_args(kind)[0])
    if origin in (tuple, list, dict, Union, UnionType) or (
        isinstance(origin, type) and issubclass(origin, Mapping | Sequence)
    ):
        return all(a is Ellipsis or _float_free_type(a) for a in get_args(kind))
    return False  # float, Any, JsonValue, anything unknown: the stdlib path


def _ordered_like(stored: Any, today: Any) -> Any:
    """`stored` with the keys it shares with `today` in today's order (nested objects too), and
    the others after them: the database keeps a body's keys sorted, an export has them in
    field order."""
    if not isinstance(stored, dict) or not isinstance(today, dict):
        return stored
    shared = {k: _ordered_like(stored[k], v) for k, v in today.items() if k in stored}
    return {**shared, **{k: v for k, v in stored.items() if k not in shared}}


def type_of(event: EventBase) -> str:
    """The stored tag of an event."""
    tag: str = getattr(event, "type")  # noqa: B009 - every concrete event has a `type` literal
    return tag


@dataclass(frozen=True, slots=True)
class Recorded:
    """An event as stored: the envelope (encounter, seq, id, time, chain) around the event.

    Built from every row a read parses, from values the chain and the event's model have
    checked (pydantic stays at the boundary, the event).
    """

    encounter: str
    seq: int
    id: str
    recorded_at: str
    prev_hash: str
    hash: str
    event: EventBase
    #: The body as stored, when it was written at an older version of its type than `event`
    #: (upcast) has: the hash covers these bytes, so an export carries them as they are.
    as_stored: dict[str, Any] | None = None

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """A record inside a model is taken as it is: only the store builds them."""
        return core_schema.is_instance_schema(cls)

    @property
    def type(self) -> str:
        """The event's type tag."""
        return type_of(self.event)

    def body(self) -> dict[str, Any]:
        """The stored body: the event's fields, or what an older version wrote (in the order
        of today's fields, as the exchange form has them)."""
        if isinstance(self.event, Unreadable):
            return self.event.stored()
        if self.as_stored is None:
            return body_of(self.event)
        ordered: dict[str, Any] = _ordered_like(self.as_stored, body_of(self.event))
        return ordered

    def exchange(self) -> dict[str, Any]:
        """The JSON Lines form: `type`, the fields, then the envelope keys."""
        return {
            "type": self.type,
            **self.body(),
            "encounter": self.encounter,
            "seq": self.seq,
            "id": self.id,
            "recorded_at": self.recorded_at,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }


__all__ = [
    "ANNOTATION_KEYS",
    "ENVELOPE_KEYS",
    "TEXT_MAX",
    "CombatantJoined",
    "CombatantLeft",
    "DiceCommitted",
    "DiceRevealed",
    "EncounterOpened",
    "EncounterRewound",
    "Event",
    "EventBase",
    "EventCorrected",
    "EventRetracted",
    "LedgerRolled",
    "Name",
    "Note",
    "PolicyChanged",
    "ProposalAccepted",
    "ProposalMade",
    "ProposalRejected",
    "Recorded",
    "RollMade",
    "RoundStarted",
    "SceneEnded",
    "Side",
    "Source",
    "StakesLocked",
    "SystemKey",
    "TrackAdjusted",
    "TracksNoted",
    "Unreadable",
    "Vocabulary",
    "body_of",
    "describe",
    "from_row",
    "origin",
    "parse",
    "read_stored",
    "type_of",
]
