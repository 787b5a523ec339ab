"""A ledger written before tenants (#28), on either store, made by the code of that day
(`tests/fixtures/format-3/`): read as it is, migrated in place by the first write or by
`encounter migrate`, every head digest unchanged, every event the default tenant's with a
position in the order it was written."""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from ledger import Ledger, StoreError
from ledger.api import Followed
from ledger.cli import app
from tests import paths
from tests.stores import PgBackend

FIXTURE = paths.ROOT / "tests" / "fixtures" / "format-3"
#: The heads of the fixture file (written by the code before tenants).
FILE_HEADS = {
    "duel": "a54e16051f0f6d9dc7fd98395bd4924f4e32ea88100c29448d9f47780c00b368",
    "ford": "2a54ee5d04a11c4af88391952ab9267b2a72dc429ad756fa307123cf2f5c919d",
}
#: ... and of the dump (its ids are others, so its digests are).
DUMP_HEADS = {
    "duel": "9a32a30b8dd741f998f72dba671d78ddcfaf8fe3cbe33ae7653f08748a4dd422",
    "ford": "06ee1177ec8de9ac2bbb5e8487d38019bc42a6b688d9fb1e2b239becc9a3af20",
}


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    shutil.copyfile(FIXTURE / "ledger.db", path)
    return path


@pytest.fixture
def old_database(pg_server: str) -> Iterator[PgBackend]:
    """A schema restored from the dump of a database written before tenants."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    dump = (FIXTURE / "postgres.sql").read_text(encoding="utf-8")
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(dump.replace("tenants_fixture", schema).encode())
    backend = PgBackend.__new__(PgBackend)
    backend.server, backend.schema, backend._siblings = pg_server, schema, []
    backend.integrity_error = psycopg.IntegrityError
    joiner = "&" if "?" in pg_server else "?"
    backend.location = f"{pg_server}{joiner}options=-csearch_path%3D{schema}"
    try:
        yield backend
    finally:
        backend.close()


def heads(location: str, *, readonly: bool = True) -> dict[str, str]:
    with Ledger(location, create=False, readonly=readonly) as book:
        return {h.encounter: h.hash for h in book.encounters()}


def test_a_file_written_before_tenants_reads_as_it_is_without_being_changed(
    old_file: Path,
) -> None:
    before = old_file.read_bytes()
    assert heads(str(old_file)) == FILE_HEADS
    code, out, _ = cli("--db", str(old_file), "verify", "--head", FILE_HEADS["ford"], "ford")
    assert code == 0 and "chain ok" in out
    with Ledger(old_file, create=False, readonly=True) as book:
        assert [r.event.text for r in book.records("duel")[2:]] == [  # type: ignore[attr-defined]
            "duel secret 0",
            "duel secret 1",
            "duel secret 2",
        ]
        with pytest.raises(StoreError, match="encounter migrate"):
            next(book.follow(after=0))
    assert old_file.read_bytes() == before


def test_the_first_write_migrates_a_file_and_every_head_digest_stays(old_file: Path) -> None:
    with Ledger(old_file, user="gm") as book:
        written = book.record("ford", {"type": "note", "text": "after the upgrade"})
        assert [r.ok for r in book.verify()] == [True, True]
        published = {h.encounter: h.hash for h in book.encounters()}
    assert published["duel"] == FILE_HEADS["duel"]
    with Ledger(old_file, readonly=True, create=False) as book:
        assert book.records("ford")[6].hash == FILE_HEADS["ford"]
        assert written.position == 13
        positions = [f.position for f in _all(book)]
    assert positions == list(range(1, 14))
    raw = sqlite3.connect(old_file)
    try:
        assert raw.execute("PRAGMA user_version").fetchone() == (4,)
        assert raw.execute("SELECT DISTINCT tenant FROM events").fetchall() == [("default",)]
        # Each encounter's rows keep their seq order in the positions given to them.
        order = raw.execute("SELECT encounter, seq FROM events ORDER BY position").fetchall()
    finally:
        raw.close()
    for name in ("ford", "duel"):
        seqs = [seq for encounter, seq in order if encounter == name]
        assert seqs == sorted(seqs)


def _all(book: Ledger) -> list[Followed]:
    follower = book.follow(after=0, poll=0.01)
    return [next(follower) for _ in range(13)]


def test_encounter_migrate_migrates_a_file_once(old_file: Path) -> None:
    assert cli("--db", str(old_file), "migrate") == (
        0,
        f"Migrated {old_file}: tenants and positions; head digests unchanged.\n",
        "",
    )
    assert cli("--db", str(old_file), "migrate")[1] == (
        f"{old_file} is already of the current format.\n"
    )
    assert heads(str(old_file)) == FILE_HEADS


def test_a_database_written_before_tenants_reads_then_migrates_with_its_digests(
    old_database: PgBackend,
) -> None:
    location = old_database.location
    assert heads(location) == DUMP_HEADS
    code, out, err = cli("--db", location, "migrate", "--json")
    assert (code, err) == (0, "") and '"migrated": true' in out
    assert heads(location) == DUMP_HEADS
    with Ledger(location, user="gm") as book:
        assert [r.ok for r in book.verify()] == [True, True]
        assert book.store.problems() == []
        written = book.record("duel", {"type": "note", "text": "after"})
        assert written.position == 13
    found = old_database.execute("SELECT DISTINCT tenant FROM events")
    assert found == [("default",)]


def test_the_first_write_migrates_a_database_written_before_tenants(
    old_database: PgBackend,
) -> None:
    with Ledger(old_database.location, user="gm") as book:
        book.record("ford", {"type": "note", "text": "after"})
        assert [r.ok for r in book.verify()] == [True, True]
        follower = book.follow(after=12, poll=0.01)
        assert next(follower).position == 13
    assert heads(old_database.location)["duel"] == DUMP_HEADS["duel"]
