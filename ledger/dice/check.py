"""Checking the dice the ledger rolled: each against the seed once it is revealed, the first
that does not match named (what `encounter verify` and docs/verify.js do)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ledger.dice.derive import dice_of, die, digest_of
from ledger.errors import BadInput
from projections.words import plural

_HEX: Final = re.compile(r"(?:[0-9a-fA-F]{2})*")


@dataclass
class Commitment:
    """A `dice.committed`: where, its digest, the name its dice derive under, and the ledger's
    rolls under it (seq, the event's body)."""

    seq: int
    digest: str
    name: str
    rolls: list[tuple[int, Mapping[str, Any]]] = field(default_factory=list)


def open_commitment(
    encounter: str, items: Iterable[tuple[int, str, Mapping[str, Any]]]
) -> Commitment | None:
    """The commitment not yet revealed, from an encounter's dice events (seq, type, body)."""
    found: Commitment | None = None
    for seq, kind, body in items:
        if kind == "dice.committed":
            name = str(body.get("encounter_name") or encounter)
            found = Commitment(seq, str(body.get("digest")), name)
        elif kind == "dice.revealed":
            found = None
    return found


@dataclass(frozen=True, slots=True)
class DiceReport:
    """What `verify` found of an encounter's ledger-rolled dice."""

    encounter: str
    #: Events whose dice the ledger rolled, and their dice.
    rolls: int = 0
    dice: int = 0
    #: Dice recomputed from a revealed seed (all matched, unless `bad_seq`).
    checked: int = 0
    #: Rolls whose seed is not revealed yet, and the seq of that commitment.
    awaiting: int = 0
    committed_at: int | None = None
    #: Seeds revealed (each matching its commitment), and commitments not revealed yet.
    revealed: int = 0
    unrevealed: int = 0
    #: The first roll that does not match (or that no commitment covers), and why.
    bad_seq: int | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """No die failed its check."""
        return self.bad_seq is None

    def lines(self) -> list[str]:
        """What `verify` says of the dice, a line each (after the encounter's name)."""
        if not self.ok:
            return [f"DICE DO NOT MATCH at seq {self.bad_seq}: {self.problem}"]
        out = []
        if self.checked:
            shown = self.rolls - self.awaiting
            out.append(
                f"dice ok: {plural(self.checked, 'die', 'dice')} the ledger rolled "
                f"({plural(shown, 'roll')}), each as the revealed seed gives it"
            )
        if self.awaiting:
            out.append(
                f"dice: awaiting the reveal of the seed committed at seq {self.committed_at}: "
                f"{plural(self.awaiting, 'roll')} by the ledger"
            )
        if not out and self.unrevealed:
            out.append("dice: committed; no die rolled by the ledger yet")
        elif not out:
            out.append(
                f"dice: {plural(self.revealed, 'seed')} revealed, each matching its "
                "commitment; no die was rolled by the ledger"
            )
        return out

    def document(self) -> dict[str, Any]:
        """The report as `verify --json` shows it."""
        return {
            "rolls": self.rolls,
            "dice": self.dice,
            "checked": self.checked,
            "awaiting": self.awaiting,
            "committed_at": self.committed_at,
            "revealed": self.revealed,
            "unrevealed": self.unrevealed,
            "bad_seq": self.bad_seq,
            "problem": self.problem,
            "ok": self.ok,
        }


class _Mismatch(Exception):
    def __init__(self, seq: int, problem: str) -> None:
        super().__init__(problem)
        self.seq, self.problem = seq, problem


def check(encounter: str, items: Iterable[tuple[int, str, Mapping[str, Any]]]) -> DiceReport | None:
    """Recompute every ledger-rolled die of an encounter's events (seq, type, body, in seq
    order) whose seed is revealed; None when the encounter has no dice commitment and no
    ledger-rolled die."""
    checks = Checks()
    for seq, kind, body in items:
        checks.step(encounter, seq, kind, body)
    return checks.reports().get(encounter)


class Checks:
    """The dice checks of several encounters, fed one event at a time as a file is read (each
    encounter's events in seq order; the encounters may interleave): nothing is held but the
    ledger-rolled events whose seed is not revealed yet."""

    def __init__(self) -> None:
        self.walks: dict[str, _Walk] = {}
        self.failed: dict[str, DiceReport] = {}

    def step(self, encounter: str, seq: int, kind: str, body: Mapping[str, Any]) -> None:
        """Check one event of `encounter` (nothing more of an encounter whose check failed)."""
        if encounter in self.failed:
            return
        walk = self.walks.get(encounter)
        if walk is None:
            walk = self.walks[encounter] = _Walk(encounter)
        try:
            walk.step(seq, kind, body)
        except _Mismatch as bad:
            self.failed[encounter] = walk.report(bad.seq, bad.problem)
        except BadInput as exc:
            self.failed[encounter] = walk.report(walk.at, str(exc))

    def reports(self) -> dict[str, DiceReport | None]:
        """Each encounter's report: its first mismatch, or what was checked and what awaits
        a reveal; None for one with no dice commitment and no ledger-rolled die."""
        return {
            name: self.failed.get(name) or (walk.report() if walk.seen else None)
            for name, walk in self.walks.items()
        }


class _Walk:
    """The dice check, one event at a time."""

    def __init__(self, encounter: str) -> None:
        self.encounter = encounter
        self.current: Commitment | None = None
        self.pending: list[Commitment] = []
        self.seen = False
        self.rolls = self.dice = self.checked = self.revealed = 0
        self.at = 0

    def step(self, seq: int, kind: str, body: Mapping[str, Any]) -> None:
        self.at = seq
        if kind == "dice.committed":
            self.seen = True
            name = str(body.get("encounter_name") or self.encounter)
            self.current = Commitment(seq, str(body.get("digest")), name)
            self.pending.append(self.current)
        elif kind == "dice.revealed":
            self.seen = True
            self._reveal(seq, str(body.get("seed")))
        elif "ledger_rolled" in body:
            self.seen = True
            found = dice_of(body)
            self.rolls, self.dice = self.rolls + 1, self.dice + len(found)
            if self.current is None:
                raise _Mismatch(seq, f"seq {seq} says the ledger rolled its dice, but no dice "
                                "commitment was open before it")  # fmt: skip
            self.current.rolls.append((seq, body))

    def _reveal(self, seq: int, seed: str) -> None:
        if not _HEX.fullmatch(seed):
            raise _Mismatch(seq, f"seq {seq} reveals a seed that is not hex")
        digest = digest_of(seed)
        opened = next((c for c in self.pending if c.digest == digest), None)
        if opened is None:
            raise _Mismatch(seq, f"seq {seq} reveals a seed that opens no commitment before it")
        for at, body in opened.rolls:
            for index, (name, sides, face) in enumerate(dice_of(body)):
                expected = die(seed, opened.name, at, index, sides)
                if face != expected:
                    raise _Mismatch(
                        at,
                        f"die {index} of seq {at} ({name}, d{sides}) is {face}; the seed "
                        f"revealed at seq {seq} gives {expected}",
                    )
                self.checked += 1
        self.pending.remove(opened)
        self.revealed += 1
        if self.current is opened:
            self.current = None

    def report(self, bad: int | None = None, problem: str | None = None) -> DiceReport:
        waiting = [c for c in self.pending if c.rolls]
        return DiceReport(
            encounter=self.encounter,
            rolls=self.rolls,
            dice=self.dice,
            checked=self.checked,
            awaiting=sum(len(c.rolls) for c in waiting),
            committed_at=waiting[0].seq if waiting else None,
            revealed=self.revealed,
            unrevealed=len(self.pending),
            bad_seq=bad,
            problem=problem,
        )


def bodies(items: Iterable[Any]) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """(seq, type, body) of stored records (`ledger.events.Recorded`), as they are stored."""
    for record in items:
        yield record.seq, record.type, record.body()
