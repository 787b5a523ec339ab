"""Legend of the Five Rings verbs, as data: `damage` (damage.dealt), `critical`
(critical.resolved), `recover` (fatigue.removed), `rest` (rest.taken), `spend-void` and
`gain-void` (void.spent, void.gained)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from projections.l5r.events import DamageType
from projections.verbs import Param, Verb


def _damage(values: Mapping[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "type": "damage.dealt",
        "target": values["target"],
        "amount": values["amount"],
        "damage_type": values["damage_type"],
        "increases": values.get("increase") or [],
        "reductions": values.get("reduction") or [],
        "voluntary_critical": bool(values.get("void_critical")),
    }
    if values.get("cannot_defend"):
        fields["can_defend"] = False
    if values.get("deadliness") is not None:
        fields["deadliness"] = values["deadliness"]
    # --source is the old spelling of --weapon (lock's --source was another thing).
    weapon = values.get("weapon") or values.get("source")
    if weapon is not None:
        fields["source"] = weapon
    return fields


VERBS: Final = (
    Verb(
        name="damage",
        event="damage.dealt",
        help="Deal damage: increases, then reductions and resistance; fatigue or a critical "
        "strike.",
        params=(
            Param("target", str, "Who takes the damage.", field="target", complete="combatants"),
            Param("amount", int, "The damage dealt, before changes.", field="amount"),
            Param(
                "damage_type",
                DamageType,
                "The damage type (picks the resistance).",
                ("--type",),
                default="physical",
                field="damage_type",
            ),
            Param(
                "deadliness",
                int | None,
                "The source's deadliness (needed for a critical).",
                ("--deadliness",),
                None,
                "deadliness",
            ),
            Param(
                "increase",
                list[int] | None,
                "A damage increase; repeat.",
                ("--increase",),
                None,
                "increases",
            ),
            Param(
                "reduction",
                list[int] | None,
                "A reduction besides resistance; repeat.",
                ("--reduction",),
                None,
                "reductions",
            ),
            Param(
                "void_critical",
                bool,
                "Spend 1 Void point to take a critical strike.",
                ("--void-critical",),
                default=False,
                field="voluntary_critical",
            ),
            Param(
                "cannot_defend",
                bool,
                "The target cannot defend (unaware, bound): a critical strike.",
                ("--cannot-defend",),
                default=False,
            ),
            Param(
                "weapon",
                str | None,
                "The weapon, power or phenomenon.",
                ("--weapon",),
                None,
                "source",
            ),
            Param("source", str | None, "", ("--source",), None, hidden=True),
        ),
        build=_damage,
    ),
    Verb(
        name="critical",
        event="critical.resolved",
        help="Resolve a critical strike: the severity it ended at, after any Fitness check.",
        params=(
            Param("target", str, "Who suffers it.", field="target", complete="combatants"),
            Param("severity", int, "The final severity.", field="severity"),
            Param(
                "fitness",
                int | None,
                "Successes on the Fitness check.",
                ("--fitness",),
                None,
                "fitness_successes",
            ),
            Param(
                "damage",
                int | None,
                "The seq of the damage it resolves (default: the oldest pending).",
                ("--damage-seq",),
                None,
                "damage",
            ),
        ),
    ),
    Verb(
        name="recover",
        event="fatigue.removed",
        help="Remove fatigue (Medicine, an effect...).",
        params=(
            Param("target", str, "Who recovers.", field="target", complete="combatants"),
            Param("amount", int, "Fatigue removed.", field="amount"),
            Param("cause", str | None, "Why.", ("--cause",), None, "cause"),
        ),
    ),
    Verb(
        name="rest",
        event="rest.taken",
        help="A full night's rest: fatigue drops by twice the Water ring.",
        params=(Param("target", str, "Who rests.", field="target", complete="combatants"),),
    ),
    Verb(
        name="spend-void",
        event="void.spent",
        help="Spend Void points.",
        params=(
            Param("target", str, "Who spends them.", field="target", complete="combatants"),
            Param("amount", int, "Void points spent.", field="amount", default=1),
        ),
    ),
    Verb(
        name="gain-void",
        event="void.gained",
        help="Gain Void points (up to the Void ring).",
        params=(
            Param("target", str, "Who gains them.", field="target", complete="combatants"),
            Param("amount", int, "Void points gained.", field="amount", default=1),
        ),
    ),
)
