"""An example or two for every command's `--help` (shown under the options): these, which
show no system, then each system's own (`System.examples`: its verbs, and its files)."""

from __future__ import annotations

from typing import Final

EXAMPLES: Final[dict[str, tuple[str, ...]]] = {
    "add": (
        "encounter add ford Bandit --side adversary --stat level=2",
        "encounter add duel Akodo --side player --stat-file akodo.json",
    ),
    "record": (
        "encounter record ford harm.inflicted target=Bandit level=2",
        'encounter record ford note text="the bridge is out" --json',
    ),
    "undo": (
        'encounter undo ford --reason "that blow was on Ash"',
        'encounter undo ford 4 --reason "wrong target" --dry-run',
    ),
    "redo": ("encounter redo ford", "encounter redo ford 6"),
    "amend": ('encounter amend ford 4 level=1 --reason "a glancing blow"',),
    "import": (
        "encounter import ford.jsonl",
        "encounter import ford.jsonl --into ford-copy --new-ids",
    ),
    "copy": (
        "encounter copy --from encounters.db --to postgresql://gm@db.example/encounters",
        "encounter copy --from postgresql://gm@db.example/encounters --to backup.db --json",
    ),
    "log": ("encounter log ford", "encounter log ford --json | head -3"),
    "tracks": (
        "encounter tracks ford",
        "encounter tracks ford --at 4 --json",
        "encounter tracks ford --round 2",
    ),
    "replay": (
        "encounter replay ford --from-seq 3",
        "encounter replay ford --round 2",
    ),
    "round": ("encounter round ford 1", 'encounter round ford 3 --scene "the bridge"'),
    "history": ("encounter history ford Bandit --track slots",),
    "audit": (
        "encounter audit ford",
        "encounter audit ford --html ford-audit.html",
    ),
    "list": ("encounter list", "encounter list --json"),
    "export": (
        "encounter export ford --out ford.jsonl",
        "encounter export ford --format md --out ford.md",
    ),
    "report": ("encounter report ford --html ford.html",),
    "verify": (
        "encounter verify",
        "encounter verify ford.jsonl --json",
    ),
    "schema": ("encounter schema",),
    "views": ("encounter views", "encounter views --drop"),
}


def examples() -> dict[str, tuple[str, ...]]:
    """Every command's examples: the generic ones, then each system's in listing order."""
    from ledger import systems

    found = {name: list(lines) for name, lines in EXAMPLES.items()}
    for system in systems.every():
        for name, lines in system.examples.items():
            found.setdefault(name, []).extend(lines)
    return {name: tuple(lines) for name, lines in found.items()}
