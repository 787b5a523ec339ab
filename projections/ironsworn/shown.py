"""How Ironsworn tracks read (conditions as the rules text names them), and what the report
charts of a combatant (`projections.charts`).

The system's state names these readings (`State.readings`); they read plain values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from projections.charts import Measure, measure
from projections.shown import Reading, Readings

#: A condition's words, as the rules text writes them (the Endure Harm oracle's rows, and the
#: move a loss past momentum's floor calls for); the key stays in `tracks --json`.
CONDITIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "face_death": "Face Death",
        "dying": "dying",
        "unconscious": "unconscious",
        "reeling": "reeling",
        "battered": "battered",
        "face_a_setback": "Face a Setback",
    }
)


def condition(key: str) -> str:
    """`face_a_setback` -> `Face a Setback`: a condition in the rules text's words."""
    return CONDITIONS.get(key, key.replace("_", " "))


#: The short words a move's name keeps in lower case (`Secure an Advantage`).
_SMALL: Final = frozenset(
    {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to"}
)


def move_name(key: str) -> str:
    """`endure_harm` -> `Endure Harm`: a move as the rules text names it (a name given in
    words, `Endure Harm`, stays as it is)."""
    words = key.replace("_", " ").split(" ")
    return " ".join(w if i and w in _SMALL else w[:1].upper() + w[1:] for i, w in enumerate(words))


def conditions_text(v: Any) -> str | None:
    """`Face a Setback, reeling`; None for what is no list of conditions (a sheet's
    `tracks.noted` may say anything) or for none (which reads as any empty value)."""
    if not (isinstance(v, list | tuple) and v and all(isinstance(x, str) for x in v)):
        return None
    return ", ".join(map(condition, v))


TRACKS: Final[Readings] = MappingProxyType(
    {"conditions": Reading(cell=conditions_text, sentence=conditions_text)}
)


def measures(view: Mapping[str, Any]) -> tuple[Measure, ...]:
    """Health and momentum (against max momentum); a foe has no meters. (Spirit and supply
    are meters of the journey more than of a fight: a chart of them is mostly flat.)"""
    return (
        *measure("Health", view, "health"),
        *measure("Momentum", view, "momentum", "max_momentum"),
    )
