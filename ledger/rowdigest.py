"""The digest a projection-cache row carries of its own content (`digest` in each cache table).

A row is used only when its digest is that of its key and text: a row edited outside the ledger
(or damaged) reads as missing, so the fold answers instead and the next write rewrites the row.
The digest is SHA-256, in hex, of the row's key as a JSON array (the encounter, the name, n or
seq, and the hash of the head or event it was written for) and of its text after a newline: the
key's JSON holds no newline, so no two rows give the same input. Imports no pydantic: the CLI's
fast path (`ledger.fastpath`) checks rows with it.
"""

from __future__ import annotations

import hashlib
import json

_quote = json.encoder.encode_basestring_ascii


def digest(key: tuple[str | int, ...], text: str) -> str:
    """The digest of a cache row with this key (its columns before the text) and text."""
    if all(type(part) is str or type(part) is int for part in key):
        # The text of json.dumps(key, ensure_ascii=True, separators=(",", ":")), spelled out:
        # every write seals its rows (a property test holds the two to each other).
        head = "[" + ",".join(_quote(p) if type(p) is str else str(p) for p in key) + "]"
    else:
        head = json.dumps(key, ensure_ascii=True, separators=(",", ":"))
    # A lone surrogate (an old file may hold one) is hashed as it is stored, never refused.
    return hashlib.sha256(f"{head}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def intact(key: tuple[object, ...], text: object, stored: object) -> bool:
    """Whether a row read back (its key, text and stored digest) is as the ledger wrote it: a
    key column that is neither text nor a whole number (a hand-edited file) never is."""
    if type(text) is not str or type(stored) is not str:
        return False
    parts = [part for part in key if isinstance(part, str | int) and type(part) is not bool]
    return len(parts) == len(key) and digest(tuple(parts), text) == stored


# Each table's row as both stores insert it (its digest last), and the check of one read back:
# the key of each table is spelled here only.


def view_row(
    encounter: str, name: str, head: tuple[int, str], text: str
) -> tuple[str, str, int, str, str, str]:
    """A `cache_views` row: (encounter, name, seq, hash, view, digest)."""
    return (encounter, name, *head, text, digest((encounter, name, *head), text))


def view_intact(
    encounter: str, name: str, seq: object, hash: object, text: object, stored: object
) -> bool:
    """Whether a `cache_views` row read back is as the ledger wrote it."""
    return intact((encounter, name, seq, hash), text, stored)


def snapshot_row(
    encounter: str, seq: int, hash: str, gone: str, text: str
) -> tuple[str, int, str, str, str, str]:
    """A `cache_snapshots` row: (encounter, seq, hash, gone, state, digest)."""
    return (encounter, seq, hash, gone, text, digest((encounter, seq, hash, gone), text))


def snapshot_intact(
    encounter: str, seq: int, hash: object, gone: object, text: object, stored: object
) -> bool:
    """Whether a `cache_snapshots` row read back is as the ledger wrote it."""
    return intact((encounter, seq, hash, gone), text, stored)


def roll_row(encounter: str, n: int, text: str) -> tuple[str, int, str, str]:
    """A `cache_rolls` row: (encounter, n, roll, digest)."""
    return (encounter, n, text, digest((encounter, n), text))


def roll_intact(encounter: str, n: object, text: object, stored: object) -> bool:
    """Whether a `cache_rolls` row read back is as the ledger wrote it."""
    return intact((encounter, n), text, stored)
