"""The write transaction (`SqlStore.begin`): rows in, rows out, the same on SQLite and
PostgreSQL; what it appended is read back from memory before it commits."""

from __future__ import annotations

import pytest

import ledger as library
from ledger import BadInput, Conflict, Ledger, api, events, systems
from ledger.store import chain


def note(text: str) -> events.Event:
    return systems.parse({"type": "note", "text": text}, "ssss")


def body(text: str) -> str:
    return chain.canonical(events.body_of(note(text)))


def opened(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Guard", "adversary", {"level": 1})


def test_a_transaction_reads_what_it_appended_before_it_commits(ledger: Ledger) -> None:
    opened(ledger)
    with ledger.store.begin("ford", expect=2) as txn:
        first = txn.append("note", body("one"))
        second = txn.append("note", body("two"))
        assert (first.seq, second.seq, second.prev_hash) == (3, 4, first.hash)
        assert [r.seq for r in txn.rows(1)] == [2, 3, 4]
        assert txn.by_id(second.id) == second
        assert [s for s, _ in txn.seqs_from_head()][:3] == [4, 3, 2]
    head = ledger.store.require("ford")
    assert (head.seq, head.hash) == (4, second.hash)
    assert [r.event for r in ledger.records("ford")[2:]] == [note("one"), note("two")]


def test_a_discarded_transaction_appends_nothing_and_leaves_the_head(ledger: Ledger) -> None:
    opened(ledger)
    before = ledger.store.require("ford")
    with ledger.store.begin("ford") as txn:
        txn.append("note", body("never"))
        txn.discard()
    assert ledger.store.require("ford") == before
    assert len(ledger.records("ford")) == 2


def test_an_error_inside_a_transaction_rolls_back_the_whole_batch(ledger: Ledger) -> None:
    opened(ledger)
    with pytest.raises(BadInput), ledger.store.begin("ford") as txn:
        for n in range(3000):  # past one insert batch: some rows are in the database already
            txn.append("note", body(f"line {n}"))
        raise BadInput("the last line was bad")
    assert ledger.store.require("ford").seq == 2
    assert len(ledger.records("ford")) == 2


def test_a_stale_expect_is_a_conflict_before_the_block_runs(ledger: Ledger) -> None:
    opened(ledger)
    with pytest.raises(Conflict, match="is at seq 2, not 1"), ledger.store.begin("ford", 1):
        raise AssertionError("the block must not run")


def test_the_write_result_is_written_and_its_old_name_still_works_with_a_warning() -> None:
    assert library.Written is api.Written
    with pytest.deprecated_call(match="ledger.Written"):
        assert library.Recorded is api.Written
