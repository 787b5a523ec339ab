"""The seam between the core and a ruleset, and the fold's dispatch by event class."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import events
from projections import core
from projections.fates_edge import events as fates_edge_events
from projections.ssss import events as ssss_events
from projections.state import track_names
from tests.streams import RULESETS, fold, stream

GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 2}}
HERO = {"type": "combatant.joined", "name": "Hero", "side": "player"}
NOTE = {"type": "note", "text": "the lamp gutters"}


@pytest.mark.parametrize("key", list(RULESETS))
def test_every_ruleset_is_a_typed_ruleset_of_its_own_state(key: str) -> None:
    ruleset = RULESETS[key]
    assert isinstance(ruleset, core.Ruleset)
    assert ruleset.key == key
    opened = stream(key)[0]
    assert isinstance(opened.event, events.EncounterOpened)
    state = core.open_state(ruleset, "test", opened.event)
    assert type(state) is ruleset.state
    # One name for the parsed house-rule table in every system.
    assert core.fields_of(state)["house"] == ruleset.rules.model_validate(
        core.builtins(state.rules)
    )


@pytest.mark.parametrize("key", list(RULESETS))
def test_every_ruleset_apply_ends_its_match_with_assert_never(key: str) -> None:
    # So that mypy names an event of the system's union that `apply` forgot.
    source = textwrap.dedent(inspect.getsource(type(RULESETS[key]).apply))
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    match = function.body[-1]
    assert isinstance(match, ast.Match)
    last = match.cases[-1]
    assert isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None
    assert ast.unparse(last.body[-1]) == "assert_never(event)"


def test_a_ruleset_that_misses_an_abstract_method_cannot_be_built() -> None:
    class Half(core.Ruleset[core.State, events.Note]):
        key = "half"

        def apply(self, state: core.State, seq: int, event: events.Note) -> core.State:
            return state

    with pytest.raises(TypeError, match="abstract"):
        Half()  # type: ignore[abstract]


def test_an_event_that_changes_nothing_hands_back_the_same_state() -> None:
    records = stream("ssss", GUARD, NOTE)
    before = fold(records[:2])
    ruleset = RULESETS["ssss"]
    assert core.advance(ruleset, before, 3, records[2].event) is before
    folder = core.RunningFold(ruleset, before)
    after = folder.add(records[2])
    assert after.seq == 3 and after.combatants is before.combatants


def test_a_systems_own_stakes_lock_is_folded_as_a_stakes_lock() -> None:
    assert core.handler(events.StakesLocked) is core.handler(fates_edge_events.FEStakesLocked)
    assert core.handler(ssss_events.HarmInflicted) is not core.handler(events.Note)


def test_a_folder_writes_the_seq_when_it_hands_the_state_out() -> None:
    records = stream("ssss", GUARD, NOTE, NOTE)
    folder = core.RunningFold(RULESETS["ssss"])
    for record in records:
        folder.feed(record)
    assert folder.state is not None and folder.state.seq == 4
    assert folder.state == fold(records)


def _sheet(c: core.Combatant) -> tuple[str, ...]:
    return tuple(c.view())


@pytest.mark.parametrize(
    ("system", "joins"),
    [
        ("ssss", [GUARD, HERO]),
        (
            "ironsworn",
            [
                {"type": "combatant.joined", "name": "Kai", "side": "player", "stats": {}},
                {
                    "type": "combatant.joined",
                    "name": "Wolf",
                    "side": "adversary",
                    "stats": {"rank": "dangerous"},
                },
            ],
        ),
        (
            "fates-edge",
            [
                {"type": "combatant.joined", "name": "Ash", "side": "player", "stats": {}},
                {
                    "type": "combatant.joined",
                    "name": "Hag",
                    "side": "adversary",
                    "stats": {"resilience": 4, "fatigue_capacity": 2, "harm": 1, "pool": 3},
                },
            ],
        ),
        (
            "l5r",
            [
                {
                    "type": "combatant.joined",
                    "name": "Aiko",
                    "side": "player",
                    "stats": {"rings": {"air": 2, "earth": 2, "fire": 3, "water": 2, "void": 2}},
                },
            ],
        ),
    ],
)
def test_the_track_names_of_a_combatant_class_are_the_keys_of_its_view(
    system: str, joins: list[dict[str, Any]]
) -> None:
    state = fold(stream(system, *joins))
    assert state.combatants
    for c in state.combatants.values():
        assert track_names(type(c)) == _sheet(c)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["harm", "note", "noted", "round"]), max_size=30))
def test_folding_with_the_seq_written_lazily_equals_folding_step_by_step(
    kinds: list[str],
) -> None:
    items: list[dict[str, Any]] = [GUARD]
    for kind in kinds:
        if kind == "harm":
            items.append({"type": "harm.inflicted", "target": "Guard", "level": 1})
        elif kind == "note":
            items.append(NOTE)
        elif kind == "noted":
            items.append({"type": "tracks.noted", "target": "Guard", "values": {"penalties": 0}})
        else:
            items.append({"type": "round.started", "round": len(items)})
    records = stream("ssss", *items)
    state: core.State | None = None
    for record in records:
        if state is None:
            assert isinstance(record.event, events.EncounterOpened)
            state = core.open_state(RULESETS["ssss"], "test", record.event)
        else:
            state = core.advance(RULESETS["ssss"], state, record.seq, record.event)
            state = core.replace(state, seq=record.seq)
    assert state == fold(records)
