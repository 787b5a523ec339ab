"""Audit findings: data that points at the events involved, never exceptions."""

from __future__ import annotations

from typing import Literal

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
