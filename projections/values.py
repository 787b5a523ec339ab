"""Frozen values of the projections: frozen, slotted dataclasses holding tuples and read-only
mappings, and their JSON (the `tracks --json` data, and a snapshot's text).

A value is never changed once built: `replace` makes a new one, and every mapping it holds is a
`types.MappingProxyType` over a dict nobody else holds. Pydantic stays at the boundary: a GM's
override is validated by pydantic's schema of the dataclass (`validated`), with its field
constraints written as `Annotated[int, Field(ge=0)]` and its cross-field rule in `check`; a fold
builds values with the constructor and `replace`, which validate nothing.

Every value class is declared with `@value` (`dataclass(frozen=True, slots=True,
kw_only=True)`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from types import MappingProxyType, NoneType, UnionType
from typing import (
    Annotated,
    Any,
    Final,
    TypeVar,
    Union,
    cast,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel, GetCoreSchemaHandler, TypeAdapter
from pydantic_core import core_schema

from projections.growing import Rolled
from projections.growing import with_entry as with_entry
from projections.growing import without as without

K = TypeVar("K")
T = TypeVar("T")
V = TypeVar("V")
C = TypeVar("C", bound=type)


class _Hidden:
    """The mark of a field kept out of a value's view (`tracks --json`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Hidden"


HIDDEN: Final = _Hidden()
#: A field kept out of `view()` / `dump()` (internal numbers the fold and the audit read).
Hidden = Annotated[T, HIDDEN]


class _Empty(Mapping[Any, Any]):
    """The empty read-only mapping, hashable so that it may be a dataclass field's default."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return False  # asked of a state's empty mappings on most events: no KeyError raised

    def get(self, key: Any, default: Any = None) -> Any:
        """`default`: nothing is here."""
        return default

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"


#: The empty read-only mapping: the default of every mapping field.
EMPTY: Final[Mapping[Any, Any]] = _Empty()


@dataclass_transform(frozen_default=True, kw_only_default=True)
def value(cls: C) -> C:
    """Declare a value class: a frozen, slotted, keyword-only dataclass."""
    return cast(C, dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls))


R = TypeVar("R")


def per_class(function: Callable[[Any], R]) -> Callable[[Any], R]:
    """`functools.cache` for a function of a class (asked once per class): mypy does not take a
    dataclass's class for hashable, which it is."""
    return cache(function)


@value
class Value:
    """A frozen, slotted value of the projections, replaced (`replace`) rather than changed."""

    def check(self) -> None:
        """Refuse (ValueError) a value its fields allow one by one but not together; a GM
        override is checked so (the fold keeps these rules itself, and never calls it)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """pydantic's schema of the dataclass, the value then made read-only and `check`ed
        (so a nested value's refusal is located at its field)."""
        return core_schema.no_info_after_validator_function(_checked, handler(source))


Vt = TypeVar("Vt", bound=Value)


def replace(obj: Vt, **changes: Any) -> Vt:
    """`obj` with some fields changed (a new value; `obj` is unchanged).

    What `dataclasses.replace` makes, four to six times as fast (a fold replaces its state once
    an event, and a Fate's Edge state has 19 fields): a value's fields are set by the slots'
    own descriptors, as `__init__` would set them, since no value class has an `__post_init__`
    (tests/core/test_values.py holds the two alike).
    """
    try:
        made: Vt = _copier(type(obj))(obj, changes)
    except KeyError as exc:
        raise TypeError(f"{type(obj).__name__} has no field {exc.args[0]!r}") from None
    return made


@per_class
def _copier(kind: type) -> Callable[[Any, dict[str, Any]], Any]:
    """A function copying a value of class `kind` slot by slot, then setting `changes` (a
    KeyError names a field it does not have)."""
    setters = {f.name: getattr(kind, f.name).__set__ for f in dataclasses.fields(kind)}
    after = ["    for name, changed in changes.items():", "        setters[name](made, changed)"]
    return _written(kind, "obj, changes", lambda n, f, scope: f"obj.{f.name}", after=after,
                    scope={"setters": setters})  # fmt: skip


def _written(
    kind: type,
    parameters: str,
    value_of: Callable[[int, dataclasses.Field[Any], dict[str, Any]], str],
    *,
    before: Sequence[str] = (),
    after: Sequence[str] = (),
    scope: Mapping[str, Any] = EMPTY,
) -> Callable[..., Any]:
    """A function of `parameters` making a value of class `kind` slot by slot, each field set
    to the expression `value_of(n, field, scope)` gives (it may add names to `scope`) by the
    slot's own descriptor, as `__init__` would set it: no value class has an `__post_init__`
    (tests/core/test_values.py holds them alike). Written out once per class, as `dataclasses`
    writes `__init__`: a fold makes a value or two an event, and a loop over the slots costs
    twice as much. `before` and `after` are lines around the slots (`made` is the value)."""
    assert not hasattr(kind, "__post_init__"), kind
    names: dict[str, Any] = {"new": object.__new__, "kind": kind, **scope}
    lines = [f"def made_of({parameters}):", *before, "    made = new(kind)"]
    for n, each in enumerate(dataclasses.fields(cast(Any, kind))):
        names[f"set_{n}"] = getattr(kind, each.name).__set__
        lines.append(f"    set_{n}(made, {value_of(n, each, names)})")
    lines += [*after, "    return made"]
    exec("\n".join(lines), names)  # the names are a dataclass's fields: identifiers
    made_of: Callable[..., Any] = names["made_of"]
    return made_of


def copied_from(
    kind: type[Vt], names: tuple[str, ...], in_dict: bool = False
) -> Callable[[Any], Vt]:
    """A function making a value of class `kind` from an object: the fields `names` are its
    attributes of the same names, every other field its default (what
    `kind(**{n: getattr(obj, n) for n in names})` makes; TypeError now when a field left out
    has no plain default). Written out once per class and names, as `replace` is. With
    `in_dict`, the object holds those attributes in its `__dict__` (a pydantic model's fields
    do), which is read as a mapping: half the cost of asking for each attribute."""
    made: Callable[[Any], Vt] = _reader(cast(type, kind), names, in_dict)
    return made


@cache
def _reader(kind: type, names: tuple[str, ...], in_dict: bool) -> Callable[[Any], Any]:
    def value_of(n: int, field: dataclasses.Field[Any], scope: dict[str, Any]) -> str:
        if field.name in names:
            return f"held[{field.name!r}]" if in_dict else f"obj.{field.name}"
        if field.default is dataclasses.MISSING:
            raise TypeError(f"{kind.__name__}: field {field.name!r} has no plain default")
        scope[f"default_{n}"] = field.default
        return f"default_{n}"

    return _written(kind, "obj", value_of, before=["    held = obj.__dict__"] * in_dict)


def read_only(items: Mapping[K, V] | Iterable[tuple[K, V]]) -> Mapping[K, V]:
    """A read-only mapping of its own copy of `items`."""
    return MappingProxyType(dict(items))


def frozen_json(data: Any) -> Any:
    """JSON data made read-only all the way down: objects as read-only mappings, arrays tuples."""
    if isinstance(data, Mapping):
        return MappingProxyType({k: frozen_json(v) for k, v in data.items()})
    if isinstance(data, list | tuple):
        return tuple(frozen_json(v) for v in data)
    return data


@per_class
def field_names(kind: type) -> tuple[str, ...]:
    """A value class's fields, in order (hidden ones too)."""
    return tuple(f.name for f in dataclasses.fields(kind))


def fields_of(obj: Value) -> dict[str, Any]:
    """A value's fields by name, in order (hidden ones too)."""
    return {name: getattr(obj, name) for name in field_names(type(obj))}


@per_class
def hints(kind: type) -> Mapping[str, Any]:
    """The resolved annotations of a class, `Annotated` marks kept."""
    return MappingProxyType(get_type_hints(kind, include_extras=True))


@per_class
def hidden(kind: type) -> frozenset[str]:
    """The fields of a value class marked `Hidden`."""
    return frozenset(
        name
        for name, hint in hints(kind).items()
        if get_origin(hint) is Annotated and any(m is HIDDEN for m in hint.__metadata__)
    )


def validated(kind: type[Vt], data: Mapping[str, Any]) -> Vt:
    """A value of `kind` from `data`, validated by pydantic's schema of the dataclass (its
    fields' constraints), made read-only and `check`ed (raises pydantic's ValidationError,
    `check`'s refusal included, located as a model's would be)."""
    made: Vt = _adapter(kind).validate_python(dict(data))
    return made


def _checked(made: Any) -> Any:
    made = sealed(made)
    made.check()
    return made


@per_class
def _adapter(kind: type) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def sealed(obj: Vt) -> Vt:
    """`obj` with every mapping it holds read-only and every array a tuple (pydantic builds
    dicts and lists where a value's fields are mappings and sequences)."""
    changes = {
        name: _sealed(getattr(obj, name))
        for name in field_names(type(obj))
        if isinstance(getattr(obj, name), dict | list | Value)
    }
    return replace(obj, **changes) if changes else obj


def _sealed(data: Any) -> Any:
    if isinstance(data, Value):
        return sealed(data)
    if isinstance(data, dict):
        return MappingProxyType({k: _sealed(v) for k, v in data.items()})
    if isinstance(data, list):
        return tuple(_sealed(v) for v in data)
    return data


def builtins(data: Any) -> Any:
    """`data` as JSON data (as pydantic's JSON mode gives it: tuples as lists, keys as text;
    a value as the object of its fields)."""
    if data is None or isinstance(data, str | int | float | bool):
        return data
    if isinstance(data, Value):
        return {name: builtins(getattr(data, name)) for name in field_names(type(data))}
    if isinstance(data, Mapping):
        return {_key(k): builtins(v) for k, v in data.items()}
    if isinstance(data, list | tuple | Rolled):
        return [builtins(v) for v in data]
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    raise TypeError(f"a state cannot hold a {type(data).__name__}")


def _key(key: Any) -> str:
    return key if isinstance(key, str) else json.dumps(key)


# A snapshot's text: every value tagged with its class, every mapping with its keys as they
# are (a seq is a whole number), so that it reads back into the very same value; a field
# holding its default (nothing, or a plain text, number or flag) is left out (a long fight's
# stakes are mostly such fields). A snapshot is keyed by the release that folded it
# (`ledger.systems.folded_by`), so a default another release changes never misreads one.

_TAG: Final = "@"


def to_json(data: Any) -> str:
    """`data` (a state) as the text of a snapshot."""
    tags = _tags(type(data)) if isinstance(data, Value) else EMPTY
    return json.dumps(_tagged(data, tags), ensure_ascii=False, separators=(",", ":"))


def _tagged(data: Any, tags: Mapping[type, str]) -> Any:
    if data is None or isinstance(data, str | int | float | bool):
        return data
    if isinstance(data, Value):
        kind = type(data)
        fields = {
            name: _tagged(found, tags)
            for name, default in _defaults(kind).items()
            if not _same(found := getattr(data, name), default)
        }
        return {_TAG: tags.get(kind) or _name(kind), **fields}
    if isinstance(data, BaseModel):
        model = type(data)
        return {_TAG: tags.get(model) or _name(model), "model": data.model_dump(mode="json")}
    if isinstance(data, Mapping):
        items = [[_tagged(k, tags), _tagged(v, tags)] for k, v in data.items()]
        return {_TAG: "map", "items": items}
    if isinstance(data, list | tuple | Rolled):
        return [_tagged(v, tags) for v in data]
    raise TypeError(f"a state cannot hold a {type(data).__name__}")


#: The mark of a field without a plain default (one made by a factory, or none): always written.
_NONE: Final = object()


@per_class
def _defaults(kind: type) -> Mapping[str, Any]:
    """Each field of a value class and its default when that holds nothing (None, an empty
    mapping or tuple) or is a plain text, whole number or flag, else `_NONE`: a snapshot's
    text leaves out a field holding such a default (a lock's `"position": "controlled"`), and
    writes every other field."""
    return MappingProxyType(
        {
            f.name: f.default
            if any(f.default is empty for empty in _NOTHING) or type(f.default) in _PLAIN
            else _NONE
            for f in dataclasses.fields(kind)
        }
    )


#: The defaults that hold nothing.
_NOTHING: Final = (None, EMPTY, ())
#: The defaults compared by value (exactly: no float, whose -0.0 equals 0.0).
_PLAIN: Final = (str, int, bool)


def _same(found: Any, default: Any) -> bool:
    """A field holding its default, which the snapshot's text leaves out (its class supplies
    it when read back): the very default, or one of its type equal to it."""
    return found is default or (type(found) is type(default) and found == default)


def _name(kind: type) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"


@per_class
def _tags(kind: type) -> Mapping[type, str]:
    """The tag of each class a value of class `kind` may hold: its bare name where no other
    such class has it (a long fight's text names FELock thousands of times), else its module
    too (a full name, which `from_json` reads as well)."""
    classes = known_classes(kind).values()
    named = Counter(each.__qualname__ for each in classes)
    return MappingProxyType(
        {
            each: each.__qualname__
            if named[each.__qualname__] == 1 and each.__qualname__ != "map"
            else _name(each)
            for each in classes
        }
    )


def from_json(text: str, kind: type[Vt]) -> Vt:
    """The value of class `kind` a snapshot's text holds; only the classes `kind` names in
    its annotations (all the way down) are ever built. ValueError when the text is not one.

    Each object is built as the parser closes it (`object_hook`), so the parsed text is never
    held whole as dictionaries beside the values made of it: reading the 12 MB snapshot of a
    1,000,000-event encounter peaks 60 MB lower, and takes half the time."""
    classes = {**known_classes(kind), **{tag: each for each, tag in _tags(kind).items()}}
    made = json.loads(text, object_hook=functools.partial(_built, classes))
    if not isinstance(made, kind):
        raise ValueError(f"a snapshot of a {type(made).__name__}, not a {kind.__name__}")
    return made


def _built(classes: Mapping[str, type], data: dict[str, Any]) -> Any:
    """One object of a snapshot's text, as the parser closes it (what it holds is built
    already): the value its tag names. An object without a tag is a model's own data, left
    as it is for the model to read; anywhere else `_frozen` refuses it."""
    if _TAG not in data:
        return data
    tag = data.pop(_TAG)
    if tag == "map":
        return MappingProxyType({_frozen(k): _frozen(v) for k, v in data["items"]})
    kind = classes.get(tag) if isinstance(tag, str) else None
    if kind is None:
        raise ValueError(f"a snapshot names a class it may not build: {tag!r}")
    try:
        return _builder(kind)(data)
    except KeyError as missing:
        raise TypeError(f"{kind.__name__} needs its field {missing}") from None


@per_class
def _builder(kind: type) -> Callable[[dict[str, Any]], Any]:
    """What builds a value of class `kind` from a snapshot object's fields (the dict is the
    parser's, emptied on the way): what `kind(**data)` makes of them as a value holds them
    (lists as tuples), each slot set once without the frozen class's `__setattr__` (a long
    fight's snapshot holds tens of thousands of values); a model reads its dumped data.
    TypeError for a field it does not have; KeyError for one without a default left out."""
    if issubclass(kind, BaseModel):
        # Its data as the model dumped it: whatever it holds must still be plain JSON.
        return lambda data: kind.model_validate_json(json.dumps(data["model"]))

    def value_of(n: int, field: dataclasses.Field[Any], scope: dict[str, Any]) -> str:
        if field.default is not dataclasses.MISSING:
            scope[f"default_{n}"] = field.default
            return f"pop({field.name!r}, default_{n})"
        if field.default_factory is not dataclasses.MISSING:
            scope[f"factory_{n}"] = field.default_factory
            return f"pop({field.name!r}) if {field.name!r} in data else factory_{n}()"
        return f"pop({field.name!r})"

    before = [
        "    for name, found in data.items():",
        "        if type(found) is list or type(found) is dict:",
        "            data[name] = frozen(found)",
        "    pop = data.pop",
    ]
    after = [
        "    if data:",
        "        raise TypeError(f'{kind.__name__} has no field {next(iter(data))!r}')",
    ]
    return _written(kind, "data", value_of, before=before, after=after, scope={"frozen": _frozen})


def _frozen(data: Any) -> Any:
    """A value's field as it holds it: a list as a tuple (all the way down); an object
    without a tag is not a value."""
    if type(data) is list:
        return tuple([_frozen(each) for each in data])
    if type(data) is dict:
        raise ValueError(f"a snapshot names a class it may not build: {data.get(_TAG)!r}")
    return data


@per_class
def known_classes(kind: type) -> Mapping[str, type]:
    """Every value and model class a value of class `kind` may hold, by its snapshot name."""
    found: dict[str, type] = {}
    todo: list[Any] = [kind]
    while todo:
        hint = todo.pop()
        for each in _types_in(hint):
            name = _name(each)
            if name in found:
                continue
            found[name] = each
            if dataclasses.is_dataclass(each):
                todo.extend(hints(each).values())
            elif issubclass(each, BaseModel):
                todo.extend(f.annotation for f in each.model_fields.values())
    return MappingProxyType(found)


def _types_in(hint: Any) -> list[type]:
    """The dataclasses and models a type hint names (inside unions, containers, Annotated)."""
    origin = get_origin(hint)
    if origin is not None:
        opaque = isinstance(origin, type) and not issubclass(origin, Mapping | Sequence)
        if opaque and origin not in (Union, UnionType, Annotated):
            return []
        return [t for arg in get_args(hint) for t in _types_in(arg)]
    modelled = isinstance(hint, type) and hint is not NoneType
    if modelled and (dataclasses.is_dataclass(hint) or issubclass(hint, BaseModel)):
        return [hint]
    return []
