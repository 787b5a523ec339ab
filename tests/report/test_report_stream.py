"""The report written as it is read (#23): the story from a second replay a round at a time,
both passes as of one moment, and a long encounter's charts thinned to what they can show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import Ledger, cli, report
from ledger.report import html as report_html
from ledger.report import markdown as report_md
from ledger.report import plot
from tests.longstreams import lines, skirmish
from tests.stores import Backend

runner = CliRunner()
#: A skirmish long enough for the Sage's chart (a change in four events) to be thinned to
#: SPANS spans of ten changes.
LONG = 1_200
SPANS = 30


@pytest.fixture(scope="module")
def long_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1,200-event skirmish in a ledger file, as `long`."""
    db = tmp_path_factory.mktemp("long") / "long.db"
    with Ledger(db) as ledger:
        ledger.import_lines(lines(skirmish(LONG)), into="long")
    return db


def test_a_long_report_tells_every_event_and_thins_only_the_charts(
    long_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plot, "MOST_SPANS", SPANS)
    result = runner.invoke(cli.app, ["--db", str(long_db), "report", "long", "--html", "-"])
    assert result.exit_code == 0, result.stderr
    page = result.stdout
    with Ledger(long_db) as ledger:
        told = [step.record.seq for step in ledger.replay("long")]
    assert [int(s) for s in re.findall(r'<li id="seq-(\d+)">', page)] == told
    sage = re.search(r'data-combatant="Sage" data-points="(\d+)">(.*?)</figure>', page, re.S)
    assert sage is not None
    changes = int(sage.group(1))
    assert changes > 4 * SPANS
    drawn = sage.group(2).count('<g class="point"')
    # A span keeps its first and last, and each of the Sage's two measures' lowest and highest
    # (here its first two and its last: her harm comes and goes).
    assert drawn <= SPANS * (2 + 2 * 2)
    assert drawn < changes / 2


def test_the_log_written_in_parts_is_the_log_as_one_text(long_db: Path) -> None:
    with Ledger(long_db) as ledger, report.reading(ledger, "long") as built:
        parts = list(report_md.session_chunks(built))
        whole = report_md.session_log(built)
    assert "".join(parts) == whole
    assert len(parts) > LONG / 2  # a line an event, not one text
    assert whole.count("\n- seq ") >= LONG - LONG // 8


def test_a_report_is_written_as_of_the_moment_it_was_read(backend: Backend) -> None:
    with backend.ledger() as reader, backend.ledger() as writer:
        writer.open("ford", "ssss")
        writer.record("ford", {"type": "combatant.joined", "name": "Ash", "side": "player"})
        with report.reading(reader, "ford") as built:
            writer.record("ford", {"type": "note", "text": "appended while the page is written"})
            page = report_html.page(built)
            log = report_md.session_log(built)
    assert built.events == 2
    assert "appended while" not in page
    assert "appended while" not in log
    assert '<li id="seq-2">' in page and '<li id="seq-3">' not in page
