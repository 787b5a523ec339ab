"""The SQLite dialect: one ledger file, one connection, a write lock per file.

WAL mode with `synchronous=FULL` (an acknowledged event survives a power cut) and a busy timeout;
a write is one `BEGIN IMMEDIATE` transaction. Threads sharing a store share its connection, and
so its one transaction: a write holds the lock from BEGIN to COMMIT, a read snapshot while it
reads. Processes are serialised by SQLite. The file itself (its identity, format and schema) is
`sqlite_schema`'s.
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from ledger.errors import BadInput, Conflict, LedgerError, StoreError
from ledger.store import DEFAULT_TENANT, Row, now_utc, sqlite_schema, statements, views
from ledger.store.sql import SqlStore

#: The page cache of a bulk transaction (an import), in KiB: 16 MB holds the id index of some
#: 250k events; SQLite's default is 2 MB.
BULK_CACHE_KIB: Final = 16384
#: Every encounter name of a tenant in `events`, one index seek each (not a scan of every row).
_NAMES: Final = """WITH RECURSIVE names(name) AS (
        SELECT MIN(encounter) FROM events WHERE tenant = ?
        UNION ALL
        SELECT (SELECT MIN(encounter) FROM events WHERE tenant = ? AND encounter > name)
        FROM names WHERE name IS NOT NULL
    ) SELECT name FROM names WHERE name IS NOT NULL"""


class SqliteDatabase:
    """A ledger file (`readonly`: only read; nothing is created or changed)."""

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        readonly: bool = False,
        tenant: str = DEFAULT_TENANT,
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.tenant = tenant
        self.conn, self._created = sqlite_schema.connect(
            self.path, readonly=readonly, create=create
        )
        self._file = _identity(self.path)
        self._tables = {
            name
            for (name,) in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name IN ('events', 'heads', 'snapshots')"
            )
        }
        #: Whether the file has the snapshots table (a read-only file of an older format has
        #: not: its reads fold from the events).
        self.snapshots = "snapshots" in self._tables
        #: A file of the format before tenants, read as it is (a read never migrates it): its
        #: statements are `statements.unscoped`, and it holds the default tenant's rows only.
        self.unscoped = not sqlite_schema.has_tenants(self.conn)
        self._closed = False
        self.lock = threading.RLock()

    def scoped(self, tenant: str) -> SqliteDatabase:
        """This file (its connection and lock shared) for another tenant."""
        other = copy.copy(self)
        other.tenant = tenant
        return other

    def fence(self) -> tuple[int, None]:
        """(the tenant's highest position stored, nothing): a file has one writer at a time,
        so every position below it is committed, or was rolled back and never will be."""
        found = self.fetch(statements.TOP_POSITION, (self.tenant,))
        return (int(found[0][0] or 0) if found else 0), None

    def passed(self, token: None) -> bool:
        """Always: a file's fence holds as soon as it is read."""
        return True

    def waiter(self, sleep: Callable[[float], None]) -> Callable[[float], None]:
        """A file's followers poll: `sleep`."""
        return sleep

    @property
    def name(self) -> str:
        """The file's path, for messages."""
        return str(self.path)

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query (none where the file has no events table yet)."""
        if "events" not in self._tables:
            return []
        if self.unscoped:
            sql = statements.unscoped(sql)
        with self.lock:
            return self.conn.execute(sql, tuple(params)).fetchall()

    def others(self) -> int:
        """The commits of other connections, as `_Writing.others` counts them."""
        with self.lock:
            return _others(self.conn)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction: every statement inside sees the file as of one moment."""
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

    def names(self) -> list[str]:
        """Every encounter name in the file, in the rows or in the heads cache, sorted."""
        found: set[str] = set()
        with self.reading():
            found.update(name for (name,) in self.fetch(_NAMES, (self.tenant, self.tenant)))
            if "heads" in self._tables:
                found.update(
                    name
                    for (name,) in self.fetch(
                        "SELECT encounter FROM heads WHERE tenant = ?", (self.tenant,)
                    )
                )
        return sorted(found)

    @contextmanager
    def writing(self, encounter: str, bulk: bool) -> Iterator[_Writing]:
        """One write transaction (BEGIN IMMEDIATE) under the store's lock; committed when the
        block ends, rolled back when it raises or was discarded."""
        with self.lock, self._bulk_cache(bulk):
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _write_error(self.path, exc) from exc
            writing = _Writing(self.conn)
            try:
                if self._file is not None and _identity(self.path) != self._file:
                    raise Conflict(
                        f"the ledger {self.path} was removed or replaced while this command "
                        "waited; try again"
                    )
                self._tables |= {"events", "heads"}
                if self.unscoped:
                    raise StoreError(
                        f"the ledger {self.path} is of the format before tenants and was "
                        "opened to read only; nothing was appended"
                    )
                yield writing
                if writing.discarded:
                    self._rollback()
                else:
                    self.conn.execute("COMMIT")
                    for done in writing.committed:  # still under the store's lock
                        done()
            except sqlite3.OperationalError as exc:
                self._rollback()
                raise _write_error(self.path, exc) from exc
            except BaseException:
                self._rollback()
                raise

    def erased(self) -> None:
        """After an erasure's commit: the write-ahead log copied into the file and emptied, so
        it holds no page of the bodies as they were (a reader still on an older snapshot may
        keep the log from being emptied: a later write's checkpoint does it)."""
        with self.lock, suppress(sqlite3.Error):
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def _bulk_cache(self, bulk: bool) -> Iterator[None]:
        """A larger page cache for one bulk transaction: an import's random ids land all over
        the id index, which outgrows SQLite's default 2 MB cache after some ten thousand events."""
        if not bulk:
            yield
            return
        (was,) = self.conn.execute("PRAGMA cache_size").fetchone()
        self.conn.execute(f"PRAGMA cache_size={-BULK_CACHE_KIB}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size={int(was)}")

    def _rollback(self) -> None:
        # SQLite may already have rolled back (a full disk, a read-only file).
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def problems(self) -> list[str]:
        """What is wrong with the file as a whole: the append-only triggers missing or altered,
        and any trigger of another hand."""
        if "events" not in self._tables:
            return []
        with self.lock:
            missing = sqlite_schema.missing_triggers(self.conn)
            foreign = sqlite_schema.foreign_triggers(self.conn)
        said = [
            f"the append-only trigger {name} is missing or not the ledger's own: rows can be "
            "changed without a trace in the database (a write recreates it)"
            for name in missing
        ]
        return said + [
            f"the trigger {name} on {table} is not the ledger's own: it can swallow or change "
            "what is written"
            for name, table in foreign
        ]

    def rebuild_views(self, encounters: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
        """(Re)create the SQL views and the `track_changes` read model from these rows, in one
        transaction (a reader sees the old read model or the new one)."""
        counts: dict[str, int] = {}
        with self._owned():
            for name, sql in views.SQLITE_VIEWS.items():
                self.conn.execute(f"DROP VIEW IF EXISTS {name}")
                self.conn.execute(f"CREATE VIEW {name} AS {sql}")
            kept = {row[1] for row in self.conn.execute("PRAGMA table_info(track_changes)")}
            if kept and "tenant" not in kept:  # the read model before tenants: made anew
                self.conn.execute(f"DROP TABLE {views.TRACK_CHANGES}")
            for statement in views.SQLITE_TRACK_CHANGES:
                self.conn.execute(statement)
            self.conn.execute(views.CLEAR_CHANGES, (self.tenant,))
            for rows in encounters:
                for r in rows:
                    self.conn.execute(views.INSERT_CHANGE, views.sqlite_cells(r))
                    counts[r["encounter"]] = counts.get(r["encounter"], 0) + 1
        return counts

    def drop_views(self) -> bool:
        """Delete the tenant's rows of the read model; the table and the views too (True)
        unless another tenant's rows are left (a file shared by a bot's tables: each drops its
        own). The events lose nothing."""
        with self._owned():
            kept = {row[1] for row in self.conn.execute("PRAGMA table_info(track_changes)")}
            if "tenant" in kept:  # a read model before tenants is dropped whole
                self.conn.execute(views.CLEAR_CHANGES, (self.tenant,))
                if self.conn.execute("SELECT 1 FROM track_changes LIMIT 1").fetchone():
                    return False
            for name in views.SQLITE_VIEWS:
                self.conn.execute(f"DROP VIEW IF EXISTS {name}")
            self.conn.execute(f"DROP TABLE IF EXISTS {views.TRACK_CHANGES}")
        return True

    @contextmanager
    def _owned(self) -> Iterator[None]:
        """One write transaction of the file's own (not an encounter's)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
                self.conn.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

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
                    sqlite_schema.remove(self.path)
                self._rollback()
        self.conn.close()


class _Writing:
    """The connection inside one write transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.discarded = False
        self.committed: list[Callable[[], None]] = []

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, tuple(params)).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, tuple(params))

    def insert(self, tenant: str, rows: Sequence[Row]) -> None:
        try:
            self.conn.executemany(statements.INSERT, [(tenant, *row) for row in rows])
        except sqlite3.IntegrityError as exc:
            raise BadInput(f"an event id in this batch is already stored: {exc}") from exc

    def discard(self) -> None:
        self.discarded = True

    def after_commit(self, done: Callable[[], None]) -> None:
        self.committed.append(done)

    def others(self) -> int:
        return _others(self.conn)

    def hold(self, tenant: str, encounter: str) -> None:
        """Nothing more to lock: a file's write transaction holds every encounter's."""

    def erase(self, tenant: str, encounter: str) -> None:
        # Freed space zeroed (the old bodies' cells and the snapshots' pages), not left in the
        # file for a later VACUUM; the permit's row is gone again before the commit.
        self.conn.execute("PRAGMA secure_delete=ON")
        key = (tenant, encounter)
        self.conn.execute("INSERT INTO erasing (tenant, encounter) VALUES (?, ?)", key)
        self.conn.execute(statements.ERASE_BODIES, key)
        self.conn.execute("DELETE FROM erasing WHERE tenant = ? AND encounter = ?", key)
        self.conn.execute(statements.ERASE_SNAPSHOTS, key)
        found = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
            (views.TRACK_CHANGES,),
        ).fetchone()
        if found is not None:
            self.conn.execute(statements.ERASE_CHANGES, key)


def _others(conn: sqlite3.Connection) -> int:
    """SQLite's own count, kept per connection: every commit of another connection (of this
    process or another) moves it, its own commits do not, and nothing written in the file
    sets it."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def open_sqlite(
    path: str | Path,
    clock: Callable[[], datetime] = now_utc,
    create: bool = True,
    readonly: bool = False,
    tenant: str = DEFAULT_TENANT,
) -> SqlStore:
    """The store of a ledger file (`readonly`: only read it), for one tenant."""
    database = SqliteDatabase(path, create=create, readonly=readonly, tenant=tenant)
    return SqlStore(database, clock)


def _identity(path: Path) -> tuple[int, int] | None:
    """The file's (device, inode), to notice it being removed or replaced."""
    if str(path) in sqlite_schema.UNNAMED:
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


def body_of_opened(text: str) -> dict[str, Any]:
    """The fields of a stored `encounter.opened` body (empty when it is not an object)."""
    with suppress(ValueError, TypeError, RecursionError):
        data = json.loads(text)
        if isinstance(data, dict):
            return data
    return {}
