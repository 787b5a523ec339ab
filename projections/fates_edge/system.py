"""Fate's Edge (rules/adversary-resolution.txt): the description of the system."""

from __future__ import annotations

from projections.system import System

SYSTEM = System(
    listed=1,
    key="fates-edge",
    title="Fate's Edge",
    ruleset="projections.fates_edge.fold:RULESET",
    verbs="projections.fates_edge.verbs:VERBS",
    verb_names=("lock", "roll", "hit", "fatigue", "spend", "suffer"),
    fields={
        "stakes.locked.kind": "action (the player acts) or defense (against an adversary's "
        "threat).",
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
        "stakes.locked.source": "What put the test on the table (and what it cost the GM).",
        "dice": "The d10 faces rolled: 6-9 one success, 10 two, each 1 an SB for the GM.",
        "ignore_armor": "Armor categories ignored (each one step lower), or `all`.",
        "fatigue.marked.amount": "Fatigue marked.",
        "sb.spent.amount": "Story Beats spent from the GM's pool.",
        "purpose": "What the SB spend buys.",
    },
    rules={
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
    examples={
        "new": ("encounter new duel --system fates-edge --rules house.json",),
        "replay": ("encounter replay examples/fates-edge-ambush.jsonl --json | head",),
        "report": ("encounter report examples/fates-edge-ambush.jsonl --html ambush-report.html",),
        "schema": ("encounter schema --system fates-edge > events.schema.json",),
        "rules": ("encounter rules fates-edge --json",),
        "events": ("encounter events fates-edge", "encounter events fates-edge hit.resolved"),
        "lock": (
            'encounter lock duel cut --actor Ash --against "Silken Blade" --harm 2 --dv 3',
            "encounter lock duel parry --actor Ash --kind defense --consequence-harm 2",
        ),
        "roll": ("encounter roll duel cut --dice 10,7,1", "encounter roll duel cut --pool 5"),
        "hit": (
            'encounter hit duel "Silken Blade" 3 --stake cut',
            'encounter hit duel "Silken Blade" 3 --ignore-armor all',
        ),
        "fatigue": ('encounter fatigue duel "Silken Blade" 2 --cause "rooftop chase"',),
        "spend": (
            "encounter spend duel 1 --for attack --stake stab",
            "encounter spend duel 2 --for move --move Pounce",
        ),
        "suffer": ("encounter suffer duel Ash 2 --stake stab",),
    },
)
