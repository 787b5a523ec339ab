"""The command line's conventions, applied to every command in one place: global options after
the subcommand, help that shows flags as flags and repeated options as `SEQ...`, an example or
two under every command's help, JSON errors under `--json`, and shell completion of the names
in the ledger file.

`ledger.cli.errors.OneLineErrors` calls `hoist` and `tidy` from the app's `main`.
"""

# No `from __future__ import annotations`: typer reads the completion functions' annotations
# (which parameter is the context) at run time.
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, get_args

import typer
import typer.core

from ledger import api, reference, systems
from ledger.errors import LedgerError
from ledger.store import is_postgres

#: Options of the app itself that may also be given after the subcommand, and whether each
#: takes a value.
GLOBAL_OPTIONS: Final = {"--db": True, "--tenant": True, "--plain": False, "--as": True}

#: Metavars by option name, where the parameter's Python type does not say enough.
METAVARS: Final = {
    "at": "SEQ",
    "expect": "SEQ",
    "without": "SEQ",
    "start": "SEQ",
    "end": "SEQ",
    "head": "DIGEST",
    "stat": "KEY=VALUE",
    "fields": "KEY=VALUE",
    "kind": "TYPE",
    "folder": "DIR",
}


def hoist(args: Sequence[str]) -> list[str]:
    """`args` with the app's own options moved before the subcommand: `encounter tracks ford
    --db other.db` means `encounter --db other.db tracks ford`. Nothing after `--` moves."""
    front: list[str] = []
    rest: list[str] = []
    words = list(args)
    seen_command = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            rest.extend(words[i:])
            break
        name, eq, _ = word.partition("=")
        if seen_command and name in GLOBAL_OPTIONS:
            takes_value = GLOBAL_OPTIONS[name]
            if takes_value and not eq and i + 1 < len(words):
                front.extend(words[i : i + 2])
                i += 2
                continue
            front.append(word)
        else:
            if not word.startswith("-") and not seen_command and not _is_value(words, i):
                seen_command = True
            rest.append(word)
        i += 1
    return front + rest


def _is_value(words: Sequence[str], i: int) -> bool:
    # `--db PATH` before the subcommand: PATH is the option's value, not the command.
    return i > 0 and GLOBAL_OPTIONS.get(words[i - 1], False)


def wants_json(args: Sequence[str]) -> bool:
    """Whether the command line asks for `--json` (errors are then JSON documents too)."""
    words = list(args)
    if "--" in words:
        words = words[: words.index("--")]
    return "--json" in words


def wants_help(args: Sequence[str]) -> bool:
    """Whether the command line asks for help (its examples are then wanted)."""
    words = list(args)
    if "--" in words:
        words = words[: words.index("--")]
    return "--help" in words or not words


def tidy(group: typer.core.TyperGroup) -> None:
    """Help as people read it: a flag shows no `<bool>`, a repeated option `SEQ...`, a value
    its kind in capitals (`FILE`, `N`, `TEXT`, a choice's `a|b`)."""
    for command in [group, *group.commands.values()]:
        if command is not group and isinstance(command, typer.core.TyperGroup):
            tidy(command)  # a group of commands (`dice`): its own commands too
        if command.help and not command.short_help:
            # The command list shows a docstring's first paragraph with its line breaks kept,
            # which wraps mid-sentence: the summary as one line, for the list to wrap itself.
            command.short_help = " ".join(command.help.split("\n\n")[0].split())
        shown = command.get_help_option(typer.Context(command))
        for param in [*command.params, *([shown] if shown else [])]:
            if isinstance(param, typer.core.TyperOption) and param.metavar is None:
                param.metavar = _metavar(param)
            elif isinstance(param, typer.core.TyperArgument) and param.metavar is None:
                # NAME in capitals, as click writes it, and no `<str>` beside it (typer adds
                # the `...` of a repeated argument on the usage line).
                param.metavar = METAVARS.get(param.name or "", (param.name or "").upper())
                setattr(param, "display_type_rich", _no_type)  # noqa: B010 - an instance override


def _no_type(ctx: typer.Context) -> None:
    return None


def _metavar(param: typer.core.TyperOption) -> str:
    if param.is_flag or param.count:
        return ""
    base = METAVARS.get(param.name or "")
    if base is None:
        kind = param.type_descriptor
        inner = get_args(kind.annotation)[0] if kind.is_list else kind.annotation
        if kind.choices:
            base = wrapped([str(getattr(c, "value", c)) for c in kind.choices])
        elif kind.is_path:
            base = "FILE"
        else:
            base = "N" if inner is int else "TEXT"
    return f"{base}..." if param.multiple else base


#: The widest line of a choice list in help: narrower than the column an 80-column terminal
#: gives it, so the list breaks where we say (after a `|`), never inside a word.
CHOICES_WIDTH: Final = 20


def wrapped(choices: Sequence[str], width: int = CHOICES_WIDTH) -> str:
    """`a|b|c` on lines of at most `width` characters, broken after a `|` (a choice longer
    than that stands on a line of its own)."""
    lines: list[str] = []
    for choice in choices:
        # Room for the `|` before the choice, and for one after it should another follow.
        if lines and len(lines[-1]) + len(choice) + 2 <= width:
            lines[-1] += "|" + choice
        elif lines:
            lines[-1] += "|"
            lines.append(choice)
        else:
            lines.append(choice)
    return "\n".join(lines)


def examples(
    group: typer.core.TyperGroup,
    texts: Mapping[str, Iterable[str]],
    notes: Mapping[str, str] | None = None,
) -> None:
    """Put each command's examples under its help (the epilog), after its `notes` if any; a
    group's own commands are found as `GROUP COMMAND`."""
    for name, command in group.commands.items():
        if isinstance(command, typer.core.TyperGroup):
            inner = {
                k.removeprefix(f"{name} "): v for k, v in texts.items() if k.startswith(f"{name} ")
            }
            examples(command, inner)
        lines = list(texts.get(name, ()))
        note = (notes or {}).get(name)
        if (lines or note) and not command.epilog:
            # Escaped by hand for typer's rich help: importing rich costs every command.
            shown = "\n".join("  " + line.replace("[", "\\[") for line in lines)
            parts = [note.replace("[", "\\[")] if note else []
            parts += [f"Examples:\n\n{shown}"] if lines else []
            command.epilog = "\n\n".join(parts)


def notes(words: Sequence[str]) -> dict[str, str]:
    """What a command's help says besides its options, for the commands `words` name: the
    stat keys of every system's combatants under `add`, where to find the event types under
    `record` (the stats load every system's ruleset: only when `add` is named)."""
    found = {
        "record": "Each system's event types and their fields: encounter events SYSTEM [TYPE] "
        "(a verb records the common ones: see encounter --help).",
        "amend": "KEY is a field as encounter events SYSTEM TYPE names it, or the option of "
        "the verb that recorded it (using=heart for --using).",
    }
    if "add" in words:
        lines = ["Stats (--stat KEY=VALUE, JSON values), by system and side:"]
        for system in systems.every():
            try:
                sides = reference.stat_listing(system.key)
            except LedgerError:  # a system whose ruleset does not load: its verbs say so
                continue
            lines += [f"  {system.key} {side}: {_spaced(listed)}" for side, listed in sides]
        found["add"] = "\n".join(lines)
    return found


def _spaced(listed: str) -> str:
    """A stat listing whose choices (`a|b|c`) have room to wrap between them: a long list of
    debilities is one word to the help's wrapping, which would cut it mid-name."""
    return re.sub(r"(?<=[\w-])\|(?=[\w-])", " | ", listed)


# Shell completion: the names in the ledger file the command line names (or the default).


def _ledger_path(ctx: typer.Context) -> str | None:
    """The ledger the command line names: a file that exists, or a PostgreSQL URL."""
    root = ctx.find_root()
    db = str(root.params.get("db") or os.environ.get("ENCOUNTER_DB") or "encounters.db")
    return db if is_postgres(db) or Path(db).exists() else None


def complete_encounters(ctx: typer.Context, incomplete: str) -> list[str]:
    """Encounter names in the ledger that start with what was typed."""
    path = _ledger_path(ctx)
    if path is None:
        return []
    try:
        with api.Ledger(path, create=False) as ledger:
            names = [h.encounter for h in ledger.encounters()]
    except Exception:  # completion never prints a traceback into the shell
        return []
    return [n for n in names if n.startswith(incomplete)]


def complete_combatants(ctx: typer.Context, incomplete: str) -> list[str]:
    """Combatant names of the encounter given earlier on the command line."""
    encounter: Any = ctx.params.get("name")
    path = _ledger_path(ctx)
    if not isinstance(encounter, str) or path is None:
        return []
    try:
        with api.Ledger(path, create=False) as ledger:
            names = list(ledger.tracks(encounter).combatants)
    except Exception:  # completion never prints a traceback into the shell
        return []
    return [n for n in names if n.startswith(incomplete)]


# An example or two for every command's `--help` (shown under the options): these, which show
# no system, then each system's own (`System.examples`: its verbs, and its files).

EXAMPLES: Final[dict[str, tuple[str, ...]]] = {
    "propose": (
        "encounter propose duel hit.resolved target=Ogre harm=2 --as ana",
        "encounter hit duel Ogre 2 --propose --as ana",
    ),
    "accept": (
        "encounter accept duel 14 --as gm",
        "encounter accept duel 14 harm=1 --as gm",
    ),
    "reject": ('encounter reject duel 14 --reason "the Ogre ducked" --as gm',),
    "gm": ("encounter gm add duel ben --as gm",),
    "gm add": ("encounter gm add duel ben --as gm", 'encounter gm add duel ben --reason "co-GM"'),
    "policy": (
        "encounter policy duel",
        "encounter policy duel --set hide-resilience.json --as gm",
    ),
    "watch": ("encounter watch duel", "encounter watch duel --last 20"),
    "serve": (
        "encounter serve duel",
        "encounter serve duel --host 0.0.0.0 --port 8765",
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
    "rewind": (
        'encounter rewind ford --round 2 --reason "the bridge held after all"',
        'encounter rewind ford --round 1 --reason "what if?" --dry-run',
    ),
    "import": (
        "encounter import ford.jsonl",
        "encounter import ford.jsonl --into ford-copy --new-ids",
        "encounter import --from iron-vault Journals --into saga --character Kira",
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
    "end-scene": ("encounter end-scene ford", "encounter end-scene ford --round 4"),
    "leave": (
        'encounter leave ford "Bandit Thug" --note "knocked cold into the river"',
        "encounter leave ford Cutpurse --manner fled",
    ),
    "note": ('encounter note ford "the bridge is out"',),
    "examples": ("encounter examples", "encounter examples copy ./ledger-examples"),
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
    "stats": ("encounter stats ford", "encounter stats ford --json"),
    "recap": ("encounter recap ford", "encounter recap ford --format discord"),
    "verify": (
        "encounter verify",
        "encounter verify ford --head 3f2a9c41d07be5a1",
        "encounter verify ford.jsonl --json",
    ),
    "repair": ('encounter repair ford --accept-loss --reason "restored from last week\'s backup"',),
    "erase": (
        "encounter erase ford --confirm ford",
        "encounter --tenant guild:1234 erase --tenant-all --confirm guild:1234",
    ),
    "migrate": ("encounter migrate --db postgresql://encounter_owner@localhost/encounters",),
    "schema": ("encounter schema",),
    "dice": ("encounter dice commit ford", "encounter dice reveal ford"),
    "dice commit": ("encounter dice commit ford", "encounter roll ford s1 --pool 3 --roll"),
    "dice reveal": ("encounter dice reveal ford", "encounter verify ford"),
    "views": ("encounter views", "encounter views --drop"),
}


def all_examples() -> dict[str, tuple[str, ...]]:
    """Every command's examples: the generic ones, then each system's in listing order."""
    found = {name: list(lines) for name, lines in EXAMPLES.items()}
    for system in systems.every():
        for name, lines in system.examples.items():
            found.setdefault(name, []).extend(lines)
    return {name: tuple(lines) for name, lines in found.items()}
