"""The ledger's exceptions: one root, one subclass per way a request can fail."""

from __future__ import annotations


class LedgerError(Exception):
    """Anything the ledger refuses or cannot do; the message is one line for a user."""

    exit_code = 2


class BadInput(LedgerError):
    """The request is malformed or names something that does not exist; nothing was appended."""

    exit_code = 2


class UnknownName(BadInput):
    """An encounter, combatant or seq that the ledger does not hold."""


class RuleRefused(BadInput):
    """`--strict` refused an event because it would add an audit error."""


class Conflict(LedgerError):
    """The writer's expected version is stale: another writer appended first."""

    exit_code = 3


class BrokenChain(LedgerError):
    """A stored hash chain does not verify: the file was damaged or edited."""

    exit_code = 1


class StoreError(LedgerError):
    """The database file cannot be opened or is not an encounter ledger."""

    exit_code = 2
