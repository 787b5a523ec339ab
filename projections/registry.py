"""The rulesets by system key, as the systems' descriptions name them (`ledger.systems`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Final

from ledger import events
from ledger.errors import BadInput
from projections.core import AnyRuleset
from projections.shown import Readings


class _Rulesets(Mapping[str, AnyRuleset]):
    """Every ruleset by key; a ruleset's module is imported the first time it is asked for
    (a command on one encounter loads one system, not all of them)."""

    def __getitem__(self, key: str) -> AnyRuleset:
        try:
            return _loaded(key)
        except BadInput:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[str]:
        return iter(events.SYSTEMS)

    def __len__(self) -> int:
        return len(events.SYSTEMS)


@cache
def _loaded(key: str) -> AnyRuleset:
    # Once per system and process: finding a description costs microseconds, and a fold of
    # one event per write (an import's every line) asks for its ruleset each time.
    return events.system(key).load_ruleset()


RULESETS: Final[Mapping[str, AnyRuleset]] = _Rulesets()


def ruleset(system: str) -> AnyRuleset:
    """The ruleset of a system, or bad input naming the known ones."""
    return _loaded(system)


@cache
def readings(system: str) -> Readings:
    """How the tracks of a system read (`projections.shown`), as its description names them."""
    # Once per system and process, as `_loaded`: every step a replay tells asks for them.
    return events.system(system).load_shown()
