"""The rulesets by system key: the one place that names every system."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Final

from ledger.errors import BadInput
from projections.core import AnyRuleset

#: System key -> the module under `projections` that defines its `RULESET`.
MODULES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "fates-edge": "fates_edge",
        "ironsworn": "ironsworn",
        "ssss": "ssss",
        "l5r": "l5r",
    }
)


class _Rulesets(Mapping[str, AnyRuleset]):
    """Every ruleset by key; a ruleset's module is imported the first time it is asked for
    (a command on one encounter loads one system, not four)."""

    def __init__(self) -> None:
        self._loaded: dict[str, AnyRuleset] = {}

    def __getitem__(self, key: str) -> AnyRuleset:
        # Asked once per folded event: after the first import, a dictionary lookup.
        found = self._loaded.get(key)
        if found is None:
            module = importlib.import_module(f"projections.{MODULES[key]}")
            found = self._loaded[key] = module.RULESET
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


RULESETS: Final[Mapping[str, AnyRuleset]] = _Rulesets()


def ruleset(system: str) -> AnyRuleset:
    """The ruleset of a system, or bad input naming the known ones."""
    try:
        return RULESETS[system]
    except KeyError:
        raise BadInput(
            f"unknown system {system!r} (known: {', '.join(RULESETS)})", code="unknown-system"
        ) from None
