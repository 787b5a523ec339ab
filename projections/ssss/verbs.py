"""Stones, Scrolls, Swords and Sorcery verbs, as data: `throw` (throw.made), `harm`
(harm.inflicted) and `grit` (grit.used)."""

from __future__ import annotations

from typing import Final

from projections.ssss.events import Attribute
from projections.verbs import Param, Verb

VERBS: Final = (
    Verb(
        name="throw",
        event="throw.made",
        help="Record a Throw as the GM called it: the attribute, the outcome and the Harm level "
        "it gave.",
        params=(
            Param("actor", str, "Who throws.", field="actor", complete="combatants"),
            Param("attribute", Attribute, "The attribute thrown.", field="attribute"),
            Param(
                "outcome", str, "The outcome, as the GM called it.", ("--outcome",), field="outcome"
            ),
            Param(
                "harm_level",
                int | None,
                "The Harm level it gave.",
                ("--harm-level",),
                None,
                "harm_level",
            ),
            Param(
                "draw_break",
                str | None,
                "A Draw Break and its result, in words.",
                ("--draw-break",),
                None,
                "draw_break",
            ),
        ),
    ),
    Verb(
        name="harm",
        event="harm.inflicted",
        help="Inflict Harm: the lowest free slot at or above its level, else defeat.",
        params=(
            Param("target", str, "Who takes the Harm.", field="target", complete="combatants"),
            Param("level", int, "The Harm level.", field="level"),
            Param(
                "throw",
                int | None,
                "The seq of the Throw that inflicted it.",
                ("--throw",),
                None,
                "throw",
            ),
        ),
    ),
    Verb(
        name="grit",
        event="grit.used",
        help="A player uses Grit: an injury of one level lessened, or resisted (--to 0).",
        params=(
            Param("target", str, "The player.", field="target", complete="combatants"),
            Param("from_level", int, "The level of the injury.", ("--from",), field="from_level"),
            Param(
                "to_level", int, "The level it becomes (0: resisted).", ("--to",), field="to_level"
            ),
        ),
    ),
)
