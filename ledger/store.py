"""The SQLite event store: append-only, hash-chained per encounter, safe for concurrent writers.

This is the only module that touches SQLite. Rows become models (`ledger.rows`) here; nothing
above sees a raw row. Appends go through a `Writer` (`ledger.writer`) inside `writing()`. The
`heads` table is a cache of each encounter's head (rebuilt when missing).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from ledger import chain, events
from ledger.chain import ChainReport
from ledger.errors import (
    BadInput,
    Conflict,
    LedgerError,
    StoreError,
    UnknownName,
    did_you_mean,
)
from ledger.rows import COLUMNS, Head, head_of, load, now_utc
from ledger.writer import Writer

BUSY_TIMEOUT_S: Final = 60.0

_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS events (
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        body TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    ) WITHOUT ROWID""",
    """CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END""",
    """CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END""",
    """CREATE INDEX IF NOT EXISTS events_retractions ON events (encounter, seq)
    WHERE type = 'event.retracted'""",
    """CREATE TABLE IF NOT EXISTS heads (
        encounter TEXT PRIMARY KEY,
        system TEXT NOT NULL,
        title TEXT,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
)


_INSERT: Final = f"INSERT INTO events ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?)"


class Store:
    """One ledger file. Open with a path; `clock` is injectable for tests."""

    def __init__(
        self, path: str | Path, clock: Callable[[], datetime] = now_utc, create: bool = True
    ) -> None:
        self.path = Path(path)
        self.clock = clock
        if not create and str(path) != ":memory:" and not self.path.exists():
            raise UnknownName(
                f"no ledger at {self.path} (start one with `encounter new`)", code="no-ledger"
            )
        try:
            self.conn = sqlite3.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            self.conn.execute("PRAGMA synchronous=FULL")
            self._ensure_schema()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not an encounter ledger or is damaged: {exc}"
            ) from exc

    @property
    def db(self) -> Any:
        """The file as a `sqlite_utils.Database` (imported on first use: it is slow to load)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def _ensure_schema(self) -> None:
        names = {
            row[0]
            for row in self.conn.execute(
                "SELECT name FROM sqlite_master "
                "WHERE type = 'table' AND name IN ('events', 'heads')"
            )
        }
        if {"events", "heads"} <= names:
            return
        mode = self.conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            # Another process may hold the file; it sets WAL, and the mode is persistent.
            with suppress(sqlite3.OperationalError):
                self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                self.conn.execute(statement)
            if "heads" not in names and "events" in names:
                self._rebuild_heads()
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def _rebuild_heads(self) -> None:
        rows = self.conn.execute(
            "SELECT e.encounter, e.body, e.recorded_at, h.seq, h.hash, h.recorded_at "
            "FROM events e "
            "JOIN (SELECT encounter, MAX(seq) AS top FROM events GROUP BY encounter) t "
            "ON e.encounter = t.encounter AND e.seq = 1 "
            "JOIN events h ON h.encounter = t.encounter AND h.seq = t.top"
        ).fetchall()
        for encounter, body, opened_at, seq, digest, updated_at in rows:
            opened = json.loads(body)
            self.conn.execute(
                "INSERT OR REPLACE INTO heads VALUES (?,?,?,?,?,?,?)",
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

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # Reads.

    def encounters(self) -> list[Head]:
        """Every encounter's head, by name."""
        rows = self.conn.execute(
            "SELECT encounter, system, title, seq, hash, opened_at, updated_at FROM heads "
            "ORDER BY encounter"
        ).fetchall()
        return [head_of(row) for row in rows]

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist."""
        row = self.conn.execute(
            "SELECT encounter, system, title, seq, hash, opened_at, updated_at FROM heads "
            "WHERE encounter = ?",
            (encounter,),
        ).fetchone()
        return head_of(row) if row else None

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
        top = upto if upto is not None else head.seq
        return self.load_rows(encounter, head.system, after, top)

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time (streaming)."""
        cursor = self.conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq",
            (encounter, after, upto),
        )
        for row in cursor:
            yield load(row, system)

    def retractions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's `event.retracted` events up to seq `upto` (an index serves them)."""
        rows = self.conn.execute(
            f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND type = 'event.retracted' "
            "AND seq <= ? ORDER BY seq",
            (encounter, upto if upto is not None else 2**62),
        )
        return [load(row, system) for row in rows]

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

    def by_id(self, id: str) -> events.Recorded | None:
        """The stored event with this id, if any."""
        row = self.conn.execute(f"SELECT {COLUMNS} FROM events WHERE id = ?", (id,)).fetchone()
        if row is None:
            return None
        head = self.require(row[0])
        return load(row, head.system)

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

    def stored_encounters(self) -> list[str]:
        """Every encounter name that has rows, read from the events themselves."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT encounter FROM events")]

    # Writes.

    @contextmanager
    def writing(self, encounter: str, expect: int | None = None) -> Iterator[Writer]:
        """One atomic append: the head is read under the write lock, `expect` is checked,
        and everything the writer appends commits together or not at all."""
        if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
            raise BadInput(f"expect must be a seq (a whole number), not {expect!r}")
        if not isinstance(encounter, str):
            raise BadInput(f"an encounter is named by text, not {encounter!r}")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _write_error(self.path, exc) from exc
        try:
            head = self.head(encounter)
            seq = head.seq if head else 0
            if expect is not None and not 0 <= expect <= seq:
                raise BadInput(
                    f"--expect {expect}: encounter {encounter!r} is at seq {seq}, so the seq "
                    f"you last saw is between 0 and {seq}"
                )
            if expect is not None and expect != seq:
                raise Conflict(
                    f"encounter {encounter!r} is at seq {seq}, not {expect}: "
                    "another writer appended first; re-read and try again",
                    code="stale-expect",
                    expected=expect,
                    actual=seq,
                )
            writer = Writer(self, encounter, head)
            yield writer
            writer.flush()
            h = writer.head
            if h is not None and writer.appended:
                self.conn.execute(
                    "INSERT OR REPLACE INTO heads VALUES (?,?,?,?,?,?,?)",
                    (h.encounter, h.system, h.title, h.seq, h.hash, h.opened_at, h.updated_at),
                )
            self.conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            self._rollback()
            raise _write_error(self.path, exc) from exc
        except BaseException:
            self._rollback()
            raise

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert built rows inside the open write transaction (see `Writer.flush`)."""
        try:
            self.conn.executemany(_INSERT, rows)
        except sqlite3.IntegrityError as exc:
            raise BadInput(f"an event id in this batch is already stored: {exc}") from exc

    def _rollback(self) -> None:
        # SQLite may already have rolled back (a full disk, a read-only file).
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""
        head = self.head(encounter)
        acknowledged = (head.seq, head.hash) if head is not None else None
        return chain.verify_rows(encounter, self.raw_rows(encounter), acknowledged)


def _write_error(path: Path, exc: sqlite3.OperationalError) -> LedgerError:
    """A failed write as the ledger's own error: nothing was appended."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return Conflict(f"the ledger {path} stayed locked by another writer ({text}); try again")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"the ledger {path} is read-only; nothing was appended")
    return StoreError(f"cannot write to the ledger {path} ({text}); nothing was appended")
