"""Other people's files and the file system: a file that is not an encounter ledger is refused
and left untouched, what the file system says is said, reads work on a read-only mount, a
failed command leaves no file behind, and files of the earlier format open and are migrated."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app
from tests import paths
from tests.cli.invoke import run
from tests.conftest import missing

runner = CliRunner()
ROOT = paths.ROOT
FIXTURE = ROOT / "tests" / "fixtures" / "format-1.db"


def pragma(db: Path, name: str) -> int:
    raw = sqlite3.connect(db)
    (value,) = raw.execute(f"PRAGMA {name}").fetchone()
    raw.close()
    return int(value)


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """Another application's SQLite file, with a table named `heads` of its own."""
    path = tmp_path / "o.sqlite"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE heads (id INTEGER PRIMARY KEY, name TEXT)")
    raw.execute("INSERT INTO heads (name) VALUES ('hydra')")
    raw.commit()
    raw.close()
    return path


@pytest.mark.parametrize(
    "args", [["list"], ["tracks", "x"], ["log", "x"], ["verify"], ["audit", "x"], ["export", "x"]]
)
def test_a_read_of_another_applications_file_is_refused_in_one_line_and_touches_nothing(
    foreign: Path, args: list[str]
) -> None:
    before = foreign.read_bytes()
    code, out, err = run(foreign, *args)
    assert (code, out) == (2, "")
    assert err == (
        f"Error: {foreign} is not an encounter ledger (another application's SQLite file: "
        "tables heads); it was left untouched\n"
    )
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in foreign.parent.iterdir()) == ["o.sqlite"]


@pytest.mark.parametrize(
    "args", [["new", "x", "--system", "ssss"], ["record", "x", "note", "text=hi"]]
)
def test_a_write_to_another_applications_file_names_it_and_asks_for_new_first(
    foreign: Path, args: list[str]
) -> None:
    before = foreign.read_bytes()
    code, _, err = run(foreign, *args)
    assert code == 2
    assert err == (
        f"Error: {foreign} is not an encounter ledger (another application's SQLite file: "
        "tables heads); nothing was written to it: start a ledger in a file of its own with "
        "`new` first\n"
    )
    assert foreign.read_bytes() == before
    raw = sqlite3.connect(foreign)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert [r[0] for r in raw.execute("SELECT name FROM sqlite_master")] == ["heads"]
    raw.close()


def test_a_file_with_another_application_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id = 1234")
    raw.execute("CREATE TABLE events (x)")
    raw.close()
    code, _, err = run(path, "list")
    assert code == 2 and "its application_id is 0x4d2" in err


def test_a_new_ledger_says_what_it_is(db: Path) -> None:
    assert run(db, "new", "ford", "--system", "ssss")[0] == 0
    assert (pragma(db, "application_id"), pragma(db, "user_version")) == (0x456E4C67, 4)


def test_a_folder_that_does_not_exist_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent" / "dir" / "x.db"
    code, _, err = run(missing, "new", "ford", "--system", "ssss")
    assert (code, err) == (
        2,
        f"Error: cannot open the ledger {missing}: no such folder: {missing.parent}\n",
    )
    code, _, err = run(missing, "list")
    assert code == 2 and "no such folder" in err
    assert not missing.parent.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["record", "ford", "note", "text=hi"],
        ["new", "ford.jsonl", "--system", "ssss"],
        ["add", "ford", "Ash", "--side", "player"],
        ["import", "-"],
    ],
)
def test_a_command_that_fails_leaves_no_ledger_file_behind(db: Path, args: list[str]) -> None:
    result = runner.invoke(app, ["--db", str(db), *args], input='{"type": "note"}\n')
    assert result.exit_code != 0
    assert list(db.parent.iterdir()) == []


def user_can_unshare() -> bool:
    done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return done.returncode == 0


def encounter_in(mount_ro: Path, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`encounter --db DB ARGS` with the folder `mount_ro` bind-mounted read-only over itself
    (in a mount namespace of its own, so nothing outside the test sees it)."""
    command = " ".join(
        [
            f"mount --bind -o ro {mount_ro} {mount_ro} &&",
            sys.executable,
            "-m",
            "ledger",
            "--db",
            str(db),
            *(f"'{a}'" for a in args),
        ]
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", command],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_a_ledger_on_a_read_only_mount_is_readable_and_a_write_says_read_only(
    tmp_path: Path,
) -> None:
    if not user_can_unshare():  # CI fails here rather than skip: it can make the mount
        missing("needs mount namespaces (unshare -rm), which CI's machine has")
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "e.db"
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss")
        ledger.join("ford", "Ash", "player")
    done = encounter_in(folder, db, "tracks", "ford", "--json")
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert '"Ash"' in done.stdout
    done = encounter_in(folder, db, "verify")
    assert done.returncode == 0 and "chain ok" in done.stdout
    done = encounter_in(folder, db, "record", "ford", "note", "text=hi")
    assert done.returncode == 2
    assert "read-only file system" in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_file_of_the_earlier_format_reads_without_being_changed(tmp_path: Path) -> None:
    copy = tmp_path / "old.db"
    shutil.copyfile(FIXTURE, copy)
    before = copy.read_bytes()
    code, out, err = run(copy, "verify")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "duel: 2 events, chain ok, head "
        "b997a787e084d1c5908b9152efe4411118bb3fad735e1c8ef80fd321f77d669e",
        "ford: 6 events, chain ok, head "
        "4712a4dd3de38a64379ecec230c5fa2944feec0b8a32c2e7fa19893b92c4efaf",
        "all encounters (2): digest "
        "d51bad92f904b2630a66a8589e085b5d9d409983cba356b2820eb7eb786fb170",
    ]
    assert run(copy, "tracks", "ford", "--json")[0] == 0
    assert copy.read_bytes() == before


def test_a_file_of_the_earlier_format_is_migrated_by_a_write(tmp_path: Path) -> None:
    copy = tmp_path / "old.db"
    shutil.copyfile(FIXTURE, copy)
    _, tracks_before, _ = run(copy, "tracks", "ford", "--json")
    code, out, err = run(copy, "record", "ford", "note", "text=after the upgrade")
    assert (code, out, err) == (0, "Recorded seq 7: note\n  note: after the upgrade\n", "")
    assert (pragma(copy, "application_id"), pragma(copy, "user_version")) == (0x456E4C67, 4)
    raw = sqlite3.connect(copy)
    assert raw.execute("SELECT encounter, seq, verified FROM heads ORDER BY 1").fetchall() == [
        ("duel", 2, 0),
        ("ford", 7, 7),
    ]
    raw.close()
    code, out, _ = run(copy, "verify")
    assert code == 0 and out.count("chain ok") == 2
    assert run(copy, "tracks", "ford", "--json")[1] == tracks_before.replace('"seq": 6', '"seq": 7')
