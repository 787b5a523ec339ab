"""Opening a SQLite ledger file: what the file system says, whose file it is, its schema.

A ledger file says it is one (`PRAGMA application_id`) and which format it holds
(`PRAGMA user_version`). A file of an earlier format is recognised and migrated when opened for
writing (format 3 drops the projection cache tables of format 2: they were a cache, so nothing
is lost); any other SQLite file is refused and left untouched. Reads open the file read-only (on
a read-only mount too) and never create or change anything.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import warnings
from pathlib import Path
from typing import Final
from urllib.parse import quote

from ledger.errors import LedgerWarning, StoreError, UnknownName
from ledger.store import SCRATCH, views

#: "EnLg": the `application_id` of every encounter ledger file.
APPLICATION_ID: Final = 0x456E4C67
#: The stored format: 1 is 0.1's (no identity, no verified mark); 2 adds both (and 0.2's
#: projection cache); 3 replaces that cache with sealed snapshots (`ledger.store.snapshots`);
#: 4 keys every table by tenant and gives each event a global `position` (its rowid).
USER_VERSION: Final = 4

BUSY_TIMEOUT_S: Final = 60.0
#: Paths that name no file of the user's.
UNNAMED: Final = (":memory:", SCRATCH)

_EVENTS_COLUMNS: Final = (
    "encounter",
    "seq",
    "id",
    "type",
    "recorded_at",
    "body",
    "prev_hash",
    "hash",
)

#: `position` is the rowid, given in commit order (a file has one writer at a time), never
#: reused (AUTOINCREMENT: not even after another hand removed the last row).
EVENTS: Final = """CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        body TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        UNIQUE (tenant, encounter, seq),
        UNIQUE (tenant, id)
    )"""
#: A tenant's rows in position order (a follower's read).
POSITIONS_INDEX: Final = """CREATE INDEX IF NOT EXISTS events_positions ON events
    (tenant, position)"""
#: The erasures under way: a row here lives only inside the transaction of `encounter erase`
#: (inserted before its UPDATE, deleted before its commit), so no other connection ever sees
#: one, and the update trigger lets that one encounter's bodies be erased, nothing else.
ERASING: Final = """CREATE TABLE IF NOT EXISTS erasing (
        tenant TEXT NOT NULL,
        encounter TEXT NOT NULL,
        PRIMARY KEY (tenant, encounter)
    )"""
#: The append-only triggers, as the ledger writes them (`verify` checks them word for word).
#: The one UPDATE let through is an erasure: inside `encounter erase`'s transaction (its row in
#: `erasing`), a body that had text becomes empty and every other column stays as it was.
TRIGGERS: Final = {
    "events_no_update": """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    WHEN NOT (NEW.body = '' AND OLD.body <> '' AND NEW.position IS OLD.position
        AND NEW.tenant IS OLD.tenant AND NEW.encounter IS OLD.encounter AND NEW.seq IS OLD.seq
        AND NEW.id IS OLD.id AND NEW.type IS OLD.type AND NEW.recorded_at IS OLD.recorded_at
        AND NEW.prev_hash IS OLD.prev_hash AND NEW.hash IS OLD.hash
        AND EXISTS (SELECT 1 FROM erasing WHERE erasing.tenant = OLD.tenant
            AND erasing.encounter = OLD.encounter))
    BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused (erasure: encounter erase)');
    END""",
    "events_no_delete": """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE refused'); END""",
}
#: The triggers of files written before erasure: as strict (they refuse every UPDATE), so
#: `verify` does not call them altered; a write replaces them with `TRIGGERS`.
PREVIOUS_TRIGGERS: Final = {
    "events_no_update": """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE refused'); END""",
}
INDEX: Final = """CREATE INDEX IF NOT EXISTS events_retractions ON events
    (tenant, encounter, seq) WHERE type = 'event.retracted'"""
#: Corrections are read before every fold, as retractions are.
CORRECTIONS_INDEX: Final = """CREATE INDEX IF NOT EXISTS events_corrections ON events
    (tenant, encounter, seq) WHERE type = 'event.corrected'"""
#: Rewinds (and the dice events a rewind keeps) are read before every fold too.
KEPT_INDEX: Final = """CREATE INDEX IF NOT EXISTS events_kept ON events (tenant, encounter, seq)
    WHERE type IN ('dice.committed', 'dice.revealed', 'encounter.rewound')"""
#: The head the ledger last acknowledged for each encounter (its rows must still hold it), and
#: a cache of its system and title; `verified`, a mark earlier versions trusted, is no longer
#: read: every write checks the encounter's whole chain.
HEADS: Final = """CREATE TABLE IF NOT EXISTS heads (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        system TEXT NOT NULL,
        title TEXT,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        verified INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, encounter)
    )"""


def _words(sql: str | None) -> list[str]:
    return (sql or "").replace("IF NOT EXISTS ", "").split()


def connect(path: Path, *, readonly: bool, create: bool) -> tuple[sqlite3.Connection, bool]:
    """A connection to the ledger file at `path` (and whether this call created the file),
    checked to be an encounter ledger; for writing, its schema made current."""
    unnamed = str(path) in UNNAMED
    existed = unnamed or _exists(path, readonly=readonly, create=create)
    try:
        if readonly and not unnamed:
            conn = _open_readonly(path)
        else:
            name = "" if str(path) == SCRATCH else str(path)
            conn = sqlite3.connect(
                name, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the ledger {path}: {_os_reason(path, exc)}") from exc
    try:
        kind = _identify(conn, path, readonly)
        if not readonly:
            conn.execute("PRAGMA synchronous=FULL")
            _make_current(conn, kind, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if not existed:
            remove(path)
        if "not a database" in str(exc) or "malformed" in str(exc):
            raise StoreError(f"{path} is not an encounter ledger or is damaged: {exc}") from exc
        raise StoreError(f"cannot open the ledger {path}: {_os_reason(path, exc)}") from exc
    except BaseException:
        conn.close()
        if not existed:
            remove(path)
        raise
    return conn, not existed


def _exists(path: Path, *, readonly: bool, create: bool) -> bool:
    """Whether the file is there; what is wrong when it cannot be (before SQLite makes one)."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a ledger file")
    if path.exists():
        return True
    folder = path.parent
    if not folder.is_dir():
        what = "no such folder" if not folder.exists() else "not a folder"
        raise StoreError(f"cannot open the ledger {path}: {what}: {folder}")
    if readonly or not create:
        raise UnknownName(
            f"no ledger at {path}: no such file (start one with `encounter new`)",
            code="no-ledger",
        )
    return False


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that can only read: `query_only` on a read-write open (so the WAL files
    are tidied away on close as usual), else a read-only open, else (a read-only mount, where
    no WAL index can be made) the file read as immutable."""
    uri = f"file:{quote(str(path.absolute()))}"
    for options in ("mode=rw", "mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(
            f"{uri}?{options}", uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None,
            check_same_thread=False,
        )  # fmt: skip
        try:
            conn.execute("PRAGMA query_only=ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            conn.close()
            continue
        return conn
    raise sqlite3.OperationalError("unable to open database file")


#: The tables a ledger written before it said so may hold (its projection cache included).
_LEGACY_TABLES: Final = frozenset({"events", "heads", "cache_snapshots", "cache_views"})
#: The projection cache of format 2, replaced by `SNAPSHOTS` (a cache: dropping it loses nothing).
_OLD_CACHE: Final = ("cache_snapshots", "cache_views", "cache_rolls")
#: Sealed fold snapshots (`ledger.store.snapshots`): a cache only.
SNAPSHOTS: Final = """CREATE TABLE IF NOT EXISTS snapshots (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        standing TEXT NOT NULL,
        state TEXT NOT NULL,
        seal TEXT NOT NULL,
        PRIMARY KEY (tenant, encounter, seq)
    )"""

#: What `_identify` finds: a ledger of this format, one to migrate, or a file with no tables.
CURRENT, LEGACY, EMPTY = "current", "legacy", "empty"


def _identify(conn: sqlite3.Connection, path: Path, readonly: bool) -> str:
    """CURRENT, LEGACY or EMPTY; anything else is refused before it is touched."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith("sqlite_")
    }
    if app == APPLICATION_ID:
        if version > USER_VERSION:
            raise StoreError(
                f"{path} holds a ledger of a newer format ({version}; this version reads up "
                f"to {USER_VERSION}): upgrade encounter-ledger"
            )
        return CURRENT if version == USER_VERSION else LEGACY
    if app == 0 and not tables:
        return EMPTY
    if app == 0 and "events" in tables and tables <= _LEGACY_TABLES:
        columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(events)"))
        if columns == _EVENTS_COLUMNS:
            return LEGACY
    if app != 0:
        detail = f"its application_id is {app:#x}"
    else:
        detail = "tables " + ", ".join(sorted(tables))
    advice = (
        "; it was left untouched"
        if readonly
        else "; nothing was written to it: start a ledger in a file of its own with `new` first"
    )
    raise StoreError(
        f"{path} is not an encounter ledger (another application's SQLite file: {detail}){advice}"
    )


def is_current(conn: sqlite3.Connection) -> bool:
    """Whether the connection's file holds a ledger of this format (none to migrate)."""
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    return bool(app == APPLICATION_ID and version == USER_VERSION)


def _make_current(conn: sqlite3.Connection, kind: str, path: Path) -> None:
    """Create the schema (a new file), migrate an earlier format, restore missing triggers."""
    present = {
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE name IN "
            "('heads', 'events_corrections', 'events_kept', 'snapshots', 'erasing')"
        )
    }
    if (
        kind == CURRENT
        and len(present) == 5
        and not missing_triggers(conn)
        and not outdated_triggers(conn)
    ):
        return
    if kind == EMPTY:
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            # Another process may be creating the file too; it sets WAL, which persists.
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        _apply(conn, path)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _apply(conn: sqlite3.Connection, path: Path) -> None:
    # Under the write lock, look again: another process may have done it meanwhile.
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    had_events = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'"
    ).fetchone()
    # Said before a migration drops them with the table they were on.
    missing = missing_triggers(conn)
    if had_events and not has_tenants(conn):
        _key_by_tenant(conn)
    conn.execute(EVENTS)
    conn.execute(INDEX)
    conn.execute(CORRECTIONS_INDEX)
    conn.execute(KEPT_INDEX)
    conn.execute(POSITIONS_INDEX)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(heads)")}
    if columns and "verified" not in columns:
        # Format 1: the heads cache gains the verified mark (0: nothing verified yet).
        conn.execute("ALTER TABLE heads ADD COLUMN verified INTEGER NOT NULL DEFAULT 0")
    if columns and "tenant" not in columns:
        _copy_table(conn, "heads", HEADS, "tenant, ", "'default', ")
    conn.execute(HEADS)
    if not columns and had_events:
        _rebuild_heads(conn)
    for old in _OLD_CACHE:
        conn.execute(f"DROP TABLE IF EXISTS {old}")
    conn.execute(SNAPSHOTS)
    conn.execute(ERASING)
    for name, sql in views.SQLITE_VIEWS.items():  # for SQL and Datasette users
        conn.execute(f"CREATE VIEW IF NOT EXISTS {name} AS {sql}")
    for name in [*missing_triggers(conn), *outdated_triggers(conn)]:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute(TRIGGERS[name])
    if missing and had_events:
        # Without them rows may have been changed: every write checks its encounter's whole
        # chain before it appends, and verify names a changed row.
        names = ", ".join(missing)
        warnings.warn(
            f"{path}: the append-only trigger{'s' * (len(missing) > 1)} {names} "
            f"{'were' if len(missing) > 1 else 'was'} missing or not the ledger's own: "
            "recreated (rows may have been changed meanwhile: run `encounter verify`)",
            LedgerWarning,
            stacklevel=2,
        )
    if app != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version={USER_VERSION}")


def _rebuild_heads(conn: sqlite3.Connection) -> None:
    """The heads cache from the rows (it is only a cache: dropping it loses nothing)."""
    conn.execute(
        "INSERT OR REPLACE INTO heads "
        "SELECT e.tenant, e.encounter, coalesce(json_extract(e.body, '$.system'), '?'), "
        "json_extract(e.body, '$.title'), h.seq, h.hash, e.recorded_at, h.recorded_at, 0 "
        "FROM events e JOIN (SELECT tenant, encounter, MAX(seq) AS top FROM events "
        "GROUP BY tenant, encounter) t "
        "ON e.tenant = t.tenant AND e.encounter = t.encounter AND e.seq = 1 "
        "JOIN events h ON h.tenant = t.tenant AND h.encounter = t.encounter AND h.seq = t.top "
        "WHERE json_valid(e.body)"
    )


def has_tenants(conn: sqlite3.Connection) -> bool:
    """Whether the file's events are keyed by tenant (format 4; a file without events is)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    return not columns or "tenant" in columns


#: The order positions are given to the rows of a file written before them: by time, each
#: encounter's rows kept in seq order (the running latest time of its rows so far), which is the
#: order they were committed in unless a clock went back.
MIGRATION_ORDER: Final = (
    "max(recorded_at) OVER (PARTITION BY encounter ORDER BY seq ROWS UNBOUNDED PRECEDING), "
    "encounter, seq"
)


def _key_by_tenant(conn: sqlite3.Connection) -> None:
    """Format 3 to 4, in the open write transaction: every row becomes the default tenant's and
    gets a position; the chain (and so every head digest) is the same text, byte for byte."""
    for name in views.SQLITE_VIEWS:  # they name `events`, which is replaced under them
        conn.execute(f"DROP VIEW IF EXISTS {name}")
    columns = ", ".join(_EVENTS_COLUMNS)
    conn.execute(EVENTS.replace("events", "events_keyed", 1))
    conn.execute(
        f"INSERT INTO events_keyed (tenant, {columns}) SELECT 'default', {columns} FROM events "
        f"ORDER BY {MIGRATION_ORDER}"
    )
    conn.execute("DROP TABLE events")  # its triggers and indexes with it; made anew below
    conn.execute("ALTER TABLE events_keyed RENAME TO events")
    conn.execute("DROP TABLE IF EXISTS snapshots")  # a cache, keyed anew


def _copy_table(conn: sqlite3.Connection, table: str, made: str, add: str, value: str) -> None:
    """A table made anew by `made` with its rows copied, the new columns `add` set to `value`."""
    columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
    conn.execute(made.replace(table, f"{table}_keyed", 1))
    conn.execute(f"INSERT INTO {table}_keyed ({add}{columns}) SELECT {value}{columns} FROM {table}")
    conn.execute(f"DROP TABLE {table}")
    conn.execute(f"ALTER TABLE {table}_keyed RENAME TO {table}")


def _trigger_sql(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))


def missing_triggers(conn: sqlite3.Connection) -> list[str]:
    """The append-only triggers that are absent or not word for word the ledger's own (or the
    one before erasure, as strict)."""
    found = _trigger_sql(conn)
    return [
        name
        for name, sql in TRIGGERS.items()
        if _words(found.get(name)) != _words(sql)
        and (
            name not in PREVIOUS_TRIGGERS
            or _words(found.get(name)) != _words(PREVIOUS_TRIGGERS[name])
        )
    ]


def outdated_triggers(conn: sqlite3.Connection) -> list[str]:
    """The append-only triggers of a file written before erasure, which a write replaces."""
    found = _trigger_sql(conn)
    return [
        name
        for name, sql in PREVIOUS_TRIGGERS.items()
        if found.get(name) is not None and _words(found.get(name)) == _words(sql)
    ]


def foreign_triggers(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(name, table) of every trigger in the file that is not one of the ledger's own."""
    found = conn.execute(
        "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY tbl_name, name"
    ).fetchall()
    return [(str(name), str(table)) for name, table in found if name not in TRIGGERS]


def remove(path: Path) -> None:
    """Delete a ledger file this process created (and its WAL files), if it is still there."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass
        except OSError:
            return


def _os_reason(path: Path, exc: sqlite3.Error) -> str:
    """What the file system says about `path`, where SQLite only says it could not open it."""
    target = path if path.exists() else path.parent
    want = os.R_OK | (os.W_OK if path.exists() else os.W_OK | os.X_OK)
    try:
        if os.statvfs(target).f_flag & os.ST_RDONLY:
            return f"read-only file system ({os.strerror(errno.EROFS)}): {target}"
    except OSError as err:
        return f"{err.strerror}: {target}"
    if not os.access(target, want):
        return f"permission denied ({os.strerror(errno.EACCES)}): {target}"
    return str(exc)
