"""Streams written by the amend of version 0.1 (a retraction of kind `amend` and a corrected
copy recorded at the head) keep folding exactly as they did when they were written (plus the
tracks added since, such as l5r's `unconscious`).

`tests/fixtures/amend-0.1/` was written by the code of commit 1ad8d2d, before `amend` became one
`event.corrected`: each stream with the `tracks --json`, `audit --json` and `replay --json` that
code printed for it. It is never regenerated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import BadInput, Ledger, cli
from ledger.events import versions
from tests import paths
from tests.streams import without_added

FIXTURES = paths.FIXTURES / "amend-0.1"
STREAMS = sorted(FIXTURES.glob("*.jsonl"))
runner = CliRunner()


def test_there_is_a_stream_for_each_old_amend_case() -> None:
    names = {p.name for p in STREAMS} - {p.name for p in FIXTURES.glob("*.replay.jsonl")}
    assert names == {"duel.jsonl", "ford.jsonl", "misread.jsonl"}


def imported(name: str, tmp_path: Path) -> Path:
    db = tmp_path / "old.db"
    result = runner.invoke(cli.app, ["--db", str(db), "import", str(FIXTURES / f"{name}.jsonl")])
    assert result.exit_code == 0, result.output
    return db


def read(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args, "--json"])
    return result.stdout


def read_today(step: dict[str, Any]) -> dict[str, Any]:
    """An old replay step as today reads it: an opening is upcast to its type's version now
    (its rules table gains the house rules added since, pinned as the old code played)."""
    if step["type"] != "encounter.opened":
        return step
    body = dict(versions.upcast(step["type"], step["event"]))
    return {**step, "event": versions.stamped(step["type"], body)}


@pytest.mark.parametrize("name", ["misread", "duel", "ford"])
def test_an_old_amend_stream_folds_to_the_tracks_it_had_when_it_was_written(
    name: str, tmp_path: Path
) -> None:
    db = imported(name, tmp_path)
    now = json.loads(read(db, "tracks", name))
    assert without_added(now) == json.loads((FIXTURES / f"{name}.tracks.json").read_text())
    # The same tracks plus the keys added since (`json.dumps` keeps the order it had).
    assert json.dumps(without_added(now)) + "\n" == (FIXTURES / f"{name}.tracks.json").read_text()


#: The keys of a `replay --json` line that come from the fold (later versions add words).
FOLDED = ("seq", "type", "event", "combatants", "pools")


@pytest.mark.parametrize("name", ["misread", "duel", "ford"])
def test_an_old_amend_stream_replays_step_by_step_as_it_did(name: str, tmp_path: Path) -> None:
    db = imported(name, tmp_path)
    now = [json.loads(line) for line in read(db, "replay", name).splitlines()]
    then = [
        json.loads(line) for line in (FIXTURES / f"{name}.replay.jsonl").read_text().splitlines()
    ]
    # Since #24 the story as corrected tells an undo as it tells an amend: not as a step of its
    # own (`replay --as-played` tells both). Every step of table play is as it was.
    played = [read_today(step) for step in then if step["type"] not in RULINGS]
    assert [without_added({k: step[k] for k in FOLDED}) for step in now] == played


#: The event types of rulings, which the story as corrected does not tell as steps.
RULINGS = ("event.retracted", "event.corrected")


@pytest.mark.parametrize("name", ["misread", "duel", "ford"])
def test_an_old_amend_stream_audits_its_rulings_as_it_did(name: str, tmp_path: Path) -> None:
    # The rules themselves have grown since: what must hold is the record of the rulings, and
    # that every event the old amend recorded still applies.
    db = imported(name, tmp_path)
    now = json.loads(read(db, "audit", name))["findings"]
    then = json.loads((FIXTURES / f"{name}.audit.json").read_text())["findings"]
    assert [f for f in now if f["rule"] == "ruling-reversed"] == [
        f for f in then if f["rule"] == "ruling-reversed"
    ]
    assert not [f for f in now if f["rule"] == "event-orphaned"]


def test_an_old_amend_is_still_undone_by_undoing_its_copy(tmp_path: Path) -> None:
    with Ledger(tmp_path / "old.db") as ledger:
        ledger.import_lines((FIXTURES / "ford.jsonl").read_text().splitlines())
        # ford: seq 8 retracted seq 2 (kind amend) and seq 9 is its corrected copy.
        with pytest.raises(BadInput, match="undo seq 9 to drop the correction"):
            ledger.undo("ford", 8, reason="no")
        with pytest.raises(BadInput, match="amend or undo seq 9 instead"):
            ledger.amend("ford", 2, {"stats": {"level": 1}}, reason="no")
        undone = ledger.undo("ford", 9, reason="the bandit was a novice after all")
        assert undone.downstream is not None and undone.downstream.first_divergence == 9
