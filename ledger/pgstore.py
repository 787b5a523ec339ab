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
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import psycopg
import psycopg.errors
from psycopg_pool import ConnectionPool, PoolTimeout

from ledger import chain, events
from ledger.chain import ChainReport
from ledger.errors import BadInput, Conflict, LedgerError, StoreError, UnknownName
from ledger.rows import COLUMNS, Head, head_of, load, now_utc
from ledger.stores import check_expect, check_write_args, unknown_encounter
from ledger.writer import Writer

#: The library's default pool: at most this many connections per `Ledger` (one per thread that
#: reads or writes at the same moment); `Ledger(url, pool_size=N)` changes it.
POOL_SIZE: Final = 4
#: How long an append waits for another writer of the same encounter before it is a conflict.
LOCK_TIMEOUT_S: Final = 60
CONNECT_TIMEOUT_S: Final = 10
#: Rows read per round trip by a stream (bounded memory on a long encounter).
PAGE: Final = 2000
#: The advisory-lock namespace of the ledger (two-key form: this, then hashtext(encounter)).
_LOCK_CLASS: Final = 0x4C45
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
    """CREATE TABLE IF NOT EXISTS heads (
        encounter TEXT PRIMARY KEY,
        system TEXT NOT NULL,
        title TEXT,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
)

_HEAD_COLUMNS: Final = "encounter, system, title, seq, hash, opened_at, updated_at"
_INSERT: Final = f"INSERT INTO events ({COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)"
_PUT_HEAD: Final = (
    f"INSERT INTO heads ({_HEAD_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (encounter) DO UPDATE SET system = EXCLUDED.system, title = EXCLUDED.title, "
    "seq = EXCLUDED.seq, hash = EXCLUDED.hash, opened_at = EXCLUDED.opened_at, "
    "updated_at = EXCLUDED.updated_at"
)
#: An encounter's head recomputed from its events (seq 1 and the last row): what an append
#: trusts, so a stale or missing `heads` row can never misplace a seq.
_HEAD_FROM_EVENTS: Final = (
    "SELECT f.body, f.recorded_at, l.seq, l.hash, l.recorded_at FROM events f, LATERAL "
    "(SELECT seq, hash, recorded_at FROM events WHERE encounter = f.encounter "
    "ORDER BY seq DESC LIMIT 1) l WHERE f.encounter = %s AND f.seq = 1"
)


def redacted(url: str) -> str:
    """The URL without its password (it names the ledger in messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class _Reads:
    """The reads of both a pooled store and an open transaction, over one `_fetch`."""

    clock: Callable[[], datetime]

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    @property
    def name(self) -> str:
        raise NotImplementedError

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist."""
        rows = self._fetch(
            f"SELECT {_HEAD_COLUMNS} FROM heads WHERE encounter = %s", (_text(encounter),)
        )
        return head_of(rows[0]) if rows else None

    def encounters(self) -> list[Head]:
        """Every encounter's head, by name (in code-point order, as SQLite sorts)."""
        rows = self._fetch(f'SELECT {_HEAD_COLUMNS} FROM heads ORDER BY encounter COLLATE "C"')
        return [head_of(row) for row in rows]

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""
        head = self.head(encounter)
        if head is None:
            raise unknown_encounter(encounter, self.name, self.encounters())
        return head

    def records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's events in seq order, parsed."""
        return list(self.iter_records(encounter, after, upto))

    def iter_records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> Iterator[events.Recorded]:
        """The encounter's events in seq order, parsed lazily."""
        head = self.require(encounter)
        return self.load_rows(encounter, head.system, after, head.seq if upto is None else upto)

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time (paged)."""
        for row in self._pages(encounter, after, upto):
            yield load(row, system)

    def _pages(self, encounter: str, after: int, upto: int) -> Iterator[tuple[Any, ...]]:
        encounter = _text(encounter)
        while after < upto:
            rows = self._fetch(
                f"SELECT {COLUMNS} FROM events WHERE encounter = %s AND seq > %s AND seq <= %s "
                "ORDER BY seq LIMIT %s",
                (encounter, after, upto, PAGE),
            )
            yield from rows
            if len(rows) < PAGE:
                return
            after = rows[-1][1]

    def retractions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's `event.retracted` events up to seq `upto` (an index serves them)."""
        rows = self._fetch(
            f"SELECT {COLUMNS} FROM events WHERE encounter = %s AND type = 'event.retracted' "
            "AND seq <= %s ORDER BY seq",
            (_text(encounter), upto if upto is not None else 2**62),
        )
        return [load(row, system) for row in rows]

    def seqs_from_head(self, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events at or below `upto`, newest first (paged)."""
        while upto > 0:
            rows = self._fetch(
                "SELECT seq, type FROM events WHERE encounter = %s AND seq <= %s "
                "ORDER BY seq DESC LIMIT %s",
                (_text(encounter), upto, PAGE),
            )
            for seq, kind in rows:
                yield int(seq), str(kind)
            if len(rows) < PAGE:
                return
            upto = rows[-1][0] - 1

    def type_at(self, encounter: str, seq: int) -> str | None:
        """The type of the event at `seq`, if stored."""
        rows = self._fetch(
            "SELECT type FROM events WHERE encounter = %s AND seq = %s", (_text(encounter), seq)
        )
        return str(rows[0][0]) if rows else None

    def by_id(self, id: str) -> events.Recorded | None:
        """The stored event with this id, if any."""
        rows = self._fetch(f"SELECT {COLUMNS} FROM events WHERE id = %s", (_text(id),))
        if not rows:
            return None
        return load(rows[0], self.require(rows[0][0]).system)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` are stored, in any encounter."""
        wanted = [_text(i) for i in dict.fromkeys(ids)]
        found: set[str] = set()
        for start in range(0, len(wanted), PAGE):
            rows = self._fetch(
                "SELECT id FROM events WHERE id = ANY(%s)", (wanted[start : start + PAGE],)
            )
            found.update(row[0] for row in rows)
        return found

    def raw_rows(self, encounter: str) -> Iterator[tuple[Any, ...]]:
        """Stored rows as they are, for verification and export."""
        return self._pages(encounter, 0, 2**62)

    def stored_encounters(self) -> list[str]:
        """Every encounter name that has rows, read from the events themselves."""
        return [str(r[0]) for r in self._fetch("SELECT DISTINCT encounter FROM events")]


class PgStore(_Reads):
    """One ledger in a PostgreSQL database, named by a `postgresql://` URL; a connection pool."""

    def __init__(
        self,
        url: str,
        clock: Callable[[], datetime] = now_utc,
        create: bool = True,
        pool_size: int = POOL_SIZE,
    ) -> None:
        if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
            raise BadInput(f"pool_size must be a whole number of at least 1, not {pool_size!r}")
        self.url = url
        self.clock = clock
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn:
                self._ensure_schema(conn, create)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"cannot create the ledger's tables in {self.name} ({_one_line(exc)}): "
                "create them once as the database owner (see the README's Hosting section)"
            ) from exc
        except (psycopg.Error, psycopg.ProgrammingError) as exc:
            raise StoreError(f"cannot open the ledger at {self.name}: {_one_line(exc)}") from exc
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
            timeout=LOCK_TIMEOUT_S,
            open=True,
        )

    @property
    def name(self) -> str:
        """The URL without its password."""
        return redacted(self.url)

    def _ensure_schema(self, conn: psycopg.Connection[Any], create: bool) -> None:
        present = conn.execute(
            "SELECT to_regclass('events') IS NOT NULL, to_regclass('heads') IS NOT NULL"
        ).fetchone()
        if present == (True, True):
            return
        if not create and present is not None and not present[0]:
            raise UnknownName(f"no ledger at {self.name} (start one with `encounter new`)")
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

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            with self.pool.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except PoolTimeout as exc:
            raise StoreError(
                f"no connection to the ledger at {self.name} within {LOCK_TIMEOUT_S} s "
                f"({_one_line(exc)})"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot read the ledger at {self.name}: {_one_line(exc)}") from exc

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Outside a write transaction there is nothing to insert into (see `writing`)."""
        raise StoreError("rows are inserted inside `writing()` only")

    @contextmanager
    def writing(self, encounter: str, expect: int | None = None) -> Iterator[Writer]:
        """One atomic append: the encounter's lock is taken, its head read from the events,
        `expect` checked, and everything the writer appends commits together or not at all."""
        check_write_args(encounter, expect)
        _text(encounter)
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT_S}s'")
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_CLASS, encounter)
                )
                txn = _Transaction(self, conn)
                head = txn.current_head(encounter)
                check_expect(encounter, head.seq if head else 0, expect)
                writer = Writer(txn, encounter, head)
                yield writer
                writer.flush()
                h = writer.head
                if h is not None and writer.appended:
                    conn.execute(
                        _PUT_HEAD,
                        (h.encounter, h.system, h.title, h.seq, h.hash, h.opened_at, h.updated_at),
                    )
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
            raise _write_error(self.name, exc) from exc

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""
        head = self.head(encounter)
        acknowledged = (head.seq, head.hash) if head is not None else None
        return chain.verify_rows(encounter, self.raw_rows(encounter), acknowledged)


class _Transaction(_Reads):
    """One open write transaction: what its `Writer` reads and inserts, on its connection."""

    def __init__(self, store: PgStore, conn: psycopg.Connection[Any]) -> None:
        self._store = store
        self._conn = conn
        self.clock = store.clock

    @property
    def name(self) -> str:
        return self._store.name

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._conn.execute(sql, params).fetchall()

    def current_head(self, encounter: str) -> Head | None:
        """The head as the events say (the `heads` row is a cache, checked here)."""
        rows = self._fetch(_HEAD_FROM_EVENTS, (encounter,))
        if not rows:
            return None
        body, opened_at, seq, digest, updated_at = rows[0]
        opened = _opened_fields(body)
        return Head(
            encounter=encounter,
            system=opened.get("system", "?"),
            title=opened.get("title"),
            seq=seq,
            hash=digest,
            opened_at=opened_at,
            updated_at=updated_at,
        )

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert built rows inside this transaction."""
        try:
            with self._conn.cursor() as cursor:
                cursor.executemany(_INSERT, rows)
        except psycopg.errors.UniqueViolation as exc:
            raise BadInput(
                f"an event id in this batch is already stored: {_one_line(exc)}"
            ) from exc
        except psycopg.DataError as exc:
            raise BadInput(f"PostgreSQL cannot store this event: {_one_line(exc)}") from exc


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
            ),
        )


def _text(value: str) -> str:
    """Text PostgreSQL can hold: it refuses the NUL character, which SQLite would keep."""
    if isinstance(value, str) and "\x00" in value:
        raise BadInput(f"{value!r} holds a NUL character, which the ledger cannot store")
    return value


def _write_error(name: str, exc: psycopg.Error) -> LedgerError:
    """A failed write as the ledger's own error: nothing was appended."""
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(
            f"the ledger at {name} refused the write ({_one_line(exc)}); nothing was appended"
        )
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return StoreError(f"the ledger at {name} is read-only; nothing was appended")
    return StoreError(
        f"cannot write to the ledger at {name} ({_one_line(exc)}); nothing was appended"
    )
