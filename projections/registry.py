"""The rulesets by system key: the one place that names every system."""

from __future__ import annotations

from typing import Final

from ledger.errors import BadInput
from projections import fates_edge, ironsworn, l5r, ssss
from projections.core import Ruleset

RULESETS: Final[dict[str, Ruleset]] = {
    r.key: r for r in (fates_edge.RULESET, ironsworn.RULESET, ssss.RULESET, l5r.RULESET)
}


def ruleset(system: str) -> Ruleset:
    """The ruleset of a system, or bad input naming the known ones."""
    try:
        return RULESETS[system]
    except KeyError:
        raise BadInput(f"unknown system {system!r} (known: {', '.join(RULESETS)})") from None
