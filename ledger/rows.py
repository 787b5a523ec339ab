"""Stored rows and the models they become: the head of an encounter, an event as stored.

The stores read rows and `ledger.transaction` builds them; both turn them into these models here,
so nothing above the store sees a raw row.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from ledger import events
from ledger.errors import BadInput, BrokenChain, UnknownVersion


def now_utc() -> datetime:
    """The real clock (tests inject their own or use freezegun)."""
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, to the microsecond."""
    # isoformat() is several times faster than strftime(); every append reads the clock.
    if moment.tzinfo is UTC:  # the real clock's: "+00:00" becomes the Z
        return moment.isoformat(timespec="microseconds")[:-6] + "Z"
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


M = TypeVar("M", bound=BaseModel)


def built(cls: type[M], values: dict[str, Any], private: dict[str, Any] | None = None) -> M:
    """A model of `cls` holding `values`, every field given and already checked: what pydantic's
    `model_construct` makes, without its search of each field's aliases and default (a write
    makes its head and its result so). `private`: the private attributes, all of them."""
    made = cls.__new__(cls)
    object.__setattr__(made, "__dict__", values)
    object.__setattr__(made, "__pydantic_fields_set__", set(values))
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", private)
    return made


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


_last_head: tuple[tuple[Any, ...], Head] | None = None


def head_of(row: Any) -> Head:
    """A heads row (encounter, system, title, seq, hash, opened_at, updated_at) as a `Head`,
    validated: the row is read from the file. The row validated last is remembered, and the
    same row again gets its `Head` (a process that writes one encounter reads its head on
    every write)."""
    global _last_head
    row = tuple(row)
    last = _last_head
    if last is not None and last[0] == row:
        return last[1]
    encounter, system, title, seq, digest, opened_at, updated_at = row
    head = Head(
        encounter=encounter,
        system=system,
        title=title,
        seq=seq,
        hash=digest,
        opened_at=opened_at,
        updated_at=updated_at,
    )
    _last_head = (row, head)
    return head


def written(head: Head) -> tuple[Any, ...]:
    """The heads row of `head`, remembered as validated: the next write of its encounter reads
    back the row the last one wrote (see `head_of`)."""
    global _last_head
    row = (
        head.encounter,
        head.system,
        head.title,
        head.seq,
        head.hash,
        head.opened_at,
        head.updated_at,
    )
    _last_head = (row, head)
    return row


def moved(head: Head, seq: int, hash: str, updated_at: str) -> Head:
    """`head` moved to a new last event (values the ledger made: not validated again)."""
    return built(Head, {**head.__dict__, "seq": seq, "hash": hash, "updated_at": updated_at})
