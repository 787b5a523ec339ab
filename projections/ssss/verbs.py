"""Stones, Scrolls, Swords and Sorcery verbs, as data: `harm`, a `harm.inflicted` event."""

from __future__ import annotations

from typing import Final

from projections.verbs import Param, Verb

VERBS: Final = (
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
)
