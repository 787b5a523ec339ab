"""A long-lived writer (a bot's `Ledger`) keeps each encounter as its last write left it, and its
next write starts from there, after the whole chain was checked and only when the head is still
the one it left: what every write judges is what a fresh process folding the log would judge."""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import BadInput, BrokenChain, Ledger, LedgerError, LedgerWarning, read, write
from ledger.read import KEPT_FOLDS
from ledger.store import Head, Row, chain
from ledger.store.sql import SqlStore
from projections import core
from tests.stores import Backend, SqliteBackend

JOIN = {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 5}}


def harm(level: int = 1) -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": "Bandit", "level": level}


def opened(ledger: Ledger, name: str = "duel") -> None:
    lines = [{"type": "encounter.opened", "system": "ssss"}, JOIN]
    ledger.import_lines([json.dumps(line) for line in lines], into=name)


def counted_folds(monkeypatch: pytest.MonkeyPatch, where: ModuleType) -> list[int]:
    """How many events each fold that `where` (a use case's module) starts goes through."""
    counted: list[int] = []
    real = write.fold_on

    def counting(ruleset: Any, records: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        records = list(records)
        counted.append(len(records))
        return real(ruleset, records, *args, **kwargs)

    monkeypatch.setattr(where, "fold_on", counting)
    return counted


@pytest.fixture
def folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many events each fold a write started from the log went through."""
    return counted_folds(monkeypatch, write)


def filled(state: core.State) -> int:
    """How many Harm slots of the Bandit's first level are filled."""
    bandit: Any = state.combatants["Bandit"]
    return int(bandit.slots["1"].filled)


def fresh_state(backend: Backend, name: str = "duel") -> core.State:
    with backend.ledger() as reader:
        return reader.tracks(name)


def test_a_writers_next_write_folds_nothing_again(backend: Backend, folds: list[int]) -> None:
    with backend.ledger() as bot:
        opened(bot)
        folds.clear()
        bot.record("duel", harm(1))
        bot.record("duel", {"type": "note", "text": "and on"})
        done = bot.record("duel", harm(1))
    assert folds == []
    assert done.state == fresh_state(backend)
    assert filled(done.state) == 2


def test_another_writer_in_between_makes_the_next_write_fold_from_the_log(
    backend: Backend, folds: list[int]
) -> None:
    with backend.ledger() as bot, backend.ledger() as other:
        opened(bot)
        bot.record("duel", harm(1))
        other.record("duel", harm(2))
        folds.clear()
        done = bot.record("duel", {"type": "note", "text": "after the other's harm"})
    assert folds == [4]  # the bot's kept head is not the head: it folds seqs 1-4 anew
    assert done.state == fresh_state(backend)


def test_a_dry_run_or_a_refused_write_keeps_what_the_last_committed_write_left(
    backend: Backend, folds: list[int]
) -> None:
    with backend.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        bot.undo("duel", reason="only asking", dry_run=True)
        with pytest.raises(BadInput, match="already open"):
            bot.record("duel", {"type": "encounter.opened", "system": "ssss"})
        folds.clear()
        done = bot.record("duel", {"type": "note", "text": "nothing of the dry run"})
    assert done.state == fresh_state(backend)
    assert filled(done.state) == 1


def test_an_edit_behind_the_kept_head_is_still_refused(backend: Backend) -> None:
    with backend.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        bot.record("duel", harm(1))
        backend.tamper(
            "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":4') "
            "WHERE encounter = 'duel' AND seq = 3"
        )
        with pytest.raises(BrokenChain, match="does not verify at seq 3"):
            bot.record("duel", {"type": "note", "text": "on an edited chain"})


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seq of every stored row a write checked against the chain."""
    seen: list[int] = []
    real = chain.checked

    def counting(rows: Iterable[Row], *args: Any) -> Iterator[Row]:
        for row in real(rows, *args):
            seen.append(row.seq)
            yield row

    monkeypatch.setattr(chain, "checked", counting)
    return seen


def test_a_sqlite_writers_next_write_checks_no_row_it_checked_and_appended_itself(
    tmp_path: Path, hashed: list[int]
) -> None:
    """SQLite counts the commits of other connections (`PRAGMA data_version`): while nothing
    else committed, the rows are the ones this writer checked and appended."""
    alone = SqliteBackend(tmp_path / "encounters.db")
    with alone.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        hashed.clear()
        bot.record("duel", harm(1))
        done = bot.record("duel", {"type": "note", "text": "and on"})
    assert hashed == []
    assert done.state == fresh_state(alone)


def traced(ledger: Ledger) -> list[str]:
    """Every statement the ledger's SQLite connection runs from now on."""
    seen: list[str] = []
    ledger.store.db.conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]
    return seen


def test_a_sqlite_writers_next_write_reads_no_head_it_committed_itself(tmp_path: Path) -> None:
    """While no other connection has committed, the file is as this writer's last commit left
    it: its next append reads neither the heads row nor the first and last rows again."""
    alone = SqliteBackend(tmp_path / "encounters.db")
    with alone.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        seen = traced(bot)
        done = bot.record("duel", harm(1))
        bot.store.db.conn.set_trace_callback(None)  # type: ignore[attr-defined]
    reads = [s for s in seen if s.startswith("SELECT")]
    # The one read left: the rows just inserted, read back (`Transaction.flush`).
    assert len(reads) == 1 and "seq >= 4 AND seq <= 4" in reads[0]
    assert done.state == fresh_state(alone)


def test_a_thread_of_the_same_sqlite_writer_cannot_write_between_a_commit_and_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads of one `Ledger` share its connection, so SQLite's count does not move between
    their commits: the head a commit leaves is remembered under the write's lock, before any
    other thread's write can begin (a write in between would be followed by the older head,
    and the next append would take a seq already stored)."""
    alone = SqliteBackend(tmp_path / "encounters.db")
    with alone.ledger() as bot:
        opened(bot)
        remember = SqlStore._remember
        between: list[threading.Thread] = []

        def another_write_meanwhile(self: SqlStore, head: Head, others: int) -> None:
            if not between:
                other = threading.Thread(target=bot.record, args=("duel", harm(1)))
                between.append(other)
                other.start()
                other.join(timeout=0.3)
                assert other.is_alive()  # it waits for this write's lock
            remember(self, head, others)

        monkeypatch.setattr(SqlStore, "_remember", another_write_meanwhile)
        bot.record("duel", {"type": "note", "text": "first"})
        between[0].join()
        done = bot.record("duel", {"type": "note", "text": "then this"})
    with alone.ledger() as reader:
        assert [r.seq for r in reader.records("duel")] == [1, 2, 3, 4, 5]
    assert done.seq == 5 and filled(done.state) == 1


def test_a_commit_of_another_connection_makes_the_next_write_check_every_row(
    backend: Backend, hashed: list[int]
) -> None:
    with backend.ledger() as bot, backend.ledger() as other:
        opened(bot)
        bot.record("duel", harm(1))
        opened(other, "another table")
        hashed.clear()
        bot.record("duel", harm(1))
    assert hashed == [1, 2, 3]


def test_the_head_removed_by_another_hand_is_still_refused(backend: Backend) -> None:
    """The writer that left the head does not take what is left of its rows as its own."""
    with backend.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        bot.record("duel", harm(1))
        backend.tamper("DELETE FROM events WHERE encounter = 'duel' AND seq = 4")
        with pytest.raises(BrokenChain, match="acknowledged"):
            bot.record("duel", {"type": "note", "text": "on a shortened chain"})


def test_a_writer_keeps_its_busiest_encounters_only(backend: Backend, folds: list[int]) -> None:
    with backend.ledger() as bot:
        names = [f"table {n}" for n in range(KEPT_FOLDS + 1)]
        for name in names:
            opened(bot, name)
        folds.clear()
        bot.record(names[-1], harm(1))  # kept
        bot.record(names[0], harm(1))  # the oldest: let go, folded from the log
    assert folds == [2]


@pytest.fixture
def read_folds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many events each fold of a read went through."""
    return counted_folds(monkeypatch, read)


def test_a_sqlite_readers_next_read_of_the_same_head_folds_and_checks_nothing(
    tmp_path: Path, hashed: list[int], read_folds: list[int]
) -> None:
    """A bot asked for the tracks again and again (a second screen, `!tracks`) answers from
    the fold it made last while the head is the one it folded and no other connection has
    committed since; its own write's fold serves the read after it the same way."""
    alone = SqliteBackend(tmp_path / "encounters.db")
    with alone.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        with alone.ledger() as reader:
            first = reader.tracks("duel")
            assert read_folds == [3] and hashed == [1, 2, 3]
            hashed.clear()
            assert reader.tracks("duel") == first
            assert reader.tracks("duel", at=2) != first  # a past seq is folded as before
        read_folds.clear()
        hashed.clear()
        assert bot.tracks("duel") == first  # the fold its own write left
        assert read_folds == [] and hashed == []
        bot.record("duel", harm(2))
        assert bot.tracks("duel") == fresh_state(alone)


def test_a_commit_of_another_connection_makes_the_next_read_fold_and_check_again(
    backend: Backend, hashed: list[int], read_folds: list[int]
) -> None:
    with backend.ledger() as bot, backend.ledger() as other:
        opened(bot)
        bot.record("duel", harm(1))
        bot.tracks("duel")
        opened(other, "another table")
        hashed.clear()
        read_folds.clear()
        again = bot.tracks("duel")
        assert hashed == [1, 2, 3] and read_folds == [3]
        assert again == fresh_state(backend)
        other.record("duel", harm(2))
        assert bot.tracks("duel") == fresh_state(backend)
        assert filled(bot.tracks("duel")) == 1


def test_a_server_keeps_no_count_so_every_read_checks_every_row(
    backend: Backend, hashed: list[int]
) -> None:
    with backend.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        bot.tracks("duel")
        hashed.clear()
        bot.tracks("duel")
    assert hashed == ([] if backend.kind == "sqlite" else [1, 2, 3])


def test_a_read_that_warned_of_an_edit_vouches_for_nothing_and_the_write_still_refuses(
    backend: Backend,
) -> None:
    """A read shows what is stored, with a warning, once; it never takes the edited rows as
    checked, so every later read checks them again and a write refuses to extend them."""
    with backend.ledger() as bot:
        opened(bot)
        bot.record("duel", harm(1))
        bot.record("duel", harm(1))
        bot.tracks("duel")
        backend.tamper(
            "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":4') "
            "WHERE encounter = 'duel' AND seq = 3"
        )
        with pytest.warns(LedgerWarning, match="does not verify at seq 3"):
            edited = bot.tracks("duel")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # told once: no second warning
            assert bot.tracks("duel") == edited
        with pytest.raises(BrokenChain, match="does not verify at seq 3"):
            bot.record("duel", {"type": "note", "text": "on an edited chain"})


@st.composite
def moves(draw: st.DrawFn) -> list[tuple[str, str, int]]:
    """Writes by two writers, `bot` (long-lived) and `other`: harm, notes, undo, redo and
    amend of an earlier harm, and reads of the tracks between them."""
    count = draw(st.integers(min_value=1, max_value=14))
    return [
        (
            draw(st.sampled_from(["bot", "bot", "bot", "other"])),
            draw(st.sampled_from(["harm", "note", "undo", "redo", "amend", "read"])),
            draw(st.integers(min_value=1, max_value=3)),
        )
        for _ in range(count)
    ]


def applied(ledger: Ledger, what: str, level: int, harms: list[int]) -> Iterator[core.State]:
    if what == "read":
        yield ledger.tracks("duel")
        return
    if what == "harm":
        done = ledger.record("duel", harm(level))
        harms.append(done.records[-1].seq)
    elif what == "note":
        done = ledger.record("duel", {"type": "note", "text": f"level {level}"})
    elif what == "undo":
        done = ledger.undo("duel", reason="wrong")
    elif what == "redo":
        done = ledger.redo("duel", reason="right after all")
    else:
        if not harms:
            return
        target = harms[-level % len(harms)]
        done = ledger.amend("duel", target, {"level": level}, reason="misread")
    yield done.state


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=moves())
def test_every_write_and_read_of_a_long_lived_ledger_gives_the_state_a_fresh_fold_gives(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, int]]
) -> None:
    path = tmp_path_factory.mktemp("kept") / "kept.db"
    harms: list[int] = []
    with Ledger(path) as bot, Ledger(path) as other:
        opened(bot)
        for who, what, level in steps:
            writer = bot if who == "bot" else other
            before = len(writer.records("duel"))
            try:
                states = list(applied(writer, what, level, harms))
            except LedgerError:  # nothing to undo or redo, say: bad input, nothing appended
                assert len(writer.records("duel")) == before
                continue
            with Ledger(path) as reader:
                assert states == [reader.tracks("duel")] or not states
