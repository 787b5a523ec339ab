"""The ledger's exceptions: one root, one subclass per way a request can fail.

Every error carries a stable string `code` (what `--json` prints as `error.code`, for bots to
branch on; the message is for people and may change) and the CLI's `exit_code`. A subclass
has a default code; a raise site names a more exact one (`unknown-combatant`,
`encounter-exists`, `stale-expect`...). The codes are listed in `CODES`, and in docs/cli.md.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Iterable
from typing import Any, Final, Self

#: Every code an error can carry, and what it means (docs/cli.md's table is generated from this).
CODES: Final[dict[str, str]] = {
    "bad-input": "the request is malformed (a field, a value, a file); nothing was appended",
    "usage": "the command line itself is wrong (an unknown option, a missing argument)",
    "unknown-field": "an event has a field its type does not know",
    "unknown-type": "no event type of that name in the encounter's system",
    "unknown-system": "no rule system of that key",
    "wrong-system": "a verb or event type of another rule system than the encounter's",
    "unknown-rule": "a house-rule key the system does not have",
    "unknown-name": "a name or seq the ledger does not hold",
    "unknown-encounter": "no encounter of that name in the ledger file",
    "unknown-combatant": "no combatant of that name in the encounter",
    "unknown-seq": "no event at that seq in the encounter",
    "unknown-user": "a GM's act in the name of a user who is no GM or player of the encounter",
    "erased": "the encounter was erased (`encounter erase`): only its chain is left to verify",
    "unknown-track": "the combatant has no track of that name",
    "unknown-round": "no effective event of the encounter is in that game round",
    "no-commitment": "the ledger rolls dice only under an open commitment (`dice commit`)",
    "no-ledger": "no ledger file at that path (read commands never create one)",
    "no-file": "no such input file",
    "encounter-exists": "an encounter of that name is already open",
    "rule-refused": "--strict refused an event that would add an audit error",
    "not-allowed": "the encounter's policy does not let this user record this act",
    "conflict": "another writer appended first, or held the file locked",
    "stale-expect": "--expect named a seq that is no longer the head",
    "behind": "a read at_least a position this ledger (a replica) does not hold yet",
    "broken-chain": "a stored or exported hash chain does not verify",
    "unknown-event-version": "an event was written by a newer (or unknown) version of its type",
    "store-error": "the file cannot be opened or written, or is not an encounter ledger",
    "missing-extra": "the command needs an optional extra that is not installed",
}


class LedgerError(Exception):
    """Anything the ledger refuses or cannot do; the message is one line for a user."""

    exit_code = 2
    code = "bad-input"

    def __init__(self, *args: Any, code: str | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            assert code in CODES, code  # a new code is documented before it is raised
            self.code = code

    def document(self) -> dict[str, Any]:
        """The `--json` error document: `{"error": {"code", "message", "exit_code"}}`."""
        return {"error": {"code": self.code, "message": str(self), "exit_code": self.exit_code}}

    def reworded(self, message: str) -> Self:
        """This error with another message (its place said before it: an input's line), its
        class, code and details kept: the codes are stable wherever the error is raised."""
        made = copy.copy(self)
        made.args = (message,)
        return made


class BadInput(LedgerError):
    """The request is malformed or names something that does not exist; nothing was appended."""

    exit_code = 2
    code = "bad-input"


class UnknownName(BadInput):
    """An encounter, combatant or seq that the ledger does not hold."""

    code = "unknown-name"


class Erased(UnknownName):
    """The encounter was erased: its events' contents are gone, only its chain can be read."""

    code = "erased"


class RuleRefused(BadInput):
    """`--strict` refused an event because it would add an audit error."""

    code = "rule-refused"


class NotAllowed(BadInput):
    """The encounter's policy does not let the acting user record this act; nothing appended."""

    code = "not-allowed"


class UnknownVersion(BadInput):
    """An event of a version of its type that this build does not know (a newer build's)."""

    code = "unknown-event-version"


class Conflict(LedgerError):
    """The writer's expected version is stale: another writer appended first.

    `expected` and `actual` are the head seqs the writer expected and found (None when the
    conflict is a lock held too long rather than a stale expectation)."""

    exit_code = 3
    code = "conflict"

    def __init__(
        self,
        *args: Any,
        code: str | None = None,
        expected: int | None = None,
        actual: int | None = None,
    ) -> None:
        super().__init__(*args, code=code)
        self.expected = expected
        self.actual = actual

    def document(self) -> dict[str, Any]:
        """The error document, with the expected and actual head when known."""
        doc = super().document()
        if self.expected is not None:
            doc["error"]["expected"] = self.expected
            doc["error"]["actual"] = self.actual
        return doc


class BrokenChain(LedgerError):
    """A stored hash chain does not verify: the file was damaged or edited."""

    exit_code = 1
    code = "broken-chain"


class StoreError(LedgerError):
    """The database file cannot be opened or is not an encounter ledger."""

    exit_code = 2
    code = "store-error"


def did_you_mean(word: object, known: Iterable[str]) -> str:
    """` (did you mean 'resilience'?)` when `word` is close to one of `known`, else ''."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


class LedgerWarning(UserWarning):
    """Something a read or write noticed and worked around (a damaged cache, a broken chain)."""
