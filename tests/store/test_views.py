"""The data file for SQL and Datasette users: `events_view`, `encounters` and the rebuildable
`track_changes` read model, queried with plain SQL and served by Datasette."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import cli
from tests import paths
from tests.conftest import missing
from tests.stores import Backend, PgBackend, SqliteBackend

ROOT = paths.ROOT
runner = CliRunner()


@pytest.fixture
def ford(backend: Backend) -> Backend:
    """The ford encounter on each store; on PostgreSQL its views made by `encounter views` (a
    SQLite file has them from the start)."""
    return given_ford(backend)


def given_ford(backend: Backend) -> Backend:
    with backend.ledger() as book:
        book.open("ford", "ssss", title="Bandits at the ford")
        book.join("ford", "Bandit", "adversary", {"level": 2})
        book.join("ford", "Ash", "player")
        book.record("ford", {"type": "round.started", "round": 1})
        book.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 2})  # 5
        book.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})  # 6
        book.undo("ford", reason="that blow was on Ash")  # 7 retracts 6
        book.redo("ford")  # 8 retracts 7: 6 counts again
        book.undo("ford", 5, reason="wrong level")  # 9 retracts 5
        book.record("ford", {"type": "round.started", "round": 2, "scene": "bridge"})  # 10
        book.record("ford", {"type": "note", "text": "the bridge holds", "by": "GM"})  # 11
        book.amend("ford", 11, {"text": "the bridge holds, barely"}, reason="typo")  # 12
    if backend.kind == "postgresql":
        assert views(backend).exit_code == 0
    return backend


def views(store: Backend, *args: str) -> Any:
    return runner.invoke(cli.app, ["--db", store.location, "views", *args])


def query(store: Backend, sql: str) -> list[tuple[Any, ...]]:
    return store.execute(sql)


def test_events_view_shows_game_time_who_and_the_retraction_in_force(ford: Backend) -> None:
    rows = query(
        ford,
        "SELECT seq, type, round, scene, by, actor, target, target_seq, retracted_by, "
        "corrected_by "
        "FROM events_view WHERE encounter = 'ford' ORDER BY seq",
    )
    assert rows == [
        (1, "encounter.opened", None, None, None, None, None, None, None, None),
        (2, "combatant.joined", None, None, None, "Bandit", None, None, None, None),
        (3, "combatant.joined", None, None, None, "Ash", None, None, None, None),
        (4, "round.started", 1, None, None, None, None, None, None, None),
        (5, "harm.inflicted", 1, None, None, None, "Bandit", None, 9, None),
        (6, "harm.inflicted", 1, None, None, None, "Bandit", None, None, None),
        (7, "event.retracted", 1, None, None, None, None, 6, 8, None),
        (8, "event.retracted", 1, None, None, None, None, 7, None, None),
        (9, "event.retracted", 1, None, None, None, None, 5, None, None),
        (10, "round.started", 2, "bridge", None, None, None, None, None, None),
        (11, "note", 2, "bridge", "GM", None, None, None, None, 12),
        (12, "event.corrected", 2, "bridge", None, None, None, 11, None, None),
    ]


def test_encounters_lists_each_encounter_with_its_head(ford: Backend) -> None:
    with ford.ledger() as book:
        head = book.encounters()[0]
    assert query(ford, "SELECT * FROM encounters") == [
        ("ford", "ssss", "Bandits at the ford", 12, head.hash, head.updated_at, "default")
    ]


def test_views_rebuilds_track_changes_from_the_events(ford: Backend) -> None:
    result = views(ford)
    assert (result.exit_code, result.stdout) == (
        0,
        "Rebuilt track_changes: 4 rows (ford 4). Views: events_view, encounters.\n",
    )
    rows = query(
        ford,
        "SELECT seq, round, combatant, track, before, after FROM track_changes "
        "ORDER BY seq, combatant, track",
    )
    slots: Any = {"1": {"capacity": 3, "filled": 1}, "2": {"capacity": 3, "filled": 0}}
    before: Any = {**slots, "1": {"capacity": 3, "filled": 0}}
    if ford.kind == "sqlite":  # JSON text in the file (as Datasette shows it); jsonb on a server
        slots, before = json.dumps(slots), json.dumps(before)
    assert rows == [
        (2, None, "Bandit", "status", None, "active"),
        (3, None, "Ash", "status", None, "active"),
        (6, 1, "Bandit", "penalties", 0, 1),
        (6, 1, "Bandit", "slots", before, slots),
    ]


#: The track_changes table, if the store holds it.
TABLE_NAMED = {
    "sqlite": "SELECT name FROM sqlite_master WHERE name = 'track_changes'",
    "postgresql": "SELECT tablename FROM pg_tables WHERE tablename = 'track_changes' "
    "AND schemaname = current_schema()",
}


def test_track_changes_is_a_cache_that_can_be_deleted_and_rebuilt(ford: Backend) -> None:
    views(ford)
    before = query(ford, "SELECT * FROM track_changes ORDER BY seq, combatant, track")
    assert views(ford, "--drop").exit_code == 0
    assert query(ford, TABLE_NAMED[ford.kind]) == []
    with ford.ledger() as book:
        assert book.verify("ford")[0].ok
        assert book.tracks("ford").seq == 12
    views(ford)
    assert query(ford, "SELECT * FROM track_changes ORDER BY seq, combatant, track") == before


def test_on_sqlite_a_tenant_drops_its_own_read_model_and_keeps_the_others(tmp_path: Path) -> None:
    shared = SqliteBackend(tmp_path / "bot.db")
    given_ford(shared)
    with shared.ledger(tenant="guild-b") as book:
        book.open("ford", "ssss")
        book.join("ford", "Bandit", "adversary", {"level": 1})
    for tenant in ("default", "guild-b"):
        invoke = runner.invoke(cli.app, ["--db", shared.location, "--tenant", tenant, "views"])
        assert invoke.exit_code == 0, invoke.output
    tenants = "SELECT DISTINCT tenant FROM track_changes ORDER BY tenant"
    assert query(shared, tenants) == [("default",), ("guild-b",)]
    dropped = runner.invoke(
        cli.app, ["--db", shared.location, "--tenant", "guild-b", "views", "--drop"]
    )
    assert (dropped.exit_code, dropped.output) == (
        0,
        f"Dropped tenant guild-b's rows of track_changes from {shared.location} (other tenants' "
        "rows and the views stay).\n",
    )
    assert query(shared, tenants) == [("default",)]
    assert query(shared, "SELECT count(*) FROM events_view WHERE encounter = 'ford'")[0][0] > 0
    assert views(shared, "--drop").output == (
        f"Dropped track_changes and the views from {shared.location}.\n"
    )
    assert query(shared, TABLE_NAMED["sqlite"]) == []


def test_postgresql_numbers_in_track_changes_chart_as_numbers(pg_ford: PgBackend) -> None:
    rows = query(
        pg_ford,
        "SELECT seq, after::numeric FROM track_changes WHERE track = 'penalties' ORDER BY seq",
    )
    assert rows == [(6, 1)]


@pytest.fixture
def pg_ford(pg_server: str) -> Iterator[PgBackend]:
    """The ford encounter on PostgreSQL, its views made."""
    backend = PgBackend(pg_server)
    try:
        given_ford(backend)
        yield backend
    finally:
        backend.close()


def test_views_by_a_role_that_may_not_create_them_is_one_line(pg_ford: PgBackend) -> None:
    role = f"app_{uuid.uuid4().hex[:8]}"
    pg_ford.execute(f"CREATE ROLE {role} LOGIN")
    try:
        pg_ford.execute(f"GRANT USAGE ON SCHEMA {pg_ford.schema} TO {role}")
        pg_ford.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {pg_ford.schema} TO {role}")
        url = pg_ford.location.replace("postgresql://postgres@", f"postgresql://{role}@")
        result = runner.invoke(cli.app, ["--db", url, "views"])
        assert result.exit_code == 2
        assert result.stderr.startswith(f"Error: cannot make the SQL views in {url} (")
        assert result.stderr.endswith(
            "run `encounter views` as the ledger's owner (see the docs' hosting page)\n"
        )
        assert len(result.stderr.splitlines()) == 1
    finally:
        pg_ford.execute(f"DROP OWNED BY {role}")
        pg_ford.execute(f"DROP ROLE {role}")


def test_views_of_a_missing_file_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["--db", str(tmp_path / "no.db"), "views"])
    assert (result.exit_code, result.stderr.startswith("Error: no ledger at")) == (2, True)
    assert not (tmp_path / "no.db").exists()


# Datasette opens a connection of its own, which it leaves to the collector, at import and at
# each request (`detect_json1`, some held past the request): Python 3.13 warns of each one.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_datasette_serves_events_view_and_track_changes(tmp_path: Path) -> None:
    if importlib.util.find_spec("datasette") is None:
        missing("datasette is installed only for this test (by .ci/run)")
    from datasette.app import Datasette

    # Datasette serves SQLite files: this one runs on the SQLite store only.
    ford = SqliteBackend(tmp_path / "encounters.db")
    given_ford(ford)
    views(ford)
    file = ford.path

    served = Datasette([str(file)])

    async def fetch(path: str) -> Any:
        response = await served.client.get(path)
        assert response.status_code == 200, path
        return response.json()

    name = file.stem
    try:
        events = asyncio.run(fetch(f"/{name}/events_view.json?_shape=array&encounter=ford"))
        changes = asyncio.run(
            fetch(f"/{name}/track_changes.json?_shape=array&combatant=Bandit&track=penalties")
        )
    finally:  # the file's connections closed here, not left to the collector (in a later test)
        for database in [*served.databases.values(), getattr(served, "_internal_database", None)]:
            if database is not None:
                database.close()
        gc.collect()  # and Datasette's own, while this test ignores their warnings
    assert [(e["seq"], e["retracted_by"]) for e in events][4:6] == [(5, 9), (6, None)]
    assert [(c["seq"], c["before"], c["after"]) for c in changes] == [(6, 0, 1)]


def documented_columns() -> dict[str, set[str]]:
    """The columns docs/store.md names: the rows of the `events` table's table, and the
    backquoted names of the bullet (or the paragraph) that describes each view and
    `track_changes`."""
    page = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
    table = page.split("## The `events` table", 1)[1].split("\n## ", 1)[0]
    found = {"events": set(re.findall(r"^\| `(\w+)` \|", table, re.M))}
    for name, start, end in [
        ("events_view", "- `events_view`:", r"\n- "),
        ("encounters", "- `encounters`:", r"\n\n"),
        ("track_changes", "also rebuilds `track_changes` (", r"\)"),
    ]:
        told = re.split(end, page.split(start, 1)[1], maxsplit=1)[0]
        # A bullet's asides in parentheses name no column: (a combatant), (of a retraction).
        spans = re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", told))
        found[name] = {col.strip() for span in spans for col in span.split(",")}
    return found


def stored_columns(store: Backend, table: str) -> set[str]:
    if store.kind == "sqlite":
        rows = query(store, f"SELECT name FROM pragma_table_info('{table}')")
    else:
        rows = query(
            store,
            "SELECT column_name FROM information_schema.columns "
            f"WHERE table_name = '{table}' AND table_schema = current_schema()",
        )
    return {str(row[0]) for row in rows}


def test_the_data_file_page_names_every_column_of_the_table_and_the_views(ford: Backend) -> None:
    assert views(ford).exit_code == 0
    for table, documented in documented_columns().items():
        assert documented == stored_columns(ford, table), table
