"""Benchmark of the encounter ledger: each figure a median, and a ratio to a reference measured
in the same run on the same machine. Not collected by pytest; run by hand:

    .venv/bin/python tests/perf/bench.py            # a table (about 4 minutes)
    .venv/bin/python tests/perf/bench.py --quick    # the same figures, fewer repetitions
    .venv/bin/python tests/perf/bench.py --json     # the same figures as JSON, each with its id

The `eventsourcing` comparisons need `pip install -e '.[bench]'` (they are skipped, with a
message, when it is not installed). The fixtures (ledger files of 10k to 1M events) are built
once and kept under `tests/perf/.fixtures/` (ignored by git), keyed by the code that builds them.
Absolute times drift between runs on a noisy machine; the ratios much less.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import os
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

from ledger.chain import CANONICAL, GENESIS, chain_hash, new_id  # noqa: E402
from ledger.chainhash import hash_text  # noqa: E402
from ledger.rows import now_utc, timestamp  # noqa: E402
from projections.registry import ruleset  # noqa: E402

from ledger import Ledger  # noqa: E402
from projections.core import pinned_rules  # noqa: E402
from tests.longstreams import cli_env, fates_edge_stream, lines, skirmish  # noqa: E402
from tests.perf.bench_stores import GOALS as STORE_GOALS  # noqa: E402
from tests.perf.bench_stores import bench_stores  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / ".fixtures"
ROWS = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"
SCHEMA = """CREATE TABLE events (
    encounter TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    recorded_at TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
    PRIMARY KEY (encounter, seq)) WITHOUT ROWID"""

#: id -> (what is measured, the reference, the goal as (operator, number)).
GOALS: dict[str, tuple[str, str, tuple[str, float]]] = {
    "append_vs_raw": (
        "durable append, one event per transaction (WAL, FULL)",
        "raw sqlite3 insert+commit, same pragmas",
        (">=", 0.7),
    ),
    "append_vs_eventsourcing": (
        "durable append, one event per transaction",
        "eventsourcing 9.x, one event per save()",
        (">=", 1.1),
    ),
    "write_cli_10k_vs_10": (
        "`encounter fatigue` (a write), whole process, 10,000-event encounter",
        "the same on a 10-event encounter",
        ("<=", 1.2),
    ),
    "import_vs_raw": (
        "import 100,000 events from JSON Lines",
        "raw parse + hash + executemany in one transaction",
        (">=", 0.5),
    ),
    "import_vs_eventsourcing": (
        "import 100,000 events from JSON Lines",
        "eventsourcing: one aggregate event per line, one save()",
        (">=", 1.0),
    ),
    "replay_full_vs_raw": (
        "full refold of 100,000 events (read, validate, fold; no cache)",
        "raw SELECT + json.loads",
        (">=", 0.5),
    ),
    "tracks_100k_vs_raw": (
        "`Ledger.tracks` on a 100,000-event encounter (cache allowed)",
        "raw SELECT + json.loads of its events",
        (">=", 3),
    ),
    "replay_per_event_vs_eventsourcing": (
        "per-event full refold (of 100,000)",
        "eventsourcing repository.get() of a 10,000-event aggregate, per event",
        (">=", 5),
    ),
    "tracks_cli_vs_sqlite_utils": (
        "`encounter tracks` on 1,000 events, whole process",
        "`sqlite-utils rows` on the same file",
        ("<=", 1.1),
    ),
    "undo_first_vs_fold": (
        "undo of the first hit of a 10,000-event encounter",
        "one full fold (no cache)",
        ("<=", 1.5),
    ),
    "undo_last_vs_fold": (
        "undo of the last event of a 10,000-event encounter",
        "one full fold (no cache)",
        ("<=", 0.2),
    ),
    "audit_100k_vs_10k": ("audit of 100,000 events", "audit of 10,000", ("<=", 12)),
    "rss_1m_mb": (
        "peak RSS (VmHWM) of tracks + replay + audit of 1,000,000 events",
        "",
        ("<", 120),
    ),
    "campaign_list": (
        "`encounter list --json` in a 1,000 x 1,000-event file",
        "the same encounter alone in a file",
        ("<=", 1.5),
    ),
    "campaign_tracks": (
        "`encounter tracks` in a 1,000 x 1,000-event file",
        "the same encounter alone in a file",
        ("<=", 1.5),
    ),
}

GOALS.update(STORE_GOALS)


class Reps:
    """How many times each figure is measured: fewer with --quick."""

    def __init__(self, quick: bool) -> None:
        self.quick = quick

    def __call__(self, full: int, quick: int = 1) -> int:
        return quick if self.quick else full


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


def copied(source: Path, folder: Path, name: str) -> Path:
    """A scratch copy of a fixture file (a write must not change the cached fixture)."""
    path = fresh(folder, name)
    shutil.copyfile(source, path)
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


def fill(path: Path, encounters: dict[str, int], stream: Callable[..., Any] = skirmish) -> None:
    """A ledger file with these encounters (name -> events), written fast: rows built with the
    store's own chain code, not through the service (a fixture, not a measurement); then the
    projection cache the ledger's own writes would have left (snapshots and head view)."""
    # Opened by the ledger (its schema, its file format) and kept open: an empty file it
    # created would be removed on close.
    keeper = Ledger(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    stamp = timestamp(now_utc())
    for name, count in encounters.items():
        prev, rows = GENESIS, []
        first: dict[str, Any] = {}
        for seq, item in enumerate(stream(count), start=1):
            if seq == 1:
                first = item
                item = {**item, "rules": pinned_rules(ruleset(item["system"]), {})}
            body = {k: v for k, v in item.items() if k != "type"}
            id_ = new_id()
            # The text the ledger writes (canonical), as a file written by this build holds.
            digest = chain_hash(name, seq, id_, item["type"], stamp, body, prev)
            rows.append((name, seq, id_, item["type"], stamp, CANONICAL.encode(body), prev, digest))
            prev = digest
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute(
            "INSERT INTO heads (encounter, system, title, seq, hash, opened_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?)",
            (name, first["system"], first.get("title"), count, prev, stamp, stamp),
        )
    conn.execute("COMMIT")
    conn.close()
    keeper.close()
    warm = getattr(Ledger, "warm_cache", None)
    if warm is not None:
        with Ledger(path) as ledger:
            for name in encounters:
                warm(ledger, name)


def _fixture_key() -> str:
    """A digest of the code that shapes the fixtures: a change to it builds them anew."""
    digest = hashlib.sha256()
    for source in (fill, fates_edge_stream):
        digest.update(inspect.getsource(source).encode())
    modules = (
        "longstreams",
        "store",
        "chain",
        "cache",
        "sqlitecache",
        "headview",
        "snapshot_codec",
        # The snapshot's form is the state classes' too (a roll is stored as an array, a
        # Fate's Edge lock as the fields of `FELock`).
        "projections/state",
        "projections/values",
        "projections/fates_edge_model",
    )
    paths = (
        f"{m}.py" if "/" in m else f"tests/{m}.py" if m == "longstreams" else f"ledger/{m}.py"
        for m in modules
    )
    for module in paths:
        file = ROOT / module
        if file.exists():
            digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


def fixture(name: str, encounters: dict[str, int], stream: Callable[..., Any] = skirmish) -> Path:
    """The cached fixture file `name`, built on first use."""
    folder = FIXTURES / _fixture_key()
    path = folder / name
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        for stale in FIXTURES.iterdir():
            if stale != folder:
                shutil.rmtree(stale, ignore_errors=True)
        building = folder / f"{name}.building"
        fresh(folder, building.name)
        started = time.perf_counter()
        fill(building, encounters, stream)
        building.rename(path)
        for suffix in ("-wal", "-shm"):
            Path(str(building) + suffix).unlink(missing_ok=True)
        print(f"  (built fixture {name} in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return path


class Bench:
    """Collects one row per id: what we measured, the reference, the ratio and the goal."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(self, id: str, ours: float, reference: float | None, unit: str = "s") -> None:
        label, against, (op, target) = GOALS[id]
        if reference is None:
            ratio = ours
        elif op == ">=":  # how many times faster than the reference: reference / ours
            ratio = reference / ours
        else:  # how many times the reference it takes: ours / reference
            ratio = ours / reference
        met = ratio >= target if op == ">=" else ratio <= target if op == "<=" else ratio < target
        row = {
            "id": id,
            "benchmark": label,
            "reference_is": against,
            "ours": round(ours, 6),
            "reference": None if reference is None else round(reference, 6),
            "unit": unit,
            "ratio": round(ratio, 3),
            "goal": f"{op} {target:g}",
            "met": met,
        }
        self.rows.append(row)
        ref = "" if reference is None else f", reference {reference:.4g}{unit}"
        print(
            f"  {id}: ours {ours:.4g}{unit}{ref}, ratio {ratio:.3g} (goal {op} {target:g}) "
            f"{'MET' if met else 'missed'}",
            file=sys.stderr,
            flush=True,
        )

    def skip(self, id: str, why: str) -> None:
        label, against, (op, target) = GOALS[id]
        self.rows.append(
            {
                "id": id,
                "benchmark": label,
                "reference_is": against,
                "ours": None,
                "reference": None,
                "unit": "s",
                "ratio": None,
                "goal": f"{op} {target:g}",
                "met": None,
                "skipped": why,
            }
        )
        print(f"  {id}: skipped ({why})", file=sys.stderr, flush=True)


def fsync_time(folder: Path, times: int) -> float:
    """The disk's own cost of one durable write: write 4 KiB and fdatasync, median."""
    path = folder / "fsync.probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        took = []
        for n in range(times):
            os.pwrite(fd, b"x" * 4096, (n % 16) * 4096)
            start = time.perf_counter()
            os.fdatasync(fd)
            took.append(time.perf_counter() - start)
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(took)


def have_eventsourcing() -> bool:
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        print(
            "eventsourcing is not installed: skipping the eventsourcing comparisons "
            "(pip install -e '.[bench]')",
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


def raw_appends(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> float:
    """The time of one raw append (insert + commit, one row a transaction), on average."""
    start = time.perf_counter()
    for row in rows:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", row)
        conn.execute("COMMIT")
    return (time.perf_counter() - start) / len(rows)


#: Appends made before the timed ones, by each of the three alike: a process's first appends
#: of each kind build what later ones reuse (validators and serializers, first reads), which
#: is start-up, not the steady cost of an append (`write_cli_10k_vs_10` measures a process).
WARM_APPENDS = 10


def bench_append(b: Bench, folder: Path, es: bool, reps: Reps) -> None:
    count = 200 if not reps.quick else 100

    def ours() -> float:
        path = fresh(folder, "append.db")
        stream = list(skirmish(count + WARM_APPENDS + 15))
        with Ledger(path) as ledger:
            ledger.import_lines(lines(iter(stream[:15])), into="a")
            for item in stream[15 : 15 + WARM_APPENDS]:
                ledger.record("a", item)
            items = stream[15 + WARM_APPENDS :]
            start = time.perf_counter()
            for item in items:
                ledger.record("a", item)
            return (time.perf_counter() - start) / len(items)

    def reference() -> float:
        rows = stored_rows(folder / "append.db", "a")[15:]
        conn = raw_connection(fresh(folder, "append-raw.db"))
        raw_appends(conn, rows[:WARM_APPENDS])
        took = raw_appends(conn, rows[WARM_APPENDS:])
        conn.close()
        return took

    def es_run() -> float:
        app, Encounter = es_app(folder)
        agg = Encounter()
        app.save(agg)
        for n in range(WARM_APPENDS):
            agg.note(f"warm {n}")
            app.save(agg)
        start = time.perf_counter()
        for n in range(count):
            agg.note(f"note {n}")
            app.save(agg)
        return (time.perf_counter() - start) / count

    # Interleaved, so that a burst of load elsewhere hits all three alike.
    mine, raw, theirs = [], [], []
    for _ in range(reps(5, 3)):
        mine.append(ours())
        raw.append(reference())
        if es:
            theirs.append(es_run())
    t_ours = statistics.median(mine)
    b.add("append_vs_raw", t_ours, statistics.median(raw))
    if es:
        b.add("append_vs_eventsourcing", t_ours, statistics.median(theirs))
    else:
        b.skip("append_vs_eventsourcing", "eventsourcing is not installed")


def bench_import(b: Bench, folder: Path, es: bool, reps: Reps) -> None:
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
            body = CANONICAL.encode(item)  # encoded once: hashed and stored
            digest = hash_text("big", seq, id_, kind, stamp, body, prev)
            rows.append(("big", seq, id_, kind, stamp, body, prev, digest))
            prev = digest
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        took = time.perf_counter() - start
        conn.close()
        return took

    def es_run() -> float:
        # The same lines read and turned into aggregate events, then one save().
        app, Encounter = es_app(folder)
        start = time.perf_counter()
        agg = Encounter()
        for text in source[1:]:
            agg.note(json.loads(text).get("text", ""))
        app.save(agg)
        return time.perf_counter() - start

    mine, raw, theirs = [], [], []
    for _ in range(reps(3, 1)):
        raw.append(reference())
        if es:
            theirs.append(es_run())
        mine.append(ours())  # last: the replay and audit below read the file it leaves
    t_ours = statistics.median(mine)
    b.add("import_vs_raw", t_ours, statistics.median(raw))
    if es:
        b.add("import_vs_eventsourcing", t_ours, statistics.median(theirs))
    else:
        b.skip("import_vs_eventsourcing", "eventsourcing is not installed")


def raw_read(path: Path, encounter: str) -> float:
    """The reference of the reads: SELECT every row of the encounter and json.loads its body."""
    conn = sqlite3.connect(path)
    start = time.perf_counter()
    for row in conn.execute(
        f"SELECT {ROWS} FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
    ):
        json.loads(row[5])
    took = time.perf_counter() - start
    conn.close()
    return took


def full_fold(path: Path, encounter: str) -> float:
    """One full refold of the encounter from its events (no cache): read, validate, fold."""
    with Ledger(path) as ledger:
        return timed(lambda: ledger.refold(encounter))


def bench_replay(b: Bench, folder: Path, es: bool, reps: Reps) -> None:
    path = folder / "import.db"  # 100k events, from bench_import

    def tracks() -> float:
        with Ledger(path) as ledger:
            return timed(lambda: ledger.tracks("big"))

    t_raw = median(lambda: raw_read(path, "big"), reps(5, 3))
    t_full = median(lambda: full_fold(path, "big"), reps(3, 1))
    t_tracks = median(tracks, reps(5, 3))
    b.add("replay_full_vs_raw", t_full, t_raw)
    b.add("tracks_100k_vs_raw", t_tracks, t_raw)
    if es:
        count = 10_000
        app, Encounter = es_app(folder)
        agg = Encounter()
        for n in range(count - 1):
            agg.note(f"note {n}")
        app.save(agg)
        t_es = median(lambda: timed(lambda: app.repository.get(agg.id)), reps(5, 3)) / count
        b.add("replay_per_event_vs_eventsourcing", t_full / 100_000, t_es)
    else:
        b.skip("replay_per_event_vs_eventsourcing", "eventsourcing is not installed")


def first_hit(path: Path, encounter: str) -> int:
    conn = sqlite3.connect(path)
    (seq,) = conn.execute(
        "SELECT MIN(seq) FROM events WHERE encounter = ? AND type = 'harm.inflicted'",
        (encounter,),
    ).fetchone()
    conn.close()
    return int(seq)


def bench_undo(b: Bench, folder: Path, reps: Reps) -> None:
    source = fixture("undo-10k.db", {"u": 10_000})
    hit = first_hit(source, "u")

    def undo(seq: int | None) -> float:
        path = copied(source, folder, "undo.db")
        with Ledger(path) as ledger:
            return timed(lambda: ledger.undo("u", seq, reason="bench"))

    t_fold = median(lambda: full_fold(source, "u"), reps(7, 3))
    t_first = median(lambda: undo(hit), reps(5, 3))
    t_last = median(lambda: undo(None), reps(5, 3))
    b.add("undo_first_vs_fold", t_first, t_fold)
    b.add("undo_last_vs_fold", t_last, t_fold)


def wall(argv: list[str], times: int, before: Callable[[], Any] | None = None) -> float:
    def once() -> float:
        if before is not None:
            before()
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


def bench_cli(b: Bench, folder: Path, reps: Reps) -> None:
    path = copied(fixture("cli-1k.db", {"duel": 1_000}), folder, "cli.db")
    sqlite_utils = str(Path(sys.executable).with_name("sqlite-utils"))
    # Interleaved pairs, so that load elsewhere hits both alike.
    ours, ref = [], []
    for _ in range(reps(9, 5)):
        ours.append(wall(encounter_cmd(path, "tracks", "duel"), 1))
        ref.append(wall([sqlite_utils, "rows", str(path), "events"], 1))
    b.add("tracks_cli_vs_sqlite_utils", statistics.median(ours), statistics.median(ref))


def bench_write_cli(b: Bench, folder: Path, reps: Reps) -> None:
    sources = {
        size: fixture(f"fates-{size}.db", {"ford": size}, fates_edge_stream)
        for size in (10, 10_000)
    }
    took: dict[int, list[float]] = {10: [], 10_000: []}
    for _ in range(reps(7, 3)):
        for size, source in sources.items():
            path = folder / f"write-{size}.db"
            took[size].append(
                wall(
                    encounter_cmd(path, "fatigue", "ford", "Ash", "1"),
                    1,
                    before=lambda s=source, n=size: copied(s, folder, f"write-{n}.db"),
                )
            )
    b.add("write_cli_10k_vs_10", statistics.median(took[10_000]), statistics.median(took[10]))


def bench_audit(b: Bench, folder: Path, reps: Reps) -> None:
    small = fixture("audit-10k.db", {"a": 10_000})

    def audit(path: Path, name: str) -> float:
        with Ledger(path) as ledger:
            return timed(lambda: ledger.audit(name))

    t_small = median(lambda: audit(small, "a"), reps(5, 3))
    t_big = median(lambda: audit(folder / "import.db", "big"), reps(3, 1))
    b.add("audit_100k_vs_10k", t_big, t_small)


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
    path = fixture("million.db", {"m": 1_000_000})
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD.format(root=str(ROOT), path=str(path))],
        capture_output=True,
        text=True,
        check=True,
        env=cli_env(),
    )
    peak_kb, _seq, _steps, _findings = map(int, done.stdout.split())
    b.add("rss_1m_mb", peak_kb / 1024, None, unit="MB")


def bench_campaign(b: Bench, folder: Path, reps: Reps) -> None:
    campaign = fixture("campaign.db", {f"enc-{n:04d}": 1_000 for n in range(1_000)})
    alone = fixture("alone.db", {"enc-0500": 1_000})
    for id, what in (
        ("campaign_list", ["list", "--json"]),
        ("campaign_tracks", ["tracks", "enc-0500"]),
    ):
        big, one = [], []
        for _ in range(reps(7, 3)):
            big.append(wall(encounter_cmd(campaign, *what), 1))
            one.append(wall(encounter_cmd(alone, *what), 1))
        b.add(id, statistics.median(big), statistics.median(one))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (under 90 s)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--only", help="run only the steps whose names hold this text")
    args = parser.parse_args()
    es = have_eventsourcing()
    reps = Reps(args.quick)
    b = Bench()
    folder = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
    started = time.perf_counter()
    load = os.getloadavg()[0]
    compile_bytecode()
    fsync = fsync_time(folder, reps(50, 20))
    print(f"  raw fdatasync of 4 KiB: {fsync * 1e6:.0f} µs (load {load:.2f})", file=sys.stderr)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("append", lambda: bench_append(b, folder, es, reps)),
        ("import", lambda: bench_import(b, folder, es, reps)),
        ("replay", lambda: bench_replay(b, folder, es, reps)),
        ("audit", lambda: bench_audit(b, folder, reps)),
        ("undo", lambda: bench_undo(b, folder, reps)),
        ("cli", lambda: bench_cli(b, folder, reps)),
        ("write", lambda: bench_write_cli(b, folder, reps)),
        ("memory", lambda: bench_memory(b, folder)),
        ("campaign", lambda: bench_campaign(b, folder, reps)),
        ("stores", lambda: bench_stores(b.add, b.skip, folder, reps.quick)),
    ]
    needs_import = {"replay", "audit"}
    try:
        chosen = [s for s in steps if args.only is None or args.only in s[0]]
        if any(name in needs_import for name, _ in chosen) and "import" not in dict(chosen):
            chosen.insert(0, ("import", dict(steps)["import"]))
        for _, step in chosen:
            step()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    if args.json:
        document = {
            "seconds": round(elapsed, 1),
            "quick": args.quick,
            "fsync_us": round(fsync * 1e6, 1),
            "load_at_start": round(load, 2),
            "results": b.rows,
        }
        print(json.dumps(document, indent=2))
        return
    print("| id | benchmark | ours | reference | ratio | goal | met |")
    print("|---|---|---|---|---|---|---|")
    for r in b.rows:
        met = {True: "yes", False: "**no**", None: "-"}[r["met"]]
        if r["ours"] is None:
            print(f"| `{r['id']}` | {r['benchmark']} | | | | {r['goal']} | {r['skipped']} |")
            continue
        ref = "" if r["reference"] is None else f"{r['reference']:.4g} {r['unit']}"
        print(
            f"| `{r['id']}` | {r['benchmark']} | {r['ours']:.4g} {r['unit']} | {ref} | "
            f"{r['ratio']:.3g} | {r['goal']} | {met} |"
        )
    print(
        f"\n({elapsed:.0f} s; medians; ratios against references measured in the same run; "
        f"raw fdatasync {fsync * 1e6:.0f} µs; load {load:.2f} at the start)"
    )


if __name__ == "__main__":
    main()
