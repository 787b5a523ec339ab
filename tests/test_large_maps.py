"""A long fight's state holds persistent maps, and folds, decodes and audits as if it did not.

A mapping of a state with many entries (a Fate's Edge state keeps every stake ever locked) is an
`Persistent`, so that setting one key shares the rest instead of copying it; a small one is
a read-only proxy of a dict. Which one a mapping is depends on its size alone. Nothing a reader
sees may depend on it: the same stream folded with every mapping a proxy must give the same
tracks, snapshot text, audit and undo.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import Ledger, snapshot_codec
from projections import audit, core, values
from projections.persistent import Persistent
from projections.registry import RULESETS
from tests.longstreams import fates_edge_stream, lines

EVENTS = 700  # about 230 stakes locked and rolled: well past the persistent maps' size


def folded() -> tuple[core.State, list[Any]]:
    with Ledger(":memory:") as ledger:
        ledger.import_lines(lines(fates_edge_stream(EVENTS)), into="ford")
        records = ledger.records("ford")
        return ledger.refold("ford"), records


def told(monkeypatch: pytest.MonkeyPatch, persistent: bool) -> dict[str, Any]:
    """What the long stream folds to, audits to and undoes to, with persistent maps or not."""
    with monkeypatch.context() as patched:
        if not persistent:
            patched.setattr(values, "PERSISTENT_FROM", 10**9)
        state, records = folded()
        with Ledger(":memory:") as ledger:
            ledger.import_lines(lines(fates_edge_stream(EVENTS)), into="ford")
            undone = ledger.undo("ford", 30, reason="a misread", dry_run=True)
            diff = undone.downstream.document() if undone.downstream else None
        return {
            "snapshot": snapshot_codec.encode(state),
            "view": state.view(),
            "audit": [f.model_dump() for f in audit.audit(RULESETS, records)],
            "undo": (diff, [f.model_dump() for f in undone.findings], undone.state.view()),
        }


def test_a_long_fights_large_mappings_are_persistent_and_small_ones_proxies() -> None:
    state, _ = folded()
    assert len(state.stakes) > values.PERSISTENT_FROM
    assert isinstance(state.stakes, Persistent)
    assert not isinstance(state.combatants, Persistent)
    with pytest.raises(TypeError):
        state.stakes["s0"] = state.stakes["s1"]  # type: ignore[index]


def test_persistent_maps_change_nothing_a_reader_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    assert told(monkeypatch, persistent=True) == told(monkeypatch, persistent=False)


def test_a_long_fight_decodes_and_folds_step_by_step_to_the_same_state() -> None:
    state, records = folded()
    again = snapshot_codec.decode(snapshot_codec.encode(state))
    assert again == state and isinstance(again.stakes, Persistent)
    step = core.RunningFold(RULESETS)
    for record in records:
        step.add(record)
    assert step.state == state


def test_a_mapping_shrinking_below_the_size_becomes_a_proxy_again() -> None:
    many = values.read_only({n: n for n in range(values.PERSISTENT_FROM)})
    assert isinstance(many, Persistent)
    fewer = values.without(many, 0)
    assert not isinstance(fewer, Persistent) and dict(fewer) == {
        n: n for n in range(1, values.PERSISTENT_FROM)
    }
    assert isinstance(values.with_entry(fewer, 0, 0), Persistent)


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 12), st.integers()), max_size=200),
    st.integers(0, 30),
)
def test_a_persistent_mapping_is_a_dict_in_every_version(
    operations: list[tuple[bool, int, int]], start: int
) -> None:
    plain: dict[int, int] = {n: n for n in range(start)}
    versions = [(Persistent(plain), dict(plain))]
    for setting, key, value in operations:
        mapping, plain = versions[-1][0], dict(versions[-1][1])
        if setting:
            plain[key] = value
            versions.append((mapping.set(key, value), plain))
        elif key in plain:
            del plain[key]
            versions.append((mapping.delete(key), plain))
    for mapping, want in versions:  # every version, old ones too, as it was made
        assert list(mapping.items()) == list(want.items())
        assert mapping == want and want == mapping and len(mapping) == len(want)
        assert all((k in mapping) == (k in want) for k in range(14))
        assert mapping.get(13, "none") == want.get(13, "none")
