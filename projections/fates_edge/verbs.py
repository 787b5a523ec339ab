"""Fate's Edge verbs, as data: `lock`, `roll`, `hit`, `fatigue`, `spend`, `suffer`.

The choices they offer are the events' own; the dice left out of `roll` are rolled by the
ledger (the event stores faces only, never a bare outcome).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from projections.fates_edge.events import (
    MOST_DICE,
    Effect,
    Position,
    Purpose,
    StakeKind,
    StakeSource,
)
from projections.verbs import Dice, Param, Verb, set_given


def faces(text: str) -> list[int]:
    """d10 faces from `6,7,1`."""
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise ValueError(f"--dice {text!r} is not d10 faces like 6,7,1")
    return [int(p) for p in parts]


def ignored(text: str) -> int | str:
    """Armor points ignored: a whole number, or `all`."""
    if text == "all":
        return text
    if not text.isdigit():
        why = (
            "armor steps ignored cannot be negative (0 ignores none)"
            if text.lstrip("-").isdigit()
            else "give a whole number of armor steps, or 'all'"
        )
        raise ValueError(f"--ignore-armor {text!r}: {why}")
    return int(text)


def _lock(v: Mapping[str, Any]) -> dict[str, Any]:
    lesser = set_given({}, harm=v.get("partial_harm"), text=v.get("partial"))
    return set_given(
        {"type": "stakes.locked", "stake": v["stake"], "actor": v["actor"], "kind": v["kind"]},
        opposing=v.get("against"),
        target=v.get("target"),
        position=v.get("position"),
        dv=v.get("dv"),
        effect=v.get("effect"),
        harm=v.get("harm"),
        effect_harm=v.get("effect_harm"),
        consequence_harm=v.get("consequence_harm"),
        partial=lesser or None,
        source=v.get("source") or v.get("origin"),  # --source: the old spelling of --origin
        move=v.get("move"),
        intent=v.get("intent"),
        consequence=v.get("consequence"),
    )


_STAKE = "The stake id naming this test."
_WHO = "Who takes it."

VERBS: Final = (
    Verb(
        name="lock",
        event="stakes.locked",
        help="Lock the stakes of a test: Position, DV, Effect, Harm and consequence, before "
        "rolling.",
        params=(
            Param("stake", str, _STAKE, field="stake"),
            Param(
                "actor",
                str,
                "The player who rolls.",
                ("--actor",),
                complete="combatants",
                field="actor",
            ),
            Param(
                "against",
                str | None,
                "The opposing adversary.",
                ("--against",),
                None,
                complete="combatants",
                field="opposing",
            ),
            Param(
                "target",
                str | None,
                "Whom a hit lands on.",
                ("--target",),
                None,
                complete="combatants",
                field="target",
            ),
            Param("kind", StakeKind, "action or defense.", ("--kind",), "action", field="kind"),
            Param(
                "position",
                Position,
                "The locked Position.",
                ("--position",),
                "controlled",
                field="position",
            ),
            Param("dv", int | None, "DV (default: the rules').", ("--dv",), None, field="dv"),
            Param("effect", Effect, "Effect.", ("--effect",), "standard", field="effect"),
            Param("harm", int | None, "Harm on a success.", ("--harm",), None, field="harm"),
            Param(
                "effect_harm",
                int | None,
                "Damage change from Effect.",
                ("--effect-harm",),
                None,
                field="effect_harm",
            ),
            Param(
                "consequence_harm",
                int | None,
                "Harm if the response fails.",
                ("--consequence-harm",),
                None,
                field="consequence_harm",
            ),
            Param(
                "partial_harm",
                int | None,
                "Harm a Partial deals (or lets in).",
                ("--partial-harm",),
                None,
                field="partial.harm",
            ),
            Param(
                "partial",
                str | None,
                "The lesser progress or protection.",
                ("--partial",),
                None,
                field="partial.text",
            ),
            Param(
                "origin",
                StakeSource,
                "What put the test on the table.",
                ("--origin",),
                "player",
                field="source",
            ),
            Param("source", StakeSource | None, "", ("--source",), None, hidden=True),
            Param("move", str | None, "The adversary's move.", ("--move",), None, field="move"),
            Param("intent", str | None, "What is attempted.", ("--intent",), None, field="intent"),
            Param(
                "consequence",
                str | None,
                "What a failure costs.",
                ("--consequence",),
                None,
                field="consequence",
            ),
        ),
        build=_lock,
    ),
    Verb(
        name="roll",
        event="roll.made",
        help="Roll (or record the faces of) a locked test: successes, SB and outcome.",
        params=(
            Param("stake", str, _STAKE, field="stake", stake=True),
            Param(
                "dice",
                str | None,
                "The d10 faces, e.g. 6,7,1.",
                ("--dice",),
                None,
                "dice",
                parse=faces,
            ),
            Param(
                "pool",
                int | None,
                "Roll this many d10s when --dice is left out.",
                ("--pool",),
                None,
            ),
            Param("actor", str | None, "Who rolls.", ("--actor",), None, "actor"),
            Param(
                "claim",
                str | None,
                "The table's call, checked by the audit.",
                ("--outcome",),
                None,
                "outcome",
            ),
        ),
        dice=(
            Dice(
                "dice",
                10,
                count="pool",
                most=MOST_DICE,
                missing="roll needs --dice FACES (e.g. 6,7,1) or --pool N to roll N d10s",
            ),
        ),
    ),
    Verb(
        name="hit",
        event="hit.resolved",
        help="A damaging hit: armor conversion, Resilience, Fatigue, one overflow check.",
        params=(
            Param("target", str, _WHO, field="target", complete="combatants"),
            Param("harm", int, "Incoming Harm, bonuses included.", field="harm"),
            Param("stake", str | None, "The stake it resolves.", ("--stake",), None, "stake"),
            Param(
                "ignore_armor",
                str | None,
                "Armor points ignored, or 'all'.",
                ("--ignore-armor",),
                None,
                "ignore_armor",
                parse=ignored,
            ),
        ),
    ),
    Verb(
        name="fatigue",
        event="fatigue.marked",
        help="Mark Fatigue directly, with one overflow check.",
        params=(
            Param("target", str, _WHO, field="target", complete="combatants"),
            Param("amount", int, "Fatigue marked.", field="amount"),
            Param("cause", str | None, "Why.", ("--cause",), None, "cause"),
        ),
    ),
    Verb(
        name="spend",
        event="sb.spent",
        help="The GM spends Story Beats from the pool.",
        params=(
            Param("amount", int, "SB spent.", field="amount"),
            Param("purpose", Purpose, "What the SB buy.", ("--for",), field="purpose"),
            Param("move", str | None, "The named move.", ("--move",), None, "move"),
            Param("stake", str | None, "The stake it buys or shapes.", ("--stake",), None, "stake"),
        ),
    ),
    Verb(
        name="suffer",
        event="harm.suffered",
        help="A player suffers the consequence of a failed response (armor, Harm, Fatigue).",
        params=(
            Param("target", str, _WHO, field="target", complete="combatants"),
            Param("harm", int, "The Harm of the consequence.", field="harm"),
            Param("stake", str, "The failed response's stake.", ("--stake",), field="stake"),
        ),
    ),
)
