"""Values whose canonical JSON every language writes alike, so that another language can
recompute an event's hash (`docs/verify.js` does, in JavaScript).

Whole numbers within 2^53 and text are written the same by Python's `json` and JavaScript's
`JSON.stringify`; fractions (`2.5`, `1e-3`), large numbers (`1e+16`, 2^60) and text holding
lone surrogates are not, so a new event carrying one is bad input. A whole number given as a
float (`3.0`) is stored as the integer it is. Stored events are never re-checked: files
written before keep verifying.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from ledger.errors import BadInput

#: The largest integer every JSON reader holds exactly (JavaScript's Number.MAX_SAFE_INTEGER).
SAFE_INTEGER: Final = 2**53 - 1
#: How deeply a value may nest (objects and arrays inside each other): far beyond any event's,
#: and far below where a reader's recursion would give out.
MAX_DEPTH: Final = 64


def plain(fields: Mapping[str, Any]) -> bool:
    """Whether every field is ASCII text, a whole number within 2^53, a boolean or null: what
    most events hold, and portable as it is (one loop, before any walk value by value)."""
    for value in fields.values():
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return False
        elif kind is int:
            if not -SAFE_INTEGER <= value <= SAFE_INTEGER:
                return False
        elif kind is not bool and value is not None:
            return False
    return True


def normalized(value: Any, depth: int = 0) -> Any:
    """`value` with every text in it (keys too) in Unicode's composed form (NFC), so that
    "Café" typed on one keyboard is the "Café" typed on another; nothing else changes. Bad
    input when it nests more than `MAX_DEPTH` levels."""
    kind = type(value)
    if kind is int or kind is bool or value is None:  # most values: no ABC asked
        return value
    if isinstance(value, str):
        return value if value.isascii() else unicodedata.normalize("NFC", value)
    if isinstance(value, Mapping | list | tuple) and depth > MAX_DEPTH:
        raise BadInput(f"an event nests more than {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        return {normalized(k): normalized(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalized(v, depth + 1) for v in value]
    return value


def portable_fields(fields: Mapping[str, Any], what: str) -> dict[str, Any]:
    """An event's fields with whole floats made ints, or bad input naming the first field
    whose value would not hash alike in every language."""
    return dict(fields) if plain(fields) else walked(fields, what)


def walked(fields: Mapping[str, Any], what: str) -> dict[str, Any]:
    """`portable_fields` of fields known not to be `plain`: each value looked at in turn."""
    return {key: _value(value, key, what) for key, value in fields.items()}


def _value(value: Any, path: str, what: str, depth: int = 1) -> Any:
    # Exact types first: text and whole numbers are nearly every value of every event.
    kind = type(value)
    if kind is str:
        return _text(value, path, what)
    if kind is int:
        if -SAFE_INTEGER <= value <= SAFE_INTEGER:
            return value
        raise _beyond(value, path, what)
    if isinstance(value, Mapping | list | tuple) and depth > MAX_DEPTH:
        raise BadInput(f"{what} field {path!r} nests more than {MAX_DEPTH} levels deep")
    deeper = depth + 1
    if kind is dict:  # exact containers before the ABC checks below (a sheet's values)
        return {
            _value(k, path, what): _value(v, f"{path}.{k}", what, deeper) for k, v in value.items()
        }
    if kind is list:
        return [_value(v, f"{path}[{i}]", what, deeper) for i, v in enumerate(value)]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):  # an int subclass (an IntEnum)
        if abs(value) > SAFE_INTEGER:
            raise _beyond(value, path, what)
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadInput(f"{what} field {path!r}: {value!r} is a number that JSON cannot carry")
        if not value.is_integer():
            raise BadInput(
                f"{what} field {path!r}: {value!r} is not a whole number; events hold whole "
                "numbers only, so that any language recomputes the same hash (give it as "
                "text, or in smaller units)"
            )
        if abs(value) > SAFE_INTEGER:
            raise _beyond(value, path, what)
        return int(value)
    if isinstance(value, str):
        return _text(value, path, what)
    if isinstance(value, Mapping):
        return {
            _value(k, path, what): _value(v, f"{path}.{k}", what, deeper) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_value(v, f"{path}[{i}]", what, deeper) for i, v in enumerate(value)]
    raise BadInput(
        f"{what} field {path!r}: a {kind.__name__} is not a JSON value (an event holds text, "
        "whole numbers, true or false, null, lists and objects)"
    )


def _text(value: str, path: str, what: str) -> str:
    # UTF-8 refuses exactly the surrogate code points: one C pass instead of one per character.
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise BadInput(f"{what} field {path!r}: the text holds a lone surrogate") from exc
    return value


def _beyond(value: float, path: str, what: str) -> BadInput:
    return BadInput(
        f"{what} field {path!r}: {value!r} is beyond 2^53 - 1, which other languages "
        "cannot hold exactly (the hash would not be portable)"
    )
