"""Concurrent writers, in real processes: nothing lost, duplicated or reordered; stale writers
get a conflict, never a silent merge."""

from __future__ import annotations

import multiprocessing
import subprocess
from collections import Counter
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from ledger import Conflict, Ledger
from tests.longstreams import cli_env, command, encounter
from tests.stores import Backend

pytestmark = pytest.mark.slow

API_WRITERS, API_EVENTS = 4, 250
CLI_WRITERS, CLI_RUNS = 4, 10
#: Processes are forked: the parent holds no open connection when it forks.
CONTEXT = multiprocessing.get_context("fork")


def open_brawl(db: str | Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("brawl", "ssss", title="Tavern brawl")
        ledger.join("brawl", "Hero", "player")
        ledger.join("brawl", "Thug", "adversary", {"level": 2})


def api_writer(db: str, writer: int, start: Barrier) -> None:
    start.wait()
    with Ledger(db) as ledger:
        for n in range(API_EVENTS):
            if n % 5 == 0:
                event = {"type": "throw.made", "actor": "Hero", "attribute": "swords"}
                ledger.record("brawl", {**event, "outcome": f"api {writer}.{n}"})
            else:
                ledger.record("brawl", {"type": "note", "text": f"api {writer}.{n}"})


def cli_writer(db: str, writer: int, start: Barrier) -> None:
    start.wait()
    for n in range(CLI_RUNS):
        done = subprocess.run(
            command(db, ["record", "brawl", "note", f"text=cli {writer}.{n}"]),
            capture_output=True,
            text=True,
            env=cli_env(),
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"cli writer {writer} run {n}: {done.returncode} {done.stderr}")


def test_eight_processes_writing_at_once_store_every_event_once_in_gapless_order(
    db: Path,
) -> None:
    # PostgreSQL's run of this contract is test_pgstore's eight writers on four encounters.
    open_brawl(db)
    start = CONTEXT.Barrier(API_WRITERS + CLI_WRITERS)
    workers = [
        CONTEXT.Process(target=api_writer, args=(str(db), w, start)) for w in range(API_WRITERS)
    ] + [CONTEXT.Process(target=cli_writer, args=(str(db), w, start)) for w in range(CLI_WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert [w.exitcode for w in workers] == [0] * len(workers)

    with Ledger(db) as ledger:
        records = ledger.records("brawl")
        written = [
            getattr(r.event, "text", None) or getattr(r.event, "outcome", None) for r in records[3:]
        ]
        expected = [f"api {w}.{n}" for w in range(API_WRITERS) for n in range(API_EVENTS)] + [
            f"cli {w}.{n}" for w in range(CLI_WRITERS) for n in range(CLI_RUNS)
        ]
        assert Counter(written) == Counter(expected)
        assert [r.seq for r in records] == list(range(1, 3 + len(expected) + 1))
        assert len({r.id for r in records}) == len(records)
        # Each writer's own events keep their order.
        for w in range(API_WRITERS):
            mine = [t for t in written if isinstance(t, str) and t.startswith(f"api {w}.")]
            assert mine == [f"api {w}.{n}" for n in range(API_EVENTS)]
        [report] = ledger.verify("brawl")
        assert report.ok and report.events == len(records)
        assert ledger.store.require("brawl").seq == len(records)
        assert len(ledger.tracks("brawl").rolls) == API_WRITERS * API_EVENTS // 5
    assert encounter(db, "verify").returncode == 0


def racer(db: str, expect: int, start: Barrier, results: Queue[str]) -> None:
    with Ledger(db) as ledger:
        start.wait()
        try:
            ledger.record(
                "brawl", {"type": "harm.inflicted", "target": "Thug", "level": 1}, expect=expect
            )
        except Conflict as exc:
            results.put(f"conflict: {exc}")
        else:
            results.put("won")


def test_of_two_writers_expecting_the_same_seq_exactly_one_wins(backend: Backend) -> None:
    db = backend.location
    open_brawl(db)
    for round_ in range(5):
        expect = 3 + round_
        start = CONTEXT.Barrier(2)
        results: Queue[str] = CONTEXT.Queue()
        racers = [
            CONTEXT.Process(target=racer, args=(db, expect, start, results)) for _ in range(2)
        ]
        for r in racers:
            r.start()
        outcomes = sorted(results.get(timeout=60) for _ in racers)
        for r in racers:
            r.join(timeout=60)
        assert outcomes[1] == "won"
        assert outcomes[0].startswith(
            f"conflict: encounter 'brawl' is at seq {expect + 1}, not {expect}"
        )
    with Ledger(db) as ledger:
        assert ledger.store.require("brawl").seq == 3 + 5
        slots = ledger.tracks("brawl").view()["combatants"]["Thug"]["slots"]
        assert slots["1"]["filled"] == 3 and slots["2"]["filled"] == 2


def test_of_two_commands_expecting_the_same_seq_one_exits_0_and_the_other_3(
    backend: Backend,
) -> None:
    db = backend.location
    open_brawl(db)
    args = ["record", "brawl", "note", "text=first!", "--expect", "3"]
    procs = [
        subprocess.Popen(
            command(db, args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        for _ in range(2)
    ]
    finished = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in finished)
    assert codes == [0, 3]
    loser = next(err for code, _, err in finished if code == 3)
    assert loser.splitlines() == [
        "Error: encounter 'brawl' is at seq 4, not 3: another writer appended first; "
        "re-read and try again"
    ]
    with Ledger(db) as ledger:
        assert [r.type for r in ledger.records("brawl")][-1] == "note"
        assert ledger.store.require("brawl").seq == 4
