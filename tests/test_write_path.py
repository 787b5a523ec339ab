"""The shortcuts of the write path hold to what they replace: a model built from checked values
is the validated model, a remembered head is the row's own, the clock's text is the same either
way, and a roll log that only grew is told apart from one that changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from freezegun import freeze_time
from hypothesis import given
from hypothesis import strategies as st

from ledger import Ledger, rows
from ledger.rows import Head, built, head_of, moved, timestamp, written
from ledger.service import Written
from projections.log import Log

ROW = ("fight", "ssss", "The long skirmish", 17, "a" * 64, "2026-12-01T16:56:14.220756Z", "z")


def test_a_built_head_is_the_validated_head() -> None:
    validated = head_of(ROW)
    made = built(Head, dict(zip(Head.model_fields, ROW, strict=True)))
    assert made == validated and made.model_dump() == validated.model_dump()
    assert made.model_fields_set == validated.model_fields_set
    with pytest.raises(ValueError, match="frozen"):
        made.seq = 3  # type: ignore[misc]


def test_a_moved_head_changes_only_its_last_event() -> None:
    head = head_of(ROW)
    after = moved(head, 18, "b" * 64, "later")
    assert after.model_dump() == {**head.model_dump(), "seq": 18, "hash": "b" * 64,
                                  "updated_at": "later"}  # fmt: skip
    assert head.seq == 17


def test_a_built_result_dumps_as_the_constructed_one() -> None:
    made = Written.of([], [], None, True)
    expected = Written.model_construct(records=(), findings=(), downstream=None, dry_run=True)
    assert made.model_dump() == expected.model_dump()
    assert made._folds == ()


def test_the_head_read_back_is_the_one_written_and_another_row_is_validated() -> None:
    head = head_of(ROW)
    assert written(head) == ROW
    assert head_of(ROW) is head  # the row the last write wrote: not validated again
    other = head_of((*ROW[:3], 18, *ROW[4:]))
    assert other.seq == 18
    with pytest.raises(ValueError, match="seq"):
        head_of((*ROW[:3], "not a seq", *ROW[4:]))
    rows._last_head = None


def test_a_write_then_another_read_the_head_the_first_left(tmp_path: Path) -> None:
    with Ledger(tmp_path / "e.db") as ledger:
        ledger.open("f", "ssss")
        first = ledger.record("f", {"type": "note", "text": "one"})
        second = ledger.record("f", {"type": "note", "text": "two"})
        (head,) = ledger.encounters()
    assert (first.records[0].seq, second.records[0].seq) == (2, 3)
    assert head.seq == 3 and head.hash == second.records[0].hash


@given(st.datetimes(timezones=st.just(UTC)))
def test_the_clock_text_of_a_utc_moment_is_the_converted_one(moment: datetime) -> None:
    converted = moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds")
    assert timestamp(moment) == converted + "Z"


def test_a_moment_of_another_zone_is_converted_to_utc() -> None:
    moment = datetime(2026, 12, 1, 18, 0, tzinfo=timezone(timedelta(hours=2)))
    assert timestamp(moment) == "2026-12-01T16:00:00.000000Z"


@freeze_time("2026-12-01 16:56:14.5")
def test_an_append_records_the_clock_as_utc_with_a_z(tmp_path: Path) -> None:
    with Ledger(tmp_path / "e.db") as ledger:
        written_ = ledger.open("f", "ssss")
    assert written_.records[0].recorded_at == "2026-12-01T16:56:14.500000Z"


def test_a_log_extends_its_own_earlier_versions_only() -> None:
    first = Log[int]().appended(1).appended(2)
    longer = first.appended(3)
    assert longer.extends(first) and longer.extends(longer) and not first.extends(longer)
    branch = first.appended(4)  # the slot after `first` is taken: a copy, compared item by item
    assert not branch.extends(first) and not branch.extends(longer) and branch.extends(branch)
    assert not longer.extends(Log([1, 2])) and not longer.extends((1, 2))
