"""The projection cache's tables on PostgreSQL (`ledger.cache.CacheTables`), through psycopg.

The tables are created with the events schema. They are a cache, not append-only: the ledger's
role updates and deletes their rows (see the README's Hosting section). Inside a write they are
written on the write transaction's connection, under its advisory lock, so a write's cache rows
commit with its events or not at all. An error inside a PostgreSQL transaction aborts it, so a
transaction first asks once whether the tables are there and writable (creating them when it
may, and replacing, empty, tables written before rows carried their digest); when they are
not, the cache is left alone and reads fold from the events. Each row carries the digest of its
key and text (`ledger.rowdigest`), which its readers check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Final

import psycopg
import psycopg.errors
from psycopg_pool import PoolTimeout

from ledger.cache import TABLES, SnapshotRow, StoredSnapshot, StoredView
from ledger.errors import StoreError
from ledger.pgreads import one_line
from ledger.rowdigest import roll_row, snapshot_row, view_row

SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS cache_snapshots (
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        gone TEXT NOT NULL,
        state TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    )""",
    # As in a SQLite file: one row for the head (name ''), one a combatant; one a roll.
    """CREATE TABLE IF NOT EXISTS cache_views (
        encounter TEXT NOT NULL,
        name TEXT NOT NULL,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        view TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, name)
    )""",
    """CREATE TABLE IF NOT EXISTS cache_rolls (
        encounter TEXT NOT NULL,
        n BIGINT NOT NULL,
        roll TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, n)
    )""",
)
#: Whether every table has its rows' digests (a table of an earlier version has none).
SEALED: Final = " AND ".join(
    f"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('{table}') "
    "AND attname = 'digest' AND NOT attisdropped)"
    for table in TABLES
)
#: Whether the tables exist, with digests, and this role may read and write them (NULL: a
#: table is missing or has no digests; one privilege a call, as a list of them asks whether
#: any is held).
USABLE: Final = "CASE WHEN {} THEN {} END".format(
    SEALED,
    " AND ".join(
        f"has_table_privilege(to_regclass('{table}'), '{privilege}')"
        for table in TABLES
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE")
    ),
)
_USABLE: Final = f"SELECT {USABLE}"
_PUT_SNAPSHOT: Final = (
    "INSERT INTO cache_snapshots (encounter, seq, hash, gone, state, digest) "
    "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (encounter, seq) DO UPDATE SET hash = EXCLUDED.hash, "
    "gone = EXCLUDED.gone, state = EXCLUDED.state, digest = EXCLUDED.digest"
)
_PUT_ROLL: Final = (
    "INSERT INTO cache_rolls (encounter, n, roll, digest) VALUES (%s,%s,%s,%s) "
    "ON CONFLICT (encounter, n) DO UPDATE SET roll = EXCLUDED.roll, digest = EXCLUDED.digest"
)
#: Rolls read per round trip when the audit compares them (a long fight has many).
_ROLL_PAGE: Final = 2000
_PUT_VIEW: Final = (
    "INSERT INTO cache_views (encounter, name, seq, hash, view, digest) "
    "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (encounter, name) DO UPDATE SET "
    "seq = EXCLUDED.seq, hash = EXCLUDED.hash, view = EXCLUDED.view, digest = EXCLUDED.digest"
)


Connect = Callable[[], AbstractContextManager[psycopg.Connection[Any]]]


class PgCache:
    """The cache tables of one PostgreSQL ledger: on a pooled connection a statement at a time
    (`PgCache.pooled`), or on an open write transaction's (`PgCache.in_transaction`)."""

    def __init__(self, connect: Connect, name: str, transaction: bool) -> None:
        self._connect = connect
        self._name = name
        self._transaction = transaction
        self._usable: bool | None = None if transaction else True
        #: Called when the tables are found missing inside a transaction, to create them under
        #: the schema lock (the store's `create_cache`; None outside a transaction).
        self.create: Callable[[psycopg.Connection[Any]], None] | None = None
        #: The answer to `USABLE` when a read of the write asked it (`answered`).
        self._answer: tuple[bool | None] | None = None
        #: (encounter, n of its last stored roll) as `move_view` read it, for `last_roll`.
        self._last_roll: tuple[str, int] | None = None

    @classmethod
    def pooled(cls, connect: Connect, name: str) -> PgCache:
        """The tables read outside any write (a missing or unreadable table finds nothing)."""
        return cls(connect, name, transaction=False)

    @classmethod
    def in_transaction(
        cls,
        conn: psycopg.Connection[Any],
        name: str,
        create: Callable[[psycopg.Connection[Any]], None],
    ) -> PgCache:
        """The tables inside the write transaction open on `conn`."""

        @contextmanager
        def same() -> Iterator[psycopg.Connection[Any]]:
            yield conn

        tables = cls(same, name, transaction=True)
        tables.create = create
        return tables

    def answered(self, usable: bool | None) -> None:
        """The answer to `USABLE` (whether the tables can be used; None: one is missing),
        asked by the write's own first read (`PgStore.begin` asks it with the head)."""
        self._answer = (usable,)

    def _ready(self, conn: psycopg.Connection[Any]) -> bool:
        """Whether the tables can be used here (asked once a transaction, made when missing)."""
        if self._usable is None:
            row = self._answer if self._answer is not None else conn.execute(_USABLE).fetchone()
            usable = row is not None and row[0] is True
            if row is not None and row[0] is None and self.create is not None:
                if conn.pgconn.pipeline_status != psycopg.pq.PipelineStatus.OFF:
                    # What the write queued answers first: a refusal of its own rows is the
                    # write's error, not a refusal to create the tables.
                    with conn.pipeline():
                        pass
                try:
                    with conn.transaction():  # a savepoint: a refusal leaves the write intact
                        self.create(conn)
                    usable = True
                except psycopg.Error:
                    usable = False  # a role that may not create them: reads fold instead
            self._usable = usable
        return self._usable

    def _query(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]] | None:
        """The rows of one read; None when the tables are missing or this role may not read
        them (reads then fold from the events)."""
        if self._transaction:  # its errors are the write's (`PgStore.begin` says them)
            with self._connect() as conn:
                return conn.execute(sql, params).fetchall() if self._ready(conn) else None
        try:
            with self._connect() as conn:
                return conn.execute(sql, params).fetchall()
        except (
            psycopg.errors.UndefinedTable,
            psycopg.errors.UndefinedColumn,  # a table of an earlier version: no digests
            psycopg.errors.InsufficientPrivilege,
        ):
            return None
        except (psycopg.Error, PoolTimeout) as exc:
            raise StoreError(f"cannot read the ledger at {self._name}: {one_line(exc)}") from exc

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._query(sql, params) or []

    def _run(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        """Run writes together (a list of rows: one statement each); nothing when the tables
        cannot be used."""
        with self._connect() as conn:
            if not self._ready(conn):
                return
            # Outside a write (autocommit), a transaction of their own.
            with nullcontext() if self._transaction else conn.transaction(), conn.cursor() as cur:
                for sql, params in statements:
                    if isinstance(params, list):
                        if len(params) == 1:  # most writes: one row (executemany costs more)
                            cur.execute(sql, params[0])
                        elif params:
                            cur.executemany(sql, params)
                    else:
                        cur.execute(sql, params)

    def put_snapshots(self, encounter: str, rows: Sequence[SnapshotRow], keep: int) -> None:
        """Store snapshot rows; keep only the encounter's newest `keep`."""
        self._run(
            [
                (
                    _PUT_SNAPSHOT,
                    [snapshot_row(encounter, *row) for row in rows],
                ),
                (
                    "DELETE FROM cache_snapshots WHERE encounter = %s AND seq NOT IN (SELECT seq "
                    "FROM cache_snapshots WHERE encounter = %s ORDER BY seq DESC LIMIT %s)",
                    (encounter, encounter, keep),
                ),
            ]
        )

    def snapshot_keys(self, encounter: str, upto: int) -> list[tuple[int, str, str, str]]:
        """The keys of the snapshots at or below `upto`, newest first, with their event's hash."""
        rows = self._rows(
            "SELECT s.seq, s.hash, s.gone, e.hash FROM cache_snapshots s "
            "JOIN events e ON e.encounter = s.encounter AND e.seq = s.seq "
            "WHERE s.encounter = %s AND s.seq <= %s ORDER BY s.seq DESC",
            (encounter, upto),
        )
        return [(int(seq), str(h), str(g), str(e)) for seq, h, g, e in rows]

    def snapshot_row(
        self, encounter: str, seq: int, gone: str | None = None
    ) -> StoredSnapshot | None:
        """The row at `seq` (stored with `gone`, when given): hash, gone, state, digest."""
        sql = (
            "SELECT hash, gone, state, digest FROM cache_snapshots "
            "WHERE encounter = %s AND seq = %s"
        )
        params: tuple[Any, ...] = (encounter, seq)
        if gone is not None:
            sql, params = sql + " AND gone = %s", (*params, gone)
        rows = self._rows(sql, params)
        return tuple(rows[0]) if rows else None

    def snapshot_seqs(self, encounter: str) -> set[int]:
        """The seqs the encounter has snapshots at."""
        rows = self._rows("SELECT seq FROM cache_snapshots WHERE encounter = %s", (encounter,))
        return {int(r[0]) for r in rows}

    def event_hash(self, encounter: str, seq: int) -> str:
        """The stored hash of the event at `seq`."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT hash FROM events WHERE encounter = %s AND seq = %s", (encounter, seq)
            ).fetchall()
        return str(rows[0][0])

    def move_view(
        self,
        encounter: str,
        before: tuple[int, str],
        head: tuple[int, str],
        top: str,
        rows: bool = True,
    ) -> dict[str, StoredView] | None:
        """Move the head row from `before` to `head` and return the combatant rows; None when
        it is not of `before`."""
        with self._connect() as conn:
            if not self._ready(conn):
                return None
            # RETURNING: rows to fetch, which a pipeline waits for (its rowcount it does not);
            # and, in the same statement, the last stored roll, which the write asks next
            # (`last_roll`), and the combatant rows, whose digests the write checks.
            stored = (
                "(SELECT json_agg(json_build_array(name, seq, hash, view, digest)) "
                "FROM cache_views WHERE encounter = %s AND name <> '')"
                if rows
                else "(SELECT NULL WHERE %s::text IS NULL)"  # not read: the same parameters
            )
            moved = conn.execute(
                "UPDATE cache_views SET seq = %s, hash = %s, view = %s, digest = %s "
                "WHERE encounter = %s AND name = '' AND seq = %s AND hash = %s "
                f"RETURNING (SELECT max(n) FROM cache_rolls WHERE encounter = %s), {stored}",
                (*head, top, view_row(encounter, "", head, top)[-1], encounter, *before,
                 encounter, encounter),
            ).fetchall()  # fmt: skip
            if len(moved) != 1:
                return None
            last, found = moved[0]
            self._last_roll = (encounter, -1 if last is None else int(last))
            return {str(name): tuple(rest) for name, *rest in found or ()}

    def put_combatants(
        self,
        encounter: str,
        head: tuple[int, str],
        rows: Sequence[tuple[str, str]],
        gone: Sequence[str],
    ) -> None:
        """Replace these combatants' rows; delete the rows `gone`."""
        statements: list[tuple[str, Sequence[Any]]] = [
            (_PUT_VIEW, [view_row(encounter, name, head, text) for name, text in rows])
        ]
        if gone:  # a round trip saved on nearly every write
            statements.append(
                (
                    "DELETE FROM cache_views WHERE encounter = %s AND name = ANY(%s)",
                    (encounter, list(gone)),
                )
            )
        self._run(statements)

    def replace_view(
        self, encounter: str, head: tuple[int, str], top: str, rows: Sequence[tuple[str, str]]
    ) -> None:
        """The encounter's whole view anew."""
        self._run(
            [
                ("DELETE FROM cache_views WHERE encounter = %s", (encounter,)),
                (
                    _PUT_VIEW,
                    [view_row(encounter, name, head, text) for name, text in [("", top), *rows]],
                ),
            ]
        )

    def view_rows(self, encounter: str, head: tuple[int, str]) -> dict[str, StoredView]:
        """The combatant rows, and the head row if it is of `head`: seq, hash, view, digest."""
        rows = self._rows(
            "SELECT name, seq, hash, view, digest FROM cache_views WHERE encounter = %s AND "
            "(name <> '' OR (seq = %s AND hash = %s))",
            (encounter, *head),
        )
        return {str(name): tuple(rest) for name, *rest in rows}

    def last_roll(self, encounter: str) -> int:
        """The n of the last stored roll (-1 when none)."""
        known, self._last_roll = self._last_roll, None
        if known is not None and known[0] == encounter:
            return known[1]  # read by `move_view` just before, in this transaction
        rows = self._rows(
            "SELECT n FROM cache_rolls WHERE encounter = %s ORDER BY n DESC LIMIT 1", (encounter,)
        )
        return int(rows[0][0]) if rows else -1

    def put_rolls(
        self, encounter: str, rows: Sequence[tuple[int, str]], replace_from: int | None
    ) -> None:
        """Store roll rows, after deleting those from n = `replace_from` on."""
        self._last_roll = None
        statements: list[tuple[str, Sequence[Any]]] = []
        if replace_from is not None:
            statements.append(
                (
                    "DELETE FROM cache_rolls WHERE encounter = %s AND n >= %s",
                    (encounter, replace_from),
                )
            )
        statements.append((_PUT_ROLL, [roll_row(encounter, n, text) for n, text in rows]))
        self._run(statements)

    def roll_rows(self, encounter: str) -> Iterator[tuple[int, str, str]] | None:
        """The stored rolls by n with their digests, a page at a time (None: no rolls table,
        or none readable)."""
        first = self._roll_page(encounter, -1)
        if first is None:
            return None
        return self._more_rolls(encounter, first)

    def _roll_page(self, encounter: str, after: int) -> list[tuple[int, str, str]] | None:
        rows = self._query(
            "SELECT n, roll, digest FROM cache_rolls WHERE encounter = %s AND n > %s ORDER BY n "
            "LIMIT %s",
            (encounter, after, _ROLL_PAGE),
        )
        return None if rows is None else [(int(n), str(text), str(d)) for n, text, d in rows]

    def _more_rolls(
        self, encounter: str, page: list[tuple[int, str, str]]
    ) -> Iterator[tuple[int, str, str]]:
        while page:
            yield from page
            if len(page) < _ROLL_PAGE:
                return
            page = self._roll_page(encounter, page[-1][0]) or []

    def drop(self) -> None:
        """Delete the cache tables."""
        with self._connect() as conn, conn.transaction():
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        self._usable = None if self._transaction else True
