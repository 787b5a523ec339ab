"""Ironsworn verbs, as data: `endure-harm` (harm.suffered), `action-roll` (roll.made), `burn`
(momentum.burned), `choose` (choice.made), `mark-debility` and `clear-debility`, `meter`
(meter.changed) and `oracle` (oracle.rolled).

The choices they offer are the events' own; the dice left out on the command line are rolled
by the ledger (the event stores faces only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from projections.ironsworn.events import Debility, Meter, Rank, Stat, Strong
from projections.verbs import Dice, Param, Verb, last_roll, set_given


def challenge_dice(text: str) -> list[int]:
    """Two challenge dice from `A,B`."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--challenge {text!r} is not two dice like 3,8")
    return [int(p) for p in parts]


def _action_roll(values: Mapping[str, Any]) -> dict[str, Any]:
    stat = values.get("using") or values.get("stat")  # --stat: the old spelling
    if stat is None:
        raise ValueError("action-roll needs --using STAT (edge, heart, iron, ...)")
    fields = {
        "type": "roll.made",
        "actor": values["actor"],
        "move": values["move"],
        "stat": stat,
        "action_die": values["die"],
        "challenge": values["challenge"],
        "adds": values["adds"],
    }
    return set_given(fields, outcome=values.get("outcome"))


_CHARACTER = "The character."

VERBS: Final = (
    Verb(
        name="endure-harm",
        event="harm.suffered",
        help="Endure Harm: -health (amount, else rank, else the foe's rank, else 2), rest "
        "-momentum.",
        params=(
            Param(
                "target",
                str,
                "The character who suffers the harm.",
                field="target",
                complete="combatants",
            ),
            Param(
                "amount",
                int | None,
                "The harm, as a move or asset names it.",
                ("--amount",),
                None,
                "amount",
            ),
            Param(
                "rank",
                Rank | None,
                "Harm of a rank: troublesome 1 ... epic 5.",
                ("--rank",),
                None,
                "rank",
            ),
            Param(
                "foe",
                str | None,
                "The attacking foe: its rank is the harm.",
                ("--foe",),
                None,
                "foe",
                complete="combatants",
            ),
        ),
    ),
    Verb(
        name="action-roll",
        event="roll.made",
        help="An action roll: d6 + stat + adds (max 10) against two d10s.",
        params=(
            Param("actor", str, "The character who rolls.", complete="combatants"),
            Param(
                "using",
                Stat | None,
                "The stat or meter added (required).",
                ("--using",),
                None,
                "stat",
            ),
            Param("stat", Stat | None, "", ("--stat",), None, hidden=True),
            Param(
                "move",
                str,
                "The move: endure_harm, or another.",
                ("--move",),
                "endure_harm",
                "move",
            ),
            Param(
                "die",
                int | None,
                "The action die (d6); rolled when left out.",
                ("--die",),
                None,
                "action_die",
            ),
            Param(
                "challenge",
                str | None,
                "The challenge dice as A,B; rolled when left out.",
                ("--challenge",),
                None,
                "challenge",
                parse=challenge_dice,
            ),
            Param("adds", int, "Adds to the action score.", ("--adds",), 0, "adds"),
            Param(
                "outcome",
                str | None,
                "The table's call (strong_hit/weak_hit/miss), checked.",
                ("--outcome",),
                None,
                "outcome",
            ),
        ),
        dice=(Dice("action_die", 6, single=True), Dice("challenge", 10, 2)),
        build=_action_roll,
    ),
    Verb(
        name="oracle",
        event="oracle.rolled",
        help="Roll on the Endure Harm oracle (d100): face death, dying, unconscious, reeling...",
        params=(
            Param(
                "target",
                str,
                "The character the result is for.",
                field="target",
                complete="combatants",
            ),
            Param(
                "result",
                int | None,
                "The d100 result; rolled when left out.",
                ("--roll",),
                None,
                "roll",
            ),
        ),
        fixed={"table": "endure_harm"},
        dice=(Dice("roll", 100, single=True),),
    ),
    Verb(
        name="burn",
        event="momentum.burned",
        help="Burn momentum on a roll: challenge dice below it are cancelled, then momentum "
        "resets.",
        params=(
            Param("target", str, _CHARACTER, field="target", complete="combatants"),
            Param(
                "roll",
                int | None,
                "The seq of the roll (default: that character's last roll).",
                ("--roll-seq",),
                None,
                "roll",
                infer=last_roll("target"),
            ),
        ),
    ),
    Verb(
        name="choose",
        event="choice.made",
        help="The strong-hit choice of Endure Harm: shake_it_off (-momentum, +health) or "
        "embrace_the_pain (+momentum).",
        params=(
            Param("target", str, _CHARACTER, field="target", complete="combatants"),
            Param("option", Strong, "shake_it_off or embrace_the_pain.", field="option"),
        ),
    ),
    Verb(
        name="mark-debility",
        event="debility.marked",
        help="Mark a debility (wounded, shaken, maimed...): max momentum and its reset drop.",
        params=(
            Param("target", str, _CHARACTER, field="target", complete="combatants"),
            Param("debility", Debility, "The debility marked.", field="debility"),
        ),
    ),
    Verb(
        name="clear-debility",
        event="debility.cleared",
        help="Clear a debility: max momentum and its reset rise again.",
        params=(
            Param("target", str, _CHARACTER, field="target", complete="combatants"),
            Param("debility", Debility, "The debility cleared.", field="debility"),
        ),
    ),
    Verb(
        name="meter",
        event="meter.changed",
        help="Move a meter (health, spirit, supply, momentum) up or down.",
        params=(
            Param("target", str, _CHARACTER, field="target", complete="combatants"),
            Param("meter", Meter, "The meter.", field="meter"),
            Param("amount", int, "The change: 2, or -1.", ("--amount",), field="amount"),
            Param("cause", str | None, "Why.", ("--cause",), None, "cause"),
        ),
    ),
)
