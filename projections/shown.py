"""Track values and game time in words for people, from plain values (no model needed).

A rule system names how its own tracks read (`Reading`s by track name, which its state class
holds as `State.readings`); every other value reads by the generic rules here, whatever its
shape. `projections.played` and `projections.gametime` re-export them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

Scene = int | str | None


@dataclass(frozen=True, slots=True)
class Reading:
    """How one track of a system reads: in a table cell, and in a sentence (None: as any
    other value reads in a sentence).

    Neither is given None (a missing value reads `-`, or `none`); either may return None for
    a value it does not read (a sheet's `tracks.noted` may say anything), which then reads as
    any other value does.
    """

    cell: Callable[[Any], str | None]
    sentence: Callable[[Any], str | None] | None = None


#: A system's readings by track name; a track it does not name reads generically.
Readings = Mapping[str, Reading]
#: The readings of a system that names none.
GENERIC: Final[Readings] = MappingProxyType({})


def shown(v: Any, reading: Reading | None = None) -> str:
    """A track value for people: `3`, `wounded, maimed`, `-` for none, or as `reading` (its
    system's) has it."""
    if v is None:
        return "-"
    if reading is not None:
        told = reading.cell(v)
        if told is not None:
            return told
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Mapping):
        # The keys are a stat block's (`words_of_power`): said as the tables' headers say them.
        return ", ".join(f"{str(k).replace('_', ' ')} {shown(x)}" for k, x in v.items()) or "-"
    if isinstance(v, list | tuple):
        if v and all(isinstance(x, Mapping) and "seq" in x for x in v):
            return ", ".join(
                "@"
                + str(x["seq"])
                + "".join(f" {k} {shown(y)}" for k, y in x.items() if k != "seq")
                for x in v
            )
        return ", ".join(shown(x) for x in v) or "-"
    return str(v)


def end_of(round_: int) -> str:
    """`the end of round 2`; round 0 is the set-up (a rewind back to it starts the fight
    again)."""
    return "the set-up" if round_ == 0 else f"the end of round {round_}"


def when(round_: int | None, scene: Scene) -> str:
    """`round 2`, `round 2, scene the ford`, `scene 3`, or `` when there is no game time."""
    parts = []
    if round_ is not None:
        parts.append(f"round {round_}")
    if scene is not None:
        parts.append(f"scene {scene}")
    return ", ".join(parts)


_NAMED: Final = MappingProxyType({"\t": "\\t", "\n": "\\n", "\r": "\\r"})
#: The Unicode categories shown as escapes: controls (C0, DEL, C1), format characters (the
#: bidirectional marks and overrides, zero-width characters, the soft hyphen) and the line and
#: paragraph separators. A terminal or a Markdown renderer would act on them (set a title,
#: clear the screen, reverse or break the text, hide a character), so people see them as
#: escapes instead: the whole class, not a list.
HIDDEN: Final = frozenset({"Cc", "Cf", "Zl", "Zp"})


def escaped(c: str) -> str:
    """One code point as people should see it: itself, or its escape when it is `HIDDEN`."""
    if c.isprintable() or unicodedata.category(c) not in HIDDEN:
        return c
    code = ord(c)
    if c in _NAMED:
        return _NAMED[c]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every control, format and line or paragraph separator code point shown as
    an escape (`\\x1b`, `\\u202e`), for people to read."""
    if text.isprintable():  # nearly every text: none of them is in it
        return text
    return "".join(map(escaped, text))


def pools_text(pools: Mapping[str, int]) -> str | None:
    """`pools: sb 3`, or None when the system has no pools."""
    if not pools:
        return None
    return visible("pools: " + ", ".join(f"{k} {v}" for k, v in pools.items()))
