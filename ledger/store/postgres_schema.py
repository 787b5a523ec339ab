"""The PostgreSQL schema: the same `events` table and heads cache as a ledger file, with
its guard (`postgres_guard`: append-only triggers, and a check of every row inserted), and the
sealed snapshots (`ledger.store.snapshots`), created once by the
database's owner (the app role of the docs' hosting page can then only append and read).
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Any, Final

import psycopg
import psycopg.errors

from ledger.errors import UnknownName
from ledger.store import postgres_guard, statements

#: The advisory-lock namespace of the ledger (two-key form: this, then hashtext(encounter)).
LOCK_CLASS: Final = 0x4C45
_SCHEMA_LOCK: Final = 0

#: The projection cache of 0.2, replaced by `snapshots` (a cache: dropping it loses nothing).
_OLD_CACHE: Final = ("cache_snapshots", "cache_views", "cache_rolls")

#: Rewinds (and the dice events a rewind keeps) are read before every fold, as undos are.
KEPT_INDEX: Final = """CREATE INDEX IF NOT EXISTS events_kept ON events (encounter, seq)
    WHERE type IN ('dice.committed', 'dice.revealed', 'encounter.rewound')"""

SCHEMA: Final = (
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
    """CREATE INDEX IF NOT EXISTS events_retractions ON events (encounter, seq)
    WHERE type = 'event.retracted'""",
    """CREATE INDEX IF NOT EXISTS events_corrections ON events (encounter, seq)
    WHERE type = 'event.corrected'""",
    KEPT_INDEX,
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
    """CREATE TABLE IF NOT EXISTS snapshots (
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        standing TEXT NOT NULL,
        state TEXT NOT NULL,
        seal TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    )""",
)


def ensure(conn: psycopg.Connection[Any], *, create: bool, readonly: bool, name: str) -> None:
    """Create the schema where it is missing (`create`), bring an older one up to date (the
    owner only: another role's open leaves it as it is), or refuse a database with no ledger."""
    present = conn.execute(
        "SELECT to_regclass('events') IS NOT NULL, to_regclass('heads') IS NOT NULL, "
        "to_regclass('snapshots') IS NOT NULL, to_regclass('cache_snapshots') IS NOT NULL, "
        "to_regclass('events_kept') IS NOT NULL"
    ).fetchone()
    assert present is not None
    events, heads, snapshots, old_cache, kept = present
    if events and heads:
        if readonly:
            return
        if postgres_guard.altered(conn) or not snapshots or old_cache or not kept:
            # As a write recreates SQLite's: only a role that may (the owner) does. (Rows may
            # have changed meanwhile: every write checks its encounter's whole chain.)
            with suppress(psycopg.errors.InsufficientPrivilege), conn.transaction():
                _lock_schema(conn)
                if postgres_guard.altered(conn):
                    for statement in postgres_guard.statements():
                        conn.execute(statement)
                for old in _OLD_CACHE:
                    conn.execute(f"DROP TABLE IF EXISTS {old}")
                conn.execute(KEPT_INDEX)
                conn.execute(SCHEMA[-1])
        return
    if not create and not events:
        raise UnknownName(f"no ledger at {name} (start one with `encounter new`)", code="no-ledger")
    with conn.transaction():
        # Two processes opening a fresh database must not both create the tables.
        _lock_schema(conn)
        rebuild = conn.execute("SELECT to_regclass('heads') IS NULL").fetchone() == (True,)
        for statement in SCHEMA:
            conn.execute(statement)
        for statement in postgres_guard.statements():
            conn.execute(statement)
        if rebuild:
            _rebuild_heads(conn)


def _lock_schema(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, _SCHEMA_LOCK))


def _rebuild_heads(conn: psycopg.Connection[Any]) -> None:
    rows = conn.execute(
        "SELECT e.encounter, e.body, e.recorded_at, h.seq, h.hash, h.recorded_at FROM events e "
        "JOIN (SELECT encounter, MAX(seq) AS top FROM events GROUP BY encounter) t "
        "ON e.encounter = t.encounter AND e.seq = 1 "
        "JOIN events h ON h.encounter = t.encounter AND h.seq = t.top"
    ).fetchall()
    put = statements.PUT_HEAD.replace("?", "%s")
    for encounter, body, opened_at, seq, digest, updated_at in rows:
        opened = _fields(body)
        system, title = opened.get("system", "?"), opened.get("title")
        conn.execute(put, (encounter, system, title, seq, digest, opened_at, updated_at, 0))


def _fields(body: Any) -> dict[str, Any]:
    try:
        opened = json.loads(body)
    except (TypeError, ValueError):
        return {}
    return opened if isinstance(opened, dict) else {}
