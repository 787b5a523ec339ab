"""The data file for SQL and Datasette users: `events_view`, `encounters` and the rebuildable
`track_changes` read model, queried with plain SQL and served by Datasette."""

from __future__ import annotations

import asyncio
import importlib.util
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import Ledger, cli

ROOT = Path(__file__).parent.parent
runner = CliRunner()


@pytest.fixture
def ford(db: Path) -> Path:
    with Ledger(db) as book:
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
    return db


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_events_view_shows_game_time_who_and_the_retraction_in_force(ford: Path) -> None:
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


def test_encounters_lists_each_encounter_with_its_head(ford: Path) -> None:
    with Ledger(ford) as book:
        head = book.encounters()[0]
    assert query(ford, "SELECT * FROM encounters") == [
        ("ford", "ssss", "Bandits at the ford", 12, head.hash, head.updated_at)
    ]


def test_views_rebuilds_track_changes_from_the_events(ford: Path) -> None:
    result = runner.invoke(cli.app, ["--db", str(ford), "views"])
    assert (result.exit_code, result.stdout) == (
        0,
        "Rebuilt track_changes: 4 rows (ford 4). Views: events_view, encounters.\n",
    )
    rows = query(
        ford,
        "SELECT seq, round, combatant, track, before, after FROM track_changes "
        "ORDER BY seq, combatant, track",
    )
    slots = '{"1": {"capacity": 3, "filled": 1}, "2": {"capacity": 3, "filled": 0}}'
    assert rows == [
        (2, None, "Bandit", "status", None, "active"),
        (3, None, "Ash", "status", None, "active"),
        (6, 1, "Bandit", "penalties", 0, 1),
        (6, 1, "Bandit", "slots", slots.replace('"filled": 1', '"filled": 0'), slots),
    ]


def test_track_changes_is_a_cache_that_can_be_deleted_and_rebuilt(ford: Path) -> None:
    runner.invoke(cli.app, ["--db", str(ford), "views"])
    before = query(ford, "SELECT * FROM track_changes ORDER BY seq, combatant, track")
    assert runner.invoke(cli.app, ["--db", str(ford), "views", "--drop"]).exit_code == 0
    assert query(ford, "SELECT name FROM sqlite_master WHERE name = 'track_changes'") == []
    with Ledger(ford) as book:
        assert book.verify("ford")[0].ok
        assert book.tracks("ford").seq == 12
    runner.invoke(cli.app, ["--db", str(ford), "views"])
    assert query(ford, "SELECT * FROM track_changes ORDER BY seq, combatant, track") == before


def test_views_of_a_missing_file_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    result = runner.invoke(cli.app, ["--db", str(tmp_path / "no.db"), "views"])
    assert (result.exit_code, result.stderr.startswith("Error: no ledger at")) == (2, True)
    assert not (tmp_path / "no.db").exists()


@pytest.mark.skipif(
    importlib.util.find_spec("datasette") is None,
    reason="datasette is installed only for this test (by .ci/run)",
)
def test_datasette_serves_events_view_and_track_changes(ford: Path) -> None:
    from datasette.app import Datasette

    runner.invoke(cli.app, ["--db", str(ford), "views"])

    async def fetch(path: str) -> Any:
        response = await Datasette([str(ford)]).client.get(path)
        assert response.status_code == 200, path
        return response.json()

    name = ford.stem
    events = asyncio.run(fetch(f"/{name}/events_view.json?_shape=array&encounter=ford"))
    changes = asyncio.run(
        fetch(f"/{name}/track_changes.json?_shape=array&combatant=Bandit&track=penalties")
    )
    assert [(e["seq"], e["retracted_by"]) for e in events][4:6] == [(5, 9), (6, None)]
    assert [(c["seq"], c["before"], c["after"]) for c in changes] == [(6, 0, 1)]
