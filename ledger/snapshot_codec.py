"""Fold states as plain JSON, for the projection cache (never pickle).

A snapshot is `["snapshot/2", system, state]`: the state encoded by msgspec (in C) and read back
into the state class of its system's ruleset, whose annotations name every class a snapshot may
build (a system's state names the union of its combatant and roll classes; those are tagged by
class name). The events and house rules a state holds are pydantic models: they are written as
their JSON and validated again when read. A text in any other shape (one of the first codec's,
`["m", "module:Class", ...]`, or of an unknown system) is `Unknown`, and the cache ignores it.
The storage of the text is `ledger.cache`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Final, get_args, get_origin

import msgspec
from pydantic import BaseModel

from ledger import events
from ledger.errors import BadInput
from projections import core
from projections.log import Log
from projections.values import resealed

#: The first item of every snapshot this codec writes; a text without it is not read.
VERSION: Final = "snapshot/2"
TEXT: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Unknown(ValueError):
    """A stored snapshot names a system or a shape the cache does not read."""


def _enc_hook(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Log):
        return tuple(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"a snapshot cannot hold a {type(value).__name__}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_enc_hook)
#: The head of a snapshot, its state left unparsed until the system is known.
_HEAD: Final = msgspec.json.Decoder(tuple[str, str, msgspec.Raw])


def encode(state: core.State) -> str:
    """The state as JSON text (raises TypeError or ValueError for what JSON cannot carry)."""
    return _ENCODER.encode((VERSION, state.system, state)).decode()


def matches(state: core.State, text: str) -> bool:
    """Whether `text` is `encode(state)` (the audit's check of a snapshot)."""
    try:
        return encode(state) == text
    except (TypeError, ValueError):
        return False


def decode(text: str) -> core.State:
    """A state from `encode`'s text; raises `Unknown` (or ValueError) for anything else."""
    try:
        version, system, raw = _HEAD.decode(text)
    except msgspec.DecodeError as exc:
        raise Unknown(f"not a snapshot of this version ({exc})") from None
    if version != VERSION:
        raise Unknown(f"a snapshot of version {version!r}, not {VERSION!r}")
    try:
        state = _decoder(system).decode(raw)
    except msgspec.DecodeError as exc:
        raise Unknown(f"a {system} snapshot that does not read back ({exc})") from None
    if not isinstance(state, core.State) or state.system != system:
        raise Unknown("a snapshot holds a state of its system")
    return resealed(state)


@cache
def _decoder(system: str) -> msgspec.json.Decoder[Any]:
    from projections.registry import RULESETS

    try:
        ruleset = RULESETS[system]
    except KeyError:
        raise Unknown(f"a snapshot of the unknown system {system!r}") from None
    return msgspec.json.Decoder(ruleset.state, dec_hook=_dec_hook(system))


def _dec_hook(system: str) -> Callable[[type, Any], Any]:
    """How a snapshot of `system` reads back what msgspec does not know by itself."""

    def hook(kind: type, value: Any) -> Any:
        origin = get_origin(kind)
        if origin is Log:
            items = tuple.__class_getitem__((get_args(kind)[0], ...))
            return Log(msgspec.convert(value, items, dec_hook=hook))
        if isinstance(kind, type) and issubclass(kind, events.EventBase):
            # An event as its system reads it (a Fate's Edge `stakes.locked` is its own class).
            try:
                event = events.parse(value, system)
            except BadInput as exc:
                raise ValueError(str(exc)) from None
            if not isinstance(event, kind):
                raise ValueError(f"a {type(event).__name__} where a {kind.__name__} belongs")
            return event
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind.model_validate_json(msgspec.json.encode(value))
        raise NotImplementedError(f"a snapshot cannot hold a {kind}")

    return hook
