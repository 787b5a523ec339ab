"""Where the time of the benchmark's missed figures goes: each stage measured alone, per event,
on the benchmark's own fixtures, beside the whole (and a PostgreSQL append's CPU, client and
server, when the server binaries are installed). Not collected by pytest; run by hand:

    .venv/bin/python tests/perf/breakdown.py          # a table per figure
    .venv/bin/python tests/perf/breakdown.py --json   # the same as JSON

`floor` is the sum of the stages a figure cannot do without (what the figure is defined to do,
and the chain check every read makes); the ratio it would give is beside the one measured.
"""

from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger.chainhash import hash_text
from ledger.rows import now_utc, recorded, timestamp
from ledger.session import CHECKPOINT_EVERY
from projections.registry import RULESETS

from ledger import Ledger, chain, events, headview, pgstore, rowdigest, store, systems
from projections import audit, core
from tests import pgcluster
from tests.longstreams import lines, skirmish
from tests.perf.bench import (
    ROWS,
    first_hit,
    fixture,
    fresh,
    fsync_time,
    raw_appends,
    raw_connection,
    stored_rows,
)
from tests.perf.bench_stores import CONTEXT, WRITERS, per_append, together

Row = tuple[Any, ...]


def best(run: Callable[[], Any], times: int = 5) -> float:
    """The fastest of `times` runs, in seconds (the least disturbed by the rest of the machine)."""
    took = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        took.append(time.perf_counter() - start)
    return min(took)


def spin(seconds: float) -> None:
    """Keep the CPU busy for `seconds` (a stand-in for work between two commits)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def envelopes(rows: list[Row], parsed: list[events.Event]) -> list[events.Recorded]:
    """The records of stored rows whose events are parsed already."""
    return [
        recorded(r[0], r[1], r[2], r[4], r[6], r[7], e) for r, e in zip(rows, parsed, strict=True)
    ]


def replay(path: Path, encounter: str) -> dict[str, float]:
    """A full refold: read, validate, check the chain, build the records, fold."""
    rows = stored_rows(path, encounter)
    system = json.loads(rows[0][5])["system"]
    conn = sqlite3.connect(path)
    query = f"SELECT {ROWS} FROM events WHERE encounter = ? ORDER BY seq"
    parsed = [events.read_stored(r[3], r[5], system)[0] for r in rows]
    records = [
        recorded(*r[:2], r[2], r[4], r[6], r[7], e) for r, e in zip(rows, parsed, strict=True)
    ]
    with Ledger(path) as ledger:
        stages = {
            "raw: SELECT + json.loads": best(
                lambda: [json.loads(r[5]) for r in conn.execute(query, (encounter,))]
            ),
            "SELECT": best(lambda: conn.execute(query, (encounter,)).fetchall()),
            "validate (the event's model)": best(
                lambda: [events.read_stored(r[3], r[5], system) for r in rows]
            ),
            "chain check (hash each row)": best(
                lambda: [hash_text(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]
            ),
            "envelope (events.Recorded)": best(
                lambda: [
                    recorded(*r[:2], r[2], r[4], r[6], r[7], e)
                    for r, e in zip(rows, parsed, strict=True)
                ]
            ),
            "fold (projections.core.fold)": best(lambda: core.fold(RULESETS, records)),
            "ours: Ledger.refold": best(lambda: ledger.refold(encounter)),
        }
    conn.close()
    floor = ("SELECT", "validate (the event's model)", "chain check (hash each row)")
    return _per_event(stages, len(rows), (*floor, "fold (projections.core.fold)"))


def import_lines(folder: Path, count: int) -> dict[str, float]:
    """An import of JSON Lines: parse and validate, encode and hash, fold, insert."""
    source = list(lines(skirmish(count)))
    items = [json.loads(t) for t in source]
    system = items[0]["system"]

    def ours() -> None:
        with Ledger(fresh(folder, "import.db")) as ledger:
            ledger.import_lines(source, into="big")

    parsed = [events.parse(dict(i), system) for i in items]
    bodies = [events.body_of(e) for e in parsed]
    texts = [chain.canonical(b, True) for b in bodies]
    rows = [
        ("big", n, chain.new_id(), i["type"], "2026-01-01T00:00:00.000000Z", t, "0" * 64, "0" * 64)
        for n, (i, t) in enumerate(zip(items, texts, strict=True), start=1)
    ]
    with Ledger(fresh(folder, "import-once.db")) as ledger:
        ledger.import_lines(source, into="big")
        records = ledger.store.records("big")
    now = core.standing_at(records)

    def insert() -> None:
        conn = raw_connection(fresh(folder, "import-raw.db"))
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(f"INSERT INTO events ({ROWS}) VALUES (?,?,?,?,?,?,?,?)", rows)
        conn.execute("COMMIT")
        conn.close()

    stages = {
        "json.loads": best(lambda: [json.loads(t) for t in source]),
        "validate (events.parse)": best(lambda: [events.parse(dict(i), system) for i in items]),
        "dump + canonical text": best(
            lambda: [chain.canonical(events.body_of(e), True) for e in parsed]
        ),
        "chain hash": best(lambda: [hash_text(*r[:6], r[6]) for r in rows]),
        "fold (with its undos)": best(
            lambda: core.fold(RULESETS, records, corrected_today=bool(now.fixes))
        ),
        "insert (executemany, one commit)": best(insert),
        "ours: Ledger.import_lines": best(ours, 3),
    }
    floor = (
        "json.loads",
        "validate (events.parse)",
        "dump + canonical text",
        "chain hash",
        "fold (with its undos)",
        "insert (executemany, one commit)",
    )
    return _per_event(stages, len(source), floor)


def append(folder: Path, count: int) -> dict[str, float]:
    """A durable append, one event a transaction: its commit, its statements and its CPU."""
    stream = list(skirmish(count + 15))
    start_file = folder / "append-start.db"
    with Ledger(fresh(folder, start_file.name)) as ledger:
        ledger.import_lines(list(lines(iter(stream[:15]))), into="a")
    statements: list[str] = []

    def ours(durable: bool, trace: bool = False) -> float:
        path = fresh(folder, "append.db")
        path.write_bytes(start_file.read_bytes())
        with Ledger(path) as ledger:
            ledger.record("a", stream[15])  # the file opened and the encounter folded once
            if not durable:
                ledger.store.conn.execute("PRAGMA synchronous=OFF")
            if trace:
                ledger.store.conn.set_trace_callback(statements.append)
                pages.append(wal_pages(ledger.store.conn, path, empty_first=True))
            start = time.perf_counter()
            for item in stream[16:]:
                ledger.record("a", item)
            took = (time.perf_counter() - start) / (count - 1)
            if trace:
                pages[-1] = (wal_pages(ledger.store.conn, path) - pages[-1]) / (count - 1)
            return took

    def replayed(
        durable: bool, busy: float = 0.0, work: list[Callable[[], None]] | None = None
    ) -> float:
        # The ledger's own statements (as sqlite ran them, values inlined), on the same file
        # from the same start, without any of the Python that chose them; with `busy`, a loop
        # spinning that many seconds before each transaction (the CPU an append spends); with
        # `work`, one job of it run before each transaction instead.
        path = fresh(folder, "append-replayed.db")
        path.write_bytes(start_file.read_bytes())
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
        with Ledger(path) as ledger:
            ledger.record("a", stream[15])
        jobs = iter(work or ())
        start = time.perf_counter()
        for sql in statements:
            if sql == "BEGIN IMMEDIATE":
                if busy:
                    spin(busy)
                if work:
                    next(jobs)()
            conn.execute(sql)
        took = (time.perf_counter() - start) / (count - 1)
        conn.close()
        return took

    def raw(durable: bool, count_pages: bool = False) -> float:
        with Ledger(fresh(folder, "append-rows.db")) as ledger:
            ledger.import_lines(list(lines(iter(stream))), into="a")
        rows = stored_rows(folder / "append-rows.db", "a")[16:]
        path = fresh(folder, "append-raw.db")
        conn = raw_connection(path)
        if not durable:
            conn.execute("PRAGMA synchronous=OFF")
        if count_pages:
            raw_appends(conn, rows[:1])
            start = wal_pages(conn, path, empty_first=True)
            raw_appends(conn, rows[1:])
            pages.append((wal_pages(conn, path) - start) / (len(rows) - 1))
            conn.close()
            return 0.0
        took = raw_appends(conn, rows)
        conn.close()
        return took

    pages: list[float] = []
    ours(False, trace=True)
    raw(False, count_pages=True)
    shape = sum(1 for s in statements if s != "BEGIN IMMEDIATE") / (count - 1)
    stages = {
        "fdatasync (raw, one page)": fsync_time(folder, 50),
        "raw: insert + commit, durable": min(raw(True) for _ in range(3)),
        "raw: insert + commit, no fsync": min(raw(False) for _ in range(3)),
        "the ledger's statements replayed raw, durable": min(replayed(True) for _ in range(3)),
        "the ledger's statements replayed raw, no fsync": min(replayed(False) for _ in range(3)),
        "ours: Ledger.record, no fsync (its CPU)": min(ours(False) for _ in range(3)),
        "ours: Ledger.record, durable": min(ours(True) for _ in range(3)),
    }
    # Our Python alone (its CPU less its statements'), spent by a plain loop between the
    # statements' commits: what an append of this much work costs on this disk, whoever does it.
    python = stages["ours: Ledger.record, no fsync (its CPU)"]
    python -= stages["the ledger's statements replayed raw, no fsync"]
    stages["the statements replayed durable, our CPU spun between"] = min(
        replayed(True, busy=python) for _ in range(3)
    )
    path = fresh(folder, "append-work.db")
    path.write_bytes(start_file.read_bytes())
    with Ledger(path) as ledger:
        ledger.record("a", stream[15])
    jobs = contract_work(path, "a", stream[16:])
    stages["the contract's own work alone (validate, fold, audit, hash, view text)"] = best(
        lambda: [job() for job in jobs]
    ) / (count - 1)
    stages["the statements replayed durable, the contract's own work between"] = min(
        replayed(True, work=jobs) for _ in range(3)
    )
    lean_path = fresh(folder, "append-lean.db")
    stages["lean: the same statements and work, no glue, no fsync"] = min(
        lean(lean_path, start_file, stream[15:], durable=False) for _ in range(3)
    )
    stages["lean: the same statements and work, no glue, durable"] = min(
        lean(lean_path, start_file, stream[15:], durable=True) for _ in range(3)
    )
    stages["lean, and what a write owes besides, no fsync"] = min(
        lean(lean_path, start_file, stream[15:], durable=False, owed=True) for _ in range(3)
    )
    stages["lean, and what a write owes besides, durable"] = min(
        lean(lean_path, start_file, stream[15:], durable=True, owed=True) for _ in range(3)
    )
    table = {k: v * 1e6 for k, v in stages.items()}
    table["statements an append runs (besides BEGIN)"] = shape
    table["WAL pages a commit writes: ours"] = pages[0]
    table["WAL pages a commit writes: raw insert"] = pages[1]
    return table


def contract_work(
    path: Path, encounter: str, items: list[dict[str, Any]]
) -> list[Callable[[], None]]:
    """For each event appended to the encounter after the file at `path`, the work no append
    of it can do without, on the state before it: validate the event, fold it on the head,
    audit it, encode and hash its body, and encode the head view's rows it changes. None of
    the ledger's glue (the session, the transaction, the result)."""
    with Ledger(path) as ledger:
        state = ledger.tracks(encounter)
    rules, system, stamp = RULESETS[state.system], state.system, "2026-01-01T00:00:00.000000Z"

    def job(before: core.State, seq: int, item: dict[str, Any]) -> core.State:
        event = events.parse(item, system)
        after = core.replace(core.advance(rules, before, seq, event), seq=seq)
        probe = recorded(encounter, seq, "", "", "", "", event)
        audit.for_event(rules, before, probe, after, {})
        body = chain.canonical(events.body_of(event), events.float_free(type(event)))
        chain.hash_text(encounter, seq, chain.new_id(), events.type_of(event), stamp, body, "")
        headview.head_row(after)
        headview.changed_rows(before, after)
        return after

    jobs: list[Callable[[], None]] = []
    for seq, item in enumerate(items, start=state.seq + 1):
        jobs.append(functools.partial(job, state, seq, item))
        state = job(state, seq, item)
    return jobs


def lean(
    path: Path,
    start: Path,
    items: list[dict[str, Any]],
    *,
    durable: bool,
    owed: bool = False,
) -> float:
    """An append with nothing but what the contract asks of it, one event a transaction, on a
    copy of `start`: the head read under the write lock, the event validated, folded, audited,
    encoded and hashed, inserted with the head view's rows it changes and the heads row, then
    committed (the statements the ledger runs, with parameters). With `owed`, also what the
    ledger's write owes its other promises, done as plainly: the file's identity checked, the
    heads row checked against the last stored row, the event's system checked, the last
    stored roll read, the states an undo refolds from kept, and a result. Its time per append,
    after the first (which opens the file and folds)."""
    path.write_bytes(start.read_bytes())
    with Ledger(path) as ledger:
        ledger.record("a", items[0])
        state = ledger.tracks("a")
        conn = ledger.store.conn
        conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
        tables = ledger.store.cache_db
        rules, system = RULESETS[state.system], state.system
        identity = os.stat(path)
        recent: deque[tuple[int, core.State]] = deque(maxlen=32)
        checkpoints: list[tuple[int, core.State]] = []
        begun = time.perf_counter()
        for item in items[1:]:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute(store._WRITE_HEAD, ("a", "a")).fetchone()
            seq, prev = row[3] + 1, row[4]
            if owed:
                now = os.stat(path)
                assert (now.st_dev, now.st_ino) == (identity.st_dev, identity.st_ino)
                assert (row[3], row[4]) == (row[8], row[9]) and row[7] == row[3]
                systems.refuse_other("a", system, None, item["type"])
                tables.last_roll("a")
            event = events.parse(item, system)
            after = core.replace(core.advance(rules, state, seq, event), seq=seq)
            probe = recorded("a", seq, "", "", "", "", event)
            audit.for_event(rules, state, probe, after, {})
            kind, stamp, id_ = events.type_of(event), timestamp(now_utc()), chain.new_id()
            body = chain.canonical(events.body_of(event), events.float_free(type(event)))
            digest = chain.hash_text("a", seq, id_, kind, stamp, body, prev)
            conn.execute(store._INSERT, ("a", seq, id_, kind, stamp, body, prev, digest))
            top = headview.head_row(after)
            tables.move_view("a", (row[3], prev), (seq, digest), top, rows=False)
            changed = headview.changed_rows(state, after)
            if changed:
                tables.put_combatants("a", (seq, digest), changed, ())
            if after.rolls is not state.rolls:
                tables.put_rolls("a", [(len(after.rolls) - 1, after.rolls[-1].dump_json())], None)
            conn.execute(store._PUT_HEAD, (*row[:3], seq, digest, row[5], stamp, seq))
            conn.execute("COMMIT")
            if owed:
                recent.append((seq, after))
                if seq % CHECKPOINT_EVERY == 0:
                    checkpoints.append((seq, after))
                result = (state, recorded("a", seq, id_, stamp, prev, digest, event), after)
                assert result[1].seq == seq
            state = after
        took = (time.perf_counter() - begun) / (len(items) - 1)
    with Ledger(path) as ledger:  # the lean appends left a ledger the ledger agrees with
        assert ledger.verify("a")[0].ok and ledger.tracks("a").view() == state.view()
    return took


def wal_pages(conn: sqlite3.Connection, path: Path, empty_first: bool = False) -> float:
    """The WAL's length in pages; with `empty_first`, the WAL emptied first and not
    checkpointed again (so that the pages the commits after it write add up)."""
    if empty_first:
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = Path(f"{path}-wal").stat().st_size if Path(f"{path}-wal").exists() else 0
    (page,) = conn.execute("PRAGMA page_size").fetchone()
    return max(size - 32, 0) / (page + 24)


def undo(folder: Path) -> dict[str, float]:
    """An undo of the first hit: the downstream diff folds and audits both stories."""
    source = fixture("undo-10k.db", {"u": 10_000})
    hit = first_hit(source, "u")
    with Ledger(source) as ledger:
        records = ledger.store.records("u")
        refold = best(lambda: ledger.refold("u"))
    without = core.standing_at(records, without=[hit])

    def undone() -> float:
        path = fresh(folder, "undo.db")
        path.write_bytes(source.read_bytes())
        with Ledger(path) as ledger:
            start = time.perf_counter()
            ledger.undo("u", hit, reason="breakdown")
            return time.perf_counter() - start

    stages = {
        "reference: Ledger.refold": refold,
        "fold (as it stands)": best(lambda: core.fold(RULESETS, records, without=[hit])),
        "fold + audit, as it stood": best(lambda: audit.audit(RULESETS, records)),
        "fold + audit, as it stands": best(
            lambda: audit.audit_stream(RULESETS, records, without.gone | {hit}, ())
        ),
        "ours: Ledger.undo of the first hit": min(undone() for _ in range(3)),
    }
    return {k: v * 1e3 for k, v in stages.items()}


def _server_cpu() -> float:
    """CPU seconds of every PostgreSQL process on this machine so far (from /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            if not Path(proc, "comm").read_text().startswith("postgres"):
                continue
            fields = Path(proc, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def pg_append(folder: Path, count: int) -> dict[str, float] | None:
    """A PostgreSQL append's CPU, the client's and the server's: what several writers share the
    machine's cores for (None: no PostgreSQL here)."""
    if pgcluster.binaries() is None:
        return None
    cluster = Path(tempfile.mkdtemp(prefix="ledger-breakdown-pg-"))
    url = pgcluster.start(cluster, durable=True)
    try:
        stream = list(skirmish(count + 25))
        with Ledger(url) as ledger:
            ledger.import_lines(lines(iter(stream[:15])), into="cpu")
            for item in stream[15:25]:
                ledger.record("cpu", item)
            server, start, cpu = _server_cpu(), time.perf_counter(), time.process_time()
            for item in stream[25:]:
                ledger.record("cpu", item)
            wall = time.perf_counter() - start
            client, server = time.process_time() - cpu, _server_cpu() - server
            lean_wall, lean_client, lean_server = pg_lean(url, ledger, stream)
            fours = {
                "ours": statistics.median(per_append(url, WRITERS, count) for _ in range(3)),
                "lean": statistics.median(
                    pg_lean_writers(url, ledger, stream, WRITERS) for _ in range(3)
                ),
            }
    finally:
        pgcluster.stop(cluster)
    cores = os.cpu_count() or 1
    return {
        "one writer: wall": wall / count * 1e6,
        "client CPU (ours and psycopg)": client / count * 1e6,
        "server CPU (every postgres process)": server / count * 1e6,
        f"floor of many writers on {cores} cores: (client + server) / cores": (client + server)
        / count
        / cores
        * 1e6,
        "lean (the same statements and work through psycopg, no glue): wall": lean_wall * 1e6,
        "lean: client CPU": lean_client * 1e6,
        "lean: server CPU": lean_server * 1e6,
        f"lean: floor of many writers on {cores} cores": (lean_client + lean_server) / cores * 1e6,
        f"{WRITERS} writers at once, ours": fours["ours"] * 1e6,
        f"{WRITERS} writers at once, lean": fours["lean"] * 1e6,
    }


def pg_lean(url: str, ledger: Ledger, items: list[dict[str, Any]]) -> tuple[float, float, float]:
    """A PostgreSQL append with nothing but the statements the ledger sends (BEGIN, the lock,
    the head with the cache's privileges, the event, the head view's rows, the heads row,
    COMMIT; pipelined as the ledger does) and the contract's work between them, on an
    encounter of its own (the first 15 of `items` imported, the rest appended): (wall, client
    CPU, server CPU) per append."""
    state = _lean_start(ledger, "lean", items)
    server, cpu = _server_cpu(), time.process_time()
    took = _lean_appends(url, "lean", state, items[15:])
    client, server = time.process_time() - cpu, _server_cpu() - server
    n = len(items) - 15
    return took / n, client / n, server / n


def pg_lean_writers(url: str, ledger: Ledger, items: list[dict[str, Any]], writers: int) -> float:
    """Seconds per append (wall over all appends) of `writers` processes running `pg_lean`'s
    appends at once, one encounter each: as the benchmark's `pg_append_4_vs_sqlite` runs ours."""
    names = [f"lean-{uuid.uuid4().hex[:6]}-{n}" for n in range(writers)]
    states = {name: _lean_start(ledger, name, items) for name in names}
    start = CONTEXT.Barrier(writers)
    spans: Any = CONTEXT.Queue()

    def writer(name: str) -> None:
        start.wait()
        began = time.perf_counter()
        _lean_appends(url, name, states[name], items[15:])
        spans.put((began, time.perf_counter()))

    workers = [CONTEXT.Process(target=writer, args=(name,)) for name in names]
    return together(workers, spans) / (writers * (len(items) - 15))


def _lean_start(ledger: Ledger, name: str, items: list[dict[str, Any]]) -> core.State:
    ledger.import_lines(lines(iter(items[:15])), into=name, new_ids=True)
    return ledger.tracks(name)


def _lean_appends(url: str, name: str, state: core.State, items: list[dict[str, Any]]) -> float:
    """`pg_lean`'s appends of `items` to the encounter `name` (at `state`): their wall time."""
    import psycopg

    from ledger import pgcache, pgreads

    rules, system = RULESETS[state.system], state.system
    head_sql = pgreads.head_and_last(pgcache.USABLE)
    with psycopg.connect(url, autocommit=True) as conn:
        start = time.perf_counter()
        for item in items:
            with conn.pipeline():
                conn.execute("BEGIN")
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (pgstore._LOCK_CLASS, name)
                )
                row = conn.execute(head_sql, (name,)).fetchall()[0]
                seq, prev = row[8] + 1, row[9]
                event = events.parse(item, system)
                after = core.replace(core.advance(rules, state, seq, event), seq=seq)
                probe = recorded(name, seq, "", "", "", "", event)
                audit.for_event(rules, state, probe, after, {})
                kind, stamp, id_ = events.type_of(event), timestamp(now_utc()), chain.new_id()
                body = chain.canonical(events.body_of(event), events.float_free(type(event)))
                digest = chain.hash_text(name, seq, id_, kind, stamp, body, prev)
                conn.execute(pgstore._INSERT, (name, seq, id_, kind, stamp, body, prev, digest))
                top = headview.head_row(after)
                conn.execute(
                    "UPDATE cache_views SET seq = %s, hash = %s, view = %s, digest = %s "
                    "WHERE encounter = %s AND name = '' "
                    "RETURNING (SELECT max(n) FROM cache_rolls WHERE encounter = %s)",
                    (seq, digest, top, rowdigest.digest((name, "", seq, digest), top), name, name),
                ).fetchall()
                for combatant, text in headview.changed_rows(state, after):
                    row = rowdigest.view_row(name, combatant, (seq, digest), text)
                    conn.execute(pgcache._PUT_VIEW, row)
                conn.execute(pgstore._PUT_HEAD, (*row[:3], seq, digest, row[5], stamp, seq))
                conn.execute("COMMIT")
            state = after
        return time.perf_counter() - start


def _per_event(stages: dict[str, float], count: int, floor: tuple[str, ...]) -> dict[str, float]:
    table = {k: v / count * 1e6 for k, v in stages.items()}
    table["floor (the stages it cannot do without)"] = sum(table[k] for k in floor)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        figures = {
            "replay_full_vs_raw (us an event)": replay(fixture("undo-10k.db", {"u": 10_000}), "u"),
            "import_vs_raw (us a line)": import_lines(folder, 20_000),
            "append_vs_raw (us an append)": append(folder, 200),
            "undo_first_vs_fold (ms)": undo(folder),
        }
        pg = pg_append(folder, 500)
        if pg is not None:
            figures["pg_append_4_vs_sqlite (us an append)"] = pg
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for figure, table in figures.items():
        print(figure)
        for stage, value in table.items():
            print(f"  {stage:48} {value:10.2f}")


if __name__ == "__main__":
    main()
