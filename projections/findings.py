"""Audit findings: data that points at the events involved, never exceptions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel

Severity = Literal["error", "warning", "info"]


class Finding(BaseModel, frozen=True, defer_build=True):
    """One broken (or noteworthy) rule: its id, how bad, the seqs involved, and what happened."""

    rule: str
    severity: Severity
    seq: tuple[int, ...]
    message: str


def error(rule: str, seqs: tuple[int, ...], message: str) -> Finding:
    """An error finding (the audit exits 1)."""
    return Finding(rule=rule, severity="error", seq=seqs, message=message)


def warning(rule: str, seqs: tuple[int, ...], message: str) -> Finding:
    """A warning finding."""
    return Finding(rule=rule, severity="warning", seq=seqs, message=message)


def info(rule: str, seqs: tuple[int, ...], message: str) -> Finding:
    """An informational finding (rulings, overrides)."""
    return Finding(rule=rule, severity="info", seq=seqs, message=message)


#: The rule id of every reminder of an obligation still open (`projections.audit.reminders`).
OBLIGATION_OPEN: Final = "obligation-open"


@dataclass(frozen=True, slots=True)
class Obligation:
    """Something the rules still want recorded, as a ruleset reads it off a state: the seqs
    that opened it, what is owed (a sentence naming who owes it and how to meet it), and what
    asks for it (a rule id; with the seqs, it tells one obligation from another). The audit
    shows it as an `obligation-open` reminder while it is open."""

    seq: tuple[int, ...]
    owed: str
    asks: str

    def reminder(self) -> Finding:
        """The `info` finding that reminds of it."""
        return info(OBLIGATION_OPEN, self.seq, self.owed)
