"""A read-only mapping that a new version extends without copying, in insertion order.

A fold keeps some mappings for the whole encounter (a Fate's Edge state holds every stake ever
locked); copying one to set a key made a long fight's fold quadratic. `Persistent` shares its
entries between versions: they live in an `immutables.Map` (a hash array mapped trie: setting a
key copies a few nodes, not the whole), each with the position of its key's insertion in a
`Log` of keys, so that it iterates in insertion order as a dict does (and as the proxies of
small mappings do): what a reader sees never depends on which of the two a state holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Generic, TypeVar

import immutables

from projections.log import Log

K = TypeVar("K")
V = TypeVar("V")


class Persistent(Mapping[K, V], Generic[K, V]):
    """An insertion-ordered, read-only mapping; `set` and `delete` give new versions.

    A mapping made whole (read back from a snapshot, say) holds a plain dict nobody else does
    until a first `set` or `delete`, whose version moves the entries into the trie: a read of a
    long fight that changes a few of its mappings builds tries for those alone.
    """

    __slots__ = ("_base", "_entries", "_order")

    _base: dict[K, V] | None
    _entries: immutables.Map[K, tuple[int, V]]
    _order: Log[K]

    def __init__(self, items: Mapping[K, V]) -> None:
        self._base = dict(items)

    def _trie(self) -> tuple[immutables.Map[K, tuple[int, V]], Log[K]]:
        base = self._base
        if base is None:
            return self._entries, self._order
        keys = list(base)
        return immutables.Map({k: (n, base[k]) for n, k in enumerate(keys)}), Log(keys)

    def set(self, key: K, value: V) -> Persistent[K, V]:
        """This mapping with `key` set to `value` (a new key goes last, as in a dict)."""
        entries, order = self._trie()
        known = entries.get(key)
        if known is not None:
            return _version(entries.set(key, (known[0], value)), order)
        return _version(entries.set(key, (len(order), value)), order.appended(key))

    def delete(self, key: K) -> Persistent[K, V]:
        """This mapping less `key` (which it must hold)."""
        entries, order = self._trie()
        entries = entries.delete(key)
        if len(order) > 2 * len(entries) + 64:
            # Keys deleted and added again pile up in the order: start it afresh.
            return Persistent({k: entries[k][1] for k in _live(entries, order)})
        return _version(entries, order)

    def __getitem__(self, key: K) -> V:
        base = self._base
        return base[key] if base is not None else self._entries[key][1]

    def get(self, key: K, default: Any = None) -> Any:
        base = self._base
        if base is not None:
            return base.get(key, default)
        known = self._entries.get(key)
        return default if known is None else known[1]

    def __contains__(self, key: object) -> bool:
        base = self._base
        return key in base if base is not None else key in self._entries

    def __len__(self) -> int:
        base = self._base
        return len(base) if base is not None else len(self._entries)

    def __iter__(self) -> Iterator[K]:
        base = self._base
        return iter(base) if base is not None else _live(self._entries, self._order)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(
            key in other and other[key] == value for key, value in self.items()
        )

    __hash__ = None  # type: ignore[assignment]  # as a dict, or the proxy of one

    def __repr__(self) -> str:
        return f"Persistent({dict(self.items())!r})"


def _version(entries: immutables.Map[K, tuple[int, V]], order: Log[K]) -> Persistent[K, V]:
    made: Persistent[K, V] = Persistent.__new__(Persistent)
    made._base, made._entries, made._order = None, entries, order
    return made


def _live(entries: immutables.Map[K, tuple[int, V]], order: Log[K]) -> Iterator[K]:
    # A key at the place of its latest insertion (a key deleted and added again is listed
    # twice in the order, at its first place no longer).
    for at, key in enumerate(order):
        known = entries.get(key)
        if known is not None and known[0] == at:
            yield key
