"""The projection cache (`ledger.cache`): snapshots of the fold and the head view, a cache only.

Every read through the cache equals the fold of the log; a snapshot that no longer holds (its
event's hash changed, or a retraction reaches behind it) is ignored for an older one; deleting
the cache loses nothing; a cache that disagrees with the log is an audit finding.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from multiprocessing.synchronize import Barrier
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ledger import BadInput, Ledger, cache, cli, fastpath, headview, session, snapshot_codec
from projections import core, revisions
from projections.fates_edge_model import FatesEdgeState
from projections.registry import RULESETS
from tests.longstreams import lines, skirmish
from tests.stores import KINDS, Backend, SqliteBackend, open_backend, reseal
from tests.test_fuzz import CAST, FUZZ, STRATEGIES, Event

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.jsonl"))


def snapshot_seqs(store: Backend, encounter: str = "big") -> list[int]:
    rows = store.execute(
        "SELECT seq FROM cache_snapshots WHERE encounter = ? ORDER BY seq", (encounter,)
    )
    return [r[0] for r in rows]


def sql(store: Backend, statement: str, *args: Any) -> None:
    store.execute(statement, args)


@pytest.fixture
def big(backend: Backend) -> Backend:
    """A store with a 1,000-event skirmish `big`, imported (so cached as the ledger caches)."""
    with backend.ledger() as ledger:
        ledger.import_lines(lines(skirmish(1000)), into="big")
    return backend


def head_view_of(state: core.State) -> dict[str, Any]:
    """The head view as `headview.load_view` reads it back: `view_of` and the count of rolls."""
    return {**json.loads(json.dumps(headview.view_of(state))), "rolls": len(state.rolls)}


def fresh_tracks(store: Backend, encounter: str = "big") -> tuple[core.State, core.State]:
    """The tracks as a new process reads them (through the store's cache), and refolded."""
    with store.ledger() as ledger:
        return ledger.tracks(encounter), ledger.refold(encounter)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_snapshot_decodes_to_the_state_it_was_encoded_from(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        state = ledger.refold(imported.encounter)
    again = snapshot_codec.decode(snapshot_codec.encode(state))
    assert again == state
    assert type(again) is type(state)
    assert again.view() == state.view()
    assert snapshot_codec.encode(again) == snapshot_codec.encode(state)
    assert again.rules == state.rules and isinstance(again.rules, MappingProxyType)


def ambush_snapshot() -> list[Any]:
    example = next(p for p in EXAMPLES if p.stem == "fates-edge-ambush")
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        state = ledger.refold(imported.encounter)
    assert isinstance(state, FatesEdgeState)
    assert state.stakes and state.spends  # its locks' terms, and the spend events
    document: list[Any] = json.loads(snapshot_codec.encode(state))
    return document


def damages(field: str) -> pytest.MarkDecorator:
    """A bad value of `field`, a name that is not text, a value that is not an object."""
    return pytest.mark.parametrize(
        ("damage", "why"),
        [
            (lambda item: {**item, field: "heroic"}, field),
            (lambda item: {**item, "stake": 7}, "stake"),
            (lambda item: ["not", "an", "object"], "object"),
        ],
        ids=["bad-value", "bad-type", "not-an-object"],
    )


@damages("purpose")
def test_a_snapshot_holding_an_event_its_model_refuses_does_not_read_back(
    damage: Callable[[Any], Any], why: str
) -> None:
    document = ambush_snapshot()
    spend = next(iter(document[2]["spends"].values()))
    kind, body = spend
    assert kind == "sb.spent"
    spend[1] = damage(body)
    with pytest.raises(snapshot_codec.Unknown, match=why):
        snapshot_codec.decode(json.dumps(document))


@damages("position")
def test_a_snapshot_holding_a_lock_its_class_refuses_does_not_read_back(
    damage: Callable[[Any], Any], why: str
) -> None:
    document = ambush_snapshot()
    stake = next(iter(document[2]["stakes"].values()))
    assert stake["lock"]["stake"] == "ash-spear"  # the terms, not the event
    stake["lock"] = damage(stake["lock"])
    with pytest.raises(snapshot_codec.Unknown, match=why):
        snapshot_codec.decode(json.dumps(document))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_snapshot_matches_its_own_encoding_and_nothing_else(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        state = ledger.refold(imported.encounter)
    text = snapshot_codec.encode(state)
    assert snapshot_codec.matches(state, text)
    assert "".join(snapshot_codec.pieces(state)) == text
    middle = len(text) // 2
    for other in (text[:-1], text + " ", text[:middle] + "\u00e9" + text[middle + 1 :], ""):
        assert not snapshot_codec.matches(state, other)


def test_an_import_leaves_snapshots_every_256_seqs_and_at_its_end(big: Backend) -> None:
    assert snapshot_seqs(big) == [256, 512, 768, 1000]
    cached, folded = fresh_tracks(big)
    assert cached == folded
    assert cached.seq == 1000


def test_tracks_fold_only_the_tail_after_the_newest_snapshot(
    big: Backend, folded: list[int]
) -> None:
    with big.ledger() as ledger:
        ledger.record("big", {"type": "note", "text": "one more"})
    assert folded == [1001]  # the write folded only its own event, on seq 1000's snapshot
    folded.clear()
    with big.ledger() as ledger:
        assert ledger.tracks("big").seq == 1001
    assert folded == [1001]


def test_a_write_in_a_new_process_folds_only_the_tail_after_the_newest_snapshot(
    big: Backend, folded: list[int]
) -> None:
    for n in range(3):
        with big.ledger() as ledger:
            ledger.record("big", {"type": "harm.inflicted", "target": "Sage", "level": 1})
        # The tail after seq 1000 (a write keeps a snapshot every 256 seqs), then its event.
        assert folded == list(range(1001, 1002 + n))
        folded.clear()


def test_an_undo_in_a_new_process_refolds_from_a_snapshot_before_its_target(
    big: Backend, folded: list[int]
) -> None:
    with big.ledger() as ledger:
        result = ledger.undo("big", 900, reason="misread")
    # From the snapshot at 768, never from seq 1: as the stream stood and as it stands.
    assert folded and min(folded) == 769
    with big.ledger() as ledger:
        refolded = ledger.refold("big")
    assert result.state == refolded
    cached, fold = fresh_tracks(big)
    assert cached == fold == refolded


def test_each_write_refreshes_the_head_view_in_its_transaction(big: Backend) -> None:
    with big.ledger() as ledger:
        ledger.record("big", {"type": "harm.inflicted", "target": "Sage", "level": 1})
        ledger.record("big", {"type": "note", "text": "a note changes no track"})
        head = ledger.store.require("big")
        view = headview.load_view(ledger.store.cache_db, "big", (head.seq, head.hash))
        state = ledger.refold("big")
    assert view == head_view_of(state)
    assert view["seq"] == 1002
    assert view["combatants"]["Sage"]["harm"] == [1]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_rolls_stored_text_is_the_json_of_what_tracks_shows_of_it(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        state = ledger.refold(imported.encounter)
    for roll in state.rolls:
        assert json.loads(headview.roll_text(roll)) == roll.dump()
        assert list(json.loads(headview.roll_text(roll))) == list(roll.dump())  # in its order


def test_a_head_view_row_is_json_of_its_value_whatever_its_text_holds() -> None:
    # orjson writes the rows; text it refuses (a lone surrogate an old file may hold, an int
    # past 64 bits) is written by the standard library's encoder, so a write never fails on it.
    for value in ({"name": "Ogre", "harm": [1, 2]}, {"name": "\ud800"}, {"big": 2**70}):
        assert json.loads(headview._text(value)) == value


def test_a_rolled_back_write_leaves_the_cache_as_it_was(big: Backend) -> None:
    before = big.execute("SELECT name, seq, hash, view FROM cache_views ORDER BY name")
    with big.ledger() as ledger:
        done = ledger.undo("big", 600, reason="only looking", dry_run=True)
        assert done.downstream is not None
        with pytest.raises(BadInput):
            ledger.record("big", {"type": "harm.inflicted", "target": "Nobody", "level": 1})
    assert big.execute("SELECT name, seq, hash, view FROM cache_views ORDER BY name") == before
    assert snapshot_seqs(big) == [256, 512, 768, 1000]


def test_a_retraction_behind_snapshots_falls_back_to_an_older_one(big: Backend) -> None:
    with big.ledger() as ledger:
        ledger.undo("big", 600, reason="misread")  # seq 600 is a harm in the skirmish
        usable = cache.usable_snapshots(ledger.store.cache_db, "big", folded_gone(ledger))
    # The undo refolded from 512 and stored 768 anew; 1000 folded seq 600 and stands unused.
    assert snapshot_seqs(big) == [256, 512, 768, 1000]
    assert sorted(usable) == [256, 512, 768]
    cached, folded = fresh_tracks(big)
    assert cached == folded
    sql(big, "DELETE FROM cache_snapshots WHERE seq = 768")
    cached, folded = fresh_tracks(big)
    assert cached == folded


def folded_gone(ledger: Ledger) -> revisions.Standing:
    return revisions.standing(ledger.store.revisions("big", "ssss"))


def test_a_snapshot_whose_event_hash_changed_is_ignored(big: Backend) -> None:
    with big.ledger() as ledger:
        wrong = core.replace(ledger.refold("big"), title="not the log's")
    sql(big, "UPDATE cache_snapshots SET hash = ?, state = ? WHERE seq = 1000", "0" * 64,
        snapshot_codec.encode(wrong))  # fmt: skip
    reseal(big)  # its digest its content's: the event's hash alone makes it stale
    cached, folded = fresh_tracks(big)
    assert cached == folded
    with big.ledger() as ledger:
        assert [f.rule for f in ledger.audit("big") if f.rule == "cache-disagrees"] == []


@pytest.mark.parametrize(
    "state",
    [
        '["m", "os:system", {}, []]',
        '["m", "builtins:dict", {}, []]',
        '["m", "projections.ssss:SsssState", {"seq": 1}, []]',
        '["x"]',
        "not json",
    ],
)
def test_a_snapshot_of_an_unknown_class_or_shape_is_ignored(big: Backend, state: str) -> None:
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", state)
    reseal(big)  # the decoder refuses it, not its digest
    cached, folded = fresh_tracks(big)
    assert cached == folded


def test_deleting_the_cache_tables_loses_nothing(big: Backend) -> None:
    with big.ledger() as ledger:
        before = (ledger.refold("big"), ledger.audit("big"), list(ledger.export("big")))
        cache.drop(ledger.store.cache_db)
    with big.ledger() as ledger:
        assert ledger.tracks("big") == before[0]
        assert (ledger.refold("big"), ledger.audit("big"), list(ledger.export("big"))) == before
        ledger.record("big", {"type": "note", "text": "the next write rebuilds the cache"})
        ledger.undo("big", reason="and so does an undo")
        assert ledger.verify("big")[0].ok
    assert snapshot_seqs(big) == [256, 512, 768]  # the write's fold from scratch, kept
    cached, folded = fresh_tracks(big)
    assert cached == folded == core.replace(before[0], seq=1002)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        # As a snapshot of the first codec (`["m", "module:Class", fields, unset]`) reads now.
        (lambda text: '["m","projections.ssss:SsssState",' + text[21:-1] + ",[]]", "version"),
        (lambda text: text.replace(f'"{snapshot_codec.VERSION}"', '"snapshot/1"', 1), "version"),
        # As a snapshot of a system that is no longer installed reads.
        (lambda text: text.replace('"ssss"', '"gone"', 1), "unknown system 'gone'"),
        # As a snapshot of a state class whose combatants changed shape reads.
        (lambda text: text.replace('"class":"Player"', '"class":"Hero"', 1), "does not read back"),
    ],
    ids=["first-codec", "older-version", "unknown-system", "changed-class"],
)
def test_a_snapshot_of_another_codec_or_shape_is_skipped_for_an_older_one(
    big: Backend, folded: list[int], change: Callable[[str], str], why: str
) -> None:
    [(text,)] = big.execute("SELECT state FROM cache_snapshots WHERE seq = 1000")
    assert text.startswith(f'["{snapshot_codec.VERSION}","ssss",{{')
    old = change(text)
    assert old != text
    with pytest.raises(snapshot_codec.Unknown, match=why):
        snapshot_codec.decode(old)
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", old)
    reseal(big)  # the decoder refuses it, not its digest
    sql(big, "DELETE FROM cache_views")  # so that the read folds from a snapshot
    folded.clear()
    with big.ledger() as ledger:
        cached = ledger.tracks("big")
    assert (folded[0], folded[-1]) == (769, 1000)  # from the snapshot at 768
    with big.ledger() as ledger:
        assert cached == ledger.refold("big")


def test_cache_tables_dropped_under_a_running_ledger_lose_nothing(big: Backend) -> None:
    with big.ledger() as ledger:
        state = ledger.tracks("big")
        for table in cache.TABLES:
            big.execute(f"DROP TABLE {table}")
        assert ledger.tracks("big") == state
        ledger.record("big", {"type": "harm.inflicted", "target": "Sage", "level": 1})
        head = ledger.store.require("big")
        view = headview.load_view(ledger.store.cache_db, "big", (head.seq, head.hash))
        assert view == head_view_of(ledger.refold("big"))
        assert [f for f in ledger.audit("big") if f.rule == "cache-disagrees"] == []


def test_a_tampered_snapshot_is_an_audit_finding_at_its_seq(big: Backend) -> None:
    with big.ledger() as ledger:
        state = ledger.refold("big")
    sage = core.replace(state.combatants["Sage"], harm=(3, 3))
    wrong = core.replace_combatant(state, sage)
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", snapshot_codec.encode(wrong))
    reseal(big)  # sealed as the ledger would: the audit compares the content with the log
    with big.ledger() as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [(f.severity, f.seq) for f in findings] == [("error", (1000,))]
    assert "drop the tables cache_snapshots, cache_views and cache_rolls" in findings[0].message


def test_verify_vouches_for_the_log_and_the_heads_cache_and_audit_for_the_projection_cache(
    big: Backend,
) -> None:
    with big.ledger() as ledger:
        state = ledger.refold("big")
        head = ledger.store.require("big").hash
    wrong = core.replace_combatant(state, core.replace(state.combatants["Sage"], harm=(3,)))
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", snapshot_codec.encode(wrong))
    # The events are intact: the chain verifies; the fold from the log shows the snapshot wrong.
    verified = CliRunner().invoke(cli.app, ["--db", big.location, "verify", "big"])
    assert (verified.exit_code, verified.stdout) == (
        0,
        f"big: 1000 events, chain ok, head {head}\n",
    )
    audited = CliRunner().invoke(cli.app, ["--db", big.location, "audit", "big", "--json"])
    assert audited.exit_code == 1
    assert [(f["rule"], f["seq"]) for f in json.loads(audited.stdout)["findings"]
            if f["rule"] == "cache-disagrees"] == [("cache-disagrees", [1000])]  # fmt: skip
    sql(big, "UPDATE heads SET seq = 999")
    verified = CliRunner().invoke(cli.app, ["--db", big.location, "verify", "big"])
    assert verified.exit_code == 1
    assert verified.stdout.splitlines()[1].startswith("big: CACHE DISAGREES: the heads cache says ")


#: A change to one row of the head view, in each database's JSON functions.
VIEW_EDITS = {
    "pools": (
        "",
        "json_set(view, '$.pools.gm', 9)",
        "jsonb_set(view::jsonb, '{pools,gm}', '9')::text",
    ),
    "combatants": (
        "Sage",
        "json_set(view, '$.harm', json('[4]'))",
        "jsonb_set(view::jsonb, '{harm}', '[4]')::text",
    ),
    "round": ("", "json_set(view, '$.round', 7)", "jsonb_set(view::jsonb, '{round}', '7')::text"),
    "rolls": ("", "json_set(view, '$.rolls', 3)", "jsonb_set(view::jsonb, '{rolls}', '3')::text"),
}


@pytest.mark.parametrize("part", list(VIEW_EDITS))
def test_a_tampered_head_view_is_an_audit_finding(big: Backend, part: str) -> None:
    row, sqlite_edit, pg_edit = VIEW_EDITS[part]
    edit = sqlite_edit if big.kind == "sqlite" else pg_edit
    sql(big, f"UPDATE cache_views SET view = {edit} WHERE name = ?", row)
    with big.ledger() as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [f.seq for f in findings] == [(1000,)]
    assert f"head view ({part})" in findings[0].message


#: Damage to one stored roll of the head view, in each database's JSON functions.
ROLL_DAMAGE = {
    "edited": (
        "UPDATE cache_rolls SET roll = json_set(roll, '$.outcome', 'miss') WHERE n = 5",
        "UPDATE cache_rolls SET roll = jsonb_set(roll::jsonb, '{outcome}', '\"miss\"')::text "
        "WHERE n = 5",
    ),
    "deleted": ("DELETE FROM cache_rolls WHERE n = 5",) * 2,
}


@pytest.mark.parametrize("damage", list(ROLL_DAMAGE))
def test_a_tampered_roll_of_the_head_view_is_an_audit_finding(big: Backend, damage: str) -> None:
    sqlite_damage, pg_damage = ROLL_DAMAGE[damage]
    sql(big, sqlite_damage if big.kind == "sqlite" else pg_damage)
    with big.ledger() as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [f.seq for f in findings] == [(1000,)]
    assert "head view (rolls)" in findings[0].message


def test_a_head_view_without_its_rolls_table_is_no_finding(big: Backend) -> None:
    sql(big, "DROP TABLE cache_rolls")
    with big.ledger() as ledger:
        assert [f for f in ledger.audit("big") if f.rule == "cache-disagrees"] == []


#: Each example writes a file event by event, in a new `Ledger` each time: fewer of them.
FEWER = settings(FUZZ, max_examples=12)


@pytest.fixture
def every_four() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session, "CHECKPOINT_EVERY", 4)
        yield


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("system", list(STRATEGIES))
def test_random_streams_read_through_the_cache_equal_the_fold(
    system: str, kind: str, every_four: None, request: pytest.FixtureRequest
) -> None:
    @FEWER
    @given(
        st.lists(STRATEGIES[system](), min_size=6, max_size=24),
        st.lists(st.integers(2, 30), max_size=3),
    )
    def check(stream: list[Event], undos: list[int]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = open_backend(request, kind, Path(folder))
            try:
                random_writes(store, system, stream, undos)
            finally:
                store.close()

    check()


def random_writes(store: Backend, system: str, stream: list[Event], undos: list[int]) -> None:
    with store.ledger() as ledger:
        ledger.open("fuzz", system)
    for item in [*CAST[system], *stream]:
        # Each write in a new "process".
        with store.ledger() as ledger, contextlib.suppress(BadInput):
            ledger.record("fuzz", item)
    for seq in undos:
        with store.ledger() as ledger, contextlib.suppress(BadInput):
            ledger.undo("fuzz", seq, reason="fuzz")
    with store.ledger() as ledger:
        records = ledger.records("fuzz")
        folded = core.fold(RULESETS, records)
        assert ledger.tracks("fuzz") == folded
        assert [f for f in ledger.audit("fuzz") if f.rule == "cache-disagrees"] == []
        text = snapshot_codec.encode(folded)
        assert snapshot_codec.matches(folded, text)
        assert snapshot_codec.decode(text) == folded
        head = ledger.store.require("fuzz")
        stored = headview.load_view(ledger.store.cache_db, "fuzz", (head.seq, head.hash))
        assert stored is not None
        assert headview.diff_view(ledger.store.cache_db, stored, folded) == []
        if isinstance(store, SqliteBackend):
            # What `encounter tracks --json` prints from the head view, without the fold.
            with contextlib.closing(sqlite3.connect(store.path)) as conn:
                shown = fastpath.head_view(conn, "fuzz", rolls=True)
            assert shown == json.loads(json.dumps(folded.view()))
        now = revisions.standing(records)
        usable = cache.usable_snapshots(ledger.store.cache_db, "fuzz", now)
        for seq, state in usable.items():
            # The stream as it stands now (later retractions and corrections count), up to
            # the seq.
            assert state == core.fold(RULESETS, records, at=seq, corrected_today=True)


WRITERS, WRITES = 4, 30
CONTEXT = multiprocessing.get_context("fork")


def busy_writer(location: str, writer: int, start: Barrier) -> None:
    with Ledger(location) as ledger:
        ledger.tracks("brawl")
        start.wait()
        for n in range(WRITES):
            if n % 7 == 6:
                with contextlib.suppress(BadInput):  # another writer's undo got there first
                    ledger.undo("brawl", reason=f"w{writer} takes back")
            elif n % 3 == 0:
                ledger.record("brawl", {"type": "harm.inflicted", "target": "Thug", "level": 1})
            else:
                ledger.record("brawl", {"type": "note", "text": f"w{writer}.{n}"})


@pytest.mark.slow
def test_concurrent_writers_of_one_encounter_keep_the_cache_equal_to_the_fold(
    backend: Backend, every_four: None
) -> None:
    with backend.ledger() as ledger:
        ledger.open("brawl", "ssss")
        ledger.join("brawl", "Thug", "adversary", {"level": 5})
    start = CONTEXT.Barrier(WRITERS)
    workers = [
        CONTEXT.Process(target=busy_writer, args=(backend.location, w, start))
        for w in range(WRITERS)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert [w.exitcode for w in workers] == [0] * WRITERS
    with backend.ledger() as ledger:
        records = ledger.records("brawl")
        head = ledger.store.require("brawl")
        assert head.seq == len(records) == 2 + WRITERS * WRITES
        folded = core.fold(RULESETS, records)
        view = headview.load_view(ledger.store.cache_db, "brawl", (head.seq, head.hash))
        assert view == head_view_of(folded)
        assert headview.diff_view(ledger.store.cache_db, view, folded) == []  # the rolls too
        assert ledger.tracks("brawl") == folded
        assert [f for f in ledger.audit("brawl") if f.rule == "cache-disagrees"] == []
        usable = cache.usable_snapshots(ledger.store.cache_db, "brawl", revisions.standing(records))
        assert usable  # every fourth seq was kept: some still hold
        for seq, state in usable.items():
            assert state == core.fold(RULESETS, records, at=seq, corrected_today=True)
