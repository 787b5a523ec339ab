"""The store, written once in SQL: reads, the heads cache, verification and the write
transaction, over a dialect (`sqlite.SqliteDatabase`, `postgres.PostgresDatabase`).

A dialect connects, takes the write lock of an encounter, runs statements and translates its
database's errors; every statement is written here with `?` placeholders, which the dialect
spells as its driver wants. Reads are paged by seq, so memory stays bounded on a long
encounter and a server connection is never held between pages.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Protocol, cast

from ledger.errors import (
    BadInput,
    BrokenChain,
    Conflict,
    Erased,
    LedgerWarning,
    UnknownName,
    did_you_mean,
)
from ledger.store import Head, Row, snapshots, statements
from ledger.store import chain as chains
from ledger.store.chain import ChainReport
from ledger.store.snapshots import Snapshot
from ledger.store.transaction import Connection, Transaction

#: How often a follower asks whether its fence holds (transactions of the ledger are short).
_SETTLE_S: Final = 0.005
#: How many encounters' heads a store remembers as its own last writes left them.
LEFT_HEADS: Final = 1024


class Database(Protocol):
    """What a dialect gives the store."""

    @property
    def name(self) -> str:
        """Where the ledger is, for messages."""

    #: Whether the database holds the snapshots table.
    snapshots: bool
    #: The tenant whose rows this database's statements read and write.
    tenant: str
    #: A ledger of the format before tenants, read as it is (never written until migrated).
    unscoped: bool

    def scoped(self, tenant: str) -> Database:
        """The same database (its connection or pool shared) for another tenant."""

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query, outside any write (inside `reading`, in its transaction)."""

    def reading(self) -> AbstractContextManager[None]:
        """Several reads as of one moment."""

    def fence(self) -> tuple[int, Any]:
        """(a position, a token): once `passed(token)`, every row at or below the position is
        committed or never will be, so a follower may read up to it and never passes a gap
        that could still fill."""

    def passed(self, token: Any) -> bool:
        """Whether the fence of this token holds."""

    def waiter(self, sleep: Callable[[float], None]) -> Callable[[float], None]:
        """A wait of at most its argument's seconds, ended early by an append if it can."""

    def writing(self, encounter: str, bulk: bool) -> AbstractContextManager[Connection]:
        """One write transaction holding the encounter's lock, committed when the block ends
        (rolled back when it raises or was discarded)."""

    def names(self) -> list[str]:
        """Every encounter name of the tenant in the events or the heads cache, sorted."""

    def rebuild_views(self, encounters: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
        """(Re)create the SQL views and the `track_changes` read model from these rows."""

    def drop_views(self) -> bool:
        """Delete the tenant's read model; the table and the views too (True) unless another
        tenant's rows are left in it."""

    def problems(self) -> list[str]:
        """What is wrong with the database as a whole (the append-only guard)."""

    def others(self) -> int | None:
        """Outside a write: the count `Connection.others` gives (None: the dialect keeps none)."""

    def erased(self) -> None:
        """After an erasure's commit: what the database keeps of the old bodies outside its
        tables let go of, where it can be at once (SQLite's write-ahead log)."""

    def close(self) -> None:
        """Release the connection (or the pool)."""


class _Holding(Connection, Protocol):
    """A dialect's write connection that can take the lock of another encounter as well."""

    def hold(self, tenant: str, encounter: str) -> None:
        """Hold `encounter`'s write lock too, until the transaction ends."""


@dataclass(frozen=True, slots=True)
class Mark:
    """Taken before a read: the dialect's count of other connections' commits (None: it keeps
    none, as a server) and how many warnings of damage the encounter's reads gave so far."""

    others: int | None
    alarms: int


class SqlStore:
    """One ledger: a SQLite file or a PostgreSQL database, through its dialect."""

    def __init__(self, db: Database, clock: Callable[[], datetime]) -> None:
        self.db = db
        self.clock = clock
        #: The tenant whose encounters this store reads and writes (`default` unless named).
        self.tenant = db.tenant
        self._told: set[str] = set()
        #: Each encounter's head as this store's last write committed it, with the dialect's
        #: count of other connections' commits then (`Connection.others`), newest last.
        self._left: dict[str, tuple[int, str | None, int]] = {}
        #: Each encounter's head as this store's last committed write left it (its rows, its
        #: heads row), with the count of other connections' commits then: while the count has
        #: not moved, the file is as that commit left it, and a write reads no head again.
        #: Apart from `_left`, which a read also sets (`vouch`) without the write's lock, so
        #: that a write only compares it with the head it reads: this one is set under that
        #: lock alone (`_remember`), and trusted alone.
        self._wrote: dict[str, tuple[Head, int]] = {}
        #: How many warnings of damage each encounter's reads gave (told or not): a read that
        #: gave one vouches for nothing (`vouch`).
        self._alarms: dict[str, int] = {}

    def scoped(self, tenant: str) -> SqlStore:
        """The same ledger (its connection or pool shared) for another tenant."""
        return SqlStore(self.db.scoped(tenant), self.clock)

    def high_water(
        self, wait: Callable[[float], None], patience: float, stop: Callable[[], bool] | None
    ) -> int | None:
        """The position up to which a follower may read: a fence (`Database.fence`) once it
        holds, waiting for it (None when `patience` seconds pass first, or `stop()`)."""
        position, token = self.db.fence()
        waited = 0.0
        while not self.db.passed(token):
            if waited >= patience or (stop is not None and stop()):
                return None
            wait(_SETTLE_S)
            waited += _SETTLE_S
        return position

    def waiter(self, sleep: Callable[[float], None]) -> Callable[[float], None]:
        """How a follower waits for the next append: woken by the database when it can (a
        PostgreSQL ledger opened with `notify`), else `sleep`."""
        return self.db.waiter(sleep)

    def following(self, after: int, upto: int, limit: int) -> list[tuple[int, Row]]:
        """The tenant's rows after position `after` up to `upto`, in position order, with
        their positions (at most `limit`)."""
        found = self.db.fetch(statements.FOLLOWING, (self.tenant, after, upto, limit))
        return [(int(r[0]), Row(*r[1:])) for r in found]

    def holds(self, position: int) -> bool:
        """Whether the tenant's event at `position` is stored (and visible here)."""
        return bool(self.db.fetch(statements.HOLDS, (self.tenant, position)))

    def position(self, encounter: str, seq: int) -> int | None:
        """The position of the encounter's row at `seq`, if stored."""
        found = self.db.fetch(statements.POSITION_OF, (self.tenant, encounter, seq))
        return int(found[0][0]) if found else None

    @property
    def name(self) -> str:
        """Where the ledger is, for messages."""
        return self.db.name

    def close(self) -> None:
        """Release the connection (or the pool)."""
        self.db.close()

    def reading(self) -> AbstractContextManager[None]:
        """Several reads as of one moment."""
        return self.db.reading()

    def problems(self) -> list[str]:
        """What is wrong with the ledger as a whole (the append-only guard)."""
        return self.db.problems()

    # Warnings about a damaged encounter: once each, on stderr for the CLI.

    def tell(self, encounter: str, message: str) -> None:
        """Warn once per encounter (a damaged heads cache or chain)."""
        self._alarms[encounter] = self._alarms.get(encounter, 0) + 1
        if encounter not in self._told:
            self._told.add(encounter)
            warnings.warn(message, LedgerWarning, stacklevel=3)

    def told(self, encounter: str) -> None:
        """The caller reports the encounter's damage itself: no warning for it from here."""
        self._told.add(encounter)

    # Heads.

    def names(self) -> list[str]:
        """Every encounter name, in the rows or in the heads cache, sorted."""
        return self.db.names()

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist: read from the rows (seq 1
        names the system), with a warning when they do not hold the head the ledger last
        acknowledged (events removed) or go on after it (the heads cache lags)."""
        if not storable(encounter):
            return None  # no stored name holds a lone surrogate (bytes that are not UTF-8)
        with self.db.reading():
            acknowledged, last = statements.heads_row(self.db.fetch, self.tenant, encounter)
            derived = statements.derived_head(self.db.fetch, self.tenant, encounter, last)
            found = statements.witness(self.db.fetch, self.tenant, encounter, acknowledged, last)
        if found is None:
            return derived
        kind, problem = found
        if kind == statements.MISSING:
            self.tell(
                encounter,
                f"encounter {encounter!r} does not hold the head the ledger acknowledged "
                f"({problem}): what is shown may not be all that was recorded; see "
                "`encounter verify`",
            )
        elif last is not None:
            self.tell(
                encounter, statements.lagging(encounter, acknowledged, last, "read from the rows")
            )
        return derived

    def heads(self) -> list[Head]:
        """Every encounter's head, by name (one that lost its cached head included)."""
        with self.db.reading():
            heads = [self.head(name) for name in self.names()]
        return [h for h in heads if h is not None]

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""
        if not isinstance(encounter, str):
            raise BadInput(f"an encounter is named by text, not {encounter!r}")
        head = self.head(encounter)
        if head is None:
            raise unknown_encounter(encounter, self.name, self.names())
        return head

    # What this store checked itself (SQLite only: `Connection.others`).

    def mark(self, encounter: str) -> Mark:
        """Taken before a read of the encounter, for `vouched` and `vouch`."""
        return Mark(self.db.others(), self._alarms.get(encounter, 0))

    def vouched(self, head: Head, mark: Mark) -> bool:
        """Whether the rows through `head` are ones this store checked itself (its own write,
        or a read that warned of nothing) and no other connection has committed since."""
        left = (head.seq, head.hash, mark.others)
        return mark.others is not None and self._left.get(head.encounter) == left

    def vouch(self, head: Head, mark: Mark) -> None:
        """A read checked every row through `head` after `mark` was taken: the next read or
        write takes them as checked while no other connection commits (nothing, when the
        read warned of damage or the dialect keeps no count)."""
        if mark.others is None or self._alarms.get(head.encounter, 0) != mark.alarms:
            return
        self._left[head.encounter] = (head.seq, head.hash, mark.others)
        while len(self._left) > LEFT_HEADS:
            del self._left[next(iter(self._left))]

    def readable(self, encounter: str) -> Head:
        """The encounter's head, for a read of its events: bad input when it does not exist,
        `Erased` when it was erased (nothing of its contents is left to read)."""
        head = self.require(encounter)
        if head.erased:
            raise erased(encounter)
        return head

    # Rows.

    def rows(self, encounter: str, after: int = 0, upto: int | None = None) -> Iterator[Row]:
        """The encounter's rows after..upto in seq order, paged, the chain checked on the way:
        a read warns once and shows what is stored (a write refuses a broken chain)."""
        top = upto if upto is not None else 2**62
        prev = statements.hash_at(self.db.fetch, self.tenant, encounter, after)

        def broken(seq: int, problem: str) -> None:
            self.tell(
                encounter,
                f"encounter {encounter!r} does not verify at seq {seq} ({problem}): what is "
                "shown may not be what was recorded; see `encounter verify`",
            )

        return chains.checked(
            statements.pages(self.db.fetch, self.tenant, encounter, after, top), after, prev, broken
        )

    def raw_rows(self, encounter: str) -> Iterator[Row]:
        """The encounter's rows as they are, for verification and export."""
        return statements.pages(self.db.fetch, self.tenant, encounter, 0, 2**62)

    def revisions(self, encounter: str, upto: int | None = None) -> list[Row]:
        """The encounter's retractions and corrections up to seq `upto`, in seq order."""
        return statements.revisions(self.db.fetch, self.tenant, encounter, upto)

    def by_id(self, id: str) -> Row | None:
        """The stored row with this id, in any encounter."""
        found = self.db.fetch(statements.BY_ID, (self.tenant, id))
        return Row(*found[0]) if found else None

    def type_at(self, encounter: str, seq: int) -> str | None:
        """The type of the event at `seq`, if stored."""
        found = self.db.fetch(statements.TYPE_AT, (self.tenant, encounter, seq))
        return str(found[0][0]) if found else None

    def snapshots(self, encounter: str, upto: int, secret: bytes | None) -> Iterator[Snapshot]:
        """The encounter's sealed snapshots at or below `upto`, newest first (read as they
        are asked for)."""
        if not self.db.snapshots:
            return iter(())
        return snapshots.newest(self.db.fetch, secret, self.tenant, encounter, upto)

    # The SQL views for sqlite-utils and Datasette users.

    def rebuild_views(self, encounters: Iterable[Iterable[Mapping[str, Any]]]) -> dict[str, int]:
        """(Re)create the views and the `track_changes` read model from these rows."""
        return self.db.rebuild_views(encounters)

    def drop_views(self) -> bool:
        """Delete the tenant's read model, and the table and the views unless another tenant's
        rows are left in it (then False: they stay). The events lose nothing."""
        return self.db.drop_views()

    # Verification.

    def verify(self, encounter: str) -> ChainReport:
        """Recompute one encounter's chain; name the first seq that does not verify, or where
        the rows do not hold the head the ledger acknowledged; say when the heads cache lags.
        The rows read are those of one moment, up to the last one read first."""
        if not storable(encounter):
            return chains.verify_rows(encounter, iter(()), None)  # as any name never stored
        with self.db.reading():
            acknowledged, last = statements.heads_row(self.db.fetch, self.tenant, encounter)
            top = last.seq if last is not None else 0
            rows = (
                statements.pages(self.db.fetch, self.tenant, encounter, 0, top) if top else iter(())
            )
            report = chains.verify_rows(encounter, rows, None)
            found = statements.witness(self.db.fetch, self.tenant, encounter, acknowledged, last)
        self.told(encounter)
        return statements.against_heads(report, found, acknowledged)

    # Writes.

    @contextmanager
    def begin(
        self, encounter: str, expect: int | None = None, *, bulk: bool = False, repair: bool = False
    ) -> Iterator[Transaction]:
        """One write transaction: the encounter's lock is taken, its head read from the rows,
        its whole chain checked, the rows checked to hold the head the ledger acknowledged
        last, `expect` checked; everything appended commits together when the block ends, or
        nothing does (`bulk`: an import of many events, which the dialect may tune for).

        A broken chain, or rows that no longer hold the acknowledged head (events removed
        from the end, or replaced), is never extended: `BrokenChain`. With `repair` the loss
        of an acknowledged head is accepted (`Transaction.lost` says what was lost) and the
        write records it; nothing else is."""
        if expect is not None and (not isinstance(expect, int) or isinstance(expect, bool)):
            raise BadInput(f"expect must be a seq (a whole number), not {expect!r}")
        if not isinstance(encounter, str):
            raise BadInput(f"an encounter is named by text, not {encounter!r}")
        if not storable(encounter):  # never stored, so not there (`new` refuses such a name)
            raise unknown_encounter(encounter, self.name, self.names())
        with self.db.writing(encounter, bulk) as conn:
            # The dialect's count of other connections' commits (never a mark in the
            # database): unmoved since this store's own commit of the encounter, its rows and
            # heads row are the ones that commit left, checked and written here.
            others = conn.others()
            left = self._left.pop(encounter, None)
            wrote = self._wrote.pop(encounter, None)
            if others is not None and wrote is not None and wrote[1] == others and not repair:
                head: Head | None = wrote[0]
                txn = Transaction(
                    conn, self.tenant, encounter, head, self.clock, snapshots=self.db.snapshots
                )
                txn.left_as_checked()
            else:
                txn = self._opened(conn, encounter, others, left, repair=repair)
                head = txn.opened
            seq = head.seq if head else 0
            check_expect(encounter, seq, expect)
            yield txn
            if txn.discarded:
                conn.discard()
            else:
                txn.finish()
            kept = txn.opened if txn.discarded else txn.head
            if others is not None and kept is not None:
                # Once committed, under the write's lock (another thread's write of the same
                # `Ledger` waits for it); a failed commit remembers nothing, and the next write
                # reads and checks everything.
                conn.after_commit(functools.partial(self._remember, kept, others))

    def _remember(self, head: Head, others: int) -> None:
        """The head this store's write committed, with the count of other connections'
        commits then."""
        self._left[head.encounter] = (head.seq, head.hash, others)
        self._wrote[head.encounter] = (head, others)
        for remembered in (self._left, self._wrote):
            while len(remembered) > LEFT_HEADS:
                del remembered[next(iter(remembered))]

    def _opened(
        self,
        conn: Connection,
        encounter: str,
        others: int | None,
        left: tuple[int, str | None, int] | None,
        *,
        repair: bool,
    ) -> Transaction:
        """The write's transaction over the head read from the rows: its chain checked (every
        row, unless this store checked them through that head and no other connection has
        committed since, so that a long-lived writer's append does not read its whole
        encounter again), the rows checked to hold the head the ledger acknowledged last."""
        acknowledged, last = statements.heads_row(conn.fetch, self.tenant, encounter)
        head = statements.derived_head(conn.fetch, self.tenant, encounter, last)
        if head is not None and head.erased:
            raise erased(encounter)
        txn = Transaction(
            conn, self.tenant, encounter, head, self.clock, snapshots=self.db.snapshots
        )
        if others is not None and head is not None and left == (head.seq, head.hash, others):
            txn.left_as_checked()
        else:
            txn.check_chain()
        found = statements.witness(conn.fetch, self.tenant, encounter, acknowledged, last)
        if repair and (found is None or found[0] != statements.MISSING):
            raise BadInput(
                f"encounter {encounter!r} holds the head the ledger acknowledged last: "
                "nothing was lost, so there is nothing to repair"
            )
        if found is not None:
            self._acknowledge(txn, found, acknowledged, last, repair)
        return txn

    def erase(self, encounter: str) -> int:
        """Erase one encounter, in one transaction under its write lock: every event keeps its
        row's envelope (seq, id, type, time, prev_hash, hash), so its place in the chain is
        still checked and the head digest stays; its body is made empty (`chain.ERASED`), its
        snapshots and read-model rows are deleted, and the heads row keeps the head and the
        system, not the title. The chain is checked first: an erasure never makes a change
        made by another hand unprovable. Returns how many events were erased (0: it was
        erased already)."""
        if not isinstance(encounter, str):
            raise BadInput(f"an encounter is named by text, not {encounter!r}")
        with self.db.writing(encounter, False) as conn:
            self._left.clear()  # the bodies change in place: the next write checks every row
            self._wrote.clear()
            head = self._head_to_erase(conn, encounter)
            if head is None:
                raise unknown_encounter(encounter, self.name, self.names())
            count = self._erase_in(conn, head)
        self.db.erased()
        return count

    def erase_all(self) -> list[Head]:
        """Erase every encounter of the tenant in one transaction, under every one's write lock
        (taken in name order): all are erased, or none is (an encounter whose chain is broken
        refuses the whole erasure). Returns each encounter's head as it was before (`erased`
        already set: nothing more was erased of it)."""
        names = self.names()
        if not names:
            return []
        with self.db.writing(names[0], False) as conn:
            self._left.clear()
            self._wrote.clear()
            locking = cast(_Holding, conn)
            for name in names[1:]:
                locking.hold(self.tenant, name)
            heads = [self._head_to_erase(conn, name) for name in names]
            found = [h for h in heads if h is not None]
            for head in found:
                self._erase_in(conn, head)
        self.db.erased()
        return found

    def _head_to_erase(self, conn: Connection, encounter: str) -> Head | None:
        """The encounter's head read under its write lock, its chain checked (a broken one, or
        rows that lost the acknowledged head, is never erased)."""
        acknowledged, last = statements.heads_row(conn.fetch, self.tenant, encounter)
        head = statements.derived_head(conn.fetch, self.tenant, encounter, last)
        if head is None or head.erased:
            return head
        Transaction(conn, self.tenant, encounter, head, self.clock).check_chain()
        found = statements.witness(conn.fetch, self.tenant, encounter, acknowledged, last)
        if found is not None and found[0] == statements.MISSING:
            raise BrokenChain(
                f"encounter {encounter!r} does not hold the head the ledger acknowledged "
                f"({found[1]}): nothing was erased; see `encounter verify`"
            )
        return head

    def _erase_in(self, conn: Connection, head: Head) -> int:
        """Erase the encounter of `head` inside the open transaction; how many events."""
        if head.erased:
            return 0
        conn.erase(self.tenant, head.encounter)
        fields = (head.encounter, head.system, None, head.seq, head.hash, head.opened_at)
        conn.execute(statements.PUT_HEAD, (self.tenant, *fields, head.updated_at, head.seq))
        return head.seq

    def _acknowledge(
        self,
        txn: Transaction,
        found: tuple[str, str],
        acknowledged: statements.Acknowledged | None,
        last: statements.Last | None,
        repair: bool,
    ) -> None:
        """A write over rows that disagree with the acknowledged head: a cache that lags is
        rewritten (the rows hold what it acknowledged); a head the rows no longer hold is a
        loss, refused unless `repair` accepts it."""
        kind, problem = found
        encounter = txn.encounter
        txn.repaired = True
        if kind == statements.MISSING:
            if not repair:
                raise BrokenChain(
                    f"encounter {encounter!r} does not hold the head the ledger acknowledged "
                    f"({problem}): nothing was appended; `encounter repair {encounter} "
                    "--accept-loss --reason TEXT` records the loss and lets writes go on"
                )
            if last is None:
                raise BrokenChain(
                    f"encounter {encounter!r} holds no event at all ({problem}): there is "
                    "nothing to go on from; restore it from an export or a backup"
                )
            txn.lost = problem
            return
        assert last is not None
        self.tell(
            encounter, statements.lagging(encounter, acknowledged, last, "repaired from the rows")
        )


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


def erased(encounter: str) -> Erased:
    """The error for a read or write of an erased encounter."""
    return Erased(
        f"encounter {encounter!r} was erased (`encounter erase`): its events' contents are "
        f"gone and nothing can be read from or appended to it; `encounter verify {encounter}` "
        "still checks its chain and head"
    )


def unknown_encounter(encounter: str, where: str, known: list[str]) -> UnknownName:
    """The error for an encounter the ledger does not hold, naming those it does."""
    shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
    return UnknownName(
        f"encounter {encounter!r} is not in {where}{did_you_mean(encounter, known)} "
        f"(known: {shown or 'none yet'})",
        code="unknown-encounter",
    )


def storable(name: str) -> bool:
    """Whether a name can be stored: UTF-8 text (a command line's bytes that are not UTF-8
    reach Python as lone surrogates, which no database takes)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
