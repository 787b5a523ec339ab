"""An example or two for every command's `--help` (shown under the options)."""

from __future__ import annotations

from typing import Final

EXAMPLES: Final[dict[str, tuple[str, ...]]] = {
    "new": (
        'encounter new ford --system ssss --title "Bandits at the ford"',
        "encounter new duel --system fates-edge --rules house.json",
    ),
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
        "encounter tracks examples/ssss-bandits.jsonl --without 5",
    ),
    "replay": (
        "encounter replay ford --from-seq 3",
        "encounter replay ford --round 2",
        "encounter replay examples/ssss-bandits.jsonl --step",
        "encounter replay examples/fates-edge-ambush.jsonl --json | head",
    ),
    "round": ("encounter round ford 1", 'encounter round ford 3 --scene "the bridge"'),
    "history": ("encounter history ford Bandit --track slots",),
    "audit": (
        "encounter audit ford",
        "encounter audit examples/l5r-duel.jsonl --json",
        "encounter audit ford --html ford-audit.html",
    ),
    "list": ("encounter list", "encounter list --json"),
    "export": (
        "encounter export ford --out ford.jsonl",
        "encounter export ford --format md --out ford.md",
        "encounter export examples/l5r-duel.jsonl --format md",
    ),
    "report": (
        "encounter report ford --html ford.html",
        "encounter report examples/fates-edge-ambush.jsonl --html ambush-report.html",
    ),
    "verify": (
        "encounter verify",
        "encounter verify ford.jsonl --json",
    ),
    "schema": ("encounter schema", "encounter schema --system fates-edge > events.schema.json"),
    "rules": ("encounter rules ssss", "encounter rules fates-edge --json"),
    "views": ("encounter views", "encounter views --drop"),
    "lock": (
        'encounter lock duel cut --actor Ash --against "Silken Blade" --harm 2 --dv 3',
        "encounter lock duel parry --actor Ash --kind defense --consequence-harm 2",
    ),
    "roll": ("encounter roll duel cut --dice 10,7,1", "encounter roll duel cut --pool 5"),
    "hit": (
        'encounter hit duel "Silken Blade" 3 --stake cut',
        'encounter hit duel "Silken Blade" 3 --ignore-armor all',
    ),
    "fatigue": ('encounter fatigue duel "Silken Blade" 2 --cause "rooftop chase"',),
    "spend": (
        "encounter spend duel 1 --for attack --stake stab",
        "encounter spend duel 2 --for move --move Pounce",
    ),
    "suffer": ("encounter suffer duel Ash 2 --stake stab",),
    "endure-harm": (
        "encounter endure-harm ford Kira --foe Chief",
        "encounter endure-harm ford Kira --rank dangerous",
    ),
    "action-roll": (
        "encounter action-roll ford Kira --using iron --die 1 --challenge 5,9",
        "encounter action-roll ford Kira --using iron",
    ),
    "oracle": ("encounter oracle ford Kira --roll 42", "encounter oracle ford Kira"),
    "harm": ("encounter harm bandits Bandit 2 --throw 4", "encounter harm bandits Bandit 1"),
    "damage": (
        'encounter damage duel "Akodo Toshiro" 4 --increase 2 --deadliness 5 --weapon katana',
        'encounter damage duel "Akodo Toshiro" 8 --deadliness 5 --void-critical',
    ),
}
