"""`AsyncLedger` (#28): the library's asyncio face, on both stores. Its calls run on workers of a
bounded executor over the threaded `Ledger`; a follower waits in the event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncGenerator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from ledger import AsyncLedger, BadInput, Ledger, LedgerError, UnknownName
from ledger.api import Followed
from tests.stores import Backend


async def next_of(stream: AsyncGenerator[Followed, None]) -> Followed:
    """The follower's next event (a coroutine, for a task of its own)."""
    return await anext(stream)


def test_records_and_reads_round_trip_through_the_async_face(backend: Backend) -> None:
    async def scene() -> tuple[Any, ...]:
        async with AsyncLedger(backend.location, tenant="guild:1") as ledger:
            await ledger.open("ford", "ssss", title="Bandits at the ford")
            await ledger.join("ford", "Bandit", "adversary", {"level": 2})
            written = await ledger.record("ford", {"type": "note", "text": "the ford floods"})
            undone = await ledger.undo("ford", reason="misheard")
            heads = await ledger.encounters()
            records = await ledger.records("ford")
            tracks = await ledger.tracks("ford")
            reports = await ledger.verify()
            lines = await ledger.export("ford")
            return written, undone, heads, records, tracks, reports, lines

    written, undone, heads, records, tracks, reports, lines = asyncio.run(scene())
    assert written.seq == 3 and written.position is not None
    assert [h.encounter for h in heads] == ["ford"] and heads[0].title == "Bandits at the ford"
    kinds = ["encounter.opened", "combatant.joined", "note", "event.retracted"]
    assert [r.type for r in records] == kinds
    assert getattr(undone.records[0].event, "target", None) == 3
    assert list(tracks.view()["combatants"]) == ["Bandit"]
    assert [r.ok for r in reports] == [True] and len(lines) == 4
    with Ledger(backend.location, tenant="guild:1") as same:
        assert [r.type for r in same.records("ford")] == [r.type for r in records]


def test_many_tasks_on_many_encounters_lose_and_duplicate_nothing(backend: Backend) -> None:
    names = [f"e{n}" for n in range(12)]

    async def load() -> None:
        async with AsyncLedger(backend.location, tenant="t") as ledger:
            await asyncio.gather(*(ledger.open(name, "ssss") for name in names))

            async def writer(name: str, part: int) -> None:
                for n in range(5):
                    await ledger.record(name, {"type": "note", "text": f"{name}/{part}/{n}"})

            await asyncio.gather(*(writer(name, part) for name in names for part in range(3)))

    asyncio.run(load())
    with Ledger(backend.location, tenant="t") as ledger:
        assert all(r.ok for r in ledger.verify())
        for name in names:
            texts = [getattr(r.event, "text", None) for r in ledger.records(name)[1:]]
            expected = {f"{name}/{part}/{n}" for part in range(3) for n in range(5)}
            assert len(texts) == 15 and set(texts) == expected
            # Each task's own notes keep their order.
            for part in range(3):
                mine = [t for t in texts if t is not None and t.startswith(f"{name}/{part}/")]
                assert mine == [f"{name}/{part}/{n}" for n in range(5)]


def test_follow_yields_each_event_of_the_tenant_once_in_order(backend: Backend) -> None:
    async def scene() -> tuple[list[Followed], int]:
        async with (
            AsyncLedger(backend.location, tenant="a") as ledger,
            AsyncLedger(backend.location, tenant="b") as other,
        ):
            await ledger.open("ford", "ssss")
            await ledger.open("keep", "ssss")
            start = (await ledger.record("ford", {"type": "note", "text": "before"})).position
            assert start is not None
            await other.open("ford", "ssss")
            seen: list[Followed] = []

            async def follower() -> None:
                async for followed in ledger.follow(after=start, poll=0.05):
                    seen.append(followed)
                    if len(seen) == 20:
                        return

            task = asyncio.create_task(follower())

            async def writer(name: str) -> None:
                for n in range(10):
                    await ledger.record(name, {"type": "note", "text": f"{name} {n}"})
                    await other.record("ford", {"type": "note", "text": f"b {n}"})

            await asyncio.gather(writer("ford"), writer("keep"))
            await asyncio.wait_for(task, timeout=20)
            return seen, start

    seen, start = asyncio.run(scene())
    positions = [f.position or 0 for f in seen]
    assert positions == sorted(set(positions)) and positions[0] > start
    for name, first in (("ford", 3), ("keep", 2)):  # ford's seq 2 is before the follow
        mine = [f for f in seen if f.encounter == name]
        assert [f.seq for f in mine] == list(range(first, first + 10))
        assert [getattr(f.event, "text", None) for f in mine] == [f"{name} {n}" for n in range(10)]


def test_follow_of_one_encounter_yields_its_events_after_a_seq(backend: Backend) -> None:
    async def scene() -> list[int]:
        async with AsyncLedger(backend.location) as ledger:
            await ledger.open("ford", "ssss")
            await ledger.record("ford", {"type": "note", "text": "one"})
            stream = ledger.follow("ford", after=1, poll=0.02)
            first = await anext(stream)
            later = asyncio.create_task(next_of(stream))
            await ledger.record("ford", {"type": "note", "text": "two"})
            second = await asyncio.wait_for(later, timeout=5)
            await stream.aclose()
            return [first.seq, second.seq]

    assert asyncio.run(scene()) == [2, 3]


def test_follow_of_positions_wakes_on_notify_long_before_its_poll(pg_server: str) -> None:
    from tests.stores import PgBackend

    backend = PgBackend(pg_server)

    async def scene() -> float:
        async with AsyncLedger(backend.location, notify=True) as ledger:
            await ledger.open("ford", "ssss")
            stream = ledger.follow(after=0, poll=30)
            assert (await anext(stream)).seq == 1
            waiting = asyncio.create_task(next_of(stream))
            await asyncio.sleep(0.3)  # the follower is in its 30 s wait now
            began = time.monotonic()
            await ledger.record("ford", {"type": "note", "text": "wake up"})
            woken = await asyncio.wait_for(waiting, timeout=5)
            assert woken.seq == 2
            await stream.aclose()
            return time.monotonic() - began

    try:
        assert asyncio.run(scene()) < 2
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("record", ("ford", {"type": "no.such.event"})),
        ("record", ("nowhere", {"type": "note", "text": "x"})),
        ("undo", ("ford",)),
        ("open", ("ford", "ssss")),
        ("tracks", ("nowhere",)),
    ],
)
def test_bad_input_raises_the_same_ledger_error_as_the_sync_face(
    backend: Backend, call: str, args: tuple[Any, ...]
) -> None:
    options = {"reason": ""} if call == "undo" else {}
    with Ledger(backend.location) as ledger:
        ledger.open("ford", "ssss")
        with pytest.raises(LedgerError) as sync:
            getattr(ledger, call)(*args, **options)

    async def scene() -> None:
        async with AsyncLedger(backend.location) as ledger:
            await getattr(ledger, call)(*args, **options)

    with pytest.raises(LedgerError) as async_:
        asyncio.run(scene())
    assert type(async_.value) is type(sync.value) and str(async_.value) == str(sync.value)


def test_a_bad_option_is_refused_before_anything_is_opened(tmp_path: Any) -> None:
    with pytest.raises(BadInput, match="pool_size is for a PostgreSQL ledger"):
        AsyncLedger(tmp_path / "x.db", pool_size=4)
    with pytest.raises(BadInput, match="a tenant is named by"):
        AsyncLedger(tmp_path / "x.db", tenant="no spaces")
    with pytest.raises(UnknownName):
        asyncio.run(AsyncLedger(tmp_path / "x.db", create=False).connect())


class HeldClock:
    """A clock that, once armed, holds the write that reads it until released."""

    def __init__(self) -> None:
        self.armed = False
        self.inside = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> datetime:
        if self.armed:
            self.inside.set()
            self.release.wait(10)
        return datetime.now(UTC)


def test_a_task_cancelled_mid_append_leaves_the_store_consistent(backend: Backend) -> None:
    clock = HeldClock()

    async def scene() -> bool:
        async with AsyncLedger(backend.location, clock=clock) as ledger:
            await ledger.open("ford", "ssss")
            clock.armed = True
            task = asyncio.create_task(ledger.record("ford", {"type": "note", "text": "mid"}))
            await asyncio.to_thread(clock.inside.wait, 10)  # inside its transaction now
            task.cancel()
            await asyncio.sleep(0.05)
            done_early = task.done()  # the cancellation waits for the transaction to end
            clock.armed = False
            clock.release.set()
            with pytest.raises(asyncio.CancelledError):
                await task
            after = await ledger.record("ford", {"type": "note", "text": "after"})
            assert after.seq in (2, 3)
            return done_early

    assert asyncio.run(scene()) is False
    with Ledger(backend.location) as ledger:
        assert [r.ok for r in ledger.verify()] == [True]
        texts = [getattr(r.event, "text", None) for r in ledger.records("ford")[1:]]
        assert texts in (["mid", "after"], ["after"])


def test_a_call_cancelled_while_queued_never_runs(db: Any) -> None:
    clock = HeldClock()

    async def scene() -> None:
        async with AsyncLedger(db, clock=clock) as ledger:  # a file: one worker
            await ledger.open("ford", "ssss")
            clock.armed = True
            first = asyncio.create_task(ledger.record("ford", {"type": "note", "text": "one"}))
            await asyncio.to_thread(clock.inside.wait, 10)
            queued = asyncio.create_task(ledger.record("ford", {"type": "note", "text": "two"}))
            await asyncio.sleep(0.02)
            queued.cancel()
            clock.armed = False
            clock.release.set()
            await first
            with pytest.raises(asyncio.CancelledError):
                await queued

    asyncio.run(scene())
    with Ledger(db) as ledger:
        assert [getattr(r.event, "text", None) for r in ledger.records("ford")[1:]] == ["one"]


def test_the_event_loop_runs_while_an_append_waits_on_the_store(backend: Backend) -> None:
    clock = HeldClock()
    ticks: list[float] = []

    async def scene() -> None:
        async with AsyncLedger(backend.location, clock=clock) as ledger:
            await ledger.open("ford", "ssss")
            clock.armed = True
            task = asyncio.create_task(ledger.record("ford", {"type": "note", "text": "slow"}))
            await asyncio.to_thread(clock.inside.wait, 10)
            for _ in range(5):
                ticks.append(time.monotonic())
                await asyncio.sleep(0.01)
            clock.armed = False
            clock.release.set()
            await task

    asyncio.run(scene())
    assert len(ticks) == 5 and ticks[-1] - ticks[0] < 1


def test_a_closed_async_ledger_refuses_calls(db: Any) -> None:
    async def scene() -> Callable[[], Any]:
        ledger = AsyncLedger(db)
        await ledger.open("ford", "ssss")
        await ledger.aclose()
        return lambda: ledger.tracks("ford")

    call = asyncio.run(scene())
    with pytest.raises(BadInput, match="closed"):
        asyncio.run(call())
