"""Fold states as plain JSON, for the projection cache (never pickle).

A snapshot is `["snapshot/3", system, state, refs, rolls]`: the state (its rolls apart, each
roll an array) encoded by msgspec, in C, and read back into the state class of its system's
ruleset, whose annotations name every class a snapshot may build (a system's state names the
union of its combatant and roll classes, tagged by class name). A mapping of the state whose
values are rolls (Fate's Edge's stake -> the roll that resolved it) is written in `refs`, each
roll that is also in the log as its place there: a long fight's snapshot held every roll twice.
The events and house rules a state holds are pydantic models: written as their JSON, validated
again when read. A text in any other shape (an older version's, the first codec's `["m",
"module:Class", ...]`, or of an unknown system) is `Unknown`, and the cache ignores it. The
storage of the text is `ledger.cache`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from types import UnionType
from typing import Annotated, Any, Final, NamedTuple, Union, get_args, get_origin, get_type_hints

import msgspec
from pydantic import BaseModel

from ledger import events
from ledger.errors import BadInput
from projections import core
from projections.log import Log
from projections.values import EMPTY, resealed

#: The first item of every snapshot this codec writes; a text without it is not read.
VERSION: Final = "snapshot/3"
TEXT: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Unknown(ValueError):
    """A stored snapshot names a system or a shape the cache does not read."""


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Log):
        return tuple(value)
    if isinstance(value, events.EventBase):
        # As stored (its type, its body): read back by its model's own validator in one pass.
        return (events.type_of(value), events.body_of(value))
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"a snapshot cannot hold a {type(value).__name__}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_enc_hook)
#: The head of a snapshot, its parts left unparsed until the system is known.
_HEAD: Final = msgspec.json.Decoder(tuple[str, str, msgspec.Raw, msgspec.Raw, msgspec.Raw])


#: How many rolls `pieces` encodes at a time.
_CHUNK: Final = 4096


def encode(state: core.State) -> str:
    """The state as JSON text (raises TypeError or ValueError for what JSON cannot carry)."""
    return "".join(pieces(state))


def pieces(state: core.State) -> Iterator[str]:
    """`encode`'s text in pieces, the rolls a few thousand at a time (their concatenation is
    the whole text): the audit compares a snapshot so, without a second whole text beside it."""
    # The rolls apart from the rest: read back as a typed array, they become structs in C
    # without a dict apiece between (a long fight's rolls are most of a snapshot).
    fields = _roll_maps(type(state))
    rest = msgspec.structs.replace(state, rolls=Log(), **dict.fromkeys(fields, EMPTY))
    refs = _refs(state, fields)
    head = _ENCODER.encode((VERSION, state.system, rest, refs, ())).decode()
    yield head[: -len("[]]")] + "["
    rolls = state.rolls
    for start in range(0, len(rolls), _CHUNK):
        chunk = _ENCODER.encode(rolls[start : start + _CHUNK]).decode()
        yield ("," if start else "") + chunk[1:-1]
    yield "]]"


def _refs(state: core.State, fields: tuple[str, ...]) -> list[dict[Any, int | core.Roll]]:
    """Each roll mapping of the state, a roll that is in the log as its place there (else the
    roll itself): decided by value, so equal states have equal texts."""
    if not fields:
        return []
    rolls = state.rolls
    place = {roll.seq: at for at, roll in enumerate(rolls)}

    def ref(roll: core.Roll) -> int | core.Roll:
        at = place.get(roll.seq)
        return at if at is not None and rolls[at] == roll else roll

    return [{key: ref(roll) for key, roll in getattr(state, f).items()} for f in fields]


def matches(state: core.State, text: str) -> bool:
    """Whether `text` is `encode(state)` (the audit's check of a snapshot), compared a piece
    at a time."""
    at = 0
    try:
        for piece in pieces(state):
            if not text.startswith(piece, at):
                return False
            at += len(piece)
    except (TypeError, ValueError):
        return False
    return at == len(text)


def decode(text: str) -> core.State:
    """A state from `encode`'s text; raises `Unknown` (or ValueError) for anything else."""
    try:
        version, system, raw, raw_refs, raw_rolls = _HEAD.decode(text)
    except msgspec.DecodeError as exc:
        if text.startswith('["snapshot/') and not text.startswith(f'["{VERSION}"'):
            raise Unknown(f"a snapshot of another version than {VERSION!r}") from None
        raise Unknown(f"not a snapshot of this version ({exc})") from None
    if version != VERSION:
        raise Unknown(f"a snapshot of version {version!r}, not {VERSION!r}")
    decoders = _decoders(system)
    try:
        state = decoders.state.decode(raw)
        refs = decoders.refs.decode(raw_refs)
        rolls = decoders.rolls.decode(raw_rolls)
    except msgspec.DecodeError as exc:
        raise Unknown(f"a {system} snapshot that does not read back ({exc})") from None
    if not isinstance(state, core.State) or state.system != system or state.rolls:
        raise Unknown("a snapshot holds a state of its system")
    fields = _roll_maps(type(state))
    if any(getattr(state, f) for f in fields):
        raise Unknown("a snapshot holds its roll mappings apart")
    try:
        maps = {
            f: {key: rolls[r] if type(r) is int else r for key, r in refs[n].items()}
            for n, f in enumerate(fields)
        }
    except IndexError:
        raise Unknown("a snapshot refers to a roll it does not hold") from None
    return resealed(msgspec.structs.replace(state, rolls=Log(rolls), **maps))


@cache
def _roll_maps(kind: type[core.State]) -> tuple[str, ...]:
    """The fields of a state class that map keys to rolls, in order."""
    hints = get_type_hints(kind)
    return tuple(
        name
        for name in kind.__struct_fields__
        if get_origin(hints[name]) is Mapping and _rolls_only(get_args(hints[name])[1])
    )


def _rolls_only(hint: Any) -> bool:
    # A roll class, or a union of them (a mapping of anything else keeps its values inline).
    kinds = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    return all(isinstance(k, type) and issubclass(k, core.Roll) for k in kinds)


_PLACE: Final[Any] = Annotated[int, msgspec.Meta(ge=0)]


class _Decoders(NamedTuple):
    """How a system's snapshot reads back: its state (rolls and roll mappings left out), the
    roll mappings (a place in the log, or a roll), and the rolls."""

    state: msgspec.json.Decoder[Any]
    refs: msgspec.json.Decoder[Any]
    rolls: msgspec.json.Decoder[Any]


@cache
def _decoders(system: str) -> _Decoders:
    """The decoders of a system's snapshot."""
    from projections.registry import RULESETS

    try:
        ruleset = RULESETS[system]
    except KeyError:
        raise Unknown(f"a snapshot of the unknown system {system!r}") from None
    hook = _dec_hook(system)
    kind: type[core.State] = ruleset.state
    hints = get_type_hints(kind)
    roll = get_args(hints["rolls"])[0]
    maps = []
    for name in _roll_maps(kind):
        key, value = get_args(hints[name])
        # A value is a place in the log of rolls, or a roll the log does not hold.
        maps.append(dict.__class_getitem__((key, _PLACE | value)))
    refs = tuple.__class_getitem__(tuple(maps) or ((),))
    return _Decoders(
        msgspec.json.Decoder(kind, dec_hook=hook),
        msgspec.json.Decoder(refs, dec_hook=hook),
        msgspec.json.Decoder(tuple.__class_getitem__((roll, ...)), dec_hook=hook),
    )


def _dec_hook(system: str) -> Callable[[type, Any], Any]:
    """How a snapshot of `system` reads back what msgspec does not know by itself."""

    def hook(kind: type, value: Any) -> Any:
        if get_origin(kind) is Log:
            if value:
                raise ValueError("a snapshot holds its rolls apart")
            return Log()
        if isinstance(kind, type) and issubclass(kind, events.EventBase):
            # An event as its system reads it (a Fate's Edge `stakes.locked` is its own class).
            if type(value) is not list or len(value) != 2 or type(value[0]) is not str:
                raise ValueError("an event is stored as its type and its body")
            try:
                if type(value[1]) is not dict:
                    raise BadInput("an event's body is an object")
                event = events.read_cached(value[0], value[1], system)
            except BadInput as exc:
                raise ValueError(str(exc)) from None
            if not isinstance(event, kind):
                raise ValueError(f"a {type(event).__name__} where a {kind.__name__} belongs")
            return event
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind.model_validate_json(msgspec.json.encode(value))
        # msgspec's protocol for a type its hook does not know: it reports the text as one
        # that does not decode (`Unknown` above), which the cache skips.
        raise NotImplementedError(f"a snapshot cannot hold a {kind}")

    return hook
