"""The encounter ledger: an append-only, hash-chained record of tabletop encounters.

The library API, which the `encounter` command is built on:

    from ledger import Ledger
    with Ledger("encounters.db") as ledger:
        ledger.open("duel", "fates-edge")
        ledger.join("duel", "Silken Blade", "adversary",
                    {"resilience": 8, "fatigue_capacity": 3, "armor": "light"})
        ledger.record("duel", {"type": "hit.resolved", "target": "Silken Blade", "harm": 2})
        ledger.tracks("duel").view()
"""

from ledger.errors import (
    BadInput,
    BrokenChain,
    Conflict,
    LedgerError,
    RuleRefused,
    StoreError,
    UnknownName,
)
from ledger.service import DEFAULT_DB, Imported, Ledger, Recorded, load, parse_lines

__all__ = [
    "DEFAULT_DB",
    "BadInput",
    "BrokenChain",
    "Conflict",
    "Imported",
    "Ledger",
    "LedgerError",
    "Recorded",
    "RuleRefused",
    "StoreError",
    "UnknownName",
    "load",
    "parse_lines",
]
