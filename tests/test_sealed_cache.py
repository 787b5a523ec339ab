"""Every projection-cache row carries a digest of its key and text (`ledger.rowdigest`): a row
edited outside the ledger is never served. `tracks` (the fast path included) and the next write
answer from the log, the write rewrites the row, and the audit reports the edit.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, fastpath, snapshot_codec
from ledger.rowdigest import digest
from ledger.store import Store
from projections import core
from tests.longstreams import ROOT, encounter
from tests.stores import CACHE_ROWS, Backend

EXAMPLE = ROOT / "examples" / "silken-blade.jsonl"
OLD_FILE = Path(__file__).parent / "fixtures" / "cache-1" / "silken-blade.db"
#: The sheet disagrees with the ledger: the write's words say what the ledger holds.
NOTED = ("record", "silken-blade", "tracks.noted", "target=Silken Blade",
         'values={"resilience": 3}')  # fmt: skip
EDIT_VIEW = (
    "UPDATE cache_views SET view = replace(view, '\"resilience\":6', '\"resilience\":1') "
    "WHERE encounter = 'silken-blade' AND name = 'Silken Blade'"
)


def run(db: Backend | Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`encounter ARGS` in a new process, as a user runs it (the fast path first)."""
    return encounter(db.location if isinstance(db, Backend) else db, *args)


def resilience(db: Backend | Path, *at: str) -> Any:
    done = run(db, "tracks", "silken-blade", "--json", *at)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout)["combatants"]["Silken Blade"]["resilience"]


def cache_findings(db: Backend | Path) -> list[tuple[list[int], str]]:
    done = run(db, "audit", "silken-blade", "--json")
    found = json.loads(done.stdout)["findings"]
    return [(f["seq"], f["message"]) for f in found if f["rule"] == "cache-disagrees"]


@pytest.fixture
def pair(backend: Backend) -> tuple[Backend, Backend]:
    """The example imported into two stores: one to edit behind the ledger, one left alone."""
    pristine = backend.sibling("pristine")
    for store in (backend, pristine):
        assert run(store, "import", str(EXAMPLE)).returncode == 0
    return backend, pristine


def test_an_edited_combatant_row_is_not_shown_and_the_next_write_rewrites_it(
    pair: tuple[Backend, Backend],
) -> None:
    edited, pristine = pair
    edited.execute(EDIT_VIEW)
    assert resilience(edited) == 6  # the log's, not the edited row's 1
    [(seq, message)] = cache_findings(edited)
    assert seq == [35]
    assert "head view (combatants)" in message
    assert "rows whose digest does not match their text: 'Silken Blade'" in message
    wrote, expected = run(edited, *NOTED), run(pristine, *NOTED)
    assert (wrote.returncode, wrote.stdout) == (expected.returncode, expected.stdout)
    assert "the ledger has resilience 6" in wrote.stdout
    assert resilience(edited) == 6
    [(view,)] = edited.execute(
        "SELECT view FROM cache_views WHERE encounter = 'silken-blade' AND name = 'Silken Blade'"
    )
    assert json.loads(view)["resilience"] == 6  # rewritten by the write
    assert cache_findings(edited) == []


def test_an_edited_snapshot_is_not_folded_from_and_the_next_write_rewrites_it(
    pair: tuple[Backend, Backend],
) -> None:
    edited, pristine = pair
    with Ledger(edited.location) as ledger:
        state = ledger.refold("silken-blade")
    wrong = core.replace_combatant(
        state, core.replace(state.combatants["Silken Blade"], resilience=1)
    )
    edited.execute("UPDATE cache_snapshots SET state = ?", (snapshot_codec.encode(wrong),))
    edited.execute("DELETE FROM cache_views")  # so that `tracks` reads through the snapshot
    assert resilience(edited) == 6
    assert resilience(edited, "--at", "35") == 6
    assert cache_findings(edited)[0][0] == [35]
    wrote, expected = run(edited, *NOTED), run(pristine, *NOTED)
    assert (wrote.returncode, wrote.stdout) == (expected.returncode, expected.stdout)
    assert "the ledger has resilience 6" in wrote.stdout
    [(key, gone, text, stored)] = edited.execute(
        "SELECT hash, gone, state, digest FROM cache_snapshots WHERE seq = 35"
    )
    assert snapshot_codec.decode(text) == state  # the write stored the log's state anew
    assert stored == digest(("silken-blade", 35, key, gone), text)
    assert cache_findings(edited) == []
    assert resilience(edited, "--at", "35") == 6


def test_a_row_whose_digest_alone_was_changed_is_reported_and_not_used(
    pair: tuple[Backend, Backend],
) -> None:
    edited, _ = pair
    edited.execute("UPDATE cache_views SET digest = '0' WHERE name = ''")
    edited.execute("UPDATE cache_rolls SET digest = '0' WHERE n = 2")
    [(seq, message)] = cache_findings(edited)
    assert seq == [35]
    assert "head view (rolls)" in message
    assert "rows whose digest does not match their text: the head" in message
    assert resilience(edited) == 6


def test_a_file_written_before_rows_carried_digests_reads_and_its_next_write_seals_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "old.db"
    shutil.copyfile(OLD_FILE, db)
    expected = tmp_path / "new.db"
    assert run(expected, "import", str(EXAMPLE)).returncode == 0
    request = ["--db", str(db), "tracks", "silken-blade", "--json"]
    # Its rows vouch for nothing: the fast path leaves it to the full command, which folds.
    assert fastpath.answer(request, environ={}) is False
    assert run(db, "tracks", "silken-blade", "--json").stdout == (
        run(expected, "tracks", "silken-blade", "--json").stdout
    )
    assert cache_findings(db) == []
    wrote = run(db, *NOTED)
    assert (wrote.returncode, wrote.stdout) == (0, run(expected, *NOTED).stdout)
    with closing(sqlite3.connect(db)) as conn:
        for table in CACHE_ROWS:
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            assert columns[-1] == "digest", table
    capsys.readouterr()
    assert fastpath.answer(request, environ={}) is True  # served from the sealed view again
    assert capsys.readouterr().out == run(expected, "tracks", "silken-blade", "--json").stdout


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example imported and written to once (so every cache table holds rows)."""
    db = tmp_path_factory.mktemp("sealed") / "encounters.db"
    assert run(db, "import", str(EXAMPLE)).returncode == 0
    assert run(db, *NOTED).returncode == 0
    return db


def every_row(db: Path) -> list[tuple[str, tuple[Any, ...], str]]:
    """(table, key, text) of every cache row."""
    found = []
    with closing(sqlite3.connect(db)) as conn:
        for table, (key, text) in CACHE_ROWS.items():
            for *values, body in conn.execute(f"SELECT {', '.join(key)}, {text} FROM {table}"):
                found.append((table, tuple(values), body))
    return found


def test_each_row_carries_the_digest_of_its_key_and_text(sealed: Path) -> None:
    rows = every_row(sealed)
    assert {table for table, _, _ in rows} == set(CACHE_ROWS)
    with closing(sqlite3.connect(sealed)) as conn:
        for table, key, text in rows:
            where = " AND ".join(f"{c} = ?" for c in CACHE_ROWS[table][0])
            [(stored,)] = conn.execute(f"SELECT digest FROM {table} WHERE {where}", key)
            assert stored == digest(key, text)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_no_edit_of_any_cache_row_changes_what_tracks_json_prints(
    sealed: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    db = tmp_path_factory.mktemp("edit") / "encounters.db"
    shutil.copyfile(sealed, db)
    request = fastpath.Request(str(db), "silken-blade", json=True, plain=False)
    truth = fastpath.read_view(request)
    assert truth is not None
    table, key, text = data.draw(st.sampled_from(every_row(db)))
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 8))
    edited = text[:at] + data.draw(st.text(max_size=8)) + text[at + cut :]
    if edited == text:
        return
    where = " AND ".join(f"{c} = ?" for c in CACHE_ROWS[table][0])
    column = CACHE_ROWS[table][1]
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (edited, *key))
    assert fastpath.read_view(request) in (None, truth)  # the fast path serves nothing else
    with Ledger(db) as ledger:
        assert json.loads(json.dumps(ledger.tracks("silken-blade").view())) == truth


def test_cache_tables_without_digests_are_never_read_and_the_next_write_replaces_them(
    pair: tuple[Backend, Backend],
) -> None:
    old, pristine = pair
    for table in CACHE_ROWS:  # as the tables of the previous format, rows and all
        old.execute(f"ALTER TABLE {table} DROP COLUMN digest")
    old.execute(EDIT_VIEW)
    assert resilience(old) == 6
    assert cache_findings(old) == []  # rows without digests vouch for nothing: nothing to judge
    wrote, expected = run(old, *NOTED), run(pristine, *NOTED)
    assert (wrote.returncode, wrote.stdout) == (expected.returncode, expected.stdout)
    for table, (key, text) in CACHE_ROWS.items():
        rows = old.execute(f"SELECT {', '.join(key)}, {text}, digest FROM {table}")
        assert all(stored == digest(tuple(values), body) for *values, body, stored in rows)
    [(view,)] = old.execute("SELECT view FROM cache_views WHERE name = 'Silken Blade'")
    assert json.loads(view)["resilience"] == 6
    assert cache_findings(old) == []


@given(
    st.lists(st.one_of(st.text(), st.integers(min_value=-(2**63), max_value=2**63)), max_size=5),
    st.text(),
)
def test_a_row_digest_hashes_its_key_as_json_text(key: list[str | int], text: str) -> None:
    expected = json.dumps(tuple(key), ensure_ascii=True, separators=(",", ":"))
    data = f"{expected}\n{text}".encode("utf-8", "surrogatepass")
    assert digest(tuple(key), text) == hashlib.sha256(data).hexdigest()


def test_a_process_checks_the_view_rows_on_its_first_write_only(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    assert run(db, "import", str(EXAMPLE)).returncode == 0
    read_back = "SELECT name, seq, hash, view, digest FROM cache_views"
    with Ledger(db) as ledger:
        assert isinstance(ledger.store, Store)
        statements: list[str] = []
        ledger.store.conn.set_trace_callback(statements.append)
        for text in ("first", "second", "third"):
            statements.clear()
            ledger.record("silken-blade", {"type": "note", "text": text})
            checked = any(s.startswith(read_back) for s in statements)
            # Its first write checks every row; the next ones move from the rows it left.
            assert checked == (text == "first"), text
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(EDIT_VIEW)
        conn.commit()
    assert resilience(db) == 6  # a reader never serves the edited row
    assert run(db, "record", "silken-blade", "note", "text=a new process").returncode == 0
    assert cache_findings(db) == []  # whose first write rewrote it
