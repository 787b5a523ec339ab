"""The projections' values: `values.replace` makes what `dataclasses.replace` makes."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger, systems
from projections import core, values
from projections.fates_edge.events import FEStakesLocked
from projections.fates_edge.model import FatesEdgeState, FELock, FEStake, Hit
from projections.state import Skipped
from projections.values import Value
from tests import paths

EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


def reachable(data: Any) -> Iterator[Value]:
    """Every value held in `data`, itself included."""
    if isinstance(data, Value):
        yield data
        for field in dataclasses.fields(data):
            yield from reachable(getattr(data, field.name))
    elif isinstance(data, tuple | list):
        for item in data:
            yield from reachable(item)
    elif hasattr(data, "values") and callable(data.values):
        for item in data.values():
            yield from reachable(item)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_replace_makes_what_dataclasses_replace_makes_for_every_value_of_an_example(
    example: Path, tmp_path: Path
) -> None:
    with Ledger(tmp_path / "e.db") as book:
        book.import_lines(example.read_text(encoding="utf-8").splitlines())
        state = book.tracks(book.encounters()[0].encounter)
    found = list(reachable(state))
    assert len({type(v) for v in found}) >= 3
    for value in found:
        for field in dataclasses.fields(value):
            other = "changed" if getattr(value, field.name) != "changed" else "other"
            for new in (getattr(value, field.name), other):
                ours = values.replace(value, **{field.name: new})
                theirs = dataclasses.replace(value, **{field.name: new})
                assert type(ours) is type(theirs)
                for each in dataclasses.fields(value):
                    assert getattr(ours, each.name) is getattr(theirs, each.name)
                assert ours == theirs
                assert getattr(value, field.name) is not new or ours == value


def test_replace_of_a_field_a_value_does_not_have_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="no field 'nope'"):
        values.replace(values.Value(), nope=1)


def test_a_replaced_value_is_as_frozen_as_any() -> None:
    made = values.replace(Skipped(seq=1, type="note", reason="x"), seq=2)
    assert made == Skipped(seq=2, type="note", reason="x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seq = 3  # type: ignore[misc]


def test_a_snapshot_leaves_out_fields_holding_their_default_and_reads_them_back() -> None:
    lock = FELock(stake="claw", actor="Ash", opposing="Marsh Hag", dv=3, effect="great")
    text = values.to_json(lock)
    # target, harm, effect_harm, consequence_harm, partial and move hold None, and kind,
    # position and source their plain defaults: left out; effect is not its default.
    assert json.loads(text) == {
        "@": "FELock",
        "stake": "claw",
        "actor": "Ash",
        "opposing": "Marsh Hag",
        "dv": 3,
        "effect": "great",
    }
    assert values.from_json(text, FELock) == lock
    # A default a snapshot of an earlier build wrote out reads back the same.
    written_out = '{"@":"FELock","stake":"claw","actor":"Ash","kind":"action","dv":3}'
    assert values.from_json(written_out, FELock) == FELock(stake="claw", actor="Ash", dv=3)


@given(number=st.integers(-3, 3), flag=st.booleans(), armor=st.sampled_from(["none", "light"]))
def test_a_plain_default_is_left_out_only_when_it_holds_that_very_value(
    number: int, flag: bool, armor: Any
) -> None:
    """A number, a flag and a text at or off their defaults (0, False, "none") read back as
    they were written."""
    hit = Hit(
        seq=1, target="Bandit", incoming=2, armor=armor, remaining=number, cleared=flag,
        before=(None, 1), after=(None, 2),
    )  # fmt: skip
    text = values.to_json(hit)
    assert values.from_json(text, Hit) == hit
    left_out = {"armor": "none", "remaining": 0, "cleared": False}
    written = json.loads(text)
    assert {k for k, v in left_out.items() if k not in written} == {
        k for k, v in left_out.items() if getattr(hit, k) == v
    }


def test_a_snapshot_names_a_class_by_its_bare_name_and_still_reads_its_full_name() -> None:
    lock = FELock(stake="claw", actor="Ash", kind="defense")
    state = FatesEdgeState(
        encounter="e",
        system="fates-edge",
        stakes={"claw": FEStake(seq=2, lock=lock)},
    )
    text = values.to_json(state)
    stake = json.loads(text)["stakes"]["items"][0][1]
    assert stake["@"] == "FEStake" and stake["lock"]["@"] == "FELock"
    # A snapshot written before #22 names every class with its module, every field: it reads.
    full = (
        '{"@":"projections.fates_edge.model:FatesEdgeState","encounter":"e",'
        '"system":"fates-edge","stakes":{"@":"map","items":[["claw",'
        '{"@":"projections.fates_edge.model:FEStake","seq":2,"lock":'
        '{"@":"projections.fates_edge.model:FELock","stake":"claw","actor":"Ash",'
        '"target":null,"kind":"defense","dv":null}}]]}}'
    )
    assert values.from_json(full, FatesEdgeState) == values.from_json(text, FatesEdgeState)
    assert values.from_json(text, FatesEdgeState).stakes["claw"] == FEStake(seq=2, lock=lock)


@pytest.mark.parametrize(
    "text",
    [
        '{"stake":"claw","actor":"Ash"}',  # no tag: not a value
        '{"@":"os:system","stake":"claw"}',  # a class the state does not name
        '{"@":5,"stake":"claw"}',
        '{"@":"FELock","stake":{"actor":"Ash"},"actor":"Ash"}',  # an untagged object inside
        '{"@":"FELock","stake":"claw","actor":[{"x":1}]}',  # ... or inside a list
        '{"@":"FEStake","seq":2,"lock":{"@":"map","items":[["a",{"b":1}]]}}',
        "[1,2]",
        '{"@":"FELock","stake":"claw","actor":"Ash","claws":2}',  # a field it does not have
        '{"@":"FELock","actor":"Ash"}',  # a field without a default left out
    ],
)
def test_a_snapshot_text_that_is_not_a_value_of_its_class_is_refused(text: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        values.from_json(text, FELock if "FEStake" not in text else FEStake)
    assert core.state_from_json(text, systems.ruleset("fates-edge")) is None


def test_a_snapshot_lists_read_back_as_tuples_all_the_way_down() -> None:
    text = '{"@":"FatesEdgeState","encounter":"e","system":"fates-edge","rolls":[]}'
    state = values.from_json(text, FatesEdgeState)
    assert state.rolls == () and isinstance(state.rolls, tuple)
    nested = values._frozen([[1, [2]], 3])
    assert nested == ((1, (2,)), 3)


LOCKS = st.fixed_dictionaries(
    {"type": st.just("stakes.locked"), "stake": st.just("claw"), "actor": st.just("Ash")},
    optional={
        "target": st.sampled_from(["Ash", "Marsh Hag"]),
        "opposing": st.just("Marsh Hag"),
        "kind": st.sampled_from(["action", "defense"]),
        "position": st.sampled_from(["desperate", "controlled", "dominant"]),
        "dv": st.integers(1, 6),
        "harm": st.integers(0, 4),
        "effect_harm": st.integers(-2, 2),
        "consequence_harm": st.integers(0, 3),
        "partial": st.fixed_dictionaries({}, optional={"harm": st.integers(0, 2)}),
        "source": st.sampled_from(["player", "sb_attack", "sb_move", "opportunity"]),
        "move": st.just("Howl"),
        "intent": st.just("keep the Hag at bay"),
    },
)


@given(LOCKS)
def test_a_lock_read_off_its_event_is_the_lock_its_constructor_makes(body: dict[str, Any]) -> None:
    event = systems.parse(body, "fates-edge")
    assert isinstance(event, FEStakesLocked)
    made = FELock.of(event)
    names = [f.name for f in dataclasses.fields(FELock) if f.name in FEStakesLocked.model_fields]
    plain = FELock(**{name: getattr(event, name) for name in names})
    assert type(made) is FELock and made == plain
    for each in dataclasses.fields(FELock):
        assert getattr(made, each.name) is getattr(plain, each.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.dv = 9  # type: ignore[misc]


def test_a_value_read_off_an_object_lacking_a_field_without_default_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="'actor' has no plain default"):
        values.copied_from(FELock, ("stake",))


def test_the_empty_mapping_holds_nothing_and_says_so_without_raising() -> None:
    assert "x" not in values.EMPTY and values.EMPTY.get("x") is None
    assert values.EMPTY.get("x", 3) == 3 and dict(values.EMPTY) == {}
    with pytest.raises(KeyError):
        values.EMPTY["x"]
