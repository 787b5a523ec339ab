"""The hash chain: the contract hash of one event, and verification of stored rows.

`hash` is the hex SHA-256 of the UTF-8 JSON, keys sorted, no whitespace, of
`{"encounter", "seq", "id", "type", "recorded_at", "body", "prev_hash"}`; `prev_hash` of seq 1
is 64 zeros. Anyone can recompute it from an export. Everything here works on rows (text), so
the store checks a chain without reading a single event model.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

from ledger.errors import UnknownVersion
from ledger.events import versions

GENESIS: Final = "0" * 64
#: The body of an erased event (`encounter erase`): no text at all. No event's body is empty
#: (the ledger writes a JSON object, and PostgreSQL's guard refuses any other insert), so an
#: erased row is never mistaken for one; its envelope (seq, id, type, time, prev_hash, hash)
#: is kept, so its place in the chain is still checked, its contents no longer can be.
ERASED: Final = ""

#: The canonical text of a body: keys sorted, no white space, UTF-8 as it is.
CANONICAL: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
#: The body text of rows written by 0.1.0 (fields in event order); later rows store CANONICAL.
STORED: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)

_quote: Callable[[str], str] = json.encoder.encode_basestring


def canonical(body: Any) -> str:
    """The canonical JSON text of a body (ValueError for NaN or infinity)."""
    return CANONICAL.encode(body)


def hash_text(
    encounter: str, seq: int, id: str, type: str, recorded_at: str, body: str, prev_hash: str
) -> str:
    """SHA-256 of the sorted, whitespace-free UTF-8 JSON of the envelope, `body` its text."""
    return _digest(_quote(encounter), int(seq), id, type, recorded_at, body, prev_hash)


def _digest(
    quoted: str, seq: int, id: str, type: str, recorded_at: str, body: str, prev_hash: str
) -> str:
    """`hash_text` of an encounter whose name is `quoted` already (as JSON text): a check of
    every row of an encounter quotes it once."""
    # The same text as json.dumps(document, sort_keys=True, separators=(",", ":"),
    # ensure_ascii=False), spelled out, so the body's stored text is hashed as it is.
    text = (
        f'{{"body":{body},"encounter":{quoted},"id":{_quote(id)},'
        f'"prev_hash":{_quote(prev_hash)},"recorded_at":{_quote(recorded_at)},'
        f'"seq":{seq},"type":{_quote(type)}}}'
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chain_hash(
    encounter: str, seq: int, id: str, type: str, recorded_at: str, body: Any, prev_hash: str
) -> str:
    """The contract hash of an event whose body is given as data."""
    return hash_text(encounter, seq, id, type, recorded_at, canonical(body), prev_hash)


def file_digest(heads: Mapping[str, str | None]) -> str:
    """One digest over every encounter's head, to publish for a whole file: the hex SHA-256 of
    the UTF-8 JSON, keys sorted, no whitespace, of `{ENCOUNTER: HEAD, ...}`."""
    return hashlib.sha256(canonical(dict(heads)).encode("utf-8")).hexdigest()


def matches(digest: str, published: str) -> bool:
    """Whether a head (or file digest) is the published one, given whole or as its first
    digits (the command line asks for 16 or more)."""
    return bool(published) and digest.lower().startswith(published.lower())


def new_id() -> str:
    """A random (version 4) UUID as text: an event's id (what `str(uuid.uuid4())` gives,
    written out: every event of an import asks for one)."""
    made = bytearray(os.urandom(16))
    made[6] = (made[6] & 0x0F) | 0x40  # version 4
    made[8] = (made[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = made.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainReport:
    """The result of verifying one encounter's chain."""

    encounter: str
    events: int
    head: str | None
    bad_seq: int | None = None
    problem: str | None = None
    #: How the heads cache disagrees with the rows, when it does (the chain may still verify).
    cache: str | None = None
    #: The first event this build cannot read (a newer version of its type); its hash verifies.
    unread: str | None = None
    #: The first effective event its system refuses, which the ledger never accepted (another
    #: hand inserted it); its hash verifies, and an undo retracts it.
    invalid: str | None = None
    #: How many events were erased (`encounter erase`): their links are checked, their
    #: contents cannot be (an erased encounter has every event erased, or it is broken).
    erased: int = 0

    @property
    def ok(self) -> bool:
        """The chain verified."""
        return self.bad_seq is None

    def document(self) -> dict[str, Any]:
        """The report as `verify --json` shows it (with `ok`)."""
        return {
            "encounter": self.encounter,
            "events": self.events,
            "head": self.head,
            "bad_seq": self.bad_seq,
            "problem": self.problem,
            "cache": self.cache,
            "unread": self.unread,
            "invalid": self.invalid,
            "erased": self.erased,
            "ok": self.ok,
        }

    def but(self, **changes: Any) -> ChainReport:
        """This report with some fields changed."""
        return replace(self, **changes)


Row = tuple[Any, ...]


class ChainCheck:
    """One encounter's chain checked a row at a time (`verify_rows` over a stream whose rows
    come interleaved with other encounters', as an exported file's may)."""

    def __init__(self, encounter: str) -> None:
        self.encounter = encounter
        self.expected, self.prev, self.count = 1, GENESIS, 0
        self.last: str | None = None
        self.unread: str | None = None
        #: How many rows were erased; whether seq 1 was (then every row must be).
        self.erased = 0
        self._wiped: bool | None = None
        #: The report of the first bad row (the rows after it are not looked at).
        self.broken: ChainReport | None = None

    def feed(self, row: Row) -> None:
        """Check the next stored row of the encounter."""
        if self.broken is not None:
            return
        self.count += 1
        seq, row_hash = row[1], row[7]
        wiped = row[5] == ERASED
        if self._wiped is None:
            self._wiped = wiped
        if wiped != self._wiped:
            problem: str | None = (
                f"seq {seq} is erased but seq 1 is not: an erasure takes a whole encounter "
                "(a body was removed by another hand)"
                if wiped
                else f"seq {seq} is not erased but seq 1 is: an erasure takes a whole encounter "
                "(a row was put back or added by another hand)"
            )
        elif wiped:
            problem = link_problem(self.expected, self.prev, *row)
        else:
            problem = row_problem(self.expected, self.prev, *row)
        if problem:
            self.broken = ChainReport(
                encounter=self.encounter,
                events=self.count,
                head=self.last,
                bad_seq=self.expected,
                problem=problem,
                unread=self.unread,
                erased=self.erased,
            )
            return
        self.erased += int(wiped)
        if self.unread is None and not wiped and versions.KEY in row[5]:
            self.unread = _unread(seq, row[3], row[5])
        self.expected, self.prev, self.last = seq + 1, row_hash, row_hash

    def report(self, acknowledged: tuple[int, str] | None = None) -> ChainReport:
        """What the rows fed so far show (`acknowledged`: the head the ledger last wrote)."""
        if self.broken is not None:
            return self.broken
        if acknowledged is not None and acknowledged != (self.expected - 1, self.last):
            return ChainReport(
                encounter=self.encounter,
                events=self.count,
                head=self.last,
                bad_seq=self.expected,
                problem=f"the last stored seq is {self.expected - 1}, but seq "
                f"{acknowledged[0]} was acknowledged: events were removed from the end",
                unread=self.unread,
                erased=self.erased,
            )
        return ChainReport(
            encounter=self.encounter,
            events=self.count,
            head=self.last,
            unread=self.unread,
            erased=self.erased,
        )


def verify_rows(
    encounter: str, rows: Iterable[Row], acknowledged: tuple[int, str] | None
) -> ChainReport:
    """Check stored rows (in seq order) against the chain; name the first seq that fails.

    Any change to a stored row shows: a gap or a reordering in the seqs, a `prev_hash` that is not
    the previous row's hash, a hash that does not match the row's contents, or a body that is not
    the exact text the ledger writes for its contents. `acknowledged` is the head the ledger
    last wrote (seq, hash): rows removed from the end show against it.
    """
    check = ChainCheck(encounter)
    for row in rows:
        check.feed(row)
        if check.broken is not None:
            return check.broken
    return check.report(acknowledged)


def _unread(seq: int, kind: str, body: str) -> str | None:
    """Why this build cannot read a row whose chain verifies (None: it can): the version its
    body names is one it does not know."""
    data = json.loads(body)
    try:
        if isinstance(data, dict):
            versions.version_of(kind, data)
    except UnknownVersion as exc:
        return f"seq {seq}: {exc}"
    return None


def link_problem(
    expected_seq: int,
    prev: str,
    encounter: Any,
    seq: Any,
    id: Any,
    type: Any,
    recorded_at: Any,
    body: Any,
    prev_hash: Any,
    stored_hash: Any,
) -> str | None:
    """What is wrong with an erased row's place in the chain (its contents are gone): its seq,
    its link to the row before, an envelope of text, and a hash of the contract's form (which
    the next row's link then holds to)."""
    if seq != expected_seq:
        return f"seq {expected_seq} is missing (next stored is {seq})"
    if prev_hash != prev:
        return "prev_hash does not match the previous event's hash"
    for name, value in {"id": id, "type": type, "recorded_at": recorded_at}.items():
        if not isinstance(value, str) or not value:
            return f"{name} of an erased event is missing"
    if not isinstance(stored_hash, str) or not _HEX64.fullmatch(stored_hash):
        return "hash of an erased event is not a SHA-256 digest"
    return None


_HEX64: Final = re.compile(r"[0-9a-f]{64}")


def row_problem(
    expected_seq: int,
    prev: str,
    encounter: Any,
    seq: Any,
    id: Any,
    type: Any,
    recorded_at: Any,
    body: Any,
    prev_hash: Any,
    stored_hash: Any,
) -> str | None:
    """What is wrong with one stored row, given the seq and hash the chain expects."""
    if seq != expected_seq:
        return f"seq {expected_seq} is missing (next stored is {seq})"
    if prev_hash != prev:
        return "prev_hash does not match the previous event's hash"
    texts = {
        "encounter": encounter,
        "id": id,
        "type": type,
        "recorded_at": recorded_at,
        "body": body,
        "hash": stored_hash,
    }
    for name, value in texts.items():
        if value is None:
            return f"{name} is missing"
        if not isinstance(value, str):
            return f"{name} is not text"
    if body == ERASED:
        return "the event was erased (`encounter erase`): its contents are gone"
    try:
        parsed = json.loads(body)
        text = canonical(parsed)
        # The ledger writes the canonical text; files from 0.1.0 hold the fields in event order.
        exact = body == text or body == STORED.encode(parsed)
    except (ValueError, RecursionError):
        return "body is not valid JSON"
    if hash_text(encounter, seq, id, type, recorded_at, text, prev) != stored_hash:
        return "hash does not match the event's contents"
    if not exact:
        return "body is not the text the ledger wrote for it"
    return None


T = TypeVar("T", bound=tuple[Any, ...])


def checked(
    rows: Iterable[T], after: int, prev: str, broken: Callable[[int, str], None]
) -> Iterator[T]:
    """Stored rows after seq `after` (whose hash is `prev`), passed on as they are read, the
    chain checked on the way: `broken(seq, problem)` is told of the first bad row (it may raise,
    as a write does, or warn and let a read show what is stored)."""
    expected, checking = after + 1, True
    # The encounter's name is quoted once (every row of an encounter, every write).
    named, quoted = None, ""
    for row in rows:
        if checking:
            encounter, seq, id_, type_, recorded_at, body, prev_hash, digest = row
            if encounter != named:
                named, quoted = encounter, _quote(encounter)
            if (
                seq != expected
                or prev_hash != prev
                or type(body) is not str
                or _digest(quoted, seq, id_, type_, recorded_at, body, prev) != digest
            ):
                problem = row_problem(expected, prev, *row)
                if problem is not None:
                    checking = False
                    broken(expected, problem)
            expected, prev = seq + 1, digest
        yield row
