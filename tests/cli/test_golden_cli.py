"""Every command's `--help`, and what every command prints (text and `--json`) on the shipped
examples, byte for byte against golden files: a change of the code's shape changes none of it.

Ids, hashes and times are replaced by placeholders before the comparison (they are random or
the clock's); everything else is compared exactly. `pytest --update-golden` rewrites the files
for review in git.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from ledger import cli
from tests import paths

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = paths.EXAMPLES
runner = CliRunner()

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_HASH = re.compile(r"\b[0-9a-f]{64}\b")
_SHORT = re.compile(r"\b(?:[0-9a-f]{16}|[0-9a-f]{12})\b")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|\+00:00)")


def normalised(text: str, tmp: Path) -> str:
    """`text` with the temporary folder, ids, hashes and times as placeholders."""
    text = text.replace(str(tmp), "<tmp>")
    text = _UUID.sub("<id>", text)
    text = _HASH.sub("<hash>", text)
    text = _SHORT.sub("<digest>", text)
    return _TIME.sub("<time>", text)


def invoke(args: list[str]) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, args, env={"COLUMNS": "100", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def check(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: run pytest --update-golden"
    assert text == path.read_text(encoding="utf-8"), name


def _commands() -> list[str]:
    code, out, _ = invoke(["--help"])
    assert code == 0
    found = re.findall(r"^│ ([a-z][a-z-]+) ", out, flags=re.M)
    return sorted(set(found))


COMMANDS = _commands()


@pytest.mark.parametrize("command", ["", *COMMANDS, "dice commit", "dice reveal"])
def test_every_command_s_help_is_unchanged(command: str, update_golden: bool) -> None:
    code, out, err = invoke([*command.split(), "--help"])
    assert (code, err) == (0, "")
    check(f"help/{command.replace(' ', '-') or 'encounter'}.txt", out, update_golden)


#: Per example: a combatant for `history`, a seq to leave out, an amend that fits it, a verb.
CASES = {
    "fates-edge-ambush": ("Marsh Hag", "18", ["31", "harm=4"], ["fatigue", "X", "Ash", "1"]),
    "silken-blade": ("Silken Blade", "9", ["14", "harm=3"], ["hit", "X", "Silken Blade", "1"]),
    "ironsworn-ambush": ("Kira", "11", ["6", "amount=1"], ["endure-harm", "X", "Kira", "1"]),
    "ssss-bandits": ("Bandit Thug", "9", ["16", "level=2"], ["harm", "X", "Bandit Chief", "1"]),
    "l5r-duel": ("Bayushi Kaeru", "6", ["8", "amount=3"], ["damage", "X", "Bayushi Kaeru", "2"]),
}


@pytest.fixture(params=sorted(CASES))
def example(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    name = request.param
    db = tmp_path / "e.db"
    with freeze_time("2026-11-29 20:00:00"):
        code, _, err = invoke(["--db", str(db), "import", str(EXAMPLES / f"{name}.jsonl")])
    assert (code, err) == (0, "")
    yield name, db


def _reads(name: str) -> list[list[str]]:
    who, seq, _, _ = CASES[name]
    return [
        ["log", name],
        ["log", name, "--json"],
        ["tracks", name],
        ["tracks", name, "--json"],
        ["tracks", name, "--at", "7", "--json"],
        ["tracks", name, "--at", "7", "--corrected", "--json"],
        ["tracks", name, "--round", "2", "--json"],
        ["tracks", name, "--without", seq, "--json"],
        ["tracks", name, "--without", seq],
        ["replay", name],
        ["replay", name, "--json"],
        ["replay", name, "--as-played", "--json"],
        ["replay", name, "--as-played"],
        ["replay", name, "--without", seq, "--json"],
        ["replay", name, "--from", "5", "--to", "12"],
        ["replay", name, "--round", "2"],
        ["history", name, who],
        ["history", name, who, "--json"],
        ["audit", name],
        ["audit", name, "--json"],
        ["list"],
        ["list", "--json"],
        ["export", name],
        ["export", name, "--format", "md"],
        ["verify", name],
        ["verify", name, "--json"],
        ["verify", "--json"],
        ["stats", name],
        ["stats", name, "--json"],
        ["recap", name],
        ["recap", name, "--format", "discord"],
    ]


def test_every_read_prints_what_it_printed(example: tuple[str, Path], update_golden: bool) -> None:
    name, db = example
    tmp = db.parent
    for args in _reads(name):
        code, out, err = invoke(["--db", str(db), *args])
        text = f"$ {' '.join(args)}\nexit {code}\n{out}" + (f"--- stderr\n{err}" if err else "")
        words = ["N" if a == name else a.strip("-").replace(" ", "-") for a in args]
        check(f"reads/{name}/{'_'.join(words)}.txt", normalised(text, tmp), update_golden)


def test_the_html_report_is_what_it_was(example: tuple[str, Path], update_golden: bool) -> None:
    name, db = example
    out = db.parent / "r.html"
    code, _, err = invoke(["--db", str(db), "report", name, "--html", str(out)])
    assert code == 0, err
    check(
        f"reports/{name}.html",
        normalised(out.read_text(encoding="utf-8"), db.parent),
        update_golden,
    )


def _writes(name: str) -> list[list[str]]:
    _, seq, amend, verb = CASES[name]
    verb = [v if v != "X" else name for v in verb]
    return [
        ["undo", name, "--reason", "a test", "--dry-run", "--json"],
        ["amend", name, *amend, "--reason", "a misread", "--dry-run", "--json"],
        ["amend", name, *amend, "--reason", "a misread", "--json"],
        ["undo", name, seq, "--reason", "never happened", "--json"],
        ["redo", name, "--json"],
        ["undo", name, "--reason", "the amend was wrong"],
        ["redo", name],
        ["round", name, "9", "--scene", "the end", "--json"],
        ["record", name, "note", "text=a note", "--json"],
        ["record", name, "note", "text=a note"],
        [*verb, "--json"],
        verb,
        ["record", name, "nosuch.event", "--json"],
        ["record", name, "note", "text=x", "--expect", "3", "--json"],
        ["add", name, "Nobody", "--side", "player", "--stat", "bogus=1", "--json"],
        ["history", name, "Nobody", "--json"],
        ["tracks", "nosuch", "--json"],
        ["undo", name, "999", "--reason", "x", "--json"],
    ]


def test_every_write_prints_what_it_printed(example: tuple[str, Path], update_golden: bool) -> None:
    name, db = example
    tmp = db.parent
    for n, args in enumerate(_writes(name)):
        with freeze_time("2026-11-29 21:00:00"):
            code, out, err = invoke(["--db", str(db), *args])
        text = f"$ {' '.join(args)}\nexit {code}\n{out}" + (f"--- stderr\n{err}" if err else "")
        check(f"writes/{name}/{n:02d}-{args[0]}.txt", normalised(text, tmp), update_golden)


def test_schema_and_rules_of_every_system_are_unchanged(update_golden: bool) -> None:
    for system in ("fates-edge", "ironsworn", "ssss", "l5r"):
        for args in (
            ["schema", "--system", system],
            ["rules", system, "--json"],
            ["rules", system],
        ):
            code, out, err = invoke(args)
            text = f"$ {' '.join(args)}\nexit {code}\n{out}" + (f"--- stderr\n{err}" if err else "")
            check(f"reference/{'-'.join(args).replace('--', '')}.txt", text, update_golden)
    code, out, _ = invoke(["schema"])
    check("reference/schema.txt", f"exit {code}\n{out}", update_golden)
