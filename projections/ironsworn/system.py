"""Ironsworn (rules/ironsworn-endure-harm.txt): the description of the system."""

from __future__ import annotations

from projections.system import System

SYSTEM = System(
    listed=2,
    key="ironsworn",
    title="Ironsworn",
    ruleset="projections.ironsworn.fold:RULESET",
    verbs="projections.ironsworn.verbs:VERBS",
    verb_names=(
        "endure-harm",
        "action-roll",
        "burn",
        "choose",
        "mark-debility",
        "clear-debility",
        "meter",
        "oracle",
    ),
    journals={"iron-vault": "projections.ironsworn.ironvault:plan"},
    fields={
        "stat": "The stat or meter added to the action die.",
        "action_die": "The action die (d6).",
        "challenge": "The two challenge dice (d10).",
        "adds": "Adds to the action score (the score is capped at 10).",
        "harm.suffered.amount": "The harm, as a move or asset names it.",
        "rank": "Harm of a rank: troublesome 1, dangerous 2, formidable 3, extreme 4, epic 5.",
        "foe": "The attacking foe: its rank is the harm.",
        "roll": "The seq of the roll it changes; for an oracle, the d100 result.",
        "oracle.rolled.roll": "The d100 result (1-100).",
        "momentum.burned.roll": "The seq of the roll whose outcome the burn replaces.",
        "option": "The strong-hit choice.",
        "debility": "The debility marked or cleared.",
        "table": "The oracle table rolled on.",
        "meter": "The meter changed.",
        "meter.changed.amount": "The change, up or down.",
    },
    rules={
        "edition": "The rules edition (classic Ironsworn; Starforged is not loaded).",
        "harm_default": "Harm when no amount, rank or foe is named.",
        "rank_harm": "Harm by foe rank.",
        "score_cap": "The action score's cap.",
        "momentum_min": "The lowest momentum (a loss past it calls for Face a Setback).",
        "momentum_max": "Momentum's maximum with no debilities.",
        "momentum_start": "Momentum a character starts with.",
        "momentum_reset": "Momentum after a burn with 0, 1, and 2+ debilities.",
        "strong_hit_text": "move: shake it off trades momentum for health; commentary: +1 "
        "health at no cost.",
        "shake_it_off_at_max_health": "Whether shake it off is allowed at full health, with a "
        "warning, or not (momentum is then not paid).",
        "wounded_blocks_shake_it_off": "Whether wounded blocks shake it off (health cannot rise).",
        "burn_momentum_allowed": "Whether momentum may be burned on Endure Harm.",
    },
    examples={
        "endure-harm": (
            "encounter endure-harm ford Kira --foe Chief",
            "encounter endure-harm ford Kira --rank dangerous",
        ),
        "action-roll": (
            "encounter action-roll ford Kira --using iron --die 1 --challenge 5,9",
            "encounter action-roll ford Kira --using iron",
        ),
        "oracle": ("encounter oracle ford Kira --roll 42", "encounter oracle ford Kira"),
        "events": ("encounter events ironsworn momentum.burned --json",),
        "burn": ("encounter burn ford Kira", "encounter burn ford Kira --roll-seq 5"),
        "choose": (
            "encounter choose ford Kira shake_it_off",
            "encounter choose ford Kira embrace_the_pain",
        ),
        "mark-debility": ("encounter mark-debility ford Kira wounded",),
        "clear-debility": ("encounter clear-debility ford Kira wounded",),
        "meter": (
            'encounter meter ford Kira spirit --amount -1 --cause "a grim omen"',
            "encounter meter ford Kira momentum --amount 2",
        ),
    },
)
