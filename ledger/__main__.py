"""`python -m ledger` runs the `encounter` command."""

from ledger.entry import main

main()
