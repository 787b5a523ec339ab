"""One write transaction of one encounter: its head, the events it appends, and its reads.

A store's `begin()` opens the transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL: the encounter's
advisory lock), reads the head under its lock, checks `expect` and the chain, and hands out a
`Transaction`. Every use case (record, undo, redo, amend, import) builds its events over it;
the store commits them together when the block ends, or nothing at all. Each store subclasses
`Transaction` with its database's reads and insert, so nothing above the seam sees SQL.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

import msgspec

from ledger import chain, events
from ledger.errors import BadInput, BrokenChain
from ledger.rows import Head, moved, timestamp

if TYPE_CHECKING:
    from ledger.cache import CacheTables

#: Rows appended in one transaction are inserted together, at most this many at a time.
_BATCH: Final = 2000
#: How many of the events appended last a transaction keeps parsed (the rest are read back).
_WINDOW: Final = 2 * _BATCH


class Given(msgspec.Struct, frozen=True):
    """What an imported line fixes about its own append: its id, its time, and the body to
    store as an older version of its type wrote it (its hash covers those bytes). A msgspec
    struct: an import builds one a line."""

    id: str | None = None
    recorded_at: str | None = None
    as_stored: dict[str, Any] | None = None


NOTHING_GIVEN: Final = Given()


class Transaction(ABC):
    """One open write transaction of one encounter (see `EventStore.begin`).

    It owns the head (moved by every append), the append buffer and the reads inside the
    transaction. Rows are buffered and inserted in batches (`flush`); every read flushes first,
    so it always sees what was appended. Only the newest appended events are kept at hand
    (`_WINDOW`): a long import reads older ones back, so its memory stays bounded.
    """

    def __init__(
        self,
        encounter: str,
        head: Head | None,
        clock: Callable[[], datetime],
        *,
        verified: int = 0,
        repaired: bool = False,
    ) -> None:
        self.encounter = encounter
        self.opened = head
        self.seq = head.seq if head else 0
        self.hash = head.hash if head else chain.GENESIS
        self.system: str | None = head.system if head else None
        #: The newest events appended (at most _WINDOW), in seq order.
        self.appended: deque[events.Recorded] = deque(maxlen=_WINDOW)
        self.count = 0
        #: Set by `discard`: the store rolls the transaction back instead of committing it.
        self.discarded = False
        self._clock = clock
        self._verified = verified
        self._repaired = repaired
        self._rows: list[tuple[Any, ...]] = []
        self._pending: dict[str, events.Recorded] = {}
        self._stamp: str | None = None

    # What each store provides, on the transaction's own connection.

    @abstractmethod
    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert built rows (bad input when an id is already stored)."""

    @abstractmethod
    def _stored_rows(self, system: str, after: int, upto: int) -> Iterator[events.Recorded]:
        """Stored rows after..upto parsed one at a time, the chain checked on the way (see
        `broken`)."""

    @abstractmethod
    def _stored_revisions(self, system: str, upto: int) -> list[events.Recorded]:
        """The stored retractions and corrections up to `upto`, in seq order."""

    @abstractmethod
    def _stored_by_id(self, id: str, systems: dict[str, str]) -> events.Recorded | None:
        """The stored event with this id in any encounter (`systems`: those whose system is
        known before their head is stored)."""

    @abstractmethod
    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids are stored, in any encounter (before this transaction's flush)."""

    @abstractmethod
    def _stored_seqs_from(self, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the stored events at or below `upto`, newest first."""

    @abstractmethod
    def _put_head(self, head: Head) -> None:
        """Write the heads cache's row, verified through its seq."""

    @property
    @abstractmethod
    def cache_db(self) -> CacheTables | None:
        """The projection cache's tables (`ledger.cache`) inside this transaction, or None
        where the store keeps none."""

    # The head.

    @property
    def head(self) -> Head | None:
        """The encounter's head, counting what was appended (None: not opened yet)."""
        if self.opened is None:
            return None
        if not self.count:
            return self.opened
        return moved(self.opened, self.seq, self.hash, self.appended[-1].recorded_at)

    def now(self) -> str:
        """The time this transaction records at (one clock reading for the whole batch)."""
        if self._stamp is None:
            self._stamp = timestamp(self._clock())
        return self._stamp

    def broken(self, seq: int, problem: str) -> None:
        """A write never goes on from a broken chain."""
        raise BrokenChain(
            f"encounter {self.encounter!r} does not verify at seq {seq} ({problem}): "
            "nothing was appended to a broken chain; see `encounter verify`"
        )

    def check_tail(self, rows: Iterable[tuple[Any, ...]], prev: str) -> None:
        """Check the stored rows after the verified mark (whose hash is `prev`), or refuse."""
        expected = self._verified + 1
        for row in rows:
            problem = chain.row_problem(expected, prev, *row)
            if problem is not None:
                self.broken(expected, problem)
            expected, prev = row[1] + 1, row[7]

    # Appending.

    def append(self, event: events.Event, given: Given = NOTHING_GIVEN) -> events.Recorded:
        """Append one event at the next seq, chaining its hash to the head (`given`: what an
        imported line fixes itself)."""
        seq = self.seq + 1
        prev_hash = self.hash
        id, recorded_at, as_stored = given.id, given.recorded_at, given.as_stored
        if id is None:
            id = chain.new_id()
        elif id in self._pending:
            raise BadInput(f"event id {id!r} is already stored")
        if recorded_at is None:
            recorded_at = self._stamp or self.now()
        kind = events.type_of(event)
        body = events.body_of(event) if as_stored is None else as_stored
        try:
            # The canonical text is both hashed and stored: one encoding per event.
            body_text = chain.canonical(body, as_stored is None and events.float_free(type(event)))
            digest = chain.hash_text(
                self.encounter, seq, id, kind, recorded_at, body_text, prev_hash
            )
        except ValueError as exc:  # NaN or infinity: not JSON
            raise BadInput(f"{kind} event holds a number that JSON cannot carry: {exc}") from exc
        row = (self.encounter, seq, id, kind, recorded_at, body_text, prev_hash, digest)
        self._rows.append(row)
        if type(event) is events.EncounterOpened:  # exact: see `Session.admit`
            self.system = event.system
            self.opened = Head(
                encounter=self.encounter,
                system=event.system,
                title=event.title,
                seq=seq,
                hash=digest,
                opened_at=recorded_at,
                updated_at=recorded_at,
            )
        record = events.Recorded(
            self.encounter, seq, id, recorded_at, prev_hash, digest, event, as_stored
        )
        self.seq, self.hash = seq, digest
        self.appended.append(record)
        self.count += 1
        self._pending[id] = record
        if len(self._rows) >= _BATCH:
            self.flush()
        return record

    def flush(self) -> None:
        """Insert the buffered rows (still inside the transaction)."""
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        self._insert(rows)
        # Stored now: an id is found in the database from here on.
        self._pending.clear()

    def discard(self) -> None:
        """Roll back instead of committing when the block ends (a dry run)."""
        self.discarded = True

    def finish(self) -> None:
        """Before the commit: the buffered rows inserted, and the heads cache's row written
        when the head moved, was repaired, or its chain was checked further."""
        self.flush()
        head = self.head
        if head is not None and (self.count or self._repaired or self._verified < head.seq):
            self._put_head(head)

    # Reads inside the transaction.

    def records(self, after: int = 0) -> Iterator[events.Recorded]:
        """Events of this encounter after seq `after`, appended ones included, in order."""
        if self.system is None:
            return iter(())
        if not self.appended:
            return self._stored_rows(self.system, after, self.seq)
        # What was appended last is at hand, parsed: only older rows are read back (an undo
        # inside a long import refolds from a checkpoint that is usually in this window).
        first = self.appended[0].seq
        if after + 1 >= first:
            return itertools.islice(self.appended, after + 1 - first, None)
        self.flush()
        older = self._stored_rows(self.system, after, first - 1)
        return itertools.chain(older, list(self.appended))

    def revisions(self) -> list[events.Recorded]:
        """The encounter's retractions and corrections, appended ones included."""
        if self.system is None:
            return []
        self.flush()
        return self._stored_revisions(self.system, self.seq)

    def cache_connection(self) -> CacheTables | None:
        """The projection cache's tables inside this transaction, with the buffered rows
        inserted (None: the store keeps no cache tables)."""
        self.flush()
        return self.cache_db

    def known_id(self, id: str) -> events.Recorded | None:
        """The event with this id, in any encounter, appended here or stored before."""
        known = self._pending.get(id)
        if known is None:
            systems = {self.encounter: self.system} if self.system is not None else {}
            known = self._stored_by_id(id, systems)
        return known

    def seqs_from_head(self) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events, newest first."""
        if self.system is None:
            return iter(())
        self.flush()
        return self._stored_seqs_from(self.seq)
