"""`python -m ledger` runs the `encounter` command."""

from ledger.cli import main

main()
