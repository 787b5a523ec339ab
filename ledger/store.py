"""The SQLite event store: append-only, hash-chained per encounter, safe for concurrent writers.

This is the only module that touches SQLite. Rows become models (`ledger.rows`) here; nothing
above sees a raw row. A write is a `SqliteTransaction` (`ledger.transaction`), which `begin()`
hands out. The `heads` table is a cache of each encounter's head (rebuilt when missing).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext, suppress
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from ledger import chain, events, storefile
from ledger.chain import ChainReport
from ledger.errors import (
    BadInput,
    Conflict,
    LedgerError,
    StoreError,
    UnknownName,
    did_you_mean,
)
from ledger.rows import COLUMNS, Head, from_row, head_of, now_utc, written
from ledger.sqlitecache import SqliteCache
from ledger.stores import (
    ReadsRecords,
    WarnsOnce,
    against_heads,
    check_expect,
    check_write_args,
    checked_rows,
    heads_agree,
    heads_disagreement,
)
from ledger.transaction import Transaction

_INSERT: Final = f"INSERT INTO events ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?)"
_HEAD_COLUMNS: Final = "encounter, system, title, seq, hash, opened_at, updated_at"
_HEAD: Final = f"SELECT {_HEAD_COLUMNS} FROM heads"
#: The page cache of a bulk transaction (an import), in KiB: 16 MB holds the id index of some
#: 250k events; SQLite's default is 2 MB.
BULK_CACHE_KIB: Final = 16384
_LAST: Final = (
    "SELECT seq, hash, recorded_at FROM events WHERE encounter = ? ORDER BY seq DESC LIMIT 1"
)
#: A write's first read, in one statement: the heads cache's row of the encounter (if any) with
#: its verified mark, and the last stored row (if any), to check the one against the other.
_WRITE_HEAD: Final = (
    "SELECT h.encounter, h.system, h.title, h.seq, h.hash, h.opened_at, h.updated_at, "
    "h.verified, l.seq, l.hash, l.recorded_at FROM (SELECT ? AS name) q "
    "LEFT JOIN heads h ON h.encounter = q.name LEFT JOIN (SELECT seq, hash, recorded_at "
    "FROM events WHERE encounter = ? ORDER BY seq DESC LIMIT 1) l"
)
#: The heads cache's row written in place (an upsert keeps the row and its key's index entry:
#: a REPLACE deletes and reinserts both, one more page for every commit to write and sync).
_PUT_HEAD: Final = (
    "INSERT INTO heads VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (encounter) DO UPDATE SET "
    "system = excluded.system, title = excluded.title, seq = excluded.seq, "
    "hash = excluded.hash, opened_at = excluded.opened_at, updated_at = excluded.updated_at, "
    "verified = excluded.verified"
)
#: Every encounter name in `events`, one index seek each (not a scan of every row).
_NAMES: Final = """WITH RECURSIVE names(name) AS (
        SELECT MIN(encounter) FROM events
        UNION ALL
        SELECT (SELECT MIN(encounter) FROM events WHERE encounter > name) FROM names
        WHERE name IS NOT NULL
    ) SELECT name FROM names WHERE name IS NOT NULL"""


class Store(WarnsOnce, ReadsRecords):
    """One ledger file. Open with a path; `clock` is injectable for tests; `readonly` opens it
    for reading only (nothing is ever created or changed, a read-only mount will do)."""

    def __init__(
        self,
        path: str | Path,
        clock: Callable[[], datetime] = now_utc,
        create: bool = True,
        readonly: bool = False,
    ) -> None:
        self.path = Path(path)
        self.clock = clock
        self.readonly = readonly
        self.conn, self._created = storefile.connect(self.path, readonly=readonly, create=create)
        self._file = _identity(self.path)
        self._tables = {
            name
            for (name,) in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name IN ('events', 'heads')"
            )
        }
        self._told: set[str] = set()
        self._closed = False
        #: Threads sharing this store share its connection, and so its one transaction: a
        #: write holds the lock from BEGIN to COMMIT, a read snapshot while it reads
        #: (reentrant: a write reads through the store). Processes are serialised by SQLite.
        self.lock = threading.RLock()

    @property
    def name(self) -> str:
        """The file's path, for messages."""
        return str(self.path)

    @property
    def cache_db(self) -> SqliteCache:
        """The projection cache's tables, in the file itself (on the store's connection, so
        inside a write they are the write transaction's)."""
        return SqliteCache(self.conn)

    @property
    def db(self) -> Any:
        """The file as a `sqlite_utils.Database` (imported on first use: it is slow to load)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: every statement inside sees the file as of one moment (the
        heads cache and the rows agree even while another process appends)."""
        with self.lock:
            if self.conn.in_transaction:
                yield
                return
            self.conn.execute("BEGIN")
            try:
                yield
            finally:
                if self.conn.in_transaction:
                    self.conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection; a file this store created and nothing was stored in is removed
        (a command that failed leaves no empty ledger behind)."""
        if self._closed:
            return
        self._closed = True
        if self._created and not self.readonly:
            self._rollback()
            with suppress(sqlite3.Error):
                # Under the write lock: no other process can store its first event meanwhile
                # (one that waits finds the file gone and is told to try again).
                self.conn.execute("BEGIN IMMEDIATE")
                if self.conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None:
                    storefile.remove(self.path)
                self._rollback()
        self.conn.close()

    # Reads.

    def encounters(self) -> list[Head]:
        """Every encounter's head, by name (one that lost its cached head included)."""
        with self.snapshot():
            heads = [self.head(name) for name in self.names()]
        return [h for h in heads if h is not None]

    def names(self) -> list[str]:
        """Every encounter name in the file, in the rows or in the heads cache, sorted."""
        names: set[str] = set()
        with self.snapshot():
            if "events" in self._tables:
                names.update(name for (name,) in self.conn.execute(_NAMES))
            if "heads" in self._tables:
                names.update(name for (name,) in self.conn.execute("SELECT encounter FROM heads"))
        return sorted(names)

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist; read from the rows (with a
        warning) when the heads cache disagrees with them."""
        with self.snapshot():
            cached = self._cached_head(encounter)
            last = self._last_row(encounter)
            if heads_agree(cached, last):
                return cached
            derived = self._derived_head(encounter, last)
        self.tell(encounter, heads_disagreement(encounter, cached, last, "read from the rows"))
        return derived

    def _cached_head(self, encounter: str) -> Head | None:
        if "heads" not in self._tables:
            return None
        row = self.conn.execute(_HEAD + " WHERE encounter = ?", (encounter,)).fetchone()
        return head_of(row) if row else None

    def _last_row(self, encounter: str) -> tuple[int, str, str] | None:
        if "events" not in self._tables:
            return None
        row = self.conn.execute(_LAST, (encounter,)).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def _derived_head(self, encounter: str, last: tuple[int, str, str] | None) -> Head | None:
        """The head as the rows have it (seq 1 names the system and title)."""
        if last is None:
            return None
        first = self.conn.execute(
            "SELECT body, recorded_at FROM events WHERE encounter = ? AND seq = 1", (encounter,)
        ).fetchone()
        opened: dict[str, Any] = {}
        with suppress(ValueError, TypeError):
            body = json.loads(first[0]) if first else {}
            opened = body if isinstance(body, dict) else {}
        system, title = opened.get("system"), opened.get("title")
        return Head(
            encounter=encounter,
            system=system if isinstance(system, str) else "?",
            title=title if isinstance(title, str) else None,
            seq=last[0],
            hash=last[1],
            opened_at=first[1] if first else last[2],
            updated_at=last[2],
        )

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""
        head = self.head(encounter)
        if head is None:
            known = [h.encounter for h in self.encounters()]
            shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
            raise UnknownName(
                f"encounter {encounter!r} is not in {self.path}{did_you_mean(encounter, known)} "
                f"(known: {shown or 'none yet'})",
                code="unknown-encounter",
            )
        return head

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time (streaming), the
        chain checked on the way: a read warns once and shows what is stored (a write's
        transaction refuses to go on from a broken chain, see `SqliteTransaction`)."""
        prev, cursor = self._rows_after(encounter, after, upto)
        yield from checked_rows(cursor, encounter, system, after, prev, self._broken)

    def _rows_after(self, encounter: str, after: int, upto: int) -> tuple[str, sqlite3.Cursor]:
        """The hash of seq `after` (the genesis hash before seq 1; empty when it is missing)
        and a cursor over the stored rows after..upto, in seq order."""
        prev = chain.GENESIS
        if after > 0:
            row = self.conn.execute(
                "SELECT hash FROM events WHERE encounter = ? AND seq = ?", (encounter, after)
            ).fetchone()
            prev = row[0] if row else ""
        cursor = self.conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq",
            (encounter, after, upto),
        )
        return prev, cursor

    def _broken(self, encounter: str, seq: int, problem: str) -> None:
        """A read shows what is stored, and says once that it does not verify."""
        self.tell(
            encounter,
            f"encounter {encounter!r} does not verify at seq {seq} ({problem}): what is shown "
            "may not be what was recorded; see `encounter verify`",
        )

    def revisions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's retractions and corrections up to seq `upto`, in seq order (two
        partial indexes serve them)."""
        top = upto if upto is not None else 2**62
        rows = self.conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND type = 'event.retracted' "
            f"AND seq <= ? UNION ALL SELECT {COLUMNS} FROM events WHERE encounter = ? "
            "AND type = 'event.corrected' AND seq <= ? ORDER BY seq",
            (encounter, top, encounter, top),
        )
        return [from_row(row, system) for row in rows]

    def seqs_from_head(self, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events at or below `upto`, newest first."""
        yield from self.conn.execute(
            "SELECT seq, type FROM events WHERE encounter = ? AND seq <= ? ORDER BY seq DESC",
            (encounter, upto),
        )

    def type_at(self, encounter: str, seq: int) -> str | None:
        """The type of the event at `seq`, if stored."""
        row = self.conn.execute(
            "SELECT type FROM events WHERE encounter = ? AND seq = ?", (encounter, seq)
        ).fetchone()
        return str(row[0]) if row else None

    def by_id(self, id: str, systems: Mapping[str, str] | None = None) -> events.Recorded | None:
        """The stored event with this id, if any (`systems`: encounters whose system is known,
        as a write that opened one knows it before its head is stored)."""
        row = self.conn.execute(f"SELECT {COLUMNS} FROM events WHERE id = ?", (id,)).fetchone()
        if row is None:
            return None
        system = (systems or {}).get(row[0])
        return from_row(row, system if system is not None else self.require(row[0]).system)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` are stored, in any encounter."""
        wanted = list(dict.fromkeys(ids))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                row[0]
                for row in self.conn.execute(f"SELECT id FROM events WHERE id IN ({marks})", chunk)
            )
        return found

    def raw_rows(self, encounter: str) -> Iterator[tuple[Any, ...]]:
        """Stored rows as they are, for verification and export."""
        yield from self.conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
        )

    # Writes.

    @contextmanager
    def begin(
        self, encounter: str, expect: int | None = None, *, bulk: bool = False
    ) -> Iterator[Transaction]:
        """One write transaction (BEGIN IMMEDIATE), holding the store's lock against the other
        threads that share it: the head is read under the write lock and checked against the
        last stored row, the chain after the verified mark is checked, `expect` is checked,
        and everything appended commits together or not at all (or is rolled back when the
        transaction was discarded)."""
        check_write_args(encounter, expect)
        with self.lock, self._bulk_cache() if bulk else nullcontext():
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _write_error(self.path, exc) from exc
            try:
                if self._file is not None and _identity(self.path) != self._file:
                    raise Conflict(
                        f"the ledger {self.path} was removed or replaced while this command "
                        "waited; try again"
                    )
                head, verified, repaired = self._checked_head(encounter)
                seq = head.seq if head else 0
                check_expect(encounter, seq, expect)
                txn = SqliteTransaction(self, encounter, head, verified, repaired)
                if head is not None and verified < seq:
                    prev, rows = self._rows_after(encounter, verified, seq)
                    txn.check_tail(rows, prev)
                yield txn
                if txn.discarded:
                    self._rollback()
                    return
                txn.finish()
                self.conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                self._rollback()
                raise _write_error(self.path, exc) from exc
            except BaseException:
                self._rollback()
                raise

    @contextmanager
    def _bulk_cache(self) -> Iterator[None]:
        """A larger page cache for one bulk transaction: an import's random ids land all over
        the id index, which outgrows SQLite's default 2 MB cache after some ten thousand events
        (each insert then rereads pages; a fifth of the insert time at 100k events)."""
        (was,) = self.conn.execute("PRAGMA cache_size").fetchone()
        self.conn.execute(f"PRAGMA cache_size={-BULK_CACHE_KIB}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size={int(was)}")

    def _checked_head(self, encounter: str) -> tuple[Head | None, int, bool]:
        """The head to extend, the seq the chain is verified through, and whether the cache
        had to be repaired: the cached head is checked against the last stored row (one
        indexed read), and the rows win when they disagree."""
        row = self.conn.execute(_WRITE_HEAD, (encounter, encounter)).fetchone()
        cached = head_of(row[:7]) if row[0] is not None else None
        last = (row[8], row[9], row[10]) if row[8] is not None else None
        if heads_agree(cached, last):
            return cached, row[7] if cached is not None else 0, False
        self.tell(encounter, heads_disagreement(encounter, cached, last, "repaired from the rows"))
        # The mark came with the cache: the whole chain is checked again.
        return self._derived_head(encounter, last), 0, True

    def _rollback(self) -> None:
        # SQLite may already have rolled back (a full disk, a read-only file).
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify, and say
        when the heads cache disagrees with the rows."""
        with self.snapshot():
            cached = self._cached_head(encounter)
            rows = self.raw_rows(encounter) if "events" in self._tables else iter(())
            report = chain.verify_rows(encounter, rows, None)
        self.told(encounter)
        return against_heads(report, cached)

    def problems(self) -> list[str]:
        """What is wrong with the file as a whole (the append-only triggers)."""
        if "events" not in self._tables:
            return []
        return [
            f"the append-only trigger {name} is missing or not the ledger's own: rows can be "
            "changed without a trace in the database (a write recreates it)"
            for name in storefile.missing_triggers(self.conn)
        ]


def _identity(path: Path) -> tuple[int, int] | None:
    """The file's (device, inode), to notice it being removed or replaced."""
    if str(path) in storefile.UNNAMED:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return (-1, -1)
    return (info.st_dev, info.st_ino)


def _write_error(path: Path, exc: sqlite3.OperationalError) -> LedgerError:
    """A failed write as the ledger's own error: nothing was appended."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return Conflict(f"the ledger {path} stayed locked by another writer ({text}); try again")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"the ledger {path} is read-only; nothing was appended")
    return StoreError(f"cannot write to the ledger {path} ({text}); nothing was appended")


class SqliteTransaction(Transaction):
    """A write transaction on the store's connection (BEGIN IMMEDIATE is open)."""

    def __init__(
        self, store: Store, encounter: str, head: Head | None, verified: int, repaired: bool
    ) -> None:
        super().__init__(encounter, head, store.clock, verified=verified, repaired=repaired)
        self._store = store

    @property
    def cache_db(self) -> SqliteCache:
        """The projection cache's tables, in the file itself (on this transaction's connection)."""
        return self._store.cache_db

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        try:
            if len(rows) == 1:  # a write's one event: execute binds it without a cursor loop
                self._store.conn.execute(_INSERT, rows[0])
            else:
                self._store.conn.executemany(_INSERT, rows)
        except sqlite3.IntegrityError as exc:
            raise BadInput(f"an event id in this batch is already stored: {exc}") from exc

    def _stored_rows(self, system: str, after: int, upto: int) -> Iterator[events.Recorded]:
        prev, cursor = self._store._rows_after(self.encounter, after, upto)
        return checked_rows(
            cursor, self.encounter, system, after, prev, lambda _, s, p: self.broken(s, p)
        )

    def _stored_revisions(self, system: str, upto: int) -> list[events.Recorded]:
        return self._store.revisions(self.encounter, system, upto)

    def _stored_by_id(self, id: str, systems: dict[str, str]) -> events.Recorded | None:
        return self._store.by_id(id, systems)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids are stored, in any encounter."""
        return self._store.stored_ids(ids)

    def _stored_seqs_from(self, upto: int) -> Iterator[tuple[int, str]]:
        return self._store.seqs_from_head(self.encounter, upto)

    def _put_head(self, head: Head) -> None:
        self._store.conn.execute(_PUT_HEAD, (*written(head), head.seq))
