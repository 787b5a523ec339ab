"""`encounter watch` under a real pseudo-terminal: it draws the tracks, the open proposals and
the last events, redraws within a second of an append by another process, and q quits."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from ledger import Ledger
from tests import paths

pytestmark = pytest.mark.slow

OGRE = {"resilience": 6, "fatigue_capacity": 3, "armor": "none", "harm": 2}


@pytest.fixture
def duel(db: Path) -> Path:
    with Ledger(db, user="gm") as gm:
        gm.open("duel", "fates-edge")
        gm.join("duel", "Ash", "player", {"armor": "light"}, player="ana")
        gm.join("duel", "Ogre", "adversary", OGRE)
    return db


def encounter(db: Path, *args: str) -> None:
    """`encounter ARGS` in another process."""
    subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), *args],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(paths.ROOT)},
    )


def watching(db: Path) -> pexpect.spawn:
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    environ.update({"TERM": "xterm-256color", "PYTHONPATH": str(paths.ROOT)})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "ledger", "--db", str(db), "watch", "duel", "--poll", "0.1"],
        dimensions=(40, 160),
        env=environ,
        encoding="utf-8",
        timeout=20,
    )
    child.expect("q quits")
    child.expect("Last 8 events")
    return child


def test_watch_follows_appends_by_other_processes_and_q_quits(duel: Path) -> None:
    child = watching(duel)
    encounter(duel, "propose", "duel", "hit.resolved", "target=Ogre", "harm=2", "--as", "ana")
    appended = time.monotonic()
    child.expect("Open proposals", timeout=5)
    child.expect(r"seq 4: ana proposes: Ogre is hit for Harm 2", timeout=5)
    assert time.monotonic() - appended < 2.0
    encounter(duel, "accept", "duel", "4", "harm=1", "--as", "gm")
    appended = time.monotonic()
    child.expect(r"the GM accepts ana's proposal at seq 4 with harm 1 \(half\)", timeout=5)
    assert time.monotonic() - appended < 2.0
    child.send("q")
    child.expect(pexpect.EOF, timeout=10)
    child.close()
    assert child.exitstatus == 0


def test_watch_ends_quietly_on_ctrl_c(duel: Path) -> None:
    child = watching(duel)
    child.sendintr()
    child.expect(pexpect.EOF, timeout=10)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")
