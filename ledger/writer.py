"""A write transaction's appends: each event chained to the head, rows inserted in batches.

A store's `writing()` opens the transaction and hands out a `Writer`; the writer builds the rows
and the store inserts them (each store stays the only module that touches its database).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final

from ledger import chain, events
from ledger.errors import BadInput
from ledger.rows import Head, recorded, timestamp

if TYPE_CHECKING:
    from ledger.stores import Appending

#: Rows appended in one transaction are inserted together, at most this many at a time.
_BATCH: Final = 2000
#: How many of the events appended last a writer keeps parsed (the rest are read back).
_WINDOW: Final = 2 * _BATCH


class Writer:
    """Appends inside one write transaction; see `EventStore.writing`.

    Rows are buffered and inserted in batches (`flush`); every read through the writer flushes
    first, so it always sees what it appended. Only the newest appended events are kept at
    hand (`_WINDOW`): a long import reads older ones back, so its memory stays bounded.
    """

    def __init__(self, store: Appending, encounter: str, head: Head | None) -> None:
        self._store = store
        self.encounter = encounter
        self.opened = head
        self.seq = head.seq if head else 0
        self.hash = head.hash if head else chain.GENESIS
        self.system: str | None = head.system if head else None
        #: The newest events appended (at most _WINDOW), in seq order.
        self.appended: deque[events.Recorded] = deque(maxlen=_WINDOW)
        self.count = 0
        self._rows: list[tuple[Any, ...]] = []
        self._pending: dict[str, events.Recorded] = {}
        self._stamp: str | None = None

    @property
    def head(self) -> Head | None:
        """The encounter's head, counting what this writer appended (None: not opened yet)."""
        if self.opened is None:
            return None
        if not self.count:
            return self.opened
        return self.opened.model_copy(
            update={"seq": self.seq, "hash": self.hash, "updated_at": self.appended[-1].recorded_at}
        )

    def now(self) -> str:
        """The time this transaction records at (one clock reading for the whole batch)."""
        if self._stamp is None:
            self._stamp = timestamp(self._store.clock())
        return self._stamp

    def append(
        self,
        event: events.Event,
        *,
        id: str | None = None,
        recorded_at: str | None = None,
    ) -> events.Recorded:
        """Append one event at the next seq, chaining its hash to the head."""
        seq = self.seq + 1
        prev_hash = self.hash
        if id is None:
            id = chain.new_id()
        elif id in self._pending:
            raise BadInput(f"event id {id!r} is already stored")
        if recorded_at is None:
            recorded_at = self.now()
        kind = events.type_of(event)
        body = events.body_of(event)
        try:
            # The canonical text is both hashed and stored: one encoding per event.
            body_text = chain.canonical(body, events.float_free(type(event)))
            digest = chain.hash_text(
                self.encounter, seq, id, kind, recorded_at, body_text, prev_hash
            )
        except ValueError as exc:  # NaN or infinity: not JSON
            raise BadInput(f"{kind} event holds a number that JSON cannot carry: {exc}") from exc
        row = (self.encounter, seq, id, kind, recorded_at, body_text, prev_hash, digest)
        self._rows.append(row)
        if isinstance(event, events.EncounterOpened):
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
        record = recorded(self.encounter, seq, id, recorded_at, prev_hash, digest, event)
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
        self._store.insert(rows)
        # Stored now: an id is found in the file from here on.
        self._pending.clear()

    def records(self, after: int = 0) -> Iterator[events.Recorded]:
        """Stored events of this encounter after seq `after`, appended ones included, in order."""
        if self.system is None:
            return iter(())
        if not self.appended:
            return self._store.load_rows(self.encounter, self.system, after, self.seq)
        # What this writer appended last is at hand, parsed: only older rows are read back (an
        # undo inside a long import refolds from a checkpoint that is usually in this window).
        first = self.appended[0].seq
        if after + 1 >= first:
            return itertools.islice(self.appended, after + 1 - first, None)
        self.flush()
        older = self._store.load_rows(self.encounter, self.system, after, first - 1)
        return itertools.chain(older, list(self.appended))

    def revisions(self) -> list[events.Recorded]:
        """The encounter's retractions and corrections, appended ones included."""
        if self.system is None:
            return []
        self.flush()
        return self._store.revisions(self.encounter, self.system, self.seq)

    def connection(self) -> Any:
        """The store's connection inside this transaction, with the buffered rows inserted
        (for the projection cache, `ledger.cache`)."""
        self.flush()
        return self._store.cache_db

    def known_id(self, id: str) -> events.Recorded | None:
        """The event with this id, in any encounter, appended by this writer or stored before."""
        known = self._pending.get(id)
        if known is None and self.system is not None:
            known = self._store.by_id(id, {self.encounter: self.system})
        return known or self._store.by_id(id)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids are already stored (before this writer)."""
        return self._store.stored_ids(ids)

    def seqs_from_head(self) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events, newest first."""
        if self.system is None:
            return iter(())
        self.flush()
        return self._store.seqs_from_head(self.encounter, self.seq)
