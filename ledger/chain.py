"""The hash chain: the contract hash of one event, and verification of a stored chain.

`hash` is the hex SHA-256 of the UTF-8 JSON, keys sorted, no whitespace, of
`{"encounter", "seq", "id", "type", "recorded_at", "body", "prev_hash"}`; `prev_hash` of seq 1
is 64 zeros. Anyone can recompute it from an export.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson
from pydantic import BaseModel

from ledger.chainhash import GENESIS as GENESIS
from ledger.chainhash import hash_text as hash_text
from ledger.errors import UnknownVersion
from ledger.events import versions

CANONICAL: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical(body: Any, float_free: bool = False) -> str:
    """`CANONICAL.encode(body)`; with `float_free` (no float can occur in `body`), by orjson.

    orjson with sorted keys writes the same text as the stdlib canonical encoder for documents
    without floats (it spells some floats differently, so those keep the stdlib path): the
    same escapes, key order (UTF-8 order is code point order) and separators
    (`tests/test_canonical.py` proves it). Whatever orjson refuses (an integer past 64 bits, a
    lone surrogate, a key that is not text) takes the stdlib path too.
    """
    # A type that may hold a float (stats, a sheet's values) rarely does: its body is looked
    # through (in half the time the stdlib takes to write it) before the stdlib is asked.
    if float_free or not _holds_float(body):
        try:
            text: str = orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()
        except TypeError:
            pass
        else:
            return text
    return CANONICAL.encode(body)


def _holds_float(value: Any) -> bool:
    """Whether a float occurs anywhere in `value` (JSON data: dicts, lists and tuples)."""
    kind = type(value)
    if kind is float:
        return True
    items = value.values() if kind is dict else value if kind is list or kind is tuple else ()
    for item in items:
        inner = type(item)
        if inner is float or (inner in _CONTAINERS and _holds_float(item)):
            return True
    return False


_CONTAINERS: Final = frozenset({dict, list, tuple})


#: The body text of rows written by 0.1.0 (fields in event order); later rows store CANONICAL.
STORED: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def chain_hash(
    encounter: str,
    seq: int,
    id: str,
    type: str,
    recorded_at: str,
    body: Any,
    prev_hash: str,
) -> str:
    """The contract hash: SHA-256 of the sorted, whitespace-free UTF-8 JSON of the envelope."""
    return hash_text(encounter, seq, id, type, recorded_at, CANONICAL.encode(body), prev_hash)


def file_digest(heads: Mapping[str, str | None]) -> str:
    """One digest over every encounter's head, to publish for a whole file: the hex SHA-256 of
    the UTF-8 JSON, keys sorted, no whitespace, of `{ENCOUNTER: HEAD, ...}`."""
    return hashlib.sha256(CANONICAL.encode(dict(heads)).encode("utf-8")).hexdigest()


def matches(digest: str, published: str) -> bool:
    """Whether a head (or file digest) is the published one, given whole or as its first 12+
    hex digits (as `encounter list` shows a head)."""
    return bool(published) and digest.lower().startswith(published.lower())


#: The OS's random bytes for ids, read 256 ids' worth at a time (a bulk import asks for
#: thousands). A forked child empties its copy (`os.register_at_fork`): it must not reuse its
#: parent's bytes.
_IDS_AT_ONCE = 256
_pool: list[bytes] = []
_VARIANT: Final = "89ab"


def _forget_ids() -> None:
    _pool.clear()


os.register_at_fork(after_in_child=_forget_ids)


def new_id() -> str:
    """A random (version 4) UUID as text, from pooled random bytes."""
    try:
        chunk = _pool.pop()  # atomic: threads never share an id
    except IndexError:
        block = os.urandom(16 * _IDS_AT_ONCE)
        _pool.extend(block[i : i + 16] for i in range(0, len(block), 16))
        chunk = _pool.pop()
    # The text of uuid.UUID(bytes=chunk, version=4), without building the object: the version
    # nibble set to 4, the variant's two bits to 10 (a property test holds it to uuid's text).
    h = chunk.hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


class ChainReport(BaseModel, frozen=True):
    """The result of verifying one encounter's chain."""

    encounter: str
    events: int
    head: str | None
    bad_seq: int | None = None
    problem: str | None = None
    #: How the heads cache disagrees with the rows, when it does (the chain may still verify).
    cache: str | None = None
    #: The first event this build cannot read (a newer version of its type); its hash verifies.
    unread: str | None = None

    @property
    def ok(self) -> bool:
        """The chain verified."""
        return self.bad_seq is None


def verify_rows(
    encounter: str, rows: Iterable[tuple[Any, ...]], acknowledged: tuple[int, str] | None
) -> ChainReport:
    """Check stored rows (in seq order) against the chain; name the first seq that fails.

    Any change to a stored row shows: a gap or a reordering in the seqs, a `prev_hash` that is not
    the previous row's hash, a hash that does not match the row's contents, or a body that is not
    the exact text the ledger writes for its contents. `acknowledged` is the head the ledger
    last wrote (seq, hash): rows removed from the end show against it.
    """
    expected_seq, prev, count, last, unread = 1, GENESIS, 0, None, None
    for row in rows:
        count += 1
        seq, row_hash = row[1], row[7]
        problem = row_problem(expected_seq, prev, *row)
        if problem:
            return ChainReport(
                encounter=encounter,
                events=count,
                head=last,
                bad_seq=expected_seq,
                problem=problem,
                unread=unread,
            )
        if unread is None and versions.KEY in row[5]:
            unread = _unread(seq, row[3], row[5])
        expected_seq, prev, last = seq + 1, row_hash, row_hash
    if acknowledged is not None and acknowledged != (expected_seq - 1, last):
        return ChainReport(
            encounter=encounter,
            events=count,
            head=last,
            bad_seq=expected_seq,
            problem=f"the last stored seq is {expected_seq - 1}, but seq {acknowledged[0]} "
            "was acknowledged: events were removed from the end",
            unread=unread,
        )
    return ChainReport(encounter=encounter, events=count, head=last, unread=unread)


def _unread(seq: int, kind: str, body: str) -> str | None:
    """Why this build cannot read a row whose chain verifies (None: it can): the version its
    body names is one it does not know."""
    data = json.loads(body)
    try:
        if isinstance(data, dict):
            versions.version_of(kind, data)
    except UnknownVersion as exc:
        return f"seq {seq}: {exc}"
    return None


def row_problem(
    expected_seq: int,
    prev: str,
    encounter: Any,
    seq: Any,
    id: Any,
    type: Any,
    recorded_at: Any,
    body: Any,
    prev_hash: Any,
    stored_hash: Any,
) -> str | None:
    """What is wrong with one stored row, given the seq and hash the chain expects."""
    if seq != expected_seq:
        return f"seq {expected_seq} is missing (next stored is {seq})"
    if prev_hash != prev:
        return "prev_hash does not match the previous event's hash"
    texts = {
        "encounter": encounter,
        "id": id,
        "type": type,
        "recorded_at": recorded_at,
        "body": body,
        "hash": stored_hash,
    }
    for name, value in texts.items():
        if value is None:
            return f"{name} is missing"
        if not isinstance(value, str):
            return f"{name} is not text"
    try:
        parsed = json.loads(body)
        canonical = CANONICAL.encode(parsed)
        # The ledger writes the canonical text; files from 0.1.0 hold the fields in event order.
        exact = body == canonical or body == STORED.encode(parsed)
    except (ValueError, RecursionError):
        return "body is not valid JSON"
    if hash_text(encounter, seq, id, type, recorded_at, canonical, prev) != stored_hash:
        return "hash does not match the event's contents"
    if not exact:
        return "body is not the text the ledger wrote for it"
    return None
