"""The `tracks` fast path (`ledger.fastpath`): the stored head view printed byte for byte as
the full command prints it (--json, --plain, and the rich table on a terminal), and the full
command whenever the command line asks for more or the file does not vouch for the view."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import Ledger, cli, fastpath
from tests.longstreams import ROOT, cli_env, lines, skirmish
from tests.test_terminal import on_terminal

EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
NAMES = [p.stem for p in EXAMPLES]
runner = CliRunner()


def full(db: Path, *args: str) -> tuple[int, str, str]:
    """The full command's exit code, stdout and stderr (`ledger.cli`, never the fast path)."""
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def fast(capsys: pytest.CaptureFixture[str], *argv: str) -> str | None:
    """What the fast path prints for `encounter ARGV`, or None when it leaves it to the
    full command (then it must have printed nothing)."""
    capsys.readouterr()
    answered = fastpath.answer(list(argv), environ={})
    out, err = capsys.readouterr()
    assert err == ""
    if not answered:
        assert out == ""
        return None
    return out


def sql(db: Path, statement: str, *args: Any) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(statement, args)
    conn.close()


def ok(db: Path, *args: str) -> str:
    code, out, err = full(db, *args)
    assert (code, err) == (0, ""), out
    return out


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every example imported with `encounter import`, and `revised`: the Fate's Edge ambush
    changed by the commands that rewrite the rolls (undo, amend, redo) and a round in a scene."""
    db = tmp_path_factory.mktemp("fast") / "encounters.db"
    for example in EXAMPLES:
        ok(db, "import", str(example))
    ok(db, "import", str(ROOT / "examples" / "fates-edge-ambush.jsonl"), "--into", "revised",
       "--new-ids")  # fmt: skip
    ok(db, "undo", "revised", "42", "--reason", "a roll in the middle")
    ok(db, "undo", "revised", "--reason", "the last event")
    ok(db, "amend", "revised", "9", "dice=[10,10,1,1]", "--reason", "misread the first roll")
    ok(db, "redo", "revised")
    ok(db, "round", "revised", "3", "--scene", "the ford")
    return db


ENCOUNTERS = [*NAMES, "revised"]


@pytest.mark.parametrize("name", ENCOUNTERS)
@pytest.mark.parametrize("options", [[], ["--json"], ["--plain"]], ids=["pipe", "json", "plain"])
def test_the_fast_path_prints_what_the_full_command_prints(
    examples: Path, name: str, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    expected = ok(examples, "tracks", name, *options)
    assert fast(capsys, "--db", str(examples), "tracks", name, *options) == expected


def test_the_revised_encounter_shows_its_game_time_and_its_rewritten_rolls(
    examples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = fast(capsys, "tracks", "revised", "--db", str(examples))
    assert out is not None
    assert out.splitlines()[0] == "revised (fates-edge) at seq 53, round 3, scene the ford"
    document = json.loads(fast(capsys, "--db", str(examples), "tracks", "revised", "--json") or "")
    rolls = {roll["seq"]: roll for roll in document["rolls"]}
    assert 42 not in rolls and rolls[9]["successes"] == 4
    with Ledger(examples) as ledger:
        assert document == json.loads(json.dumps(ledger.refold("revised").view()))


@pytest.mark.slow
@pytest.mark.parametrize("width", [60, 160])
@pytest.mark.parametrize("name", ["l5r-duel", "revised"])
def test_on_a_terminal_the_fast_path_draws_the_full_commands_tables(
    examples: Path, name: str, width: int
) -> None:
    args = ["--db", str(examples), "tracks", name]
    normal = ["-c", "import sys; from ledger.cli import main; sys.argv[0] = 'encounter'; main()"]
    quick = on_terminal(args, width)
    # Drawn for people (tables, or a block a combatant where a table would cut a word).
    assert quick.startswith(f"{name} (") and "\t" not in quick
    assert "┏" in quick or "  status: " in quick
    assert quick == on_terminal(args, width, python=normal)


@pytest.mark.parametrize(
    "argv",
    [
        ["tracks", "l5r-duel", "--at", "3"],
        ["tracks", "l5r-duel", "--without", "5"],
        ["tracks", "l5r-duel", "--round", "1"],
        ["tracks", "l5r-duel", "--corrected"],
        ["tracks", "l5r-duel", "--help"],
        ["tracks", "l5r-duel", "extra"],
        ["tracks", "l5r-duel", "--json", "--json"],
        ["--json", "tracks", "l5r-duel"],
        ["tracks", "l5r-duel", "--db"],
        ["tracks", "--", "l5r-duel"],
        ["tracks"],
        ["log", "l5r-duel"],
        ["--version"],
        [],
        ["tracks", "nobody"],
        ["tracks", "l5r-duel.jsonl"],
        ["tracks", "examples/l5r-duel"],
    ],
)
def test_any_other_command_line_is_left_to_the_full_command(
    examples: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert fast(capsys, "--db", str(examples), *argv) is None


def test_a_second_db_option_or_another_ledger_is_left_to_the_full_command(
    examples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = ["tracks", "l5r-duel"]
    assert fast(capsys, "--db", str(examples), *one, "--db", str(examples)) is None
    assert fast(capsys, "--db", str(tmp_path / "missing.db"), *one) is None
    assert fast(capsys, "--db", "postgresql://localhost/ledger", *one) is None
    assert fast(capsys, "--db", str(tmp_path), *one) is None
    (tmp_path / "other.db").write_bytes(b"not a database at all")
    assert fast(capsys, "--db", str(tmp_path / "other.db"), *one) is None


def test_the_ledger_named_by_the_environment_is_read(
    examples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert fastpath.answer(["tracks", "l5r-duel", "--plain"], {"ENCOUNTER_DB": str(examples)})
    assert capsys.readouterr().out == ok(examples, "tracks", "l5r-duel")
    assert not fastpath.answer(["tracks", "l5r-duel"], {"ENCOUNTER_DB": ""})
    assert not fastpath.answer(["tracks", "l5r-duel"], {"_ENCOUNTER_COMPLETE": "bash_complete"})


@pytest.fixture
def big(db: Path) -> Path:
    """A 1,000-event skirmish `big` written by the ledger (snapshots at 256, 512, 768, 1000),
    and 20 notes after the import: the rows the full command folds after the newest snapshot."""
    with Ledger(db) as ledger:
        ledger.import_lines(lines(skirmish(1000)), into="big")
        for n in range(20):
            ledger.record("big", {"type": "note", "text": f"note {n} after the import"})
    return db


def both(db: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[str | None, str]]:
    """For --plain and --json: what the fast path prints (None: nothing) and the full command."""
    for option in ("--plain", "--json"):
        yield fast(capsys, "--db", str(db), "tracks", "big", option), full(db, "tracks", "big",
                                                                            option)[1]  # fmt: skip


def test_an_intact_file_is_answered_fast(big: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for quick, expected in both(big, capsys):
        assert quick == expected


@pytest.mark.parametrize(
    "damage",
    [
        # The view is of another head, or gone.
        "UPDATE cache_views SET seq = seq - 1 WHERE name = ''",
        "UPDATE cache_views SET hash = '0' WHERE name = ''",
        "DELETE FROM cache_views WHERE name = 'Sage'",
        "DROP TABLE cache_views",
        # The heads cache disagrees with the rows, or is gone.
        "UPDATE heads SET seq = 1019",
        "UPDATE heads SET hash = '0'",
        "DROP TABLE heads",
        # A view written before the game time and the rolls were kept.
        "UPDATE cache_views SET view = json_remove(view, '$.round', '$.rolls') WHERE name = ''",
        # A file of an earlier format (migrated by the next write).
        "PRAGMA user_version = 1",
    ],
)
def test_a_view_the_file_does_not_vouch_for_is_left_to_the_full_command(
    big: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(big, damage)
    for quick, _ in both(big, capsys):
        assert quick is None


@pytest.mark.parametrize(
    "column, value, seq",
    [
        ("body", '{"text":"edited after the fact"}', 1020),  # the last row
        ("recorded_at", "2000-01-01T00:00:00.000000Z", 1010),  # after the newest snapshot
        ("prev_hash", "0" * 64, 1015),
    ],
)
def test_a_damaged_row_the_full_command_would_fold_is_left_to_it(
    big: Path, column: str, value: str, seq: int, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(big, "DROP TRIGGER events_no_update")
    sql(big, f"UPDATE events SET {column} = ? WHERE seq = ?", value, seq)
    for quick, _ in both(big, capsys):
        assert quick is None
    code, _, err = full(big, "tracks", "big")
    assert code == 0 and "does not verify" in err


def test_a_row_removed_from_the_end_is_left_to_the_full_command(
    big: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(big, "DROP TRIGGER events_no_delete")
    sql(big, "DELETE FROM events WHERE seq = 1020")
    for quick, _ in both(big, capsys):
        assert quick is None


def test_without_its_rolls_the_view_still_answers_the_tables_but_not_json(
    big: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(big, "DELETE FROM cache_rolls WHERE n = 3")
    (plain, expected), (json_, _) = both(big, capsys)
    assert plain == expected and json_ is None
    sql(big, "DROP TABLE cache_rolls")
    (plain, expected), (json_, _) = both(big, capsys)
    assert plain == expected and json_ is None
    ok(big, "record", "big", "note", "text=the next write stores every roll again")
    for quick, expected in both(big, capsys):
        assert quick == expected


def test_a_lost_snapshot_cache_checks_the_whole_chain_up_to_a_limit(
    big: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql(big, "DROP TABLE cache_snapshots")
    for quick, expected in both(big, capsys):
        assert quick == expected
    monkeypatch.setattr(fastpath, "MAX_TAIL", 1000)
    for quick, _ in both(big, capsys):
        assert quick is None


def test_an_undo_behind_the_newest_snapshot_checks_the_rows_from_an_older_one(
    big: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok(big, "undo", "big", "900", "--reason", "misread")
    for quick, expected in both(big, capsys):
        assert quick == expected
    sql(big, "DROP TRIGGER events_no_update")
    # Seq 950 is folded by the full command (from the snapshot at 768): damage there counts.
    sql(big, "UPDATE events SET recorded_at = ? WHERE seq = 950", "2000-01-01T00:00:00.000000Z")
    for quick, _ in both(big, capsys):
        assert quick is None


def test_python_m_ledger_falls_back_to_the_full_command_with_its_error(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.import_lines(lines(skirmish(20)), into="duel")
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), "tracks", "nobody"],
        capture_output=True, text=True, env=cli_env(), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("Error: encounter 'nobody' is not in ")


#: The modules a `tracks` answered from the head view loaded, written to argv[1].
PROBE = """
import json, sys
out = sys.argv.pop(1)
from ledger import entry
try:
    entry.main()
finally:
    with open(out, "w", encoding="utf-8") as f:
        json.dump(sorted(sys.modules), f)
"""


def test_the_fast_path_loads_neither_typer_nor_pydantic_nor_rich_nor_the_folds(
    big: Path, tmp_path: Path
) -> None:
    out = tmp_path / "modules.json"
    for option in ("--json", "--plain"):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(out), "--db", str(big), "tracks", "big", option],
            capture_output=True, text=True, env=cli_env(), timeout=120, check=True,
        )  # fmt: skip
        assert done.stdout == full(big, "tracks", "big", option)[1]
        modules = set(json.loads(out.read_text(encoding="utf-8")))
        assert "ledger.fastpath" in modules
        heavy = {"typer", "click", "pydantic", "rich", "ledger.cli", "ledger.events"}
        assert modules.isdisjoint({*heavy, "projections.core", "sqlite_utils"})


def test_the_console_script_is_the_dispatcher() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'encounter = "ledger.entry:main"' in text
