"""The rule systems: one `System` description each, found through the `encounter.systems`
entry points (`ledger.systems.discovery`), and everything the ledger derives from their list.

A description is data and import strings: loading one imports neither typer nor rich nor the
system's events or folds; each part is imported the first time it is asked for. This package
names no system: the built-in descriptions are its modules, declared as entry points in the
project's `pyproject.toml`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ledger.errors import BadInput, did_you_mean

if TYPE_CHECKING:
    import typer

    from projections.charts import Measures
    from projections.ruleset import AnyRuleset
    from projections.shown import Readings


# Compared and hashed by identity: one description per system, holding mappings.
@dataclass(frozen=True, slots=True, eq=False)
class System:
    """One rule system: its key and title, its parts as import strings, and its texts."""

    #: The key stored in `encounter.opened` and given to `--system`.
    key: str
    #: The system's name for people (`--help` groups its verbs under it).
    title: str
    #: The module whose `Events` is the union of the system's own events.
    events: str
    #: `module:attribute` of its `projections.ruleset.Ruleset`.
    ruleset: str
    #: `module:attribute` of a `typer.Typer` holding its verbs (`lock`, `damage`...).
    verbs: str | None = None
    #: The names of those verbs: the CLI knows whose verb a command is without importing any.
    verb_names: tuple[str, ...] = ()
    #: `module:attribute` of what the report charts of a combatant (`projections.charts`).
    charts: str | None = None
    #: `module:attribute` of how its tracks read: `projections.shown.Reading`s by track name
    #: (a track it does not name reads as any value of its shape does). The module should
    #: import no more than `projections.shown`: the `tracks` fast path loads it.
    shown: str | None = None
    #: Its own event types that hurt, tire or test a combatant (`event-after-defeat`).
    attrition: frozenset[str] = frozenset()
    #: What each field of its events means: `TYPE.FIELD` first, then `FIELD`.
    fields: Mapping[str, str] = field(default_factory=dict)
    #: What each of its house rules means.
    rules: Mapping[str, str] = field(default_factory=dict)
    #: Help examples by command (its verbs, and the generic commands shown on its files).
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Where lists of systems show it: lower first, then by key (the built-in four come first,
    #: in the order the design lists them).
    listed: int = 100

    def events_module(self) -> ModuleType:
        """The module of its events (imported on first use)."""
        return importlib.import_module(self.events)

    def load_ruleset(self) -> AnyRuleset:
        """Its ruleset (imported on first use)."""
        found: AnyRuleset = load(self.ruleset)
        return found

    def load_verbs(self) -> typer.Typer | None:
        """Its verbs, or None when it has none (imported on first use); they must be the
        verbs its description names."""
        if self.verbs is None:
            return None
        verbs: typer.Typer = load(self.verbs)
        found = tuple(
            info.name or info.callback.__name__.lower().replace("_", "-")
            for info in verbs.registered_commands
            if info.callback is not None
        )
        if sorted(found) != sorted(self.verb_names):
            raise TypeError(
                f"{self.verbs} has the verbs {', '.join(found) or 'none'}; the description of "
                f"{self.key!r} names {', '.join(self.verb_names) or 'none'}"
            )
        return verbs

    def load_charts(self) -> Measures | None:
        """What its report charts draw, or None (imported on first use)."""
        return None if self.charts is None else load(self.charts)

    def load_shown(self) -> Readings:
        """How its tracks read (imported on first use); none named: every track reads
        generically."""
        from projections.shown import GENERIC, Reading

        if self.shown is None:
            return GENERIC
        readings = load(self.shown)
        if not isinstance(readings, Mapping) or not all(
            isinstance(k, str) and isinstance(r, Reading) for k, r in readings.items()
        ):
            raise TypeError(f"{self.shown} is not a mapping of track names to Readings")
        found: Readings = readings
        return found

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


@cache
def load(reference: str) -> Any:
    """The object named by `module:attribute` (or the module itself without `:`)."""
    module, _, attribute = reference.partition(":")
    found: Any = importlib.import_module(module)
    for part in filter(None, attribute.split(".")):
        found = getattr(found, part)
    return found


def known() -> tuple[str, ...]:
    """The keys of every system found, in listing order (no description is loaded)."""
    from ledger.systems import discovery

    return tuple(discovery.found().entries)


def get(key: str) -> System:
    """The description of one system, or bad input naming the known ones."""
    from ledger.systems import discovery

    system = discovery.found().system(key)
    discovery.report()
    return system


def every() -> tuple[System, ...]:
    """Every system's description that loads, in listing order."""
    from ledger.systems import discovery

    loaded = discovery.found().loaded()
    discovery.report()
    return loaded


def verb_owner(verb: str) -> str | None:
    """The key of the system whose verb `verb` is, if any (no description is loaded)."""
    from ledger.systems import discovery

    return discovery.found().verbs.get(verb)


def cached() -> bool:
    """Whether what is known of the systems came from the cache file (it may be stale)."""
    from ledger.systems import discovery

    return discovery.found().cached


def rescan() -> None:
    """Find the systems again, whatever the cache file says (and rewrite it)."""
    from ledger.systems import discovery

    discovery.rescan()


def refuse_other(encounter: str, system: str, verb: str | None, kind: object) -> None:
    """Bad input (`wrong-system`) when the verb `verb`, or the event type `kind`, is another
    system's than `system`, the encounter's: "`VERB` is a SYSTEM verb; 'NAME' is an OTHER
    encounter". A type nobody has is left for the parse to refuse."""
    from ledger import events

    owner = verb_owner(verb) if verb is not None else None
    if owner is not None and owner != system:
        raise BadInput(
            f"`{verb}` is {article(owner)} verb; {encounter!r} is {article(system)} encounter",
            code="wrong-system",
        )
    if owner is None and isinstance(kind, str) and kind not in _types(system):
        others = events.owners_of(kind, system)
        if others:
            raise BadInput(
                f"{kind!r} is {' and '.join(others)} event; {encounter!r} is "
                f"{article(system)} encounter",
                code="wrong-system",
            )


def _types(system: str) -> tuple[str, ...]:
    from ledger import events

    try:
        return events.event_types(system)
    except BadInput:
        return ()  # the parse says what is wrong with the system


def unknown(key: str, known: tuple[str, ...]) -> BadInput:
    """Bad input for a system key nobody declares."""
    return BadInput(
        f"unknown system {key!r}{did_you_mean(key, known)} (known: {', '.join(known)})",
        code="unknown-system",
    )


__all__ = [
    "System",
    "article",
    "cached",
    "every",
    "get",
    "known",
    "load",
    "refuse_other",
    "rescan",
    "unknown",
    "verb_owner",
]
