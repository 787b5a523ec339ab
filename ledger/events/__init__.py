"""The event vocabulary: one tagged union of frozen models per system, and the stored envelope.

An event's `type` is its stored contract. Each system reads `roll.made`, `stakes.locked` and
`harm.suffered` with its own fields, so an event is parsed by the model its type names in its
encounter's system (`parse`), known from `encounter.opened` at seq 1: the type picks the member
of the union as a discriminator would, without building validators for the others. The systems
are the descriptions of `ledger.systems`; a system's events are imported the first time they are
needed, so reading one system's encounter never loads another's.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, reduce
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic_core import core_schema

from ledger import systems
from ledger.errors import BadInput, BrokenChain, UnknownVersion, did_you_mean
from ledger.events import versions
from ledger.events.base import EventBase, Name, Side, SystemKey
from ledger.events.common import (
    CombatantJoined,
    CombatantLeft,
    Common,
    EncounterOpened,
    EventCorrected,
    EventRetracted,
    Note,
    RollMade,
    RoundStarted,
    SceneEnded,
    StakesLocked,
    TrackAdjusted,
    TracksNoted,
)
from ledger.portable import plain, walked

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

    #: Any event of any system (for type hints; parse with `parse`). Which events a system has
    #: is known only at run time, from its description: narrow with `isinstance` or `match`.
    Event = EventBase
    #: The keys of every rule system found, in declared order (`ledger.systems.known()`).
    SYSTEMS: tuple[SystemKey, ...]


#: Keys of an exchanged (JSON Lines) event that belong to the envelope, not the event.
ENVELOPE_KEYS: Final = ("encounter", "seq", "id", "recorded_at", "hash", "prev_hash")
#: Keys a reader adds to an exchanged line (`log --json`); ignored when the line is read back.
ANNOTATION_KEYS: Final = ("retracted_by", "corrected_by")


def system(key: str) -> systems.System:
    """The description of the rule system `key` (bad input for a key nobody declares)."""
    return systems.get(key)


@cache
def union_of(system: str) -> Any:
    """The union of a system's events: the common ones, then its own (bad input for a system
    nobody declares)."""
    return Common | systems.get(system).events_module().Events


@cache
def _every_event() -> Any:
    """`Event`: the union of every system's events (imports every system)."""
    return reduce(operator.or_, (union_of(s.key) for s in systems.every()), Common)


if not TYPE_CHECKING:
    # Hidden from mypy, which knows these names from the block above and so still reports a
    # misspelt attribute of this module.

    def __getattr__(name: str) -> Any:
        # The union of every event, and each system's module of events, on first use (PEP 562).
        if name == "Event":
            return _every_event()
        if name == "SYSTEMS":
            return systems.known()
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def event_types(system: str) -> tuple[str, ...]:
    """Every event type a system accepts, sorted."""
    return tuple(sorted(m.model_fields["type"].default for m in get_args(union_of(system))))


_MEMBER_TAGS: Final = frozenset({"int", "str", "bool", "float", "none", "dict", "list", "tuple"})


def describe(exc: ValidationError, what: str = "event", known: Iterable[str] | None = None) -> str:
    """One line naming the first thing wrong in a validation error, with the offending value.

    An unknown key comes first (a typo also shows as the missing key it meant), with the
    nearest known key as a hint: `known` (when given, also listed) or the missing keys beside
    it. An unknown key of a stat block is called a stat (`what` says it is one)."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    err = errors[0]
    # An unknown field is the last place named, whatever its spelling (`a-b`).
    last = str(err["loc"][-1]) if err["type"] == "extra_forbidden" and err["loc"] else None
    loc = _path(err["loc"][:-1] if last is not None else err["loc"])
    if last is not None:
        loc.append(last)
    where = ".".join(loc)
    msg = err["msg"]
    noun = "field"
    explained = 0
    if err["type"] == "extra_forbidden":
        missing = [e for e in errors if e["type"] == "missing" and _path(e["loc"])[:-1] == loc[:-1]]
        candidates = [_path(e["loc"])[-1] for e in missing if _path(e["loc"])]
        hint = did_you_mean(loc[-1] if loc else where, [*candidates, *(known or ())])
        explained = sum(1 for e in missing if hint and repr(_path(e["loc"])[-1]) in hint)
        noun = "stat" if what.startswith("stats of") else noun
        text = f"{what} has unknown {noun} {where!r}{hint}"
        # A stat's typo says what it meant; only a stat the system has no likeness of needs
        # the whole list (a house rule's table always shows it).
        if known is not None and not (hint and noun == "stat"):
            text += f" (valid: {', '.join(known)})"
    elif err["type"] == "missing":
        text = f"{what} is missing {noun} {where!r}"
    else:
        value = json.dumps(err.get("input"), default=str)
        if len(value) > 60:
            value = value[:57] + "..."
        field = f"{noun} {where!r}" if where else what
        text = f"{what} {field}: {msg[0].lower()}{msg[1:]} (got {value})"
        if not where:
            text = f"{what}: {msg[0].lower()}{msg[1:]}"
    more = len(errors) - 1 - explained
    return text + (f" (and {more} more problem{'s' * (more > 1)})" if more else "")


def code_of(exc: ValidationError, unknown: str) -> str:
    """The error code of a validation error: `unknown` when a key is unknown (a typo)."""
    return unknown if any(e["type"] == "extra_forbidden" for e in exc.errors()) else "bad-input"


def _path(location: Iterable[Any]) -> list[str]:
    # pydantic names the member of a union it tried (`constrained-int`, `literal['all']`):
    # that is not a field, so leave it out of the path.
    return [p for p in map(str, location) if not ("[" in p or "-" in p or p in _MEMBER_TAGS)]


def parse(data: Mapping[str, Any], system: str | None) -> Event:
    """Validate one event (envelope keys already removed) for an encounter of `system`."""
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadInput("event has no 'type' (a string such as \"hit.resolved\")")
    # An older body is read in today's shape; one of an unknown version is refused as such.
    data = versions.upcast(kind, data)
    if kind == "encounter.opened":
        opened = data.get("system")
        if not isinstance(opened, str):
            raise BadInput(
                "encounter.opened needs 'system', the key of a rule system "
                f"(known: {', '.join(systems.known())})",
                code="unknown-system",
            )
        system = opened
    elif system is None:
        raise BadInput(f"a {kind!r} event needs an encounter opened first")
    model = _models(system).get(kind)
    if model is not None and not plain(data):
        data = walked(data, f"{kind} event")
    if model is None:
        known = ", ".join(event_types(system))
        others = owners_of(kind, system)
        where = (
            f": it is {' and '.join(others)} event"
            if others
            else did_you_mean(kind, event_types(system))
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


def owners_of(kind: str, system: str | None = None) -> list[str]:
    """The systems other than `system` that have an event type `kind`, each key with its
    article (`an oath`); for an error's words only: it loads every system's events."""
    return [
        other.article()
        for other in systems.every()
        if other.key != system and kind in event_types(other.key)
    ]


@cache
def _models(system: str) -> dict[str, type[EventBase]]:
    """A system's event models by type."""
    return {m.model_fields["type"].default: m for m in get_args(union_of(system))}


def parse_stored(kind: str, body: str, system: str) -> Event:
    """A stored event (its type and JSON body text) validated for `system`."""
    return read_stored(kind, body, system)[0]


def read_cached(kind: str, body: Mapping[str, Any], system: str) -> Event:
    """An event a projection cache snapshot holds (its type and body, as this build wrote
    them), validated by its type's model from the decoded body in one pass; any other body is
    read as a stored one is (`read_stored`), which says what is wrong with it."""
    model = _models(system).get(kind)
    if model is not None and not versions.may_need_upcast(kind):
        try:
            event: Event = model.__pydantic_validator__.validate_python(body)
        except ValidationError:
            pass
        else:
            return event
    return read_stored(kind, json.dumps(body), system)[0]


def read_stored(kind: str, body: str, system: str) -> tuple[Event, dict[str, Any] | None]:
    """A stored event validated for `system`, in one pass when it is of its type's current
    version, and the body as stored when it was of an older one (upcast; else None).

    The body text is validated as it is by the model of its type, rather than loaded and
    dumped again: reads of long encounters spend most of their time here.
    """
    model = _models(system).get(kind)
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
    event = parse({**data, "type": kind}, system)
    return event, data if versions.version_of(kind, data) < versions.current(kind) else None


def from_row(row: Sequence[Any], system: str) -> Recorded:
    """A stored row (encounter, seq, id, type, recorded_at, body, prev_hash, hash) as the
    record it holds; a body the models refuse is a broken chain (or, when a newer build wrote
    it, an unknown version)."""
    encounter, seq, id_, type_, recorded_at, body, prev_hash, hash_ = row
    if not isinstance(body, str) or not isinstance(type_, str):
        raise BrokenChain(f"encounter {encounter!r} seq {seq}: stored row is not text")
    try:
        event, as_stored = read_stored(type_, body, system)
    except UnknownVersion as exc:
        # Not tampering: a newer build wrote it (the chain still verifies).
        raise UnknownVersion(f"encounter {encounter!r} seq {seq}: {exc}") from exc
    except BadInput as exc:
        raise BrokenChain(
            f"encounter {encounter!r} seq {seq}: stored event is invalid: {exc}"
        ) from exc
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


@cache
def flat(model: type[BaseModel]) -> bool:
    """Whether every field of this model holds text, a whole number, a boolean, null or one of
    its literals (nothing nested: no model, mapping or sequence)."""
    return all(_scalar_type(f.annotation) for f in model.model_fields.values())


def _scalar_type(kind: Any) -> bool:
    if kind in (str, int, bool, type(None)):
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
    "SYSTEMS",
    "CombatantJoined",
    "CombatantLeft",
    "EncounterOpened",
    "Event",
    "EventBase",
    "EventCorrected",
    "EventRetracted",
    "Name",
    "Note",
    "Recorded",
    "RollMade",
    "RoundStarted",
    "SceneEnded",
    "Side",
    "StakesLocked",
    "SystemKey",
    "TrackAdjusted",
    "TracksNoted",
    "body_of",
    "describe",
    "event_types",
    "owners_of",
    "parse",
    "parse_stored",
    "read_stored",
    "system",
    "type_of",
    "union_of",
]
