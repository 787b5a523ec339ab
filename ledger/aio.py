"""The library's asyncio face: `AsyncLedger`, for a bot that serves many tables from one event
loop.

    from ledger import AsyncLedger
    async with AsyncLedger(url, tenant="guild:1234", pool_size=8) as ledger:
        await ledger.open("ford", system)  # a key of `ledger.systems.known()`
        written = await ledger.record("ford", {"type": "note", "text": "the ford floods"})
        async for followed in ledger.follow(after=written.position):
            ...

It is the threaded `Ledger` driven from a bounded executor: one worker thread per connection of
the ledger's pool (one for a ledger file), so an awaited call never blocks the event loop and
many tasks share few connections. The store's statements are not written a second time for
asyncio (the twin code #22 removed): an append is mostly CPU-bound Python (validation, the fold,
the chain) between a few statements, which a worker runs as the synchronous library does. A
follower waits on the loop itself: `LISTEN` on psycopg's `AsyncConnection` when the ledger was
opened with `notify`, else `asyncio.sleep` between polls; each read is a worker's.
docs/hosting.md says why, and what it costs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, Concatenate, Final, ParamSpec, TypeVar

from ledger import follow as following
from ledger.api import Ledger
from ledger.errors import BadInput
from ledger.follow import Followed
from ledger.store import (
    DEFAULT_DB,
    DEFAULT_TENANT,
    check_tenant,
    connections,
    is_postgres,
    now_utc,
)
from ledger.write import check_name

__all__ = ["AsyncLedger"]

P = ParamSpec("P")
R = TypeVar("R")

#: The longest a follower of positions waits between two looks at a fence that does not hold
#: yet (a write transaction still running below the last position given).
_SETTLE_MAX_S: Final = 0.05


def _threaded(
    method: Callable[Concatenate[Ledger, P], R],
) -> Callable[Concatenate[AsyncLedger, P], Coroutine[Any, Any, R]]:
    """`Ledger`'s method as a coroutine method of `AsyncLedger`, run by one of its workers."""

    async def call(self: AsyncLedger, /, *args: P.args, **kwargs: P.kwargs) -> R:
        ledger = await self.connect()
        return await self._run(functools.partial(method, ledger, *args, **kwargs))

    call.__name__ = method.__name__
    call.__qualname__ = f"AsyncLedger.{method.__name__}"
    call.__doc__ = f"Awaitable `Ledger.{method.__name__}`: {method.__doc__ or ''}"
    return call


class AsyncLedger:
    """One ledger file or PostgreSQL database for asyncio code: `Ledger`'s methods, awaitable.

    `pool_size` (PostgreSQL) is both the most connections it holds and the most calls that run
    at once; further calls queue until a worker is free. A ledger file has one connection and
    one worker. Bad input raises the same `LedgerError` as `Ledger`'s.

    A task cancelled during a call does not stop the call's worker mid-transaction: the
    cancellation waits until the write has committed or rolled back (a call still queued is
    dropped), so the store is never left half-written and `aclose` leaves nothing running.
    """

    def __init__(
        self,
        path: str | Path = DEFAULT_DB,
        clock: Any = now_utc,
        create: bool = True,
        readonly: bool = False,
        *,
        pool_size: int | None = None,
        user: str | None = None,
        tenant: str = DEFAULT_TENANT,
        notify: bool = False,
    ) -> None:
        """As `Ledger`'s (nothing is opened until it is entered, `connect`ed or first used)."""
        check_tenant(tenant)
        if user is not None:
            check_name(user, "user")
        self.location = path
        self.notify = notify
        #: The most calls that run at once: one per connection.
        self.workers = connections(path, pool_size, notify)
        self._options: dict[str, Any] = {
            "clock": clock,
            "create": create,
            "readonly": readonly,
            "pool_size": pool_size,
            "user": user,
            "tenant": tenant,
            "notify": notify,
        }
        self._tenant = tenant
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="ledger"
        )
        self._ledger: Ledger | None = None
        self._opening: asyncio.Lock | None = None
        self._closed = False

    @property
    def tenant(self) -> str:
        """The tenant whose encounters this ledger reads and writes."""
        return self._tenant

    @property
    def sync(self) -> Ledger | None:
        """The threaded `Ledger` underneath once connected (its calls block: run them in an
        executor)."""
        return self._ledger

    async def connect(self) -> Ledger:
        """Open the ledger (once; the first call of any method does it too)."""
        if self._ledger is not None:
            return self._ledger
        if self._closed:
            raise BadInput("this AsyncLedger is closed")
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._ledger is None:
                self._ledger = await self._run(
                    functools.partial(Ledger, self.location, **self._options)
                )
        return self._ledger

    async def __aenter__(self) -> AsyncLedger:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Wait for the calls running, then close the pool (or the file)."""
        if self._closed:
            return
        self._closed = True
        ledger = self._ledger

        def shut() -> None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            if ledger is not None:
                ledger.close()

        await asyncio.to_thread(shut)

    async def _run(self, call: Callable[[], R]) -> R:
        """`call()` on a worker; a cancellation waits for a running call to end."""
        try:
            future = self._executor.submit(call)
        except RuntimeError as exc:  # the executor was shut down
            raise BadInput("this AsyncLedger is closed") from exc
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not future.cancelled():  # it had started: its transaction ends as it ends
                await asyncio.wait([asyncio.wrap_future(future)])
            raise

    # The methods of `Ledger`, awaitable (docs/hosting.md lists them).

    open = _threaded(Ledger.open)
    join = _threaded(Ledger.join)
    record = _threaded(Ledger.record)
    undo = _threaded(Ledger.undo)
    redo = _threaded(Ledger.redo)
    amend = _threaded(Ledger.amend)
    rewind = _threaded(Ledger.rewind)
    repair = _threaded(Ledger.repair)
    commit_dice = _threaded(Ledger.commit_dice)
    reveal_dice = _threaded(Ledger.reveal_dice)
    propose = _threaded(Ledger.propose)
    accept = _threaded(Ledger.accept)
    reject = _threaded(Ledger.reject)
    add_gm = _threaded(Ledger.add_gm)
    set_policy = _threaded(Ledger.set_policy)
    erase = _threaded(Ledger.erase)
    erase_tenant = _threaded(Ledger.erase_tenant)
    import_lines = _threaded(Ledger.import_lines)
    encounters = _threaded(Ledger.encounters)
    records = _threaded(Ledger.records)
    tracks = _threaded(Ledger.tracks)
    round_tracks = _threaded(Ledger.round_tracks)
    audit = _threaded(Ledger.audit)
    acts = _threaded(Ledger.acts)
    verify = _threaded(Ledger.verify)
    stats = _threaded(Ledger.stats)
    dice = _threaded(Ledger.dice)
    problems = _threaded(Ledger.problems)
    wait_for = _threaded(Ledger.wait_for)
    rebuild_views = _threaded(Ledger.rebuild_views)
    drop_views = _threaded(Ledger.drop_views)

    async def export(self, encounter: str) -> list[str]:
        """`Ledger.export`'s JSON Lines, read whole by a worker (the synchronous iterator
        reads as it goes, which would block the loop)."""
        ledger = await self.connect()
        return await self._run(lambda: list(ledger.export(encounter)))

    async def follow(
        self,
        encounter: str | None = None,
        *,
        after: int = 0,
        tenant: str | None = None,
        encounters: Iterable[str] | None = None,
        poll: float = 0.2,
    ) -> AsyncGenerator[Followed, None]:
        """`Ledger.follow` as an async iterator (`async for followed in ledger.follow(...)`):
        of one `encounter` after seq `after`, or of the tenant's events (or of `encounters`)
        after position `after`, each once and in order, waiting in the loop between appends
        (woken by `NOTIFY` when the ledger was opened with `notify`); bad input is raised by
        the first step. It ends when the task stops iterating (break, or cancellation)."""
        ledger = await self.connect()
        if encounter is not None:
            if tenant is not None or encounters is not None:
                raise BadInput("follow takes one encounter, or a tenant and its encounters")
            system = await self._run(
                lambda: following.followed_system(ledger.store, encounter, after, poll)
            )
            seen = after
            while True:
                page = await self._run(
                    functools.partial(
                        following.encounter_page, ledger.store, encounter, system, seen
                    )
                )
                if not page:
                    await asyncio.sleep(poll)
                    continue
                for followed in page:
                    yield followed
                seen = page[-1].seq
        store = ledger.store if tenant is None else ledger.store.scoped(check_tenant(tenant))
        wanted = await self._run(
            lambda: following.followed_encounters(store, after, encounters, poll)
        )
        wait, close = await self._waiter(store.tenant)
        try:
            kinds: dict[str, str] = {}
            seen, settle = after, 0.005
            while True:
                mark = await self._run(lambda: store.high_water(_no_wait, 0.0, None))
                if mark is None:  # a transaction below the last position still runs
                    await asyncio.sleep(settle)
                    settle = min(settle * 2, _SETTLE_MAX_S)
                    continue
                settle = 0.005
                if mark <= seen:
                    await wait(poll)
                    continue
                while seen < mark:
                    handed, seen = await self._run(
                        functools.partial(following.position_page, store, seen, mark, wanted, kinds)
                    )
                    for followed in handed:
                        yield followed
        finally:
            await close()

    async def _waiter(
        self, tenant: str
    ) -> tuple[Callable[[float], Awaitable[None]], Callable[[], Awaitable[None]]]:
        """How a follower waits for the next append, and how its wait is closed: `LISTEN` on an
        `AsyncConnection` of its own with `notify`, else a sleep."""
        if not (self.notify and is_postgres(self.location)):
            return asyncio.sleep, _nothing
        # psycopg is an optional backend (`pip install 'encounter-ledger[postgres]'`), loaded
        # only for a PostgreSQL URL (as the synchronous store loads it).
        from ledger.store.postgres import AsyncListener

        listener = await AsyncListener.listen(str(self.location), tenant)
        return listener.wait, listener.close


def _no_wait(seconds: float) -> None:
    """The fence is asked once per step; the event loop does the waiting."""


async def _nothing() -> None:
    """Nothing to close."""
