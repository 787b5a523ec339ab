"""The projection cache's head view: each encounter's tracks at its head (combatants, pools,
game time and rolls), refreshed by each write in its own transaction and keyed by the head's seq
and hash. A write rewrites only the combatants it changed and the rolls from the first it
changed; `ledger.fastpath` prints `tracks` from it, the audit compares it with the log.

A cache only, like the snapshots (`ledger.cache`, which owns the tables): deleting it loses
nothing, and every reader checks it against the log before using it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from ledger.cache import create_tables, no_table, write
from ledger.snapshot_codec import TEXT
from projections import core


def view_of(state: core.State) -> dict[str, Any]:
    """The head view: the `tracks --json` document without the rolls, with the game time."""
    return {
        "encounter": state.encounter,
        "system": state.system,
        "seq": state.seq,
        "combatants": {name: c.view() for name, c in state.combatants.items()},
        "pools": dict(state.pools),
        "round": state.round,
        "scene": state.scene,
    }


def _head_row(state: core.State) -> str:
    return TEXT.encode(
        {
            "system": state.system,
            "names": list(state.combatants),
            "pools": dict(state.pools),
            "round": state.round,
            "scene": state.scene,
            "rolls": len(state.rolls),
        }
    )


def roll_text(roll: core.Roll) -> str:
    """A roll as `tracks --json` shows it (`State.view`), as JSON text."""
    return roll.dump_json()


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
            if not no_table(exc):
                raise
        else:
            if moved.rowcount == 1:
                if was.combatants is not state.combatants:
                    _save_combatants(conn, was, head, state)
                _save_rolls(conn, was.rolls, state)
                return
    write(conn, "DELETE FROM cache_views WHERE encounter = ?", (encounter,))
    _save_combatants(conn, None, head, state)
    conn.execute(
        "INSERT INTO cache_views VALUES (?,?,?,?,?)", (encounter, "", *head, _head_row(state))
    )
    _save_rolls(conn, None, state)


def _save_rolls(
    conn: sqlite3.Connection, old: Sequence[core.Roll] | None, state: core.State
) -> None:
    """Store the state's rolls after those of `old` (the rolls the stored rows hold; None:
    rewrite them all): from the first roll that differs, which is usually the new last one."""
    encounter, new = state.encounter, state.rolls
    try:
        if old is not None and _last_roll(conn, encounter) != len(old) - 1:
            old = None  # rows lost (or written by a version that kept none): all again
        if old is new:
            return
        start = 0
        if old is not None:
            for a, b in zip(old, new, strict=False):
                if a is not b and a != b:
                    break
                start += 1
        if old is None or start < len(old):
            conn.execute(
                "DELETE FROM cache_rolls WHERE encounter = ? AND n >= ?", (encounter, start)
            )
        conn.executemany(
            "INSERT OR REPLACE INTO cache_rolls VALUES (?,?,?)",
            [(encounter, n, roll_text(new[n])) for n in range(start, len(new))],
        )
    except sqlite3.OperationalError as exc:
        if not no_table(exc):
            raise
        # The table was deleted (a cache only): every roll is written again.
        create_tables(conn)
        _save_rolls(conn, None, state)


def _last_roll(conn: sqlite3.Connection, encounter: str) -> int:
    """The n of the encounter's last stored roll (-1 when none): one seek of the key."""
    row = conn.execute(
        "SELECT n FROM cache_rolls WHERE encounter = ? ORDER BY n DESC LIMIT 1", (encounter,)
    ).fetchone()
    return -1 if row is None else int(row[0])


def _save_combatants(
    conn: sqlite3.Connection, was: core.State | None, head: tuple[int, str], state: core.State
) -> None:
    old = was.combatants if was is not None else {}
    rows = [
        (state.encounter, name, *head, TEXT.encode(c.view()))
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
        if no_table(exc):
            return None
        raise
    if "" not in rows:
        return None
    try:
        top = json.loads(rows[""])
        combatants = {name: json.loads(rows[name]) for name in top["names"]}
        view = {
            "encounter": encounter,
            "system": top["system"],
            "seq": head[0],
            "combatants": combatants,
            "pools": top["pools"],
        }
        # A view written before the game time and the rolls were kept has neither.
        view.update({key: top[key] for key in ("round", "scene", "rolls") if key in top})
        return view
    except (ValueError, KeyError, TypeError):
        return None


def diff_view(
    conn: sqlite3.Connection | None, stored: Mapping[str, Any], state: core.State
) -> list[str]:
    """What in a stored head view (`load_view`) differs from the tracks folded from the log:
    the parts of `view_of` it holds, and its rolls."""
    folded = json.loads(TEXT.encode(view_of(state)))
    differ = [key for key in folded if key in stored and stored[key] != folded[key]]
    if "rolls" in stored and not _rolls_agree(conn, stored["rolls"], state):
        differ.append("rolls")
    return differ


def _rolls_agree(conn: sqlite3.Connection | None, count: Any, state: core.State) -> bool:
    """Whether the stored rolls are the state's, one row at a time (a long fight has many)."""
    if conn is None or count != len(state.rolls):
        return False
    try:
        rows = conn.execute(
            "SELECT n, roll FROM cache_rolls WHERE encounter = ? ORDER BY n", (state.encounter,)
        )
    except sqlite3.OperationalError as exc:
        if no_table(exc):
            return True  # deleted: nothing to disagree (the fast path then folds)
        raise
    seen = 0
    for (n, text), roll in zip(rows, state.rolls, strict=False):
        if n != seen:
            return False
        seen += 1
        if text != roll_text(roll):
            try:
                if json.loads(text) != json.loads(roll_text(roll)):
                    return False
            except (ValueError, TypeError):
                return False
    return bool(seen == count)
