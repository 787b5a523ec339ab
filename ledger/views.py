"""The data file for SQL and Datasette users: views over the events, and a rebuildable read model
of every track change, so that a combatant's health can be charted without any Python.

- `events_view`: one row an event, with its game time, who and whom, and the seq of the
  retraction or correction in force on it (pure SQL over `events`, always current).
- `encounters`: one row an encounter (from the `heads` cache).
- `track_changes`: one row a changed track (encounter, seq, round, combatant, track, before,
  after), folded by the ledger. A cache like `heads`: deleting it loses nothing, and
  `encounter views` rebuilds it (it is not kept current by writes; `built_to` says how far
  each encounter was folded).

The store creates the views with a new file; `encounter views` creates them in older files.
sqlite-utils does the tables, views and indexes. On PostgreSQL, `encounter views` makes the same
views and table in the ledger's schema (`ledger.pgviews`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from ledger.errors import BadInput

if TYPE_CHECKING:
    import sqlite3

    from ledger.pgstore import PgStore
    from ledger.service import Ledger


def retractions(target: str) -> str:
    """The CTEs of the retractions and whether each is in force, given the SQL of a
    retraction's target seq (the one part SQLite and PostgreSQL spell differently): a
    retraction is in force unless one in force retracts it; walking down each chain from its
    top, the even depths are in force."""
    return f"""
retraction(encounter, seq, target) AS (
    SELECT encounter, seq, {target}
    FROM events WHERE type = 'event.retracted'
),
depth(encounter, seq, d) AS (
    SELECT r.encounter, r.seq, 0 FROM retraction r
    WHERE NOT EXISTS (
        SELECT 1 FROM retraction x WHERE x.encounter = r.encounter AND x.target = r.seq
    )
    UNION ALL
    SELECT r.encounter, r.seq, depth.d + 1
    FROM depth
    JOIN retraction child ON child.encounter = depth.encounter AND child.seq = depth.seq
    JOIN retraction r ON r.encounter = child.encounter AND r.seq = child.target
),
in_force(encounter, seq, target) AS (
    SELECT r.encounter, r.seq, r.target FROM retraction r
    JOIN depth ON depth.encounter = r.encounter AND depth.seq = r.seq
    WHERE depth.d % 2 = 0
)"""


_RETRACTIONS: Final = retractions("CAST(json_extract(body, '$.target') AS INTEGER)")

VIEWS: Final[dict[str, str]] = {
    "events_view": f"""WITH RECURSIVE {_RETRACTIONS}
SELECT
    e.encounter,
    e.seq,
    e.type,
    COALESCE(json_extract(e.body, '$.round'), (
        SELECT json_extract(s.body, '$.round') FROM events s
        WHERE s.encounter = e.encounter AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )) AS round,
    COALESCE(json_extract(e.body, '$.scene'), (
        SELECT json_extract(s.body, '$.scene') FROM events s
        WHERE s.encounter = e.encounter AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )) AS scene,
    json_extract(e.body, '$.by') AS "by",
    COALESCE(json_extract(e.body, '$.actor'), json_extract(e.body, '$.name')) AS actor,
    CASE WHEN e.type IN ('event.retracted', 'event.corrected') THEN NULL
        ELSE json_extract(e.body, '$.target') END AS target,
    CASE WHEN e.type IN ('event.retracted', 'event.corrected')
        THEN json_extract(e.body, '$.target') END AS target_seq,
    (SELECT MAX(f.seq) FROM in_force f WHERE f.encounter = e.encounter AND f.target = e.seq)
        AS retracted_by,
    (SELECT MAX(c.seq) FROM events c
        WHERE c.encounter = e.encounter AND c.type = 'event.corrected'
        AND json_extract(c.body, '$.target') = e.seq
        AND NOT EXISTS (
            SELECT 1 FROM in_force f WHERE f.encounter = c.encounter AND f.target = c.seq
        )) AS corrected_by,
    e.recorded_at,
    e.body
FROM events e""",
    "encounters": """SELECT encounter AS name, system, title, seq AS events, hash AS head,
    updated_at AS updated
FROM heads""",
}

TRACK_CHANGES: Final = "track_changes"
COLUMNS: Final = {
    "encounter": str,
    "seq": int,
    "round": int,
    "combatant": str,
    "track": str,
    # INTEGER affinity: a number stays a number (Datasette charts it), JSON text stays text.
    "before": int,
    "after": int,
    "built_to": int,
}


def create_views(conn: sqlite3.Connection) -> None:
    """Create the views (inside the caller's transaction; a no-op where they exist)."""
    for name, sql in VIEWS.items():
        conn.execute(f"CREATE VIEW IF NOT EXISTS {name} AS {sql}")


def _file(ledger: Ledger) -> Any:
    """The ledger file as a `sqlite_utils.Database`, or None for a PostgreSQL ledger (whose
    views are `ledger.pgviews`')."""
    from ledger.store import Store

    if isinstance(ledger.store, Store):
        return ledger.store.db
    return None


def rebuild(ledger: Ledger) -> dict[str, int]:
    """(Re)create the views and the `track_changes` read model from the stored events; the
    rows of each encounter, by name."""
    db = _file(ledger)
    if db is None:
        from ledger import pgviews

        heads = ledger.encounters()
        found = pgviews.rebuild(
            _postgres(ledger), (_rows(ledger, h.encounter, h.seq) for h in heads)
        )
        return {h.encounter: found.get(h.encounter, 0) for h in heads}
    with db.conn:  # one transaction: a reader sees the old read model or the new one
        for name, sql in VIEWS.items():
            db.create_view(name, sql, replace=True)
        table = db.table(TRACK_CHANGES)
        if table.exists():
            table.drop()
        table.create(COLUMNS, pk=("encounter", "seq", "combatant", "track"))
        counts: dict[str, int] = {}
        for head in ledger.encounters():
            rows = [
                {**row, "before": _cell(row["before"]), "after": _cell(row["after"])}
                for row in _rows(ledger, head.encounter, head.seq)
            ]
            table.insert_all(rows, batch_size=1000)
            counts[head.encounter] = len(rows)
        table.create_index(["encounter", "combatant", "track", "seq"], if_not_exists=True)
    return counts


def drop(ledger: Ledger) -> None:
    """Delete the read model and the views (the events lose nothing)."""
    db = _file(ledger)
    if db is None:
        from ledger import pgviews

        pgviews.drop(_postgres(ledger))
        return
    with db.conn:
        for name in VIEWS:
            db.execute(f"DROP VIEW IF EXISTS {name}")
        if db.table(TRACK_CHANGES).exists():
            db.table(TRACK_CHANGES).drop()


def _postgres(ledger: Ledger) -> PgStore:
    from ledger.pgstore import PgStore

    if not isinstance(ledger.store, PgStore):
        raise BadInput(f"no SQL views can be made in {ledger.store.name}")
    return ledger.store


def _rows(ledger: Ledger, encounter: str, top: int) -> Iterator[dict[str, Any]]:
    """One row a changed track (`before` and `after` as the fold has them)."""
    for step in ledger.replay(encounter):
        for change in step.changes:
            yield {
                "encounter": encounter,
                "seq": step.record.seq,
                "round": step.round,
                "combatant": change.combatant,
                "track": change.track,
                "before": change.before,
                "after": change.after,
                "built_to": top,
            }


def _cell(value: Any) -> Any:
    """A number stays a number (Datasette charts it); anything else is its JSON text."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
