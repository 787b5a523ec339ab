"""How Candlelight's tracks read: the candles still lit, as a row of candles (`iii`), or `dark`.

Its state class names these readings (`State.readings`); this module imports nothing but
`projections.shown`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from projections.shown import Reading, Readings


def _count(v: Any) -> int | None:
    # The fold's count of lit candles; a sheet (`tracks.noted`) may say anything else.
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 20 else None


def lit_cell(v: Any) -> str | None:
    """A candle a lit one, `iii`; `dark` when none is."""
    count = _count(v)
    return None if count is None else "i" * count or "dark"


def lit_sentence(v: Any) -> str | None:
    """`2 candles`, `1 candle`, `dark`."""
    count = _count(v)
    if count is None:
        return None
    return "dark" if count == 0 else f"{count} candle{'s' * (count != 1)}"


TRACKS: Readings = MappingProxyType({"lit": Reading(cell=lit_cell, sentence=lit_sentence)})
