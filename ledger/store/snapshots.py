"""Sealed fold snapshots: the state after every `EVERY`th seq, so a read or a write folds only
the events after the newest one that still holds. A cache only: deleting the table loses
nothing.

A snapshot is the system's state as its own JSON text (`projections.state`), keyed by its seq,
the hash of the event stored at that seq, and the retractions and corrections standing up to it
(its `standing`). Its `seal` is an HMAC-SHA256 of all of these under a key kept outside the
database: `ENCOUNTER_SEAL_KEY` (hex), else a file in the user's state directory, made by the first
write that stores a snapshot. A reader without the key, or a row whose seal does not match
(written by another hand, or by another user's key), folds from the events instead; a write
whose fold passes a seq that should hold a snapshot stores it anew. Nothing the ledger judges
at write time rests on a snapshot it could not have written itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NamedTuple

from ledger.store import chain as chains

#: A snapshot after every this many seqs...
EVERY: Final = 256
#: ... of which the newest this many are kept per encounter.
KEPT: Final = 4
#: The key itself, as hex text (a server's configuration).
KEY_SETTING: Final = "ENCOUNTER_SEAL_KEY"

_SELECT: Final = (
    "SELECT seq, hash, standing, state, seal FROM snapshots WHERE tenant = ? AND encounter = ? "
    "AND seq <= ? ORDER BY seq DESC LIMIT ?"
)
_PUT: Final = (
    "INSERT INTO snapshots (tenant, encounter, seq, hash, standing, state, seal) "
    "VALUES (?,?,?,?,?,?,?) ON CONFLICT (tenant, encounter, seq) DO UPDATE SET "
    "hash = excluded.hash, "
    "standing = excluded.standing, state = excluded.state, seal = excluded.seal"
)
_TRIM: Final = (
    "DELETE FROM snapshots WHERE tenant = ? AND encounter = ? AND seq NOT IN (SELECT seq "
    "FROM snapshots WHERE tenant = ? AND encounter = ? ORDER BY seq DESC LIMIT ?)"
)

Fetch = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
Execute = Callable[[str, Sequence[Any]], None]


class Snapshot(NamedTuple):
    """A snapshot row whose seal matched: the state text at `seq`, with its key."""

    seq: int
    hash: str
    standing: str
    state: str


def key_file() -> str:
    """Where the user's seal key is kept: `$XDG_STATE_HOME/encounter-ledger/seal.key` (as
    text: a writer asks at every write)."""
    root = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(root, "encounter-ledger", "seal.key")


def key(create: bool = False) -> bytes | None:
    """The seal key: the setting, else the user's key file (made with `create`, readable by
    the user alone); None when there is none (snapshots are then neither read nor written)."""
    setting = os.environ.get(KEY_SETTING, "").strip()
    if setting:
        try:
            return bytes.fromhex(setting)
        except ValueError:
            return setting.encode("utf-8")
    path = key_file()
    with contextlib.suppress(OSError, ValueError):
        return _read(path)
    if not create:
        return None
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fresh = os.urandom(32).hex()
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: theirs stands
            return _read(path)
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(fresh + "\n")
        return bytes.fromhex(fresh)
    return None


#: The key file as last read: its identity and times (`os.stat`), and the key it held.
_last_read: tuple[tuple[str, int, int, int, int], bytes] | None = None


def _read(path: str) -> bytes:
    """The key in the file, read again only when the file is another or has changed (a
    long-lived writer asks at every write)."""
    global _last_read
    found = os.stat(path)
    mark = (path, found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size)
    if _last_read is not None and _last_read[0] == mark:
        return _last_read[1]
    with open(path, encoding="ascii") as kept:
        secret = bytes.fromhex(kept.read().strip())
    _last_read = (mark, secret)
    return secret


def seal(secret: bytes, encounter: str, seq: int, hash: str, standing: str, state: str) -> str:
    """The HMAC-SHA256 of a snapshot's key and text: of the canonical JSON text of
    `[encounter, seq, hash, standing, state]`, fed a piece at a time (a long fight's state is
    megabytes of text, which is not copied whole to be sealed)."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    head = chains.canonical([encounter, seq, hash, standing])
    mac.update(head[:-1].encode("utf-8") + b',"')
    for start in range(0, len(state), _PIECE):
        # JSON escapes character by character: the pieces' escapes are the whole's.
        mac.update(chains.canonical(state[start : start + _PIECE])[1:-1].encode("utf-8"))
    mac.update(b'"]')
    return mac.hexdigest()


#: The characters of a state's text sealed at a time.
_PIECE: Final = 1 << 20


def newest(
    fetch: Fetch, secret: bytes | None, tenant: str, encounter: str, upto: int, limit: int = KEPT
) -> Iterator[Snapshot]:
    """The encounter's snapshots at or below `upto`, newest first, whose seal matches (none
    without a key), read one at a time as they are asked for: the first that holds is most
    often the only one read."""
    if secret is None:
        return
    for _ in range(limit):
        rows = fetch(_SELECT, (tenant, encounter, upto, 1))
        if not rows:
            return
        seq, digest, standing, state, stored = rows[0]
        del rows
        upto = int(seq) - 1
        if not all(isinstance(v, str) for v in (digest, standing, state, stored)):
            continue
        expected = seal(secret, encounter, int(seq), digest, standing, state)
        if hmac.compare_digest(expected, stored):
            yield Snapshot(int(seq), digest, standing, state)


def put(
    execute: Execute, secret: bytes, tenant: str, encounter: str, snapshots: Sequence[Snapshot]
) -> None:
    """Store snapshots (replacing any at their seqs), sealed; keep the newest `KEPT`."""
    for s in snapshots:
        stamp = seal(secret, encounter, s.seq, s.hash, s.standing, s.state)
        execute(_PUT, (tenant, encounter, s.seq, s.hash, s.standing, s.state, stamp))
    if snapshots:
        execute(_TRIM, (tenant, encounter, tenant, encounter, KEPT))
