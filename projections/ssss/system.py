"""Stones, Scrolls, Swords and Sorcery (rules/enemy-harm-slots.txt): the description."""

from __future__ import annotations

from projections.system import System

SYSTEM = System(
    listed=3,
    key="ssss",
    title="Stones, Scrolls, Swords and Sorcery",
    ruleset="projections.ssss.fold:RULESET",
    verbs="projections.ssss.verbs:VERBS",
    verb_names=("throw", "harm", "grit"),
    fields={
        "attribute": "The attribute thrown.",
        "throw.made.outcome": "The throw's result as the GM called it (free text).",
        "harm_level": "The Harm level the throw gave.",
        "draw_break": "A draw or break in the throw, as the GM called it.",
        "level": "The Harm level: placed in the lowest tier at or above it with a free slot.",
        "throw": "The seq of the throw that gave this harm.",
        "from_level": "The level of the injury Grit lowers.",
        "to_level": "The level it becomes (0: resisted entirely).",
    },
    rules={
        "max_per_tier": "Harm slots in each tier (the text's maximum is 3).",
        "top_tier_exhaustion_defeats_on_any_harm": 'The literal reading of "once their available '
        "Level 4 Harm is exhausted, further Harm defeats them\": once tier 4 is an enemy's top "
        "tier and full, any harm defeats it.",
        "penalty_stacking": "per_distinct_tier: one penalty a tier holding harm; highest_only: "
        "only the highest tier's.",
        "pc_lethal_harm_level": "The Harm level that kills a player character.",
    },
    examples={
        "new": ('encounter new ford --system ssss --title "Bandits at the ford"',),
        "tracks": ("encounter tracks examples/ssss-bandits.jsonl --without 5",),
        "replay": ("encounter replay examples/ssss-bandits.jsonl --step",),
        "rules": ("encounter rules ssss",),
        "harm": ("encounter harm bandits Bandit 2 --throw 4", "encounter harm bandits Bandit 1"),
        "throw": (
            'encounter throw bandits "Bandit Chief" swords --outcome "a deep cut" --harm-level 2',
            'encounter throw bandits Ash stones --outcome "the door gives"',
        ),
        "grit": (
            "encounter grit bandits Ash --from 2 --to 1",
            "encounter grit bandits Ash --from 1 --to 0",
        ),
    },
)
