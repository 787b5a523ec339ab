"""Benchmark of the encounter ledger: each figure a median, and a ratio to a reference measured
in the same run on the same machine. Not collected by pytest; run by hand:

    .venv/bin/python tests/perf/bench.py            # a table
    .venv/bin/python tests/perf/bench.py --json     # the same figures as JSON

The `eventsourcing` comparisons need `pip install 'eventsourcing>=9,<10'` (they are skipped,
with a message, when it is not installed). Absolute times drift between runs on a noisy
machine; the ratios much less.
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger import Ledger  # noqa: E402
from ledger.chain import GENESIS, STORED, chain_hash, new_id  # noqa: E402
from ledger.rows import now_utc, timestamp  # noqa: E402
from projections.core import pinned_rules  # noqa: E402
from projections.registry import ruleset  # noqa: E402
from tests.longstreams import cli_env, lines, skirmish  # noqa: E402

ROWS = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"
SCHEMA = """CREATE TABLE events (
    encounter TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    recorded_at TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (encounter, seq)) WITHOUT ROWID"""


def median(run: Callable[[], float], times: int) -> float:
    return statistics.median(run() for _ in range(times))


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fresh(folder: Path, name: str) -> Path:
    path = folder / name
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def raw_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(SCHEMA)
    return conn


def stored_rows(path: Path, encounter: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    rows = conn.execute(
        f"SELECT {ROWS} FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
    ).fetchall()
    conn.close()
    return rows


def fill(path: Path, encounters: dict[str, int]) -> None:
    """A ledger file with these encounters (name -> events), written fast: rows built with the
    store's own chain code, not through the service (a fixture, not a measurement)."""
    Ledger(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    stamp = timestamp(now_utc())
    for name, count in encounters.items():
        prev, rows = GENESIS, []
        for seq, item in enumerate(skirmish(count), start=1):
            if seq == 1:
                item = {**item, "rules": pinned_rules(ruleset("ssss"), {})}
            body = {k: v for k, v in item.items() if k != "type"}
            id_ = new_id()
            digest = chain_hash(name, seq, id_, item["type"], stamp, body, prev)
            rows.append((name, seq, id_, item["type"], stamp, STORED.encode(body), prev, digest))
            prev = digest
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute(
            "INSERT INTO heads VALUES (?,?,?,?,?,?,?)",
            (name, "ssss", "The long skirmish", count, prev, stamp, stamp),
        )
    conn.execute("COMMIT")
    conn.close()


class Bench:
    """Collects rows: (goal, ours, reference, ratio, target, met)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(
        self,
        name: str,
        ours: float,
        reference: float,
        ratio: float,
        goal: str,
        met: bool | None,
        unit: str = "s",
    ) -> None:
        row = {
            "benchmark": name,
            "ours": round(ours, 6),
            "reference": round(reference, 6),
            "unit": unit,
            "ratio": round(ratio, 3),
            "goal": goal,
            "met": met,
        }
        self.rows.append(row)
        print(
            f"  {name}: ours {ours:.4g}{unit}, reference {reference:.4g}{unit}, "
            f"ratio {ratio:.3g} (goal {goal}) {'MET' if met else 'missed' if met is False else ''}",
            file=sys.stderr,
            flush=True,
        )


def have_eventsourcing() -> bool:
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        print(
            "eventsourcing is not installed: skipping the eventsourcing comparisons "
            "(pip install 'eventsourcing>=9,<10')",
            file=sys.stderr,
        )
        return False
    return True


@functools.cache
def es_classes() -> tuple[Any, Any]:
    """An eventsourcing aggregate and application (defined once: it registers their topics)."""
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Encounter(Aggregate):
        @event("Noted")
        def note(self, text: str) -> None:
            self.last = text

    class Encounters(Application):
        pass

    return Encounters, Encounter


def es_app(folder: Path) -> Any:
    Encounters, Encounter = es_classes()
    path = fresh(folder, "es.db")
    app = Encounters(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(path),
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    )
    return app, Encounter


def bench_append(b: Bench, folder: Path, es: bool) -> None:
    count = 200

    def ours() -> float:
        path = fresh(folder, "append.db")
        stream = list(skirmish(count + 15))
        with Ledger(path) as ledger:
            ledger.import_lines(lines(iter(stream[:15])), into="a")
            items = stream[15:]
            start = time.perf_counter()
            for item in items:
                ledger.record("a", item)
            return (time.perf_counter() - start) / len(items)

    def reference() -> float:
        rows = stored_rows(folder / "append.db", "a")[15:]
        path = fresh(folder, "append-raw.db")
        conn = raw_connection(path)
        start = time.perf_counter()
        for row in rows:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", row)
            conn.execute("COMMIT")
        took = (time.perf_counter() - start) / len(rows)
        conn.close()
        return took

    mine, raw = [], []
    for _ in range(5):
        mine.append(ours())
        raw.append(reference())
    t_ours, t_raw = statistics.median(mine), statistics.median(raw)
    b.add(
        "durable append, per event",
        t_ours,
        t_raw,
        t_raw / t_ours,
        ">= 0.7x raw insert+commit",
        t_raw / t_ours >= 0.7,
    )
    if es:

        def es_run() -> float:
            app, Encounter = es_app(folder)
            agg = Encounter()
            app.save(agg)
            start = time.perf_counter()
            for n in range(count):
                agg.note(f"note {n}")
                app.save(agg)
            return (time.perf_counter() - start) / count

        t_es = median(es_run, 5)
        b.add(
            "durable append vs eventsourcing save()",
            t_ours,
            t_es,
            t_es / t_ours,
            ">= 1.3x eventsourcing",
            t_es / t_ours >= 1.3,
        )


def bench_import(b: Bench, folder: Path, es: bool) -> None:
    count = 100_000
    source = lines(skirmish(count))

    def ours() -> float:
        path = fresh(folder, "import.db")
        with Ledger(path) as ledger:
            return timed(lambda: ledger.import_lines(source, into="big"))

    def reference() -> float:
        # The same rows from the same lines, raw: parse, chain-hash, executemany in one
        # transaction (no validation, no fold, no checks).
        path = fresh(folder, "import-raw.db")
        conn = raw_connection(path)
        start = time.perf_counter()
        stamp, prev, rows = timestamp(now_utc()), GENESIS, []
        for seq, text in enumerate(source, start=1):
            item = json.loads(text)
            kind = item.pop("type")
            id_ = new_id()
            digest = chain_hash("big", seq, id_, kind, stamp, item, prev)
            rows.append(("big", seq, id_, kind, stamp, STORED.encode(item), prev, digest))
            prev = digest
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        took = time.perf_counter() - start
        conn.close()
        return took

    def executemany_only() -> float:
        rows = stored_rows(folder / "import.db", "big")
        path = fresh(folder, "import-raw2.db")
        conn = raw_connection(path)
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        took = time.perf_counter() - start
        conn.close()
        return took

    t_ours = median(ours, 3)
    t_raw = median(reference, 3)
    t_many = median(executemany_only, 3)
    b.add(
        "bulk import 100k (vs raw parse+hash+executemany)",
        t_ours,
        t_raw,
        t_raw / t_ours,
        ">= 0.5x raw",
        t_raw / t_ours >= 0.5,
    )
    b.add(
        "bulk import 100k (vs executemany of prepared rows)",
        t_ours,
        t_many,
        t_many / t_ours,
        "(information)",
        None,
    )
    if es:

        def es_run() -> float:
            app, Encounter = es_app(folder)
            agg = Encounter()
            for n in range(count - 1):
                agg.note(f"note {n}")
            return timed(lambda: app.save(agg))

        t_es = median(es_run, 3)
        b.add(
            "bulk import 100k vs eventsourcing one save()",
            t_ours,
            t_es,
            t_es / t_ours,
            ">= 1.0x eventsourcing",
            t_es / t_ours >= 1.0,
        )


def bench_replay(b: Bench, folder: Path, es: bool) -> None:
    path = folder / "import.db"  # 100k events, from bench_import

    def ours() -> float:
        with Ledger(path) as ledger:
            return timed(lambda: ledger.tracks("big"))

    def reference() -> float:
        conn = sqlite3.connect(path)
        start = time.perf_counter()
        for row in conn.execute(
            f"SELECT {ROWS} FROM events WHERE encounter = ? ORDER BY seq", ("big",)
        ):
            json.loads(row[5])
        took = time.perf_counter() - start
        conn.close()
        return took

    t_ours, t_raw = median(ours, 3), median(reference, 3)
    b.add(
        "replay 100k (read, validate, fold)",
        t_ours,
        t_raw,
        t_raw / t_ours,
        ">= 0.7x raw SELECT+json.loads",
        t_raw / t_ours >= 0.7,
    )
    if es:
        count = 10_000
        app, Encounter = es_app(folder)
        agg = Encounter()
        for n in range(count - 1):
            agg.note(f"note {n}")
        app.save(agg)
        t_es = median(lambda: timed(lambda: app.repository.get(agg.id)), 3) / count
        per_ours = t_ours / 100_000
        b.add(
            "replay per event vs eventsourcing repository.get() (10k)",
            per_ours,
            t_es,
            t_es / per_ours,
            ">= 5x eventsourcing",
            t_es / per_ours >= 5,
        )


def bench_undo(b: Bench, folder: Path) -> None:
    path = fresh(folder, "undo.db")
    fill(path, {"u": 10_000})

    def fold() -> float:
        with Ledger(path) as ledger:
            return timed(lambda: ledger.tracks("u"))

    def undo() -> float:
        copy = fresh(folder, "undo-copy.db")
        shutil.copyfile(path, copy)
        with Ledger(copy) as ledger:
            return timed(lambda: ledger.undo("u", reason="bench"))

    t_fold, t_undo = median(fold, 5), median(undo, 5)
    b.add(
        "undo on 10k (vs one fold)",
        t_undo,
        t_fold,
        t_undo / t_fold,
        "<= 1.5x a fold",
        t_undo / t_fold <= 1.5,
    )


def wall(argv: list[str], times: int) -> float:
    def once() -> float:
        start = time.perf_counter()
        subprocess.run(argv, env=cli_env(), capture_output=True, check=True)
        return time.perf_counter() - start

    return median(once, times)


def encounter_cmd(path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "ledger", "--db", str(path), *args]


def compile_bytecode() -> None:
    """Write the bytecode of the project's modules, as installing a package does.

    This checkout runs from source, and the environment may say PYTHONDONTWRITEBYTECODE: each
    command would then compile every module anew, while the installed reference (and an
    installed `encounter`) loads compiled files. `__pycache__` is ignored by git.
    """
    import compileall

    for package in ("ledger", "projections"):
        compileall.compile_dir(str(ROOT / package), quiet=1)


def bench_cli(b: Bench, folder: Path) -> None:
    compile_bytecode()
    path = fresh(folder, "cli.db")
    fill(path, {"duel": 1_000})
    sqlite_utils = str(Path(sys.executable).with_name("sqlite-utils"))
    t_ours = wall(encounter_cmd(path, "tracks", "duel"), 7)
    t_ref = wall([sqlite_utils, "rows", str(path), "events"], 7)
    b.add(
        "`encounter tracks` on 1k events (process wall)",
        t_ours,
        t_ref,
        t_ours / t_ref,
        "<= 1.3x sqlite-utils rows",
        t_ours / t_ref <= 1.3,
    )


def bench_audit(b: Bench, folder: Path) -> None:
    small = fresh(folder, "audit-10k.db")
    fill(small, {"a": 10_000})

    def audit(path: Path) -> float:
        with Ledger(path) as ledger:
            return timed(lambda: ledger.audit("a"))

    t_small = median(lambda: audit(small), 3)
    big = fresh(folder, "audit-100k.db")
    shutil.copyfile(folder / "import.db", big)
    with Ledger(big) as ledger:  # the 100k encounter, under the same name
        ledger.import_lines(list(ledger.export("big")), into="a", new_ids=True)
    t_big = median(lambda: audit(big), 3)
    b.add(
        "audit 100k vs audit 10k",
        t_big,
        t_small,
        t_big / t_small,
        "<= 12 (linear)",
        t_big / t_small <= 12,
    )


# The peak is read from VmHWM, the high-water mark of this process's own memory: ru_maxrss
# survives exec on Linux, so a child started by this (large) benchmark process would report the
# parent's size, not its own.
MEMORY_CHILD = """
import resource, sys
sys.path.insert(0, {root!r})
from ledger import Ledger
with Ledger({path!r}) as ledger:
    seq = ledger.tracks("m").seq
    steps = sum(1 for _ in ledger.replay("m"))
    findings = len(ledger.audit("m"))
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, seq, steps, findings)
"""


def bench_memory(b: Bench, folder: Path) -> None:
    path = fresh(folder, "million.db")
    fill(path, {"m": 1_000_000})
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD.format(root=str(ROOT), path=str(path))],
        capture_output=True,
        text=True,
        check=True,
        env=cli_env(),
    )
    peak_kb, _seq, _steps, findings = map(int, done.stdout.split())
    peak = peak_kb / 1024
    b.add(
        f"peak RSS: tracks+replay+audit of 1M events ({findings} findings)",
        peak,
        250,
        peak / 250,
        "< 250 MB",
        peak < 250,
        unit="MB",
    )


def bench_campaign(b: Bench, folder: Path) -> None:
    campaign = fresh(folder, "campaign.db")
    fill(campaign, {f"enc-{n:04d}": 1_000 for n in range(1_000)})
    alone = fresh(folder, "alone.db")
    fill(alone, {"enc-0500": 1_000})
    for what in (["list", "--json"], ["tracks", "enc-0500"]):
        t_big = wall(encounter_cmd(campaign, *what), 5)
        t_one = wall(encounter_cmd(alone, *what), 5)
        b.add(
            f"`encounter {' '.join(what)}`: 1,000 x 1,000-event file vs alone",
            t_big,
            t_one,
            t_big / t_one,
            "<= 1.5x",
            t_big / t_one <= 1.5,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args()
    es = have_eventsourcing()
    b = Bench()
    folder = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
    started = time.perf_counter()
    try:
        for step in (
            lambda: bench_append(b, folder, es),
            lambda: bench_import(b, folder, es),
            lambda: bench_replay(b, folder, es),
            lambda: bench_undo(b, folder),
            lambda: bench_cli(b, folder),
            lambda: bench_audit(b, folder),
            lambda: bench_memory(b, folder),
            lambda: bench_campaign(b, folder),
        ):
            step()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({"seconds": round(elapsed, 1), "results": b.rows}, indent=2))
        return
    print("| benchmark | ours | reference | ratio | goal | met |")
    print("|---|---|---|---|---|---|")
    for r in b.rows:
        met = {True: "yes", False: "**no**", None: "-"}[r["met"]]
        print(
            f"| {r['benchmark']} | {r['ours']:.4g} {r['unit']} | {r['reference']:.4g} "
            f"{r['unit']} | {r['ratio']:.3g} | {r['goal']} | {met} |"
        )
    print(f"\n({elapsed:.0f} s; medians; ratios measured in the same run)")


if __name__ == "__main__":
    main()
