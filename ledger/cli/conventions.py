"""The command line's conventions, applied to every command in one place: global options after
the subcommand, help that shows flags as flags and repeated options as `SEQ...`, an example or
two under every command's help, JSON errors under `--json`, and shell completion of the names
in the ledger file.

`ledger.cli.errors.OneLineErrors` calls `hoist` and `tidy` from the app's `main`.
"""

# No `from __future__ import annotations`: typer reads the completion functions' annotations
# (which parameter is the context) at run time.
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, get_args

import typer
import typer.core

from ledger import api, systems
from ledger.store import is_postgres

#: Options of the app itself that may also be given after the subcommand, and whether each
#: takes a value.
GLOBAL_OPTIONS: Final = {"--db": True, "--plain": False}

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
            base = "|".join(str(getattr(c, "value", c)) for c in kind.choices)
        elif kind.is_path:
            base = "FILE"
        else:
            base = "N" if inner is int else "TEXT"
    return f"{base}..." if param.multiple else base


def examples(group: typer.core.TyperGroup, texts: Mapping[str, Iterable[str]]) -> None:
    """Put each command's examples under its help (the epilog); a group's own commands are
    found as `GROUP COMMAND`."""
    for name, command in group.commands.items():
        if isinstance(command, typer.core.TyperGroup):
            examples(command, {k.removeprefix(f"{name} "): v for k, v in texts.items()})
        lines = list(texts.get(name, ()))
        if lines and not command.epilog:
            # Escaped by hand for typer's rich help: importing rich costs every command.
            shown = "\n".join("  " + line.replace("[", "\\[") for line in lines)
            command.epilog = f"Examples:\n\n{shown}"


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
    "stats": ("encounter stats ford", "encounter stats ford --json"),
    "recap": ("encounter recap ford", "encounter recap ford --format discord"),
    "verify": (
        "encounter verify",
        "encounter verify ford.jsonl --json",
    ),
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
