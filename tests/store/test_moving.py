"""Moving between stores: every example exported from SQLite and imported into PostgreSQL (and
back) keeps its tracks, audit and head digest, line for line; `encounter copy` moves a ledger."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app
from tests import paths
from tests.stores import PgBackend

EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


@pytest.fixture
def pg(pg_server: str) -> Iterator[PgBackend]:
    """A fresh PostgreSQL store (a schema of its own)."""
    backend = PgBackend(pg_server)
    try:
        yield backend
    finally:
        backend.close()


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


Seen = tuple[dict[str, Any], list[dict[str, Any]], list[str], tuple[bool, int, str | None]]


def seen(ledger: Ledger, name: str) -> Seen:
    """Everything a reader of one encounter sees: tracks, audit, export, verify."""
    [report] = ledger.verify(name)
    return (
        ledger.tracks(name).view(),
        [f.model_dump(mode="json") for f in ledger.audit(name)],
        list(ledger.export(name)),
        (report.ok, report.events, report.head),
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_moves_from_sqlite_to_postgresql_and_back_unchanged(
    path: Path, pg: PgBackend, tmp_path: Path
) -> None:
    name = path.stem
    lines = path.read_text(encoding="utf-8").splitlines()
    with Ledger(tmp_path / "laptop.db") as laptop:
        laptop.import_lines(lines, into=name)
        on_sqlite = seen(laptop, name)
    with pg.ledger() as hosted:
        assert hosted.import_lines(on_sqlite[2], into=name).appended == len(on_sqlite[2])
        on_postgresql = seen(hosted, name)
        again = hosted.import_lines(on_sqlite[2], into=name)
        assert (again.appended, again.already_stored) == (0, len(on_sqlite[2]))
    assert on_postgresql == on_sqlite
    with Ledger(tmp_path / "back.db") as back:
        back.import_lines(on_postgresql[2], into=name)
        assert seen(back, name) == on_sqlite
    assert on_sqlite[3][0] is True


def test_verify_prints_the_same_lines_on_both_stores(pg: PgBackend, tmp_path: Path) -> None:
    laptop = str(tmp_path / "laptop.db")
    for path in EXAMPLES:
        assert cli("--db", laptop, "import", str(path))[0] == 0
    assert cli("copy", "--from", laptop, "--to", pg.location)[0] == 0
    code, on_sqlite, _ = cli("--db", laptop, "verify")
    assert code == 0
    assert cli("--db", pg.location, "verify") == (0, on_sqlite, "")
    assert len(on_sqlite.splitlines()) == len(EXAMPLES) + 1  # and the digest of every head


def test_copy_moves_every_encounter_and_a_second_copy_appends_nothing(
    pg: PgBackend, tmp_path: Path
) -> None:
    laptop = str(tmp_path / "laptop.db")
    for path in EXAMPLES[:2]:
        cli("--db", laptop, "import", str(path))
    first, second = (p.stem for p in EXAMPLES[:2])
    sizes = [len(p.read_text(encoding="utf-8").splitlines()) for p in EXAMPLES[:2]]
    code, out, err = cli("copy", "--from", laptop, "--to", pg.location)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{first}: {sizes[0]} appended, 0 already stored; head seq {sizes[0]}",
        f"{second}: {sizes[1]} appended, 0 already stored; head seq {sizes[1]}",
        f"Copied 2 encounters from {laptop} to {pg.location} ({sum(sizes)} events appended, "
        "0 already stored).",
    ]
    code, out, _ = cli("copy", "--from", laptop, "--to", pg.location, "--json")
    document = json.loads(out)
    assert [
        (e["encounter"], e["appended"], e["already_stored"]) for e in document["encounters"]
    ] == [
        (first, 0, sizes[0]),
        (second, 0, sizes[1]),
    ]
    back = str(tmp_path / "back.db")
    assert cli("copy", "--from", pg.location, "--to", back)[0] == 0
    for name in (first, second):
        assert cli("--db", back, "export", name) == cli("--db", laptop, "export", name)


def test_copy_refuses_a_source_that_does_not_verify_and_copies_nothing(
    pg: PgBackend, tmp_path: Path
) -> None:
    laptop = tmp_path / "laptop.db"
    cli("--db", str(laptop), "import", str(EXAMPLES[0]))
    with pg.ledger() as hosted:
        lines = EXAMPLES[1].read_text(encoding="utf-8").splitlines()
        hosted.import_lines(lines, into=EXAMPLES[1].stem)
    pg.unguard()
    pg.execute("UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 2")
    code, out, err = cli("copy", "--from", pg.location, "--to", str(laptop))
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {pg.location}: encounter {EXAMPLES[1].stem!r} does not verify at seq 2 (hash "
        "does not match the event's contents); nothing was copied\n"
    )
    with Ledger(laptop) as copied:
        assert [h.encounter for h in copied.encounters()] == [EXAMPLES[0].stem]


def test_copy_from_a_missing_file_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    code, out, err = cli("copy", "--from", str(missing), "--to", str(tmp_path / "to.db"))
    assert (code, out, err) == (
        2,
        "",
        f"Error: no ledger at {missing}: no such file (start one with `encounter new`)\n",
    )
    assert not missing.exists() and not (tmp_path / "to.db").exists()
