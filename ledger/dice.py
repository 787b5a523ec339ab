"""Dice anyone can verify: a secret seed, committed by its SHA-256 before the first die it rolls,
kept outside the ledger file until it is revealed.

`encounter dice commit` draws 32 random bytes (`secrets`), keeps them as hex in the user's state
directory (`$XDG_STATE_HOME/encounter-ledger/dice/DIGEST.seed`, readable by the user alone;
never in the file or an export), and appends `dice.committed {digest}`. A roll verb's `--roll`
then lets the ledger roll: die number `index` (0, 1, ... over the fields the event's
`ledger_rolled` names, sorted by name, each field's faces in order; a single number is one die)
of the event at `seq` is

    draw k = HMAC-SHA256(key = seed, message = UTF-8 JSON [name, seq, index, k]),
             read as a 256-bit big-endian integer, for k = 0, 1, 2, ...
    face   = draw mod sides + 1, for the first draw below 2^256 - (2^256 mod sides)

(rejection sampling: every face is exactly as likely; a draw is refused once in 2^250 or so).
`name` is the commitment's `encounter_name` (the encounter's name when it was committed), the
JSON has no spaces (`["ford",12,0,0]`). `dice.revealed {seed}` lets anyone recompute every die:
`encounter verify` does, naming the first that does not match, and so does docs/verify.js.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ledger.errors import BadInput

#: The seed's length in bytes.
SEED_BYTES: Final = 32
_SPACE: Final = 2**256
_HEX: Final = re.compile(r"(?:[0-9a-fA-F]{2})*")


@dataclass(frozen=True, slots=True)
class Throw:
    """Dice for the ledger to roll into one field of an event: `count` dice of `sides` faces
    (`single`: the field holds one number, not a list)."""

    field: str
    sides: int
    count: int = 1
    single: bool = False


def digest_of(seed: str) -> str:
    """The hex SHA-256 of a hex seed's bytes (what `dice.committed` publishes)."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def die(seed: str, name: str, seq: int, index: int, sides: int) -> int:
    """The face (1..sides) of die `index` of the event at `seq`, from the hex `seed`."""
    return face(draws(seed, name, seq, index), sides)


def draws(seed: str, name: str, seq: int, index: int) -> Iterator[int]:
    """The successive HMAC-SHA256 draws for one die, as 256-bit integers."""
    key = bytes.fromhex(seed)
    draw = 0
    while True:
        message = _message([name, seq, index, draw])
        yield int.from_bytes(hmac.new(key, message, hashlib.sha256).digest(), "big")
        draw += 1


def face(values: Iterable[int], sides: int, space: int = _SPACE) -> int:
    """The first of `values` (each below `space`) under the largest multiple of `sides` that
    fits, mapped to 1..sides: every face is as likely as every other (no modulo bias)."""
    limit = space - space % sides
    for value in values:
        if value < limit:
            return value % sides + 1
    raise ValueError("the draws ran out before one fell below the limit")


def _message(parts: list[Any]) -> bytes:
    # Compact JSON, as JavaScript's JSON.stringify writes an array of a string and numbers.
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def roll(seed: str, name: str, seq: int, throws: Sequence[Throw]) -> dict[str, Any]:
    """The fields `throws` fill, rolled from `seed` for the event at `seq`, and the event's
    `ledger_rolled`."""
    order = sorted(throws, key=lambda t: t.field)
    out: dict[str, Any] = {}
    index = 0
    for throw in order:
        faces = []
        for _ in range(1 if throw.single else throw.count):
            faces.append(die(seed, name, seq, index, throw.sides))
            index += 1
        out[throw.field] = faces[0] if throw.single else faces
    out["ledger_rolled"] = {t.field: t.sides for t in order}
    return out


def dice_of(body: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(field, sides, face) of every die an event's body says the ledger rolled, in index
    order; bad input when a named field holds no faces of that die."""
    spec = body.get("ledger_rolled")
    if not isinstance(spec, Mapping):
        return []
    out: list[tuple[str, int, int]] = []
    for name in sorted(spec):
        sides, value = spec[name], body.get(name)
        faces = list(value) if isinstance(value, list | tuple) else [value]
        if not isinstance(sides, int) or not faces or not all(_face(f, sides) for f in faces):
            raise BadInput(
                f"ledger_rolled names {name} as d{sides}, but the event's {name} is "
                f"{json.dumps(value, ensure_ascii=False, separators=(',', ':'))}, not faces of "
                f"d{sides}"
            )
        out += [(str(name), sides, f) for f in faces if isinstance(f, int)]
    return out


def _face(value: Any, sides: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= sides


# The seed outside the file.


def seed_folder() -> Path:
    """Where the user's dice seeds are kept: `$XDG_STATE_HOME/encounter-ledger/dice`."""
    root = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(root) / "encounter-ledger" / "dice"


def seed_file(digest: str) -> Path:
    """The file of the seed whose SHA-256 is `digest`."""
    return seed_folder() / f"{digest}.seed"


def new_seed() -> tuple[str, str]:
    """A fresh secret seed, kept in its file (readable by the user alone): (seed, digest)."""
    seed = secrets.token_bytes(SEED_BYTES).hex()
    digest = digest_of(seed)
    folder = seed_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle = os.open(seed_file(digest), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(seed + "\n")
    except OSError as exc:
        raise BadInput(f"cannot keep the dice seed in {folder}: {exc.strerror or exc}") from exc
    return seed, digest


def kept_seed(digest: str) -> str | None:
    """The seed kept for `digest` on this machine (None: there is none, or it is not it)."""
    with contextlib.suppress(OSError, ValueError):
        seed = seed_file(digest).read_text(encoding="ascii").strip()
        if digest_of(seed) == digest:
            return seed
    return None


# Verification.


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
                f"dice ok: {_count(self.checked, 'die', 'dice')} the ledger rolled "
                f"({_count(shown, 'roll')}), each as the revealed seed gives it"
            )
        if self.awaiting:
            out.append(
                f"dice: awaiting the reveal of the seed committed at seq {self.committed_at}: "
                f"{_count(self.awaiting, 'roll')} by the ledger"
            )
        if not out:
            out.append("dice: committed; no die rolled by the ledger yet")
        return out

    def document(self) -> dict[str, Any]:
        """The report as `verify --json` shows it."""
        return {
            "rolls": self.rolls,
            "dice": self.dice,
            "checked": self.checked,
            "awaiting": self.awaiting,
            "committed_at": self.committed_at,
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
    state = _Walk(encounter)
    try:
        for seq, kind, body in items:
            state.step(seq, kind, body)
    except _Mismatch as bad:
        return state.report(bad.seq, bad.problem)
    except BadInput as exc:
        return state.report(state.at, str(exc))
    if not state.seen:
        return None
    return state.report()


class _Walk:
    """The dice check, one event at a time."""

    def __init__(self, encounter: str) -> None:
        self.encounter = encounter
        self.current: Commitment | None = None
        self.pending: list[Commitment] = []
        self.seen = False
        self.rolls = self.dice = self.checked = 0
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
            bad_seq=bad,
            problem=problem,
        )


def _count(n: int, noun: str, many: str | None = None) -> str:
    return f"{n} {noun if n == 1 else many or noun + 's'}"


def bodies(items: Iterable[Any]) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """(seq, type, body) of stored records (`ledger.events.Recorded`), as they are stored."""
    for record in items:
        yield record.seq, record.type, record.body()
