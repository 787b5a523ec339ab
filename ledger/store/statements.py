"""The statements every dialect shares, and the reads built on them: paged rows, the
retractions and corrections, ids, and the heads cache checked against the last stored row.

Each read takes a `fetch` (a dialect's, or a write transaction's connection's), so the store's
reads and a transaction's are the same code. Statements use `?` placeholders; a dialect spells
them as its driver wants.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from typing import Any, Final

from ledger.store import Head, Row
from ledger.store import chain as chains
from ledger.store.chain import ChainReport

#: Rows read per statement by a stream (bounded memory on a long encounter).
PAGE: Final = 2000
COLUMNS: Final = "encounter, seq, id, type, recorded_at, body, prev_hash, hash"
HEAD_COLUMNS: Final = "encounter, system, title, seq, hash, opened_at, updated_at"
INSERT: Final = f"INSERT INTO events ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?)"
#: The heads cache's row written in place (an upsert keeps the row and its key's index entry).
PUT_HEAD: Final = (
    f"INSERT INTO heads ({HEAD_COLUMNS}, verified) VALUES (?,?,?,?,?,?,?,?) "
    "ON CONFLICT (encounter) DO UPDATE SET system = excluded.system, title = excluded.title, "
    "seq = excluded.seq, hash = excluded.hash, opened_at = excluded.opened_at, "
    "updated_at = excluded.updated_at, verified = excluded.verified"
)
_CACHED_HEAD: Final = f"SELECT {HEAD_COLUMNS} FROM heads WHERE encounter = ?"
#: A write's: with the mark through which a write checked the chain (a file of format 1 has
#: none; a write migrates it first).
_MARKED_HEAD: Final = f"SELECT {HEAD_COLUMNS}, verified FROM heads WHERE encounter = ?"
_LAST: Final = (
    "SELECT seq, hash, recorded_at FROM events WHERE encounter = ? ORDER BY seq DESC LIMIT 1"
)
_ROWS: Final = (
    f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND seq > ? AND seq <= ? "
    "ORDER BY seq LIMIT ?"
)
#: The types of the third partial index: rewinds, and the dice events a rewind keeps
#: (`projections.revisions.KEPT_MODELS`, beside the retractions and corrections).
KEPT_TYPES: Final = "'dice.committed', 'dice.revealed', 'encounter.rewound'"
_REVISIONS: Final = (
    f"SELECT {COLUMNS} FROM events WHERE encounter = ? AND type = 'event.retracted' "
    f"AND seq <= ? UNION ALL SELECT {COLUMNS} FROM events WHERE encounter = ? "
    f"AND type = 'event.corrected' AND seq <= ? UNION ALL SELECT {COLUMNS} FROM events "
    f"WHERE encounter = ? AND type IN ({KEPT_TYPES}) AND seq <= ? ORDER BY seq"
)
_SEQS_DOWN: Final = (
    "SELECT seq, type FROM events WHERE encounter = ? AND seq <= ? ORDER BY seq DESC LIMIT ?"
)
_HASH_AT: Final = "SELECT hash FROM events WHERE encounter = ? AND seq = ?"
BY_ID: Final = f"SELECT {COLUMNS} FROM events WHERE id = ?"
_OPENED: Final = "SELECT body, recorded_at FROM events WHERE encounter = ? AND seq = 1"


Fetch = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


def pages(fetch: Fetch, encounter: str, after: int, upto: int) -> Iterator[Row]:
    """Stored rows after..upto in seq order, a page per statement."""
    while after < upto:
        found = fetch(_ROWS, (encounter, after, upto, PAGE))
        for row in found:
            yield Row(*row)
        if len(found) < PAGE:
            return
        after = found[-1][1]


def revisions(fetch: Fetch, encounter: str, upto: int | None) -> list[Row]:
    """The retractions, corrections, rewinds and dice events up to `upto` (three partial
    indexes serve them)."""
    top = upto if upto is not None else 2**62
    return [Row(*r) for r in fetch(_REVISIONS, (encounter, top) * 3)]


def seqs_down(fetch: Fetch, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
    """(seq, type) of the rows at or below `upto`, newest first, paged."""
    while upto > 0:
        found = fetch(_SEQS_DOWN, (encounter, upto, PAGE))
        for seq, kind in found:
            yield int(seq), str(kind)
        if len(found) < PAGE:
            return
        upto = found[-1][0] - 1


def by_id(fetch: Fetch, id: str) -> Row | None:
    """The stored row with this id."""
    found = fetch(BY_ID, (id,))
    return Row(*found[0]) if found else None


def hash_at(fetch: Fetch, encounter: str, seq: int) -> str:
    """The hash of the row at `seq` (the genesis hash at 0; empty when it is missing)."""
    if seq <= 0:
        return chains.GENESIS
    found = fetch(_HASH_AT, (encounter, seq))
    return str(found[0][0]) if found else ""


def heads_row(
    fetch: Fetch, encounter: str, marked: bool = False
) -> tuple[Head | None, int, tuple[int, str, str] | None]:
    """The heads cache's row, its verified mark (`marked`: a write's read; else 0), and the
    last stored row."""
    row = fetch(_MARKED_HEAD if marked else _CACHED_HEAD, (encounter,))
    last = fetch(_LAST, (encounter,))
    cached = head_of(row[0][:7]) if row else None
    verified = int(row[0][7] or 0) if row and marked else 0
    return cached, verified, (int(last[0][0]), str(last[0][1]), str(last[0][2])) if last else None


def head_of(row: Sequence[Any]) -> Head:
    encounter, system, title, seq, digest, opened_at, updated_at = row
    return Head(
        str(encounter),
        str(system),
        None if title is None else str(title),
        int(seq),
        str(digest),
        str(opened_at),
        str(updated_at),
    )


def derived_head(fetch: Fetch, encounter: str, last: tuple[int, str, str] | None) -> Head | None:
    """The head as the rows have it (seq 1 names the system and title)."""
    if last is None:
        return None
    first = fetch(_OPENED, (encounter,))
    opened: dict[str, Any] = {}
    with suppress(ValueError, TypeError, RecursionError):
        body = json.loads(first[0][0]) if first else {}
        opened = body if isinstance(body, dict) else {}
    system, title = opened.get("system"), opened.get("title")
    return Head(
        encounter,
        system if isinstance(system, str) else "?",
        title if isinstance(title, str) else None,
        last[0],
        last[1],
        str(first[0][1]) if first else last[2],
        last[2],
    )


def agree(cached: Head | None, last: tuple[int, str, str] | None) -> bool:
    """Whether the heads cache's row and the last stored row (seq, hash, time) agree."""
    if cached is None or last is None:
        return cached is None and last is None
    return (cached.seq, cached.hash) == last[:2]


def disagreement(
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
        return report.but(cache="the heads cache has no row for it" if report.events else None)
    if cached.seq > report.events:
        return report.but(
            bad_seq=report.events + 1,
            problem=f"the last stored seq is {report.events}, but seq {cached.seq} "
            "was acknowledged: events were removed from the end",
        )
    if (cached.seq, cached.hash) != (report.events, report.head):
        return report.but(
            cache=f"the heads cache says seq {cached.seq} (hash {cached.hash[:12]}), but the "
            f"rows end at seq {report.events} (hash {(report.head or '')[:12]})"
        )
    return report
