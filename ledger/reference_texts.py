"""What every event field and house rule means, in one place: the JSON Schema's descriptions,
`encounter rules` and docs/events.md are made from these texts (`ledger.reference`).

A field's text is looked up as `TYPE.FIELD` first, then `FIELD`; a test fails when an event
model has a field with no text here.
"""

from __future__ import annotations

from typing import Final

#: The envelope keys, optional on every line of an events file.
ENVELOPE: Final[dict[str, str]] = {
    "encounter": "The encounter's name (assigned on import when absent).",
    "seq": "The event's position in its encounter: 1, 2, ... with no gaps.",
    "id": "A UUID naming the event everywhere; importing it again is a no-op.",
    "recorded_at": "When it was recorded (ISO 8601, UTC).",
    "prev_hash": "The previous event's hash (64 zeros for seq 1).",
    "hash": "SHA-256 of the sorted, compact JSON of the envelope with the body (DESIGN 3).",
    "retracted_by": "An annotation of `log --json`: the seq that retracts this event.",
    "corrected_by": "An annotation of `log --json`: the seq of the correction in force on it.",
}

FIELDS: Final[dict[str, str]] = {
    # Common to every event.
    "type": "The event type (required): names the event and the model of its fields.",
    "round": "Game time: the combat round this happened in.",
    "scene": "Game time: the scene this happened in.",
    "by": "Who recorded it (a player, the GM, a bot).",
    # Common events.
    "system": "The rule system's key.",
    "title": "A title for people.",
    "rules": "The full house-rule table in force, pinned so later defaults never rewrite it.",
    "name": "The combatant's name, unique in the encounter.",
    "side": "Which side the combatant is on.",
    "stats": "The combatant's stat block; its keys are the system's (see its stats).",
    "manner": "How the combatant stopped opposing.",
    "note": "Free text about it.",
    "stake": "The id naming a test (its `stakes.locked`) in the encounter.",
    "actor": "Who acts or rolls.",
    "intent": "What the actor attempts.",
    "consequence": "What a failure costs, as announced.",
    "target": "Whom it affects: a combatant's name.",
    "event.retracted.target": "The seq it retracts (a retraction's seq: a redo).",
    "event.corrected.target": "The seq it corrects.",
    "event.retracted.kind": "undo, redo (a retraction of a retraction) or amend (0.2 streams).",
    "reason": "Why, in words (kept with the ruling).",
    "fields": "The corrected fields (null removes a key; nested keys merge).",
    "track": "The track's key (as `tracks --json` names it).",
    "value": "The value the GM sets, applied as given.",
    "values": "The table's sheet, track by track (compared by the audit, not applied).",
    "text": "The note.",
    "outcome": "The table's claimed outcome; the ledger computes its own and the audit compares.",
    "move": "The move named (an adversary's, or an Ironsworn move).",
    # Fate's Edge.
    "stakes.locked.kind": "action (the player acts) or defense (against an adversary's threat).",
    "opposing": "The opposing adversary (its Fatigue steps Position up at lock time).",
    "position": "The locked Position, the player's own penalties included.",
    "dv": "The Difficulty Value: successes needed for a full success.",
    "effect": "The locked Effect.",
    "harm": "Harm on a success (bonuses included); for a hit or suffered harm: the Harm taken.",
    "hit.resolved.harm": "The final incoming Harm, bonuses included.",
    "harm.suffered.harm": "The Harm of the consequence taken.",
    "effect_harm": "The damage change from Effect, declared at the lock or never.",
    "consequence_harm": "The Harm a failed response lets in.",
    "partial": "What a Partial gives: the lesser Harm and/or the lesser progress in words.",
    "Partial.harm": "The lesser Harm a Partial deals (or lets in, on a defense).",
    "Partial.text": "The lesser progress or protection, in words.",
    "source": "What put the test on the table (and what it cost the GM).",
    "damage.dealt.source": "The weapon, power or phenomenon.",
    "dice": "The d10 faces rolled: 6-9 one success, 10 two, each 1 an SB for the GM.",
    "ignore_armor": "Armor categories ignored (each one step lower), or `all`.",
    "amount": "How much.",
    "fatigue.marked.amount": "Fatigue marked.",
    "sb.spent.amount": "Story Beats spent from the GM's pool.",
    "cause": "What caused it, in words.",
    "purpose": "What the SB spend buys.",
    # Ironsworn.
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
    # ssss.
    "attribute": "The attribute thrown.",
    "throw.made.outcome": "The throw's result as the GM called it (free text).",
    "harm_level": "The Harm level the throw gave.",
    "draw_break": "A draw or break in the throw, as the GM called it.",
    "level": "The Harm level: placed in the lowest tier at or above it with a free slot.",
    "throw": "The seq of the throw that gave this harm.",
    "from_level": "The level of the injury Grit lowers.",
    "to_level": "The level it becomes (0: resisted entirely).",
    # L5R.
    "damage.dealt.amount": "The damage dealt, before increases, reductions and resistance.",
    "damage_type": "Physical or supernatural (which resistance applies).",
    "deadliness": "The source's deadliness (the severity of a critical strike it causes).",
    "increases": "Damage increases, applied first.",
    "reductions": "Reductions besides resistance.",
    "voluntary_critical": "The target spends 1 Void point to take a critical strike instead.",
    "severity": "The critical strike's final severity.",
    "fitness_successes": "Successes on the Fitness check that lowered the severity.",
    "damage": "The seq of the damage whose pending critical strike this resolves.",
    "fatigue.removed.amount": "Fatigue removed.",
    "void.spent.amount": "Void points spent.",
    "void.gained.amount": "Void points gained.",
}

#: House rules by system: what each key means (defaults come from the ruleset itself).
RULES: Final[dict[str, dict[str, str]]] = {
    "fates-edge": {
        "armor_table": "How each armor category converts the first 3 Harm of a hit into "
        "Harm and Fatigue (the SRD table; Harm above 3 stays Harm).",
        "armor_table_source": "Where the armor table comes from, and its contested cells.",
        "min_fatigue_per_armored_hit": "Fatigue an armored hit marks at least.",
        "position_ladder": "The Position rungs, lowest first; NPC Fatigue steps up this ladder.",
        "dv_default": "The DV of ordinary NPC opposition (`dv-default`).",
        "dv_hard": "The DV of hard NPC opposition.",
        "ordinary_attack_sb_cost": "SB an adversary's ordinary new attack costs.",
        "phase_excess_carries": "Whether Harm beyond a phase's Resilience carries into the next.",
        "player_overflow_may_loop": "Whether a player's Fatigue overflow may fire more than once "
        "a hit (the SRD's worked example: no, the excess is lost).",
        "player_dead_above_harm": "A player is dead above this Harm level.",
        "sb_carry_over_max": "The most SB the GM's pool carries over (null: no cap).",
    },
    "ironsworn": {
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
    "ssss": {
        "max_per_tier": "Harm slots in each tier (the text's maximum is 3).",
        "top_tier_exhaustion_defeats_on_any_harm": 'The literal reading of "once their available '
        "Level 4 Harm is exhausted, further Harm defeats them\": once tier 4 is an enemy's top "
        "tier and full, any harm defeats it.",
        "penalty_stacking": "per_distinct_tier: one penalty a tier holding harm; highest_only: "
        "only the highest tier's.",
        "pc_lethal_harm_level": "The Harm level that kills a player character.",
    },
    "l5r": {
        "incapacitation_comparison": "`>`: fatigue that exceeds endurance incapacitates (the "
        "text); `>=`: fatigue that reaches it.",
        "void_points_start": "Void points with no `void_points` stat: half the Void ring, "
        "rounded up or down.",
    },
}
