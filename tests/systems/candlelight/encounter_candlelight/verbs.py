"""Candlelight's verb, as data: `snuff`, a `candle.snuffed` event."""

from __future__ import annotations

from typing import Final

from projections.verbs import Param, Verb

VERBS: Final = (
    Verb(
        name="snuff",
        event="candle.snuffed",
        help="Snuff candles: the last one out leaves the combatant in the dark (defeated).",
        params=(
            Param("target", str, "Whose candles go out.", field="target"),
            Param("count", int, "How many candles.", default=1, field="count"),
        ),
    ),
)
