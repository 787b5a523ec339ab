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
KEPT_INDEX: Final = """CREATE INDEX IF NOT EXISTS events_kept ON events (tenant, encounter, seq)
    WHERE type IN ('dice.committed', 'dice.revealed', 'encounter.rewound')"""
#: Every row of a tenant-keyed table belongs to the tenant its session names (`SET LOCAL
#: app.tenant`, which every transaction of the ledger does); none of another's is seen, written
#: or locked, by the ledger or by SQL of another hand (`tests/store/test_tenants_pg.py`).
POLICY: Final = "tenant = current_setting('app.tenant', true)"
#: The tables keyed by tenant, under row-level security.
TENANT_TABLES: Final = ("events", "heads", "snapshots")

SCHEMA: Final = (
    # Each row's position: given by the guard's row check (`postgres_guard`), after the
    # transaction has its id, which is what lets a follower know when a gap can no longer fill.
    "CREATE SEQUENCE IF NOT EXISTS events_position AS bigint",
    """CREATE TABLE IF NOT EXISTS events (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        body TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        position BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, encounter, seq),
        CONSTRAINT events_id_key UNIQUE (tenant, id)
    )""",
    """CREATE INDEX IF NOT EXISTS events_retractions ON events (tenant, encounter, seq)
    WHERE type = 'event.retracted'""",
    """CREATE INDEX IF NOT EXISTS events_corrections ON events (tenant, encounter, seq)
    WHERE type = 'event.corrected'""",
    KEPT_INDEX,
    "CREATE INDEX IF NOT EXISTS events_positions ON events (tenant, position)",
    """CREATE TABLE IF NOT EXISTS heads (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        system TEXT NOT NULL,
        title TEXT,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        verified BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, encounter)
    )""",
    """CREATE TABLE IF NOT EXISTS snapshots (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        hash TEXT NOT NULL,
        standing TEXT NOT NULL,
        state TEXT NOT NULL,
        seal TEXT NOT NULL,
        PRIMARY KEY (tenant, encounter, seq)
    )""",
)


#: The one way the app role erases (`encounter erase`): a function that runs as the tables'
#: owner (SECURITY DEFINER), so the app role needs no UPDATE on `events` and gets EXECUTE on
#: this alone. It erases a whole encounter of the session's own tenant (row-level security
#: holds the owner too), under the encounter's write lock, with the permit the guard's update
#: check honours set for this transaction only; the ledger checks the chain first, under the
#: same lock. Its search path is the one it was made with, so another schema's tables or
#: functions cannot stand in for the ledger's.
ERASE_FUNCTION: Final = "ledger_erase"
ERASE_SOURCE: Final = f"""
    DECLARE
        erased bigint;
    BEGIN
        IF erased_tenant IS DISTINCT FROM current_setting('app.tenant', true) THEN
            RAISE EXCEPTION 'ledger_erase: tenant % is not the tenant this session names',
                erased_tenant USING ERRCODE = 'insufficient_privilege';
        END IF;
        PERFORM pg_advisory_xact_lock({LOCK_CLASS},
            hashtext(erased_tenant || '/' || erased_encounter));
        PERFORM set_config('app.erasing', erased_tenant || '/' || erased_encounter, true);
        UPDATE events SET body = '' WHERE tenant = erased_tenant
            AND encounter = erased_encounter AND body <> '';
        GET DIAGNOSTICS erased = ROW_COUNT;
        PERFORM set_config('app.erasing', '', true);
        DELETE FROM snapshots WHERE tenant = erased_tenant AND encounter = erased_encounter;
        IF to_regclass('track_changes') IS NOT NULL THEN
            EXECUTE 'DELETE FROM track_changes WHERE tenant = $1 AND encounter = $2'
                USING erased_tenant, erased_encounter;
        END IF;
        RETURN erased;
    END """


def erase_statements() -> list[str]:
    """The statements that (re)create the erasure function, callable by no one but its owner
    until granted (`GRANT EXECUTE ON FUNCTION ledger_erase(text, text) TO ...`)."""
    return [
        f"CREATE OR REPLACE FUNCTION {ERASE_FUNCTION}(erased_tenant text, erased_encounter text) "
        "RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT "
        f"AS $erase${ERASE_SOURCE}$erase$",
        f"REVOKE ALL ON FUNCTION {ERASE_FUNCTION}(text, text) FROM PUBLIC",
    ]


_ERASER: Final = """SELECT p.prosrc, p.prosecdef, l.lanname, p.proconfig IS NOT NULL,
    p.proowner = c.relowner
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    JOIN pg_class c ON c.oid = 'events'::regclass
    WHERE p.pronamespace = c.relnamespace AND p.proname = %s"""


def eraser_altered(conn: psycopg.Connection[Any]) -> str | None:
    """What is wrong with the erasure function (missing, or not as the ledger made it), or
    None."""
    found = conn.execute(_ERASER, (ERASE_FUNCTION,)).fetchall()
    if not found:
        return "missing"
    source, definer, language, pinned, owned = found[0]
    if (
        len(found) > 1
        or not (definer and pinned and owned)
        or language != "plpgsql"
        or source.split() != ERASE_SOURCE.split()
    ):
        return "replaced"
    return None


def security(table: str) -> list[str]:
    """The statements that hold `table` to the session's tenant (the owner included)."""
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS ledger_tenant ON {table}",
        f"CREATE POLICY ledger_tenant ON {table} USING ({POLICY}) WITH CHECK ({POLICY})",
    ]


#: The tables held to their tenant where they exist (`track_changes`: once `views` made it).
SECURED: Final = (*TENANT_TABLES, "track_changes")
_SECURITY: Final = """SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity
    FROM pg_class c WHERE c.oid = ANY(%s::regclass[]) ORDER BY c.relname"""
_POLICIES: Final = """SELECT c.relname, p.polname, p.polcmd, p.polpermissive, p.polroles = '{0}',
    pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)
    FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
    WHERE c.oid = ANY(%s::regclass[]) ORDER BY c.relname, p.polname"""
#: The policy's expression as the server prints it back.
_PRINTED: Final = "(tenant = current_setting('app.tenant'::text, true))"


def unsecured(conn: psycopg.Connection[Any], *, foreign: bool = True) -> list[str]:
    """The tables whose row-level security is not as the ledger made it, each as `table
    (what is wrong)`: not enabled, not forced (the owner is not held to it), the tenant policy
    missing or replaced, or a permissive policy of another hand beside it (policies are OR-ed:
    `USING (true)` shows every tenant's rows; `foreign=False`: the ledger's own parts only,
    which the owner's open makes anew)."""
    present = [
        t
        for (t,) in conn.execute(
            "SELECT t FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL",
            (list(SECURED),),
        )
    ]
    wrong = []
    for table, enabled, forced in conn.execute(_SECURITY, (present,)).fetchall():
        if not enabled:
            wrong.append(f"{table} (row-level security disabled)")
        elif not forced:
            wrong.append(f"{table} (row-level security not forced: its owner is not held to it)")
    policies: dict[str, list[tuple[Any, ...]]] = {t: [] for t in present}
    for table, *policy in conn.execute(_POLICIES, (present,)).fetchall():
        policies[table].append(tuple(policy))
    for table in present:
        ours = [p for p in policies[table] if p[0] == "ledger_tenant"]
        if not ours:
            wrong.append(f"{table} (its tenant policy ledger_tenant is missing)")
        elif ours[0][1:] != ("*", True, True, _PRINTED, _PRINTED):
            wrong.append(f"{table} (its tenant policy ledger_tenant was replaced)")
        for name, _, permissive, *_ in policies[table]:
            if foreign and name != "ledger_tenant" and permissive:
                wrong.append(f"{table} (the policy {name} is not the ledger's own)")
    return wrong


def has_tenants(conn: psycopg.Connection[Any]) -> bool:
    """Whether the database's events are keyed by tenant (none before this version were)."""
    found = conn.execute(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('events') "
        "AND attname IN ('tenant', 'position') AND NOT attisdropped"
    ).fetchone()
    return found is not None and found[0] == 2


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
        if (
            postgres_guard.altered(conn, previous=False)
            or not snapshots
            or old_cache
            or not kept
            or not has_tenants(conn)
            or (has_tenants(conn) and unsecured(conn, foreign=False))
            or eraser_altered(conn) is not None
        ):
            # As a write recreates SQLite's: only a role that may (the owner) does. (Rows may
            # have changed meanwhile: every write checks its encounter's whole chain.)
            with suppress(psycopg.errors.InsufficientPrivilege), conn.transaction():
                _lock_schema(conn)
                if not has_tenants(conn):
                    migrate(conn)
                if postgres_guard.altered(conn, previous=False):
                    for statement in postgres_guard.statements():
                        conn.execute(statement)
                for old in _OLD_CACHE:
                    conn.execute(f"DROP TABLE IF EXISTS {old}")
                conn.execute(KEPT_INDEX)
                conn.execute(SCHEMA[-1])
                for table in TENANT_TABLES:
                    for statement in security(table):
                        conn.execute(statement)
                if conn.execute("SELECT to_regclass('track_changes') IS NOT NULL").fetchone() == (
                    True,
                ):
                    for statement in security("track_changes"):
                        conn.execute(statement)
                if eraser_altered(conn) is not None:
                    for statement in erase_statements():
                        conn.execute(statement)
        return
    if not create and not events:
        raise UnknownName(f"no ledger at {name} (start one with `encounter new`)", code="no-ledger")
    with conn.transaction():
        # Two processes opening a fresh database must not both create the tables.
        _lock_schema(conn)
        rebuild = conn.execute("SELECT to_regclass('heads') IS NULL").fetchone() == (True,)
        stored = conn.execute("SELECT to_regclass('events') IS NOT NULL").fetchone() == (True,)
        if stored and not has_tenants(conn):
            migrate(conn)
        for statement in SCHEMA:
            conn.execute(statement)
        for statement in postgres_guard.statements():
            conn.execute(statement)
        if rebuild:
            _rebuild_heads(conn)
        for table in TENANT_TABLES:
            for statement in security(table):
                conn.execute(statement)
        for statement in erase_statements():
            conn.execute(statement)


def _lock_schema(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_CLASS, _SCHEMA_LOCK))


def _rebuild_heads(conn: psycopg.Connection[Any]) -> None:
    # Before row-level security holds the tables (a database of 0.1, migrated in this
    # transaction): every row is seen, whatever its tenant.
    rows = conn.execute(
        "SELECT e.tenant, e.encounter, e.body, e.recorded_at, h.seq, h.hash, h.recorded_at "
        "FROM events e JOIN (SELECT tenant, encounter, MAX(seq) AS top FROM events "
        "GROUP BY tenant, encounter) t "
        "ON e.tenant = t.tenant AND e.encounter = t.encounter AND e.seq = 1 "
        "JOIN events h ON h.tenant = t.tenant AND h.encounter = t.encounter AND h.seq = t.top"
    ).fetchall()
    put = statements.PUT_HEAD.replace("?", "%s")
    for tenant, encounter, body, opened_at, seq, digest, updated_at in rows:
        opened = _fields(body)
        system, title = opened.get("system", "?"), opened.get("title")
        values = (tenant, encounter, system, title, seq, digest, opened_at, updated_at, 0)
        conn.execute(put, values)


#: The positions given to the rows of a database written before them (as a file's:
#: `sqlite_schema.MIGRATION_ORDER`): by time, each encounter's rows kept in seq order (the
#: running latest time of its rows so far).
_MIGRATION_POSITIONS: Final = """UPDATE events e SET position = o.p
    FROM (SELECT encounter, seq, row_number() OVER (ORDER BY t, encounter, seq) AS p
        FROM (SELECT encounter, seq, max(recorded_at) OVER (PARTITION BY encounter ORDER BY seq
            ROWS UNBOUNDED PRECEDING) AS t FROM events) x) o
    WHERE e.encounter = o.encounter AND e.seq = o.seq"""


def migrate(conn: psycopg.Connection[Any]) -> None:
    """The schema before tenants to this one, in the open transaction (the owner's): every row
    becomes the default tenant's and gets a position; no row's chain text changes, so every
    head digest stays as it was published."""
    for trigger in postgres_guard.TRIGGERS:  # the guard refuses the UPDATE; made anew after
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger} ON events")
    conn.execute("ALTER TABLE events ADD COLUMN IF NOT EXISTS tenant TEXT NOT NULL "
                 "DEFAULT 'default'")  # fmt: skip
    conn.execute("ALTER TABLE events ADD COLUMN IF NOT EXISTS position BIGINT NOT NULL DEFAULT 0")
    conn.execute("CREATE SEQUENCE IF NOT EXISTS events_position AS bigint")
    conn.execute(_MIGRATION_POSITIONS)
    conn.execute(
        "SELECT setval('events_position', coalesce(max(position), 0) + 1, false) FROM events"
    )
    conn.execute("ALTER TABLE events DROP CONSTRAINT IF EXISTS events_pkey")
    conn.execute("ALTER TABLE events ADD PRIMARY KEY (tenant, encounter, seq)")
    conn.execute("ALTER TABLE events DROP CONSTRAINT IF EXISTS events_id_key")
    conn.execute("ALTER TABLE events ADD CONSTRAINT events_id_key UNIQUE (tenant, id)")
    conn.execute("DROP INDEX IF EXISTS events_retractions")
    conn.execute("DROP INDEX IF EXISTS events_corrections")
    conn.execute("DROP INDEX IF EXISTS events_kept")
    if conn.execute("SELECT to_regclass('heads') IS NOT NULL").fetchone() == (True,):
        conn.execute("ALTER TABLE heads ADD COLUMN IF NOT EXISTS tenant TEXT NOT NULL "
                     "DEFAULT 'default'")  # fmt: skip
        conn.execute("ALTER TABLE heads DROP CONSTRAINT IF EXISTS heads_pkey")
        conn.execute("ALTER TABLE heads ADD PRIMARY KEY (tenant, encounter)")
    conn.execute("DROP TABLE IF EXISTS snapshots")  # a cache, keyed anew
    conn.execute("DROP TABLE IF EXISTS track_changes")  # a read model, built anew by `views`
    for statement in SCHEMA:
        conn.execute(statement)


def _fields(body: Any) -> dict[str, Any]:
    try:
        opened = json.loads(body)
    except (TypeError, ValueError):
        return {}
    return opened if isinstance(opened, dict) else {}
