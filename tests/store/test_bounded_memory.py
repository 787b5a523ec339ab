"""Bounded memory: an import's peak resident memory grows so slowly with its length that a
1,000,000-event import stays under 200 MB (measured on two sizes, extrapolated linearly)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.longstreams import cli_env, command, skirmish, write_jsonl

pytestmark = pytest.mark.slow

GOAL_MB = 200
#: Both past the point where the import's 16 MB page cache (`BULK_CACHE_KIB`) is full: below
#: it, the cache filling up would read as growth that stops there.
SMALL, LARGE = 50_000, 100_000


#: Runs a command and writes its peak resident memory (kB) on stderr. A command started by the
#: test process itself would report at least that process's peak: Linux keeps a forked child's
#: high-water mark across exec, and a pytest worker that built 200,000 events is large. This
#: small interpreter is the one that forks.
_MEASURE = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "sys.stderr.write(f'{usage.ru_maxrss}\\n')\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def peak(argv: list[str]) -> tuple[int, float]:
    """The exit code and peak resident memory (MB) of one command, its output thrown away."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv],
        env=cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return done.returncode, int(done.stderr.splitlines()[-1]) / 1024  # kB on Linux


def peak_rss_mb(db: Path, source: Path) -> float:
    """The peak resident memory of `encounter import SOURCE`, in MB."""
    code, mb = peak(command(db, ["import", str(source)]))
    assert code == 0
    return mb


def test_a_million_event_import_would_stay_under_200_mb(tmp_path: Path) -> None:
    peaks = {}
    for count in (SMALL, LARGE):
        source = tmp_path / f"skirmish-{count}.jsonl"
        with source.open("w", encoding="utf-8") as out:
            for event in skirmish(count):
                out.write(json.dumps(event) + "\n")
        peaks[count] = peak_rss_mb(tmp_path / f"{count}.db", source)
    per_event = (peaks[LARGE] - peaks[SMALL]) / (LARGE - SMALL)
    million = peaks[LARGE] + per_event * (1_000_000 - LARGE)
    assert million < GOAL_MB, (peaks, million)


#: The reads that once grew with the encounter (issue #23) must each peak under this at 200,000
#: events. Each is measured on two lengths and extrapolated linearly, as the import is: their
#: memory barely grows (1-2 MB from 10,000 to 30,000 events when last measured, and 0.1-5 MB
#: more to 60,000), and the two lengths cost a fifth of the time one read of 200,000 events did.
READ_GOAL_MB = 150
EVENTS = 200_000
READ_SIZES = (10_000, 30_000)


@pytest.fixture(scope="module")
def long_skirmishes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path]]:
    """For each of `READ_SIZES`, a skirmish of that many events stored in a ledger file, and
    the file its `export` wrote."""
    made = {}
    for count in READ_SIZES:
        folder = tmp_path_factory.mktemp(f"long-{count}")
        source = write_jsonl(folder / "skirmish.jsonl", skirmish(count))
        db = folder / "long.db"
        done = subprocess.run(
            command(db, ["import", str(source), "--into", "long"]),
            env=cli_env(),
            stdout=subprocess.DEVNULL,
            check=False,
        )
        assert done.returncode == 0
        exported = folder / "long.jsonl"
        with exported.open("w", encoding="utf-8") as out:
            subprocess.run(command(db, ["export", "long"]), env=cli_env(), stdout=out, check=True)
        made[count] = (db, exported)
    return made


def peak_of(db: Path, args: list[str]) -> float:
    """The peak resident memory of one command, in MB (its output thrown away)."""
    code, mb = peak(command(db, args))
    assert code in (0, 1), args
    return mb


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "EXPORTED"],
        ["replay", "long"],
        ["replay", "long", "--json"],
        ["log", "long"],
        # The page is 30 MB and the log 11 MB at 200,000 events: each is written as it is
        # rendered, its story from a second replay, its charts thinned to what they can show.
        ["report", "long", "--html", "-"],
        ["export", "long", "--format", "md"],
    ],
    ids=["verify-file", "replay", "replay-json", "log", "report-html", "export-md"],
)
def test_a_long_read_would_peak_under_150_mb_at_200000_events(
    long_skirmishes: dict[int, tuple[Path, Path]], args: list[str]
) -> None:
    peaks = {}
    for count, (db, exported) in long_skirmishes.items():
        peaks[count] = peak_of(db, [str(exported) if a == "EXPORTED" else a for a in args])
    small, large = READ_SIZES
    per_event = max(0.0, (peaks[large] - peaks[small]) / (large - small))
    at_goal = peaks[large] + per_event * (EVENTS - large)
    assert at_goal < READ_GOAL_MB, (peaks, at_goal)
