"""The store seam: what the ledger needs from an event store, and the store a location names.

Two stores implement it: SQLite (`ledger.store`, a file path, the default) and PostgreSQL
(`ledger.pgstore`, a `postgresql://` URL, for hosted use). Everything above the seam (the
queries, the service, the writer) sees only these protocols; each store keeps its database's
specifics to itself, and psycopg is imported only when a PostgreSQL URL is opened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ledger import events
from ledger.chain import ChainReport
from ledger.errors import BadInput, Conflict, UnknownName, did_you_mean
from ledger.rows import Head, now_utc

if TYPE_CHECKING:
    from ledger.writer import Writer

#: The URL schemes that name a PostgreSQL database (libpq accepts both).
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class Appending(Protocol):
    """The reads and the insert a `Writer` makes inside one write transaction."""

    clock: Callable[[], datetime]

    @property
    def cache_db(self) -> Any:
        """The connection the projection cache (`ledger.cache`) keeps its tables in, or None
        where the store keeps no cache tables (reads then fold from the events)."""

    def insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert built rows inside the open write transaction."""

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time."""

    def retractions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's `event.retracted` events up to seq `upto`."""

    def by_id(self, id: str) -> events.Recorded | None:
        """The stored event with this id, if any."""

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` are stored, in any encounter."""

    def seqs_from_head(self, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events at or below `upto`, newest first."""


class EventStore(Appending, Protocol):
    """An append-only, hash-chained event store: the contract of DESIGN.md section 3."""

    @property
    def name(self) -> str:
        """Where the ledger is, for messages (a PostgreSQL URL without its password)."""

    def close(self) -> None:
        """Release the connection (or the pool)."""

    def encounters(self) -> list[Head]:
        """Every encounter's head, by name."""

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist."""

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""

    def records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's events in seq order, parsed."""

    def iter_records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> Iterator[events.Recorded]:
        """The encounter's events in seq order, parsed lazily."""

    def raw_rows(self, encounter: str) -> Iterator[tuple[Any, ...]]:
        """Stored rows as they are (the eight columns), for verification and export."""

    def stored_encounters(self) -> list[str]:
        """Every encounter name that has rows, read from the events themselves."""

    def writing(self, encounter: str, expect: int | None = None) -> AbstractContextManager[Writer]:
        """One atomic append under the encounter's write lock; `expect` is checked."""

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""


def is_postgres(location: str | Path) -> bool:
    """Whether `location` is a PostgreSQL URL rather than a file path."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def open_store(
    location: str | Path,
    clock: Callable[[], datetime] = now_utc,
    create: bool = True,
    pool_size: int | None = None,
) -> EventStore:
    """The store `location` names: a `postgresql://` URL, or else a SQLite file path."""
    if is_postgres(location):
        from ledger import pgstore

        return pgstore.PgStore(
            str(location),
            clock=clock,
            create=create,
            pool_size=pgstore.POOL_SIZE if pool_size is None else pool_size,
        )
    from ledger.store import Store

    return Store(location, clock=clock, create=create)


def check_write_args(encounter: str, expect: int | None) -> None:
    """Bad input for a write named by anything but text, or expecting anything but a seq."""
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
        raise BadInput(f"expect must be a seq (a whole number), not {expect!r}")
    if not isinstance(encounter, str):
        raise BadInput(f"an encounter is named by text, not {encounter!r}")


def check_expect(encounter: str, seq: int, expect: int | None) -> None:
    """The write's `expect` against the head read under the write lock: bad input when it
    cannot be a seq of the encounter, a conflict when another writer appended first."""
    if expect is not None and not 0 <= expect <= seq:
        raise BadInput(
            f"--expect {expect}: encounter {encounter!r} is at seq {seq}, so the seq "
            f"you last saw is between 0 and {seq}"
        )
    if expect is not None and expect != seq:
        raise Conflict(
            f"encounter {encounter!r} is at seq {seq}, not {expect}: "
            "another writer appended first; re-read and try again",
            code="stale-expect",
            expected=expect,
            actual=seq,
        )


def unknown_encounter(encounter: str, where: str | Path, heads: list[Head]) -> UnknownName:
    """The error for an encounter the ledger does not hold, naming those it does."""
    known = [h.encounter for h in heads]
    shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
    return UnknownName(
        f"encounter {encounter!r} is not in {where}{did_you_mean(encounter, known)} "
        f"(known: {shown or 'none yet'})",
        code="unknown-encounter",
    )
