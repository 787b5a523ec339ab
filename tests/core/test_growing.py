"""The mappings and sequences a fold grows (`projections.growing`) behave as a dict and a tuple
do, operation by operation, and an entry costs no copy of what they hold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from projections import growing
from projections.growing import SMALL, Grown, Rolled

#: Set a key (few keys, so that most sets overwrite) or delete one.
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), st.integers(0, 3 * SMALL), st.integers()),
        st.tuples(st.just("del"), st.integers(0, 3 * SMALL), st.just(0)),
    ),
    max_size=400,
)


def same_as_dict(ours: Mapping[int, int], theirs: dict[int, int]) -> None:
    assert len(ours) == len(theirs)
    assert list(ours) == list(theirs)
    assert list(ours.items()) == list(theirs.items())
    assert ours == theirs and theirs == ours
    for key in range(-1, 3 * SMALL + 2):
        assert (key in ours) == (key in theirs)
        assert ours.get(key) == theirs.get(key)


@given(OPS)
def test_a_grown_mapping_is_the_dict_the_same_sets_and_deletes_make(
    ops: list[tuple[str, int, int]],
) -> None:
    ours: Mapping[int, int] = MappingProxyType({})
    theirs: dict[int, int] = {}
    kept: list[tuple[Mapping[int, int], dict[int, int]]] = []
    for op, key, value in ops:
        if op == "set":
            ours = growing.with_entry(ours, key, value)
            theirs[key] = value
        else:
            ours = growing.without(ours, key)
            theirs.pop(key, None)
        kept.append((ours, dict(theirs)))
    same_as_dict(ours, theirs)
    # Every earlier mapping is unchanged by what came after it.
    for earlier, then in kept:
        same_as_dict(earlier, then)


@given(st.lists(st.integers(), max_size=300), st.integers(-400, 400))
def test_a_rolled_sequence_is_the_tuple_the_same_appends_make(items: list[int], index: int) -> None:
    ours: Sequence[int] = ()
    kept: list[tuple[Sequence[int], tuple[int, ...]]] = []
    for n, item in enumerate(items):
        ours = growing.appended(ours, item)
        kept.append((ours, tuple(items[: n + 1])))
    for seq, then in [*kept, (ours, tuple(items))]:
        assert len(seq) == len(then)
        assert list(seq) == list(then)
        assert list(reversed(seq)) == list(reversed(then))
        assert seq == then and then == seq
        assert seq[:3] == then[:3]
        if -len(then) <= index < len(then):
            assert seq[index] == then[index]


def test_past_a_few_entries_a_grown_mapping_holds_levels_not_one_copy() -> None:
    mapping: Mapping[int, int] = MappingProxyType({})
    for key in range(10_000):
        mapping = growing.with_entry(mapping, key, key)
    assert isinstance(mapping, Grown)
    # A level of each size at most: as many levels as the bits of the count, no more.
    assert len(mapping._levels) <= 14
    assert mapping[0] == 0 and mapping[9_999] == 9_999 and len(mapping) == 10_000


def test_past_a_few_items_a_rolled_sequence_holds_levels_not_one_copy() -> None:
    items: Sequence[int] = ()
    for item in range(10_000):
        items = growing.appended(items, item)
    assert isinstance(items, Rolled)
    assert len(items._levels) <= 14
    assert items[-1] == 9_999 and items[0] == 0 and len(items) == 10_000


def test_a_few_entries_stay_a_read_only_dict_and_a_tuple() -> None:
    mapping: Any = growing.with_entry(MappingProxyType({}), "a", 1)
    assert isinstance(mapping, MappingProxyType)
    assert growing.appended((), 1) == (1,) and isinstance(growing.appended((), 1), tuple)


def test_plain_gives_a_read_only_dict_and_a_tuple() -> None:
    mapping: Mapping[int, int] = MappingProxyType({})
    items: Sequence[int] = ()
    for n in range(3 * SMALL):
        mapping = growing.with_entry(mapping, n, n)
        items = growing.appended(items, n)
    assert growing.plain(mapping) == dict(mapping) and isinstance(
        growing.plain(mapping), MappingProxyType
    )
    assert growing.plain(items) == tuple(range(3 * SMALL))
    assert growing.plain(7) == 7
