"""The projection cache's tables in a SQLite ledger file (`ledger.cache.CacheTables`).

They share the store's connection, so a write's cache rows commit with its events. A write
creates the tables when they are missing (a new file, or one whose cache was dropped) and
replaces, empty, a table written before its rows carried their digest (`ledger.rowdigest`); a
read of a missing table, or of one without digests, finds nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Final

from ledger.cache import TABLES, SnapshotRow, StoredSnapshot, StoredView
from ledger.rowdigest import roll_row, snapshot_row, view_row

_SNAPSHOTS: Final = """CREATE TABLE IF NOT EXISTS cache_snapshots (
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        gone TEXT NOT NULL,
        state TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    )"""
_SCHEMA: Final = (
    # A rowid table: its key is an index apart, and a row's state text (a long fight's is most
    # of a megabyte) is read only when asked for. In the clustered layout of earlier files
    # (WITHOUT ROWID), a search of the keys read every text it passed.
    _SNAPSHOTS,
    # One row for the head (name ''), holding its seq and hash, the system, the pools and the
    # combatants' names in order; one row a combatant, holding its tracks: a write rewrites
    # only the combatants it changed.
    """CREATE TABLE IF NOT EXISTS cache_views (
        encounter TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        view TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, name)
    ) WITHOUT ROWID""",
    # The head's effective rolls in order (n from 0), one row each as `tracks --json` shows
    # it: a write that adds a roll inserts one row, an undo or an amend rewrites from the first
    # roll it changed. The head row holds how many there are.
    """CREATE TABLE IF NOT EXISTS cache_rolls (
        encounter TEXT NOT NULL,
        n INTEGER NOT NULL,
        roll TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (encounter, n)
    ) WITHOUT ROWID""",
)


_PUT_VIEW: Final = "INSERT OR REPLACE INTO cache_views VALUES (?,?,?,?,?,?)"


def _missing(exc: sqlite3.OperationalError) -> bool:
    # A table missing, or one of a file written before rows carried digests (its rows are
    # never read: they vouch for nothing).
    text = str(exc)
    return "no such table" in text or "digest" in text or "columns but" in text


class SqliteCache:
    """The cache tables of one ledger file, on the store's connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def _write(self, sql: str, args: Sequence[Any], many: bool = False) -> sqlite3.Cursor:
        """Run a write (inside the caller's transaction), creating the tables first when they
        are missing."""
        run = self.conn.executemany if many else self.conn.execute
        try:
            return run(sql, args)
        except sqlite3.OperationalError as exc:
            if not _missing(exc):
                raise
            self._create_tables()
            return run(sql, args)

    def _create_tables(self) -> None:
        """Create the missing tables, and anew (empty) those without digests."""
        for table in TABLES:
            columns = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            if columns and "digest" not in columns:
                self.conn.execute(f"DROP TABLE {table}")
        for statement in _SCHEMA:
            self.conn.execute(statement)

    def _read(self, sql: str, args: Sequence[Any]) -> list[Any]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if _missing(exc):
                return []
            raise

    def put_snapshots(self, encounter: str, rows: Sequence[SnapshotRow], keep: int) -> None:
        """Store snapshot rows; keep only the encounter's newest `keep`."""
        self._relaid()
        self._write(
            "INSERT OR REPLACE INTO cache_snapshots VALUES (?,?,?,?,?,?)",
            [snapshot_row(encounter, *row) for row in rows],
            many=True,
        )
        self.conn.execute(
            "DELETE FROM cache_snapshots WHERE encounter = ? AND seq NOT IN (SELECT seq FROM "
            "cache_snapshots WHERE encounter = ? ORDER BY seq DESC LIMIT ?)",
            (encounter, encounter, keep),
        )

    def _relaid(self) -> None:
        """The snapshots table anew when it has the clustered layout of earlier files (its
        texts are of an earlier snapshot version, which this build does not read) or rows
        without digests. Checked where snapshots are stored, once in a few hundred writes."""
        found = self._read(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'cache_snapshots'", ()
        )
        layout = str(found[0][0]).upper() if found else ""
        if found and ("WITHOUT ROWID" in layout or "DIGEST" not in layout):
            self.conn.execute("DROP TABLE cache_snapshots")
            self.conn.execute(_SNAPSHOTS)

    def snapshot_keys(self, encounter: str, upto: int) -> list[tuple[int, str, str, str]]:
        """The keys of the snapshots at or below `upto`, newest first, with their event's hash."""
        return self._read(
            "SELECT s.seq, s.hash, s.gone, e.hash FROM cache_snapshots s "
            "JOIN events e ON e.encounter = s.encounter AND e.seq = s.seq "
            "WHERE s.encounter = ? AND s.seq <= ? ORDER BY s.seq DESC",
            (encounter, upto),
        )

    def snapshot_row(
        self, encounter: str, seq: int, gone: str | None = None
    ) -> StoredSnapshot | None:
        """The row at `seq` (stored with `gone`, when given): hash, gone, state, digest."""
        sql = (
            "SELECT hash, gone, state, digest FROM cache_snapshots WHERE encounter = ? AND seq = ?"
        )
        args: tuple[Any, ...] = (encounter, seq)
        if gone is not None:
            sql, args = sql + " AND gone = ?", (*args, gone)
        rows = self._read(sql, args)
        return tuple(rows[0]) if rows else None

    def snapshot_seqs(self, encounter: str) -> set[int]:
        """The seqs the encounter has snapshots at."""
        rows = self._read("SELECT seq FROM cache_snapshots WHERE encounter = ?", (encounter,))
        return {int(r[0]) for r in rows}

    def event_hash(self, encounter: str, seq: int) -> str:
        """The stored hash of the event at `seq`."""
        row = self.conn.execute(
            "SELECT hash FROM events WHERE encounter = ? AND seq = ?", (encounter, seq)
        ).fetchone()
        return str(row[0])

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
        try:
            moved = self.conn.execute(
                "UPDATE cache_views SET seq = ?, hash = ?, view = ?, digest = ? "
                "WHERE encounter = ? AND name = '' AND seq = ? AND hash = ?",
                (*head, top, view_row(encounter, "", head, top)[-1], encounter, *before),
            )
        except sqlite3.OperationalError as exc:
            if not _missing(exc):
                raise
            return None
        if moved.rowcount != 1:
            return None
        if not rows:
            return {}
        stored = self.conn.execute(
            "SELECT name, seq, hash, view, digest FROM cache_views "
            "WHERE encounter = ? AND name != ''",
            (encounter,),
        )
        return {name: tuple(rest) for name, *rest in stored}

    def put_combatants(
        self,
        encounter: str,
        head: tuple[int, str],
        rows: Sequence[tuple[str, str]],
        gone: Sequence[str],
    ) -> None:
        """Replace these combatants' rows; delete the rows `gone`."""
        # Most writes change one combatant and remove none: no statement for an empty batch.
        if len(rows) == 1:  # most writes: one row, bound without a cursor loop
            ((name, text),) = rows
            self.conn.execute(_PUT_VIEW, view_row(encounter, name, head, text))
        elif rows:
            self.conn.executemany(
                _PUT_VIEW, [view_row(encounter, name, head, text) for name, text in rows]
            )
        if gone:
            self.conn.executemany(
                "DELETE FROM cache_views WHERE encounter = ? AND name = ?",
                [(encounter, name) for name in gone],
            )

    def replace_view(
        self, encounter: str, head: tuple[int, str], top: str, rows: Sequence[tuple[str, str]]
    ) -> None:
        """The encounter's whole view anew."""
        self._write("DELETE FROM cache_views WHERE encounter = ?", (encounter,))
        self._write(
            _PUT_VIEW,
            [view_row(encounter, name, head, text) for name, text in [("", top), *rows]],
            many=True,
        )

    def view_rows(self, encounter: str, head: tuple[int, str]) -> dict[str, StoredView]:
        """The combatant rows, and the head row if it is of `head`: seq, hash, view, digest."""
        rows = self._read(
            "SELECT name, seq, hash, view, digest FROM cache_views WHERE encounter = ? AND "
            "(name != '' OR (seq = ? AND hash = ?))",
            (encounter, *head),
        )
        return {name: tuple(rest) for name, *rest in rows}

    def last_roll(self, encounter: str) -> int:
        """The n of the last stored roll (-1 when none, or none with digests): one seek of the
        key."""
        rows = self._read(
            "SELECT n, digest FROM cache_rolls WHERE encounter = ? ORDER BY n DESC LIMIT 1",
            (encounter,),
        )
        return int(rows[0][0]) if rows else -1

    def put_rolls(
        self, encounter: str, rows: Sequence[tuple[int, str]], replace_from: int | None
    ) -> None:
        """Store roll rows, after deleting those from n = `replace_from` on."""
        if replace_from is not None:
            self._write(
                "DELETE FROM cache_rolls WHERE encounter = ? AND n >= ?", (encounter, replace_from)
            )
        if rows:
            self._write(
                "INSERT OR REPLACE INTO cache_rolls VALUES (?,?,?,?)",
                [roll_row(encounter, n, text) for n, text in rows],
                many=True,
            )

    def roll_rows(self, encounter: str) -> Iterator[tuple[int, str, str]] | None:
        """The stored rolls by n with their digests, streamed from one cursor (None: no rolls
        table)."""
        try:
            return iter(
                self.conn.execute(
                    "SELECT n, roll, digest FROM cache_rolls WHERE encounter = ? ORDER BY n",
                    (encounter,),
                )
            )
        except sqlite3.OperationalError as exc:
            if _missing(exc):
                return None
            raise

    def drop(self) -> None:
        """Delete the cache tables."""
        for table in TABLES:
            self.conn.execute(f"DROP TABLE IF EXISTS {table}")
