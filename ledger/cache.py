"""The projection cache in the ledger file: fold snapshots and each encounter's head view.

A cache only (DESIGN §3): deleting its tables loses nothing, and every answer it gives is checked
against the log before it is used. A snapshot is the fold state after a seq, keyed by (encounter,
seq, hash of the event at that seq) and by the seqs that were retracted up to it: a snapshot whose
event's hash no longer matches, or whose retracted seqs differ from the stream's now (a retraction
that reaches behind it), is ignored, and an older one is tried. The head view (combatants,
pools, game time and rolls) is `ledger.headview`'s; this module owns the tables of both.

States are stored as plain JSON of known classes (`ledger.snapshot_codec`), never pickle:
loading a snapshot can build only those classes. This module shares the store's connection;
`ledger.service` calls it inside the store's write transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from ledger.snapshot_codec import TEXT, decode, encode
from projections import core
from projections.revisions import Standing

#: A write or an import keeps a snapshot after every this many seqs (the in-memory checkpoints)...
SNAPSHOT_EVERY: Final = 256
#: ... and the file keeps the newest this many of an encounter (each holds every roll so far).
SNAPSHOTS_KEPT: Final = 4

_TABLES: Final = (
    """CREATE TABLE IF NOT EXISTS cache_snapshots (
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        gone TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    ) WITHOUT ROWID""",
    # One row for the head (name ''), holding its seq and hash, the system, the pools and the
    # combatants' names in order; one row a combatant, holding its tracks: a write rewrites
    # only the combatants it changed.
    """CREATE TABLE IF NOT EXISTS cache_views (
        encounter TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        view TEXT NOT NULL,
        PRIMARY KEY (encounter, name)
    ) WITHOUT ROWID""",
    # The head's effective rolls in order (n from 0), one row each as `tracks --json` shows
    # it: a write that adds a roll inserts one row, an undo or an amend rewrites from the first
    # roll it changed. The head row holds how many there are.
    """CREATE TABLE IF NOT EXISTS cache_rolls (
        encounter TEXT NOT NULL,
        n INTEGER NOT NULL,
        roll TEXT NOT NULL,
        PRIMARY KEY (encounter, n)
    ) WITHOUT ROWID""",
)
TABLES: Final = ("cache_snapshots", "cache_views", "cache_rolls")

# The tables.


def no_table(exc: sqlite3.OperationalError) -> bool:
    """Whether the error says a cache table is missing (deleted, or never made)."""
    return "no such table" in str(exc)


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the cache tables that are missing (inside the caller's transaction)."""
    for statement in _TABLES:
        conn.execute(statement)


def write(conn: sqlite3.Connection, sql: str, args: Sequence[Any]) -> sqlite3.Cursor:
    """Run a write of the cache (inside the caller's transaction), creating its tables first
    when they are missing (a new file, or one whose cache was deleted)."""
    try:
        return conn.execute(sql, args)
    except sqlite3.OperationalError as exc:
        if not no_table(exc):
            raise
        create_tables(conn)
        return conn.execute(sql, args)


def _gone_upto(gone: Standing, seq: int) -> str:
    # The standing of the stream up to `seq`: the seqs retracted, and (when there are any) the
    # corrections in force of the seqs up to it, which a later correction or its undo changes.
    key: list[Any] = sorted(s for s in gone.gone if s <= seq)
    fixed = [[t, [r.seq for r in fixes]] for t, fixes in sorted(gone.fixes.items()) if t <= seq]
    return TEXT.encode([*key, fixed] if fixed else key)


def save_snapshots(
    conn: sqlite3.Connection,
    encounter: str,
    snapshots: Sequence[tuple[int, str, core.State]],
    gone: Standing,
) -> None:
    """Store (seq, hash of the event at seq, state) snapshots, folded with the standing `gone`;
    then keep only the encounter's newest SNAPSHOTS_KEPT."""
    stored = 0
    for seq, digest, state in snapshots[-SNAPSHOTS_KEPT:]:
        try:
            text = encode(state)
        except (TypeError, ValueError):
            continue  # a cache only: a state it cannot carry is folded instead
        write(
            conn,
            "INSERT OR REPLACE INTO cache_snapshots VALUES (?,?,?,?,?)",
            (encounter, seq, digest, _gone_upto(gone, seq), text),
        )
        stored += 1
    if stored:
        conn.execute(
            "DELETE FROM cache_snapshots WHERE encounter = ? AND seq NOT IN (SELECT seq FROM "
            "cache_snapshots WHERE encounter = ? ORDER BY seq DESC LIMIT ?)",
            (encounter, encounter, SNAPSHOTS_KEPT),
        )


def event_hash(conn: sqlite3.Connection, encounter: str, seq: int) -> str:
    """The stored hash of the event at `seq` (a snapshot's key)."""
    row = conn.execute(
        "SELECT hash FROM events WHERE encounter = ? AND seq = ?", (encounter, seq)
    ).fetchone()
    return str(row[0])


def load_snapshot(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing, upto: int
) -> tuple[int, core.State] | None:
    """The newest valid snapshot at or below seq `upto` for a stream of standing `gone`: its
    event's hash still matches, and the same seqs up to it are retracted and corrected."""
    if conn is None:  # a store without cache tables
        return None
    for seq in _valid_seqs(conn, encounter, gone, upto):
        text = snapshot_text(conn, encounter, seq)
        if text is None:
            continue
        try:
            state = decode(text)
        except (ValueError, TypeError, RecursionError):
            continue
        if state.encounter == encounter and state.seq == seq:
            return seq, state
    return None


def _valid_seqs(conn: sqlite3.Connection, encounter: str, gone: Standing, upto: int) -> list[int]:
    """The seqs, newest first, of the snapshots whose event's hash still matches and that hold
    the same retractions and corrections; their texts are read one at a time (each holds every
    roll, so reading them all at once would cost several times one state)."""
    try:
        rows = conn.execute(
            "SELECT s.seq, s.hash, s.gone, e.hash FROM cache_snapshots s "
            "JOIN events e ON e.encounter = s.encounter AND e.seq = s.seq "
            "WHERE s.encounter = ? AND s.seq <= ? ORDER BY s.seq DESC",
            (encounter, upto),
        ).fetchall()
    except sqlite3.OperationalError as exc:
        if no_table(exc):
            return []
        raise
    return [
        seq
        for seq, digest, stored_gone, event_hash in rows
        if digest == event_hash and stored_gone == _gone_upto(gone, seq)
    ]


def snapshot_text(conn: sqlite3.Connection | None, encounter: str, seq: int) -> str | None:
    """The stored text of the snapshot at `seq`, as `encode` wrote it."""
    if conn is None:
        return None
    row = conn.execute(
        "SELECT state FROM cache_snapshots WHERE encounter = ? AND seq = ?", (encounter, seq)
    ).fetchone()
    return None if row is None or type(row[0]) is not str else str(row[0])


def agrees(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing, state: core.State
) -> bool:
    """Whether the valid snapshot at the state's seq (if any) holds this state. The texts are
    compared first, so an intact cache is checked without building a second state."""
    if conn is None or state.seq not in _valid_seqs(conn, encounter, gone, state.seq)[:1]:
        return True
    text = snapshot_text(conn, encounter, state.seq)
    if text is None:
        return True
    try:
        if encode(state) == text:
            return True
        stored = decode(text)
    except (ValueError, TypeError, RecursionError):
        return False
    return stored.encounter == encounter and stored.seq == state.seq and stored == state


def usable_snapshots(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing
) -> dict[int, core.State]:
    """Every snapshot of the encounter that a read would use (for the audit's check)."""
    found: dict[int, core.State] = {}
    upto = 2**62
    while (snapshot := load_snapshot(conn, encounter, gone, upto)) is not None:
        found[snapshot[0]] = snapshot[1]
        upto = snapshot[0] - 1
    return found


def snapshot_seqs(conn: sqlite3.Connection | None, encounter: str) -> set[int]:
    """The seqs the encounter has snapshots at (none decoded: each holds every roll)."""
    if conn is None:
        return set()
    try:
        rows = conn.execute("SELECT seq FROM cache_snapshots WHERE encounter = ?", (encounter,))
        return {int(r[0]) for r in rows}
    except sqlite3.OperationalError as exc:
        if no_table(exc):
            return set()
        raise


def drop(conn: sqlite3.Connection) -> None:
    """Delete the cache tables (nothing is lost: they are rebuilt by the next writes)."""
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
