"""The SQLite event store: append-only, hash-chained per encounter, safe for concurrent writers.

This is the only module that touches SQLite. Rows become `events.Recorded` here; nothing above
sees a raw row. The `heads` table is a cache of each encounter's head (rebuilt when missing).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import sqlite_utils
from pydantic import BaseModel

from ledger import events
from ledger.errors import BadInput, BrokenChain, Conflict, StoreError, UnknownName

GENESIS: Final = "0" * 64
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


def now_utc() -> datetime:
    """The real clock (tests inject their own or use freezegun)."""
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, to the microsecond."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def chain_hash(
    encounter: str,
    seq: int,
    id: str,
    type: str,
    recorded_at: str,
    body: Any,
    prev_hash: str,
) -> str:
    """The contract hash: SHA-256 of the sorted, whitespace-free UTF-8 JSON of the envelope."""
    document = {
        "encounter": encounter,
        "seq": seq,
        "id": id,
        "type": type,
        "recorded_at": recorded_at,
        "body": body,
        "prev_hash": prev_hash,
    }
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Head(BaseModel, frozen=True):
    """An encounter's head: its system and title, last seq and hash, and when it was touched."""

    encounter: str
    system: str
    title: str | None
    seq: int
    hash: str
    opened_at: str
    updated_at: str


class ChainReport(BaseModel, frozen=True):
    """The result of verifying one encounter's chain."""

    encounter: str
    events: int
    head: str | None
    bad_seq: int | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """The chain verified."""
        return self.bad_seq is None


def _load(row: Any, system: str) -> events.Recorded:
    encounter, seq, id_, type_, recorded_at, body, prev_hash, hash_ = row
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise BrokenChain(f"encounter {encounter!r} seq {seq}: body is not JSON") from exc
    if not isinstance(data, dict):
        raise BrokenChain(f"encounter {encounter!r} seq {seq}: body is not an object")
    try:
        event = events.parse({"type": type_, **data}, system)
    except BadInput as exc:
        raise BrokenChain(
            f"encounter {encounter!r} seq {seq}: stored event is invalid: {exc}"
        ) from exc
    return events.Recorded.model_construct(
        encounter=encounter,
        seq=seq,
        id=id_,
        recorded_at=recorded_at,
        prev_hash=prev_hash,
        hash=hash_,
        event=event,
    )


_COLUMNS: Final = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"


class Writer:
    """Appends inside one `BEGIN IMMEDIATE` transaction; see `Store.writing`."""

    def __init__(self, store: Store, encounter: str, head: Head | None) -> None:
        self._store = store
        self.encounter = encounter
        self.head = head
        self.appended: list[events.Recorded] = []

    @property
    def seq(self) -> int:
        """The last seq of the encounter, counting what this writer appended."""
        return self.head.seq if self.head else 0

    def append(
        self,
        event: events.Event,
        *,
        id: str | None = None,
        recorded_at: str | None = None,
    ) -> events.Recorded:
        """Append one event at the next seq, chaining its hash to the head."""
        seq = self.seq + 1
        prev_hash = self.head.hash if self.head else GENESIS
        id = id or str(uuid.uuid4())
        recorded_at = recorded_at or timestamp(self._store.clock())
        kind = events.type_of(event)
        body = events.body_of(event)
        digest = chain_hash(self.encounter, seq, id, kind, recorded_at, body, prev_hash)
        body_text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        row = (self.encounter, seq, id, kind, recorded_at, body_text, prev_hash, digest)
        try:
            self._store.conn.execute(
                f"INSERT INTO events ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)", row
            )
        except sqlite3.IntegrityError as exc:
            raise BadInput(f"event id {id!r} is already stored") from exc
        if isinstance(event, events.EncounterOpened):
            self.head = Head(
                encounter=self.encounter,
                system=event.system,
                title=event.title,
                seq=seq,
                hash=digest,
                opened_at=recorded_at,
                updated_at=recorded_at,
            )
        elif self.head is not None:
            self.head = self.head.model_copy(
                update={"seq": seq, "hash": digest, "updated_at": recorded_at}
            )
        record = events.Recorded.model_construct(
            encounter=self.encounter,
            seq=seq,
            id=id,
            recorded_at=recorded_at,
            prev_hash=prev_hash,
            hash=digest,
            event=event,
        )
        self.appended.append(record)
        return record

    def records(self, after: int = 0) -> list[events.Recorded]:
        """Stored events of this encounter after seq `after` (inside the transaction)."""
        if self.head is None:
            return []
        return list(self._store.load_rows(self.encounter, self.head.system, after, self.head.seq))

    def known_id(self, id: str) -> events.Recorded | None:
        """The stored event with this id, in any encounter."""
        return self._store.by_id(id)


class Store:
    """One ledger file. Open with a path; `clock` is injectable for tests."""

    def __init__(self, path: str | Path, clock: Callable[[], datetime] = now_utc) -> None:
        self.path = Path(path)
        self.clock = clock
        try:
            self.conn = sqlite3.connect(
                str(self.path),
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            self.conn.execute("PRAGMA synchronous=FULL")
            self.db = sqlite_utils.Database(self.conn)
            self._ensure_schema()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not an encounter ledger or is damaged: {exc}"
            ) from exc

    def _ensure_schema(self) -> None:
        names = set(self.db.table_names())
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
        return [_head(row) for row in rows]

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist."""
        row = self.conn.execute(
            "SELECT encounter, system, title, seq, hash, opened_at, updated_at FROM heads "
            "WHERE encounter = ?",
            (encounter,),
        ).fetchone()
        return _head(row) if row else None

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""
        head = self.head(encounter)
        if head is None:
            known = [h.encounter for h in self.encounters()]
            shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
            raise UnknownName(
                f"encounter {encounter!r} is not in {self.path} (known: {shown or 'none yet'})"
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
        yield from self.load_rows(encounter, head.system, after, top)

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed."""
        cursor = self.conn.execute(
            f"SELECT {_COLUMNS} FROM events WHERE encounter = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq",
            (encounter, after, upto),
        )
        for row in cursor:
            yield _load(row, system)

    def by_id(self, id: str) -> events.Recorded | None:
        """The stored event with this id, if any."""
        row = self.conn.execute(f"SELECT {_COLUMNS} FROM events WHERE id = ?", (id,)).fetchone()
        if row is None:
            return None
        head = self.require(row[0])
        return _load(row, head.system)

    def raw_rows(self, encounter: str) -> Iterator[tuple[Any, ...]]:
        """Stored rows as they are, for verification and export."""
        yield from self.conn.execute(
            f"SELECT {_COLUMNS} FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
        )

    def stored_encounters(self) -> list[str]:
        """Every encounter name that has rows, read from the events themselves."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT encounter FROM events")]

    # Writes.

    @contextmanager
    def writing(self, encounter: str, expect: int | None = None) -> Iterator[Writer]:
        """One atomic append: the head is read under the write lock, `expect` is checked,
        and everything the writer appends commits together or not at all."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise Conflict(
                f"the ledger {self.path} stayed locked by another writer: {exc}"
            ) from exc
        try:
            head = self.head(encounter)
            seq = head.seq if head else 0
            if expect is not None and expect != seq:
                raise Conflict(
                    f"encounter {encounter!r} is at seq {seq}, not {expect}: "
                    "another writer appended first; re-read and try again"
                )
            writer = Writer(self, encounter, head)
            yield writer
            if writer.head is not None and writer.appended:
                h = writer.head
                self.conn.execute(
                    "INSERT OR REPLACE INTO heads VALUES (?,?,?,?,?,?,?)",
                    (h.encounter, h.system, h.title, h.seq, h.hash, h.opened_at, h.updated_at),
                )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""
        expected_seq, prev, count, last = 1, GENESIS, 0, None
        for encounter_, seq, id_, type_, recorded_at, body, prev_hash, digest in self.raw_rows(
            encounter
        ):
            count += 1
            problem = None
            if seq != expected_seq:
                problem = f"seq {expected_seq} is missing (next stored is {seq})"
                seq = expected_seq
            elif prev_hash != prev:
                problem = "prev_hash does not match the previous event's hash"
            else:
                try:
                    parsed = json.loads(body)
                except (json.JSONDecodeError, TypeError):
                    problem = "body is not valid JSON"
                else:
                    recomputed = chain_hash(encounter_, seq, id_, type_, recorded_at, parsed, prev)
                    if recomputed != digest:
                        problem = "hash does not match the event's contents"
            if problem:
                return ChainReport(
                    encounter=encounter, events=count, head=last, bad_seq=seq, problem=problem
                )
            expected_seq, prev, last = seq + 1, digest, digest
        head = self.head(encounter)
        if head is not None and (head.seq != expected_seq - 1 or head.hash != last):
            return ChainReport(
                encounter=encounter,
                events=count,
                head=last,
                bad_seq=expected_seq,
                problem=f"the last stored seq is {expected_seq - 1}, but seq {head.seq} "
                "was acknowledged: events were removed from the end",
            )
        return ChainReport(encounter=encounter, events=count, head=last)


def _head(row: Any) -> Head:
    encounter, system, title, seq, digest, opened_at, updated_at = row
    return Head(
        encounter=encounter,
        system=system,
        title=title,
        seq=seq,
        hash=digest,
        opened_at=opened_at,
        updated_at=updated_at,
    )
