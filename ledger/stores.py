"""The store seam: what the ledger needs from an event store, and the store a location names.

Two stores implement it: SQLite (`ledger.store`, a file path, the default) and PostgreSQL
(`ledger.pgstore`, a `postgresql://` URL, for hosted use). Everything above the seam (the
queries and the service) sees only `EventStore` and the `ledger.transaction.Transaction` its
`begin()` hands out; each store keeps its database's specifics to itself, and psycopg is
imported only when a PostgreSQL URL is opened.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ledger import chain, events
from ledger.chain import ChainReport
from ledger.errors import BadInput, Conflict, LedgerWarning, UnknownName, did_you_mean
from ledger.rows import Head, from_row, now_utc

if TYPE_CHECKING:
    from ledger.cache import CacheTables
    from ledger.transaction import Transaction

#: The URL schemes that name a PostgreSQL database (libpq accepts both).
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class EventStore(Protocol):
    """An append-only, hash-chained event store: the contract of DESIGN.md section 3."""

    clock: Callable[[], datetime]

    @property
    def cache_db(self) -> CacheTables | None:
        """The projection cache's tables (`ledger.cache`) as reads see them (a write's are its
        transaction's); None where the store keeps none (reads then fold from the events)."""

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time."""

    def revisions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's retractions and corrections up to seq `upto`, in seq order."""

    def by_id(self, id: str, systems: Mapping[str, str] | None = None) -> events.Recorded | None:
        """The stored event with this id, if any (`systems`: encounters whose system is known
        before their head is stored)."""

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` are stored, in any encounter."""

    def seqs_from_head(self, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events at or below `upto`, newest first."""

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

    def names(self) -> list[str]:
        """Every encounter name, in the rows or in the heads cache, sorted."""

    def snapshot(self) -> AbstractContextManager[None]:
        """One consistent read of several statements."""

    def problems(self) -> list[str]:
        """What is wrong with the ledger as a whole (the append-only triggers)."""

    def begin(
        self, encounter: str, expect: int | None = None, *, bulk: bool = False
    ) -> AbstractContextManager[Transaction]:
        """One write transaction of `encounter` under its write lock: the head read and checked
        against the last row, the chain after the verified mark checked, `expect` checked;
        what is appended commits together when the block ends, or nothing does (`bulk`: an
        import of many events, which the store may tune for)."""

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""


def is_postgres(location: str | Path) -> bool:
    """Whether `location` is a PostgreSQL URL rather than a file path."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def open_store(
    location: str | Path,
    clock: Callable[[], datetime] = now_utc,
    create: bool = True,
    readonly: bool = False,
    pool_size: int | None = None,
) -> EventStore:
    """The store `location` names: a `postgresql://` URL, or else a SQLite file path."""
    if is_postgres(location):
        from ledger import pgstore

        return pgstore.PgStore(
            str(location),
            clock=clock,
            create=create and not readonly,
            readonly=readonly,
            pool_size=pgstore.POOL_SIZE if pool_size is None else pool_size,
        )
    from ledger.store import Store

    return Store(location, clock=clock, create=create, readonly=readonly)


def check_write_args(encounter: str, expect: int | None) -> None:
    """Bad input for a write named by anything but text, or expecting anything but a seq."""
    if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
        raise BadInput(f"expect must be a seq (a whole number), not {expect!r}")
    if not isinstance(encounter, str):
        raise BadInput(f"an encounter is named by text, not {encounter!r}")


class WarnsOnce:
    """A store's warnings about a damaged encounter (its cache or chain): once per encounter,
    on stderr for the CLI."""

    _told: set[str]

    def tell(self, encounter: str, message: str) -> None:
        """Warn once per encounter (a damaged cache or chain), on stderr for the CLI."""
        if encounter not in self._told:
            self._told.add(encounter)
            warnings.warn(message, LedgerWarning, stacklevel=3)

    def told(self, encounter: str) -> None:
        """The caller reports the encounter's damage itself: no warning for it from here."""
        self._told.add(encounter)


class ReadsRecords(ABC):
    """An encounter's parsed events, from a store's `require` and `load_rows` (both stores)."""

    @abstractmethod
    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""

    @abstractmethod
    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time."""

    def records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's events in seq order, parsed."""
        return list(self.iter_records(encounter, after, upto))

    def iter_records(
        self, encounter: str, after: int = 0, upto: int | None = None
    ) -> Iterator[events.Recorded]:
        """The encounter's events in seq order, parsed lazily."""
        head = self.require(encounter)
        return self.load_rows(encounter, head.system, after, head.seq if upto is None else upto)


def checked_rows(
    rows: Iterable[tuple[Any, ...]],
    encounter: str,
    system: str,
    after: int,
    prev: str,
    broken: Callable[[str, int, str], None],
) -> Iterator[events.Recorded]:
    """Stored rows after seq `after` (whose hash is `prev`) parsed one at a time, the chain
    checked on the way: `broken(encounter, seq, problem)` is told of the first bad row (it may
    raise, as a write does, or warn and let the read show what is stored)."""
    expected, checking = after + 1, True
    for row in rows:
        if checking:
            seq, id_, type_, recorded_at, body, prev_hash, digest = row[1:]
            if (
                seq != expected
                or prev_hash != prev
                or not isinstance(body, str)
                or chain.hash_text(encounter, seq, id_, type_, recorded_at, body, prev) != digest
            ):
                problem = chain.row_problem(expected, prev, *row)
                if problem is not None:
                    checking = False
                    broken(encounter, expected, problem)
            expected, prev = seq + 1, digest
        yield from_row(row, system)


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


def heads_agree(cached: Head | None, last: tuple[int, str, str] | None) -> bool:
    """Whether the heads cache's row and the last stored row (seq, hash, time) agree."""
    if cached is None or last is None:
        return cached is None and last is None
    return (cached.seq, cached.hash) == last[:2]


def heads_disagreement(
    encounter: str, cached: Head | None, last: tuple[int, str, str] | None, done: str
) -> str:
    """The warning for a heads cache that disagrees with the rows, and what was done."""
    said = f"seq {cached.seq}" if cached else "nothing"
    rows = f"end at seq {last[0]}" if last else "hold none of it"
    return (
        f"the heads cache of encounter {encounter!r} says {said}, but its stored events {rows}: "
        f"{done} (if events were removed, only a published head digest shows it)"
    )


def against_heads(report: ChainReport, cached: Head | None) -> ChainReport:
    """A chain's report completed by the heads cache: events removed from the end (the cache
    acknowledged more), or a cache that disagrees with rows that verify."""
    if not report.ok:
        return report
    if cached is None:
        cache = "the heads cache has no row for it" if report.events else None
        return report.model_copy(update={"cache": cache})
    if cached.seq > report.events:
        return report.model_copy(
            update={
                "bad_seq": report.events + 1,
                "problem": f"the last stored seq is {report.events}, but seq {cached.seq} "
                "was acknowledged: events were removed from the end",
            }
        )
    if (cached.seq, cached.hash) != (report.events, report.head):
        cache = (
            f"the heads cache says seq {cached.seq} (hash {cached.hash[:12]}), but the "
            f"rows end at seq {report.events} (hash {(report.head or '')[:12]})"
        )
        return report.model_copy(update={"cache": cache})
    return report
