"""Strict JSON Lines: duplicate keys, seqs that are not whole numbers, oversized events and
oddly named fields are refused by name, line by line, before the next line is read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ledger import BadInput, Ledger
from ledger import jsonl as exchange
from ledger.cli import app

runner = CliRunner()

OPEN = {"type": "encounter.opened", "system": "ssss"}
NOTE = {"type": "note", "text": "the bridge creaks"}


def refused(db: Path, lines: list[str], expected: str) -> None:
    result = runner.invoke(app, ["--db", str(db), "import", "-", "--into", "duel"],
                           input="".join(line + "\n" for line in lines))  # fmt: skip
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr == f"Error: {expected}\n"
    with Ledger(db) as ledger:
        assert [h.encounter for h in ledger.encounters()] == []


def test_a_key_given_twice_in_one_line_is_refused_not_read_as_the_last(db: Path) -> None:
    refused(
        db,
        [json.dumps(OPEN), '{"type": "harm.inflicted", "type": "note", "text": "x"}'],
        "stdin line 2: key 'type' is given twice",
    )


@pytest.mark.parametrize("seq", ["5.0", "true", '"1"'])
def test_a_seq_that_is_not_a_whole_number_is_refused(db: Path, seq: str) -> None:
    line = json.dumps(OPEN)[:-1] + f', "seq": {seq}}}'
    refused(db, [line], f"stdin line 1: 'seq' must be a whole number, not {seq}")


def test_an_unknown_field_with_a_dash_in_its_name_is_named(db: Path) -> None:
    refused(
        db,
        [json.dumps(OPEN), json.dumps({**NOTE, "a-b": 1})],
        "stdin line 2: note event has unknown field 'a-b'",
    )


def test_an_event_over_the_size_cap_is_refused_with_the_cap_named(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENCOUNTER_MAX_EVENT_BYTES", "1000")
    big = json.dumps({**NOTE, "text": "x" * 2000})
    refused(
        db,
        [json.dumps(OPEN), big],
        f"stdin line 2: the event is {len(big)} bytes; one event may be at most 1000 bytes "
        "(ENCOUNTER_MAX_EVENT_BYTES)",
    )


def test_the_default_cap_is_one_megabyte() -> None:
    assert exchange.max_event_bytes() == 1_000_000


def test_a_bad_line_2_is_refused_before_line_3_is_read(ledger: Ledger) -> None:
    def lines() -> Iterator[str]:
        yield json.dumps(OPEN)
        yield "{}"
        raise AssertionError("line 3 was read")

    with pytest.raises(BadInput, match="input line 2: event has no 'type'"):
        ledger.import_lines(lines(), into="duel")
    assert ledger.encounters() == []


@given(depth=st.integers(min_value=1, max_value=90), inside=st.text(alphabet="{[x", max_size=70))
def test_json_nested_past_the_limit_is_refused_at_any_depth_and_brackets_in_text_change_nothing(
    depth: int, inside: str
) -> None:
    """Nesting is counted from the parsed value; a line's bracket count only spares the count
    when it is below the limit (brackets inside strings add to it, never hide a level)."""
    text = "[" * (depth - 1) + json.dumps({"text": inside}) + "]" * (depth - 1)
    if depth > exchange.MAX_DEPTH:
        with pytest.raises(exchange.Refused, match="nested too deeply"):
            exchange.loads(text)
    else:
        assert exchange.loads(text) == json.loads(text)
