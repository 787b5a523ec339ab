"""The store: the only package that speaks SQL. Rows in, rows out.

An event is stored as one row of the `events` table (DESIGN.md section 3): `Row` below. The
store reads and writes rows and checks their hash chain; it never reads an event model (the
use cases one level up turn rows into events). Two databases hold the same tables and the same
chain: a SQLite file (`sqlite`, the default) and PostgreSQL (`postgres`, a `postgresql://` URL,
imported only for such a URL). Both are the one store of `sql`, over their dialect.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple, Protocol

from ledger.errors import BadInput
from ledger.store.chain import ChainReport

#: The URL schemes that name a PostgreSQL database (libpq accepts both).
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: The ledger file when neither --db nor ENCOUNTER_DB names one.
DEFAULT_DB = "encounters.db"
#: A ledger of its own in a temporary file SQLite deletes when it closes (a `.jsonl` read).
SCRATCH = ":scratch:"
#: The tenant of a ledger that names none (every file and database written before tenants).
DEFAULT_TENANT = "default"
#: What a tenant's name may be: a letter or digit, then letters, digits and `_ . : @ -`
#: (a Discord guild's id, `guild:1234`, a VTT world's slug), at most 100 characters.
_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@-]{0,99}")


def check_tenant(tenant: object) -> str:
    """The tenant's name, or bad input saying what a tenant's name may be."""
    if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
        raise BadInput(
            f"a tenant is named by a letter or digit, then letters, digits and _ . : @ - "
            f"(at most 100 characters), not {tenant!r}"
        )
    return tenant


class Row(NamedTuple):
    """One stored event, as the `events` table holds it."""

    encounter: str
    seq: int
    id: str
    type: str
    recorded_at: str
    body: str
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class Head:
    """An encounter's head: its system and title, last seq and hash, and when it was touched."""

    encounter: str
    system: str
    title: str | None
    seq: int
    hash: str
    opened_at: str
    updated_at: str
    #: Whether the encounter was erased (`encounter erase`): its rows keep their place in the
    #: chain, not their contents.
    erased: bool = False

    def document(self) -> dict[str, Any]:
        """The head as `list --json` shows it."""
        return {
            "encounter": self.encounter,
            "system": self.system,
            "title": self.title,
            "seq": self.seq,
            "hash": self.hash,
            "opened_at": self.opened_at,
            "updated_at": self.updated_at,
            "erased": self.erased,
        }


def now_utc() -> datetime:
    """The real clock (tests inject their own or use freezegun)."""
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, to the microsecond."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


class Transaction(Protocol):
    """One open write transaction of one encounter (`ledger.store.transaction`)."""

    encounter: str
    seq: int
    hash: str
    system: str | None
    discarded: bool

    def append(
        self, type: str, body: str, *, id: str | None = None, recorded_at: str | None = None
    ) -> Row:
        """Append one row at the next seq (its body as canonical text)."""

    def rows(self, after: int = 0) -> Iterator[Row]:
        """The encounter's rows after seq `after`, appended ones included."""

    def revisions(self) -> list[Row]:
        """The encounter's retractions and corrections, appended ones included."""

    def by_id(self, id: str) -> Row | None:
        """The row with this id, in any encounter, appended here or stored before."""

    def seqs_from_head(self) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's rows, newest first."""

    def discard(self) -> None:
        """Roll back instead of committing when the block ends (a dry run)."""


class EventStore(Protocol):
    """An append-only, hash-chained event store: the contract of DESIGN.md section 3."""

    clock: Callable[[], datetime]

    @property
    def name(self) -> str:
        """Where the ledger is, for messages (a PostgreSQL URL without its password)."""

    def close(self) -> None:
        """Release the connection (or the pool)."""

    def names(self) -> list[str]:
        """Every encounter name, in the rows or in the heads cache, sorted."""

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist."""

    def rows(self, encounter: str, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        """The encounter's rows after `after` up to `upto`, in seq order, the chain checked on
        the way (a read warns once and shows what is stored)."""

    def revisions(self, encounter: str, upto: int | None = None) -> list[Row]:
        """The encounter's retractions and corrections up to seq `upto`, in seq order."""

    def by_id(self, id: str) -> Row | None:
        """The stored row with this id, in any encounter."""

    def reading(self) -> AbstractContextManager[None]:
        """Several reads that see the ledger as of one moment."""

    def begin(
        self, encounter: str, expect: int | None = None, *, bulk: bool = False
    ) -> AbstractContextManager[Transaction]:
        """One write transaction of `encounter` under its write lock (see `sql.SqlStore`)."""

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify."""

    def problems(self) -> list[str]:
        """What is wrong with the ledger as a whole (the append-only guard)."""


def is_postgres(location: str | Path) -> bool:
    """Whether `location` is a PostgreSQL URL rather than a file path."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


#: The default pool of a PostgreSQL ledger: at most this many connections per `Ledger` (one per
#: thread that reads or writes at the same moment); `Ledger(url, pool_size=N)` changes it.
POOL_SIZE: Final = 4


def connections(location: str | Path, pool_size: object = None, notify: object = False) -> int:
    """How many connections a ledger at `location` holds (a file one, a PostgreSQL database its
    `pool_size`, else `POOL_SIZE`); bad input for an option its kind of store does not take."""
    if not is_postgres(location):
        if pool_size is not None:
            raise BadInput("pool_size is for a PostgreSQL ledger; a ledger file has one connection")
        if notify:
            raise BadInput("notify is for a PostgreSQL ledger; a ledger file's followers poll it")
        return 1
    if pool_size is None:
        return POOL_SIZE
    if not isinstance(pool_size, int) or isinstance(pool_size, bool) or pool_size < 1:
        raise BadInput(f"pool_size must be a whole number of at least 1, not {pool_size!r}")
    return pool_size
