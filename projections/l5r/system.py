"""Legend of the Five Rings (rules/l5r-damage.txt): the description of the system."""

from __future__ import annotations

from projections.system import System

SYSTEM = System(
    listed=4,
    key="l5r",
    title="Legend of the Five Rings",
    ruleset="projections.l5r.fold:RULESET",
    verbs="projections.l5r.verbs:VERBS",
    verb_names=("damage", "critical", "recover", "rest", "spend-void", "gain-void"),
    fields={
        "damage.dealt.source": "The weapon, power or phenomenon.",
        "damage.dealt.amount": "The damage dealt, before increases, reductions and resistance.",
        "damage_type": "Physical or supernatural (which resistance applies).",
        "deadliness": "The source's deadliness (the severity of a critical strike it causes).",
        "increases": "Damage increases, applied first.",
        "reductions": "Reductions besides resistance.",
        "voluntary_critical": "The target spends 1 Void point to take a critical strike instead.",
        "can_defend": "false: the target cannot defend (unaware, bound): a critical strike.",
        "severity": "The critical strike's final severity.",
        "fitness_successes": "Successes on the Fitness check that lowered the severity.",
        "damage": "The seq of the damage whose pending critical strike this resolves.",
        "fatigue.removed.amount": "Fatigue removed.",
        "void.spent.amount": "Void points spent.",
        "void.gained.amount": "Void points gained.",
    },
    rules={
        "incapacitation_comparison": "`>`: fatigue that exceeds endurance incapacitates (the "
        "text); `>=`: fatigue that reaches it.",
        "void_points_start": "Void points with no `void_points` stat: half the Void ring, "
        "rounded up or down.",
        "unconscious_severity": "Severity a critical strike on an Unconscious character adds "
        "(recorded in its deadliness; the audit warns when it is missing); 0: none.",
        "unconscious_ends": "`incapacitated`: Unconscious ends when Incapacitated does (fatigue "
        "back to endurance or below: recovery, rest, the scene's end); `gm`: only a GM "
        "override (`track.adjusted` of `unconscious`).",
    },
    examples={
        "audit": ("encounter audit examples/l5r-duel.jsonl --json",),
        "export": ("encounter export examples/l5r-duel.jsonl --format md",),
        "damage": (
            'encounter damage duel "Akodo Toshiro" 4 --increase 2 --deadliness 5 --weapon katana',
            'encounter damage duel "Akodo Toshiro" 8 --deadliness 5 --void-critical',
        ),
        "critical": (
            'encounter critical duel "Akodo Toshiro" 3 --fitness 2',
            'encounter critical duel "Akodo Toshiro" 5 --damage-seq 12',
        ),
        "recover": ('encounter recover duel "Akodo Toshiro" 2 --cause Medicine',),
        "rest": ('encounter rest duel "Akodo Toshiro"',),
        "spend-void": (
            'encounter spend-void duel "Akodo Toshiro"',
            'encounter spend-void duel "Akodo Toshiro" 2',
        ),
        "gain-void": ('encounter gain-void duel "Akodo Toshiro"',),
    },
)
