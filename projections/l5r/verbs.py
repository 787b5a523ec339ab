"""Legend of the Five Rings verbs, as data: `damage`, a `damage.dealt` event."""

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
            Param("target", str, "Who takes the damage.", complete="combatants"),
            Param("amount", int, "The damage dealt, before changes."),
            Param(
                "damage_type",
                DamageType,
                "The damage type (picks the resistance).",
                ("--type",),
                default="physical",
            ),
            Param(
                "deadliness",
                int | None,
                "The source's deadliness (needed for a critical).",
                ("--deadliness",),
                None,
            ),
            Param(
                "increase", list[int] | None, "A damage increase; repeat.", ("--increase",), None
            ),
            Param(
                "reduction",
                list[int] | None,
                "A reduction besides resistance; repeat.",
                ("--reduction",),
                None,
            ),
            Param(
                "void_critical",
                bool,
                "Spend 1 Void point to take a critical strike.",
                ("--void-critical",),
                default=False,
            ),
            Param("weapon", str | None, "The weapon, power or phenomenon.", ("--weapon",), None),
            Param("source", str | None, "", ("--source",), None, hidden=True),
        ),
        build=_damage,
    ),
)
