"""Reads that compare the heads cache with the rows see one snapshot: `verify` and `audit`
never report a chain broken while another process appends."""

from __future__ import annotations

import multiprocessing
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from ledger import Ledger

pytestmark = pytest.mark.slow

CONTEXT = multiprocessing.get_context("fork")


def appender(db: str, started: Event, stop: Event) -> None:
    with Ledger(db) as ledger:
        n = 0
        while not stop.is_set() and n < 2000:
            ledger.record("brawl", {"type": "note", "text": f"round {n}"})
            n += 1
            started.set()


def test_verify_and_audit_while_another_process_appends_never_see_a_broken_chain(
    db: Path,
) -> None:
    with Ledger(db) as ledger:
        ledger.open("brawl", "ssss")
        ledger.join("brawl", "Thug", "adversary", {"level": 2})
    started, stop = CONTEXT.Event(), CONTEXT.Event()
    writer = CONTEXT.Process(target=appender, args=(str(db), started, stop))
    writer.start()
    try:
        assert started.wait(30)
        with Ledger(db, readonly=True) as reader:
            for _ in range(60):
                [report] = reader.verify()
                assert report.ok and report.cache is None, report
                assert not [f for f in reader.audit("brawl") if f.rule == "chain-broken"]
    finally:
        stop.set()
        writer.join(60)
    assert writer.exitcode == 0
