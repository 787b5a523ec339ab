"""The encounter ledger: an append-only, hash-chained record of tabletop encounters.

The library API, which the `encounter` command is built on (docs/library.md walks through it):

    from ledger import Ledger
    with Ledger("encounters.db") as ledger:
        ledger.open("duel", system)       # a key of `ledger.systems.known()`
        ledger.join("duel", "Silken Blade", "adversary", stats)
        ledger.record("duel", {"type": ..., "target": "Silken Blade", ...})
        ledger.tracks("duel").view()

`AsyncLedger` is the same, awaitable, for asyncio code (`async with AsyncLedger(url) as ledger`).

The names in `__all__` are the public API. The library behind them loads when one is first
used (PEP 562's module `__getattr__`), so that `encounter --version` and `import ledger.errors`
do not pay for it: this package is also the `encounter` command's entry point (`main`).
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

from ledger.errors import (
    BadInput,
    BrokenChain,
    Conflict,
    LedgerError,
    LedgerWarning,
    NotAllowed,
    RuleRefused,
    StoreError,
    UnknownName,
    UnknownVersion,
)

#: The package's version, set here only (pyproject.toml reads it).
__version__ = "0.2.0"

if TYPE_CHECKING:
    from ledger.aio import AsyncLedger
    from ledger.api import DEFAULT_DB, Imported, Ledger, Written, load
    from ledger.jsonl import parse_lines

    #: Deprecated: the result of a write is `Written`.
    Recorded = Written

#: The public names the library defines, and the module that defines each.
_LIBRARY = {
    "AsyncLedger": "ledger.aio",
    "DEFAULT_DB": "ledger.api",
    "Imported": "ledger.api",
    "Ledger": "ledger.api",
    "Written": "ledger.api",
    "load": "ledger.api",
    "parse_lines": "ledger.jsonl",
}

__all__ = [
    "DEFAULT_DB",
    "AsyncLedger",
    "BadInput",
    "BrokenChain",
    "Conflict",
    "Imported",
    "Ledger",
    "LedgerError",
    "LedgerWarning",
    "NotAllowed",
    "RuleRefused",
    "StoreError",
    "UnknownName",
    "UnknownVersion",
    "Written",
    "__version__",
    "load",
    "main",
    "parse_lines",
]


def main() -> None:
    """The `encounter` command (and `python -m ledger`). `--version` is answered here, before
    the command line and the library under it are loaded; everything else is `ledger.cli`'s."""
    if sys.argv[1:] == ["--version"]:
        print(f"encounter {__version__}")
        return
    # The command uses no pydantic plugin: without this, building its first validator reads
    # the entry points of every installed distribution (a tenth of a `tracks`). Set it to
    # anything else to load them.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    importlib.import_module("ledger.cli").main()


def __getattr__(name: str) -> Any:
    if name in _LIBRARY:
        return getattr(importlib.import_module(_LIBRARY[name]), name)
    if name == "Recorded":
        warnings.warn(
            "ledger.Recorded is deprecated: the result of a write is `ledger.Written` "
            "(`ledger.events.Recorded` is the event as stored)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module("ledger.api").Written
    raise AttributeError(f"module 'ledger' has no attribute {name!r}")
