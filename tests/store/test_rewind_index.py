"""Rewinds are read before every fold, as undos are: a partial index serves them, and a ledger
made before it (of the same format) gains it on its next write, reading the same meanwhile."""

from __future__ import annotations

from ledger import Ledger
from tests.stores import Backend

INDEX = "events_kept"


def indexes(backend: Backend) -> set[str]:
    if backend.kind == "sqlite":
        rows = backend.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    else:
        # This test's schema only: tests running beside it have tables of the same names.
        rows = backend.execute(
            "SELECT indexname FROM pg_indexes "
            "WHERE tablename = 'events' AND schemaname = current_schema()"
        )
    return {name for (name,) in rows}


def rewound(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "round.started", "round": 1})
    ledger.record("ford", {"type": "round.started", "round": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    ledger.rewind("ford", 1, reason="replay round 2")


def test_a_ledger_without_the_rewind_index_reads_rewinds_and_gains_it_on_a_write(
    backend: Backend,
) -> None:
    with backend.ledger() as ledger:
        rewound(ledger)
        truth = ledger.tracks("ford")
    assert INDEX in indexes(backend)
    backend.execute(f"DROP INDEX {INDEX}")
    with backend.ledger(readonly=True) as ledger:
        assert ledger.tracks("ford") == truth
    assert INDEX not in indexes(backend)
    with backend.ledger() as ledger:
        ledger.record("ford", {"type": "note", "text": "after"})
        assert ledger.tracks("ford").combatants == truth.combatants
    assert INDEX in indexes(backend)
