"""`python -m ledger` runs the `encounter` command."""

import gc

# Loading the command allocates long-lived objects only (models, schemas, commands): collecting
# while it loads finds nothing to free. `main` then freezes what was loaded.
gc.disable()
from ledger.cli import main  # noqa: E402

gc.enable()
main()
