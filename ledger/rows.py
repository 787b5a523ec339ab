"""Stored rows and the models they become: the head of an encounter, an event as stored.

The stores read rows and `ledger.transaction` builds them; both turn them into these models here,
so nothing above the store sees a raw row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from pydantic import BaseModel

from ledger import events
from ledger.errors import BadInput, BrokenChain, UnknownVersion


def now_utc() -> datetime:
    """The real clock (tests inject their own or use freezegun)."""
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, to the microsecond."""
    # isoformat() is several times faster than strftime(); every append reads the clock.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


class Head(BaseModel, frozen=True):
    """An encounter's head: its system and title, last seq and hash, and when it was touched."""

    encounter: str
    system: str
    title: str | None
    seq: int
    hash: str
    opened_at: str
    updated_at: str


def recorded(
    encounter: str,
    seq: int,
    id: str,
    recorded_at: str,
    prev_hash: str,
    hash: str,
    event: events.Event,
    as_stored: dict[str, Any] | None = None,
) -> events.Recorded:
    """A `Recorded` from values already validated (every row read and every event appended
    becomes one of these)."""
    return events.Recorded(encounter, seq, id, recorded_at, prev_hash, hash, event, as_stored)


def from_row(row: Any, system: str) -> events.Recorded:
    """A stored row as the record it holds (a body the models refuse is a broken chain)."""
    encounter, seq, id_, type_, recorded_at, body, prev_hash, hash_ = row
    if not isinstance(body, str) or not isinstance(type_, str):
        raise BrokenChain(f"encounter {encounter!r} seq {seq}: stored row is not text")
    try:
        event, as_stored = events.read_stored(type_, body, system)
    except UnknownVersion as exc:
        # Not tampering: a newer build wrote it (the chain still verifies).
        raise UnknownVersion(f"encounter {encounter!r} seq {seq}: {exc}") from exc
    except BadInput as exc:
        raise BrokenChain(
            f"encounter {encounter!r} seq {seq}: stored event is invalid: {exc}"
        ) from exc
    return recorded(encounter, seq, id_, recorded_at, prev_hash, hash_, event, as_stored)


COLUMNS: Final = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"


def head_of(row: Any) -> Head:
    encounter, system, title, seq, digest, opened_at, updated_at = row
    return Head(
        encounter=encounter,
        system=system,
        title=title,
        seq=seq,
        hash=digest,
        opened_at=opened_at,
        updated_at=updated_at,
    )
