"""The projection cache in the ledger file: fold snapshots and each encounter's head view.

A cache only (DESIGN §3): deleting its tables loses nothing, and every answer it gives is checked
against the log before it is used. A snapshot is the fold state after a seq, keyed by (encounter,
seq, hash of the event at that seq) and by the seqs that were retracted up to it: a snapshot whose
event's hash no longer matches, or whose retracted seqs differ from the stream's now (a retraction
that reaches behind it), is ignored, and an older one is tried. The head view (combatants and
pools) is written by each write in its own transaction, keyed by the head's seq and hash; a
write rewrites only the combatants it changed.

States are stored as plain JSON of known classes (pydantic models of `projections` and
`ledger.events`), never pickle: loading a snapshot can build only those classes. This module
shares the store's connection; `ledger.service` calls it inside the store's write transaction.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel

from projections import core
from projections.log import Log
from projections.revisions import Standing

#: A write or an import keeps a snapshot after every this many seqs (the in-memory checkpoints)...
SNAPSHOT_EVERY: Final = 256
#: ... and the file keeps the newest this many of an encounter (each holds every roll so far).
SNAPSHOTS_KEPT: Final = 4

_TABLES: Final = (
    """CREATE TABLE IF NOT EXISTS cache_snapshots (
        encounter TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        gone TEXT NOT NULL,
        state TEXT NOT NULL,
        PRIMARY KEY (encounter, seq)
    ) WITHOUT ROWID""",
    # One row for the head (name ''), holding its seq and hash, the system, the pools and the
    # combatants' names in order; one row a combatant, holding its tracks: a write rewrites
    # only the combatants it changed.
    """CREATE TABLE IF NOT EXISTS cache_views (
        encounter TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL,
        view TEXT NOT NULL,
        PRIMARY KEY (encounter, name)
    ) WITHOUT ROWID""",
)
TABLES: Final = ("cache_snapshots", "cache_views")

#: The packages whose models a snapshot may hold.
_KNOWN: Final = ("projections.", "ledger.events.")
_TEXT: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


class Unknown(ValueError):
    """A stored snapshot names a class or a shape the cache does not build."""


# Encoding: scalars and text-keyed dicts as themselves; a tuple, list, Log or other dict as an
# array tagged by its first item (a dict's pairs as [key, value]); a model as
# ["m", "module:Class", {its fields}, [fields left at default]]; a sequence of models of one class
# as columns, ["C", its tag, "module:Class", [field names], [[fields left at default], ...],
# [index into those lists, value, ...] a model].


def encode(state: core.State) -> str:
    """The state as JSON text (raises TypeError or ValueError for what JSON cannot carry)."""
    return _TEXT.encode(_enc(state))


def _enc(value: Any) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is int or kind is float or kind is bool:
        return value
    if kind is dict:
        if all(type(k) is str for k in value):
            return {k: _enc(v) for k, v in value.items()}
        return ["d", *([_enc(k), _enc(v)] for k, v in value.items())]
    if kind is tuple or kind is list or kind is Log:
        tag = _SEQUENCES[kind]
        if len(value) > 1:
            columns = _columns(tag, value)
            if columns is not None:
                return columns
        return [tag, *map(_enc, value)]
    if isinstance(value, BaseModel) and kind.__module__.startswith(_KNOWN):
        fields = value.__dict__
        given = value.__pydantic_fields_set__
        unset = [name for name in fields if name not in given]
        name = f"{kind.__module__}:{kind.__qualname__}"
        return ["m", name, {k: _enc(v) for k, v in fields.items()}, unset]
    raise TypeError(f"a snapshot cannot hold a {kind.__name__}")


def _columns(tag: str, items: Sequence[Any]) -> list[Any] | None:
    """Models of one class as columns: a roll log of a long fight is most of a snapshot, and as
    one object per roll its parsed JSON costs several times the state it rebuilds."""
    cls = type(items[0])
    if not issubclass(cls, BaseModel) or not cls.__module__.startswith(_KNOWN):
        return None
    if any(type(item) is not cls for item in items):
        return None
    fields = list(cls.model_fields)
    unsets: dict[tuple[str, ...], int] = {}
    rows: list[list[Any]] = []
    for item in items:
        given = item.__pydantic_fields_set__
        unset = tuple(name for name in fields if name not in given)
        index = unsets.setdefault(unset, len(unsets))
        values = item.__dict__
        rows.append([index, *(_enc(values[name]) for name in fields)])
    name = f"{cls.__module__}:{cls.__qualname__}"
    return ["C", tag, name, fields, [list(u) for u in unsets], *rows]


_SEQUENCES: Final[Mapping[type, str]] = {tuple: "t", list: "l", Log: "L"}


def decode(text: str) -> core.State:
    """A state from `encode`'s text; raises `Unknown` (or ValueError) for anything else."""
    state = _Decoder().value(json.loads(text))
    if not isinstance(state, core.State):
        raise Unknown("a snapshot holds a state")
    return state


class _Decoder:
    def __init__(self) -> None:
        self._classes: dict[str, type[BaseModel]] = {}
        # One fields set per distinct set, shared (as `core.add_roll` does for rolls).
        self._given: dict[frozenset[str], set[str]] = {}
        self._texts: dict[str, str] = {}

    def value(self, item: Any) -> Any:
        kind = type(item)
        if kind is str:
            # One object per distinct text: a long fight repeats a few names thousands of times.
            return self._texts.setdefault(item, item)
        if item is None or kind is int or kind is float or kind is bool:
            return item
        if kind is dict:
            return {k: self.value(v) for k, v in item.items()}
        if kind is not list or not item:
            raise Unknown(f"unexpected {kind.__name__} in a snapshot")
        tag = item[0]
        if tag == "t":
            return tuple(self.value(v) for v in item[1:])
        if tag == "l":
            return [self.value(v) for v in item[1:]]
        if tag == "d":
            return {self.key(pair[0]): self.value(pair[1]) for pair in item[1:]}
        if tag == "L":
            return Log(self.value(v) for v in item[1:])
        if tag == "m" and len(item) == 4:
            return self.model(item[1], item[2], item[3])
        if tag == "C" and len(item) >= 5:
            return self.columns(item)
        raise Unknown(f"unexpected tag {tag!r} in a snapshot")

    def columns(self, item: list[Any]) -> Any:
        _, tag, name, fields, unsets, *rows = item
        if type(fields) is not list or type(unsets) is not list:
            raise Unknown(f"{name}: malformed columns in a snapshot")
        width = len(fields) + 1
        models = []
        for row in rows:
            if type(row) is not list or len(row) != width or type(row[0]) is not int:
                raise Unknown(f"{name}: malformed row in a snapshot")
            if not 0 <= row[0] < len(unsets):
                raise Unknown(f"{name}: malformed row in a snapshot")
            models.append(self.model(name, dict(zip(fields, row[1:], strict=True)), unsets[row[0]]))
        if tag == "t":
            return tuple(models)
        if tag == "l":
            return models
        if tag == "L":
            return Log(models)
        raise Unknown(f"unexpected tag {tag!r} in a snapshot")

    def key(self, item: Any) -> Any:
        key = self.value(item)
        if not isinstance(key, str | int | float | bool | tuple | None):
            raise Unknown("a snapshot's dict key is a scalar or a tuple")
        return key

    def model(self, name: Any, fields: Any, unset: Any) -> BaseModel:
        cls = self.known(name)
        if type(fields) is not dict or fields.keys() != cls.model_fields.keys():
            raise Unknown(f"{name}: the fields stored are not the fields of the class")
        if type(unset) is not list or not set(unset) <= fields.keys():
            raise Unknown(f"{name}: unknown fields left at default")
        model = object.__new__(cls)
        given = frozenset(fields.keys() - set(unset))
        shared = self._given.setdefault(given, set(given))
        object.__setattr__(model, "__dict__", {k: self.value(v) for k, v in fields.items()})
        object.__setattr__(model, "__pydantic_fields_set__", shared)
        object.__setattr__(model, "__pydantic_extra__", None)
        object.__setattr__(model, "__pydantic_private__", None)
        return model

    def known(self, name: Any) -> type[BaseModel]:
        cls = self._classes.get(name)
        if cls is not None:
            return cls
        module, _, qualname = name.partition(":") if isinstance(name, str) else ("", "", "")
        if not module.startswith(_KNOWN) or not qualname.isidentifier():
            raise Unknown(f"{name!r} is not a class a snapshot may hold")
        try:
            found = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError) as exc:
            raise Unknown(f"{name!r} is not a class a snapshot may hold") from exc
        if not isinstance(found, type) or not issubclass(found, BaseModel):
            raise Unknown(f"{name!r} is not a model")
        self._classes[name] = found
        return found


# The tables.


def _missing(exc: sqlite3.OperationalError) -> bool:
    return "no such table" in str(exc)


def _ensure(conn: sqlite3.Connection) -> None:
    for statement in _TABLES:
        conn.execute(statement)


def _write(conn: sqlite3.Connection, sql: str, args: Sequence[Any]) -> sqlite3.Cursor:
    """Run a write of the cache (inside the caller's transaction), creating its tables first
    when they are missing (a new file, or one whose cache was deleted)."""
    try:
        return conn.execute(sql, args)
    except sqlite3.OperationalError as exc:
        if not _missing(exc):
            raise
        _ensure(conn)
        return conn.execute(sql, args)


def _gone_upto(gone: Standing, seq: int) -> str:
    # The standing of the stream up to `seq`: the seqs retracted, and (when there are any) the
    # corrections in force of the seqs up to it, which a later correction or its undo changes.
    key: list[Any] = sorted(s for s in gone.gone if s <= seq)
    fixed = [[t, [r.seq for r in fixes]] for t, fixes in sorted(gone.fixes.items()) if t <= seq]
    return _TEXT.encode([*key, fixed] if fixed else key)


def save_snapshots(
    conn: sqlite3.Connection,
    encounter: str,
    snapshots: Sequence[tuple[int, str, core.State]],
    gone: Standing,
) -> None:
    """Store (seq, hash of the event at seq, state) snapshots, folded with the standing `gone`;
    then keep only the encounter's newest SNAPSHOTS_KEPT."""
    stored = 0
    for seq, digest, state in snapshots[-SNAPSHOTS_KEPT:]:
        try:
            text = encode(state)
        except (TypeError, ValueError):
            continue  # a cache only: a state it cannot carry is folded instead
        _write(
            conn,
            "INSERT OR REPLACE INTO cache_snapshots VALUES (?,?,?,?,?)",
            (encounter, seq, digest, _gone_upto(gone, seq), text),
        )
        stored += 1
    if stored:
        conn.execute(
            "DELETE FROM cache_snapshots WHERE encounter = ? AND seq NOT IN (SELECT seq FROM "
            "cache_snapshots WHERE encounter = ? ORDER BY seq DESC LIMIT ?)",
            (encounter, encounter, SNAPSHOTS_KEPT),
        )


def event_hash(conn: sqlite3.Connection, encounter: str, seq: int) -> str:
    """The stored hash of the event at `seq` (a snapshot's key)."""
    row = conn.execute(
        "SELECT hash FROM events WHERE encounter = ? AND seq = ?", (encounter, seq)
    ).fetchone()
    return str(row[0])


def load_snapshot(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing, upto: int
) -> tuple[int, core.State] | None:
    """The newest valid snapshot at or below seq `upto` for a stream of standing `gone`: its
    event's hash still matches, and the same seqs up to it are retracted and corrected."""
    if conn is None:  # a store without cache tables
        return None
    for seq in _valid_seqs(conn, encounter, gone, upto):
        text = snapshot_text(conn, encounter, seq)
        if text is None:
            continue
        try:
            state = decode(text)
        except (ValueError, TypeError, RecursionError):
            continue
        if state.encounter == encounter and state.seq == seq:
            return seq, state
    return None


def _valid_seqs(conn: sqlite3.Connection, encounter: str, gone: Standing, upto: int) -> list[int]:
    """The seqs, newest first, of the snapshots whose event's hash still matches and that hold
    the same retractions and corrections; their texts are read one at a time (each holds every
    roll, so reading them all at once would cost several times one state)."""
    try:
        rows = conn.execute(
            "SELECT s.seq, s.hash, s.gone, e.hash FROM cache_snapshots s "
            "JOIN events e ON e.encounter = s.encounter AND e.seq = s.seq "
            "WHERE s.encounter = ? AND s.seq <= ? ORDER BY s.seq DESC",
            (encounter, upto),
        ).fetchall()
    except sqlite3.OperationalError as exc:
        if _missing(exc):
            return []
        raise
    return [
        seq
        for seq, digest, stored_gone, event_hash in rows
        if digest == event_hash and stored_gone == _gone_upto(gone, seq)
    ]


def snapshot_text(conn: sqlite3.Connection | None, encounter: str, seq: int) -> str | None:
    """The stored text of the snapshot at `seq`, as `encode` wrote it."""
    if conn is None:
        return None
    row = conn.execute(
        "SELECT state FROM cache_snapshots WHERE encounter = ? AND seq = ?", (encounter, seq)
    ).fetchone()
    return None if row is None or type(row[0]) is not str else str(row[0])


def agrees(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing, state: core.State
) -> bool:
    """Whether the valid snapshot at the state's seq (if any) holds this state. The texts are
    compared first, so an intact cache is checked without building a second state."""
    if conn is None or state.seq not in _valid_seqs(conn, encounter, gone, state.seq)[:1]:
        return True
    text = snapshot_text(conn, encounter, state.seq)
    if text is None:
        return True
    try:
        if encode(state) == text:
            return True
        stored = decode(text)
    except (ValueError, TypeError, RecursionError):
        return False
    return stored.encounter == encounter and stored.seq == state.seq and stored == state


def usable_snapshots(
    conn: sqlite3.Connection | None, encounter: str, gone: Standing
) -> dict[int, core.State]:
    """Every snapshot of the encounter that a read would use (for the audit's check)."""
    found: dict[int, core.State] = {}
    upto = 2**62
    while (snapshot := load_snapshot(conn, encounter, gone, upto)) is not None:
        found[snapshot[0]] = snapshot[1]
        upto = snapshot[0] - 1
    return found


def snapshot_seqs(conn: sqlite3.Connection | None, encounter: str) -> set[int]:
    """The seqs the encounter has snapshots at (none decoded: each holds every roll)."""
    if conn is None:
        return set()
    try:
        rows = conn.execute("SELECT seq FROM cache_snapshots WHERE encounter = ?", (encounter,))
        return {int(r[0]) for r in rows}
    except sqlite3.OperationalError as exc:
        if _missing(exc):
            return set()
        raise


def view_of(state: core.State) -> dict[str, Any]:
    """The head view: the `tracks --json` document without the rolls."""
    return {
        "encounter": state.encounter,
        "system": state.system,
        "seq": state.seq,
        "combatants": {name: c.view() for name, c in state.combatants.items()},
        "pools": dict(state.pools),
    }


def _head_row(state: core.State) -> str:
    return _TEXT.encode(
        {"system": state.system, "names": list(state.combatants), "pools": dict(state.pools)}
    )


def save_view(
    conn: sqlite3.Connection,
    before: tuple[int, str] | None,
    was: core.State | None,
    head: tuple[int, str],
    state: core.State,
) -> None:
    """Refresh the encounter's head view after a write from head `before` (state `was`) to
    `head`: only the combatants the write replaced, when the view was of `before`."""
    encounter = state.encounter
    if before is not None and was is not None:
        try:
            moved = conn.execute(
                "UPDATE cache_views SET seq = ?, hash = ?, view = ? "
                "WHERE encounter = ? AND name = '' AND seq = ? AND hash = ?",
                (*head, _head_row(state), encounter, *before),
            )
        except sqlite3.OperationalError as exc:
            if not _missing(exc):
                raise
        else:
            if moved.rowcount == 1:
                if was.combatants is not state.combatants:
                    _save_combatants(conn, was, head, state)
                return
    _write(conn, "DELETE FROM cache_views WHERE encounter = ?", (encounter,))
    _save_combatants(conn, None, head, state)
    conn.execute(
        "INSERT INTO cache_views VALUES (?,?,?,?,?)", (encounter, "", *head, _head_row(state))
    )


def _save_combatants(
    conn: sqlite3.Connection, was: core.State | None, head: tuple[int, str], state: core.State
) -> None:
    old = was.combatants if was is not None else {}
    rows = [
        (state.encounter, name, *head, _TEXT.encode(c.view()))
        for name, c in state.combatants.items()
        if old.get(name) is not c
    ]
    conn.executemany("INSERT OR REPLACE INTO cache_views VALUES (?,?,?,?,?)", rows)
    for name in old:
        if name not in state.combatants:
            conn.execute(
                "DELETE FROM cache_views WHERE encounter = ? AND name = ?", (state.encounter, name)
            )


def load_view(conn: sqlite3.Connection | None, encounter: str, head: tuple[int, str]) -> Any:
    """The stored head view (`view_of`) when it is of this head (seq, hash), else None."""
    if conn is None:  # a store without cache tables
        return None
    try:
        rows = dict(
            conn.execute(
                "SELECT name, view FROM cache_views WHERE encounter = ? AND "
                "(name != '' OR (seq = ? AND hash = ?))",
                (encounter, *head),
            ).fetchall()
        )
    except sqlite3.OperationalError as exc:
        if _missing(exc):
            return None
        raise
    if "" not in rows:
        return None
    try:
        top = json.loads(rows[""])
        combatants = {name: json.loads(rows[name]) for name in top["names"]}
        return {
            "encounter": encounter,
            "system": top["system"],
            "seq": head[0],
            "combatants": combatants,
            "pools": top["pools"],
        }
    except (ValueError, KeyError, TypeError):
        return None


def drop(conn: sqlite3.Connection) -> None:
    """Delete the cache tables (nothing is lost: they are rebuilt by the next writes)."""
    for table in TABLES:
        conn.execute(f"DROP TABLE IF EXISTS {table}")


def diff_view(stored: Mapping[str, Any], state: core.State) -> list[str]:
    """What in a stored head view differs from the tracks folded from the log."""
    folded = json.loads(_TEXT.encode(view_of(state)))
    return [key for key in folded if stored.get(key) != folded[key]]
