"""The read-only mappings and sequences a fold grows by one entry an event, without copying
what it holds already.

A state is never changed: each event's fold makes a new one. A mapping or a tuple that gains an
entry is then a copy, which costs as much as it holds: a Fate's Edge encounter's stakes and
rolls grow with every test, so copying them made its fold quadratic (128 µs an event at 3,000
events, 1.1 ms at 30,000). `Grown` and `Rolled` keep what they hold in levels that are never
changed, each at most half the size of the one before (Bentley and Saxe's logarithmic method):
the newest level is copied with each entry while it holds fewer than `SMALL`, then starts anew,
and equal levels merge, so an entry costs O(log n) copies, amortised, and a lookup O(log n)
dict lookups. Both behave as a `dict` and a `tuple` do,
insertion order included (tests/core/test_growing.py holds them to those, operation by
operation); up to `SMALL` entries they are a plain read-only dict and a tuple.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from types import MappingProxyType
from typing import Any, Final, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

#: Up to this many entries a mapping is a read-only dict and a sequence a tuple: a copy of so
#: few costs less than a lookup through levels.
SMALL: Final = 32


class Grown(Mapping[K, V]):
    """A read-only mapping in levels (the oldest first): a key's value is its newest one, its
    place in the order its first insertion's, as in a `dict`. It never deletes: `without`
    makes a plain copy. Its levels are dicts that nothing else holds and nothing changes once
    made (a read-only view of each would cost an allocation an entry, for nothing: they are
    never handed out)."""

    __slots__ = ("_levels", "_size")

    def __init__(self, levels: tuple[dict[K, V], ...], size: int) -> None:
        self._levels = levels
        self._size = size

    def __getitem__(self, key: K) -> V:
        for level in reversed(self._levels):
            if key in level:
                return level[key]
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        # Loops, not `any` over a generator, nor `Mapping`'s own by `__getitem__` and its
        # KeyError: a fold asks a long fight's stakes on every test.
        for level in self._levels:  # noqa: SIM110
            if key in level:
                return True
        return False

    def get(self, key: K, default: Any = None) -> Any:
        """The value of `key`, else `default` (as a dict's)."""
        for level in reversed(self._levels):
            if key in level:
                return level[key]
        return default

    def __iter__(self) -> Iterator[K]:
        return iter(self._flat())

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return repr(dict(self._flat()))

    def _flat(self) -> dict[K, V]:
        flat: dict[K, V] = {}
        for level in self._levels:
            flat.update(level)
        return flat

    def setting(self, key: K, value: V) -> Grown[K, V]:
        """This mapping with `key` set to `value`: the newest level, while it holds fewer than
        `SMALL` entries, is copied with it (a copy of so few costs less than a level of one,
        and an entry is then merged into older levels log2(n / SMALL) times, not log2(n));
        once full, it merges with the older levels of its size and a new one starts."""
        levels = self._levels
        size = self._size
        for level in levels:
            if key in level:
                break
        else:
            size += 1
        top = levels[-1]
        if len(top) < SMALL:
            return Grown((*levels[:-1], {**top, key: value}), size)
        end = len(levels) - 1
        while end and len(levels[end - 1]) <= len(top):
            end -= 1
            top = {**levels[end], **top}
        return Grown((*levels[:end], top, {key: value}), size)


def with_entry(mapping: Mapping[K, V], key: K, value: V) -> Mapping[K, V]:
    """`mapping` with `key` set to `value`, read-only (the original unchanged)."""
    if isinstance(mapping, Grown):
        return mapping.setting(key, value)
    if len(mapping) < SMALL or key in mapping:
        return MappingProxyType({**mapping, key: value})
    return Grown((dict(mapping),), len(mapping)).setting(key, value)


def without(mapping: Mapping[K, V], key: K) -> Mapping[K, V]:
    """`mapping` less `key` (itself when it has no such key)."""
    if key not in mapping:
        return mapping
    return MappingProxyType({k: v for k, v in mapping.items() if k != key})


class Rolled(Sequence[T]):
    """A read-only sequence in levels of tuples (the oldest first), equal to the tuple of its
    items."""

    __slots__ = ("_levels", "_size")

    def __init__(self, levels: tuple[tuple[T, ...], ...], size: int) -> None:
        self._levels = levels
        self._size = size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("index out of range")
        for level in self._levels:
            if index < len(level):
                return level[index]
            index -= len(level)
        raise AssertionError("the levels hold the size")  # pragma: no cover

    def __iter__(self) -> Iterator[T]:
        return chain.from_iterable(self._levels)

    def __reversed__(self) -> Iterator[T]:
        for level in reversed(self._levels):
            yield from reversed(level)

    def __len__(self) -> int:
        return self._size

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rolled | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def adding(self, item: T) -> Rolled[T]:
        """This sequence with `item` at its end (the newest level copied while it holds fewer
        than `SMALL` items, as `Grown.setting` does)."""
        levels = self._levels
        top = levels[-1]
        if len(top) < SMALL:
            return Rolled((*levels[:-1], (*top, item)), self._size + 1)
        end = len(levels) - 1
        while end and len(levels[end - 1]) <= len(top):
            end -= 1
            top = levels[end] + top
        return Rolled((*levels[:end], top, (item,)), self._size + 1)


def appended(items: Sequence[T], item: T) -> Sequence[T]:
    """`items` with `item` at its end (the original unchanged)."""
    if isinstance(items, Rolled):
        return items.adding(item)
    if len(items) < SMALL:
        return (*items, item)
    return Rolled((tuple(items),), len(items)).adding(item)


def plain(data: Any) -> Any:
    """A grown mapping as a read-only dict and a grown sequence as a tuple (for what reads a
    value's fields as JSON or pickles them); anything else as it is."""
    if isinstance(data, Grown):
        return MappingProxyType(dict(data.items()))
    if isinstance(data, Rolled):
        return tuple(data)
    return data
