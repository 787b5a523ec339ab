"""Following a tenant by global position (#28), on both stores: every event of the tenant once,
in position order (each encounter's in seq order), none of another tenant's, while writers of
several tenants append; on PostgreSQL a position whose transaction is still open holds the
follower back rather than being passed, and NOTIFY wakes a follower at once."""

from __future__ import annotations

import threading
import time

import pytest

from ledger import Conflict, Ledger
from ledger.api import Followed
from ledger.store import chain
from tests.stores import Backend

TENANTS = ("a", "b")
NOTES = 15


def test_each_tenant_s_follower_sees_its_events_once_in_order_while_all_write(
    backend: Backend,
) -> None:
    for tenant in TENANTS:
        with backend.ledger(tenant=tenant) as book:
            for name in ("e1", "e2"):
                book.open(name, "ssss")

    def write(tenant: str, name: str) -> None:
        with backend.ledger(tenant=tenant) as book:
            for i in range(NOTES):
                book.record(name, {"type": "note", "text": f"{tenant}/{name}/{i}"})

    got: dict[str, list[Followed]] = {t: [] for t in TENANTS}

    def follow(tenant: str) -> None:
        with backend.ledger(tenant=tenant, readonly=True) as book:
            for followed in book.follow(after=0, poll=0.01):
                got[tenant].append(followed)
                if len(got[tenant]) == 2 * (NOTES + 1):
                    return

    threads = [threading.Thread(target=follow, args=(t,)) for t in TENANTS]
    threads += [threading.Thread(target=write, args=(t, n)) for t in TENANTS for n in ("e1", "e2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for tenant in TENANTS:
        seen = got[tenant]
        positions = [f.position or 0 for f in seen]
        assert positions == sorted(positions) and len(set(positions)) == len(seen) == 32
        for name in ("e1", "e2"):
            mine = [f for f in seen if f.encounter == name]
            assert [f.seq for f in mine] == list(range(1, NOTES + 2))
        texts = [getattr(f.event, "text", "") for f in seen]
        assert all(t.startswith(f"{tenant}/") for t in texts if t)


def test_a_follower_of_some_encounters_sees_only_theirs(backend: Backend) -> None:
    with backend.ledger(tenant="a") as book:
        for name in ("e1", "e2", "e3"):
            book.open(name, "ssss")
            book.record(name, {"type": "note", "text": name})
        follower = book.follow(after=0, encounters=["e1", "e3"], poll=0.01)
        got = [(f.encounter, f.seq) for f in (next(follower) for _ in range(4))]
    assert got == [("e1", 1), ("e1", 2), ("e3", 1), ("e3", 2)]


def test_a_read_at_least_a_position_the_ledger_lacks_is_a_behind_conflict(
    backend: Backend,
) -> None:
    with backend.ledger() as book:
        written = book.open("ford", "ssss")
        assert written.position is not None
        assert book.tracks("ford", at_least=written.position).seq == 1
        with pytest.raises(Conflict, match="read the primary") as caught:
            book.wait_for(written.position + 1000, timeout=0.05)
    assert caught.value.code == "behind"


def test_a_follower_waits_at_an_open_transaction_s_position_instead_of_passing_it(
    pg_server: str,
) -> None:
    from tests.stores import PgBackend

    pg = PgBackend(pg_server)
    try:
        with pg.ledger() as book:
            book.open("slow", "ssss")
            book.open("fast", "ssss")
        inserted, release = threading.Event(), threading.Event()

        def slow() -> None:
            with pg.ledger() as book, book.store.begin("slow") as txn:
                txn.append("note", chain.canonical({"text": "slow"}))
                txn.flush()  # its position is taken, its transaction still open
                inserted.set()
                release.wait(10)

        writer = threading.Thread(target=slow)
        writer.start()
        assert inserted.wait(10)
        with pg.ledger() as book:
            fast = book.record("fast", {"type": "note", "text": "fast"})
            got: list[Followed] = []
            follower = book.follow(after=2, poll=0.01)

            def follow() -> None:
                got.extend(next(follower) for _ in range(2))

            reader = threading.Thread(target=follow)
            reader.start()
            time.sleep(0.5)
            assert got == []  # the fast event's position is past the open one: held back
            release.set()
            writer.join(10)
            reader.join(10)
        assert [(f.encounter, f.seq) for f in got] == [("slow", 2), ("fast", 2)]
        assert fast.position is not None and got[1].position == fast.position
        assert got[0].position == fast.position - 1
    finally:
        pg.close()


def test_notify_wakes_a_postgresql_follower_before_its_poll(pg_server: str) -> None:
    from tests.stores import PgBackend

    pg = PgBackend(pg_server)
    try:
        with Ledger(pg.location, notify=True) as book:
            book.open("ford", "ssss")
            follower = book.follow(after=1, poll=30)
            woke: list[float] = []

            def follow() -> None:
                next(follower)
                woke.append(time.monotonic())

            reader = threading.Thread(target=follow)
            reader.start()
            time.sleep(0.3)
            appended = time.monotonic()
            book.record("ford", {"type": "note", "text": "wake up"})
            reader.join(10)
        assert woke and woke[0] - appended < 5  # far sooner than the 30 s poll
    finally:
        pg.close()
