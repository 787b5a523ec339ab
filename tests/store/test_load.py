"""Many tables under load on one PostgreSQL (#28, part 4): 64 writers on 64 encounters across 8
tenants append a few events a second each for a bounded time, while a follower of each tenant
and a `verify` run. Nothing is lost, duplicated or reordered (each encounter's seqs are 1..n and
its hashes chain), and each follower sees every event of its tenant once, in position order, and
none of another tenant's.

The writers are threads, each with a `Ledger` (and so a connection) of its own, spread over 4
forked processes: every writer holds its own transaction on the server, as 64 bots would, while
the client's work (validation, the fold, the chain) runs on more than one core; 64 processes
would cost 64 interpreters on a 2-core machine shared with others, to the same end."""

from __future__ import annotations

import itertools
import multiprocessing
import random
import threading
import time
from collections import defaultdict
from multiprocessing.queues import Queue

import pytest

from ledger import Ledger
from ledger.api import Followed
from tests.stores import PgBackend

CONTEXT = multiprocessing.get_context("fork")
TENANTS = tuple(f"guild:{n}" for n in range(8))
ENCOUNTERS = 64
PROCESSES = 4
#: Each writer's events a second, and for how long it writes.
RATE = 2.0
SECONDS = 12.0

#: (tenant, encounter, positions) of one writer: its opening, then each note in order.
Writes = tuple[str, str, list[int]]


def tenant_of(encounter: int) -> str:
    return TENANTS[encounter % len(TENANTS)]


def write_encounter(location: str, encounter: int, start: float) -> Writes:
    """Open encounter `encounter` in its tenant and note into it at RATE until SECONDS pass."""
    tenant, name = tenant_of(encounter), f"e{encounter:02d}"
    luck = random.Random(encounter)
    positions: list[int] = []
    with Ledger(location, tenant=tenant, pool_size=1) as book:
        positions.append(book.open(name, "ssss").position or 0)
        due = start + luck.uniform(0, 1 / RATE)
        n = 0
        while (now := time.monotonic()) < start + SECONDS:
            if now < due:
                time.sleep(due - now)
            written = book.record(name, {"type": "note", "text": f"{tenant}/{name}/{n}"})
            assert written.seq == n + 2
            positions.append(written.position or 0)
            n += 1
            due += luck.uniform(0.5, 1.5) / RATE
    return tenant, name, positions


def writer_process(
    location: str, encounters: list[int], start: float, out: Queue[list[object]]
) -> None:
    """Run a writer thread per encounter; put each one's writes (or its error) on `out`."""
    results: list[object] = []

    def run(encounter: int) -> None:
        try:
            results.append(write_encounter(location, encounter, start))
        except Exception as exc:  # the parent fails the test with it
            results.append(repr(exc))

    threads = [threading.Thread(target=run, args=(e,)) for e in encounters]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(results)


@pytest.mark.slow
def test_64_writers_in_8_tenants_lose_duplicate_and_reorder_nothing_while_followed_and_verified(
    pg_server: str,
) -> None:
    pg = PgBackend(pg_server)
    try:
        with pg.ledger() as book:  # the owner's first write makes the tables
            book.open("setup", "ssss")
        out: Queue[list[object]] = CONTEXT.Queue()
        start = time.monotonic() + 1.0
        processes = [
            CONTEXT.Process(
                target=writer_process,
                args=(pg.location, list(range(p, ENCOUNTERS, PROCESSES)), start, out),
            )
            for p in range(PROCESSES)
        ]
        for process in processes:  # forked before this process runs a thread
            process.start()

        expected: dict[str, int] = {}
        written = threading.Event()
        deadline = time.monotonic() + SECONDS + 90
        got: dict[str, list[Followed]] = {t: [] for t in TENANTS}

        def done(tenant: str) -> bool:
            if time.monotonic() > deadline:
                return True
            return written.is_set() and len(got[tenant]) >= expected[tenant]

        def follow(tenant: str) -> None:
            with Ledger(pg.location, tenant=tenant, readonly=True, pool_size=1) as mine:
                for followed in mine.follow(after=0, poll=0.05, stop=lambda: done(tenant)):
                    got[tenant].append(followed)
                    if done(tenant):
                        return

        verified: list[tuple[str, bool]] = []

        def verify() -> None:
            ledgers = [Ledger(pg.location, tenant=t, readonly=True, pool_size=1) for t in TENANTS]
            try:
                while not written.is_set():
                    for mine in ledgers:
                        verified.extend((mine.tenant, r.ok) for r in mine.verify())
            finally:
                for mine in ledgers:
                    mine.close()

        threads = [threading.Thread(target=follow, args=(t,)) for t in TENANTS]
        threads.append(threading.Thread(target=verify))
        for thread in threads:
            thread.start()
        results: list[object] = []
        for _ in processes:
            results.extend(out.get(timeout=SECONDS + 120))
        for process in processes:
            process.join(30)
        errors = [r for r in results if isinstance(r, str)]
        assert errors == []
        writes = [r for r in results if isinstance(r, tuple)]
        assert len(writes) == ENCOUNTERS
        by_tenant: dict[str, list[Writes]] = defaultdict(list)
        for tenant, name, positions in writes:
            by_tenant[tenant].append((tenant, name, positions))
        for tenant in TENANTS:
            expected[tenant] = sum(len(p) for _, _, p in by_tenant[tenant])
        written.set()
        for thread in threads:
            thread.join(SECONDS + 90)

        total = sum(len(p) for _, _, p in writes)
        assert total >= ENCOUNTERS * RATE * SECONDS * 0.5  # the load was the load asked for
        assert verified and all(ok for _, ok in verified)  # verify ran during it, and passed
        for tenant in TENANTS:
            seen = got[tenant]
            positions = [f.position for f in seen]
            # Every event of the tenant, once, in position order, and nothing else.
            assert positions == sorted({p for _, _, ps in by_tenant[tenant] for p in ps})
            names = {name for _, name, _ in by_tenant[tenant]}
            assert {f.encounter for f in seen} == names
            for _, name, own in by_tenant[tenant]:
                records = [f.record for f in seen if f.encounter == name]
                assert [r.seq for r in records] == list(range(1, len(own) + 1))
                assert [getattr(r.event, "text", None) for r in records[1:]] == [
                    f"{tenant}/{name}/{n}" for n in range(len(own) - 1)
                ]
                assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
            with Ledger(pg.location, tenant=tenant, readonly=True) as after:
                reports = after.verify()
                assert sorted(r.encounter for r in reports) == sorted(names)
                assert all(r.ok for r in reports)
                for _, name, positions in by_tenant[tenant]:
                    stored = [r.seq for r in after.records(name)]
                    assert stored == list(range(1, len(positions) + 1))
    finally:
        pg.close()
