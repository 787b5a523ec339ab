"""The contract hash of one event from its stored text (hashlib only: `ledger.chain` builds on
it, and the `tracks` fast path checks rows with it without loading pydantic)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Final

GENESIS: Final = "0" * 64

_quote: Callable[[str], str] = json.encoder.encode_basestring


def hash_text(
    encounter: str, seq: int, id: str, type: str, recorded_at: str, body: str, prev_hash: str
) -> str:
    """SHA-256 of the sorted, whitespace-free UTF-8 JSON of the envelope, `body` its text."""
    # The same text as json.dumps(document, sort_keys=True, separators=(",", ":"),
    # ensure_ascii=False), spelled out: hashing is on every append, import and verify.
    text = (
        f'{{"body":{body},"encounter":{_quote(encounter)},"id":{_quote(id)},'
        f'"prev_hash":{_quote(prev_hash)},"recorded_at":{_quote(recorded_at)},'
        f'"seq":{int(seq)},"type":{_quote(type)}}}'
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
