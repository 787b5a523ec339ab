"""Events are read-only all the way down: a field that holds a JSON object or array (`stats`,
`rules`, a correction's `fields`, an override's `value`, a sheet's `values`, and the stat blocks
the folds read from `stats`) cannot be changed through the event, however it was parsed."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger, events, systems
from ledger.events.frozen import FrozenDict, FrozenList
from projections.fates_edge import events as fates_edge
from projections.ssss import events as ssss
from tests import paths

ROOT = paths.ROOT
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))


def containers(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every dict and list in `value`, with where it is."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from containers(item, f"{path}[{key!r}]")
    elif isinstance(value, list):
        yield path, value
        for n, item in enumerate(value):
            yield from containers(item, f"{path}[{n}]")


def changes(container: Any) -> list[Callable[[], object]]:
    """Every way to change `container` in place."""
    if isinstance(container, dict):
        return [
            lambda: container.__setitem__("x", 1),
            lambda: container.__delitem__(next(iter(container), "x")),
            lambda: container.update(x=1),
            lambda: container.setdefault("x", 1),
            lambda: container.pop(next(iter(container), "x")),
            container.popitem,
            container.clear,
            lambda: container.__ior__({"x": 1}),
        ]
    return [
        lambda: container.append(1),
        lambda: container.extend([1]),
        lambda: container.insert(0, 1),
        lambda: container.__setitem__(0, 1),
        lambda: container.__delitem__(0),
        lambda: container.remove(1),
        container.pop,
        container.clear,
        container.sort,
        container.reverse,
        lambda: container.__iadd__([1]),
        lambda: container.__imul__(2),
    ]


def assert_read_only(event: events.EventBase) -> int:
    """Every container an event's fields hold refuses every change; how many there were."""
    found = 0
    for name in type(event).model_fields:
        for where, container in containers(getattr(event, name), f"{events.type_of(event)}.{name}"):
            found += 1
            before = copy.copy(container)
            for change in changes(container):
                with pytest.raises(TypeError, match="of an event is read-only: edit a copy"):
                    change()
            assert container == before, where
    return found


def stored_events() -> Iterator[tuple[str, events.EventBase]]:
    """Every example's events, as `parse` reads a file's line and as a read reads a row."""
    for path in EXAMPLES:
        system = None
        for line in path.read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            body = {k: v for k, v in data.items() if k not in events.ENVELOPE_KEYS}
            system = body["system"] if body["type"] == "encounter.opened" else system
            assert system is not None
            parsed = systems.parse(body, system)
            yield path.name, parsed
            stored = json.dumps(events.body_of(parsed))
            yield path.name, events.read_stored(body["type"], stored, systems.vocabulary(system))[0]


def test_every_object_and_array_of_every_example_event_refuses_changes() -> None:
    held = sum(assert_read_only(event) for _, event in stored_events())
    assert held > 40  # stats, rules, sheets, overrides and corrections, and what they hold


def test_the_example_of_the_issue_raises_and_leaves_the_stats_as_they_were() -> None:
    event = systems.parse(
        {"type": "combatant.joined", "name": "Kai", "side": "player",
         "stats": {"iron": 2, "bonds": ["Ash"], "gear": {"rope": True}}},
        "ironsworn",
    )  # fmt: skip
    assert isinstance(event, events.CombatantJoined)
    with pytest.raises(TypeError, match="a FrozenDict of an event is read-only"):
        event.stats["iron"] = 9  # type: ignore[index]
    with pytest.raises(TypeError, match="a FrozenList of an event is read-only"):
        event.stats["bonds"].append("Wren")  # type: ignore[union-attr]
    assert event.stats == {"iron": 2, "bonds": ["Ash"], "gear": {"rope": True}}
    editable = dict(event.stats)
    editable["iron"] = 9
    assert event.stats["iron"] == 2


def test_an_event_built_by_hand_and_its_defaults_are_read_only_too() -> None:
    built = events.CombatantJoined(name="Ash", side="player")
    other = events.CombatantJoined(name="Wren", side="player")
    assert type(built.stats) is FrozenDict and built.stats == {}
    with pytest.raises(TypeError):
        built.stats["x"] = 1
    assert other.stats == {}
    adjusted = events.TrackAdjusted(target="Ash", track="harm", value=[1, [2]], reason="GM")
    assert type(adjusted.value) is FrozenList and type(adjusted.value[1]) is FrozenList
    assert events.EncounterOpened(system="ssss").rules == {}


def test_the_stat_blocks_the_folds_read_are_read_only() -> None:
    enemy = ssss.EnemyStats.model_validate({"level": 2, "slots": {"1": 1, "2": 2}})
    record = ssss.PlayerRecord.model_validate({"record": {"grit": 2, "words": ["Bind"]}})
    adversary = fates_edge.AdversaryStats.model_validate(
        {"resilience": 2, "fatigue_capacity": "Body", "attributes": {"Body": 3}}
    )
    for container in (enemy.slots, record.record, record.record["words"], adversary.attributes):
        for change in changes(container):
            with pytest.raises(TypeError):
                change()
    assert (
        adversary.attributes == {"Body": 3}
        and fates_edge.AdversaryStats(resilience=None, resolution="x").attributes == {}
    )


def test_a_read_only_event_copies_pickles_and_dumps_as_the_event_it_is() -> None:
    event = systems.parse(
        {"type": "tracks.noted", "target": "Ash", "values": {"harm": [1, 2], "record": {"a": []}}},
        "ssss",
    )
    assert copy.deepcopy(event) == event and pickle.loads(pickle.dumps(event)) == event
    dumped = event.model_dump()
    assert type(dumped["values"]) is dict and type(dumped["values"]["harm"]) is list
    dumped["values"]["harm"].append(3)  # a dump is the caller's own
    assert event.model_dump_json() == (
        '{"scene":null,"round":null,"by":null,"source":null,"entered_by":null,"type":"tracks.noted",'
        '"target":"Ash","values":{"harm":[1,2],"record":{"a":[]}}}'
    )


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(min_size=1, max_size=5), JSON, max_size=4))
def test_any_json_a_sheet_gives_reads_back_equal_dumps_the_same_and_refuses_changes(
    values: dict[str, Any],
) -> None:
    line = {"type": "tracks.noted", "target": "Ash", "values": values}
    event = systems.parse(line, "ssss")
    assert isinstance(event, events.TracksNoted)
    assert event.values == values
    assert json.loads(event.model_dump_json())["values"] == values
    assert (
        events.read_stored(
            "tracks.noted", json.dumps(events.body_of(event)), systems.vocabulary("ssss")
        )[0]
        == event
    )
    for _, container in containers(event.values, "values"):
        assert type(container) in (FrozenDict, FrozenList)


def test_a_ledger_hands_out_read_only_events(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss")
        ledger.record("ford", {"type": "combatant.joined", "name": "Ash", "side": "player",
                               "stats": {"record": {"grit": 2}}})  # fmt: skip
        joined = ledger.records("ford")[-1].event
    assert isinstance(joined, events.CombatantJoined)
    with pytest.raises(TypeError):
        joined.stats["record"]["grit"] = 3  # type: ignore[index,call-overload]


def test_the_opening_a_write_hands_back_pins_its_rules_read_only(db: Path) -> None:
    with Ledger(db) as ledger:
        opened = ledger.open("ford", "ssss").records[0].event
    assert isinstance(opened, events.EncounterOpened)
    assert opened.rules["max_per_tier"] == 3
    with pytest.raises(TypeError, match="read-only"):
        opened.rules["max_per_tier"] = 2  # type: ignore[index]
