"""Benchmark of the two stores: durable appends per second on one encounter, and on four
encounters written at once by four processes, PostgreSQL against SQLite in the same run; and
`tracks` of a 10,000-event encounter on PostgreSQL through the projection cache and without it.

Called by `tests/perf/bench.py` (step `stores`, ids `pg_append_1_vs_sqlite`,
`pg_append_4_vs_sqlite` and `pg_tracks_10k_cache_vs_fold`), or alone:
`.venv/bin/python tests/perf/bench_stores.py [--quick] [--json]`.
The server is `ENCOUNTER_BENCH_PG` when set, else a throwaway cluster started with fsync on
(as durable as SQLite's synchronous=FULL).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger import Ledger, cache  # noqa: E402
from tests import pgcluster  # noqa: E402
from tests.longstreams import lines, skirmish  # noqa: E402

#: id -> (what is measured, the reference, the goal): times per append, so a ratio is a speed-up.
GOALS: dict[str, tuple[str, str, tuple[str, float]]] = {
    "pg_append_1_vs_sqlite": (
        "PostgreSQL durable append, one writer on one encounter",
        "SQLite (WAL, FULL), the same",
        (">=", 0.5),
    ),
    "pg_append_4_vs_sqlite": (
        "PostgreSQL durable appends, 4 processes on 4 encounters at once (wall / appends)",
        "SQLite, the same 4 processes on 4 encounters in one file",
        (">=", 1.5),
    ),
}
#: `Ledger.tracks` in a new `Ledger` (as a new process reads), seconds: through the cache or not.
TRACKS_GOALS: dict[str, tuple[str, str, tuple[str, float]]] = {
    "pg_tracks_10k_cache_vs_fold": (
        "PostgreSQL `Ledger.tracks` of a 10,000-event encounter, through the projection cache",
        "the same with the cache tables dropped (every event read and folded)",
        (">=", 5),
    ),
}
GOALS.update(TRACKS_GOALS)
TRACKS_EVENTS = 10_000
WRITERS = 4
CONTEXT = multiprocessing.get_context("fork")


@contextmanager
def server(folder: Path) -> Iterator[str | None]:
    """A PostgreSQL URL with an empty schema to write in (None: no server can run here)."""
    url = os.environ.get("ENCOUNTER_BENCH_PG")
    started = None
    if not url:
        if pgcluster.binaries() is None:
            yield None
            return
        # A folder of its own under /tmp: the server's user must be able to reach it.
        started = Path(tempfile.mkdtemp(prefix="ledger-bench-pg-"))
        url = pgcluster.start(started, durable=True)
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    joiner = "&" if "?" in url else "?"
    try:
        yield f"{url}{joiner}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
        if started is not None:
            pgcluster.stop(started)


def _events(count: int) -> tuple[list[str], list[dict[str, Any]]]:
    stream = list(skirmish(count + 15))
    return lines(iter(stream[:15])), stream[15:]


def _writer(
    location: str, name: str, count: int, start: Barrier, spans: Queue[tuple[float, float]]
) -> None:
    _, items = _events(count)
    with Ledger(location) as ledger:
        ledger.tracks(name)  # warm: the first append pays for nothing a later one does not
        start.wait()
        began = time.perf_counter()
        for item in items:
            ledger.record(name, item)
        spans.put((began, time.perf_counter()))


def per_append(location: str, writers: int, count: int) -> float:
    """Seconds per append (wall time over all appends) with `writers` processes, one encounter
    each, appending `count` events one transaction at a time."""
    run = uuid.uuid4().hex[:6]
    names = [f"w{run}-{n}" for n in range(writers)]
    head, _ = _events(count)
    with Ledger(location) as ledger:
        for name in names:
            ledger.import_lines(head, into=name)
    start = CONTEXT.Barrier(writers)
    spans: Queue[tuple[float, float]] = CONTEXT.Queue()
    workers = [
        CONTEXT.Process(target=_writer, args=(location, name, count, start, spans))
        for name in names
    ]
    return together(workers, spans) / (writers * count)


def together(workers: list[Any], spans: Queue[tuple[float, float]]) -> float:
    """Run writer processes at once (each puts its (start, end) on `spans`): the wall time from
    the first one's start to the last one's end."""
    for worker in workers:
        worker.start()
    finished = [spans.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join(60)
    return max(end for _, end in finished) - min(began for began, _ in finished)


def measure(folder: Path, repeats: int, count: int) -> dict[str, tuple[float, float]] | None:
    """id -> (PostgreSQL, SQLite) seconds per append, medians of interleaved runs; and
    id -> (through the cache, folded) seconds of a read on PostgreSQL."""
    with server(folder) as url:
        if url is None:
            return None
        figures: dict[str, tuple[float, float]] = {}
        for id, writers in (("pg_append_1_vs_sqlite", 1), ("pg_append_4_vs_sqlite", WRITERS)):
            pg, lite = [], []
            for n in range(repeats):
                pg.append(per_append(url, writers, count))
                lite.append(per_append(str(folder / f"bench-{id}-{n}.db"), writers, count))
            figures[id] = (statistics.median(pg), statistics.median(lite))
        figures["pg_tracks_10k_cache_vs_fold"] = tracks_with_and_without_cache(url, repeats)
        return figures


def _fresh_tracks(location: str, name: str) -> float:
    """Seconds of `tracks` in a new `Ledger` (its pool open already: a new process's read)."""
    with Ledger(location) as ledger:
        ledger.store.require(name)
        began = time.perf_counter()
        ledger.tracks(name)
        return time.perf_counter() - began


def tracks_with_and_without_cache(location: str, repeats: int) -> tuple[float, float]:
    """(through the cache, with the cache dropped) seconds of `tracks` on a 10,000-event
    encounter imported into PostgreSQL (the import leaves its snapshots), medians."""
    name = f"t{uuid.uuid4().hex[:6]}"
    with Ledger(location) as ledger:
        ledger.import_lines(lines(skirmish(TRACKS_EVENTS)), into=name)
    runs = max(3, 2 * repeats + 1)
    cached = statistics.median(_fresh_tracks(location, name) for _ in range(runs))
    with Ledger(location) as ledger:
        cache.drop(ledger.store.cache_db)
    folded = statistics.median(_fresh_tracks(location, name) for _ in range(runs))
    return cached, folded


def bench_stores(add: Callable[..., None], skip: Callable[[str, str], None], folder: Path,
                 quick: bool) -> None:  # fmt: skip
    """The stores' figures into a `bench.Bench` (its `add` and `skip`)."""
    figures = measure(folder, 1 if quick else 3, 100 if quick else 200)
    for id in GOALS:
        if figures is None:
            skip(id, "no PostgreSQL server (install postgresql or set ENCOUNTER_BENCH_PG)")
        else:
            add(id, *figures[id])


def main() -> None:
    """Print the figures (appends per second) as a line each, or as JSON with `--json`."""
    folder = Path(tempfile.mkdtemp(prefix="ledger-bench-stores-"))
    figures = measure(folder, 1 if "--quick" in sys.argv else 3, 200)
    if figures is None:
        raise SystemExit("no PostgreSQL server (install postgresql or set ENCOUNTER_BENCH_PG)")
    rows: list[dict[str, Any]] = [
        {
            "id": id,
            "benchmark": GOALS[id][0],
            "postgresql_appends_per_s": round(1 / pg),
            "sqlite_appends_per_s": round(1 / lite),
            "ratio": round(lite / pg, 3),
        }
        for id, (pg, lite) in figures.items()
        if id not in TRACKS_GOALS
    ]
    rows += [
        {
            "id": id,
            "benchmark": GOALS[id][0],
            "cached_s": round(cached, 4),
            "folded_s": round(folded, 4),
            "ratio": round(folded / cached, 3),
        }
        for id, (cached, folded) in figures.items()
        if id in TRACKS_GOALS
    ]
    if "--json" in sys.argv:
        print(json.dumps({"results": rows}, indent=2))
        return
    for row in rows:
        if "cached_s" in row:
            print(
                f"{row['id']}: through the cache {row['cached_s'] * 1000:.1f} ms, "
                f"folded {row['folded_s'] * 1000:.1f} ms, ratio {row['ratio']}"
            )
            continue
        print(
            f"{row['id']}: PostgreSQL {row['postgresql_appends_per_s']}/s, "
            f"SQLite {row['sqlite_appends_per_s']}/s, ratio {row['ratio']}"
        )


if __name__ == "__main__":
    main()
