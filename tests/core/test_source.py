"""`source` (DESIGN 4): any event may say where it was imported from, a note and its line; the
two events whose own `source` is older than the envelope's keep theirs, in place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger, events, systems
from ledger.errors import BadInput


def test_any_event_carries_its_source_through_a_write_and_an_export(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.db") as ledger:
        ledger.open("saga", "ironsworn")
        ledger.record(
            "saga", {"type": "note", "text": "hi", "source": {"file": "S 1.md", "line": 4}}
        )
        line = json.loads(list(ledger.export("saga"))[-1])
        record = ledger.records("saga")[-1]
    assert line["source"] == {"file": "S 1.md", "line": 4}
    assert isinstance(record.event.source, events.Source)
    assert str(record.event.source) == "S 1.md:4"


@pytest.mark.parametrize(
    ("source", "wrong"),
    [
        ({"file": "a.md"}, "missing field 'source.line'"),
        ({"file": "a.md", "line": 0}, "source.line"),
        ({"file": "", "line": 3}, "source.file"),
        ({"file": "a.md", "line": 3, "column": 2}, "unknown field 'source.column'"),
    ],
)
def test_a_malformed_source_is_bad_input_naming_it(source: object, wrong: str) -> None:
    with pytest.raises(BadInput, match=wrong.replace(".", r"\.")):
        systems.parse({"type": "note", "text": "x", "source": source}, "ironsworn")


def test_an_l5r_damage_keeps_its_own_source_where_it_always_was() -> None:
    event = systems.parse(
        {
            "type": "damage.dealt",
            "target": "Kaeru",
            "amount": 4,
            "source": "Toshiro's katana",
            "deadliness": 5,
        },
        "l5r",
    )
    assert list(events.body_of(event)) == [
        "target",
        "amount",
        "damage_type",
        "source",
        "deadliness",
        "increases",
        "reductions",
        "voluntary_critical",
    ]
    assert events.body_of(event)["source"] == "Toshiro's katana"


def test_a_fates_edge_lock_keeps_its_own_source_after_its_partial() -> None:
    event = systems.parse(
        {"type": "stakes.locked", "stake": "s", "actor": "Ash", "source": "sb_attack", "move": "M"},
        "fates-edge",
    )
    body = list(events.body_of(event))
    assert body[body.index("source") - 1 : body.index("source") + 2] == [
        "effect",
        "source",
        "move",
    ]
