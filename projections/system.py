"""The description of a rule system: what the ledger needs to know of it before it folds a
single event, found through the `encounter.systems` entry points (`ledger.systems`).

A description is data: the key and title, the names of its verbs, what its fields and house
rules mean, its help examples, and where its ruleset (its events, fold, audit, words and
charts) and its verbs (`projections.verbs`, data too) are (`module:attribute`): each is imported
only when it is needed (the ruleset when an encounter of the system is read or written, the
verbs when a command line names one). So a verb's dispatch loads every system's description
and one system's verbs, and a command loads one system's ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


# Compared and hashed by identity: one description per system, holding mappings.
@dataclass(frozen=True, slots=True, eq=False)
class System:
    """One rule system: its key and title, its ruleset's place, its verbs and its texts."""

    #: The key stored in `encounter.opened` and given to `--system`.
    key: str
    #: The system's name for people (`--help` groups its verbs under it).
    title: str
    #: `module:attribute` of its `projections.ruleset.Ruleset`.
    ruleset: str
    #: `module:attribute` of its friendly commands (`lock`, `damage`...): a tuple of
    #: `projections.verbs.Verb`, each recording one event.
    verbs: str | None = None
    #: The names of those verbs: a command line finds whose verb a command is without
    #: importing any.
    verb_names: tuple[str, ...] = ()
    #: What each field of its events means: `TYPE.FIELD` first, then `FIELD`.
    fields: Mapping[str, str] = field(default_factory=_empty)
    #: What each of its house rules means.
    rules: Mapping[str, str] = field(default_factory=_empty)
    #: Help examples by command (its verbs, and the generic commands shown on its files).
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    #: The journal formats it reads (`encounter import --from FORMAT`), each the
    #: `module:attribute` of its `projections.journal.Planner`.
    journals: Mapping[str, str] = field(default_factory=_empty)
    #: Where lists of systems show it: lower first, then by key (the built-in four come first,
    #: in the order the design lists them).
    listed: int = 100

    def article(self) -> str:
        """The key with its indefinite article (`an oath` for the key `oath`)."""
        return article(self.key)


def article(key: str) -> str:
    """A system key with its indefinite article, as a sentence reads it: a key with no vowel
    is read letter by letter (`an rpg`), any other as a word (`a duel`)."""
    first = key[:1].lower()
    spelled = not any(c in "aeiouy" for c in key.lower())
    vowel_sound = first in "aeiou" or (spelled and first in "fhlmnrsx")
    return f"{'an' if vowel_sound else 'a'} {key}"
