"""The projection cache beside the events: fold snapshots and each encounter's head view.

A cache only (DESIGN §3): deleting its tables loses nothing, and every answer it gives is checked
against the log before it is used. A snapshot is the fold state after a seq, keyed by (encounter,
seq, hash of the event at that seq) and by the seqs that were retracted up to it: a snapshot whose
event's hash no longer matches, or whose retracted seqs differ from the stream's now (a retraction
that reaches behind it), is ignored, and an older one is tried. Every row carries a digest of its
key and text (`ledger.rowdigest`): a row whose digest does not match (edited outside the ledger,
or damaged) is ignored as if it were missing, and the next write rewrites it. The head view
(combatants, pools, game time and rolls) is `ledger.headview`'s; the tables of both are behind
`CacheTables`.

States are stored as plain JSON of known classes (`ledger.snapshot_codec`), never pickle:
loading a snapshot can build only those classes. The rows live in the store's database, behind
`CacheTables` (SQLite: `ledger.sqlitecache`, PostgreSQL: `ledger.pgcache`); a store hands out the
tables of its open write transaction, so `ledger.service` writes the cache with the events it
belongs to, or not at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final, Protocol

from ledger.rowdigest import snapshot_intact
from ledger.snapshot_codec import TEXT, decode, encode, matches
from projections import core
from projections.revisions import Standing

#: A write or an import keeps a snapshot after every this many seqs (the in-memory checkpoints)...
SNAPSHOT_EVERY: Final = 256
#: ... and the ledger keeps the newest this many of an encounter (each holds every roll so far).
SNAPSHOTS_KEPT: Final = 4
TABLES: Final = ("cache_snapshots", "cache_views", "cache_rolls")

#: A snapshot's key as stored: (seq, hash of its event then, standing up to it).
SnapshotRow = tuple[int, str, str, str]
#: A snapshot row read back: (hash, gone, state text, digest).
StoredSnapshot = tuple[Any, ...]
#: A head-view row read back: (seq, hash, view text, digest).
StoredView = tuple[Any, ...]


class CacheTables(Protocol):
    """The rows of the projection cache in one store: `cache_snapshots` (encounter, seq, hash,
    gone, state, digest), `cache_views` (encounter, name, seq, hash, view, digest; name '' is
    the head's row) and `cache_rolls` (encounter, n, roll, digest: the head's effective rolls in
    order, from 0). A write stores each row's digest (`ledger.rowdigest`); its readers check it.

    Reads of missing tables (or of tables without digests) find nothing; a write creates them
    where the store may, replacing those without digests."""

    def put_snapshots(self, encounter: str, rows: Sequence[SnapshotRow], keep: int) -> None:
        """Store (seq, hash, gone, state text) rows, replacing any at those seqs; then keep
        only the encounter's newest `keep`."""

    def snapshot_keys(self, encounter: str, upto: int) -> list[tuple[int, str, str, str]]:
        """(seq, stored hash, gone, hash of the event stored at seq now) of the encounter's
        snapshots at or below `upto`, newest first (snapshots of no stored event left out)."""

    def snapshot_row(
        self, encounter: str, seq: int, gone: str | None = None
    ) -> StoredSnapshot | None:
        """The stored (hash, gone, state text, digest) at `seq` (when `gone` is given: only if
        stored with it)."""

    def snapshot_seqs(self, encounter: str) -> set[int]:
        """The seqs the encounter has snapshots at."""

    def event_hash(self, encounter: str, seq: int) -> str:
        """The stored hash of the event at `seq` (a snapshot's key)."""

    def move_view(
        self,
        encounter: str,
        before: tuple[int, str],
        head: tuple[int, str],
        top: str,
        rows: bool = True,
    ) -> dict[str, StoredView] | None:
        """Move the head row from `before` to `head` with the text `top`, and return the
        combatant rows as stored (name: seq, hash, view, digest; none read without `rows`);
        None when the view is not of `before` (or missing)."""

    def put_combatants(
        self,
        encounter: str,
        head: tuple[int, str],
        rows: Sequence[tuple[str, str]],
        gone: Sequence[str],
    ) -> None:
        """Replace these (name, view text) rows of a moved view; delete the rows `gone`."""

    def replace_view(
        self, encounter: str, head: tuple[int, str], top: str, rows: Sequence[tuple[str, str]]
    ) -> None:
        """The encounter's whole view anew: the head row `top` and every combatant's row."""

    def view_rows(self, encounter: str, head: tuple[int, str]) -> dict[str, StoredView]:
        """The encounter's combatant rows, and its head row (name '') if it is of `head`, as
        name: (seq, hash, view text, digest)."""

    def last_roll(self, encounter: str) -> int:
        """The n of the encounter's last stored roll (-1 when none)."""

    def put_rolls(
        self, encounter: str, rows: Sequence[tuple[int, str]], replace_from: int | None
    ) -> None:
        """Store these (n, roll text) rows, after deleting the encounter's rolls from
        n = `replace_from` on (None: none deleted)."""

    def roll_rows(self, encounter: str) -> Iterator[tuple[int, str, str]] | None:
        """The encounter's stored (n, roll text, digest) by n, one at a time (None: no rolls
        table)."""

    def drop(self) -> None:
        """Delete the cache tables (nothing is lost: the next writes rebuild them)."""


def _gone_upto(gone: Standing, seq: int) -> str:
    # The standing of the stream up to `seq`: the seqs retracted, and (when there are any) the
    # corrections in force of the seqs up to it, which a later correction or its undo changes.
    key: list[Any] = sorted(s for s in gone.gone if s <= seq)
    fixed = [[t, [r.seq for r in fixes]] for t, fixes in sorted(gone.fixes.items()) if t <= seq]
    return TEXT.encode([*key, fixed] if fixed else key)


def save_snapshots(
    tables: CacheTables,
    encounter: str,
    snapshots: Sequence[tuple[int, str, core.State]],
    gone: Standing,
) -> None:
    """Store (seq, hash of the event at seq, state) snapshots, folded with the standing `gone`;
    then keep only the encounter's newest SNAPSHOTS_KEPT."""
    rows: list[SnapshotRow] = []
    for seq, digest, state in snapshots[-SNAPSHOTS_KEPT:]:
        try:
            text = encode(state)
        except (TypeError, ValueError):
            continue  # a cache only: a state it cannot carry is folded instead
        rows.append((seq, digest, _gone_upto(gone, seq), text))
    if rows:
        tables.put_snapshots(encounter, rows, SNAPSHOTS_KEPT)


def event_hash(tables: CacheTables, encounter: str, seq: int) -> str:
    """The stored hash of the event at `seq` (a snapshot's key)."""
    return tables.event_hash(encounter, seq)


def load_snapshot(
    tables: CacheTables | None,
    encounter: str,
    gone: Standing,
    upto: int,
    damaged: list[int] | None = None,
) -> tuple[int, core.State] | None:
    """The newest valid snapshot at or below seq `upto` for a stream of standing `gone`: its
    event's hash still matches, the same seqs up to it are retracted and corrected, and its
    digest is its content's. The seqs of newer ones skipped for their digest go to `damaged`
    (a write stores them anew)."""
    if tables is None:  # a store without cache tables
        return None
    for seq, key in _valid_seqs(tables, encounter, gone, upto):
        # Read with its key: a writer may have replaced it since the keys were read.
        found, text = _intact_text(tables, encounter, seq, key)
        if text is None:
            if found and damaged is not None:
                damaged.append(seq)
            continue
        try:
            state = decode(text)
        except (ValueError, TypeError, RecursionError):
            continue
        if state.encounter == encounter and state.seq == seq:
            return seq, state
    return None


def _valid_seqs(
    tables: CacheTables, encounter: str, gone: Standing, upto: int
) -> list[tuple[int, str]]:
    """(seq, gone key), newest first, of the snapshots whose event's hash still matches and
    that hold the same retractions and corrections; their texts are read one at a time (each
    holds every roll, so reading them all at once would cost several times one state)."""
    return [
        (seq, stored_gone)
        for seq, digest, stored_gone, event_hash in tables.snapshot_keys(encounter, upto)
        if digest == event_hash and stored_gone == _gone_upto(gone, seq)
    ]


def _intact_text(
    tables: CacheTables, encounter: str, seq: int, gone: str | None = None
) -> tuple[bool, str | None]:
    """Whether there is a row at `seq` (of `gone`, when given), and its state text if its
    digest matches."""
    row = tables.snapshot_row(encounter, seq, gone)
    if row is None:
        return False, None
    digest, stored_gone, text, stored = row
    if not snapshot_intact(encounter, seq, digest, stored_gone, text, stored):
        return True, None
    return True, str(text)


def snapshot_text(tables: CacheTables | None, encounter: str, seq: int) -> str | None:
    """The stored text of the snapshot at `seq`, as `encode` wrote it (None when its digest
    does not match)."""
    return None if tables is None else _intact_text(tables, encounter, seq)[1]


def agrees(tables: CacheTables | None, encounter: str, gone: Standing, state: core.State) -> bool:
    """Whether the valid snapshot at the state's seq (if any) holds this state, with the
    digest of its content. The texts are compared first, a piece at a time, so an intact cache
    is checked without building a second state or a second whole text."""
    if tables is None:
        return True
    newest = _valid_seqs(tables, encounter, gone, state.seq)[:1]
    if not newest or newest[0][0] != state.seq:
        return True
    found, text = _intact_text(tables, encounter, state.seq, newest[0][1])
    if text is None:
        return not found  # when found, edited or damaged: its digest is not its content's
    try:
        if matches(state, text):
            return True
        stored = decode(text)
    except (ValueError, TypeError, RecursionError):
        return False
    return stored.encounter == encounter and stored.seq == state.seq and stored == state


def usable_snapshots(
    tables: CacheTables | None, encounter: str, gone: Standing
) -> dict[int, core.State]:
    """Every snapshot of the encounter that a read would use (for the audit's check)."""
    found: dict[int, core.State] = {}
    upto = 2**62
    while (snapshot := load_snapshot(tables, encounter, gone, upto)) is not None:
        found[snapshot[0]] = snapshot[1]
        upto = snapshot[0] - 1
    return found


def snapshot_seqs(tables: CacheTables | None, encounter: str) -> set[int]:
    """The seqs the encounter has snapshots at (none decoded: each holds every roll)."""
    return set() if tables is None else tables.snapshot_seqs(encounter)


def drop(tables: CacheTables | None) -> None:
    """Delete the cache tables (nothing is lost: they are rebuilt by the next writes)."""
    if tables is not None:
        tables.drop()
