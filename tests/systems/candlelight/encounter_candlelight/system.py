"""The description of Candlelight: what the ledger needs to know, as import strings."""

from __future__ import annotations

from ledger.systems import System

SYSTEM = System(
    key="candlelight",
    title="Candlelight",
    events="encounter_candlelight.events",
    ruleset="encounter_candlelight.fold:RULESET",
    verbs="encounter_candlelight.verbs:verbs",
    verb_names=("snuff",),
    charts="encounter_candlelight.fold:measures",
    shown="encounter_candlelight.shown:TRACKS",
    attrition=frozenset({"candle.snuffed"}),
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
