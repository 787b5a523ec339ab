"""Sealed snapshots: a cache only. A read or a write folds only the events after the newest
snapshot that still holds; a snapshot another hand wrote (its seal is not the key's), one whose
event changed, or one folded under other retractions is never used; without the key, or without
the table, every read folds from the events, and what it shows is the same."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, LedgerError, systems
from ledger.store import snapshots
from projections import core
from tests import paths
from tests.stores import Backend
from tests.streams import ruleset_of

JOIN = {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 5}}
GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 1}}


def harm(level: int = 1, target: str = "Bandit") -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": target, "level": level}


def note(n: int) -> dict[str, Any]:
    return {"type": "note", "text": f"note {n}"}


def long_fight(ledger: Ledger, name: str = "long", notes: int = 700) -> None:
    lines = [{"type": "encounter.opened", "system": "ssss"}, JOIN, GUARD, harm(1)]
    lines += [note(n) for n in range(notes)]
    ledger.import_lines([json.dumps(line) for line in lines], into=name)


def stored(backend: Backend, name: str = "long") -> list[int]:
    rows = backend.execute("SELECT seq FROM snapshots WHERE encounter = ? ORDER BY seq", (name,))
    return [int(seq) for (seq,) in rows]


def test_a_state_reads_back_from_its_snapshot_as_it_was() -> None:
    for example in sorted(paths.EXAMPLES.glob("*.jsonl")):
        with Ledger(":memory:") as ledger:
            done = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
            records = ledger.records(done.encounter)
        ruleset = ruleset_of(records)
        for at in range(1, len(records) + 1):
            state = core.fold(ruleset, records, at=at)
            text = core.state_to_json(state)
            assert text is not None
            assert core.state_from_json(text, ruleset) == state, (example.name, at)


def test_an_import_leaves_sealed_snapshots_every_256_seqs_the_newest_kept(
    backend: Backend,
) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger, notes=1100)
    assert stored(backend) == [256, 512, 768, 1024]
    with backend.ledger() as ledger:
        long_fight(ledger, "longer", notes=1400)
    assert stored(backend, "longer") == [512, 768, 1024, 1280]


def test_tracks_and_a_write_fold_only_the_events_after_the_newest_snapshot(
    backend: Backend, folded: list[int]
) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        before = ledger.refold("long")
    folded.clear()
    with backend.ledger() as ledger:  # a new process: nothing folded in memory
        assert ledger.tracks("long") == before
        assert folded and min(folded) == 513
    folded.clear()
    with backend.ledger() as ledger:
        written = ledger.record("long", harm(2))
        assert min(folded) == 513
        assert written.state == ledger.refold("long")
    folded.clear()
    with backend.ledger() as ledger:  # a read of the head, then a write: it starts from there
        ledger.tracks("long")
        folded.clear()
        written = ledger.record("long", harm(2))
        assert folded == [706]
        assert written.state == ledger.refold("long")


def test_an_undo_behind_the_newest_snapshot_refolds_from_one_that_still_holds(
    backend: Backend, folded: list[int]
) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
    folded.clear()
    with backend.ledger() as ledger:
        undone = ledger.undo("long", 600, reason="no such note")
        assert min(folded) == 513  # the snapshot at 512 holds: seq 600 comes after it
        assert undone.state == ledger.refold("long")
        folded.clear()
        again = ledger.undo("long", 4, reason="that blow was on the Guard")
        assert min(folded) == 2  # nothing before seq 4 holds a snapshot: from the start
        assert again.state == ledger.refold("long")
        folded.clear()
        assert ledger.tracks("long") == ledger.refold("long")
        assert ledger.tracks("long").combatants["Bandit"].view()["penalties"] == 0


def _forge(backend: Backend, secret: bytes | None, change: dict[str, Any]) -> None:
    """Rewrite the newest snapshot's state with `change`, sealed with `secret` (None: with a
    plain SHA-256, as anyone can compute)."""
    seq, digest, standing, state = backend.execute(
        "SELECT seq, hash, standing, state FROM snapshots WHERE encounter = 'long' "
        "ORDER BY seq DESC LIMIT 1"
    )[0]
    data = json.loads(state)
    data.update(change)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    if secret is None:
        seal = hashlib.sha256(text.encode()).hexdigest()
    else:
        seal = snapshots.seal(secret, "long", int(seq), digest, standing, text)
    backend.execute(
        "UPDATE snapshots SET state = ?, seal = ? WHERE encounter = 'long' AND seq = ?",
        (text, seal, seq),
    )


def test_a_snapshot_another_hand_wrote_is_never_used(backend: Backend) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    _forge(backend, None, {"title": "forged"})
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth
        written = ledger.record("long", harm(1))
        assert written.state == ledger.refold("long")
        assert written.state.title is None


def test_a_snapshot_sealed_with_another_key_is_never_used(backend: Backend) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    _forge(backend, b"someone else's key", {"title": "forged"})
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth


def test_a_snapshot_of_an_event_that_changed_is_never_used(backend: Backend) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    secret = snapshots.key()
    assert secret is not None
    seq, _, standing, state = backend.execute(
        "SELECT seq, hash, standing, state FROM snapshots WHERE encounter = 'long' "
        "ORDER BY seq DESC LIMIT 1"
    )[0]
    other = "f" * 64  # sealed with the key, but of another event at that seq
    seal = snapshots.seal(secret, "long", int(seq), other, standing, state.replace("5", "4"))
    backend.execute(
        "UPDATE snapshots SET hash = ?, state = ?, seal = ? WHERE encounter = 'long' AND seq = ?",
        (other, state.replace("5", "4"), seal, seq),
    )
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth


def test_a_snapshot_folded_by_another_release_is_never_used(
    backend: Backend, folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another version of a system may fold the same events otherwise (a rule mended): its
    snapshots are keyed by the distribution and version that folded them, and an upgrade
    folds the events again rather than read a state it would not have made."""
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    assert systems.folded_by("ssss").startswith("encounter-ledger ")
    standing = backend.execute("SELECT standing FROM snapshots WHERE encounter = 'long'")[0][0]
    assert json.loads(standing)[0] == systems.folded_by("ssss")
    monkeypatch.setattr(systems, "folded_by", lambda key: "encounter-ledger 9.9.9")
    folded.clear()
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth
        assert min(folded) == 2  # every event folded again
    with backend.ledger() as ledger:
        ledger.record("long", harm(2))  # the next write keeps its own snapshots
    keys = backend.execute("SELECT DISTINCT standing FROM snapshots WHERE encounter = 'long'")
    assert {json.loads(k)[0] for (k,) in keys} == {"encounter-ledger 9.9.9"}


def test_a_snapshot_folded_before_an_edit_of_an_editable_installs_sources_is_never_used(
    backend: Backend, folded: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An editable install (`pip install -e`, as the README's test command makes) keeps one
    version while its code changes: the key stamps the sources, so a fold edited in place
    folds the events again rather than read a state its old code made."""
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    assert " source " in systems.folded_by("ssss")  # this checkout is installed editable
    monkeypatch.setattr(systems, "stamp", lambda packages: "edited")
    monkeypatch.setattr(systems.found(), "_stamped", {})
    assert systems.folded_by("ssss").endswith(" source edited")
    folded.clear()
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth
        assert min(folded) == 2  # every event folded again


def test_a_reader_without_the_key_folds_every_event_and_shows_the_same(
    backend: Backend, folded: list[int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another user"))
    folded.clear()
    with backend.ledger(readonly=True) as ledger:
        assert ledger.tracks("long") == truth
        assert min(folded) == 2


def test_the_seal_key_is_the_setting_else_the_user_s_own_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert snapshots.key() is None
    made = snapshots.key(create=True)
    assert made is not None and len(made) == 32
    path = tmp_path / "encounter-ledger" / "seal.key"
    assert path.stat().st_mode & 0o777 == 0o600
    assert snapshots.key() == made
    monkeypatch.setenv(snapshots.KEY_SETTING, "ab" * 32)
    assert snapshots.key() == bytes.fromhex("ab" * 32)


def test_a_key_file_rewritten_or_removed_is_read_anew(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A writer asks for the key at every write; the file is read again once it changed."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    made = snapshots.key(create=True)
    path = tmp_path / "encounter-ledger" / "seal.key"
    path.write_text("cd" * 32 + "\n", encoding="ascii")  # in place, the same length
    assert snapshots.key() == bytes.fromhex("cd" * 32) != made
    path.unlink()
    assert snapshots.key() is None
    path.write_text("ef" * 32 + "\n", encoding="ascii")
    assert snapshots.key() == bytes.fromhex("ef" * 32)


def test_deleting_the_snapshots_loses_nothing(backend: Backend) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    backend.execute("DELETE FROM snapshots")
    with backend.ledger() as ledger:
        assert ledger.tracks("long") == truth
        assert ledger.record("long", harm(2)).state == ledger.refold("long")


def test_a_dry_run_leaves_no_snapshot(backend: Backend) -> None:
    with backend.ledger() as ledger:
        long_fight(ledger, notes=251)  # the next write is seq 256
        ledger.amend("long", 4, {"level": 2}, reason="a dry run", dry_run=True)
    assert stored(backend) == []
    with backend.ledger() as ledger:
        ledger.record("long", note(2))
    assert stored(backend) == [256]


def test_a_file_without_the_table_reads_and_its_next_write_makes_it(db: Path) -> None:
    with Ledger(db) as ledger:
        long_fight(ledger)
        truth = ledger.refold("long")
    raw = sqlite3.connect(db)
    raw.execute("DROP TABLE snapshots")
    raw.commit()
    raw.close()
    with Ledger(db, readonly=True) as ledger:
        assert ledger.tracks("long") == truth
    with Ledger(db) as ledger:
        assert ledger.record("long", note(0)).state == ledger.refold("long")
    raw = sqlite3.connect(db)  # the write folded past 256 and 512: it stored them anew
    assert raw.execute("SELECT seq FROM snapshots").fetchall() == [(256,), (512,)]
    raw.close()


def test_a_file_of_the_previous_format_reads_the_same_and_its_cache_is_dropped_by_a_write(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "silken-blade.db"
    shutil.copyfile(paths.FIXTURES / "cache-1" / "silken-blade.db", copy)
    golden = json.loads((paths.EXAMPLES / "silken-blade.tracks.json").read_text("utf-8"))
    with Ledger(copy, readonly=True) as ledger:
        name = ledger.encounters()[0].encounter
        assert ledger.tracks(name).view()["combatants"] == golden["combatants"]
    with Ledger(copy) as ledger:
        ledger.record(name, note(0))
        assert ledger.tracks(name).view()["combatants"] == golden["combatants"]
    raw = sqlite3.connect(copy)
    tables = {t for (t,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    raw.close()
    assert "snapshots" in tables and not tables & {"cache_snapshots", "cache_views"}


STEPS = st.lists(
    st.one_of(
        st.builds(harm, st.integers(1, 5)),
        st.builds(note, st.integers(0, 9)),
        st.tuples(st.just("undo"), st.integers(2, 40)),
        st.tuples(st.just("amend"), st.integers(2, 40), st.integers(1, 5)),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_random_streams_read_through_snapshots_equal_the_fold(
    steps: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setattr(snapshots, "EVERY", 3)
    db = tmp_path_factory.mktemp("random") / "e.db"
    with Ledger(db) as ledger:
        ledger.open("e", "ssss")
        ledger.join("e", "Bandit", "adversary", {"level": 5})
        for step in steps:
            try:
                if isinstance(step, dict):
                    ledger.record("e", step)
                elif step[0] == "undo":
                    ledger.undo("e", step[1], reason="random")
                else:
                    ledger.amend("e", step[1], {"level": step[2]}, reason="random")
            except LedgerError:
                continue
        records = ledger.records("e")
    with Ledger(db, readonly=True) as ledger:
        assert ledger.tracks("e") == core.fold(ruleset_of(records), records)
        for at in range(1, len(records) + 1, 4):
            assert ledger.tracks("e", at=at) == core.fold(ruleset_of(records), records, at=at)


@settings(max_examples=60)
@given(state=st.text(alphabet=st.sampled_from('ab"\\\n\u00e9\u2028\U0001f600{}'), max_size=40))
def test_a_seal_fed_a_piece_at_a_time_is_the_hmac_of_the_whole_canonical_text(
    state: str,
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshots, "_PIECE", 3)  # escapes and wide characters at every boundary
        sealed = snapshots.seal(b"key", 'ford "north"', 256, "ab" * 32, "[[],[]]", state)
    whole = json.dumps(
        ['ford "north"', 256, "ab" * 32, "[[],[]]", state],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert sealed == hmac.new(b"key", whole.encode("utf-8"), hashlib.sha256).hexdigest()
