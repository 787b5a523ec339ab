"""`python -m ledger` runs the `encounter` command."""

from ledger import main

main()
