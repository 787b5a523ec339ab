"""Names that look alike: the skeleton of Unicode's confusable detection (UTS #39, section 4).

Two names are confusable when their skeletons are equal: each is decomposed (NFD), every code
point replaced by its prototype from Unicode's `confusables.txt` (a Cyrillic `і` by a Latin
`i`, a digit `0` by a letter `O`), and the result decomposed again. The table is the one of
Unicode 17.0 (`confusables.txt` beside this module: its mappings, its notice), read the first
time a name is compared. Default-ignorable code points, which the skeleton drops, cannot be in
a name at all (a name holds no control or format character).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache
from importlib import resources


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable code point's prototype, from the table beside this module."""
    text = resources.files(__package__ or "ledger.events").joinpath("confusables.txt")
    table: dict[str, str] = {}
    for line in text.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        source, target = line.split("\t")
        table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of `text`: equal for two texts that look alike."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of `others` that is not `name` but looks like it (None: none does)."""
    mine = skeleton(name)
    return next((o for o in others if o != name and skeleton(o) == mine), None)


def difference(name: str, other: str) -> str:
    """Where two names that look alike differ, in words: the first code points that are not the
    same, each with its Unicode name (empty when the names differ in length)."""
    if len(name) != len(other):
        return ""
    for mine, theirs in zip(name, other, strict=True):
        if mine != theirs:
            return f"{_named(mine)} where {other!r} has {_named(theirs)}"
    return ""


def _named(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}"
