"""`replay` tells an undo and an amend the same way on every output (#24): the story as
corrected tells neither as a step (the undone event is left out, the amended one told as
amended, where it was), on the terminal, in `--json`, in the Markdown log and in the HTML
timeline; `replay --as-played` tells both as steps; the rulings section of a report lists each
once, and its findings leave out the `ruling-reversed` notes that say them again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli

runner = CliRunner()


def ok(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def ruled(tmp_path: Path) -> Path:
    """Harm at seq 3 undone at seq 5; harm at seq 4 amended at seq 6."""
    db = tmp_path / "e.db"
    ok(db, "new", "ford", "--system", "ssss")
    ok(db, "add", "ford", "Thug", "--side", "adversary", "--stat", "level=2")
    ok(db, "harm", "ford", "Thug", "2")
    ok(db, "harm", "ford", "Thug", "1")
    ok(db, "undo", "ford", "3", "--reason", "it missed")
    ok(db, "amend", "ford", "4", "level=2", "--reason", "a heavy blow")
    return db


def test_the_story_as_corrected_tells_neither_an_undo_nor_an_amend_as_a_step(ruled: Path) -> None:
    told = ok(ruled, "replay", "ford")
    assert re.findall(r"^seq (\d+):", told, re.M) == ["1", "2", "4"]
    assert "seq 4: Thug takes level-2 harm in a level-2 slot (1/3 filled)" in told
    seqs = [json.loads(line)["seq"] for line in ok(ruled, "replay", "ford", "--json").splitlines()]
    assert seqs == [1, 2, 4]


def test_as_played_tells_both_as_steps(ruled: Path) -> None:
    told = ok(ruled, "replay", "ford", "--as-played")
    assert re.findall(r"^seq (\d+):", told, re.M) == ["1", "2", "3", "4", "5", "6"]
    assert "seq 5: seq 3 undone: it missed" in told
    assert "seq 6: seq 4 corrected to level 2: a heavy blow" in told


def test_the_markdown_log_tells_them_once_in_its_rulings(ruled: Path) -> None:
    log = ok(ruled, "export", "ford", "--format", "md")
    timeline = log.split("## Undone and corrected rulings")[0]
    assert re.findall(r"^- seq (\d+):", timeline, re.M) == ["1", "2", "4"]
    rulings = log.split("## Undone and corrected rulings")[1].split("## Audit findings")[0]
    assert re.findall(r"^- seq (\d+) (\w+) seq (\d+)", rulings, re.M) == [
        ("5", "undid", "3"),
        ("6", "corrected", "4"),
    ]
    assert "ruling-reversed" not in log


def test_the_html_report_tells_them_once_in_its_rulings(ruled: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    ok(ruled, "report", "ford", "--html", str(out))
    page = out.read_text(encoding="utf-8")
    timeline = page.split('<section id="timeline"')[1].split("</section>")[0]
    assert re.findall(r'<li id="seq-(\d+)">', timeline) == ["1", "2", "4"]
    rulings = page.split('<section id="rulings"')[1].split("</section>")[0]
    assert rulings.count('<li class="ruling"') == 2
    assert "ruling-reversed" not in page
