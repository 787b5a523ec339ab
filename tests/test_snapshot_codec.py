"""The snapshot codec's format (`ledger.snapshot_codec`): what a long fight's snapshot holds once,
and which texts the cache refuses to read (an older version's, a damaged one).

A snapshot reads back to the very state it was encoded from; a text of another version, or one
that refers to what it does not hold, is `Unknown`, and the cache folds from the log instead and
writes the snapshot anew.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger, events, snapshot_codec
from projections import core
from projections.fates_edge_model import FatesEdgeState, FELock, FEStake
from tests.longstreams import fates_edge_stream, lines
from tests.stores import Backend, reseal

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).parent.parent / "examples"
EXAMPLE = EXAMPLES / "fates-edge-ambush.jsonl"
#: `examples/fates-edge-ambush.jsonl` folded, as the codec of format "snapshot/2" wrote it.
SNAPSHOT_2 = FIXTURES / "snapshot-2" / "fates-edge-ambush.json"


def long_fight(events: int = 700) -> FatesEdgeState:
    with Ledger(":memory:") as ledger:
        ledger.import_lines(lines(fates_edge_stream(events)), into="ford")
        state = ledger.refold("ford")
    assert isinstance(state, FatesEdgeState)
    return state


@pytest.mark.parametrize(
    ("example", "stake", "lock"),
    [
        ("fates-edge-ambush", FEStake, FELock),
        ("silken-blade", FEStake, FELock),
        ("ironsworn-ambush", core.Stake, core.Lock),
    ],
)
def test_each_stake_a_fold_keeps_holds_the_terms_of_its_first_lock(
    example: str, stake: type[core.Stake], lock: type[core.Lock]
) -> None:
    played = (EXAMPLES / f"{example}.jsonl").read_text(encoding="utf-8").splitlines()
    first = next((json.loads(line) for line in played if '"stakes.locked"' in line), None)
    if first is None:  # the Ironsworn example locks no stakes of its own
        first = {"type": "stakes.locked", "stake": "ford", "actor": "Kira", "target": "Raider"}
        played.append(json.dumps(first))
    # The same stake locked again: the first lock stands.
    again = {"type": "stakes.locked", "stake": first["stake"], "actor": first["actor"]}
    played.append(json.dumps({**again, "intent": "again"}))
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(played)
        state = ledger.refold(imported.encounter)
        records = {r.seq: r.event for r in ledger.records(imported.encounter)}
    locks = [(seq, e) for seq, e in records.items() if isinstance(e, events.StakesLocked)]
    assert len(locks) > len(state.stakes) > 0  # stakes locked again among them
    firsts = {event.stake: seq for seq, event in reversed(locks)}
    assert list(state.stakes) == [event.stake for seq, event in locks if firsts[event.stake] == seq]
    for name, kept in state.stakes.items():
        event = records[kept.seq]
        assert type(kept) is stake and type(kept.lock) is lock
        assert (kept.seq, kept.lock.stake) == (firsts[name], name)
        assert {f: getattr(event, f) for f in lock.__struct_fields__} == core.fields_of(kept.lock)
    # The terms, not the events: a snapshot holds no lock event to validate again.
    assert '"stakes.locked"' not in snapshot_codec.encode(state)


def test_a_long_fights_snapshot_holds_each_resolving_roll_once_as_its_place_in_the_log() -> None:
    state = long_fight()
    assert len(state.rolled) > 200
    document = json.loads(snapshot_codec.encode(state))
    version, system, rest, refs, rolls = document
    assert (version, system, rest["rolled"]) == ("snapshot/3", "fates-edge", {})
    [rolled] = refs
    assert list(rolled) == list(state.rolled)
    assert all(rolls[at][1] == state.rolled[stake].seq for stake, at in rolled.items())
    again = snapshot_codec.decode(snapshot_codec.encode(state))
    assert isinstance(again, FatesEdgeState)
    assert again == state and again.view() == state.view()
    assert list(again.rolled) == list(state.rolled)
    # Read back as the log's own rolls, not as copies of them.
    assert all(any(r is roll for r in again.rolls) for roll in again.rolled.values())


def test_a_resolving_roll_the_log_does_not_hold_is_written_whole_and_reads_back() -> None:
    state = long_fight(60)
    stake = next(iter(state.rolled))
    other = core.replace(state.rolled[stake], outcome="success", successes=9)
    changed = core.replace(state, rolled=core.with_entry(state.rolled, stake, other))
    document = json.loads(snapshot_codec.encode(changed))
    assert document[3][0][stake] == json.loads(json.dumps(core.builtins(other)))
    again = snapshot_codec.decode(snapshot_codec.encode(changed))
    assert again == changed and again != state
    assert snapshot_codec.encode(again) == snapshot_codec.encode(changed)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda doc: doc[3][0].update({"s0": len(doc[4])}), "a roll it does not hold"),
        (lambda doc: doc[3][0].update({"s0": -1}), "does not read back"),
        (lambda doc: doc[3][0].update({"s0": "0"}), "does not read back"),
        (lambda doc: doc[3].append({}), "does not read back"),
        (lambda doc: doc[2].update({"rolled": {"s0": doc[4][0]}}), "roll mappings apart"),
        (lambda doc: doc.append([]), "version"),
    ],
    ids=["past-the-log", "negative", "not-a-place", "extra-mapping", "inline", "extra-part"],
)
def test_a_snapshot_whose_roll_references_are_damaged_does_not_read_back(
    damage: Callable[[list[Any]], None], why: str
) -> None:
    document = json.loads(snapshot_codec.encode(long_fight(60)))
    damage(document)
    with pytest.raises(snapshot_codec.Unknown, match=why):
        snapshot_codec.decode(json.dumps(document))


def test_a_snapshot_of_the_previous_format_is_unknown() -> None:
    old = SNAPSHOT_2.read_text(encoding="utf-8").strip()
    assert old.startswith('["snapshot/2","fates-edge",{')
    with pytest.raises(snapshot_codec.Unknown, match="version"):
        snapshot_codec.decode(old)


def stored_snapshots(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT seq, state FROM cache_snapshots ORDER BY seq").fetchall()
    conn.close()
    return rows


def test_a_file_holding_a_previous_format_snapshot_folds_from_the_log_and_stores_it_anew(
    tmp_path: Path, folded: list[int]
) -> None:
    path = tmp_path / "old.db"
    with Ledger(path) as ledger:
        imported = ledger.import_lines(EXAMPLE.read_text(encoding="utf-8").splitlines())
        state = ledger.refold(imported.encounter)
    [(seq, text)] = stored_snapshots(path)
    assert seq == state.seq and text == snapshot_codec.encode(state)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE cache_snapshots SET state = ?", (SNAPSHOT_2.read_text().strip(),))
        conn.execute("DELETE FROM cache_views")  # so that `tracks` folds
    conn.close()
    folded.clear()
    with Ledger(path) as ledger:
        assert ledger.tracks(imported.encounter) == state
        assert folded[0] == 2  # from the log's start: the old snapshot was not read
        ledger.warm_cache(imported.encounter)
    [(_, text)] = stored_snapshots(path)
    assert text == snapshot_codec.encode(state)
    folded.clear()
    with Ledger(path) as ledger:
        assert ledger.tracks(imported.encounter) == state
    assert folded == []


def test_previous_format_snapshots_are_ignored_and_the_next_write_stores_its_own(
    backend: Backend, folded: list[int]
) -> None:
    def snapshots() -> list[tuple[int, str]]:
        return [
            (seq, text)
            for seq, text in backend.execute(
                "SELECT seq, state FROM cache_snapshots WHERE encounter = 'ford' ORDER BY seq"
            )
        ]

    with backend.ledger() as ledger:
        ledger.import_lines(lines(fates_edge_stream(1000)), into="ford")
        state = ledger.refold("ford")
    assert [seq for seq, _ in snapshots()] == [256, 512, 768, 1000]
    for seq, text in snapshots():  # each as the previous format's tag reads now
        old = text.replace(f'"{snapshot_codec.VERSION}"', '"snapshot/2"', 1)
        backend.execute("UPDATE cache_snapshots SET state = ? WHERE seq = ?", (old, seq))
    reseal(backend)  # as that format's writer sealed them: their version is what is refused
    backend.execute("DELETE FROM cache_views")  # so that `tracks` folds
    folded.clear()
    with backend.ledger() as ledger:
        assert ledger.tracks("ford") == state
        assert folded[0] == 2
        written = ledger.record("ford", {"type": "note", "text": "the fold's snapshots anew"})
    # The write folded from the log's start and stored its fold's snapshots in this format.
    assert [(seq, text[:14]) for seq, text in snapshots()] == [
        (256, '["snapshot/3",'),
        (512, '["snapshot/3",'),
        (768, '["snapshot/3",'),
        (1000, '["snapshot/2",'),
    ]
    backend.execute("DELETE FROM cache_views")
    folded.clear()
    with backend.ledger() as ledger:
        assert ledger.tracks("ford") == written.state == ledger.refold("ford")
    assert (folded[0], folded[-1]) == (769, 1001)  # from the snapshot at 768


def test_an_earlier_files_clustered_snapshot_table_is_laid_out_anew_when_snapshots_are_stored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "clustered.db"
    with Ledger(path) as ledger:
        ledger.import_lines(lines(fates_edge_stream(300)), into="ford")
        folded = ledger.refold("ford")
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """CREATE TABLE old (encounter TEXT NOT NULL, seq INTEGER NOT NULL,
                hash TEXT NOT NULL, gone TEXT NOT NULL, state TEXT NOT NULL,
                PRIMARY KEY (encounter, seq)) WITHOUT ROWID;
            INSERT INTO old SELECT encounter, seq, hash, gone, state FROM cache_snapshots;
            DROP TABLE cache_snapshots;
            ALTER TABLE old RENAME TO cache_snapshots;"""
        )
    conn.close()
    with Ledger(path) as ledger:
        assert ledger.tracks("ford") == folded  # its rows have no digest: folded instead
        ledger.warm_cache("ford")
    with sqlite3.connect(path) as conn:
        [(schema,)] = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'cache_snapshots'"
        ).fetchall()
    conn.close()
    assert "WITHOUT ROWID" not in schema.upper()
    # The earlier rows are dropped with it; the fold from the start stored its own.
    assert [seq for seq, _ in stored_snapshots(path)] == [256, 300]
    with Ledger(path) as ledger:
        assert ledger.tracks("ford") == ledger.refold("ford") == folded
