"""Crash safety: an import killed with SIGKILL at any moment lands whole or not at all."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ledger import Ledger
from tests.longstreams import encounter, skirmish, write_jsonl

pytestmark = pytest.mark.slow

EVENTS = 20_000
CONTEXT = multiprocessing.get_context("fork")


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20,000 events, each with its own id (so importing twice is a no-op)."""
    folder = tmp_path_factory.mktemp("crash")
    return write_jsonl(folder / "siege.jsonl", skirmish(EVENTS, "The siege", ids="siege"))


#: The events an import lands: the file's, and the note that says they came unchained (the
#: file's lines carry their own ids but no hash chain: `--unchained`).
LANDED = EVENTS + 1


def importer(db: str, source: str) -> None:
    with Ledger(db) as ledger, open(source, encoding="utf-8") as lines:
        ledger.import_lines(lines, into="siege", source=source, unchained=True)


def wal_size(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def kill_when(db: Path, source: Path, ready: Callable[[], bool]) -> None:
    """Start an import in a child process and SIGKILL it as soon as `ready()` holds."""
    child = CONTEXT.Process(target=importer, args=(str(db), str(source)))
    child.start()
    deadline = time.monotonic() + 120
    while not ready() and child.is_alive() and time.monotonic() < deadline:
        time.sleep(0.002)
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(timeout=60)
    assert child.exitcode in (-signal.SIGKILL, 0)


def landed(db: Path) -> int:
    """The events of the encounter that are stored (after checking the file and its chains)."""
    with Ledger(db) as ledger:
        assert all(report.ok for report in ledger.verify())
        head = ledger.store.head("siege")
        stored = len(ledger.store.names())
        return 0 if head is None and stored == 0 else ledger.store.require("siege").seq


def test_an_import_killed_mid_way_lands_whole_or_not_at_all_and_a_rerun_completes_it(
    db: Path, big_file: Path
) -> None:
    Ledger(db).close()  # the file exists, in WAL mode, before the first child starts
    started = time.monotonic()
    moments: list[Callable[[], bool]] = [
        lambda: time.monotonic() - started > 0.3,  # while reading and validating
        lambda: wal_size(db) > 1_000_000,  # rows written, transaction open
        lambda: wal_size(db) > 3_000_000,
        lambda: wal_size(db) > 6_000_000,  # late: much of the batch in the WAL
    ]
    outcomes = []
    for ready in moments:
        started = time.monotonic()
        kill_when(db, big_file, ready)
        outcomes.append(landed(db))
        assert outcomes[-1] in (0, LANDED)
    # At least one kill hit a transaction in flight (its rows were in the WAL, uncommitted).
    assert 0 in outcomes

    done = encounter(db, "import", str(big_file), "--into", "siege", "--unchained")
    assert done.returncode == 0, done.stderr
    assert landed(db) == LANDED
    again = encounter(db, "import", str(big_file), "--into", "siege", "--unchained")
    assert again.returncode == 0
    assert again.stdout.startswith(f"Imported 0 events into 'siege' ({EVENTS} already stored)")
    with Ledger(db) as ledger:
        tracks = ledger.tracks("siege").view()
    assert tracks["seq"] == LANDED
    assert tracks["combatants"]["Sage"]["harm"] == []
    assert sum(s["filled"] for s in tracks["combatants"]["Bandit 1"]["slots"].values()) > 0
