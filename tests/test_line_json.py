"""Import reads each line by orjson where that gives exactly what the strict reader gives.

`exchange.loads_line` takes orjson's value only when the text cannot hide a key given twice or
a number orjson reads otherwise; the strict reader (`exchange.STRICT`) decides the rest. Its
value, or its error, must be the strict reader's for any text.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.exchange import STRICT, loads_line

KEYS = st.text(alphabet=st.sampled_from('ab:" \\\t\u00e9'), min_size=0, max_size=4)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from('xy:" ,{}[]\\\n\u00e9'), max_size=5),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)


def either(text: str) -> tuple[str, Any]:
    """What a reader makes of `text`: its value, or its error's type and message."""
    try:
        return "value", loads_line(text)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


def strictly(text: str) -> tuple[str, Any]:
    """What the strict reader makes of `text`."""
    try:
        return "value", STRICT.decode(text)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


def same(text: str) -> None:
    got, want = either(text), strictly(text)
    assert got == want
    if got[0] == "value":  # equal values of equal types (1 is not 1.0, nor True)
        assert json.dumps(got[1], sort_keys=True) == json.dumps(want[1], sort_keys=True)


@settings(max_examples=400, deadline=None, database=None)
@given(
    st.dictionaries(KEYS, VALUES, max_size=4),
    st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : "), ("\t,", ":\t")]),
    st.booleans(),
)
def test_a_line_reads_as_the_strict_reader_reads_it(
    document: dict[str, Any], separators: tuple[str, str], ascii_only: bool
) -> None:
    same(json.dumps(document, separators=separators, ensure_ascii=ascii_only))


@settings(max_examples=300, deadline=None, database=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), st.data())
def test_a_key_given_twice_is_refused_however_the_line_is_written(
    document: dict[str, Any], data: st.DataObject
) -> None:
    key = data.draw(st.sampled_from(sorted(document)))
    member = json.dumps({key: document[key]}, separators=(",", ":"))[1:-1]
    text = json.dumps(document, separators=(",", ":"))
    twice = text[:-1] + ("," if len(text) > 2 else "") + member + "}"
    assert strictly(twice)[0] == "ValueError"
    same(twice)


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"note","type":"harm.inflicted"}',
        '{"a":1,"b":{"c":2,"c":3}}',
        '{"a":1e999}',
        '{"a":NaN}',
        '{"a":Infinity}',
        '{"a":18446744073709551616}',
        '{"a":9223372036854775808}',
        '{"a":"\\ud800"}',
        '{"a":":","a":1}',
        '{"a"\n:1,"a":2}',
        '{"a"\r:1,"a":2}',
        '{"a":1}x',
        "[1,2]",
        '"text"',
        "",
        "{" * 2000 + "}" * 2000,
        "[" * 5000 + "]" * 5000,
    ],
)
def test_lines_the_fast_reader_must_leave_to_the_strict_one(text: str) -> None:
    same(text)
