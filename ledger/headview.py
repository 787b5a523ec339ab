"""The projection cache's head view: each encounter's tracks at its head (combatants, pools,
game time and rolls), refreshed by each write in its own transaction and keyed by the head's seq
and hash. A write rewrites only the combatants it changed and the rolls from the first it
changed; `ledger.fastpath` prints `tracks` from it, the audit compares it with the log.

A cache only, like the snapshots (`ledger.cache`, whose `CacheTables` hold the rows in either
store): deleting it loses nothing, and every reader checks it against the log before using it.
A row whose digest is not its content's (`ledger.rowdigest`) is read as missing, and the next
write rewrites it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ledger.cache import CacheTables, StoredView
from ledger.rowdigest import roll_intact, view_intact
from ledger.snapshot_codec import TEXT
from projections import core
from projections.log import Log


def view_of(state: core.State) -> dict[str, Any]:
    """The head view: the `tracks --json` document without the rolls, with the game time."""
    return {**state.view_without_rolls(), "round": state.round, "scene": state.scene}


def _text(value: Any) -> str:
    """A view as JSON text: by orjson (a seventh of the stdlib encoder's time, and every write
    stores its head row and the combatants it changed), else by the stdlib encoder, which says
    what is wrong. Readers parse it: only its value matters, and both write the same value."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError: a lone surrogate, an int past 64 bits
        return TEXT.encode(value)


def head_row(state: core.State) -> str:
    """The head's row of the view: the system, the combatants' names in order, the pools, the
    game time and how many rolls there are."""
    return _text(
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
    tables: CacheTables,
    before: tuple[int, str] | None,
    was: core.State | None,
    head: tuple[int, str],
    state: core.State,
    *,
    known: bool = False,
) -> None:
    """Refresh the encounter's head view after a write from head `before` (state `was`) to
    `head`: only the combatants the write replaced, when the view was of `before` and every
    combatant's row is intact; else the whole view anew. `known`: the rows at `before` are the
    ones this ledger's previous write left (it wrote or checked them), so they are not read
    back to be checked again: a process checks them on its first write of the encounter."""
    encounter = state.encounter
    top = head_row(state)
    moved = None
    if before is not None and was is not None:
        moved = tables.move_view(encounter, before, head, top, rows=not known)
    if moved is not None and was is not None and (known or _whole(encounter, moved, was)):
        if was.combatants is not state.combatants:
            gone = [name for name in was.combatants if name not in state.combatants]
            tables.put_combatants(encounter, head, changed_rows(was, state), gone)
        _save_rolls(tables, was.rolls, state)
        return
    rows = [(name, _text(c.view())) for name, c in state.combatants.items()]
    tables.replace_view(encounter, head, top, rows)
    _save_rolls(tables, None, state)


def _whole(encounter: str, rows: Mapping[str, StoredView], was: core.State) -> bool:
    """Whether the stored combatant rows are those of `was`'s combatants, each intact (one
    edited outside the ledger would otherwise outlive every write that leaves it alone)."""
    return len(rows) == len(was.combatants) and all(
        name in rows and _intact_row(encounter, name, rows[name]) for name in was.combatants
    )


def _intact_row(encounter: str, name: str, row: StoredView) -> bool:
    seq, digest, text, stored = row
    return view_intact(encounter, name, seq, digest, text, stored)


def changed_rows(was: core.State, state: core.State) -> list[tuple[str, str]]:
    """The rows of the combatants `state` holds that are not those of `was` (a fold shares
    what an event leaves alone), as (name, view text)."""
    old = was.combatants
    return [
        (name, _text(c.view())) for name, c in state.combatants.items() if old.get(name) is not c
    ]


def _save_rolls(tables: CacheTables, old: Sequence[core.Roll] | None, state: core.State) -> None:
    """Store the state's rolls after those of `old` (the rolls the stored rows hold; None:
    rewrite them all): from the first roll that differs, which is usually the new last one."""
    encounter, new = state.encounter, state.rolls
    if old is not None and tables.last_roll(encounter) != len(old) - 1:
        old = None  # rows lost (or written by a version that kept none): all again
    if old is new:
        return
    start = 0
    if old is not None and isinstance(new, Log) and new.extends(old):
        start = len(old)  # rolls were added, the same objects kept: only the new ones
    elif old is not None:
        for a, b in zip(old, new, strict=False):
            if a is not b and a != b:
                break
            start += 1
    rows = [(n, roll_text(new[n])) for n in range(start, len(new))]
    # Rows from `start` on are deleted only when some may be stored (not when rolls were added).
    tables.put_rolls(encounter, rows, start if old is None or start < len(old) else None)


def load_view(tables: CacheTables | None, encounter: str, head: tuple[int, str]) -> Any:
    """The stored head view (`view_of`) when it is of this head (seq, hash) and every row of
    it is intact, else None."""
    view, damaged = stored_view(tables, encounter, head)
    return None if damaged else view


def stored_view(
    tables: CacheTables | None, encounter: str, head: tuple[int, str]
) -> tuple[Any, list[str]]:
    """The stored head view (`view_of`) when it is of this head (seq, hash), else None, as its
    rows hold it; and the names of the rows whose digest does not match ('' for the head's):
    what the audit reports."""
    if tables is None:  # a store without cache tables
        return None, []
    stored = tables.view_rows(encounter, head)
    if "" not in stored:
        return None, []
    rows = {name: str(row[2]) for name, row in stored.items()}
    damaged = [name for name, row in stored.items() if not _intact_row(encounter, name, row)]
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
    except (ValueError, KeyError, TypeError):
        return None, damaged
    return view, sorted(name for name in damaged if name == "" or name in combatants)


def diff_view(
    tables: CacheTables | None, stored: Mapping[str, Any], state: core.State
) -> list[str]:
    """What in a stored head view (`load_view`) differs from the tracks folded from the log:
    the parts of `view_of` it holds, and its rolls."""
    folded = json.loads(TEXT.encode(view_of(state)))
    differ = [key for key in folded if key in stored and stored[key] != folded[key]]
    if "rolls" in stored and not _rolls_agree(tables, stored["rolls"], state):
        differ.append("rolls")
    return differ


def _rolls_agree(tables: CacheTables | None, count: Any, state: core.State) -> bool:
    """Whether the stored rolls are the state's, one row at a time (a long fight has many)."""
    if tables is None or count != len(state.rolls):
        return False
    rows = tables.roll_rows(state.encounter)
    if rows is None:
        return True  # deleted: nothing to disagree (the fast path then folds)
    seen = 0
    for (n, text, stored), roll in zip(rows, state.rolls, strict=False):
        if n != seen or not roll_intact(state.encounter, n, text, stored):
            return False
        seen += 1
        if text != roll_text(roll):
            try:
                if json.loads(text) != json.loads(roll_text(roll)):
                    return False
            except (ValueError, TypeError):
                return False
    return bool(seen == count)
