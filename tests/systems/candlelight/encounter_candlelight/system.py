"""The description of Candlelight: what the ledger needs to know before it folds an event."""

from __future__ import annotations

from projections.system import System

SYSTEM = System(
    key="candlelight",
    title="Candlelight",
    ruleset="encounter_candlelight.fold:RULESET",
    verbs="encounter_candlelight.verbs:VERBS",
    verb_names=("snuff",),
    fields={
        "candles": "The candles a combatant holds (the most it can hold).",
        "count": "How many candles.",
        "candle.snuffed.count": "Candles snuffed by the blow.",
        "candle.lit.count": "Candles lit again (never past the combatant's candles).",
    },
    rules={"dark_defeats": "Whether a combatant whose last candle goes out is defeated."},
    examples={
        "new": ("encounter new vigil --system candlelight",),
        "snuff": ("encounter snuff vigil Wisp 2",),
    },
)
