"""The PostgreSQL store's reads, over one `_fetch`: a pooled connection's (`PgStore`) or the
open write transaction's (`ledger.pgstore.PgTransaction`, which reads what it appends).

Long reads are paged by seq: memory stays bounded and no connection is held between pages.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from ledger import chain, events
from ledger.errors import BadInput
from ledger.rows import COLUMNS, Head, from_row, head_of
from ledger.stores import (
    ReadsRecords,
    checked_rows,
    heads_agree,
    heads_disagreement,
    unknown_encounter,
)

if TYPE_CHECKING:
    from ledger.pgcache import PgCache

#: Rows read per round trip by a stream (bounded memory on a long encounter).
PAGE: Final = 2000
HEAD_COLUMNS: Final = "encounter, system, title, seq, hash, opened_at, updated_at"


def head_and_last(*also: str) -> str:
    """The query of an encounter's heads cache row (if any) with its verified mark and the
    last stored row, and the expressions `also` after them (`heads_of` reads the first
    eleven columns)."""
    extra = "".join(f", ({expression})" for expression in also)
    return (
        "SELECT h.encounter, h.system, h.title, h.seq, h.hash, h.opened_at, h.updated_at, "
        f"h.verified, l.seq, l.hash, l.recorded_at{extra} FROM (SELECT %s::text AS name) q "
        "LEFT JOIN heads h ON h.encounter = q.name LEFT JOIN LATERAL (SELECT seq, hash, "
        "recorded_at FROM events WHERE encounter = q.name ORDER BY seq DESC LIMIT 1) l ON true"
    )


_HEAD_AND_LAST: Final = head_and_last()


def heads_of(row: tuple[Any, ...]) -> tuple[Head | None, int, tuple[int, str, str] | None]:
    """The heads cache's row, its verified mark and the last stored row, of a `head_and_last`
    row."""
    cached = head_of(row[:7]) if row[0] is not None else None
    last = (int(row[8]), str(row[9]), str(row[10])) if row[8] is not None else None
    return cached, int(row[7] or 0), last


class PgReads(ReadsRecords):
    """The reads of both a pooled store and an open transaction, over one `_fetch`."""

    clock: Callable[[], datetime]

    @abstractmethod
    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query (`%s` placeholders), in the reader's connection."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The database's name, as messages show it."""

    @property
    @abstractmethod
    def cache_db(self) -> PgCache:
        """The projection cache's tables (`ledger.pgcache`), read where this reader reads."""

    @abstractmethod
    def tell(self, encounter: str, message: str) -> None:
        """Warn once per encounter (a damaged cache), on stderr for the CLI."""

    @abstractmethod
    def told(self, encounter: str) -> None:
        """The caller reports the encounter's damage itself: no warning for it from here."""

    def heads_row(self, encounter: str) -> tuple[Head | None, int, tuple[int, str, str] | None]:
        """The heads cache's row, its verified mark, and the last stored row (one query)."""
        return heads_of(self._fetch(_HEAD_AND_LAST, (text(encounter),))[0])

    def derived_head(self, encounter: str, last: tuple[int, str, str] | None) -> Head | None:
        """The head as the rows have it (seq 1 names the system and title)."""
        if last is None:
            return None
        first = self._fetch(
            "SELECT body, recorded_at FROM events WHERE encounter = %s AND seq = 1", (encounter,)
        )
        opened: dict[str, Any] = {}
        with suppress(ValueError, TypeError):
            body = json.loads(first[0][0]) if first else {}
            opened = body if isinstance(body, dict) else {}
        system, title = opened.get("system"), opened.get("title")
        return Head(
            encounter=encounter,
            system=system if isinstance(system, str) else "?",
            title=title if isinstance(title, str) else None,
            seq=last[0],
            hash=last[1],
            opened_at=first[0][1] if first else last[2],
            updated_at=last[2],
        )

    def head(self, encounter: str) -> Head | None:
        """The encounter's head, or None when it does not exist; read from the rows (with a
        warning) when the heads cache disagrees with them."""
        cached, _, last = self.heads_row(encounter)
        if heads_agree(cached, last):
            return cached
        self.tell(encounter, heads_disagreement(encounter, cached, last, "read from the rows"))
        return self.derived_head(encounter, last)

    def names(self) -> list[str]:
        """Every encounter name, in the rows or in the heads cache, in code-point order."""
        rows = self._fetch(
            "SELECT encounter FROM heads UNION SELECT DISTINCT encounter FROM events"
        )
        return sorted(str(name) for (name,) in rows)

    def encounters(self) -> list[Head]:
        """Every encounter's head, by name (one that lost its cached head included)."""
        heads = [self.head(name) for name in self.names()]
        return [h for h in heads if h is not None]

    def require(self, encounter: str) -> Head:
        """The encounter's head, or bad input naming the known encounters."""
        head = self.head(encounter)
        if head is None:
            raise unknown_encounter(encounter, self.name, self.encounters())
        return head

    def load_rows(
        self, encounter: str, system: str, after: int, upto: int
    ) -> Iterator[events.Recorded]:
        """Rows after..upto of an encounter of `system`, parsed one at a time (paged), the
        chain checked on the way: a read warns once and shows what is stored (a write's
        transaction refuses to go on from a broken chain)."""
        prev = self.hash_at(encounter, after)
        yield from checked_rows(
            self.pages(encounter, after, upto), encounter, system, after, prev, self.broken
        )

    def hash_at(self, encounter: str, seq: int) -> str:
        """The hash of the event at `seq` (the genesis hash at 0; empty when it is missing)."""
        if seq <= 0:
            return chain.GENESIS
        found = self._fetch(
            "SELECT hash FROM events WHERE encounter = %s AND seq = %s", (encounter, seq)
        )
        return str(found[0][0]) if found else ""

    def broken(self, encounter: str, seq: int, problem: str) -> None:
        """A read shows what is stored, and says once that it does not verify."""
        self.tell(
            encounter,
            f"encounter {encounter!r} does not verify at seq {seq} ({problem}): what is shown "
            "may not be what was recorded; see `encounter verify`",
        )

    def pages(self, encounter: str, after: int, upto: int) -> Iterator[tuple[Any, ...]]:
        """Stored rows after..upto in seq order, a page per round trip."""
        encounter = text(encounter)
        while after < upto:
            rows = self._fetch(
                f"SELECT {COLUMNS} FROM events WHERE encounter = %s AND seq > %s AND seq <= %s "
                "ORDER BY seq LIMIT %s",
                (encounter, after, upto, PAGE),
            )
            yield from rows
            if len(rows) < PAGE:
                return
            after = rows[-1][1]

    def revisions(
        self, encounter: str, system: str, upto: int | None = None
    ) -> list[events.Recorded]:
        """The encounter's retractions and corrections up to seq `upto`, in seq order (two
        partial indexes serve them)."""
        top = upto if upto is not None else 2**62
        rows = self._fetch(
            f"SELECT {COLUMNS} FROM events WHERE encounter = %s AND type = 'event.retracted' "
            f"AND seq <= %s UNION ALL SELECT {COLUMNS} FROM events WHERE encounter = %s "
            "AND type = 'event.corrected' AND seq <= %s ORDER BY seq",
            (text(encounter), top, encounter, top),
        )
        return [from_row(row, system) for row in rows]

    def seqs_from_head(self, encounter: str, upto: int) -> Iterator[tuple[int, str]]:
        """(seq, type) of the encounter's events at or below `upto`, newest first (paged)."""
        while upto > 0:
            rows = self._fetch(
                "SELECT seq, type FROM events WHERE encounter = %s AND seq <= %s "
                "ORDER BY seq DESC LIMIT %s",
                (text(encounter), upto, PAGE),
            )
            for seq, kind in rows:
                yield int(seq), str(kind)
            if len(rows) < PAGE:
                return
            upto = rows[-1][0] - 1

    def type_at(self, encounter: str, seq: int) -> str | None:
        """The type of the event at `seq`, if stored."""
        rows = self._fetch(
            "SELECT type FROM events WHERE encounter = %s AND seq = %s", (text(encounter), seq)
        )
        return str(rows[0][0]) if rows else None

    def by_id(self, id: str, systems: Mapping[str, str] | None = None) -> events.Recorded | None:
        """The stored event with this id, if any (`systems`: encounters whose system is known,
        as a write that opened one knows it before its head is stored)."""
        rows = self._fetch(f"SELECT {COLUMNS} FROM events WHERE id = %s", (text(id),))
        if not rows:
            return None
        system = (systems or {}).get(rows[0][0])
        return from_row(rows[0], system if system is not None else self.require(rows[0][0]).system)

    def stored_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` are stored, in any encounter."""
        wanted = [text(i) for i in dict.fromkeys(ids)]
        found: set[str] = set()
        for start in range(0, len(wanted), PAGE):
            rows = self._fetch(
                "SELECT id FROM events WHERE id = ANY(%s)", (wanted[start : start + PAGE],)
            )
            found.update(row[0] for row in rows)
        return found

    def raw_rows(self, encounter: str) -> Iterator[tuple[Any, ...]]:
        """Stored rows as they are, for verification and export."""
        return self.pages(encounter, 0, 2**62)


def text(value: str) -> str:
    """Text PostgreSQL can hold: it refuses the NUL character, which SQLite would keep."""
    if isinstance(value, str) and "\x00" in value:
        raise BadInput(f"{value!r} holds a NUL character, which the ledger cannot store")
    return value


def one_line(exc: BaseException) -> str:
    """An error's message on one line (a server's may hold several)."""
    return " ".join(str(exc).split()) or type(exc).__name__
