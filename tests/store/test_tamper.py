"""Tamper evidence: with the triggers dropped, any edit of a stored row is named by `verify`."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import suppress

import pytest
from typer.testing import CliRunner

from ledger.cli import app
from tests.stores import KINDS, Backend, open_backend

COLUMNS = ("encounter", "seq", "id", "type", "recorded_at", "body", "prev_hash", "hash")
Edit = Callable[[Backend], None]


@pytest.fixture(scope="module", params=KINDS)
def pristine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    """A store holding two encounters (the second is the one edited), checkpointed."""
    backend = open_backend(request, request.param, tmp_path_factory.mktemp("tamper"))
    with backend.ledger() as ledger:
        ledger.open("warmup", "ssss")
        ledger.open("ford", "ssss", title="Bandits at the ford — Sōhei's stand")
        ledger.join("ford", "Sōhei", "player", {"record": {"grit": 2}})
        ledger.join("ford", "Bandit", "adversary", {"level": 2, "tags": ["brigand"]})
        ledger.record("ford", {"type": "throw.made", "actor": "Sōhei", "attribute": "swords",
                               "outcome": "hit", "harm_level": 1})  # fmt: skip
        ledger.record(
            "ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1, "throw": 4}
        )
        ledger.record("ford", {"type": "note", "text": 'he said "yield!" twice\n'})
        ledger.record("ford", {"type": "harm.inflicted", "target": "Sōhei", "level": 2})
        ledger.record("ford", {"type": "grit.used", "target": "Sōhei", "from_level": 2,
                               "to_level": 1})  # fmt: skip
        ledger.undo("ford", 6, reason="wrong note")
        ledger.record("ford", {"type": "tracks.noted", "target": "Bandit",
                               "values": {"penalties": 1}})  # fmt: skip
        assert ledger.verify("ford")[0].ok
    if backend.kind == "sqlite":
        raw = sqlite3.connect(backend.location)
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raw.close()
    yield backend
    backend.close()


ROWS = 10


def edited(pristine: Backend, edit: Edit) -> Backend:
    """A copy of the pristine store with the triggers dropped and `edit` applied."""
    copy = pristine.copy("edited")
    edit(copy)
    return copy


def bad_seq(store: Backend) -> int | None:
    with store.ledger(readonly=True) as ledger:
        [report] = ledger.verify("ford")
        assert all(r.ok for r in ledger.verify() if r.encounter == "warmup")
        return report.bad_seq


def flip(value: str, at: int) -> str:
    """`value` with the UTF-8 byte at `at` changed (to another byte that keeps it UTF-8)."""
    data = bytearray(value.encode("utf-8"))
    original = data[at]
    for candidate in (original ^ 0x01, original ^ 0x02, original ^ 0x04, original ^ 0x20):
        data[at] = candidate
        try:
            changed = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if changed != value:
            return changed
    raise AssertionError(f"no one-byte change of {value!r} at {at} keeps it UTF-8")


def byte_edits() -> Iterator[tuple[int, str, int]]:
    """(seq, column, byte position): one byte of every text column of every row, the first, a
    middle one or the last in turn (each column has each kind in three rows or more)."""
    texts = [column for column in COLUMNS if column != "seq"]
    for seq in range(1, ROWS + 1):
        for n, column in enumerate(texts):
            yield seq, column, (0, -2, -1)[(seq + n) % 3]


@pytest.mark.parametrize(
    ("seq", "column", "where"),
    list(byte_edits()),
    ids=[f"{s}-{c}-{w}" for s, c, w in byte_edits()],
)
def test_one_changed_byte_in_any_column_of_any_row_is_named_by_its_seq(
    pristine: Backend, seq: int, column: str, where: int
) -> None:
    def edit(raw: Backend) -> None:
        [(value,)] = raw.execute(
            f"SELECT {column} FROM events WHERE encounter = 'ford' AND seq = ?", (seq,)
        )
        size = len(value.encode("utf-8"))
        at = size // 2 if where == -2 else (where % size)
        raw.execute(
            f"UPDATE events SET {column} = ? WHERE encounter = 'ford' AND seq = ?",
            (flip(value, at), seq),
        )

    assert bad_seq(edited(pristine, edit)) == seq


@pytest.mark.parametrize("seq", range(1, ROWS + 1))
@pytest.mark.parametrize("bit", [0, 8, 16])
def test_a_changed_seq_number_is_named(pristine: Backend, seq: int, bit: int) -> None:
    def edit(raw: Backend) -> None:
        # A number another row holds is refused by the primary key.
        with suppress(raw.integrity_error):
            raw.execute(
                "UPDATE events SET seq = ? WHERE encounter = 'ford' AND seq = ?",
                (seq ^ (1 << bit), seq),
            )

    store = edited(pristine, edit)
    [(still,)] = store.execute(
        "SELECT count(*) FROM events WHERE encounter = 'ford' AND seq = ?", (seq,)
    )
    # Any other number is a gap at `seq`.
    assert bad_seq(store) == (None if still else seq)


@pytest.mark.parametrize("seq", range(1, ROWS + 1))
def test_a_deleted_row_is_named(pristine: Backend, seq: int) -> None:
    def edit(raw: Backend) -> None:
        raw.execute("DELETE FROM events WHERE encounter = 'ford' AND seq = ?", (seq,))

    assert bad_seq(edited(pristine, edit)) == seq


SWAPS = [(a, b) for a in range(1, ROWS + 1) for b in range(a + 1, ROWS + 1)]


@pytest.mark.parametrize(("a", "b"), SWAPS, ids=[f"{a}<->{b}" for a, b in SWAPS])
def test_two_swapped_rows_are_named_by_the_first(pristine: Backend, a: int, b: int) -> None:
    def edit(raw: Backend) -> None:
        where = "WHERE encounter = 'ford' AND seq = ?"
        raw.execute(f"UPDATE events SET seq = -1 {where}", (a,))
        raw.execute(f"UPDATE events SET seq = ? {where}", (a, b))
        raw.execute(f"UPDATE events SET seq = ? {where}", (b, -1))

    assert bad_seq(edited(pristine, edit)) == a


def test_an_untouched_copy_verifies(pristine: Backend) -> None:
    assert bad_seq(edited(pristine, lambda raw: None)) is None


def test_the_command_names_the_first_bad_seq_and_exits_1(pristine: Backend) -> None:
    def edit(raw: Backend) -> None:
        raw.execute(
            "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":3') "
            "WHERE encounter = 'ford' AND seq = 5"
        )

    store = edited(pristine, edit)
    result = CliRunner().invoke(app, ["--db", store.location, "verify"])
    assert result.exit_code == 1
    assert "ford: BROKEN at seq 5: hash does not match the event's contents" in result.stdout
    assert "warmup: 1 event, chain ok" in result.stdout


def test_a_row_moved_to_another_encounter_breaks_both_chains(pristine: Backend) -> None:
    def edit(raw: Backend) -> None:
        raw.execute("UPDATE events SET encounter = 'forc' WHERE encounter = 'ford' AND seq = 7")

    with edited(pristine, edit).ledger(readonly=True) as ledger:
        reports = {r.encounter: r for r in ledger.verify()}
    assert reports["ford"].bad_seq == 7
    assert reports["forc"].bad_seq == 1
    assert reports["warmup"].ok
