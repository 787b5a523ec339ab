"""The data file for SQL and Datasette users: views over the events, and a rebuildable read model
of every track change, so that a combatant's health can be charted without any Python.

- `events_view`: one row an event, with its game time, who and whom, and the seq of the
  retraction or correction in force on it (pure SQL over `events`, always current).
- `encounters`: one row an encounter (from the `heads` cache).
- `track_changes`: one row a changed track (encounter, seq, round, combatant, track, before,
  after), folded by the ledger. A cache like `heads`: deleting it loses nothing, and
  `encounter views` rebuilds it (it is not kept current by writes; `built_to` says how far
  each encounter was folded).

The SQL of both dialects is here (they differ in their JSON functions); each dialect runs it
(`SqliteDatabase.rebuild_views`, `PostgresDatabase.rebuild_views`). On PostgreSQL,
`track_changes.before` and `after` are `jsonb` (`after::numeric` charts a number).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final


def retractions(target: str) -> str:
    """The CTEs of the retractions and whether each is in force, given the SQL of a
    retraction's target seq (the one part SQLite and PostgreSQL spell differently): a
    retraction is in force unless one in force retracts it; walking down each chain from its
    top, the even depths are in force."""
    return f"""
retraction(tenant, encounter, seq, target) AS (
    SELECT tenant, encounter, seq, {target}
    FROM events WHERE type = 'event.retracted'
),
depth(tenant, encounter, seq, d) AS (
    SELECT r.tenant, r.encounter, r.seq, 0 FROM retraction r
    WHERE NOT EXISTS (
        SELECT 1 FROM retraction x WHERE x.tenant = r.tenant AND x.encounter = r.encounter
        AND x.target = r.seq
    )
    UNION ALL
    SELECT r.tenant, r.encounter, r.seq, depth.d + 1
    FROM depth
    JOIN retraction child ON child.tenant = depth.tenant AND child.encounter = depth.encounter
        AND child.seq = depth.seq
    JOIN retraction r ON r.tenant = child.tenant AND r.encounter = child.encounter
        AND r.seq = child.target
),
in_force(tenant, encounter, seq, target) AS (
    SELECT r.tenant, r.encounter, r.seq, r.target FROM retraction r
    JOIN depth ON depth.tenant = r.tenant AND depth.encounter = r.encounter
        AND depth.seq = r.seq
    WHERE depth.d % 2 = 0
)"""


_RETRACTIONS: Final = retractions("CAST(json_extract(body, '$.target') AS INTEGER)")

SQLITE_VIEWS: Final[dict[str, str]] = {
    "events_view": f"""WITH RECURSIVE {_RETRACTIONS}
SELECT
    e.encounter,
    e.seq,
    e.type,
    COALESCE(json_extract(e.body, '$.round'), (
        SELECT json_extract(s.body, '$.round') FROM events s
        WHERE s.tenant = e.tenant AND s.encounter = e.encounter
        AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )) AS round,
    COALESCE(json_extract(e.body, '$.scene'), (
        SELECT json_extract(s.body, '$.scene') FROM events s
        WHERE s.tenant = e.tenant AND s.encounter = e.encounter
        AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )) AS scene,
    json_extract(e.body, '$.by') AS "by",
    COALESCE(json_extract(e.body, '$.actor'), json_extract(e.body, '$.name')) AS actor,
    CASE WHEN e.type IN ('event.retracted', 'event.corrected') THEN NULL
        ELSE json_extract(e.body, '$.target') END AS target,
    CASE WHEN e.type IN ('event.retracted', 'event.corrected')
        THEN json_extract(e.body, '$.target') END AS target_seq,
    (SELECT MAX(f.seq) FROM in_force f
        WHERE f.tenant = e.tenant AND f.encounter = e.encounter AND f.target = e.seq)
        AS retracted_by,
    (SELECT MAX(c.seq) FROM events c
        WHERE c.tenant = e.tenant AND c.encounter = e.encounter AND c.type = 'event.corrected'
        AND json_extract(c.body, '$.target') = e.seq
        AND NOT EXISTS (
            SELECT 1 FROM in_force f WHERE f.tenant = c.tenant AND f.encounter = c.encounter
            AND f.target = c.seq
        )) AS corrected_by,
    e.recorded_at,
    e.body,
    e.tenant
FROM events e""",
    "encounters": """SELECT encounter AS name, system, title, seq AS events, hash AS head,
    updated_at AS updated, tenant
FROM heads""",
}


def _field(alias: str, key: str) -> str:
    return f"({alias}.body::jsonb ->> '{key}')"


def _seq_field(alias: str, types: str) -> str:
    # Only a retraction's or a correction's target is a seq (elsewhere it names a combatant):
    # PostgreSQL may evaluate a condition in any order, so the cast is guarded by the type.
    return f"CASE WHEN {alias}.type IN ({types}) THEN {_field(alias, 'target')}::bigint END"


_REVISIONS: Final = "'event.retracted', 'event.corrected'"
_PG_RETRACTIONS: Final = retractions(_seq_field("events", "'event.retracted'"))


def _latest_round(key: str) -> str:
    return f"""(
        SELECT {_field("s", key)} FROM events s
        WHERE s.tenant = e.tenant AND s.encounter = e.encounter
        AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )"""


POSTGRES_VIEWS: Final[dict[str, str]] = {
    "events_view": f"""WITH RECURSIVE {_PG_RETRACTIONS}
SELECT
    e.encounter,
    e.seq,
    e.type,
    COALESCE({_field("e", "round")}, {_latest_round("round")})::bigint AS round,
    COALESCE({_field("e", "scene")}, {_latest_round("scene")}) AS scene,
    {_field("e", "by")} AS "by",
    COALESCE({_field("e", "actor")}, {_field("e", "name")}) AS actor,
    CASE WHEN e.type IN ({_REVISIONS}) THEN NULL ELSE {_field("e", "target")} END AS target,
    {_seq_field("e", _REVISIONS)} AS target_seq,
    (SELECT MAX(f.seq) FROM in_force f
        WHERE f.tenant = e.tenant AND f.encounter = e.encounter AND f.target = e.seq)
        AS retracted_by,
    (SELECT MAX(c.seq) FROM events c
        WHERE c.tenant = e.tenant AND c.encounter = e.encounter AND c.type = 'event.corrected'
        AND {_seq_field("c", "'event.corrected'")} = e.seq
        AND NOT EXISTS (
            SELECT 1 FROM in_force f WHERE f.tenant = c.tenant AND f.encounter = c.encounter
            AND f.target = c.seq
        )) AS corrected_by,
    e.recorded_at,
    e.body,
    e.tenant
FROM events e""",
    "encounters": """SELECT encounter AS name, system, title, seq AS events, hash AS head,
    updated_at AS updated, tenant
FROM heads""",
}
TRACK_CHANGES: Final = "track_changes"
#: The read model's columns, in order.
COLUMNS: Final = (
    "tenant",
    "encounter",
    "seq",
    "round",
    "combatant",
    "track",
    "before",
    "after",
    "built_to",
)
#: INTEGER affinity for before and after: a number stays a number (Datasette charts it), JSON
#: text stays text.
SQLITE_TRACK_CHANGES: Final = (
    """CREATE TABLE IF NOT EXISTS track_changes (
        tenant TEXT NOT NULL DEFAULT 'default', encounter TEXT, seq INTEGER, round INTEGER,
        combatant TEXT, track TEXT, before INTEGER, after INTEGER, built_to INTEGER,
        PRIMARY KEY (tenant, encounter, seq, combatant, track)
    )""",
    """CREATE INDEX IF NOT EXISTS track_changes_by_track ON track_changes
    (tenant, encounter, combatant, track, seq)""",
)
POSTGRES_TRACK_CHANGES: Final = (
    """CREATE TABLE IF NOT EXISTS track_changes (
        tenant TEXT NOT NULL DEFAULT 'default',
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        round BIGINT,
        combatant TEXT NOT NULL,
        track TEXT NOT NULL,
        before JSONB,
        after JSONB,
        built_to BIGINT NOT NULL,
        PRIMARY KEY (tenant, encounter, seq, combatant, track)
    )""",
)
POSTGRES_INDEX: Final = """CREATE INDEX IF NOT EXISTS track_changes_by_track ON track_changes
    (tenant, encounter, combatant, track, seq)"""
INSERT_CHANGE: Final = (
    f"INSERT INTO track_changes ({', '.join(COLUMNS)}) VALUES (?,?,?,?,?,?,?,?,?)"
)
#: A tenant's rows of the read model, removed before it is built again (other tenants' stay).
CLEAR_CHANGES: Final = "DELETE FROM track_changes WHERE tenant = ?"


def cell(value: Any) -> Any:
    """A number stays a number (Datasette charts it); anything else is its JSON text."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def sqlite_cells(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """A read-model row as SQLite stores it."""
    return tuple(cell(row[c]) if c in ("before", "after") else row[c] for c in COLUMNS)


def postgres_cells(row: Mapping[str, Any]) -> list[Any]:
    """A read-model row as PostgreSQL stores it (before and after as JSON)."""
    return [
        json.dumps(row[c], ensure_ascii=False, sort_keys=True)
        if c in ("before", "after") and row[c] is not None
        else row[c]
        for c in COLUMNS
    ]
