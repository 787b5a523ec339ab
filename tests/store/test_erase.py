"""Erasure (issue #28, part 3): `Ledger.erase` and `encounter erase` delete an encounter's
contents for good and keep its chain checkable, on both stores: every row keeps its envelope
and hashes, so `verify` checks the links and the head digest stays; the guard lets no other
UPDATE through; nothing of the text is left in the database files after a VACUUM."""

from __future__ import annotations

import json
import sqlite3
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from typer.testing import CliRunner

from ledger import BadInput
from ledger.api import copy_ledger
from ledger.cli import app
from ledger.errors import Erased
from ledger.store import chain, sqlite_schema
from tests.stores import Backend, PgBackend, SqliteBackend

runner = CliRunner()
#: Texts found nowhere else in the database: a combatant's name, a note, a title.
SECRET_NAME = "Zorblaxquintessa"
SECRET_NOTE = "whispered the password Quillifrond"
SECRET_TITLE = "The Vault of Mirthlethwaite"
KEPT_NAME = "Brannigoldstaff"
JOIN: dict[str, Any] = {"type": "combatant.joined", "side": "adversary", "stats": {"level": 2}}


def lines(name: str, notes: int, title: str, said: str = "said hello") -> list[str]:
    """An ssss encounter: a combatant `name`, one harm, `notes` notes naming it."""
    made: list[dict[str, Any]] = [{"type": "encounter.opened", "system": "ssss", "title": title}]
    made += [{**JOIN, "name": name}, {"type": "harm.inflicted", "target": name, "level": 1}]
    made += [{"type": "note", "text": f"{name} {said} {n}"} for n in range(notes)]
    return [json.dumps(line) for line in made]


def fill(backend: Backend, notes: int = 3) -> None:
    """'ford' (the encounter to erase, with snapshots once notes > 256) and 'moor' in the
    default tenant; a 'ford' of tenant 'guild:2' too."""
    with backend.ledger() as ledger:
        ledger.import_lines(lines(SECRET_NAME, notes, SECRET_TITLE, SECRET_NOTE), into="ford")
        ledger.import_lines(lines(KEPT_NAME, 2, "Moor"), into="moor")
    with backend.ledger(tenant="guild:2") as other:
        other.import_lines(lines(KEPT_NAME, 2, "Other ford"), into="ford")


def heads(backend: Backend, tenant: str = "default") -> dict[str, str | None]:
    with backend.ledger(tenant=tenant) as ledger:
        return {r.encounter: r.head for r in ledger.verify()}


def test_an_erased_encounter_verifies_with_its_head_digest_unchanged(backend: Backend) -> None:
    fill(backend)
    before = heads(backend)
    with backend.ledger() as ledger:
        done = ledger.erase("ford", confirm="ford")
        assert done.document() == {
            "tenant": "default",
            "erased": 6,
            "encounters": [{"encounter": "ford", "erased": 6, "head": before["ford"]}],
        }
        (report,) = ledger.verify("ford")
        assert (report.ok, report.events, report.erased, report.head) == (
            True,
            6,
            6,
            before["ford"],
        )
        assert ledger.problems() == []  # the guard is as the ledger made it
        head = ledger.store.head("ford")
        assert head is not None
        assert (head.erased, head.system, head.title) == (True, "ssss", None)
    assert heads(backend) == before
    code, out, _ = cli(backend, "verify", "ford", "--head", str(before["ford"]))
    assert code == 0
    assert out.splitlines()[0] == (
        f"ford: 6 events, 6 events erased, chain ok (links only: erased contents cannot be "
        f"checked), head {before['ford']}"
    )


def test_erasing_keeps_each_row_s_envelope_and_empties_its_body(backend: Backend) -> None:
    fill(backend)
    columns = "seq, id, type, recorded_at, prev_hash, hash"
    query = f"SELECT {columns}, body FROM events WHERE tenant = 'default' AND encounter = 'ford'"
    rows = backend.execute(f"{query} ORDER BY seq")
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    after = backend.execute(f"{query} ORDER BY seq")
    assert [r[:-1] for r in after] == [r[:-1] for r in rows]
    assert {r[-1] for r in after} == {chain.ERASED}


def test_reads_and_writes_of_an_erased_encounter_say_it_was_erased(backend: Backend) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
        for read in (
            lambda: ledger.tracks("ford"),
            lambda: ledger.records("ford"),
            lambda: list(ledger.replay("ford")),
            lambda: ledger.audit("ford"),
            lambda: list(ledger.export("ford")),
            lambda: ledger.record("ford", {"type": "note", "text": "more"}),
            lambda: ledger.open("ford", "ssss"),
        ):
            with pytest.raises(Erased, match=r"'ford' was erased .*encounter erase"):
                read()
        assert ledger.erase("ford", confirm="ford").erased == 0  # nothing more to erase
    for command in ("tracks", "log", "replay"):
        code, out, err = cli(backend, command, "ford")
        assert (code, out) == (2, "")
        assert err.startswith("Error: encounter 'ford' was erased (`encounter erase`)")
        assert len(err.splitlines()) == 1


def test_list_says_which_encounter_was_erased_in_its_titles_place(backend: Backend) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    code, out, _ = cli(backend, "list")
    assert code == 0
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert rows["ford"][2] == "(erased)" and rows["moor"][2] == "Moor"
    assert SECRET_TITLE not in out


def test_views_are_rebuilt_beside_an_erased_encounter_which_they_leave_out(
    backend: Backend,
) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
        counts = ledger.rebuild_views()
    assert list(counts) == ["moor"] and counts["moor"] > 0


def test_a_copy_of_a_ledger_with_an_erased_encounter_copies_the_others_and_names_it(
    tmp_path: Path,
) -> None:
    source = SqliteBackend(tmp_path / "source.db")
    fill(source)
    with source.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    copied = copy_ledger(source.location, tmp_path / "copy.db")
    assert [e.encounter for e in copied.encounters] == ["moor"]
    assert copied.erased == ("ford",)
    assert copied.document()["erased"] == ["ford"]
    result = runner.invoke(app, ["copy", "--from", source.location, "--to", str(tmp_path / "b.db")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        f"Copied 1 encounter from {source.location} to {tmp_path / 'b.db'} (5 events appended, "
        "0 already stored); left out 1 erased encounter: ford."
    )


def test_another_encounter_and_another_tenant_are_untouched(backend: Backend) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        moor = ledger.tracks("moor").view()
    with backend.ledger(tenant="guild:2") as other:
        theirs = other.tracks("ford").view()
    before, before_theirs = heads(backend), heads(backend, "guild:2")
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
        assert ledger.tracks("moor").view() == moor
        assert ledger.verify("moor")[0].erased == 0
    with backend.ledger(tenant="guild:2") as other:
        assert other.tracks("ford").view() == theirs
        assert other.verify("ford")[0].erased == 0
    assert heads(backend)["moor"] == before["moor"]
    assert heads(backend, "guild:2") == before_theirs


def test_erase_without_its_confirmation_changes_nothing(backend: Backend) -> None:
    fill(backend)
    everything = "SELECT * FROM events ORDER BY tenant, encounter, seq"
    rows, kept = backend.execute(everything), backend.execute("SELECT * FROM heads")
    with backend.ledger() as ledger:
        with pytest.raises(BadInput, match="confirm it by repeating its name"):
            ledger.erase("ford", confirm="moor")
        with pytest.raises(BadInput, match="repeating the tenant's name"):
            ledger.erase_tenant(confirm="ford")
    for args in (
        ("erase", "ford"),
        ("erase", "ford", "--confirm", "for"),
        ("erase", "--tenant-all"),
        ("erase", "--tenant-all", "--confirm", "ford"),
        ("erase", "ford", "--tenant-all", "--confirm", "default"),
    ):
        code, out, err = cli(backend, *args)
        assert (code, out) == (2, ""), args
        assert err.startswith("Error: erase ") and len(err.splitlines()) == 1, err
    assert backend.execute(everything) == rows
    assert backend.execute("SELECT * FROM heads") == kept


def test_erase_tenant_all_erases_every_encounter_of_that_tenant_only(backend: Backend) -> None:
    fill(backend)
    before, theirs = heads(backend), heads(backend, "guild:2")
    code, out, err = cli(backend, "--tenant", "default", "erase", "--tenant-all", "--confirm",
                         "default")  # fmt: skip
    assert (code, err) == (0, "")
    assert out == (
        "Erased 11 events of 2 encounters of tenant 'default'; their heads are unchanged "
        "(`encounter verify` checks the chains).\n"
    )
    with backend.ledger() as ledger:
        assert [(r.encounter, r.ok, r.erased) for r in ledger.verify()] == [
            ("ford", True, 6),
            ("moor", True, 5),
        ]
    assert heads(backend) == before
    assert heads(backend, "guild:2") == theirs
    with backend.ledger(tenant="guild:2") as other:
        assert other.records("ford")[1].event.name == KEPT_NAME  # type: ignore[attr-defined]


def test_an_update_by_hand_is_still_refused_before_and_after_an_erasure(
    backend: Backend,
) -> None:
    fill(backend)
    for update in (
        "UPDATE events SET body = '' WHERE encounter = 'moor'",
        "UPDATE events SET body = '{}' WHERE encounter = 'ford' AND seq = 3",
    ):
        with pytest.raises(backend.integrity_error, match="append-only"):
            backend.execute(update)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    for update in (
        "UPDATE events SET body = '{}' WHERE encounter = 'ford' AND seq = 3",
        "UPDATE events SET hash = prev_hash WHERE encounter = 'ford' AND seq = 3",
        "UPDATE events SET body = '' WHERE encounter = 'moor'",
    ):
        with pytest.raises(backend.integrity_error, match="append-only"):
            backend.execute(update)
    with pytest.raises(backend.integrity_error, match="append-only"):
        backend.execute("DELETE FROM events WHERE encounter = 'ford'")
    with backend.ledger() as ledger:
        assert [r.ok for r in ledger.verify()] == [True, True]


def test_a_body_blanked_by_another_hand_is_broken_not_erased(backend: Backend) -> None:
    fill(backend)
    backend.tamper("UPDATE events SET body = '' WHERE encounter = 'ford' AND seq = 3")
    with backend.ledger() as ledger:
        (report,) = ledger.verify("ford")
        assert (report.ok, report.bad_seq) == (False, 3)
        assert report.problem == (
            "seq 3 is erased but seq 1 is not: an erasure takes a whole encounter (a body was "
            "removed by another hand)"
        )


def test_an_erased_row_whose_link_was_changed_is_broken(backend: Backend) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    backend.tamper(
        "UPDATE events SET prev_hash = hash WHERE encounter = 'ford' AND seq = 4",
    )
    with backend.ledger() as ledger:
        (report,) = ledger.verify("ford")
        assert (report.ok, report.bad_seq, report.problem) == (
            False,
            4,
            "prev_hash does not match the previous event's hash",
        )


def test_a_follower_of_the_tenant_passes_over_erased_events(backend: Backend) -> None:
    fill(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
        top = ledger.record("moor", {"type": "note", "text": "after"}).position
        seen = []
        for followed in ledger.follow(after=0):
            seen.append((followed.encounter, followed.seq))
            if followed.position == top:
                break
    assert seen == [("moor", seq) for seq in range(1, 7)]


@pytest.fixture
def alone(backend: Backend) -> Iterator[Backend]:
    """The store in a database of its own: on PostgreSQL, `VACUUM FULL` keeps the dead row
    versions an older transaction of the same database could still see, so another test's open
    transaction would keep the erased texts on disk (until it ends: the docs say so)."""
    if not isinstance(backend, PgBackend):
        yield backend
        return
    import psycopg

    name = f"erase_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(backend.server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(backend.server)
    own = PgBackend(urlunsplit(parts._replace(path=f"/{name}")))
    try:
        yield own
    finally:
        with psycopg.connect(backend.server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def test_after_erase_and_vacuum_no_text_of_it_is_in_the_database_files(
    alone: Backend,
) -> None:
    backend = alone
    # 300 notes: the encounter has sealed snapshots (every 256th event), which hold its state.
    fill(backend, notes=300)
    with backend.ledger() as ledger:
        assert ledger.tracks("ford").combatant(SECRET_NAME) is not None
        ledger.rebuild_views()
    assert backend.execute("SELECT count(*) FROM snapshots WHERE encounter = 'ford'")[0][0] >= 1
    assert SECRET_NAME.encode() in database_bytes(backend)
    with backend.ledger() as ledger:
        ledger.erase("ford", confirm="ford")
    assert backend.execute("SELECT count(*) FROM snapshots WHERE encounter = 'ford'") == [(0,)]
    assert backend.execute("SELECT count(*) FROM track_changes WHERE encounter = 'ford'") == [(0,)]
    found = database_bytes(backend, vacuum=True)
    for text in (SECRET_NAME, SECRET_NOTE, SECRET_TITLE):
        assert text.encode() not in found, text
    assert KEPT_NAME.encode() in found  # the scan reads the tables: another encounter's is there


def database_bytes(backend: Backend, *, vacuum: bool = False) -> bytes:
    """Every byte of the ledger's tables as stored on disk (after `VACUUM` / `VACUUM FULL`)."""
    if isinstance(backend, SqliteBackend):
        if vacuum:
            raw = sqlite3.connect(backend.path)
            raw.execute("VACUUM")
            raw.close()
        return b"".join(
            Path(f"{backend.path}{suffix}").read_bytes()
            for suffix in ("", "-wal", "-journal")
            if Path(f"{backend.path}{suffix}").exists()
        )
    assert isinstance(backend, PgBackend)
    tables = ("events", "heads", "snapshots", "track_changes")
    if vacuum:
        backend.execute(f"VACUUM FULL {', '.join(tables)}")
    backend.execute("CHECKPOINT")  # the tables' pages written to their files
    relations = [
        name
        for table in tables
        for (name,) in backend.execute(
            "SELECT c.oid::regclass::text FROM pg_class c WHERE c.oid = ?::regclass "
            "UNION ALL SELECT t.reltoastrelid::regclass::text FROM pg_class t "
            "WHERE t.oid = ?::regclass AND t.reltoastrelid <> 0",
            (table, table),
        )
    ]
    found = b""
    for relation in relations:
        (path,) = backend.execute("SELECT pg_relation_filepath(?::regclass)", (relation,))[0]
        size = backend.execute("SELECT pg_relation_size(?::regclass)", (relation,))[0][0]
        for segment in range(0, max(size, 1), 1 << 30):
            name = path if segment == 0 else f"{path}.{segment >> 30}"
            found += backend.execute("SELECT pg_read_binary_file(?)", (name,))[0][0]
    return found


def cli(backend: Backend, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", backend.location, *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_guard_made_before_erasure_is_not_reported_and_a_write_makes_it_anew(
    backend: Backend,
) -> None:
    fill(backend)
    if isinstance(backend, SqliteBackend):
        backend.execute("DROP TRIGGER events_no_update")
        backend.execute(sqlite_schema.PREVIOUS_TRIGGERS["events_no_update"])
    else:
        backend.execute(
            "CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW "
            "EXECUTE FUNCTION events_refuse_change()"
        )
        backend.execute("ALTER TABLE events ENABLE ALWAYS TRIGGER events_no_update")
    with backend.ledger(readonly=True) as ledger:
        assert ledger.problems() == []  # as strict: it refuses every UPDATE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = backend.ledger()
    with ledger:
        ledger.erase("ford", confirm="ford")  # the open made the guard anew, quietly
        assert ledger.problems() == []
        assert ledger.verify("ford")[0].erased == 6
    with pytest.raises(backend.integrity_error, match="append-only"):
        backend.execute("UPDATE events SET body = '' WHERE encounter = 'moor'")


def test_a_copy_of_one_event_says_1_event_appended(tmp_path: Path) -> None:
    source = str(tmp_path / "one.db")
    assert runner.invoke(app, ["--db", source, "new", "moor", "--system", "ssss"]).exit_code == 0
    result = runner.invoke(app, ["copy", "--from", source, "--to", str(tmp_path / "b.db")])
    assert result.output.splitlines()[-1].endswith("(1 event appended, 0 already stored).")
