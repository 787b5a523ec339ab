"""An immutable sequence with amortised O(1) append, for state that grows with every event.

A fold that rebuilds a tuple on every roll (`(*rolls, roll)`) copies the whole history each
time, so folding an encounter costs the square of its length. `Log.appended` instead shares one
growing list between versions: a version is a prefix of it (the list and a length), so appending
to the newest version only appends to the list, and appending to an older one copies its prefix.
No version ever sees an item that was not appended to it, so every `Log` behaves as a tuple.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Generic, TypeVar, get_args, overload

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

T = TypeVar("T", covariant=True)
U = TypeVar("U")


class Log(Sequence[T], Generic[T]):
    """A tuple-like sequence whose `appended` shares storage with the version it extends."""

    __slots__ = ("_items", "_size")

    def __init__(self, items: Iterable[T] = ()) -> None:
        # Any: the versions sharing this list hold prefixes of it (each typed by its own T).
        self._items: list[Any] = list(items)
        self._size = len(self._items)

    @classmethod
    def of(cls, items: Iterable[T]) -> Log[T]:
        """`items` as a Log (itself when it already is one)."""
        return items if isinstance(items, Log) else cls(items)

    def appended(self, item: U) -> Log[T | U]:
        """A new Log with `item` at the end; this one is unchanged."""
        items, size = self._items, self._size
        if len(items) == size:
            items.append(item)
            # Under threads another version may have claimed the slot first: then copy.
            if items[size] is item:
                return _view(items, size + 1)
        fresh = items[:size]
        fresh.append(item)
        return _view(fresh, size + 1)

    def extends(self, other: object) -> bool:
        """Whether `other` is a version of this Log that this one extends (or is): both share
        storage, so `other`'s items are the first of these, the very same objects."""
        return isinstance(other, Log) and other._items is self._items and other._size <= self._size

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self._items[: self._size][index])
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("Log index out of range")
        item: T = self._items[index]
        return item

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._size)

    def __reversed__(self) -> Iterator[T]:
        items = self._items
        return (items[i] for i in range(self._size - 1, -1, -1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Log | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validated and serialized as a tuple of its item type."""
        args = get_args(source)
        items = handler.generate_schema(tuple.__class_getitem__((args[0] if args else Any, ...)))
        return core_schema.no_info_after_validator_function(
            cls.of,
            items,
            serialization=core_schema.wrap_serializer_function_ser_schema(
                lambda value, serialize: serialize(tuple(value)), schema=items
            ),
        )


def _view(items: list[Any], size: int) -> Log[Any]:
    log: Log[Any] = Log.__new__(Log)
    log._items = items
    log._size = size
    return log
