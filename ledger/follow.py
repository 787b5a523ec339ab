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

import itertools
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
    system = followed_system(store, encounter, after, poll)
    return _followed(store, encounter, system, after, poll, stop, sleep)


def followed_system(store: SqlStore, encounter: str, after: int, poll: float) -> str:
    """The system of an encounter to follow from seq `after`, or bad input saying what is
    wrong with the follow (the synchronous and the asyncio followers ask the same)."""
    if not isinstance(after, int) or isinstance(after, bool) or after < 0:
        raise BadInput(f"follow starts after a seq (a whole number from 0), not {after!r}")
    _check_poll(poll)
    head = store.readable(encounter)
    if after > head.seq:
        raise BadInput(
            f"encounter {encounter!r} is at seq {head.seq}: there is no seq {after} to follow from"
        )
    return head.system


def _check_poll(poll: object) -> None:
    if not isinstance(poll, int | float) or not 0 < poll <= 60:
        raise BadInput(f"follow polls every 0-60 seconds, not {poll!r}")


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
        page = encounter_page(store, encounter, system, seen)
        if not page:
            sleep(poll)
            continue
        yield from page
        seen = page[-1].seq


def encounter_page(store: SqlStore, encounter: str, system: str, seen: int) -> list[Followed]:
    """The next events of `encounter` after seq `seen` (at most a page; none: nothing new)."""
    head = store.head(encounter)
    top = head.seq if head is not None else seen
    if top <= seen:
        return []
    rows = itertools.islice(store.rows(encounter, seen, top), PAGE)
    handed = []
    for row in rows:
        record = systems.from_row(row, system)
        handed.append(Followed(encounter, record.seq, record))
    return handed


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
    wanted = followed_encounters(store, after, encounters, poll)
    return _by_position(store, after, wanted, poll, stop, sleep)


def followed_encounters(
    store: SqlStore, after: int, encounters: Iterable[str] | None, poll: float
) -> frozenset[str] | None:
    """The encounters a follower of positions wants (None: all of the tenant's), or bad input
    saying what is wrong with the follow."""
    if not isinstance(after, int) or isinstance(after, bool) or after < 0:
        raise BadInput(f"follow starts after a position (a whole number from 0), not {after!r}")
    _check_poll(poll)
    if encounters is None:
        return None
    if isinstance(encounters, str):
        raise BadInput("encounters is a list of names, not one name")
    wanted = frozenset(encounters)
    for name in wanted:
        store.require(name)
    return wanted


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
            handed, seen = position_page(store, seen, mark, wanted, kinds)
            yield from handed
        # The rows of other tenants between count too: the mark is the store's.


def position_page(
    store: SqlStore, seen: int, mark: int, wanted: frozenset[str] | None, kinds: dict[str, str]
) -> tuple[list[Followed], int]:
    """The events of the tenant after position `seen` up to the high-water mark `mark` (at
    most a page), and the position to go on from (`mark` once every row up to it is read)."""
    page = store.following(seen, mark, PAGE)
    handed = []
    for position, row in page:
        seen = position
        # An erased event has nothing to hand on: its position passes.
        if (wanted is None or row.encounter in wanted) and row.body != chain.ERASED:
            handed.append(_handed(store, kinds, position, row))
    if len(page) < PAGE:
        seen = mark  # every row of the tenant up to the mark is read
    return handed, seen


def _handed(store: SqlStore, kinds: dict[str, str], position: int, row: Row) -> Followed:
    """A stored row as a follower is handed it (its encounter's system looked up once)."""
    system = kinds.get(row.encounter)
    if system is None:
        system = kinds[row.encounter] = store.require(row.encounter).system
    record = systems.from_row(row, system)
    return Followed(row.encounter, record.seq, record, position)
