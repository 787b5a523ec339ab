"""The formula of the dice the ledger rolls, and the seed it rolls them from, kept outside the
file (the package's docstring says it whole)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ledger.errors import BadInput

#: The seed's length in bytes.
SEED_BYTES: Final = 32
_SPACE: Final = 2**256


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
