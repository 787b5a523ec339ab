"""The PostgreSQL dialect (psycopg 3): the SQLite store's contract, on a server.

The same `events` table and hash chain; append-only enforced by triggers (and by a role without
UPDATE or DELETE, see the docs' hosting page). An append is one transaction holding an advisory
lock keyed by the encounter, so writers of one encounter queue while writers of different
encounters never wait for each other. The library's connections come from a pool; a read takes
a connection for one statement (or, inside `reading`, one REPEATABLE READ transaction).
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from ledger.errors import BadInput, Conflict, LedgerError, StoreError
from ledger.store import (
    DEFAULT_TENANT,
    POOL_SIZE,
    Row,
    connections,
    now_utc,
    postgres_guard,
    postgres_schema,
    statements,
    views,
)
from ledger.store.sql import SqlStore

#: How long an append waits for another writer of the same encounter before it is a conflict.
LOCK_TIMEOUT_S: Final = 60
CONNECT_TIMEOUT_S: Final = 10
#: The unique constraint of the events' ids (PostgreSQL's name for `id ... UNIQUE`).
_ID_KEY: Final = "events_id_key"
#: The channel an append notifies (its payload: the tenant) when the ledger is told to.
CHANNEL: Final = "encounter_ledger"
#: The transactions running now that have an id (each holds the lock of its own id until it
#: has ended; `pg_locks` is every role's to read).
_RUNNING: Final = (
    "SELECT transactionid::text FROM pg_locks WHERE locktype = 'transactionid' "
    "AND mode = 'ExclusiveLock' AND granted"
)
#: The tenant of one transaction, for row-level security (`SET LOCAL`, as a function).
_SCOPE_SQL: Final = "set_config('app.tenant', %s, true)"
_SCOPE: Final = f"SELECT {_SCOPE_SQL}"


def redacted(url: str) -> str:
    """The URL without its password (it names the ledger in messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def spelled(sql: str) -> str:
    """A statement's `?` placeholders as psycopg's `%s` (no statement of ours holds a `?`)."""
    return sql.replace("?", "%s")


def text(value: Any) -> Any:
    """A value PostgreSQL can hold: it refuses the NUL character in text, which SQLite keeps."""
    if isinstance(value, str) and "\x00" in value:
        raise BadInput(f"{value!r} holds a NUL character, which the ledger cannot store")
    return value


def one_line(exc: BaseException) -> str:
    """An error's message on one line (a server's may hold several)."""
    return " ".join(str(exc).split()) or type(exc).__name__


class PostgresDatabase:
    """One ledger in a PostgreSQL database, named by a `postgresql://` URL; a connection pool."""

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        readonly: bool = False,
        pool_size: int = POOL_SIZE,
        tenant: str = DEFAULT_TENANT,
        notify: bool = False,
    ) -> None:
        pool_size = connections(url, pool_size)
        self.url = url
        self.readonly = readonly
        self.name = redacted(url)
        #: The tenant every transaction names (`SET LOCAL app.tenant`) and every statement reads.
        self.tenant = tenant
        #: Whether an append wakes followers (`NOTIFY`), a hint on top of their polling.
        self.notify = notify
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                postgres_schema.ensure(
                    conn, create=create and not readonly, readonly=readonly, name=self.name
                )
                #: A database of the schema before tenants that this role may not (or, reading,
                #: does not) migrate: read as it is (`statements.unscoped`), never written.
                self.unscoped = not postgres_schema.has_tenants(conn)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"cannot create the ledger's tables in {self.name} ({one_line(exc)}): "
                "create them once as the database owner (see the docs' hosting page)"
            ) from exc
        except (psycopg.Error, psycopg.ProgrammingError) as exc:
            raise StoreError(f"cannot open the ledger at {self.name}: {one_line(exc)}") from exc
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
            configure=_configure,
            timeout=LOCK_TIMEOUT_S,
            open=True,
        )
        #: The connection of the `reading` block of each thread, if any.
        self._reading = threading.local()
        #: The connections that LISTEN for followers (closed with the pool).
        self._listening: list[psycopg.Connection[Any]] = []
        #: Whether the database has the snapshots table (an older one opened by a role that
        #: may not create it has not: its reads and writes fold from the events).
        self.snapshots = bool(
            self.fetch("SELECT to_regclass('snapshots') IS NOT NULL")[0][0] and not self.unscoped
        )

    def scoped(self, tenant: str) -> PostgresDatabase:
        """This database (its pool shared) for another tenant."""
        other = copy.copy(self)
        other.tenant = tenant
        other._reading = threading.local()
        return other

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query: in the thread's `reading` transaction, else in a transaction
        of its own on a pooled connection, naming the tenant."""
        values = tuple(text(p) for p in params)
        statement = spelled(statements.unscoped(sql) if self.unscoped else sql)
        held: psycopg.Connection[Any] | None = getattr(self._reading, "conn", None)
        try:
            if held is not None:
                return held.execute(statement, values).fetchall()
            with self.pool.connection() as conn, conn.pipeline(), conn.transaction():
                conn.execute(_SCOPE, (self.tenant,))
                return conn.execute(statement, values).fetchall()
        except PoolTimeout as exc:
            raise StoreError(
                f"no connection to the ledger at {self.name} within {LOCK_TIMEOUT_S} s "
                f"({one_line(exc)})"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Several reads in one REPEATABLE READ transaction: they all see one moment, even
        while other processes append."""
        if getattr(self._reading, "conn", None) is not None:
            yield
            return
        with self.pool.connection() as conn:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            conn.execute(_SCOPE, (self.tenant,))
            self._reading.conn = conn
            try:
                yield
            finally:
                self._reading.conn = None
                with suppress(psycopg.Error):
                    conn.execute("COMMIT")

    def names(self) -> list[str]:
        """Every encounter name of the tenant, in the rows or the heads cache, in code-point
        order."""
        rows = self.fetch(statements.NAMES, (self.tenant, self.tenant))
        return sorted(str(name) for (name,) in rows)

    def fence(self) -> tuple[int, tuple[str, ...]]:
        """(the last position given, the transactions running then): once none of them runs
        (`passed`), every row at or below the position is committed or never will be. The
        sequence is read first, the running transactions after, in two statements: the guard's
        row check gives a position only once its transaction has an id, and a transaction
        holds the lock of its own id from then until it has ended (`pg_locks`, which every
        role may read); no lock is taken here."""
        try:
            with self.pool.connection() as conn:
                last = conn.execute("SELECT last_value, is_called FROM events_position").fetchone()
                running = conn.execute(_RUNNING).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc
        assert last is not None
        return (int(last[0]) if last[1] else 0), tuple(str(x) for (x,) in running)

    def passed(self, token: tuple[str, ...]) -> bool:
        """Whether every transaction of the fence has ended."""
        if not token:
            return True
        try:
            with self.pool.connection() as conn:
                found = conn.execute(
                    f"{_RUNNING} AND transactionid::text = ANY(%s) LIMIT 1", (list(token),)
                ).fetchone()
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc
        return found is None

    def waiter(self, sleep: Callable[[float], None]) -> Callable[[float], None]:
        """With `notify`: a wait on a connection of its own that LISTENs, ended by the next
        append of this tenant (a hint: the follower reads up to the high-water mark either
        way); else `sleep`."""
        if not self.notify:
            return sleep
        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
            conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot listen to the ledger at {self.name}: {one_line(exc)}"
            ) from exc
        self._listening.append(conn)

        def wait(seconds: float) -> None:
            try:
                for note in conn.notifies(timeout=seconds):
                    if note.payload == self.tenant:
                        return
            except psycopg.Error:
                sleep(seconds)  # the hint is lost; polling goes on

        return wait

    @contextmanager
    def writing(self, encounter: str, bulk: bool) -> Iterator[_Writing]:
        """One write transaction holding the encounter's advisory lock, on a pooled connection.
        The server answers COMMIT with ROLLBACK when the transaction failed: never an
        acknowledgement of a write that is not stored."""
        text(encounter)
        if self.readonly:
            raise StoreError(f"the ledger {self.name} is read-only; nothing was appended")
        if self.unscoped:
            raise StoreError(
                f"the ledger at {self.name} has the schema before tenants: open it once as its "
                "owner (`encounter migrate`) to bring it up to date; nothing was appended"
            )
        try:
            with self.pool.connection() as conn:
                conn.execute("BEGIN")
                writing = _Writing(conn)
                try:
                    # The tenant for row-level security, and the lock of the tenant's encounter
                    # (a tenant's name holds no '/'), in one round trip.
                    conn.execute(
                        f"SELECT {_SCOPE_SQL}, pg_advisory_xact_lock(%s, hashtext(%s))",
                        (self.tenant, postgres_schema.LOCK_CLASS, f"{self.tenant}/{encounter}"),
                    )
                    yield writing
                    if self.notify and not writing.discarded:
                        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.tenant))
                    ended = conn.execute("ROLLBACK" if writing.discarded else "COMMIT")
                    if not writing.discarded and ended.statusmessage != "COMMIT":
                        raise StoreError(
                            f"the ledger at {self.name} rolled the write back "
                            f"({ended.statusmessage}); nothing was appended"
                        )
                    if not writing.discarded:
                        for done in writing.committed:
                            done()
                except BaseException:
                    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                        with suppress(psycopg.Error):
                            conn.execute("ROLLBACK")
                    raise
        except psycopg.errors.LockNotAvailable as exc:
            raise Conflict(
                f"encounter {encounter!r} stayed locked by another writer for {LOCK_TIMEOUT_S} s "
                "in the ledger; try again"
            ) from exc
        except PoolTimeout as exc:
            raise StoreError(
                f"no connection to the ledger at {self.name} within {LOCK_TIMEOUT_S} s; "
                "nothing was appended"
            ) from exc
        except psycopg.Error as exc:
            raise _refused(exc) or _write_error(self.name, exc) from exc

    def erased(self) -> None:
        """After an erasure's commit: nothing to do here (the old row versions are dead tuples
        until `VACUUM FULL`, see the docs' hosting page)."""

    def others(self) -> None:
        """A server keeps no count of other sessions' commits: every read checks every row."""
        return None

    def problems(self) -> list[str]:
        """What is wrong with the ledger as a whole: its append-only guard altered, a trigger
        or rule of another hand on its tables, a replication role that skips triggers, its
        row-level security disabled, not forced, or its tenant policy replaced or widened."""
        try:
            with self.pool.connection() as conn:
                said = postgres_guard.problems(conn)
                eraser = postgres_schema.eraser_altered(conn)
                if eraser == "replaced":
                    said.append(
                        f"the erasure function {postgres_schema.ERASE_FUNCTION} was replaced: "
                        "a role allowed to erase may change rows through it (opening the "
                        "ledger as its owner makes it anew)"
                    )
                if not self.unscoped:
                    said += [
                        f"the row-level security of {what}: a session can see or write "
                        "another tenant's rows"
                        for what in postgres_schema.unsecured(conn)
                    ]
                return said
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc

    def rebuild_views(self, encounters: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
        """(Re)create the views and fill `track_changes`, in one transaction on a connection of
        its own (the rows are read from the pool meanwhile)."""
        counts: dict[str, int] = {}
        with self._owner_transaction() as conn:
            for name, sql in views.POSTGRES_VIEWS.items():
                # A view whose columns changed cannot be replaced in place.
                conn.execute(f"DROP VIEW IF EXISTS {name}")
                conn.execute(f"CREATE VIEW {name} AS {sql}")
            conn.execute(_SCOPE, (self.tenant,))
            kept = conn.execute(
                "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('track_changes') "
                "AND attname = 'tenant'"
            ).fetchone()
            if kept == (0,):  # a read model made before tenants: made anew
                conn.execute(f"DROP TABLE IF EXISTS {views.TRACK_CHANGES}")
            for statement in views.POSTGRES_TRACK_CHANGES:
                conn.execute(statement)
            for statement in postgres_schema.security(views.TRACK_CHANGES):
                conn.execute(statement)
            conn.execute(spelled(views.CLEAR_CHANGES), (self.tenant,))
            columns = ", ".join(views.COLUMNS)
            with conn.cursor().copy(f"COPY track_changes ({columns}) FROM STDIN") as copy:
                for rows in encounters:
                    for row in rows:
                        counts[row["encounter"]] = counts.get(row["encounter"], 0) + 1
                        copy.write_row(views.postgres_cells(row))
            conn.execute(views.POSTGRES_INDEX)
        return counts

    def drop_views(self) -> bool:
        """Delete the read model (every tenant's: the owner's act) and the views (the events
        lose nothing)."""
        with self._owner_transaction() as conn:
            for name in views.POSTGRES_VIEWS:
                conn.execute(f"DROP VIEW IF EXISTS {name}")
            conn.execute(f"DROP TABLE IF EXISTS {views.TRACK_CHANGES}")
        return True

    @contextmanager
    def _owner_transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of its own in one transaction; a refused privilege is the one-line
        error that says who may do it."""
        try:
            with (
                psycopg.connect(
                    self.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
                ) as conn,
                conn.transaction(),
            ):
                yield conn
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"cannot make the SQL views in {self.name} ({one_line(exc)}): run `encounter "
                "views` as the ledger's owner (see the docs' hosting page)"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot make the SQL views in {self.name}: {one_line(exc)}") from exc

    def close(self) -> None:
        """Close the pool's connections (and the followers' listening ones)."""
        for conn in self._listening:
            with suppress(psycopg.Error):
                conn.close()
        self.pool.close()


class AsyncListener:
    """The wake-up of an asyncio follower: `LISTEN` on an `AsyncConnection` of its own, so a
    follower waits in the event loop (no thread parked on it) and wakes at the next append of
    its tenant. A hint only: the follower reads up to the high-water mark either way."""

    def __init__(self, conn: psycopg.AsyncConnection[Any], tenant: str) -> None:
        self.conn = conn
        self.tenant = tenant

    @classmethod
    async def listen(cls, url: str, tenant: str) -> AsyncListener:
        """A listener on the ledger at `url` for `tenant`'s appends."""
        try:
            conn = await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
            )
            await conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot listen to the ledger at {redacted(url)}: {one_line(exc)}"
            ) from exc
        return cls(conn, tenant)

    async def wait(self, seconds: float) -> None:
        """Until the tenant's next append, or `seconds` (a notification that came while the
        follower was reading waits in the connection, and ends this wait at once)."""
        try:
            async for note in self.conn.notifies(timeout=seconds):
                if note.payload == self.tenant:
                    return
        except psycopg.Error:
            await asyncio.sleep(seconds)  # the hint is lost; polling goes on

    async def close(self) -> None:
        """Close the listening connection."""
        with suppress(psycopg.Error):
            await self.conn.close()


class _Writing:
    """The connection inside one write transaction, holding the encounter's advisory lock."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.discarded = False
        self.committed: list[Callable[[], None]] = []

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(spelled(sql), tuple(text(p) for p in params)).fetchall()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(spelled(sql), tuple(text(p) for p in params))

    def insert(self, tenant: str, rows: Sequence[Row]) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(
                spelled(statements.INSERT), [(tenant, *(text(v) for v in row)) for row in rows]
            )

    def discard(self) -> None:
        self.discarded = True

    def after_commit(self, done: Callable[[], None]) -> None:
        self.committed.append(done)

    def others(self) -> None:
        """A server has no count of other sessions' commits: every write checks every row."""
        return None

    def hold(self, tenant: str, encounter: str) -> None:
        """Take the lock of another encounter of the tenant too (until the transaction ends)."""
        self.conn.execute(
            "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
            (postgres_schema.LOCK_CLASS, f"{tenant}/{text(encounter)}"),
        )

    def erase(self, tenant: str, encounter: str) -> None:
        key = (tenant, encounter)
        made = self.conn.execute(
            "SELECT to_regprocedure(%s) IS NOT NULL",
            (f"{postgres_schema.ERASE_FUNCTION}(text, text)",),
        ).fetchone()
        if made != (True,):
            # Every open by the owner makes it: only a role that is not the owner, on a database
            # the owner has not opened since erasure came, finds it missing.
            raise StoreError(
                f"this database has no {postgres_schema.ERASE_FUNCTION} function, through "
                "which the ledger erases: open it once as its owner (any write, or `encounter "
                "migrate`), then grant the erasing role EXECUTE on it (see the hosting page)"
            )
        # The one sanctioned path, which the app role may be granted (no UPDATE of its own).
        self.conn.execute(f"SELECT {postgres_schema.ERASE_FUNCTION}(%s, %s)", key)


def open_postgres(
    url: str,
    clock: Callable[[], datetime] = now_utc,
    create: bool = True,
    readonly: bool = False,
    pool_size: int | None = None,
    tenant: str = DEFAULT_TENANT,
    notify: bool = False,
) -> SqlStore:
    """The store of a PostgreSQL database, for one tenant."""
    size = connections(url, pool_size, notify)
    database = PostgresDatabase(
        url, create=create, readonly=readonly, pool_size=size, tenant=tenant, notify=notify
    )
    return SqlStore(database, clock)


def _configure(conn: psycopg.Connection[Any]) -> None:
    # Once a connection, not once an append.
    conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'")


def _refused(exc: psycopg.Error) -> BadInput | None:
    """Bad input when the server refused an event's row for what it holds: an id stored
    already (by another writer, since this one checked), or text PostgreSQL cannot hold."""
    if isinstance(exc, psycopg.errors.UniqueViolation) and exc.diag.constraint_name == _ID_KEY:
        return BadInput(f"an event id in this batch is already stored: {one_line(exc)}")
    if isinstance(exc, psycopg.DataError):
        return BadInput(f"PostgreSQL cannot store this event: {one_line(exc)}")
    return None


def _write_error(name: str, exc: psycopg.Error) -> LedgerError:
    """A failed write as the ledger's own error: nothing was appended."""
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(
            f"the ledger at {name} refused the write ({one_line(exc)}); nothing was appended"
        )
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return StoreError(f"the ledger at {name} is read-only; nothing was appended")
    return StoreError(
        f"cannot write to the ledger at {name} ({one_line(exc)}); nothing was appended"
    )
