"""`encounter views` on PostgreSQL: `events_view` and `encounters` in PostgreSQL's JSON operators,
and the `track_changes` read model rebuilt in one transaction (`ledger.views` is the SQLite file's).

The columns are those of the file's views; `track_changes.before` and `after` are `jsonb` (a
number is a JSON number, `after::numeric` charts it; a set of slots is a JSON object). Creating
them needs the CREATE privilege on the schema: the ledger's owner runs `encounter views`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

import psycopg
import psycopg.errors

from ledger.errors import StoreError
from ledger.pgreads import one_line
from ledger.pgstore import CONNECT_TIMEOUT_S, PgStore
from ledger.views import retractions


def _field(alias: str, key: str) -> str:
    return f"({alias}.body::jsonb ->> '{key}')"


def _seq_field(alias: str, types: str) -> str:
    # Only a retraction's or a correction's target is a seq (elsewhere it names a combatant):
    # PostgreSQL may evaluate a condition in any order, so the cast is guarded by the type.
    return f"CASE WHEN {alias}.type IN ({types}) THEN {_field(alias, 'target')}::bigint END"


_REVISIONS: Final = "'event.retracted', 'event.corrected'"
_RETRACTIONS: Final = retractions(_seq_field("events", "'event.retracted'"))


def _latest_round(key: str) -> str:
    return f"""(
        SELECT {_field("s", key)} FROM events s
        WHERE s.encounter = e.encounter AND s.type = 'round.started' AND s.seq <= e.seq
        ORDER BY s.seq DESC LIMIT 1
    )"""


VIEWS: Final[dict[str, str]] = {
    "events_view": f"""WITH RECURSIVE {_RETRACTIONS}
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
    (SELECT MAX(f.seq) FROM in_force f WHERE f.encounter = e.encounter AND f.target = e.seq)
        AS retracted_by,
    (SELECT MAX(c.seq) FROM events c
        WHERE c.encounter = e.encounter AND c.type = 'event.corrected'
        AND {_seq_field("c", "'event.corrected'")} = e.seq
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
_TRACK_CHANGES: Final = (
    "DROP TABLE IF EXISTS track_changes",
    """CREATE TABLE track_changes (
        encounter TEXT NOT NULL,
        seq BIGINT NOT NULL,
        round BIGINT,
        combatant TEXT NOT NULL,
        track TEXT NOT NULL,
        before JSONB,
        after JSONB,
        built_to BIGINT NOT NULL,
        PRIMARY KEY (encounter, seq, combatant, track)
    )""",
)
_INDEX: Final = (
    "CREATE INDEX track_changes_by_track ON track_changes (encounter, combatant, track, seq)"
)
_COLUMNS: Final = ("encounter", "seq", "round", "combatant", "track", "before", "after", "built_to")


def rebuild(store: PgStore, encounters: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
    """(Re)create the views and fill `track_changes` with each encounter's rows (the dicts of
    `ledger.views`), in one transaction: a reader sees the old read model or the new one."""
    counts: dict[str, int] = {}
    with _owner_transaction(store) as conn:
        for name, sql in VIEWS.items():
            # A view whose columns changed cannot be replaced in place.
            conn.execute(f"DROP VIEW IF EXISTS {name}")
            conn.execute(f"CREATE VIEW {name} AS {sql}")
        for statement in _TRACK_CHANGES:
            conn.execute(statement)
        with conn.cursor().copy(f"COPY track_changes ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
            for rows in encounters:
                for row in rows:
                    counts[row["encounter"]] = counts.get(row["encounter"], 0) + 1
                    copy.write_row([_cell(row, column) for column in _COLUMNS])
        conn.execute(_INDEX)
    return counts


def drop(store: PgStore) -> None:
    """Delete the read model and the views (the events lose nothing)."""
    with _owner_transaction(store) as conn:
        for name in VIEWS:
            conn.execute(f"DROP VIEW IF EXISTS {name}")
        conn.execute("DROP TABLE IF EXISTS track_changes")


def _cell(row: Mapping[str, Any], column: str) -> Any:
    value = row[column]
    if column in ("before", "after") and value is not None:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


@contextmanager
def _owner_transaction(store: PgStore) -> Iterator[psycopg.Connection[Any]]:
    """A connection of its own (not the pool's: the rows are read from the pool meanwhile) in
    one transaction; a refused privilege is the one-line error that says who may do it."""
    try:
        with (
            psycopg.connect(store.url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S) as conn,
            conn.transaction(),
        ):
            yield conn
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(
            f"cannot make the SQL views in {store.name} ({one_line(exc)}): run `encounter views` "
            "as the ledger's owner (see the README's Hosting section)"
        ) from exc
    except psycopg.Error as exc:
        raise StoreError(f"cannot make the SQL views in {store.name}: {one_line(exc)}") from exc
