"""The projection cache (`ledger.cache`): snapshots of the fold and the head view, a cache only.

Every read through the cache equals the fold of the log; a snapshot that no longer holds (its
event's hash changed, or a retraction reaches behind it) is ignored for an older one; deleting
the cache loses nothing; a cache that disagrees with the log is an audit finding.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import BadInput, Ledger, cache, fastpath, headview, session, snapshot_codec
from projections import core, revisions
from projections.registry import RULESETS
from tests.longstreams import lines, skirmish
from tests.test_fuzz import CAST, FUZZ, STRATEGIES, Event

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.jsonl"))


def snapshot_seqs(db: Path, encounter: str = "big") -> list[int]:
    conn = sqlite3.connect(db)
    seqs = [
        r[0]
        for r in conn.execute(
            "SELECT seq FROM cache_snapshots WHERE encounter = ? ORDER BY seq", (encounter,)
        )
    ]
    conn.close()
    return seqs


def sql(db: Path, statement: str, *args: Any) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(statement, args)
    conn.close()


@pytest.fixture
def big(db: Path) -> Path:
    """A file with a 1,000-event skirmish `big`, imported (so cached as the ledger caches)."""
    with Ledger(db) as ledger:
        ledger.import_lines(lines(skirmish(1000)), into="big")
    return db


def fresh_tracks(db: Path, encounter: str = "big") -> tuple[core.State, core.State]:
    """The tracks as a new process reads them (through the file's cache), and refolded."""
    with Ledger(db) as ledger:
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
    assert again.model_dump(mode="json") == state.model_dump(mode="json")


def test_an_import_leaves_snapshots_every_256_seqs_and_at_its_end(big: Path) -> None:
    assert snapshot_seqs(big) == [256, 512, 768, 1000]
    cached, folded = fresh_tracks(big)
    assert cached == folded
    assert cached.seq == 1000


def test_tracks_fold_only_the_tail_after_the_newest_snapshot(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Ledger(big) as ledger:
        ledger.record("big", {"type": "note", "text": "one more"})
    folded: list[int] = []
    feed = core.Folder.feed  # every event folded goes through it (`add` too)

    def counting(self: core.Folder, record: Any, strict: bool = False) -> None:
        folded.append(record.seq)
        feed(self, record, strict)

    monkeypatch.setattr(core.Folder, "feed", counting)
    with Ledger(big) as ledger:
        assert ledger.tracks("big").seq == 1001
    assert folded == [1001]


def test_each_write_refreshes_the_head_view_in_its_transaction(big: Path) -> None:
    with Ledger(big) as ledger:
        ledger.record("big", {"type": "harm.inflicted", "target": "Sage", "level": 1})
        ledger.record("big", {"type": "note", "text": "a note changes no track"})
        head = ledger.store.require("big")
        view = headview.load_view(ledger.store.cache_db, "big", (head.seq, head.hash))
        state = ledger.refold("big")
    assert view == {**json.loads(json.dumps(headview.view_of(state))), "rolls": len(state.rolls)}
    assert view["seq"] == 1002
    assert view["combatants"]["Sage"]["harm"] == [1]


def test_a_retraction_behind_snapshots_falls_back_to_an_older_one(big: Path) -> None:
    with Ledger(big) as ledger:
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


def test_an_undo_in_a_new_process_refolds_from_a_snapshot_before_its_target(big: Path) -> None:
    with Ledger(big) as ledger:
        result = ledger.undo("big", 900, reason="misread")
        refolded = ledger.refold("big")
    assert result.state == refolded
    cached, folded = fresh_tracks(big)
    assert cached == folded == refolded


def test_a_snapshot_whose_event_hash_changed_is_ignored(big: Path) -> None:
    with Ledger(big) as ledger:
        wrong = ledger.refold("big").model_copy(update={"title": "not the log's"})
    sql(big, "UPDATE cache_snapshots SET hash = ?, state = ? WHERE seq = 1000", "0" * 64,
        snapshot_codec.encode(wrong))  # fmt: skip
    cached, folded = fresh_tracks(big)
    assert cached == folded
    with Ledger(big) as ledger:
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
def test_a_snapshot_of_an_unknown_class_or_shape_is_ignored(big: Path, state: str) -> None:
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", state)
    cached, folded = fresh_tracks(big)
    assert cached == folded


def test_deleting_the_cache_tables_loses_nothing(big: Path, tmp_path: Path) -> None:
    with Ledger(big) as ledger:
        before = (ledger.refold("big"), ledger.audit("big"), list(ledger.export("big")))
        cache.drop(ledger.store.cache_db)
    with Ledger(big) as ledger:
        assert ledger.tracks("big") == before[0]
        assert (ledger.refold("big"), ledger.audit("big"), list(ledger.export("big"))) == before
        ledger.record("big", {"type": "note", "text": "the next write rebuilds the cache"})
        ledger.undo("big", reason="and so does an undo")
        assert ledger.verify("big")[0].ok
    assert snapshot_seqs(big) == [256, 512, 768]  # the write's fold from scratch, kept
    cached, folded = fresh_tracks(big)
    assert cached == folded == before[0].model_copy(update={"seq": 1002})


def test_a_snapshot_of_a_state_class_that_is_gone_is_skipped_for_an_older_one(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a snapshot written before a rename (FeState became FatesEdgeState) reads after it.
    conn = sqlite3.connect(big)
    (text,) = conn.execute("SELECT state FROM cache_snapshots WHERE seq = 1000").fetchone()
    conn.close()
    old = text.replace('"projections.ssss:SsssState"', '"projections.fates_edge_model:FeState"')
    assert old != text
    with pytest.raises(snapshot_codec.Unknown, match="FeState"):
        snapshot_codec.decode(old)
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", old)
    sql(big, "DELETE FROM cache_views")  # so that the read folds from a snapshot
    folded: list[int] = []
    feed = core.Folder.feed

    def counting(self: core.Folder, record: Any, strict: bool = False) -> None:
        folded.append(record.seq)
        feed(self, record, strict)

    monkeypatch.setattr(core.Folder, "feed", counting)
    with Ledger(big) as ledger:
        cached = ledger.tracks("big")
    assert (folded[0], folded[-1]) == (769, 1000)  # from the snapshot at 768
    monkeypatch.undo()
    with Ledger(big) as ledger:
        assert cached == ledger.refold("big")


def test_a_tampered_snapshot_is_an_audit_finding_at_its_seq(big: Path) -> None:
    with Ledger(big) as ledger:
        state = ledger.refold("big")
    sage = state.combatants["Sage"].model_copy(update={"harm": (3, 3)})
    wrong = core.replace_combatant(state, sage)
    sql(big, "UPDATE cache_snapshots SET state = ? WHERE seq = 1000", snapshot_codec.encode(wrong))
    with Ledger(big) as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [(f.severity, f.seq) for f in findings] == [("error", (1000,))]
    assert "drop the tables cache_snapshots and cache_views" in findings[0].message


@pytest.mark.parametrize(
    ("row", "change", "part"),
    [
        ("", "'$.pools.gm', 9", "pools"),
        ("Sage", "'$.harm', json('[4]')", "combatants"),
        ("", "'$.round', 7", "round"),
        ("", "'$.rolls', 3", "rolls"),
    ],
)
def test_a_tampered_head_view_is_an_audit_finding(
    big: Path, row: str, change: str, part: str
) -> None:
    sql(big, f"UPDATE cache_views SET view = json_set(view, {change}) WHERE name = ?", row)
    with Ledger(big) as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [f.seq for f in findings] == [(1000,)]
    assert f"head view ({part})" in findings[0].message


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE cache_rolls SET roll = json_set(roll, '$.outcome', 'miss') WHERE n = 5",
        "DELETE FROM cache_rolls WHERE n = 5",
    ],
)
def test_a_tampered_roll_of_the_head_view_is_an_audit_finding(big: Path, damage: str) -> None:
    sql(big, damage)
    with Ledger(big) as ledger:
        findings = [f for f in ledger.audit("big") if f.rule == "cache-disagrees"]
    assert [f.seq for f in findings] == [(1000,)]
    assert "head view (rolls)" in findings[0].message


def test_a_head_view_without_its_rolls_table_is_no_finding(big: Path) -> None:
    sql(big, "DROP TABLE cache_rolls")
    with Ledger(big) as ledger:
        assert [f for f in ledger.audit("big") if f.rule == "cache-disagrees"] == []


#: Each example writes a file event by event, in a new `Ledger` each time: fewer of them.
FEWER = settings(FUZZ, max_examples=12)


@pytest.fixture
def every_four() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session, "CHECKPOINT_EVERY", 4)
        yield


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_random_streams_read_through_the_cache_equal_the_fold(
    system: str, every_four: None
) -> None:
    @FEWER
    @given(
        st.lists(STRATEGIES[system](), min_size=6, max_size=24),
        st.lists(st.integers(2, 30), max_size=3),
    )
    def check(stream: list[Event], undos: list[int]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "fuzz.db"
            with Ledger(db) as ledger:
                ledger.open("fuzz", system)
            for item in [*CAST[system], *stream]:
                # Each write in a new "process".
                with Ledger(db) as ledger, contextlib.suppress(BadInput):
                    ledger.record("fuzz", item)
            for seq in undos:
                with Ledger(db) as ledger, contextlib.suppress(BadInput):
                    ledger.undo("fuzz", seq, reason="fuzz")
            with Ledger(db) as ledger:
                records = ledger.records("fuzz")
                folded = core.fold(RULESETS, records)
                assert ledger.tracks("fuzz") == folded
                assert [f for f in ledger.audit("fuzz") if f.rule == "cache-disagrees"] == []
                # What `encounter tracks --json` prints from the head view, without the fold.
                with contextlib.closing(sqlite3.connect(db)) as conn:
                    stored = fastpath.head_view(conn, "fuzz", rolls=True)
                assert stored == json.loads(json.dumps(folded.view()))
                now = revisions.standing(records)
                usable = cache.usable_snapshots(ledger.store.cache_db, "fuzz", now)
                for seq, state in usable.items():
                    # The stream as it stands now (later retractions and corrections count),
                    # up to the seq.
                    assert state == core.fold(RULESETS, records, at=seq, corrected_today=True)

    check()
