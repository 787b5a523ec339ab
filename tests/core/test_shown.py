"""Track values for people: each system reads its own tracks (`System.shown`), any other value
reads by its shape alone, whatever system it looks like."""

from __future__ import annotations

from typing import Any

import pytest

from ledger import systems
from ledger.cli import render
from ledger.cli import render as plaintext
from ledger.systems import readings
from projections import words
from projections.changes import POOLS, Change, changes
from projections.shown import GENERIC, Reading, shown
from tests import paths
from tests.streams import fold, stream

ROOT = paths.ROOT

#: Values shaped like one system's track, held by another system's track.
SLOTS_SHAPED: dict[str, Any] = {"1": {"filled": 1, "capacity": 3}}
CRITICALS_SHAPED = [{"seq": 4, "severity": 2, "resolved": None}]


def test_a_value_shaped_like_harm_slots_reads_by_its_shape_alone() -> None:
    assert shown(SLOTS_SHAPED) == "1 filled 1, capacity 3"
    assert words.value(SLOTS_SHAPED) == "1 filled 1, capacity 3"


def test_a_value_shaped_like_critical_strikes_reads_by_its_shape_alone() -> None:
    assert shown(CRITICALS_SHAPED) == "@4 severity 2 resolved -"
    assert words.value(CRITICALS_SHAPED) == "seq 4 severity 2 resolved none"


def test_a_system_s_reading_applies_to_its_own_track_in_cells_and_sentences() -> None:
    slots = readings("ssss")["slots"]
    assert shown(SLOTS_SHAPED, slots) == "T1:1/3"
    assert words.value(SLOTS_SHAPED, slots) == "T1 1/3"
    assert shown(None, slots) == "-" and words.value(None, slots) == "none"


def test_a_reading_without_sentence_words_reads_in_a_sentence_as_any_value() -> None:
    criticals = readings("l5r")["criticals"]
    assert shown(CRITICALS_SHAPED, criticals) == "@4: 2 (due)"
    assert words.value(CRITICALS_SHAPED, criticals) == "seq 4 severity 2 resolved none"


@pytest.mark.parametrize("said", [3, "T1 full", [], {}, {"1": 2}, [{"seq": 1}]])
def test_a_value_a_reading_does_not_read_reads_by_its_shape(said: Any) -> None:
    # What a sheet said (`tracks.noted`) may be anything: the generic words, never a crash.
    for key, track in (("ssss", "slots"), ("l5r", "criticals"), ("ironsworn", "conditions")):
        reading = readings(key)[track]
        assert shown(said, reading) == shown(said)
        assert words.value(said, reading) == words.value(said)


def test_systems_that_name_no_readings_read_every_track_generically() -> None:
    # Ironsworn names one now: its conditions read as the rules text names them.
    assert readings("fates-edge") is GENERIC


def test_a_table_reads_a_track_by_its_system_and_a_pool_never_does() -> None:
    view = {
        "combatants": {
            "Bandit": {"side": "adversary", "status": "active", "slots": SLOTS_SHAPED},
            "Ash": {"side": "player", "status": "active", "slots": SLOTS_SHAPED},
        }
    }
    assert plaintext.track_grids(view, readings("ssss")) == [
        (["player", "status", "slots"], [["Ash", "active", "T1:1/3"]]),
        (["adversary", "status", "slots"], [["Bandit", "active", "T1:1/3"]]),
    ]
    assert plaintext.track_grids(view, GENERIC)[0][1] == [
        ["Ash", "active", "1 filled 1, capacity 3"]
    ]
    pool = Change(combatant=POOLS, track="slots", before=1, after=2)
    assert pool.reading(readings("ssss")) is None
    assert render.change_lines([pool], readings("ssss")) == ["  pools slots: 1 -> 2"]


def test_a_step_of_harm_reads_its_slots_as_the_ssss_tables_do() -> None:
    joined = {"type": "combatant.joined", "name": "Bandit", "side": "adversary",
              "stats": {"level": 1}}  # fmt: skip
    before = fold(stream("ssss", joined))
    after = fold(stream("ssss", joined, {"type": "harm.inflicted", "target": "Bandit", "level": 1}))
    found = changes(before, after)
    assert render.change_lines(found, readings("ssss")) == [
        "  Bandit slots: T1:0/3 -> T1:1/3",
        "  Bandit penalties: 0 -> 1",
    ]
    assert words.changed(before, after) == "Bandit slots T1 0/3 -> T1 1/3, penalties 0 -> 1"


def test_every_reading_a_system_names_is_a_reading() -> None:
    for system in systems.every():
        found = systems.ruleset(system.key).state.readings
        assert all(isinstance(r, Reading) for r in found.values()), system.key
