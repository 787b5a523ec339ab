"""One write transaction of one encounter: its head, the rows it appends, and its reads.

`SqlStore.begin` opens it under the encounter's write lock, with the head read and checked. A
use case appends rows (their bodies as canonical text): each is chained to the head at once and
kept in memory, where every read of the transaction finds it; the rows are inserted when the
transaction commits (a bulk import inserts every few thousand, so its memory stays bounded),
and the heads cache's row is written with them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, Final, Protocol

from ledger.errors import BadInput, BrokenChain, StoreError
from ledger.store import Head, Row, snapshots, statements, timestamp
from ledger.store import chain as chains
from ledger.store.snapshots import Snapshot


class Connection(Protocol):
    """A dialect's connection inside one write transaction, holding the encounter's lock."""

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement."""

    def insert(self, tenant: str, rows: Sequence[Row]) -> None:
        """Insert a tenant's event rows (bad input when an id is already stored)."""

    def discard(self) -> None:
        """Roll back instead of committing when the transaction ends."""

    def after_commit(self, done: Callable[[], None]) -> None:
        """Run `done` once the transaction has committed, still holding what the write holds
        (never when it rolled back or the commit failed)."""

    def others(self) -> int | None:
        """A count that moves whenever another connection commits to the database, as this
        connection sees it (unmoved by its own commits); None: the dialect cannot tell."""

    def erase(self, tenant: str, encounter: str) -> None:
        """Erase the encounter's bodies, snapshots and read-model rows, under the permit the
        append-only guard honours inside this transaction only."""


#: Rows appended in one transaction are inserted together, at most this many at a time.
BATCH: Final = 2000


class Transaction:
    """One open write transaction of one encounter (see `SqlStore.begin`)."""

    def __init__(
        self,
        conn: Connection,
        tenant: str,
        encounter: str,
        head: Head | None,
        clock: Callable[[], datetime],
        *,
        snapshots: bool = False,
    ) -> None:
        self.tenant = tenant
        self.encounter = encounter
        #: The global position of each row of the transaction's last insert, by seq (known once
        #: the rows are inserted: the database gives them): all of a write's few rows, an
        #: import's last batch only, so that its memory stays bounded.
        self.positions: dict[int, int] = {}
        #: The head as it was stored when the transaction began (None: not opened yet).
        self.opened = head
        self.seq = head.seq if head else 0
        self.hash = head.hash if head else chains.GENESIS
        self.system: str | None = head.system if head else None
        #: Set by `discard`: the store rolls the transaction back instead of committing it.
        self.discarded = False
        #: Whether the heads cache disagreed with the rows (it is written again).
        self.repaired = False
        #: What a repair accepts as lost: the acknowledged head the rows no longer hold.
        self.lost: str | None = None
        #: How many rows this transaction appended.
        self.count = 0
        self._conn = conn
        self._snapshots = snapshots
        self._clock = clock
        #: The stored rows are known to verify through this seq (`check_chain`).
        self._checked = 0
        #: The seq of the last row in the database (the rows after it are `_pending`).
        self._stored = self.seq
        self._pending: list[Row] = []
        self._ids: dict[str, Row] = {}
        self._stamp: str | None = None
        self._title: str | None = head.title if head else None
        self._opened_at: str | None = head.opened_at if head else None
        self._updated_at: str | None = head.updated_at if head else None

    def now(self) -> str:
        """The time this transaction records at (one clock reading for the whole batch)."""
        if self._stamp is None:
            self._stamp = timestamp(self._clock())
        return self._stamp

    def check_chain(self) -> None:
        """Check every stored row of the encounter against the chain, or refuse to go on."""
        rows = self._stored_rows(0, self.seq)
        for _ in chains.checked(rows, 0, chains.GENESIS, self._broken):
            pass
        self._checked = self.seq

    def left_as_checked(self) -> None:
        """Take the stored rows as checked without reading them: the store knows they are the
        rows it checked and appended itself (`SqlStore.begin`)."""
        self._checked = self.seq

    @property
    def checked(self) -> bool:
        """Whether every row stored when the transaction began was checked against the chain
        (`check_chain`), through the head it read."""
        return self._checked >= (self.opened.seq if self.opened else 0)

    def _broken(self, seq: int, problem: str) -> None:
        raise BrokenChain(
            f"encounter {self.encounter!r} does not verify at seq {seq} ({problem}): "
            "nothing was appended to a broken chain; see `encounter verify`"
        )

    # Appending.

    def append(
        self,
        type: str,
        body: str,
        *,
        id: str | None = None,
        recorded_at: str | None = None,
        system: str | None = None,
        title: str | None = None,
    ) -> Row:
        """Append one row at the next seq, chained to the head (`id` and `recorded_at`: what
        an imported line fixes itself; `system` and `title`: an `encounter.opened`'s)."""
        if id is None:
            id = chains.new_id()
        elif id in self._ids:
            raise BadInput(f"event id {id!r} is already stored")
        recorded_at = recorded_at or self.now()
        seq = self.seq + 1
        digest = chains.hash_text(self.encounter, seq, id, type, recorded_at, body, self.hash)
        row = Row(self.encounter, seq, id, type, recorded_at, body, self.hash, digest)
        if system is not None:
            self.system, self._title, self._opened_at = system, title, recorded_at
        self._pending.append(row)
        self._ids[id] = row
        self._updated_at = recorded_at
        self.seq, self.hash = seq, digest
        self.count += 1
        if len(self._pending) >= BATCH:
            self.flush()
        return row

    def flush(self) -> None:
        """Insert the pending rows (still inside the transaction), and read them back: a row
        the database did not store as it was given (a trigger or rule of another hand
        swallowed or changed it) is never acknowledged."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        self._conn.insert(self.tenant, rows)
        found = self._conn.fetch(
            statements.ROWS_BETWEEN, (self.tenant, self.encounter, rows[0].seq, rows[-1].seq)
        )
        stored = [r[1:] for r in found]
        if [tuple(r) for r in stored] != [tuple(r) for r in rows]:
            raise StoreError(_not_stored(self.encounter, rows, stored))
        # In place: a write's result holds this mapping, filled in as its rows are stored.
        self.positions.clear()
        self.positions.update((int(r[2]), int(r[0])) for r in found)
        self._stored = rows[-1].seq
        self._checked = self._stored
        self._ids.clear()

    def discard(self) -> None:
        """Roll back instead of committing when the block ends (a dry run)."""
        self.discarded = True

    @property
    def head(self) -> Head | None:
        """The encounter's head, counting what was appended (None: not opened yet)."""
        if self.system is None:
            return None
        if not self.count and self.opened is not None:
            return self.opened
        return Head(
            self.encounter,
            self.system,
            self._title,
            self.seq,
            self.hash,
            self._opened_at or self.now(),
            self._updated_at or self.now(),
        )

    def finish(self) -> None:
        """Before the commit: the pending rows inserted, and the heads cache's row written when
        the head moved or the cache disagreed with the rows."""
        head = self.head
        self.flush()
        if head is not None and (self.count or self.repaired):
            self._conn.execute(statements.PUT_HEAD, (self.tenant, *_fields(head), head.seq))

    # Reads inside the transaction: the database's rows, then the pending ones.

    def _stored_rows(self, after: int, upto: int) -> Iterator[Row]:
        return statements.pages(self._conn.fetch, self.tenant, self.encounter, after, upto)

    def rows(self, after: int = 0) -> Iterator[Row]:
        """The encounter's rows after seq `after`, appended ones included, in order (the
        stored ones checked against the chain: a write never goes on from a broken one)."""
        if self.system is None and not self._pending:
            return iter(())
        pending = [r for r in self._pending if r.seq > after]
        if after >= self._stored:
            return iter(pending)
        stored: Iterator[Row] = self._stored_rows(after, self._stored)
        if self._checked < self._stored:
            prev = statements.hash_at(self._conn.fetch, self.tenant, self.encounter, after)
            stored = chains.checked(stored, after, prev, self._broken)
        return itertools.chain(stored, pending)

    def revisions(self) -> list[Row]:
        """The encounter's retractions, corrections, rewinds and dice events, appended ones
        included."""
        stored = statements.revisions(self._conn.fetch, self.tenant, self.encounter, self._stored)
        return stored + [r for r in self._pending if r.type in _REVISIONS]

    def by_id(self, id: str) -> Row | None:
        """The row with this id, in any encounter of the tenant, appended here or stored."""
        return self._ids.get(id) or statements.by_id(self._conn.fetch, self.tenant, id)

    def seqs_from_head(self) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's rows, newest first."""
        mine = [(r.seq, r.type) for r in reversed(self._pending)]
        stored = statements.seqs_down(self._conn.fetch, self.tenant, self.encounter, self._stored)
        return itertools.chain(mine, stored)

    def snapshots(self, upto: int, secret: bytes | None) -> Iterator[Snapshot]:
        """The encounter's sealed snapshots at or below `upto`, newest first (read as they
        are asked for)."""
        if not self._snapshots:
            return iter(())
        return snapshots.newest(self._conn.fetch, secret, self.tenant, self.encounter, upto)

    def keep_snapshots(self, secret: bytes, kept: Sequence[Snapshot]) -> None:
        """Store snapshots folded in this transaction, sealed (with its rows, or not at all)."""
        if self._snapshots and kept:
            snapshots.put(self._conn.execute, secret, self.tenant, self.encounter, kept)

    def row_at(self, seq: int) -> Row | None:
        """The row at `seq`, appended here or stored."""
        if seq > self._stored:
            return next((r for r in self._pending if r.seq == seq), None)
        return next(iter(self._stored_rows(seq - 1, seq)), None)


_REVISIONS: Final = frozenset(
    {"event.retracted", "event.corrected", "encounter.rewound", "dice.committed", "dice.revealed"}
)


def _not_stored(encounter: str, given: Sequence[Row], stored: Sequence[Sequence[Any]]) -> str:
    """What the database did with rows it was given and did not store as they were."""
    found = {int(r[1]): tuple(r) for r in stored}
    for row in given:
        there = found.get(row.seq)
        if there != tuple(row):
            what = "is missing" if there is None else "was stored changed"
            break
    else:  # every row is there, and more
        row, what = given[-1], "has rows beside it that this write did not insert"
    return (
        f"encounter {encounter!r}: the database did not store what this write appended (seq "
        f"{row.seq} {what}): a trigger or rule that is not the ledger's swallowed or changed "
        "it; nothing was appended; see `encounter verify`"
    )


def _fields(head: Head) -> tuple[object, ...]:
    return (
        head.encounter,
        head.system,
        head.title,
        head.seq,
        head.hash,
        head.opened_at,
        head.updated_at,
    )
