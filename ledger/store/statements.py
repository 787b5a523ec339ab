"""The statements every dialect shares, and the reads built on them: paged rows, the
retractions and corrections, ids, and the heads cache checked against the last stored row.

Each read takes a `fetch` (a dialect's, or a write transaction's connection's), so the store's
reads and a transaction's are the same code. Statements use `?` placeholders; a dialect spells
them as its driver wants. Every statement names its tenant (`tenant = ?`, the first key of every
table): a tenant's statements touch its rows only, on SQLite as on PostgreSQL (where row-level
security holds them to it as well), and each can be routed to one shard by its tenant (Citus).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from typing import Any, Final, NamedTuple

from ledger.errors import StoreError
from ledger.store import DEFAULT_TENANT, Head, Row
from ledger.store import chain as chains
from ledger.store.chain import ChainReport

#: Rows read per statement by a stream (bounded memory on a long encounter).
PAGE: Final = 2000
COLUMNS: Final = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"
HEAD_COLUMNS: Final = "encounter, system, title, seq, hash, opened_at, updated_at"
#: A row is inserted with its tenant (its `position` is the database's to give).
INSERT: Final = f"INSERT INTO events (tenant, {COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)"
#: The heads cache's row written in place (an upsert keeps the row and its key's index entry).
PUT_HEAD: Final = (
    f"INSERT INTO heads (tenant, {HEAD_COLUMNS}, verified) VALUES (?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT (tenant, encounter) DO UPDATE SET system = excluded.system, "
    "title = excluded.title, seq = excluded.seq, hash = excluded.hash, "
    "opened_at = excluded.opened_at, updated_at = excluded.updated_at, "
    "verified = excluded.verified"
)
_CACHED_HEAD: Final = f"SELECT {HEAD_COLUMNS} FROM heads WHERE tenant = ? AND encounter = ?"
#: The rows of one seq range with their positions (a write reads back what it inserted).
ROWS_BETWEEN: Final = (
    f"SELECT position, {COLUMNS} FROM events WHERE tenant = ? AND encounter = ? AND seq >= ? "
    "AND seq <= ? ORDER BY seq"
)
_LAST: Final = (
    "SELECT seq, hash, recorded_at FROM events WHERE tenant = ? AND encounter = ? "
    "ORDER BY seq DESC LIMIT 1"
)
_ROWS: Final = (
    f"SELECT {COLUMNS} FROM events WHERE tenant = ? AND encounter = ? AND seq > ? AND seq <= ? "
    "ORDER BY seq LIMIT ?"
)
#: The types of the third partial index: rewinds, and the dice events a rewind keeps
#: (`projections.revisions.KEPT_MODELS`, beside the retractions and corrections).
KEPT_TYPES: Final = "'dice.committed', 'dice.revealed', 'encounter.rewound'"
_REVISIONS: Final = (
    f"SELECT {COLUMNS} FROM events WHERE tenant = ? AND encounter = ? "
    f"AND type = 'event.retracted' AND seq <= ? UNION ALL SELECT {COLUMNS} FROM events "
    "WHERE tenant = ? AND encounter = ? AND type = 'event.corrected' AND seq <= ? "
    f"UNION ALL SELECT {COLUMNS} FROM events WHERE tenant = ? AND encounter = ? "
    f"AND type IN ({KEPT_TYPES}) AND seq <= ? ORDER BY seq"
)
_SEQS_DOWN: Final = (
    "SELECT seq, type FROM events WHERE tenant = ? AND encounter = ? AND seq <= ? "
    "ORDER BY seq DESC LIMIT ?"
)
_HASH_AT: Final = "SELECT hash FROM events WHERE tenant = ? AND encounter = ? AND seq = ?"
BY_ID: Final = f"SELECT {COLUMNS} FROM events WHERE tenant = ? AND id = ?"
_OPENED: Final = (
    "SELECT body, recorded_at FROM events WHERE tenant = ? AND encounter = ? AND seq = 1"
)
TYPE_AT: Final = "SELECT type FROM events WHERE tenant = ? AND encounter = ? AND seq = ?"
#: Every encounter of a tenant, in the heads cache or the rows.
NAMES: Final = (
    "SELECT encounter FROM heads WHERE tenant = ? "
    "UNION SELECT DISTINCT encounter FROM events WHERE tenant = ?"
)
#: The rows of a tenant after a position, up to the high-water mark, in position order.
FOLLOWING: Final = (
    f"SELECT position, {COLUMNS} FROM events WHERE tenant = ? AND position > ? "
    "AND position <= ? ORDER BY position LIMIT ?"
)
#: The highest position of a tenant's rows (SQLite's high-water mark: its writers queue).
TOP_POSITION: Final = "SELECT max(position) FROM events WHERE tenant = ?"
#: Whether the tenant's row at a position is stored.
HOLDS: Final = "SELECT 1 FROM events WHERE tenant = ? AND position = ?"
#: The position of a tenant's row, given its encounter and seq.
POSITION_OF: Final = "SELECT position FROM events WHERE tenant = ? AND encounter = ? AND seq = ?"

#: An erasure (`encounter erase`): every body of the encounter made empty (`chain.ERASED`), its
#: snapshots (which hold its state) and read-model rows deleted, the title its heads row cached
#: forgotten; every other column of every row kept, so the chain's links and the head stay.
ERASE_BODIES: Final = (
    "UPDATE events SET body = '' WHERE tenant = ? AND encounter = ? AND body <> ''"
)
ERASE_SNAPSHOTS: Final = "DELETE FROM snapshots WHERE tenant = ? AND encounter = ?"
ERASE_CHANGES: Final = "DELETE FROM track_changes WHERE tenant = ? AND encounter = ?"


Fetch = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]

#: How a statement names its tenant; `unscoped` rewrites it for a database of the format before
#: tenants (read as it is, never migrated by a read), whose every row is the default tenant's.
_SCOPE: Final = "tenant = ?"


def unscoped(sql: str) -> str:
    """A statement as a database without tenants or positions can run it: each `tenant = ?`
    becomes a test of the parameter itself (only the default tenant has rows there)."""
    if "position" in sql:
        raise StoreError(
            "this ledger is of the format before tenants and positions: open it for writing "
            "once (any write, or `encounter migrate`) to follow it by position"
        )
    return sql.replace(_SCOPE, f"? = '{DEFAULT_TENANT}'")


def pages(fetch: Fetch, tenant: str, encounter: str, after: int, upto: int) -> Iterator[Row]:
    """Stored rows after..upto in seq order, a page per statement."""
    while after < upto:
        found = fetch(_ROWS, (tenant, encounter, after, upto, PAGE))
        for row in found:
            yield Row(*row)
        if len(found) < PAGE:
            return
        after = found[-1][1]


def revisions(fetch: Fetch, tenant: str, encounter: str, upto: int | None) -> list[Row]:
    """The retractions, corrections, rewinds and dice events up to `upto` (three partial
    indexes serve them)."""
    top = upto if upto is not None else 2**62
    return [Row(*r) for r in fetch(_REVISIONS, (tenant, encounter, top) * 3)]


def seqs_down(fetch: Fetch, tenant: str, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
    """(seq, type) of the rows at or below `upto`, newest first, paged."""
    while upto > 0:
        found = fetch(_SEQS_DOWN, (tenant, encounter, upto, PAGE))
        for seq, kind in found:
            yield int(seq), str(kind)
        if len(found) < PAGE:
            return
        upto = found[-1][0] - 1


def by_id(fetch: Fetch, tenant: str, id: str) -> Row | None:
    """The tenant's stored row with this id."""
    found = fetch(BY_ID, (tenant, id))
    return Row(*found[0]) if found else None


def hash_at(fetch: Fetch, tenant: str, encounter: str, seq: int) -> str:
    """The hash of the row at `seq` (the genesis hash at 0; empty when it is missing)."""
    if seq <= 0:
        return chains.GENESIS
    found = fetch(_HASH_AT, (tenant, encounter, seq))
    return str(found[0][0]) if found else ""


def heads_row(fetch: Fetch, tenant: str, encounter: str) -> tuple[Acknowledged | None, Last | None]:
    """The head the heads cache acknowledges (seq, hash), and the last stored row."""
    row = fetch(_CACHED_HEAD, (tenant, encounter))
    last = fetch(_LAST, (tenant, encounter))
    acknowledged = None
    if row and isinstance(row[0][3], int) and isinstance(row[0][4], str):
        acknowledged = Acknowledged(int(row[0][3]), str(row[0][4]))
    return acknowledged, Last(int(last[0][0]), str(last[0][1]), str(last[0][2])) if last else None


class Acknowledged(NamedTuple):
    """The head the ledger last wrote for an encounter (its heads row): the rows must hold it."""

    seq: int
    hash: str


class Last(NamedTuple):
    """The last stored row of an encounter: its seq, hash and time."""

    seq: int
    hash: str
    recorded_at: str


def derived_head(fetch: Fetch, tenant: str, encounter: str, last: Last | None) -> Head | None:
    """The head as the rows have it: seq 1 (chained) names the system and title, the last row
    the seq and hash. The heads cache is never read for them."""
    if last is None:
        return None
    first = fetch(_OPENED, (tenant, encounter))
    opened: dict[str, Any] = {}
    with suppress(ValueError, TypeError, RecursionError):
        body = json.loads(first[0][0]) if first else {}
        opened = body if isinstance(body, dict) else {}
    system, title = opened.get("system"), opened.get("title")
    erased = bool(first) and first[0][0] == chains.ERASED
    if erased:
        system = _erased_system(fetch, tenant, encounter)
    return Head(
        encounter,
        system if isinstance(system, str) else "?",
        title if isinstance(title, str) else None,
        last.seq,
        last.hash,
        str(first[0][1]) if first else last.recorded_at,
        last.recorded_at,
        erased,
    )


def _erased_system(fetch: Fetch, tenant: str, encounter: str) -> str | None:
    """An erased encounter's system, as the heads cache kept it (its seq 1 has no body)."""
    found = fetch(_CACHED_HEAD, (tenant, encounter))
    return str(found[0][1]) if found and isinstance(found[0][1], str) else None


#: What the rows say of the acknowledged head: they end there (None), or...
BEHIND: Final = "behind"  # ... they hold it and go on after it (the cache lags: no loss)
ABSENT: Final = "absent"  # ... there is no acknowledged head to compare with (no loss shown)
MISSING: Final = "missing"  # ... they do not hold it: events were removed or replaced


def witness(
    fetch: Fetch,
    tenant: str,
    encounter: str,
    acknowledged: Acknowledged | None,
    last: Last | None,
) -> tuple[str, str] | None:
    """Whether the rows hold the acknowledged head: None when they end there, else (BEHIND,
    ABSENT or MISSING, what is wrong in words)."""
    if acknowledged is None:
        return None if last is None else (ABSENT, "the heads cache has no row for it")
    if last is None:
        return MISSING, (
            f"seq {acknowledged.seq} was acknowledged, but no event of it is stored: "
            "events were removed"
        )
    if acknowledged.seq > last.seq:
        return MISSING, (
            f"the last stored seq is {last.seq}, but seq {acknowledged.seq} was acknowledged: "
            "events were removed from the end"
        )
    stored = (
        last.hash
        if acknowledged.seq == last.seq
        else hash_at(fetch, tenant, encounter, acknowledged.seq)
    )
    if stored != acknowledged.hash:
        return MISSING, (
            f"seq {acknowledged.seq} was acknowledged with hash {acknowledged.hash[:16]}, but "
            f"the stored seq {acknowledged.seq} has hash {stored[:16]}: events were removed "
            "or replaced"
        )
    if acknowledged.seq < last.seq:
        return BEHIND, (
            f"the heads cache says seq {acknowledged.seq} (hash {acknowledged.hash[:12]}), but "
            f"the rows end at seq {last.seq} (hash {last.hash[:12]})"
        )
    return None


def lagging(encounter: str, acknowledged: Acknowledged | None, last: Last, done: str) -> str:
    """The warning for a heads cache that lags behind rows that hold it, and what was done."""
    said = f"seq {acknowledged.seq}" if acknowledged else "nothing"
    return (
        f"the heads cache of encounter {encounter!r} says {said}, but its stored events end at "
        f"seq {last.seq}: {done} (if events were removed, only a published head digest shows it)"
    )


def against_heads(
    report: ChainReport, found: tuple[str, str] | None, acknowledged: Acknowledged | None
) -> ChainReport:
    """A chain's report completed by the acknowledged head: events removed from the end or
    replaced (the chain is broken there), or a cache that lags behind rows that verify."""
    if not report.ok or found is None:
        return report
    kind, problem = found
    if kind != MISSING:
        return report.but(cache=problem)
    assert acknowledged is not None
    bad = min(acknowledged.seq, report.events + 1)
    return report.but(bad_seq=bad, problem=problem)
