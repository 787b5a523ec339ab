"""Bounded memory: an import's peak resident memory grows so slowly with its length that a
1,000,000-event import stays under 200 MB (measured on two sizes, extrapolated linearly)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.longstreams import cli_env, command, skirmish

pytestmark = pytest.mark.slow

GOAL_MB = 200
SMALL, LARGE = 10_000, 50_000


def peak_rss_mb(db: Path, source: Path) -> float:
    """The peak resident memory of `encounter import SOURCE`, in MB (from the child's rusage)."""
    process = subprocess.Popen(
        command(db, ["import", str(source)]), env=cli_env(), stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0
    return usage.ru_maxrss / 1024  # kB on Linux


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
