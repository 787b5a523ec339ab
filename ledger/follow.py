"""Following: each event as it is appended, by any writer or process.

`follow` is the one subscription of the library, in two forms. Of one encounter, by seq:
`encounter watch` and `encounter serve` read through it; it polls the encounter's head (one
indexed row) and reads the rows after the last seq it handed out, so it wakes within one `poll`
of an append and never misses, repeats or reorders an event (seqs are gapless and an append is
one transaction). Of a tenant, by position (`follow_positions`): every event of the tenant's
encounters (or of some of them) in the order of its global `position`, up to the store's
high-water mark: a position is given before its transaction commits, so a follower never reads
past one that may still appear (`SqlStore.high_water`), and never takes a lock a writer waits
for. On PostgreSQL a ledger opened with `notify` wakes its followers at each append; polling
stays the truth.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ledger import events, systems
from ledger.errors import BadInput
from ledger.store import Row, chain
from ledger.store.sql import SqlStore

#: Rows read per statement by a follower of positions.
PAGE = 1000


@dataclass(frozen=True, slots=True)
class Followed:
    """One event a follower is handed: its encounter, its seq and the event as stored."""

    encounter: str
    seq: int
    record: events.Recorded
    #: Its place in the commit order of the whole store, across encounters (a hosted store's;
    #: None where the store keeps none).
    position: int | None = None

    @property
    def event(self) -> events.EventBase:
        """The event itself."""
        return self.record.event


def follow(
    store: SqlStore,
    encounter: str,
    *,
    after: int = 0,
    poll: float = 0.2,
    stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Followed]:
    """Each event of `encounter` after seq `after`, in seq order, as it is appended: the ones
    stored already first, then each new one within `poll` seconds of its commit. The iterator
    ends when `stop()` is true (asked between polls), never on its own."""
    if not isinstance(after, int) or isinstance(after, bool) or after < 0:
        raise BadInput(f"follow starts after a seq (a whole number from 0), not {after!r}")
    if not isinstance(poll, int | float) or not 0 < poll <= 60:
        raise BadInput(f"follow polls every 0-60 seconds, not {poll!r}")
    head = store.readable(encounter)
    if after > head.seq:
        raise BadInput(
            f"encounter {encounter!r} is at seq {head.seq}: there is no seq {after} to follow from"
        )
    return _followed(store, encounter, head.system, after, poll, stop, sleep)


def _followed(
    store: SqlStore,
    encounter: str,
    system: str,
    seen: int,
    poll: float,
    stop: Callable[[], bool] | None,
    sleep: Callable[[float], None],
) -> Iterator[Followed]:
    while stop is None or not stop():
        head = store.head(encounter)
        top = head.seq if head is not None else seen
        if top <= seen:
            sleep(poll)
            continue
        for row in store.rows(encounter, seen, top):
            record = systems.from_row(row, system)
            yield Followed(encounter, record.seq, record)
            seen = record.seq


def follow_positions(
    store: SqlStore,
    *,
    after: int = 0,
    encounters: Iterable[str] | None = None,
    poll: float = 0.2,
    stop: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Followed]:
    """Each event of the store's tenant after position `after` (of `encounters` only, when
    given), in position order, as it is committed: the ones stored already first, then each
    new one within about `poll` seconds (sooner when the store wakes its followers). No event is
    missed, repeated or reordered; each encounter's come in seq order. The iterator ends when
    `stop()` is true (asked between polls), never on its own."""
    if not isinstance(after, int) or isinstance(after, bool) or after < 0:
        raise BadInput(f"follow starts after a position (a whole number from 0), not {after!r}")
    if not isinstance(poll, int | float) or not 0 < poll <= 60:
        raise BadInput(f"follow polls every 0-60 seconds, not {poll!r}")
    wanted = None
    if encounters is not None:
        if isinstance(encounters, str):
            raise BadInput("encounters is a list of names, not one name")
        wanted = frozenset(encounters)
        for name in wanted:
            store.require(name)
    return _by_position(store, after, wanted, poll, stop, sleep)


def _by_position(
    store: SqlStore,
    seen: int,
    wanted: frozenset[str] | None,
    poll: float,
    stop: Callable[[], bool] | None,
    sleep: Callable[[float], None],
) -> Iterator[Followed]:
    kinds: dict[str, str] = {}
    wait = store.waiter(sleep)
    while stop is None or not stop():
        mark = store.high_water(sleep, poll, stop)
        if mark is None or mark <= seen:
            wait(poll)
            continue
        while seen < mark:
            page = store.following(seen, mark, PAGE)
            for position, row in page:
                seen = position
                # An erased event has nothing to hand on: its position passes.
                if (wanted is None or row.encounter in wanted) and row.body != chain.ERASED:
                    yield _handed(store, kinds, position, row)
            if len(page) < PAGE:
                seen = mark  # every row of the tenant up to the mark is read
        # The rows of other tenants between count too: the mark is the store's.


def _handed(store: SqlStore, kinds: dict[str, str], position: int, row: Row) -> Followed:
    """A stored row as a follower is handed it (its encounter's system looked up once)."""
    system = kinds.get(row.encounter)
    if system is None:
        system = kinds[row.encounter] = store.require(row.encounter).system
    record = systems.from_row(row, system)
    return Followed(row.encounter, record.seq, record, position)
