"""Long, realistic encounters for the reliability tests and the benchmark (tests/perf/bench.py).

A skirmish of Stones, Scrolls, Swords and Sorcery that goes on for as many events as asked:
throws, harm placed in the enemies' slots while they have room, a player's harm lessened by Grit,
sheet checks, notes, and now and then a ruling undone. Deterministic, so figures compare.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENEMIES = tuple(f"Bandit {n}" for n in range(1, 13))
#: Harm the twelve level-5 bandits can hold before the last of them falls (12 x 15 slots).
ENEMY_HARM_BUDGET = 150


def skirmish(
    count: int, title: str = "The long skirmish", ids: str | None = None
) -> Iterator[dict[str, Any]]:
    """`count` events of one ssss encounter (seq 1 is `encounter.opened`); with `ids`, each
    event carries the id `{ids}-{seq}` (so a re-import is idempotent)."""
    head: list[dict[str, Any]] = [
        {"type": "encounter.opened", "system": "ssss", "title": title},
        {"type": "combatant.joined", "name": "Hero", "side": "player", "stats": {}},
        {"type": "combatant.joined", "name": "Sage", "side": "player", "stats": {}},
        *(
            {"type": "combatant.joined", "name": name, "side": "adversary", "stats": {"level": 5}}
            for name in ENEMIES
        ),
    ]
    budget = ENEMY_HARM_BUDGET
    throw = 0
    for seq in range(1, count + 1):
        if seq <= len(head):
            event = head[seq - 1]
        else:
            step = (seq - len(head) - 1) % 8
            event, throw, budget = _step(seq, step, throw, budget)
        if ids is not None:
            event = {**event, "id": f"{ids}-{seq}"}
        yield event


def _step(seq: int, step: int, throw: int, budget: int) -> tuple[dict[str, Any], int, int]:
    if step == 0:
        throw_event = {
            "type": "throw.made",
            "actor": "Hero",
            "attribute": "swords",
            "outcome": "hit",
            "harm_level": 1,
        }
        return throw_event, seq, budget
    if step == 1 and budget > 0:
        target = ENEMIES[budget % len(ENEMIES)]
        harm = {"type": "harm.inflicted", "target": target, "level": 1, "throw": throw}
        return harm, throw, budget - 1
    if step == 3:
        return {"type": "harm.inflicted", "target": "Sage", "level": 2}, throw, budget
    if step == 4:
        grit = {"type": "grit.used", "target": "Sage", "from_level": 2, "to_level": 0}
        return grit, throw, budget
    if step == 6:
        return {"type": "tracks.noted", "target": "Sage", "values": {"harm": []}}, throw, budget
    if step == 7 and seq % 400 < 8:
        undo = {"type": "event.retracted", "target": seq - 5, "reason": "misread the table"}
        return undo, throw, budget
    return {"type": "note", "text": f"round {seq // 8}: the fight goes on"}, throw, budget


def lines(events: Iterator[dict[str, Any]]) -> list[str]:
    """Events as JSON Lines (without line ends)."""
    return [json.dumps(event, ensure_ascii=False) for event in events]


def write_jsonl(path: Path, events: Iterator[dict[str, Any]]) -> Path:
    """Events written to a JSON Lines file."""
    with path.open("w", encoding="utf-8") as out:
        for line in lines(events):
            out.write(line + "\n")
    return path


def cli_env() -> dict[str, str]:
    """The environment for running `python -m ledger` on this checkout."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}


def encounter(
    db: Path | str, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the `encounter` command in a new process on the ledger `db` (a file or a URL)."""
    return subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=cli_env(),
        cwd=db.parent if isinstance(db, Path) else ROOT,
        check=False,
        timeout=300,
    )


def command(db: Path | str, args: Sequence[str]) -> list[str]:
    """The argv of an `encounter` command on `db` (for `subprocess.Popen`)."""
    return [sys.executable, "-m", "ledger", "--db", str(db), *args]


def fates_edge_stream(count: int) -> Iterator[dict[str, Any]]:
    """`count` events of a Fate's Edge encounter: two players, an adversary, then rounds of a
    locked stake, its roll and a note (the encounter `encounter fatigue` writes to)."""
    head: list[dict[str, Any]] = [
        {"type": "encounter.opened", "system": "fates-edge", "title": "The long ford"},
        {"type": "combatant.joined", "name": "Ash", "side": "player", "stats": {"body": 3}},
        {"type": "combatant.joined", "name": "Brin", "side": "player", "stats": {"body": 2}},
        {
            "type": "combatant.joined",
            "name": "Marsh Hag",
            "side": "adversary",
            "stats": {"resilience": 40, "fatigue_capacity": 3, "harm": 2, "pool": 6},
        },
    ]
    for seq in range(1, count + 1):
        if seq <= len(head):
            yield head[seq - 1]
            continue
        step = (seq - len(head) - 1) % 3
        stake = f"s{(seq - len(head) - 1) // 3}"
        if step == 0:
            yield {
                "type": "stakes.locked",
                "stake": stake,
                "actor": "Ash",
                "opposing": "Marsh Hag",
                "kind": "action",
                "intent": "keep the Hag at bay",
                "position": "controlled",
                "dv": 3,
            }
        elif step == 1:
            yield {"type": "roll.made", "stake": stake, "dice": [6, 2, 4]}
        else:
            yield {"type": "note", "text": f"round {seq // 3}: the Hag circles"}
