"""`encounter tracks NAME [--json] [--plain] [--db PATH]` answered from the projection cache's
head view, without loading the command line (typer), the event models (pydantic) or the folds.

`answer` prints and returns True only where it prints the bytes the full command would: a
SQLite ledger file of the current format, `tracks NAME` with no other option, and a head view
that the file vouches for. The heads cache, the last stored row (its hash recomputed) and the
view's head row must name the same seq and hash; the chain of the rows after the newest
snapshot that still holds (those the full command folds) must verify; the view must be whole
(every combatant, every roll). Anything else (another option or command, a name that is a
file, an unknown encounter, a missing or stale view, a row whose digest is not its content's
(`ledger.rowdigest`), a damaged file, PostgreSQL) returns False with nothing printed, and the
full command runs and says what it says.
"""

from __future__ import annotations

import codecs
import json
import os
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from ledger import fit, plaintext, storefile
from ledger.chainhash import GENESIS, hash_text
from ledger.errors import LedgerError
from ledger.rowdigest import roll_intact, snapshot_intact, view_intact

if TYPE_CHECKING:
    from projections.shown import Readings

#: At most this many rows after the newest snapshot are checked; a longer tail (a cache that
#: lost its snapshots) is left to the full command, which folds it.
MAX_TAIL: Final = 1024


class Request(NamedTuple):
    """What the command line asks the fast path for."""

    db: str
    encounter: str
    json: bool
    plain: bool


def answer(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> bool:
    """Print what `encounter ARGV` prints and return True, when this is a `tracks` that the
    head view can answer exactly; else print nothing and return False."""
    request = parse(argv, os.environ if environ is None else environ)
    if request is None or not _utf8(sys.stdout):
        return False
    view = read_view(request)
    if view is None:
        return False
    text: str | None
    if request.json:
        text = json.dumps(view, ensure_ascii=False) + "\n"
    elif request.plain or not sys.stdout.isatty():
        text = _plain_text(view)
    else:
        return _print_tables(view)
    if text is None:
        return False
    _write(text)
    return True


def parse(argv: Sequence[str], environ: Mapping[str, str]) -> Request | None:
    """The request when the command line is `tracks NAME` with at most `--json`, `--plain`
    and `--db PATH` (the last two anywhere, as the full command takes them), else None."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in environ):
        return None  # shell completion
    db: str | None = None
    command: str | None = None
    name: str | None = None
    flags: set[str] = set()
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--db" or word.startswith("--db="):
            if db is not None:
                return None
            if word == "--db":
                if i + 1 == len(words):
                    return None
                i += 1
                db = words[i]
            else:
                db = word.removeprefix("--db=")
            if not db or db.startswith("-"):
                return None
        elif word in ("--json", "--plain"):
            if word in flags or (word == "--json" and command is None):
                return None
            flags.add(word)
        elif word.startswith("-") or (command is not None and name is not None):
            return None
        elif command is None:
            if word != "tracks":
                return None
            command = word
        else:
            name = word
        i += 1
    if name is None:
        return None
    if db is None:
        if environ.get("ENCOUNTER_DB") == "":
            return None
        db = environ.get("ENCOUNTER_DB") or storefile.DEFAULT_DB
    if name.endswith(".jsonl") or "/" in name or "\\" in name:
        return None  # a file to read, or may be one
    return Request(db, name, "--json" in flags, "--plain" in flags)


def read_view(request: Request) -> dict[str, Any] | None:
    """The `tracks --json` document of the encounter's head from the head view, when the file
    vouches for it; else None."""
    if request.db.startswith(("postgresql://", "postgres://")) or not os.path.isfile(request.db):
        return None
    try:
        conn, _ = storefile.connect(Path(request.db), readonly=True, create=False)
    except (LedgerError, sqlite3.Error, OSError):
        return None
    try:
        with closing(conn):
            if not storefile.is_current(conn) or storefile.missing_triggers(conn):
                return None  # without the append-only triggers, the full command checks it all
            conn.execute("BEGIN")  # one snapshot of the file for every read below
            return head_view(conn, request.encounter, rolls=request.json)
    except (sqlite3.Error, ValueError, KeyError, TypeError, AttributeError):
        return None


def head_view(conn: sqlite3.Connection, encounter: str, rolls: bool) -> dict[str, Any] | None:
    """The head view as `tracks --json` prints it (the rolls only when `rolls`), when the
    heads cache, the last row, the chain of the tail and the view agree; else None."""
    head = conn.execute(
        "SELECT system, seq, hash FROM heads WHERE encounter = ?", (encounter,)
    ).fetchone()
    if head is None:
        return None
    system, seq, digest = head
    if not _tail_holds(conn, encounter, seq, digest):
        return None
    rows: dict[str, str] = {}
    for name, at, key, text, stored in conn.execute(
        "SELECT name, seq, hash, view, digest FROM cache_views WHERE encounter = ? AND "
        "(name != '' OR (seq = ? AND hash = ?))",
        (encounter, seq, digest),
    ):
        if not view_intact(encounter, name, at, key, text, stored):
            return None  # edited or damaged: the full command folds
        rows[name] = text
    if "" not in rows:
        return None
    top = json.loads(rows.pop(""))
    names = top["names"]
    if top["system"] != system or sorted(names) != sorted(rows):
        return None
    if not (_number(top["round"], None) and _number(top["scene"], None, str)):
        return None
    view: dict[str, Any] = {
        "encounter": encounter,
        "system": system,
        "seq": seq,
        "combatants": {name: json.loads(rows[name]) for name in names},
        "pools": dict(top["pools"]),
    }
    if rolls:
        stored = conn.execute(
            "SELECT n, roll, digest FROM cache_rolls WHERE encounter = ? ORDER BY n", (encounter,)
        ).fetchall()
        count = top["rolls"]
        if not _number(count) or [n for n, _, _ in stored] != list(range(count)):
            return None
        if not all(roll_intact(encounter, n, text, sealed) for n, text, sealed in stored):
            return None
        view["rolls"] = [json.loads(text) for _, text, _ in stored]
    else:
        view["round"], view["scene"] = top["round"], top["scene"]
    return view


def _number(value: Any, *also: Any) -> bool:
    # A whole number (not a bool), or one of `also` (None, or a type).
    if type(value) is int or (None in also and value is None):
        return True
    return any(isinstance(kind, type) and type(value) is kind for kind in also)


def _tail_holds(conn: sqlite3.Connection, encounter: str, seq: int, digest: str) -> bool:
    """Whether the last stored row is the head (seq, hash) and the chain verifies from the
    newest snapshot that still holds to it: the rows the full command would fold and check."""
    last = conn.execute(
        "SELECT seq, hash FROM events WHERE encounter = ? ORDER BY seq DESC LIMIT 1", (encounter,)
    ).fetchone()
    if last is None or (last[0], last[1]) != (seq, digest):
        return False
    start = _snapshot_seq(conn, encounter)
    if seq - start > MAX_TAIL:
        return False
    prev = GENESIS
    if start:
        (prev,) = conn.execute(
            "SELECT hash FROM events WHERE encounter = ? AND seq = ?", (encounter, start)
        ).fetchone()
    expected = start + 1
    for row in conn.execute(
        "SELECT seq, id, type, recorded_at, body, prev_hash, hash FROM events "
        "WHERE encounter = ? AND seq > ? ORDER BY seq",
        (encounter, start),
    ):
        at, id_, type_, recorded_at, body, prev_hash, stored = row
        if at != expected or prev_hash != prev or not all(type(v) is str for v in row[1:]):
            return False
        if hash_text(encounter, at, id_, type_, recorded_at, body, prev) != stored:
            return False
        expected, prev = at + 1, stored
    return expected == seq + 1


def _snapshot_seq(conn: sqlite3.Connection, encounter: str) -> int:
    """The seq of the newest snapshot whose event's hash matches, that no later retraction
    or correction reaches behind, and whose digest is its content's (0 when none): never newer
    than the one the full command folds from, so the rows checked here include the rows it
    checks."""
    try:
        seqs = [
            s
            for (s,) in conn.execute(
                "SELECT s.seq FROM cache_snapshots s JOIN events e "
                "ON e.encounter = s.encounter AND e.seq = s.seq "
                "WHERE s.encounter = ? AND s.hash = e.hash AND s.digest IS NOT NULL "
                "ORDER BY s.seq DESC",
                (encounter,),
            )
        ]
    except sqlite3.OperationalError:
        return 0  # no snapshot table (or one without digests): the whole chain
    if not seqs or not all(type(s) is int for s in seqs):
        return 0
    revisions = conn.execute(
        "SELECT seq, json_extract(body, '$.target') FROM events WHERE encounter = ? AND "
        "type = 'event.retracted' AND seq > ? UNION ALL SELECT seq, json_extract(body, "
        "'$.target') FROM events WHERE encounter = ? AND type = 'event.corrected' AND seq > ?",
        (encounter, seqs[-1], encounter, seqs[-1]),
    ).fetchall()
    for s in seqs:
        reached = any(type(t) is not int or t <= s for at, t in revisions if at > s)
        if not reached and _sealed(conn, encounter, s):
            return int(s)
    return 0


def _sealed(conn: sqlite3.Connection, encounter: str, seq: int) -> bool:
    """Whether the snapshot at `seq` is as the ledger wrote it (the full command skips one
    that is not, for an older one)."""
    row = conn.execute(
        "SELECT hash, gone, state, digest FROM cache_snapshots WHERE encounter = ? AND seq = ?",
        (encounter, seq),
    ).fetchone()
    return row is not None and snapshot_intact(encounter, seq, *row)


def _plain_text(view: Mapping[str, Any]) -> str | None:
    """`tracks` for a pipe or with --plain: the header, a grid a side, the pools."""
    header = _header(view)
    read = _readings(view["system"])
    if header is None or read is None:
        return None
    grids = plaintext.track_grids(view, read)
    lines = [header + "\n", *map(plaintext.grid_lines, grids)]
    pools = plaintext.pools_line(view["pools"])
    return "".join(lines) + (pools + "\n" if pools else "")


def _print_tables(view: Mapping[str, Any]) -> bool:
    """`tracks` on a terminal: the header, a rich table a side, the pools."""
    header = _header(view)
    read = _readings(view["system"])
    if header is None or read is None:
        return False
    tables = [plaintext.table(grid) for grid in plaintext.track_grids(view, read)]
    pools = plaintext.pools_line(view["pools"])
    _write(header + "\n")
    fit.print_tables(plaintext.console(), tables)
    if pools:
        _write(pools + "\n")
    return True


def _readings(system: str) -> Readings | None:
    """How the system's tracks read, as its description names them; None when finding the
    systems has something to say (a broken one, an unknown key: the full command says it) or
    its readings do not load (the full command fails loudly, as it should)."""
    from ledger.systems import discovery

    try:
        found = discovery.found()
        if discovery.pending():
            return None
        return found.system(system).load_shown()
    except Exception:
        return None


def _header(view: Mapping[str, Any]) -> str | None:
    header = plaintext.tracks_header(
        view["encounter"], view["system"], view["seq"], view["round"], view["scene"]
    )
    # The full command prints the header as it is: text it would escape elsewhere is its case.
    return header if plaintext.visible(header) == header else None


def _utf8(stream: Any) -> bool:
    """Whether the stream writes UTF-8 (the full command's `echo` handles other encodings)."""
    try:
        return codecs.lookup(stream.encoding).name == "utf-8"
    except (AttributeError, LookupError, TypeError):
        return False


def _write(text: str) -> None:
    """Write to stdout; a reader that closed the pipe ends it quietly, as in the full command."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
