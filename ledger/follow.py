"""Following an encounter: each event as it is appended, by any writer or process.

`follow` is the one subscription of the library: `encounter watch` and `encounter serve` read
through it, and a bot may too. It polls the encounter's head (one indexed row, on SQLite and
PostgreSQL alike) and reads the rows after the last seq it handed out, so it wakes within one
`poll` of an append and never misses, repeats or reorders an event: seqs are gapless and an
append is one transaction. A hosted store may wake it sooner (LISTEN/NOTIFY) behind the same
iterator, and hand out each event's global `position` (`Followed.position`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ledger import events, systems
from ledger.errors import BadInput
from ledger.store.sql import SqlStore


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
    head = store.require(encounter)
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
