"""The command line's conventions: --version, help with examples and no type placeholders,
--db after the command, JSON errors with stable codes, typo hints, option names, completion."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

import ledger
from ledger import cli, errors
from tests import paths

ROOT = paths.ROOT
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def ford(db: Path) -> Path:
    for args in (
        ["new", "ford", "--system", "ssss"],
        ["add", "ford", "Bandit", "--side", "adversary", "--stat", "level=2"],
        ["add", "ford", "Ash", "--side", "player"],
    ):
        assert run("--db", str(db), *args)[0] == 0
    return db


def test_version_comes_from_the_package_metadata() -> None:
    assert ledger.__version__ == "0.2.0"
    assert run("--version") == (0, "encounter 0.2.0\n", "")


def commands() -> list[str]:
    group = typer.main.get_command(cli.app)
    return sorted(group.list_commands(typer.Context(group)))  # type: ignore[attr-defined]


def subcommands() -> list[str]:
    """`GROUP COMMAND` of each command of a group (`gm add`, `dice commit`...)."""
    group = typer.main.get_command(cli.app)
    context = typer.Context(group)
    found = []
    for name in commands():
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        if isinstance(command, typer.core.TyperGroup):
            found += [f"{name} {inner}" for inner in command.list_commands(context)]
    return found


@pytest.mark.parametrize("command", commands() + subcommands())
def test_every_command_has_help_with_examples_and_no_type_placeholders(command: str) -> None:
    code, out, _ = run(*command.split(), "--help")
    assert code == 0
    # Its own examples: `gm add` once showed those of the top-level `add`.
    assert "Examples:" in out and f"encounter {command} " in out.split("Examples:")[1]
    assert not re.search(r"<(bool|str|int|list\[\w+\]|path)>", out), out
    # A number with a range is not called text (`--poll TEXT [0.05<=x<=5]` once).
    assert not re.search(r"TEXT +\[[-\d.]+<=x", out), out


def test_the_main_help_names_the_global_options_and_completion() -> None:
    out = run("--help")[1]
    for option in ("--db", "--plain", "--version", "--install-completion", "--show-completion"):
        assert option in out


def test_db_may_follow_the_command(
    ford: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    code, out, _ = run("tracks", "ford", "--db", str(ford), "--json")
    assert code == 0 and json.loads(out)["seq"] == 3
    assert run("list", f"--db={ford}", "--json")[0] == 0
    assert not (tmp_path / "elsewhere" / "encounters.db").exists()


def error_document(*args: str) -> tuple[int, dict[str, object]]:
    code, out, err = run(*args)
    assert out == ""
    [line] = err.splitlines()
    return code, json.loads(line)["error"]


def test_under_json_an_unknown_combatant_is_a_json_error_with_its_code(ford: Path) -> None:
    code, error = error_document(
        "--db", str(ford), "record", "ford", "harm.inflicted", "target=Bandt", "level=1", "--json"
    )
    assert code == 2
    assert error == {
        "code": "unknown-combatant",
        "message": "target 'Bandt' is not in encounter 'ford' (did you mean 'Bandit'?) "
        "(known: Bandit, Ash)",
        "exit_code": 2,
    }


def test_under_json_a_second_opening_is_encounter_exists(ford: Path) -> None:
    code, error = error_document("--db", str(ford), "new", "ford", "--system", "ssss", "--json")
    assert (code, error["code"], error["exit_code"]) == (2, "encounter-exists", 2)


def test_under_json_a_stale_expect_names_the_expected_and_actual_head(ford: Path) -> None:
    code, error = error_document(
        "--db", str(ford), "record", "ford", "note", "text=hi", "--expect", "2", "--json"
    )
    assert code == 3
    assert (error["code"], error["expected"], error["actual"], error["exit_code"]) == (
        "stale-expect",
        2,
        3,
        3,
    )


def test_under_json_a_usage_mistake_is_a_json_error_too() -> None:
    code, error = error_document("tracks", "--bogus", "--json")
    assert (code, error["code"]) == (2, "usage")


def test_without_json_an_error_stays_one_line(ford: Path) -> None:
    assert run("--db", str(ford), "tracks", "frod") == (
        2,
        "",
        f"Error: encounter 'frod' is not in {ford} (did you mean 'ford'?) (known: ford)\n",
    )


def test_every_error_code_is_documented_in_the_cli_reference() -> None:
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for code in errors.CODES:
        assert f"`{code}`" in reference, code


def test_library_errors_carry_a_code_and_conflicts_their_heads(ford: Path) -> None:
    with ledger.Ledger(ford) as book:
        with pytest.raises(ledger.Conflict) as stale:
            book.record("ford", {"type": "note", "text": "late"}, expect=1)
        with pytest.raises(ledger.UnknownName) as unknown:
            book.tracks("nowhere")
    assert (stale.value.code, stale.value.expected, stale.value.actual) == ("stale-expect", 1, 3)
    assert unknown.value.code == "unknown-encounter"
    assert ledger.BadInput("x").code == "bad-input"


def test_a_typo_in_a_stat_names_the_stat_it_meant(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    run("--db", db, "new", "duel", "--system", "fates-edge")
    code, _, err = run(
        "--db", db, "add", "duel", "Blade", "--side", "adversary",
        "--stat", "resilence=3", "--stat", "fatigue_capacity=2",
    )  # fmt: skip
    assert (code, err) == (
        2,
        "Error: stats of 'Blade' has unknown stat 'resilence' (did you mean 'resilience'?)\n",
    )


@pytest.mark.parametrize(
    ("system", "side", "valid"),
    [
        ("fates-edge", "player", "; a fates-edge player's stats: armor (none|light|medium|heavy;"),
        ("ironsworn", "adversary", "; an ironsworn adversary's stats: rank (troublesome|"),
        ("ssss", "adversary", " (and 1 more problem); an ssss adversary's stats: level (integer"),
    ],
)
def test_a_stat_the_system_does_not_know_lists_the_stats_it_has_with_kinds_and_defaults(
    tmp_path: Path, system: str, side: str, valid: str
) -> None:
    db = str(tmp_path / "e.db")
    run("--db", db, "new", "duel", "--system", system)
    code, out, err = run("--db", db, "add", "duel", "Blade", "--side", side, "--stat", "tier=3")
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: stats of 'Blade' has unknown stat 'tier'{valid}")
    assert run("--db", db, "log", "duel", "--json")[1].count("\n") == 1


def test_the_clearer_option_names_and_the_old_spellings_both_work(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    block = tmp_path / "kira.json"
    block.write_text('{"iron": 3}')
    assert run("--db", db, "new", "ford", "--system", "ironsworn")[0] == 0
    kira = ["add", "ford", "Kira", "--side", "player", "--stat-file", str(block)]
    assert run("--db", db, *kira)[0] == 0
    assert run("--db", db, "add", "ford", "Ayo", "--side", "player", "--from", str(block))[0] == 0
    for spelling in ("--using", "--stat"):
        args = ["action-roll", "ford", "Kira", spelling, "iron", "--die", "4", "--challenge", "2,3"]
        assert run("--db", db, *args)[0] == 0
    assert (
        run("--db", db, "replay", "ford", "--from-seq", "4", "--to-seq", "4", "--json")[1]
        == (run("--db", db, "replay", "ford", "--from", "4", "--to", "4", "--json")[1])
    )
    code, _, err = run("--db", db, "action-roll", "ford", "Kira", "--die", "4")
    assert (code, err) == (2, "Error: action-roll needs --using STAT (edge, heart, iron, ...)\n")
    assert "--stat " not in run("action-roll", "--help")[1]


def test_lock_origin_and_damage_weapon_keep_source_as_a_hidden_alias(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    run("--db", db, "new", "duel", "--system", "l5r")
    rings = [f"--stat=rings.{ring}=2" for ring in ("air", "earth", "fire", "water", "void")]
    assert run("--db", db, "add", "duel", "Akodo", "--side", "player", *rings)[0] == 0
    for spelling in ("--weapon", "--source"):
        code, out, _ = run("--db", db, "damage", "duel", "Akodo", "1", spelling, "katana", "--json")
        assert code == 0 and json.loads(out)["records"][0]["source"] == "katana"
    assert "--weapon" in run("damage", "--help")[1] and "--source" not in run("damage", "--help")[1]
    assert "--origin" in run("lock", "--help")[1] and "--source" not in run("lock", "--help")[1]


def complete(words: str, db: Path) -> list[str]:
    """What the shell's completion offers for the last word of `words`."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "_ENCOUNTER_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
        "ENCOUNTER_DB": str(db),
    }
    script = "import sys; sys.argv[0] = 'encounter'; from ledger.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_completion_offers_encounters_combatants_and_systems(ford: Path) -> None:
    assert complete("encounter tracks f", ford) == ["ford"]
    assert complete("encounter harm ford B", ford) == ["Bandit"]
    assert complete("encounter history ford ", ford) == ["Bandit", "Ash"]
    assert complete("encounter new x --system f", ford) == ["fates-edge"]


def test_verify_json_is_one_document_and_exits_1_when_broken(ford: Path, tmp_path: Path) -> None:
    code, out, _ = run("--db", str(ford), "verify", "--json")
    document = json.loads(out)
    assert (code, document["ok"], document["problems"]) == (0, True, [])
    [one] = document["encounters"]
    assert (one["encounter"], one["events"], one["ok"], one["bad_seq"]) == ("ford", 3, True, None)
    export = tmp_path / "ford.jsonl"
    export.write_text(run("--db", str(ford), "export", "ford")[1].replace('"Ash"', '"Ashe"'))
    code, out, _ = run("verify", str(export), "--json")
    document = json.loads(out)
    assert (code, document["ok"], document["encounters"][0]["bad_seq"]) == (1, False, 3)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["record", "ford", "harm.inflictd", "target=Bandit"], "unknown-type"),
        (
            ["record", "ford", "harm.inflicted", "target=Bandit", "level=1", "lvl=2"],
            "unknown-field",
        ),
        (["record", "ford", "harm.inflicted", "target=Bandit", "level=-1"], "bad-input"),
        (["undo", "ford", "99", "--reason", "x"], "unknown-seq"),
        (["tracks", "nowhere"], "unknown-encounter"),
        (["history", "ford", "Bandit", "--track", "slot"], "unknown-track"),
    ],
)
def test_each_kind_of_mistake_has_its_own_code(ford: Path, args: list[str], code: str) -> None:
    exit_code, error = error_document("--db", str(ford), *args, "--json")
    assert (exit_code, error["code"]) == (2, code), error


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["record", "ford", "track.adjusted", "target=Bandit", "track=slot", "value=1",
          "reason=x"], "unknown-track"),
        (["record", "ford", "tracks.noted", "target=Bandit", 'values={"slot": 1}'],
         "unknown-track"),
        (["harm", "ford", "Bandit", "1", "--throw", "99"], "unknown-seq"),
        (["undo", "ford", "0", "--reason", "x"], "unknown-seq"),
        (["undo", "ford", str(2**53), "--reason", "x"], "unknown-seq"),
        (["redo", "ford", "99"], "unknown-seq"),
        (["amend", "ford", "99", "level=1", "--reason", "x"], "unknown-seq"),
        (["new", "x", "--system", "gurps"], "unknown-system"),
        (["rules", "gurps"], "unknown-system"),
        (["new", "x", "--system", "ssss", "--rules", "/no/such/house.json"], "no-file"),
        (["add", "ford", "Cole", "--side", "player", "--stat-file", "/no/such.json"], "no-file"),
    ],
)  # fmt: skip
def test_the_same_mistake_has_the_same_code_on_every_command(
    ford: Path, args: list[str], code: str
) -> None:
    exit_code, error = error_document("--db", str(ford), *args, "--json")
    assert (exit_code, error["code"]) == (2, code), error


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ({"type": "harm.inflictd", "target": "Bandit"}, "unknown-type"),
        ({"type": "harm.inflicted", "target": "Bandit", "level": 1, "lvl": 2}, "unknown-field"),
        ({"type": "momentum.burned", "target": "Bandit", "roll": 2}, "wrong-system"),
        ({"type": "harm.inflicted", "target": "Nobody", "level": 1}, "unknown-combatant"),
        ({"type": "event.retracted", "target": 99, "reason": "x"}, "unknown-seq"),
    ],
)
def test_an_import_line_keeps_the_code_of_its_mistake(
    tmp_path: Path, line: dict[str, object], code: str
) -> None:
    lines = [
        {"type": "encounter.opened", "system": "ssss"},
        {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 2}},
        line,
    ]
    file = tmp_path / "session.jsonl"
    file.write_text("".join(json.dumps(item) + "\n" for item in lines))
    for args in (["import", str(file)], ["tracks", str(file)]):
        exit_code, error = error_document("--db", str(tmp_path / "e.db"), *args, "--json")
        assert (exit_code, error["code"]) == (2, code), error
        assert f"{file} line 3: " in str(error["message"])


def test_an_import_of_an_unknown_rule_or_system_keeps_its_code(tmp_path: Path) -> None:
    for opened, code in (
        ({"type": "encounter.opened", "system": "gurps"}, "unknown-system"),
        ({"type": "encounter.opened", "system": "ssss", "rules": {"nope": 1}}, "unknown-rule"),
    ):
        file = tmp_path / "opened.jsonl"
        file.write_text(json.dumps(opened) + "\n")
        exit_code, error = error_document(
            "--db", str(tmp_path / "e.db"), "import", str(file), "--json"
        )
        assert (exit_code, error["code"]) == (2, code), error


def test_a_copy_into_an_encounter_that_exists_is_told_as_such(ford: Path, tmp_path: Path) -> None:
    file = tmp_path / "ford.jsonl"
    assert run("--db", str(ford), "export", "ford", "--out", str(file))[0] == 0
    exit_code, error = error_document(
        "--db", str(ford), "import", str(file), "--into", "ford", "--new-ids", "--json"
    )
    assert (exit_code, error["code"]) == (2, "encounter-exists"), error


def test_an_unknown_house_rule_and_an_unknown_system_have_their_codes(tmp_path: Path) -> None:
    rules = tmp_path / "house.json"
    rules.write_text('{"penalty_stack": "highest_only"}')
    db = str(tmp_path / "e.db")
    assert (
        error_document("--db", db, "new", "x", "--system", "ssss", "--rules", str(rules), "--json")[
            1
        ]["code"]
        == "unknown-rule"
    )
    with pytest.raises(ledger.BadInput) as unknown, ledger.Ledger(tmp_path / "l.db") as book:
        book.open("x", "gurps")
    assert unknown.value.code == "unknown-system"


def test_the_command_list_shows_each_summary_as_one_sentence_not_its_line_breaks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run("--help")
    assert code == 0
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith("│ ")}
    assert "is recomputed, and what that changed downstream is shown." in lines["undo"]
    assert "every event of the story as corrected that touched it" in lines["history"]


def test_every_command_is_a_module_level_function_not_a_closure() -> None:
    import ast

    nested = []
    for path in sorted((ROOT / "ledger").rglob("*.py")):
        for outer in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(outer):
                if inner is outer or not isinstance(inner, ast.FunctionDef):
                    continue
                for decorator in inner.decorator_list:
                    called = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if isinstance(called, ast.Attribute) and called.attr == "command":
                        nested.append(f"{path.relative_to(ROOT)}: {outer.name}.{inner.name}")
    assert nested == []


def test_each_module_of_the_command_line_defines_the_commands_said_to_be_its_own() -> None:
    for module in set(cli.COMMANDS.values()):
        made = importlib.import_module(f"ledger.cli.{module}").commands
        names = {
            info.name or info.callback.__name__.lower().replace("_", "-")
            for info in made.registered_commands
            if info.callback is not None
        }
        names |= {info.name for info in made.registered_groups if info.name}  # `dice`
        assert names == {name for name, home in cli.COMMANDS.items() if home == module}, module


def test_a_command_line_builds_the_command_it_names_only() -> None:
    group = typer.main.get_command(cli.app)
    assert isinstance(group, cli.OneLineErrors)
    group.get_command(typer.Context(group), "tracks")
    assert set(group.commands) == {"tracks"}
    group.get_command(typer.Context(group), "gm")  # a group of commands, whole
    assert set(group.commands) == {"tracks", "gm"}
    assert set(group.commands["gm"].commands) == {"add"}  # type: ignore[attr-defined]


def test_the_generic_commands_are_listed_in_the_order_of_a_session() -> None:
    group = typer.main.get_command(cli.app)
    listed = group.list_commands(typer.Context(group))  # type: ignore[attr-defined]
    names = [name for name in listed if name in cli.COMMANDS]
    assert listed[: len(names)] == names
    assert names == [
        "new", "add", "record", "round", "end-scene", "leave", "note", "undo", "redo", "amend",
        "rewind", "import", "copy", "propose", "accept", "reject", "gm", "policy",
        "log", "tracks", "replay", "history", "audit", "list", "export",
        "verify", "repair", "migrate", "erase", "report", "stats", "recap", "dice", "watch",
        "serve",
        "schema", "events", "rules", "examples", "views",
    ]  # fmt: skip


def test_the_commands_without_json_are_the_ones_the_tour_names() -> None:
    # The tour says every recording command and every read takes --json, and names the rest.
    group = typer.main.get_command(cli.app)
    context = typer.Context(group)
    without = set()
    for name in commands():
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        options = {o for p in getattr(command, "params", ()) for o in getattr(p, "opts", ())}
        if "--json" not in options and not hasattr(command, "commands"):
            without.add(name)
    tour = (paths.ROOT / "docs" / "tour.md").read_text(encoding="utf-8")
    sentence = tour.split("Every recording command and every read takes `--json` (")[1]
    named = set(re.findall(r"`(\w[\w-]*)`", sentence.split(")")[0]))
    assert without == named


def test_every_recording_command_of_the_contract_takes_strict_and_expect(ford: Path) -> None:
    # DESIGN.md: every recording command takes --expect SEQ and --strict; a proposal, a
    # rejection and the dice's commitment and reveal add no audit error, so they are kept.
    db = ["--db", str(ford)]
    steps = [
        ["propose", "ford", "harm.inflicted", "target=Bandit", "level=1", "--expect", "3"],
        ["reject", "ford", "4", "--reason", "no", "--expect", "4"],
        ["dice", "commit", "ford", "--expect", "5"],
        ["dice", "reveal", "ford", "--expect", "6"],
    ]
    for seq, step in enumerate(steps, start=4):
        code, out, err = run(*db, *step, "--strict")
        assert (code, err) == (0, ""), step
        assert out.startswith(f"Recorded seq {seq}: "), out


@pytest.mark.parametrize("command", commands() + subcommands())
def test_every_command_that_takes_expect_takes_strict_too(command: str) -> None:
    """DESIGN section 7: every recording command takes `--expect` and `--strict` (a bot passes
    both to every write; `new`, `gm add` and `policy --set` once refused `--strict`)."""
    _, out, _ = run(*command.split(), "--help")
    if "--expect" in out:
        assert "--strict" in out, command


def test_new_gm_add_and_policy_set_record_under_strict(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"gms": ["gm", "ben"], "players_any": ["note"]}))
    assert run("--db", db, "--as", "gm", "new", "duel", "--system", "ssss", "--strict")[0] == 0
    assert run("--db", db, "--as", "gm", "gm", "add", "duel", "ben", "--strict")[0] == 0
    code, out, err = run(
        "--db", db, "--as", "gm", "policy", "duel", "--set", str(policy), "--strict", "--json"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["seq"] == 3
