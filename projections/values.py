"""Frozen values of the projections: msgspec structs holding tuples and read-only mappings.

A value is never changed once built: `replace` makes a new one (msgspec refuses both attribute
assignment and `object.__setattr__` on a frozen struct), and every mapping it holds is a
`types.MappingProxyType` over a dict nobody else holds. Pydantic stays at the boundary: a GM's
override is validated by the struct's pydantic schema (`validated`), with its field constraints
written as `Annotated[int, Field(ge=0)]` (which msgspec ignores) and its cross-field rule in
`check`; a fold builds values with the constructor and `replace`, which validate nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from types import MappingProxyType, NoneType, UnionType
from typing import Annotated, Any, Final, TypeVar, Union, get_args, get_origin, get_type_hints

import msgspec
from msgspec.structs import replace as replace
from pydantic import GetCoreSchemaHandler, TypeAdapter
from pydantic_core import core_schema

from projections.log import Log
from projections.persistent import Persistent

K = TypeVar("K")
T = TypeVar("T")
V = TypeVar("V")


class _Hidden:
    """The mark of a field kept out of a value's view (`tracks --json`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Hidden"


HIDDEN: Final = _Hidden()
#: A field kept out of `view()` / `dump()` (internal numbers the fold and the audit read).
Hidden = Annotated[T, HIDDEN]

#: The empty read-only mapping: the default of every mapping field.
EMPTY: Final[Mapping[Any, Any]] = MappingProxyType({})


#: From this many entries a mapping of a state is `Persistent`: setting a key shares the rest
#: instead of copying it, which made a long fight's fold quadratic (a Fate's Edge state keeps
#: every stake ever locked). Which of the two a mapping is depends on its size alone, and both
#: iterate in insertion order, so a reader cannot tell them apart.
PERSISTENT_FROM: Final = 64


def _mapping(items: dict[K, V]) -> Mapping[K, V]:
    """`items` read-only: a persistent map when it is large, else a proxy of it."""
    if len(items) >= PERSISTENT_FROM:
        return Persistent(items)
    return MappingProxyType(items)


def read_only(items: Mapping[K, V] | Iterable[tuple[K, V]]) -> Mapping[K, V]:
    """A read-only mapping of its own copy of `items`."""
    return _mapping(dict(items))


def with_entry(mapping: Mapping[K, V], key: K, value: V) -> Mapping[K, V]:
    """`mapping` with `key` set to `value`, read-only (the original unchanged)."""
    if isinstance(mapping, Persistent):
        return mapping.set(key, value)
    return _mapping({**mapping, key: value})


def without(mapping: Mapping[K, V], key: K) -> Mapping[K, V]:
    """`mapping` less `key` (itself when it has no such key)."""
    if key not in mapping:
        return mapping
    if isinstance(mapping, Persistent) and len(mapping) > PERSISTENT_FROM:
        return mapping.delete(key)
    return _mapping({k: v for k, v in mapping.items() if k != key})


def frozen_json(value: Any) -> Any:
    """JSON data made read-only all the way down: objects as read-only mappings, arrays tuples."""
    if isinstance(value, dict | MappingProxyType):
        return MappingProxyType({k: frozen_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(frozen_json(v) for v in value)
    return value


class Value(msgspec.Struct, frozen=True, kw_only=True):
    """A frozen, slotted value of the projections, replaced (`replace`) rather than changed."""

    def check(self) -> None:
        """Refuse (ValueError) a value its fields allow one by one but not together; a GM
        override is checked so (the fold keeps these rules itself, and never calls it)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validated from a dict of its fields (an instance passes as it is), then `check`ed."""
        hints = _hints(cls)
        fields = {
            f.name: core_schema.typed_dict_field(
                handler.generate_schema(hints[f.name]), required=f.required
            )
            for f in msgspec.structs.fields(cls)
        }

        def build(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> Any:
            if isinstance(value, cls):
                return value
            made = sealed(cls, validate(value))
            made.check()
            return made

        return core_schema.no_info_wrap_validator_function(
            build, core_schema.typed_dict_schema(fields)
        )


Vt = TypeVar("Vt", bound=Value)


def fields_of(value: Value) -> dict[str, Any]:
    """A value's fields by name, in order (hidden ones too)."""
    return {name: getattr(value, name) for name in value.__struct_fields__}


def validated(kind: type[Vt], data: Mapping[str, Any]) -> Vt:
    """A value of `kind` from `data`, validated by its pydantic schema and `check`ed (raises
    pydantic's ValidationError, located as a model's would be)."""
    made: Vt = _adapter(kind).validate_python(data)
    return made


@cache
def _adapter(kind: type[Value]) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


@cache
def _hints(kind: type[Value]) -> Mapping[str, Any]:
    return MappingProxyType(get_type_hints(kind, include_extras=True))


@cache
def hidden(kind: type[Value]) -> frozenset[str]:
    """The fields of a value class marked `Hidden`."""
    return frozenset(
        name
        for name, hint in _hints(kind).items()
        if get_origin(hint) is Annotated and any(m is HIDDEN for m in hint.__metadata__)
    )


def sealed(kind: type[Vt], data: Mapping[str, Any]) -> Vt:
    """A value of `kind` built from plain data (dicts where it holds mappings, as a decoder or
    a validator gives them): every mapping made read-only, every nested value sealed too."""
    plan = _plan(kind)
    return kind(**{k: (plan[k](v) if k in plan else v) for k, v in data.items()})


def resealed(value: Vt) -> Vt:
    """`sealed` for a value already built from plain data (a decoded snapshot)."""
    seal = _seal(type(value))
    return value if seal is None else seal(value)


Seal = Callable[[Any], Any]


@cache
def _plan(kind: type[Value]) -> Mapping[str, Seal]:
    # The fields of `kind` that hold something to make read-only, and how.
    hints = _hints(kind)
    plan = {name: _sealer(hints[name]) for name in kind.__struct_fields__}
    return MappingProxyType({name: seal for name, seal in plan.items() if seal is not None})


@cache
def _seal(kind: type[Value]) -> Seal | None:
    plan = _plan(kind)
    if not plan:
        return None
    return lambda value: replace(value, **{k: seal(getattr(value, k)) for k, seal in plan.items()})


def _sealer(hint: Any) -> Seal | None:
    """How to make a value of type `hint` read-only (None: it already is)."""
    origin, args = get_origin(hint), get_args(hint)
    if origin is Annotated:
        return _sealer(args[0])
    if hint is Any:
        return frozen_json
    if isinstance(hint, type) and issubclass(hint, Value):
        return _seal(hint)
    if origin in (Mapping, dict):
        inner = _sealer(args[1]) if len(args) == 2 else frozen_json
        if inner is None:
            return _proxy
        return lambda m: _mapping({k: inner(v) for k, v in m.items()})
    if origin is tuple:
        parts = [_sealer(a) for a in args if a is not Ellipsis]
        if all(p is None for p in parts):
            return None
        if len(args) == 2 and args[1] is Ellipsis:
            one = parts[0]
            assert one is not None
            return lambda items: tuple(map(one, items))
        return lambda items: tuple(p(i) if p else i for p, i in zip(parts, items, strict=True))
    if origin is Log:
        each = _sealer(args[0]) if args else None
        return None if each is None else lambda items: Log(map(each, items))
    if origin in (Union, UnionType):
        members = {a: _sealer(a) for a in args if a is not NoneType}
        if all(s is None for s in members.values()):
            return None
        return lambda v: _by_type(members, v)
    return None


def _proxy(mapping: Any) -> Any:
    # Already the read-only kind its size calls for: kept; anything else sealed so.
    large = len(mapping) >= PERSISTENT_FROM
    if isinstance(mapping, Persistent if large else MappingProxyType):
        return mapping
    return _mapping(dict(mapping))


def _by_type(members: Mapping[Any, Seal | None], value: Any) -> Any:
    for kind, seal in members.items():
        if seal is not None and isinstance(kind, type) and isinstance(value, kind):
            return seal(value)
    return value
