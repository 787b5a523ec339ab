"""`export --out` writes a file whole or not at all, never through a symlink nor over an
existing file unless `--force`."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from ledger import Ledger
from tests.cli.invoke import run


@pytest.fixture
def ford(db: Path) -> Path:
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss")
        ledger.join("ford", "Ash", "player")
    return db


def test_an_export_is_written_whole_with_a_line_an_event(ford: Path, tmp_path: Path) -> None:
    out = tmp_path / "ford.jsonl"
    code, _, err = run(ford, "export", "ford", "--out", str(out))
    assert (code, err) == (0, f"Exported 2 events of 'ford' to {out}.\n")
    assert out.read_text(encoding="utf-8") == run(ford, "export", "ford")[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encounters.db", "ford.jsonl"]


#: Each export format, and how its file starts.
FORMATS = pytest.mark.parametrize(
    ("fmt", "start"), [("jsonl", '{"type": "encounter.opened"'), ("md", "# ford")]
)


@FORMATS
def test_an_existing_file_is_not_replaced_without_force(
    ford: Path, tmp_path: Path, fmt: str, start: str
) -> None:
    out = tmp_path / "notes.txt"
    out.write_text("my notes\n")
    code, _, err = run(ford, "export", "ford", "--format", fmt, "--out", str(out))
    assert (code, err) == (
        2,
        f"Error: {out} already exists: choose another file, or --force to replace it\n",
    )
    assert out.read_text() == "my notes\n"
    assert run(ford, "export", "ford", "--format", fmt, "--out", str(out), "--force")[0] == 0
    assert out.read_text().startswith(start)


@FORMATS
def test_a_symlink_is_not_followed_without_force(
    ford: Path, tmp_path: Path, fmt: str, start: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "out.jsonl"
    link.symlink_to(victim)
    code, _, err = run(ford, "export", "ford", "--format", fmt, "--out", str(link))
    assert (code, err) == (
        2,
        f"Error: {link} is a symbolic link: it is not followed (--force writes where it points)\n",
    )
    assert victim.read_text() == "precious\n" and link.is_symlink()
    assert run(ford, "export", "ford", "--format", fmt, "--out", str(link), "--force")[0] == 0
    assert link.is_symlink() and victim.read_text().startswith(start)


def test_a_full_disk_leaves_the_previous_file_whole_and_no_partial_one(
    ford: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "ford.jsonl"
    out.write_text("the previous export\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run(ford, "export", "ford", "--out", str(out), "--force")
    assert (code, err) == (
        2,
        f"Error: cannot write {out}: No space left on device (nothing was changed there)\n",
    )
    assert out.read_text() == "the previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["encounters.db", "ford.jsonl"]


def test_an_export_never_overwrites_the_ledger_file(ford: Path) -> None:
    code, _, err = run(ford, "export", "ford", "--out", str(ford), "--force")
    assert (code, err) == (2, f"Error: export would overwrite {ford}, the ledger file itself\n")
    assert run(ford, "verify")[0] == 0


def test_an_export_of_one_event_says_one_event(db: Path, tmp_path: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss")
    out = tmp_path / "ford.jsonl"
    code, _, err = run(db, "export", "ford", "--out", str(out))
    assert (code, err) == (0, f"Exported 1 event of 'ford' to {out}.\n")
