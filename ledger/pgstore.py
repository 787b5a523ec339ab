"""The PostgreSQL event store (psycopg 3): the SQLite store's contract, on a server.

The same `events` table and hash chain; append-only enforced by triggers (and by a role without
UPDATE or DELETE, see the README's Hosting section). An append is one transaction holding an
advisory lock keyed by the encounter, so writers of one encounter queue while writers of different
encounters never wait for each other. The library's connections come from a pool; a read stream
takes a connection for one page of rows at a time, never between pages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from ledger import cache, chain, events, pgcache
from ledger.chain import ChainReport
from ledger.errors import (
    BadInput,
    Conflict,
    LedgerError,
    StoreError,
    UnknownName,
)
from ledger.pgcache import PgCache
from ledger.pgreads import HEAD_COLUMNS, PgReads, head_and_last, heads_of, one_line, text
from ledger.rows import COLUMNS, Head, now_utc, written
from ledger.stores import (
    WarnsOnce,
    against_heads,
    check_expect,
    check_write_args,
    checked_rows,
    heads_agree,
    heads_disagreement,
)
from ledger.transaction import Transaction

#: The library's default pool: at most this many connections per `Ledger` (one per thread that
#: reads or writes at the same moment); `Ledger(url, pool_size=N)` changes it.
POOL_SIZE: Final = 4
#: How long an append waits for another writer of the same encounter before it is a conflict.
LOCK_TIMEOUT_S: Final = 60
CONNECT_TIMEOUT_S: Final = 10
#: The advisory-lock namespace of the ledger (two-key form: this, then hashtext(encounter)).
_LOCK_CLASS: Final = 0x4C45
#: The unique constraint of the events' ids (PostgreSQL's name for `id ... UNIQUE`).
_ID_KEY: Final = "events_id_key"
#: A write's head read, asking too whether the projection cache's tables can be used.
_HEAD_AND_USABLE: Final = head_and_last(pgcache.USABLE)
_SCHEMA_LOCK: Final = 0

_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS events (
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        body TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    )""",
    """CREATE OR REPLACE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are append-only: % refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END $$""",
    """CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change()""",
    """CREATE OR REPLACE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change()""",
    """CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()""",
    """CREATE INDEX IF NOT EXISTS events_retractions ON events (encounter, seq)
    WHERE type = 'event.retracted'""",
    """CREATE INDEX IF NOT EXISTS events_corrections ON events (encounter, seq)
    WHERE type = 'event.corrected'""",
    """CREATE TABLE IF NOT EXISTS heads (
        encounter TEXT PRIMARY KEY,
        system TEXT NOT NULL,
        title TEXT,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        verified BIGINT NOT NULL DEFAULT 0
    )""",
    *pgcache.SCHEMA,
)
_TRIGGERS: Final = ("events_no_update", "events_no_delete", "events_no_truncate")

_INSERT: Final = f"INSERT INTO events ({COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)"
_PUT_HEAD: Final = (
    f"INSERT INTO heads ({HEAD_COLUMNS}, verified) VALUES (%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (encounter) DO UPDATE SET system = EXCLUDED.system, title = EXCLUDED.title, "
    "seq = EXCLUDED.seq, hash = EXCLUDED.hash, opened_at = EXCLUDED.opened_at, "
    "updated_at = EXCLUDED.updated_at, verified = EXCLUDED.verified"
)


def redacted(url: str) -> str:
    """The URL without its password (it names the ledger in messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


class PgStore(WarnsOnce, PgReads):
    """One ledger in a PostgreSQL database, named by a `postgresql://` URL; a connection pool."""

    def __init__(
        self,
        url: str,
        clock: Callable[[], datetime] = now_utc,
        create: bool = True,
        readonly: bool = False,
        pool_size: int = POOL_SIZE,
    ) -> None:
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
            raise BadInput(f"pool_size must be a whole number of at least 1, not {pool_size!r}")
        self.url = url
        self.clock = clock
        self.readonly = readonly
        self._told: set[str] = set()
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                self._ensure_schema(conn, create and not readonly)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"cannot create the ledger's tables in {self.name} ({one_line(exc)}): "
                "create them once as the database owner (see the README's Hosting section)"
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

    @property
    def name(self) -> str:
        """The URL without its password."""
        return redacted(self.url)

    @property
    def cache_db(self) -> PgCache:
        """The projection cache's tables, read a statement at a time from the pool."""
        return PgCache.pooled(self.pool.connection, self.name)

    def _ensure_schema(self, conn: psycopg.Connection[Any], create: bool) -> None:
        present = conn.execute(
            "SELECT to_regclass('events') IS NOT NULL, to_regclass('heads') IS NOT NULL, "
            f"{pgcache.SEALED}"
        ).fetchone()
        if present is not None and present[:2] == (True, True):
            if not self.readonly and _missing_triggers(conn):
                # As a write recreates SQLite's: only a role that may (the owner) does.
                with suppress(psycopg.errors.InsufficientPrivilege), conn.transaction():
                    for statement in _SCHEMA[1:5]:
                        conn.execute(statement)
                    # Rows may have changed meanwhile: the next write of each encounter checks
                    # its whole chain, not only the tail after a mark set before.
                    conn.execute("UPDATE heads SET verified = 0")
            if not self.readonly and not present[2]:
                # A ledger made before the projection cache (or part of it, or before its rows
                # carried digests), or whose cache was dropped: the owner's next open makes it
                # anew, empty, so that no table is missing beside others that count on it; until
                # then reads fold from the events.
                with suppress(psycopg.errors.InsufficientPrivilege), conn.transaction():
                    create_cache(conn, anew=True)
            return
        if not create and present is not None and not present[0]:
            raise UnknownName(
                f"no ledger at {self.name} (start one with `encounter new`)", code="no-ledger"
            )
        with conn.transaction():
            # Two processes opening a fresh database must not both create the tables.
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, _SCHEMA_LOCK))
            rebuild = conn.execute("SELECT to_regclass('heads') IS NULL").fetchone() == (True,)
            for statement in _SCHEMA:
                conn.execute(statement)
            if rebuild:
                _rebuild_heads(conn)

    def close(self) -> None:
        """Close the pool's connections."""
        self.pool.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads as one: each is bounded by the head it read (rows are append-only and
        the head and its rows commit together), so no transaction needs holding open."""
        yield

    def problems(self) -> list[str]:
        """What is wrong with the ledger as a whole (the append-only triggers)."""
        try:
            with self.pool.connection() as conn:
                missing = _missing_triggers(conn)
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc
        return [
            f"the append-only trigger {name} is missing: rows can be changed without a trace in "
            "the database (opening the ledger as its owner recreates it)"
            for name in missing
        ]

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self.pool.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except PoolTimeout as exc:
            raise StoreError(
                f"no connection to the ledger at {self.name} within {LOCK_TIMEOUT_S} s "
                f"({one_line(exc)})"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {one_line(exc)}") from exc

    @contextmanager
    def begin(
        self, encounter: str, expect: int | None = None, *, bulk: bool = False
    ) -> Iterator[Transaction]:
        """One write transaction: the encounter's advisory lock is taken, its head read from
        the events, the chain after the verified mark and `expect` checked, and everything
        appended commits together or not at all (or is rolled back when it was discarded).
        A `bulk` transaction is run as any other: the server's buffers are its own."""
        check_write_args(encounter, expect)
        text(encounter)
        if self.readonly:
            raise StoreError(f"the ledger {self.name} is read-only; nothing was appended")
        try:
            with self.pool.connection() as conn:
                yield from self._in_pipeline(conn, encounter, expect)
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

    def _in_pipeline(
        self, conn: psycopg.Connection[Any], encounter: str, expect: int | None
    ) -> Iterator[Transaction]:
        """The write transaction on `conn`, in pipeline mode (psycopg's, where libpq has it):
        a statement whose result is not read yet waits in the connection's queue, so BEGIN,
        the lock and the head (with the cache's privileges) share one round trip, the event's
        row rides with the head view's update, and the writes after the last read share the
        COMMIT's. BEGIN and COMMIT are sent by hand (the pool's connections are in autocommit):
        psycopg's transaction block would sync the pipeline as it opens, before its COMMIT and
        after it. An append makes 3 round trips (10-11 before pipelining)."""
        try:
            with _pipeline(conn):
                conn.execute("BEGIN")
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, encounter)
                )
                reads = _Reads(self, conn)
                head, verified, repaired = reads.checked_head(encounter)
                check_expect(encounter, head.seq if head else 0, expect)
                txn = PgTransaction(reads, encounter, head, verified, repaired)
                if head is not None and verified < head.seq:
                    prev = reads.hash_at(encounter, verified)
                    txn.check_tail(reads.pages(encounter, verified, head.seq), prev)
                yield txn
                if not txn.discarded:
                    txn.finish()
                ended = conn.execute("ROLLBACK" if txn.discarded else "COMMIT")
            # The server answers COMMIT with ROLLBACK when the transaction failed: never an
            # acknowledgement of a write that is not stored.
            if not txn.discarded and ended.statusmessage != "COMMIT":
                raise StoreError(
                    f"the ledger at {self.name} rolled the write back ({ended.statusmessage}); "
                    "nothing was appended"
                )
        except BaseException:
            # The pipeline has ended (synced): whatever the server still holds open is undone.
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                with suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
            raise

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify, and say
        when the heads cache disagrees with the rows."""
        cached, _, _ = self.heads_row(encounter)
        report = chain.verify_rows(encounter, self.raw_rows(encounter), None)
        self.told(encounter)
        return against_heads(report, cached)


class _Reads(PgReads):
    """The reads of one open write transaction, on its connection."""

    def __init__(self, store: PgStore, conn: psycopg.Connection[Any]) -> None:
        self._store = store
        self.conn = conn
        self.clock = store.clock
        self._cache = PgCache.in_transaction(conn, store.name, create_cache)

    @property
    def cache_db(self) -> PgCache:
        """The projection cache's tables, written in this transaction (under its lock)."""
        return self._cache

    @property
    def name(self) -> str:
        return self._store.name

    def tell(self, encounter: str, message: str) -> None:
        self._store.tell(encounter, message)

    def told(self, encounter: str) -> None:
        self._store.told(encounter)

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    def checked_head(self, encounter: str) -> tuple[Head | None, int, bool]:
        """The head to extend, the seq the chain is verified through, and whether the heads
        cache had to be repaired: the rows win when they disagree with it. The same query
        asks whether the cache's tables can be used (one statement less a write)."""
        row = self._fetch(_HEAD_AND_USABLE, (text(encounter),))[0]
        self._cache.answered(row[11])
        cached, verified, last = heads_of(row)
        if heads_agree(cached, last):
            return cached, verified, False
        self.tell(encounter, heads_disagreement(encounter, cached, last, "repaired from the rows"))
        # The mark came with the cache: the whole chain is checked again.
        return self.derived_head(encounter, last), 0, True


class PgTransaction(Transaction):
    """A write transaction on one pooled connection, holding the encounter's advisory lock."""

    def __init__(
        self, reads: _Reads, encounter: str, head: Head | None, verified: int, repaired: bool
    ) -> None:
        super().__init__(encounter, head, reads.clock, verified=verified, repaired=repaired)
        self._reads = reads

    @property
    def cache_db(self) -> PgCache:
        """The projection cache's tables, written in this transaction (under its lock)."""
        return self._reads.cache_db

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        # In pipeline mode the rows go with the write's next round trip, and a refusal comes
        # back with its answer: `PgStore.begin` tells it (`_refused`) wherever it surfaces.
        with self._reads.conn.cursor() as cursor:
            if len(rows) == 1:  # a write's one event: executemany's pipeline costs more
                cursor.execute(_INSERT, rows[0])
            else:
                cursor.executemany(_INSERT, rows)

    def _stored_rows(self, system: str, after: int, upto: int) -> Iterator[events.Recorded]:
        reads, encounter = self._reads, self.encounter
        prev = reads.hash_at(encounter, after)
        return checked_rows(
            reads.pages(encounter, after, upto),
            encounter,
            system,
            after,
            prev,
            lambda _, seq, problem: self.broken(seq, problem),
        )

    def _stored_revisions(self, system: str, upto: int) -> list[events.Recorded]:
        return self._reads.revisions(self.encounter, system, upto)

    def _stored_by_id(self, id: str, systems: dict[str, str]) -> events.Recorded | None:
        return self._reads.by_id(id, systems)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of these ids are stored, in any encounter."""
        return self._reads.stored_ids(ids)

    def _stored_seqs_from(self, upto: int) -> Iterator[tuple[int, str]]:
        return self._reads.seqs_from_head(self.encounter, upto)

    def _put_head(self, head: Head) -> None:
        self._reads.conn.execute(_PUT_HEAD, (*written(head), head.seq))


def _pipeline(conn: psycopg.Connection[Any]) -> AbstractContextManager[Any]:
    """Pipeline mode where the libpq psycopg runs on has it (14 and later; psycopg's binary
    wheels bring their own), else each statement waits for its answer as before."""
    return conn.pipeline() if psycopg.Pipeline.is_supported() else nullcontext()


def create_cache(conn: psycopg.Connection[Any], anew: bool = False) -> None:
    """Create the projection cache's missing tables (`anew`: all of them, empty) inside the
    caller's transaction, under the schema lock: two writers finding them dropped must not both
    create them; a table of an earlier version, without digests, is replaced, empty. (A write
    that creates the rolls table rewrites every roll of its view.)"""
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (_LOCK_CLASS, _SCHEMA_LOCK))
    for table in cache.TABLES:
        sealed = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = 'digest' AND NOT attisdropped)",
            (table,),
        ).fetchone()
        if anew or sealed != (True,):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in pgcache.SCHEMA:
        conn.execute(statement)


def _configure(conn: psycopg.Connection[Any]) -> None:
    # Once a connection, not once an append: a round trip less on every write.
    conn.execute(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'")


def _missing_triggers(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass AND NOT tgisinternal"
    ).fetchall()
    present = {name for (name,) in rows}
    return [name for name in _TRIGGERS if name not in present]


def _opened_fields(body: Any) -> dict[str, Any]:
    try:
        opened = json.loads(body)
    except (TypeError, ValueError):
        return {}
    return opened if isinstance(opened, dict) else {}


def _rebuild_heads(conn: psycopg.Connection[Any]) -> None:
    rows = conn.execute(
        "SELECT e.encounter, e.body, e.recorded_at, h.seq, h.hash, h.recorded_at FROM events e "
        "JOIN (SELECT encounter, MAX(seq) AS top FROM events GROUP BY encounter) t "
        "ON e.encounter = t.encounter AND e.seq = 1 "
        "JOIN events h ON h.encounter = t.encounter AND h.seq = t.top"
    ).fetchall()
    for encounter, body, opened_at, seq, digest, updated_at in rows:
        opened = _opened_fields(body)
        conn.execute(
            _PUT_HEAD,
            (
                encounter,
                opened.get("system", "?"),
                opened.get("title"),
                seq,
                digest,
                opened_at,
                updated_at,
                0,
            ),
        )


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
