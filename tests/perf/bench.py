"""Benchmark of the encounter ledger at the sizes its users have: each figure a median, and a
ratio to a reference measured in the same run on the same machine (these machines are noisy:
the ratios hold where the absolute times drift). Not collected by pytest; run by hand:

    .venv/bin/python tests/perf/bench.py            # a table (about 5 minutes)
    .venv/bin/python tests/perf/bench.py --quick    # the same figures, fewer repetitions
    .venv/bin/python tests/perf/bench.py --json     # the same figures as JSON, each with its id
    .venv/bin/python tests/perf/bench.py --only cli # only the steps whose names hold `cli`
    .venv/bin/python tests/perf/bench.py --only pg  # 64 writers on PostgreSQL against 1

The `pg` step needs a PostgreSQL server: `ENCOUNTER_TEST_PG` names its URL (the tests' server;
each run makes a schema of its own and drops it); without one it is skipped with a note.

The `eventsourcing` comparisons need `pip install -e '.[bench]'`. The fixtures (ledger files
written through the ledger's own import) are built once and kept under `tests/perf/.fixtures/`
(ignored by git), keyed by the code that shapes them. docs/performance.md explains each id.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import itertools
import json
import multiprocessing
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ledger import AsyncLedger, Ledger, events, systems  # noqa: E402
from ledger.events.portable import normalized  # noqa: E402
from ledger.store import chain as chains  # noqa: E402
from projections import audit as audit_rules  # noqa: E402
from projections import core  # noqa: E402
from tests.longstreams import fates_edge_stream, lines, skirmish  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / ".fixtures"
BIN = Path(sys.executable).parent

#: id -> (what is measured, the reference, the goal as (operator, number)).
GOALS: dict[str, tuple[str, str, tuple[str, float]]] = {
    **{
        f"cli_{command}_vs_sqlite_utils": (
            f"`encounter {shown}` on a 300-event encounter, whole process",
            "`sqlite-utils rows` of the same file, whole process",
            ("<=", 1.0),
        )
        for command, shown in (
            ("tracks", "tracks"),
            ("record", "harm (a verb)"),
            ("undo", "undo"),
            ("replay", "replay"),
            ("audit", "audit"),
        )
    },
    "cli_floor_vs_sqlite_utils": (
        "the floor: a process that imports typer and pydantic, builds one validator, sqlite3",
        "`sqlite-utils rows` of the same file, whole process",
        ("<=", 1.0),
    ),
    "cli_model_floor_vs_sqlite_utils": (
        "the floor with one pydantic model: typer, sqlite3, a `BaseModel` of one field "
        "validating one value (what any command that validates an event pays)",
        "`sqlite-utils rows` of the same file, whole process",
        ("<=", 1.0),
    ),
    "cli_typer_floor_vs_sqlite_utils": (
        "the floor of a typer command: an app with the options of `encounter tracks` (five "
        "global, seven its own) whose command only prints its argument (typer 0.29 coerces "
        "every option through a pydantic validator, so it imports pydantic and builds them)",
        "`sqlite-utils rows` of the same file, whole process",
        ("<=", 1.0),
    ),
    "write_cli_10k_vs_300": (
        "`encounter fatigue` (a write), whole process, on a 10,000-event Fate's Edge encounter",
        "the same on a 300-event one",
        ("<=", 1.3),
    ),
    "campaign_list": (
        "`encounter list --json` in a file of 1,000 encounters of 300 events",
        "the same with that encounter alone in its file",
        ("<=", 1.3),
    ),
    "campaign_tracks": (
        "`encounter tracks` of one encounter in a file of 1,000 encounters of 300 events",
        "the same with that encounter alone in its file",
        ("<=", 1.3),
    ),
    "append_vs_eventsourcing": (
        "durable append through the library, one event a transaction",
        "eventsourcing 9.x on SQLite, one event a save()",
        (">=", 1.0),
    ),
    "append_floor_vs_eventsourcing": (
        "the floor of an append: its event validated by its system's model, the head read, "
        "its canonical body and chained hash, its row inserted in DESIGN 3's table, the "
        "commit; nothing folded or audited",
        "eventsourcing's append, as `append_vs_eventsourcing`",
        (">=", 1.0),
    ),
    "append_guarded_floor_vs_eventsourcing": (
        "the floor of an append with what the guarantees against another hand add: the row "
        "read back before it is acknowledged, the acknowledged head written beside it",
        "eventsourcing's append, as `append_vs_eventsourcing`",
        (">=", 1.0),
    ),
    "append_judged_floor_vs_eventsourcing": (
        "the guarded floor with the event judged: folded into the encounter's state and "
        "audited by the ledger's engine, on a state held in memory (what a write must know "
        "to refuse a hit on a combatant who never joined and to report its findings)",
        "eventsourcing's append, as `append_vs_eventsourcing`",
        (">=", 1.0),
    ),
    "import_vs_eventsourcing": (
        "import 10,000 events from JSON Lines (parse, validate, fold, chain, store)",
        "eventsourcing: one aggregate event a line, one save()",
        (">=", 1.0),
    ),
    "import_floor_vs_eventsourcing": (
        "the floor of an import: what the contracts ask of each of the same 10,000 lines and "
        "nothing more (its texts composed, validated by its system's model, its canonical "
        "body and chained hash, its row inserted in DESIGN 3's table, one transaction), "
        "nothing folded",
        "eventsourcing's whole import of the same lines, as `import_vs_eventsourcing`",
        (">=", 1.0),
    ),
    "rss_1m_mb": (
        "peak RSS of tracks, replay and audit of a 1,000,000-event encounter, in MB",
        "",
        ("<", 120),
    ),
    "report_40k_vs_10k": (
        "`report --html` and `export --format md` of a 40,000-event encounter with undos",
        "the same of 10,000 events (linear is 4)",
        ("<=", 4.5),
    ),
    "pg_scale_64_vs_1": (
        "PostgreSQL: seconds per append of the whole store, 64 writers (64 encounters, 8 tenants)",
        "the same with 1 writer",
        (">=", 8.0),
    ),
    "pg_notify_on_vs_off": (
        "PostgreSQL, 64 writers: seconds per append of the whole store with NOTIFY at each append",
        "the same without NOTIFY (the default)",
        (">=", 0.8),
    ),
    "pg_async_vs_threads": (
        "PostgreSQL: seconds per append, 64 asyncio tasks on AsyncLedger in one process "
        "(8 tenants, pool_size 4 each)",
        "the same with 64 threads, a Ledger (a connection) each, in one process",
        (">=", 0.8),
    ),
    "fe_fold_vs_ssss": (
        "a full fold of a 100,000-event Fate's Edge encounter, per event",
        "the same of a Stones, Scrolls, Swords and Sorcery encounter",
        ("<=", 1.5),
    ),
}


class Reps:
    """How many times each figure is measured: fewer with --quick."""

    def __init__(self, quick: bool) -> None:
        self.quick = quick

    def __call__(self, full: int, quick: int = 3) -> int:
        return quick if self.quick else full


class Bench:
    """One row per id: what was measured, the reference, the ratio and the goal."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def add(
        self,
        id: str,
        ours: float,
        reference: float | None,
        unit: str = "s",
        detail: dict[str, float] | None = None,
    ) -> None:
        """One figure against its reference; `detail` adds figures shown beside it."""
        label, against, (op, target) = GOALS[id]
        if reference is None:
            ratio = ours
        elif op == ">=":  # how many times faster than the reference: reference / ours
            ratio = reference / ours
        else:  # how many times the reference it takes: ours / reference
            ratio = ours / reference
        met = ratio >= target if op == ">=" else ratio <= target if op == "<=" else ratio < target
        self.rows.append(
            {
                "id": id,
                "benchmark": label,
                "reference_is": against,
                "ours": round(ours, 6),
                "reference": None if reference is None else round(reference, 6),
                "unit": unit,
                "ratio": round(ratio, 3),
                "goal": f"{op} {target:g}",
                "met": met,
                **({"detail": detail} if detail else {}),
            }
        )
        ref = "" if reference is None else f", reference {reference:.4g} {unit}"
        more = "".join(f", {k} {v:.4g}" for k, v in (detail or {}).items())
        print(
            f"  {id}: ours {ours:.4g} {unit}{ref}, ratio {ratio:.3g} (goal {op} {target:g}) "
            f"{'met' if met else 'MISSED'}{more}",
            file=sys.stderr,
            flush=True,
        )

    def skip(self, id: str, why: str) -> None:
        label, against, (op, target) = GOALS[id]
        row = {"id": id, "benchmark": label, "reference_is": against, "goal": f"{op} {target:g}"}
        self.rows.append({**row, "ours": None, "met": None, "skipped": why})
        print(f"  {id}: skipped ({why})", file=sys.stderr, flush=True)


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def copied(source: Path, path: Path) -> Path:
    """A scratch copy of a fixture (a write must not change the kept fixture)."""
    shutil.copyfile(source, fresh(path))
    return path


def environment() -> dict[str, str]:
    """The commands' environment: bytecode written and read, as an installed package has it,
    and a fixed width."""
    env = {**os.environ, "COLUMNS": "100"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(argv: list[str]) -> float:
    """The wall time of one whole process (its output read through a pipe, as a script would)."""
    start = time.perf_counter()
    subprocess.run(argv, env=environment(), capture_output=True)
    return time.perf_counter() - start


def encounter(db: Path, *args: str) -> list[str]:
    """The installed `encounter` console script, as a user runs it."""
    return [str(BIN / "encounter"), "--db", str(db), *args]


def interleaved(runs: dict[str, Callable[[], float]], times: int) -> dict[str, float]:
    """The median of each run, the runs taken in turn, so that a burst of load elsewhere falls
    on all of them alike."""
    took: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(times):
        for name, once in runs.items():
            took[name].append(once())
    return {name: statistics.median(values) for name, values in took.items()}


# Fixtures


def _fixture_key() -> str:
    """A digest of what shapes the fixtures: a change to it builds them anew."""
    digest = hashlib.sha256()
    for part in (
        "tests/longstreams.py",
        "tests/perf/bench.py",
        "ledger/write.py",
        "ledger/systems.py",
    ):
        digest.update((ROOT / part).read_bytes())
    for package in ("ledger/store", "ledger/events", "projections"):
        for file in sorted((ROOT / package).rglob("*.py")):
            digest.update(file.read_bytes())
    # A source tree's snapshots are keyed by its files' times as well (`systems.stamp`): a
    # checkout that touches them leaves the kept fixtures' snapshots unread, and a command
    # would then fold every event where a user's file folds the tail after its snapshot.
    digest.update(systems.stamp(["projections", "ledger.events"]).encode())
    return digest.hexdigest()[:12]


def fixture(name: str, encounters: dict[str, Iterator[dict[str, Any]]]) -> Path:
    """The kept fixture file `name` (encounter name -> its events), written on first use
    through the ledger's own import, so that it holds what a user's file holds (snapshots
    included)."""
    folder = FIXTURES / _fixture_key()
    path = folder / name
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    for stale in FIXTURES.iterdir():
        if stale != folder:
            shutil.rmtree(stale, ignore_errors=True)
    building = fresh(folder / f"{name}.building")
    started = time.perf_counter()
    with Ledger(building) as ledger:
        for encounter_name, stream in encounters.items():
            ledger.import_lines(lines(stream), into=encounter_name)
    for suffix in ("-wal", "-shm"):
        Path(str(building) + suffix).unlink(missing_ok=True)
    building.rename(path)
    print(f"  (built {name} in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return path


# The benchmarks


def bench_cli(b: Bench, folder: Path, reps: Reps) -> None:
    """Each command a user types, on a 300-event encounter, against the peer CLI reading the
    same file's rows."""
    source = fixture("ssss-300.db", {"duel": skirmish(300)})
    scratch = folder / "cli.db"
    sqlite_utils = [str(BIN / "sqlite-utils"), "rows", str(source), "events"]

    def writing(*args: str) -> Callable[[], float]:
        def once() -> float:
            copied(source, scratch)
            return run(encounter(scratch, *args))

        return once

    commands: dict[str, Callable[[], float]] = {
        "tracks": lambda: run(encounter(source, "tracks", "duel")),
        "record": writing("harm", "duel", "Bandit 3", "1"),
        "undo": writing("undo", "duel", "--reason", "bench"),
        "replay": lambda: run(encounter(source, "replay", "duel")),
        "audit": lambda: run(encounter(source, "audit", "duel")),
        "sqlite-utils": lambda: run(sqlite_utils),
        "floor": lambda: run([str(BIN / "python"), "-c", FLOOR]),
        "model floor": lambda: run([str(BIN / "python"), "-c", MODEL_FLOOR]),
        "typer floor": lambda: run(typer_floor(source)),
    }
    for once in commands.values():
        once()  # bytecode written, caches warm
    took = interleaved(commands, reps(11, 5))
    for command in ("tracks", "record", "undo", "replay", "audit"):
        b.add(f"cli_{command}_vs_sqlite_utils", took[command], took["sqlite-utils"])
    b.add("cli_floor_vs_sqlite_utils", took["floor"], took["sqlite-utils"])
    b.add("cli_model_floor_vs_sqlite_utils", took["model floor"], took["sqlite-utils"])
    b.add("cli_typer_floor_vs_sqlite_utils", took["typer floor"], took["sqlite-utils"])


#: The floor of a command: typer, sqlite3 and pydantic building one validator.
FLOOR: Final = (
    "import typer, sqlite3, json, hashlib; from pydantic import TypeAdapter; TypeAdapter(int)"
)
#: The floor of a command that validates an event: one `BaseModel` with a field. A model's
#: class imports pydantic's fields, types and annotated_types (about 50 dataclasses) that a
#: lone validator does not.
MODEL_FLOOR: Final = (
    "import typer, sqlite3, json, hashlib\n"
    "from pydantic import BaseModel\n"
    "class Event(BaseModel, frozen=True, extra='forbid', strict=True):\n"
    "    level: int\n"
    "Event.model_validate_json('{\"level\": 1}')\n"
)


#: The floor of a typer command: `encounter tracks`'s parameters (the group's and its own, of
#: the same kinds), and a command that only prints its argument. typer (0.29) coerces every
#: parameter through a pydantic `TypeAdapter`, which it imports and builds as the command runs.
TYPER_FLOOR: Final = """
from typing import Annotated
import typer
app = typer.Typer()
@app.callback()
def options(
    db: Annotated[str | None, typer.Option()] = None,
    plain: Annotated[bool, typer.Option()] = False,
    version: Annotated[bool, typer.Option()] = False,
    tenant: Annotated[str | None, typer.Option()] = None,
    user: Annotated[str | None, typer.Option()] = None,
) -> None: pass
@app.command()
def tracks(
    name: str,
    at: Annotated[int | None, typer.Option()] = None,
    corrected: Annotated[bool, typer.Option()] = False,
    without: Annotated[list[int] | None, typer.Option()] = None,
    round_: Annotated[int | None, typer.Option("--round")] = None,
    scene: Annotated[str | None, typer.Option()] = None,
    json_: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    print(name)
app()
"""


def typer_floor(db: Path) -> list[str]:
    """The argv of the typer floor, as `encounter --db DB tracks duel` is typed."""
    return [str(BIN / "python"), "-c", TYPER_FLOOR, "--db", str(db), "tracks", "duel"]


def instructions(argv: list[str]) -> float:
    """The instructions one whole process executes, in millions (valgrind's callgrind): the
    same on a loaded machine as on an idle one, where wall times are not."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
            env=environment(),
            capture_output=True,
            check=False,
        )
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1]) / 1e6
    raise RuntimeError(f"callgrind counted nothing for {argv}")


def bench_cli_instructions(b: Bench, folder: Path) -> None:
    """The commands of `bench_cli` counted in instructions (`--instructions`), with the floor:
    an interpreter that imports typer and pydantic's models and builds one validator (what
    every command of a typer and pydantic program pays) and reads sqlite3."""
    source = fixture("ssss-300.db", {"duel": skirmish(300)})
    scratch = folder / "cli.db"
    python = str(BIN / "python")
    # Bytecode written first, as `bench_cli` does: the first process after a change of the
    # code compiles it, and would count that too.
    for command in ("tracks", "replay", "audit"):
        subprocess.run(encounter(source, command, "duel"), env=environment(), capture_output=True)
    counted = {
        "sqlite-utils": instructions([str(BIN / "sqlite-utils"), "rows", str(source), "events"]),
        "floor": instructions([python, "-c", FLOOR]),
        "model floor": instructions([python, "-c", MODEL_FLOOR]),
        "typer floor": instructions(typer_floor(source)),
        "tracks": instructions(encounter(source, "tracks", "duel")),
        "replay": instructions(encounter(source, "replay", "duel")),
        "audit": instructions(encounter(source, "audit", "duel")),
    }
    for command, args in (
        ("record", ("harm", "duel", "Bandit 3", "1")),
        ("undo", ("undo", "duel", "--reason", "bench")),
    ):
        copied(source, scratch)
        counted[command] = instructions(encounter(scratch, *args))
    for command in ("tracks", "record", "undo", "replay", "audit"):
        b.add(
            f"cli_{command}_vs_sqlite_utils", counted[command], counted["sqlite-utils"], unit="Mi"
        )
    b.add("cli_floor_vs_sqlite_utils", counted["floor"], counted["sqlite-utils"], unit="Mi")
    b.add(
        "cli_model_floor_vs_sqlite_utils",
        counted["model floor"],
        counted["sqlite-utils"],
        unit="Mi",
    )
    b.add(
        "cli_typer_floor_vs_sqlite_utils",
        counted["typer floor"],
        counted["sqlite-utils"],
        unit="Mi",
    )


def bench_write_cli(b: Bench, folder: Path, reps: Reps) -> None:
    sources = {
        size: fixture(f"fates-{size}.db", {"ford": fates_edge_stream(size)})
        for size in (300, 10_000)
    }

    def write(size: int) -> Callable[[], float]:
        def once() -> float:
            path = copied(sources[size], folder / f"write-{size}.db")
            return run(encounter(path, "fatigue", "ford", "Ash", "1"))

        return once

    took = interleaved({str(size): write(size) for size in sources}, reps(9, 5))
    b.add("write_cli_10k_vs_300", took["10000"], took["300"])


def bench_campaign(b: Bench, reps: Reps) -> None:
    names = [f"enc-{n:04d}" for n in range(1_000)]
    campaign = fixture("campaign.db", {name: skirmish(300, title=name) for name in names})
    alone = fixture("alone.db", {"enc-0500": skirmish(300, title="enc-0500")})
    for id, args in (
        ("campaign_list", ("list", "--json")),
        ("campaign_tracks", ("tracks", "enc-0500")),
    ):
        took = interleaved(
            {
                "campaign": functools.partial(run, encounter(campaign, *args)),
                "alone": functools.partial(run, encounter(alone, *args)),
            },
            reps(9, 5),
        )
        b.add(id, took["campaign"], took["alone"])


@functools.cache
def es_classes() -> tuple[Any, Any]:
    """An eventsourcing aggregate and application (defined once: it registers their topics)."""
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    class Encounter(Aggregate):
        @event("Noted")
        def note(self, text: str) -> None:
            self.last = text

    class Encounters(Application[Any]):
        pass

    return Encounters, Encounter


def es_app(path: Path) -> tuple[Any, Any]:
    encounters, aggregate = es_classes()
    app = encounters(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(fresh(path)),
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    )
    return app, aggregate


def have_eventsourcing() -> bool:
    try:
        import eventsourcing  # noqa: F401
    except ImportError:
        return False
    return True


def bench_append(b: Bench, folder: Path, reps: Reps) -> None:
    """Durable appends, one event a transaction, after a few to warm up (validators built):
    ours through `Ledger.record`, theirs through `save()`, both on SQLite with fsync."""
    count, warm = 200, 10
    stream = list(skirmish(15 + warm + count))

    def ours() -> float:
        with Ledger(fresh(folder / "append.db")) as ledger:
            ledger.import_lines(lines(iter(stream[:15])), into="a")
            for item in stream[15 : 15 + warm]:
                ledger.record("a", item)
            items = stream[15 + warm :]
            return timed(lambda: [ledger.record("a", item) for item in items]) / len(items)

    def theirs() -> float:
        app, aggregate = es_app(folder / "es.db")
        agg = aggregate()
        app.save(agg)
        for n in range(warm):
            agg.note(f"warm {n}")
            app.save(agg)

        def saves() -> None:
            for n in range(count):
                agg.note(f"note {n}")
                app.save(agg)

        return timed(saves) / count

    def floor(guarded: bool, judged: bool = False) -> Callable[[], float]:
        """What an append must do and nothing more, on DESIGN 3's table: its event validated
        by its system's model, the head read, the canonical body and chained hash, one INSERT
        and the commit; `guarded`, also what the guarantees against another hand add (the row
        read back before it is acknowledged, the acknowledged head written beside it);
        `judged`, also the event folded into the encounter's state and audited by the
        ledger's engine, on a state held in memory as a long-lived writer holds it. No seal
        key, no snapshots, no read indexes, no layers."""
        ruleset = systems.ruleset("ssss")

        def once() -> float:
            conn = sqlite3.connect(fresh(folder / "append-floor.db"), isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(CONTRACT_TABLE)
            conn.execute(WITNESS_TABLE)
            held: list[core.State] = []
            if judged:
                with Ledger(":memory:") as scratch:  # the state after the first 15 events
                    scratch.import_lines(lines(iter(stream[:15])), into="a")
                    held.append(scratch.tracks("a"))

            def one(item: dict[str, Any]) -> None:
                event = systems.parse(item, "ssss")
                body = chains.canonical(events.body_of(event))
                conn.execute("BEGIN IMMEDIATE")
                last = conn.execute(CONTRACT_HEAD, ("a",)).fetchone()
                seq, prev = (last[0] + 1, last[1]) if last else (1, chains.GENESIS)
                id, kind = chains.new_id(), events.type_of(event)
                if judged and seq > 15:
                    before = held[0]
                    after = core.replace(core.advance(ruleset, before, seq, event), seq=seq)
                    record = events.Recorded("a", seq, id, NOW, prev, "", event, None)
                    audit_rules.for_event(ruleset, before, record, after, {})
                    held[0] = after
                digest = chains.hash_text("a", seq, id, kind, NOW, body, prev)
                row = ("a", seq, id, kind, NOW, body, prev, digest)
                conn.execute(CONTRACT_INSERT, row)
                if guarded:
                    stored = conn.execute(CONTRACT_ROW, ("a", seq)).fetchone()
                    assert stored == row
                    conn.execute(WITNESS_PUT, ("a", seq, digest))
                conn.execute("COMMIT")

            try:
                for item in stream[: 15 + warm]:
                    one(item)
                items = stream[15 + warm :]

                def appends() -> None:
                    for item in items:
                        one(item)

                return timed(appends) / len(items)
            finally:
                conn.close()

        return once

    took = interleaved(
        {
            "ours": ours,
            "theirs": theirs,
            "floor": floor(False),
            "guarded": floor(True),
            "judged": floor(True, judged=True),
        },
        reps(5, 3),
    )
    b.add("append_vs_eventsourcing", took["ours"], took["theirs"])
    b.add("append_floor_vs_eventsourcing", took["floor"], took["theirs"])
    b.add("append_guarded_floor_vs_eventsourcing", took["guarded"], took["theirs"])
    b.add("append_judged_floor_vs_eventsourcing", took["judged"], took["theirs"])


def bench_import(b: Bench, folder: Path, reps: Reps) -> None:
    source = lines(skirmish(10_000))

    def ours() -> float:
        with Ledger(fresh(folder / "import.db")) as ledger:
            return timed(lambda: ledger.import_lines(source, into="big"))

    def theirs() -> float:
        app, aggregate = es_app(folder / "es-import.db")

        def saved() -> None:
            agg = aggregate()
            for text in source[1:]:
                agg.note(json.loads(text).get("text", ""))
            app.save(agg)

        return timed(saved)

    def floor() -> float:
        system = json.loads(source[0])["system"]
        conn = sqlite3.connect(fresh(folder / "floor.db"), isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute(CONTRACT_TABLE)

        def stored() -> None:
            prev, rows = "0" * 64, []
            for seq, text in enumerate(source, 1):
                event = systems.parse(normalized(json.loads(text)), system)
                body = chains.canonical(events.body_of(event))
                id, kind = chains.new_id(), events.type_of(event)
                digest = chains.hash_text("big", seq, id, kind, NOW, body, prev)
                rows.append(("big", seq, id, kind, NOW, body, prev, digest))
                prev = digest
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(CONTRACT_INSERT, rows)
            conn.execute("COMMIT")

        try:
            return timed(stored)
        finally:
            conn.close()

    took = interleaved({"ours": ours, "theirs": theirs, "floor": floor}, reps(5, 3))
    b.add("import_vs_eventsourcing", took["ours"], took["theirs"])
    b.add("import_floor_vs_eventsourcing", took["floor"], took["theirs"])


#: The time an import's floor stamps on every line.
NOW: Final = "2026-12-03T00:00:00.000000Z"
#: The events table as DESIGN 3 states it and no more (the ledger's adds a tenant, indexes for
#: its reads, and append-only triggers): where an import's floor stores its rows.
CONTRACT_TABLE: Final = """CREATE TABLE events (
    position INTEGER PRIMARY KEY AUTOINCREMENT, encounter TEXT NOT NULL, seq INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, recorded_at TEXT NOT NULL, body TEXT NOT NULL,
    prev_hash TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (encounter, seq))"""
CONTRACT_INSERT: Final = (
    "INSERT INTO events (encounter, seq, id, type, recorded_at, body, prev_hash, hash) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
CONTRACT_HEAD: Final = "SELECT seq, hash FROM events WHERE encounter = ? ORDER BY seq DESC LIMIT 1"
CONTRACT_ROW: Final = (
    "SELECT encounter, seq, id, type, recorded_at, body, prev_hash, hash FROM events "
    "WHERE encounter = ? AND seq = ?"
)
#: The head an append's floor acknowledges, one row an encounter (the rows must still hold it:
#: a chain alone cannot tell that events were removed from its end).
WITNESS_TABLE: Final = "CREATE TABLE heads (encounter TEXT PRIMARY KEY, seq INTEGER, hash TEXT)"
WITNESS_PUT: Final = (
    "INSERT INTO heads VALUES (?, ?, ?) "
    "ON CONFLICT (encounter) DO UPDATE SET seq = excluded.seq, hash = excluded.hash"
)


# The peak is read from VmHWM, this process's own high-water mark (ru_maxrss survives exec on
# Linux: a child of this large process would report the parent's size).
MEMORY_CHILD = """
import sys
sys.path.insert(0, {root!r})
from ledger import Ledger
with Ledger({path!r}) as ledger:
    seq = ledger.tracks("m").seq
    steps = sum(1 for _ in ledger.replay("m"))
    findings = len(ledger.audit("m"))
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(peak, seq, steps, findings)
"""


def bench_memory(b: Bench) -> None:
    path = fixture("million.db", {"m": skirmish(1_000_000)})
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_CHILD.format(root=str(ROOT), path=str(path))],
        capture_output=True,
        text=True,
        check=True,
        env=environment(),
    )
    peak_kb = int(done.stdout.split()[0])
    b.add("rss_1m_mb", peak_kb / 1024, None, unit="MB")


def bench_report(b: Bench, folder: Path, reps: Reps) -> None:
    sizes = {size: fixture(f"report-{size}.db", {"r": skirmish(size)}) for size in (10_000, 40_000)}

    def both(size: int) -> Callable[[], float]:
        def once() -> float:
            html = run(encounter(sizes[size], "report", "r", "--html", str(folder / "r.html")))
            md = run(encounter(sizes[size], "export", "r", "--format", "md"))
            return html + md

        return once

    took = interleaved({str(size): both(size) for size in sizes}, reps(3, 1))
    b.add("report_40k_vs_10k", took["40000"], took["10000"])


def bench_fold(b: Bench, reps: Reps) -> None:
    count = 100_000
    fe = fixture("fold-fates.db", {"f": fates_edge_stream(count)})
    ssss = fixture("fold-ssss.db", {"s": skirmish(count)})

    def refold(path: Path, name: str) -> Callable[[], float]:
        def once() -> float:
            with Ledger(path) as ledger:
                return timed(lambda: ledger.refold(name))

        return once

    took = interleaved({"fe": refold(fe, "f"), "ssss": refold(ssss, "s")}, reps(5, 3))
    b.add("fe_fold_vs_ssss", took["fe"] / count, took["ssss"] / count)


#: The encounters and tenants of the PostgreSQL figures, whatever the number of writers: one
#: writer appends to each of the 64 in turn (an append reads its encounter's whole chain, so a
#: writer of one long encounter would be slower for that alone).
PG_ENCOUNTERS = 64
PG_TENANTS = 8
#: Writers are threads, each with a `Ledger` (a connection) of its own, over this many forked
#: processes: every writer holds its own transaction on the server, as a bot would, and the
#: client's work (validation, the fold, the chain) is not held to one core by one interpreter.
PG_PROCESSES = 8


def pg_server() -> str | None:
    """The URL of the PostgreSQL server to measure on (`ENCOUNTER_TEST_PG`), if it answers."""
    url = os.environ.get("ENCOUNTER_TEST_PG")
    if not url:
        return None
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=5):
            return url
    except Exception:  # no driver, or no server: skipped with a note
        return None


def pg_writers(
    location: str,
    writers: range,
    count: int,
    start: float,
    end: float,
    notify: bool,
    out: Queue[Any],
) -> None:
    """Each of `writers` (a thread, one of `count`) opens its share of the PG_ENCOUNTERS
    encounters and warms up, then appends one note after another to each in turn from `start`
    to `end`; the latencies of the appends done in that span go to `out`."""
    latencies: list[float] = []

    def write(writer: int) -> None:
        mine = range(writer, PG_ENCOUNTERS, count)
        tenants = {f"guild:{n % PG_TENANTS}" for n in mine}
        ledgers = {t: Ledger(location, tenant=t, pool_size=1, notify=notify) for t in tenants}
        try:
            targets = [(ledgers[f"guild:{n % PG_TENANTS}"], f"e{n:02d}") for n in mine]
            for ledger, name in targets:
                ledger.open(name, "ssss")
                for n in range(5):
                    ledger.record(name, {"type": "note", "text": f"warm {n}"})
            time.sleep(max(0.0, start - time.monotonic()))
            for n, (ledger, name) in enumerate(itertools.cycle(targets)):
                began = time.monotonic()
                if began >= end:
                    break
                ledger.record(name, {"type": "note", "text": f"{ledger.tenant}/{name}/{n}"})
                done = time.monotonic()
                if done <= end:
                    latencies.append(done - began)
        finally:
            for ledger in ledgers.values():
                ledger.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in writers]
    for thread in threads:
        thread.start()
    used = cpu_window(start, end)
    for thread in threads:
        thread.join()
    out.put((latencies, used))


def cpu_seconds() -> float:
    """This process's CPU time so far (user + system, every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_window(start: float, end: float) -> float:
    """The CPU this process spends from `start` to `end` (monotonic times); waits for `end`."""
    time.sleep(max(0.0, start - time.monotonic()))
    began = cpu_seconds()
    time.sleep(max(0.0, end - time.monotonic()))
    return cpu_seconds() - began


def pg_async_writers(location: str, count: int, start: float, end: float, out: Queue[Any]) -> None:
    """`count` asyncio tasks in this process, each appending to its encounter of the 64 in
    turn as `pg_writers`' threads do, through one AsyncLedger per tenant (pool_size 4)."""
    latencies: list[float] = []

    async def run() -> None:
        ledgers = {
            f"guild:{t}": AsyncLedger(location, tenant=f"guild:{t}", pool_size=4)
            for t in range(PG_TENANTS)
        }

        async def write(writer: int) -> None:
            mine = range(writer, PG_ENCOUNTERS, count)
            targets = [(ledgers[f"guild:{n % PG_TENANTS}"], f"e{n:02d}") for n in mine]
            for ledger, name in targets:
                await ledger.open(name, "ssss")
                for n in range(5):
                    await ledger.record(name, {"type": "note", "text": f"warm {n}"})
            await asyncio.sleep(max(0.0, start - time.monotonic()))
            for n, (ledger, name) in enumerate(itertools.cycle(targets)):
                began = time.monotonic()
                if began >= end:
                    break
                await ledger.record(name, {"type": "note", "text": f"{ledger.tenant}/{name}/{n}"})
                done = time.monotonic()
                if done <= end:
                    latencies.append(done - began)

        try:
            await asyncio.gather(*(write(n) for n in range(count)))
        finally:
            for ledger in ledgers.values():
                await ledger.aclose()

    used: list[float] = []
    watcher = threading.Thread(target=lambda: used.append(cpu_window(start, end)))
    watcher.start()
    asyncio.run(run())
    watcher.join()
    out.put((latencies, used[0]))


#: The name the benchmark's connections give the server, so that its CPU is told apart from
#: that of other clients of the same server (on a shared machine, other tests).
PG_APPLICATION = "encounter-bench"


def pg_backends(server: str) -> list[int]:
    """The process ids of the server's backends serving the benchmark's connections."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        found = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (PG_APPLICATION,)
        ).fetchall()
    return [int(pid) for (pid,) in found]


def process_cpu(pid: int) -> float:
    """A process's CPU seconds so far (user + system), 0 once it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rpartition(")")[2].split()
    # After the name: state(0) ppid ... utime(11) stime(12), in clock ticks.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class PgRun:
    """One load: the latency of every append in the window, and the CPU seconds the writers
    and the server spent in it."""

    def __init__(self, latencies: list[float], client_cpu: float, server_cpu: float) -> None:
        self.latencies = latencies
        self.client_cpu = client_cpu
        self.server_cpu = server_cpu


def pg_load(
    server: str,
    writers: int,
    seconds: float,
    notify: bool = False,
    processes: int = PG_PROCESSES,
    asynchronous: bool = False,
) -> PgRun:
    """Every append `writers` writers made in `seconds` on a fresh schema, over `processes`
    forked processes (threads each; `asynchronous`: asyncio tasks in one process)."""
    from tests.stores import PgBackend

    pg = PgBackend(server)
    pg.location += f"&application_name={PG_APPLICATION}"
    context = multiprocessing.get_context("fork")
    try:
        with Ledger(pg.location) as owner:  # the owner's first write makes the tables
            owner.open("setup", "ssss")
        out: Queue[Any] = context.Queue()
        start = time.monotonic() + 2 + PG_ENCOUNTERS * 0.1 / min(writers, processes)
        end = start + seconds
        if asynchronous:
            children = [
                context.Process(
                    target=pg_async_writers, args=(pg.location, writers, start, end, out)
                )
            ]
        else:
            children = [
                context.Process(
                    target=pg_writers,
                    args=(pg.location, range(p, writers, processes), writers),
                    kwargs={"start": start, "end": end, "notify": notify, "out": out},
                )
                for p in range(min(writers, processes))
            ]
        for child in children:
            child.start()
        # The server's CPU in the window: its backends serving the benchmark's connections
        # (the pools keep theirs open), each from the start or from when it was first seen.
        time.sleep(max(0.0, start - time.monotonic()))
        began = {pid: process_cpu(pid) for pid in pg_backends(server)}
        time.sleep(max(0.0, end - time.monotonic()))
        served = sum(process_cpu(pid) - began.get(pid, 0.0) for pid in pg_backends(server))
        results = [out.get(timeout=seconds + 120) for _ in children]
        for child in children:
            child.join(30)
        latencies = [t for found, _ in results for t in found]
        return PgRun(latencies, sum(used for _, used in results), served)
    finally:
        pg.close()


def bench_pg(b: Bench, reps: Reps) -> None:
    """Throughput of 64 writers (each its own encounter of 64, in 8 tenants) against 1 (which
    appends to the 64 in turn), each appending one note after another for a few seconds, and
    the same 64 with NOTIFY on; p50/p99 append latency beside them. The figure is the store's
    seconds per append (the span over the appends), whose ratio is the throughput's. Beside
    pg_scale_64_vs_1: the CPU seconds an append costs the writers and the server (measured in
    the window), and the ratio this machine's cores allow at that cost. Then 64 asyncio tasks
    on AsyncLedger against 64 threads, each in one process."""
    ids = ("pg_scale_64_vs_1", "pg_notify_on_vs_off", "pg_async_vs_threads")
    server = pg_server()
    if server is None:
        for id in ids:
            b.skip(id, "no PostgreSQL: set ENCOUNTER_TEST_PG to a server's URL")
        return
    seconds = 4.0 if reps.quick else 8.0
    runs: dict[str, dict[str, Any]] = {
        "1": {"writers": 1},
        "64": {"writers": 64},
        "64 notify": {"writers": 64, "notify": True},
        "64 threads, 1 process": {"writers": 64, "processes": 1},
        "64 tasks, 1 process": {"writers": 64, "processes": 1, "asynchronous": True},
    }
    took: dict[str, list[PgRun]] = {name: [] for name in runs}
    for _ in range(reps(3, 1)):
        for name, options in runs.items():
            took[name].append(pg_load(server, seconds=seconds, **options))

    def per_append(name: str) -> float:
        return statistics.median(seconds / len(run.latencies) for run in took[name])

    def percentiles(name: str) -> dict[str, float]:
        both = [
            statistics.quantiles(run.latencies, n=100)[i] for run in took[name] for i in (49, 98)
        ]
        return {
            f"{name} p50 ms": statistics.median(both[0::2]) * 1000,
            f"{name} p99 ms": statistics.median(both[1::2]) * 1000,
            f"{name} appends/s": 1 / per_append(name),
        }

    def cpu(name: str) -> dict[str, float]:
        client = statistics.median(r.client_cpu / len(r.latencies) for r in took[name])
        served = statistics.median(r.server_cpu / len(r.latencies) for r in took[name])
        return {f"{name} client cpu ms/append": client * 1000,
                f"{name} server cpu ms/append": served * 1000}  # fmt: skip

    cores = float(os.cpu_count() or 0)
    spent = cpu("64")
    per = sum(spent.values()) / 1000
    single = statistics.median(statistics.median(r.latencies) for r in took["1"])
    b.add(
        "pg_scale_64_vs_1",
        per_append("64"),
        per_append("1"),
        detail={
            **percentiles("1"),
            **percentiles("64"),
            **cpu("1"),
            **spent,
            "cores": cores,
            # The most the ratio can be here: the cores' appends per second at the CPU an
            # append costs, over one writer's (whose appends follow each other).
            "bound cores x single latency / cpu per append": cores * single / per,
        },
    )
    b.add(
        "pg_notify_on_vs_off",
        per_append("64 notify"),
        per_append("64"),
        detail=percentiles("64 notify"),
    )
    b.add(
        "pg_async_vs_threads",
        per_append("64 tasks, 1 process"),
        per_append("64 threads, 1 process"),
        detail={
            **percentiles("64 threads, 1 process"),
            **percentiles("64 tasks, 1 process"),
            **cpu("64 threads, 1 process"),
            **cpu("64 tasks, 1 process"),
        },
    )


def fsync_time(folder: Path) -> float:
    """The disk's own cost of a durable write (4 KiB and fdatasync), the floor of an append."""
    path = folder / "fsync.probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    took = []
    try:
        for n in range(30):
            os.pwrite(fd, b"x" * 4096, (n % 16) * 4096)
            took.append(timed(lambda: os.fdatasync(fd)))
    finally:
        os.close(fd)
        path.unlink()
    return statistics.median(took)


def floors(folder: Path) -> dict[str, float]:
    """What no work here can go below: an interpreter that starts and does nothing, one that
    imports typer and pydantic (the command line and the events), and a durable write."""
    python = str(BIN / "python")
    took = interleaved(
        {
            "python -c pass": lambda: run([python, "-c", "pass"]),
            "import typer, pydantic": lambda: run([python, "-c", "import typer, pydantic"]),
        },
        9,
    )
    return {**took, "fdatasync 4 KiB": fsync_time(folder)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--only", help="run only the steps whose names hold this text")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the commands' instructions (valgrind) instead of timing them",
    )
    args = parser.parse_args()
    reps = Reps(args.quick)
    b = Bench()
    folder = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
    started = time.perf_counter()
    load = os.getloadavg()[0]
    es = have_eventsourcing()
    steps: dict[str, Callable[[], None]] = {
        "cli": lambda: (
            bench_cli_instructions(b, folder) if args.instructions else bench_cli(b, folder, reps)
        ),
        "write": lambda: bench_write_cli(b, folder, reps),
        "campaign": lambda: bench_campaign(b, reps),
        "append": lambda: (
            bench_append(b, folder, reps)
            if es
            else b.skip("append_vs_eventsourcing", "pip install -e '.[bench]'")
        ),
        "import": lambda: (
            bench_import(b, folder, reps)
            if es
            else b.skip("import_vs_eventsourcing", "pip install -e '.[bench]'")
        ),
        "memory": lambda: bench_memory(b),
        "report": lambda: bench_report(b, folder, reps),
        "fold": lambda: bench_fold(b, reps),
        "pg": lambda: bench_pg(b, reps),
    }
    try:
        floor = floors(folder)
        for name, step in steps.items():
            if args.only is None or args.only in name:
                step()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = time.perf_counter() - started
    if args.json:
        document = {
            "seconds": round(elapsed, 1),
            "quick": args.quick,
            "load_at_start": round(load, 2),
            "floors": {k: round(v, 6) for k, v in floor.items()},
            "results": b.rows,
        }
        print(json.dumps(document, indent=2))
        return
    print("| id | benchmark | ours | reference | ratio | goal | met |")
    print("|---|---|---|---|---|---|---|")
    for r in b.rows:
        if r["ours"] is None:
            print(f"| `{r['id']}` | {r['benchmark']} | | | | {r['goal']} | {r['skipped']} |")
            continue
        met = "yes" if r["met"] else "**no**"
        ref = "" if r["reference"] is None else f"{r['reference']:.4g} {r['unit']}"
        print(
            f"| `{r['id']}` | {r['benchmark']} | {r['ours']:.4g} {r['unit']} | {ref} | "
            f"{r['ratio']:.3g} | {r['goal']} | {met} |"
        )
    for r in b.rows:
        if r.get("detail"):
            shown = ", ".join(f"{k} {v:.4g}" for k, v in r["detail"].items())
            print(f"\n`{r['id']}`: {shown}")
    shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in floor.items())
    print(f"\n({elapsed:.0f} s; medians; floors: {shown}; load {load:.2f} at the start)")


if __name__ == "__main__":
    main()
