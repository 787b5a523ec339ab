"""The encounter ledger: an append-only, hash-chained record of tabletop encounters.

The library API, which the `encounter` command is built on (docs/library.md walks through
it):

    from ledger import Ledger
    with Ledger("encounters.db") as ledger:
        ledger.open("duel", system)       # a key of `ledger.systems.known()`
        ledger.join("duel", "Silken Blade", "adversary", stats)
        ledger.record("duel", {"type": ..., "target": "Silken Blade", ...})
        ledger.tracks("duel").view()

The service (and the rulesets behind it) load on first use, so `import ledger.cli` and
`import ledger.events` stay cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ledger.errors import (
    BadInput,
    BrokenChain,
    Conflict,
    LedgerError,
    LedgerWarning,
    RuleRefused,
    StoreError,
    UnknownName,
    UnknownVersion,
)

if TYPE_CHECKING:
    __version__: str
    from ledger.api import DEFAULT_DB, Imported, Ledger, Written, load
    from ledger.jsonl import parse_lines

    #: Deprecated: the result of a write is `Written`.
    Recorded = Written

#: Names loaded on first use, and the module that defines each.
_LAZY = {
    "DEFAULT_DB": "ledger.api",
    "Imported": "ledger.api",
    "Ledger": "ledger.api",
    "Written": "ledger.api",
    "load": "ledger.api",
    "parse_lines": "ledger.jsonl",
}

__all__ = [
    "DEFAULT_DB",
    "BadInput",
    "BrokenChain",
    "Conflict",
    "Imported",
    "Ledger",
    "LedgerError",
    "LedgerWarning",
    "RuleRefused",
    "StoreError",
    "UnknownName",
    "UnknownVersion",
    "Written",
    "__version__",
    "load",
    "parse_lines",
]


def version() -> str:
    """The installed package's version (from its metadata, so it is set in one place)."""
    from importlib import metadata

    try:
        return metadata.version("encounter-ledger")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return version()
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name == "Recorded":
        import warnings

        warnings.warn(
            "ledger.Recorded is deprecated: the result of a write is `ledger.Written` "
            "(`ledger.events.Recorded` is the event as stored)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module("ledger.api").Written
    raise AttributeError(f"module 'ledger' has no attribute {name!r}")
