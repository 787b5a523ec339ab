"""Fold states as plain JSON of known classes, for the projection cache (never pickle).

Loading a snapshot can build only the models of `projections` and `ledger.events`; anything else
is `Unknown`. The storage of the text is `ledger.cache`'s.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Iterator, KeysView, Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel

from projections import core
from projections.log import Log

#: The packages whose models a snapshot may hold.
_KNOWN: Final = ("projections.", "ledger.events.")
TEXT: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Unknown(ValueError):
    """A stored snapshot names a class or a shape the cache does not build."""


# Encoding: scalars and text-keyed dicts as themselves; a tuple, list, Log or other dict as an
# array tagged by its first item (a dict's pairs as [key, value]); a model as
# ["m", "module:Class", {its fields}, [fields left at default]]; a sequence of models of one class
# as columns, ["C", its tag, "module:Class", [field names], [[fields left at default], ...],
# [index into those lists, value, ...] a model].


def encode(state: core.State) -> str:
    """The state as JSON text (raises TypeError or ValueError for what JSON cannot carry)."""
    return TEXT.encode(_enc(state))


def _enc(value: Any) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool:
        return value
    if kind is dict:
        if all(type(k) is str for k in value):
            return {k: _enc(v) for k, v in value.items()}
        return ["d", *([_enc(k), _enc(v)] for k, v in value.items())]
    if kind is tuple or kind is list or kind is Log:
        tag = _SEQUENCES[kind]
        if len(value) > 1:
            columns = _columns(tag, value)
            if columns is not None:
                return columns
        return [tag, *map(_enc, value)]
    if kind.__module__.startswith(_KNOWN) and _is_record(kind):
        fields, unset = _fields(value)
        name = f"{kind.__module__}:{kind.__qualname__}"
        return ["m", name, {k: _enc(v) for k, v in fields.items()}, unset]
    raise TypeError(f"a snapshot cannot hold a {kind.__name__}")


def matches(state: core.State, text: str) -> bool:
    """Whether `text` is `encode(state)`, compared a piece at a time: the audit checks each
    snapshot so, without building a second whole encoding beside the state (a long fight's
    rolls are most of both)."""
    at = 0
    try:
        for piece in pieces(state):
            if not text.startswith(piece, at):
                return False
            at += len(piece)
    except (TypeError, ValueError):
        return False
    return at == len(text)


def pieces(value: Any) -> Iterator[str]:
    """`encode`'s text of `value` in pieces (their concatenation is the whole text): a
    sequence stored as columns one row at a time, dicts and models one field at a time."""
    kind = type(value)
    if kind is tuple or kind is list or kind is Log:
        tag = _SEQUENCES[kind]
        if len(value) > 1 and _columnar(value):
            yield from _column_pieces(tag, value)
            return
        yield "[" + TEXT.encode(tag)
        for item in value:
            yield ","
            yield from pieces(item)
        yield "]"
    elif kind is dict and all(type(k) is str for k in value):
        yield from _object_pieces(value)
    elif kind.__module__.startswith(_KNOWN) and _is_record(kind):
        fields, unset = _fields(value)
        name = f"{kind.__module__}:{kind.__qualname__}"
        yield '["m",' + TEXT.encode(name) + ","
        yield from _object_pieces(fields)
        yield "," + TEXT.encode(unset) + "]"
    else:
        yield TEXT.encode(_enc(value))


def _object_pieces(fields: Mapping[str, Any]) -> Iterator[str]:
    yield "{"
    for n, (key, item) in enumerate(fields.items()):
        yield ("," if n else "") + TEXT.encode(key) + ":"
        yield from pieces(item)
    yield "}"


def _columnar(items: Sequence[Any]) -> bool:
    """Whether `_columns` stores these items as columns."""
    cls = type(items[0])
    if not cls.__module__.startswith(_KNOWN) or not _is_record(cls):
        return False
    return all(type(item) is cls for item in items)


def _column_pieces(tag: str, items: Sequence[Any]) -> Iterator[str]:
    """`_columns`'s text, a row at a time: the fields left at default are gathered first (the
    head names them), then each row is encoded on its own."""
    fields: list[str] = []
    unsets: dict[tuple[str, ...], int] = {}
    indexes: list[int] = []
    for item in items:
        values, unset = _fields(item)
        fields = fields or list(values)
        indexes.append(unsets.setdefault(tuple(unset), len(unsets)))
    cls = type(items[0])
    name = f"{cls.__module__}:{cls.__qualname__}"
    head = ["C", tag, name, fields, [list(u) for u in unsets]]
    yield TEXT.encode(head)[:-1]
    for item, index in zip(items, indexes, strict=True):
        values, _ = _fields(item)
        yield "," + TEXT.encode([index, *(_enc(values[field]) for field in fields)])
    yield "]"


def _is_record(kind: type) -> bool:
    # A pydantic model or a (frozen) dataclass: the two shapes of the state's values.
    return issubclass(kind, BaseModel) or dataclasses.is_dataclass(kind)


def _fields(value: Any) -> tuple[dict[str, Any], list[str]]:
    """A model's or dataclass's fields by name, and (a model's) fields left at default."""
    if isinstance(value, BaseModel):
        given = value.model_fields_set
        fields = dict(value)
        return fields, [name for name in fields if name not in given]
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, []


def _columns(tag: str, items: Sequence[Any]) -> list[Any] | None:
    """Models of one class as columns: a roll log of a long fight is most of a snapshot, and as
    one object per roll its parsed JSON costs several times the state it rebuilds."""
    cls = type(items[0])
    if not cls.__module__.startswith(_KNOWN) or not _is_record(cls):
        return None
    if any(type(item) is not cls for item in items):
        return None
    fields: list[str] = []
    unsets: dict[tuple[str, ...], int] = {}
    rows: list[list[Any]] = []
    for item in items:
        values, unset = _fields(item)
        fields = fields or list(values)
        index = unsets.setdefault(tuple(unset), len(unsets))
        rows.append([index, *(_enc(values[name]) for name in fields)])
    name = f"{cls.__module__}:{cls.__qualname__}"
    return ["C", tag, name, fields, [list(u) for u in unsets], *rows]


def _field_names(cls: Any) -> KeysView[str]:
    names: dict[str, object] = (
        dict(cls.model_fields)
        if issubclass(cls, BaseModel)
        else {f.name: f for f in dataclasses.fields(cls)}
    )
    return names.keys()


_SEQUENCES: Final[Mapping[type, str]] = {tuple: "t", list: "l", Log: "L"}


def decode(text: str) -> core.State:
    """A state from `encode`'s text; raises `Unknown` (or ValueError) for anything else."""
    state = _Decoder().value(json.loads(text))
    if not isinstance(state, core.State):
        raise Unknown("a snapshot holds a state")
    return state


class _Decoder:
    def __init__(self) -> None:
        self._classes: dict[str, type] = {}
        self._names: dict[type, KeysView[str]] = {}
        # The fields given to a model, by its class and the fields left at default.
        self._given: dict[tuple[str, ...], set[str]] = {}
        self._texts: dict[str, str] = {}

    def value(self, item: Any) -> Any:
        kind = type(item)
        if kind is str:
            # One object per distinct text: a long fight repeats a few names thousands of times.
            return self._texts.setdefault(item, item)
        if item is None or kind is int or kind is float or kind is bool:
            return item
        if kind is dict:
            return {k: self.value(v) for k, v in item.items()}
        if kind is not list or not item:
            raise Unknown(f"unexpected {kind.__name__} in a snapshot")
        tag = item[0]
        if tag == "t":
            return tuple(self.value(v) for v in item[1:])
        if tag == "l":
            return [self.value(v) for v in item[1:]]
        if tag == "d":
            return {self.key(pair[0]): self.value(pair[1]) for pair in item[1:]}
        if tag == "L":
            return Log(self.value(v) for v in item[1:])
        if tag == "m" and len(item) == 4:
            return self.model(item[1], item[2], item[3])
        if tag == "C" and len(item) >= 5:
            return self.columns(item)
        raise Unknown(f"unexpected tag {tag!r} in a snapshot")

    def columns(self, item: list[Any]) -> Any:
        _, tag, name, fields, unsets = item[:5]
        if type(fields) is not list or type(unsets) is not list:
            raise Unknown(f"{name}: malformed columns in a snapshot")
        width = len(fields) + 1
        models = []
        for i in range(5, len(item)):
            # Each parsed row is let go as its model is built: the snapshot's parsed JSON and
            # the state it becomes (a long fight's rolls, most of both) are never held whole
            # at once. The parsed document is this decoder's own.
            row, item[i] = item[i], None
            if type(row) is not list or len(row) != width or type(row[0]) is not int:
                raise Unknown(f"{name}: malformed row in a snapshot")
            if not 0 <= row[0] < len(unsets):
                raise Unknown(f"{name}: malformed row in a snapshot")
            models.append(self.model(name, dict(zip(fields, row[1:], strict=True)), unsets[row[0]]))
        if tag == "t":
            return tuple(models)
        if tag == "l":
            return models
        if tag == "L":
            return Log(models)
        raise Unknown(f"unexpected tag {tag!r} in a snapshot")

    def key(self, item: Any) -> Any:
        key = self.value(item)
        if not isinstance(key, str | int | float | bool | tuple | None):
            raise Unknown("a snapshot's dict key is a scalar or a tuple")
        return key

    def model(self, name: Any, fields: Any, unset: Any) -> Any:
        cls = self.known(name)
        names = self._names.get(cls)
        if names is None:
            names = self._names[cls] = _field_names(cls)
        if type(fields) is not dict or fields.keys() != names:
            raise Unknown(f"{name}: the fields stored are not the fields of the class")
        if type(unset) is not list or not set(unset) <= fields.keys():
            raise Unknown(f"{name}: unknown fields left at default")
        values = {k: self.value(v) for k, v in fields.items()}
        if not issubclass(cls, BaseModel):
            return cls(**values)
        key = (name, *unset)
        given = self._given.get(key)
        if given is None:
            given = self._given[key] = fields.keys() - set(unset)
        # One set per class and shape, shared: pydantic copies it before a copy changes it.
        return cls.model_construct(given, **values)

    def known(self, name: Any) -> type:
        cls = self._classes.get(name)
        if cls is not None:
            return cls
        module, _, qualname = name.partition(":") if isinstance(name, str) else ("", "", "")
        if not module.startswith(_KNOWN) or not qualname.isidentifier():
            raise Unknown(f"{name!r} is not a class a snapshot may hold")
        try:
            found = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError) as exc:
            raise Unknown(f"{name!r} is not a class a snapshot may hold") from exc
        if not isinstance(found, type) or not _is_record(found):
            raise Unknown(f"{name!r} is not a model")
        self._classes[name] = found
        return found
