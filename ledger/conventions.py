"""The command line's conventions, applied to every command in one place: global options after
the subcommand, help that shows flags as flags and repeated options as `SEQ...`, an example or
two under every command's help, JSON errors under `--json`, and shell completion of the names
in the ledger file.

`ledger.shell` calls `hoist` and `tidy` from the app's `main`; the examples are in
`ledger.helptext`.
"""

# No `from __future__ import annotations`: typer reads the completion functions' annotations
# (which parameter is the context) at run time.
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, get_args

import typer
import typer.core

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
    """Put each command's examples under its help (the epilog)."""
    for name, command in group.commands.items():
        lines = list(texts.get(name, ()))
        if lines and not command.epilog:
            # Escaped by hand for typer's rich help: importing rich costs every command.
            shown = "\n".join("  " + line.replace("[", "\\[") for line in lines)
            command.epilog = f"Examples:\n\n{shown}"


# Shell completion: the names in the ledger file the command line names (or the default).


def _ledger_path(ctx: typer.Context) -> str | None:
    """The ledger the command line names: a file that exists, or a PostgreSQL URL."""
    from ledger.stores import is_postgres

    root = ctx.find_root()
    db = str(root.params.get("db") or os.environ.get("ENCOUNTER_DB") or "encounters.db")
    return db if is_postgres(db) or Path(db).exists() else None


def complete_encounters(ctx: typer.Context, incomplete: str) -> list[str]:
    """Encounter names in the ledger that start with what was typed."""
    path = _ledger_path(ctx)
    if path is None:
        return []
    from ledger import service

    try:
        with service.Ledger(path, create=False) as ledger:
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
    from ledger import service

    try:
        with service.Ledger(path, create=False) as ledger:
            names = list(ledger.tracks(encounter).combatants)
    except Exception:  # completion never prints a traceback into the shell
        return []
    return [n for n in names if n.startswith(incomplete)]
