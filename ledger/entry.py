"""The `encounter` console script: `tracks` from the head view when it can, else the command.

`ledger.fastpath` answers the common read in a few milliseconds; every other command line
(and a `tracks` it cannot answer exactly) loads the full command, `ledger.cli`.
"""

from __future__ import annotations

import gc
import sys


def main() -> None:
    """Entry point of `encounter` and `python -m ledger`."""
    from ledger import fastpath

    if fastpath.answer(sys.argv[1:]):
        return
    # Loading the command allocates long-lived objects only (models, schemas, commands):
    # collecting while it loads finds nothing to free. `cli.main` then freezes what was loaded.
    gc.disable()
    from ledger import cli

    gc.enable()
    cli.main()
