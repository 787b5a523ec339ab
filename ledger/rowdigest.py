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


def intact(key: tuple[str | int, ...], text: object, stored: object) -> bool:
    """Whether a row read back (its key, text and stored digest) is as the ledger wrote it."""
    return type(text) is str and type(stored) is str and digest(key, text) == stored


def view_row(
    encounter: str, name: str, head: tuple[int, str], text: str
) -> tuple[str, str, int, str, str, str]:
    """A `cache_views` row as both stores insert it: (encounter, name, seq, hash, view, digest)."""
    return (encounter, name, *head, text, digest((encounter, name, *head), text))
