"""`encounter import --from iron-vault` (#25): exact output, exit codes, and each event's note
and line in `log`, `replay`, `history`, the Markdown log and the HTML report; the manual's
"audit your Iron Vault journal" example runs as written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli
from tests import paths
from tests.cli import fences
from tests.cli.invoke import ok, run
from tests.library import test_iron_vault_forms as forms

runner = CliRunner()
JOURNALS = paths.FIXTURES / "iron-vault" / "Journals"
IMPORT = ["import", "--from", "iron-vault", str(JOURNALS), "--into", "saga", "--character", "Kira"]
KEPT = (
    "Kept as notes (not modelled): 1 comment, 1 add, 1 asset, 1 clock, 1 oracle, 1 oracle-group, "
    "1 progress, 1 track, 1 xp.\n"
)


def test_import_says_what_it_appended_and_what_it_kept_as_notes(db: Path) -> None:
    assert ok(db, *IMPORT) == (
        "Imported 63 events into 'saga' from 3 notes (0 already stored); head seq 63.\n" + KEPT
    )


def test_importing_the_same_journal_again_appends_nothing(db: Path) -> None:
    ok(db, *IMPORT)
    assert ok(db, *IMPORT) == (
        "Imported 0 events into 'saga' from 3 notes (63 already stored); head seq 63.\n" + KEPT
    )


def test_import_json_is_one_document(db: Path) -> None:
    document = json.loads(ok(db, *IMPORT, "--json"))
    assert document == {
        "encounter": "saga",
        "notes": 3,
        "appended": 63,
        "already_stored": 0,
        "head": 63,
        "kept_as_notes": {
            "add": 1,
            "progress": 1,
            "clock": 1,
            "-": 1,
            "oracle": 1,
            "xp": 1,
            "oracle-group": 1,
            "track": 1,
            "asset": 1,
        },
        "dry_run": False,
    }


def test_a_dry_run_tells_each_event_in_words_with_its_line_and_appends_nothing(
    db: Path,
) -> None:
    out = ok(db, *IMPORT, "--dry-run")
    lines = out.splitlines()
    assert lines[0] == "Would import 63 events into 'saga' from 3 notes (0 already stored):"
    assert "seq 8 (Session 1.md:20): Kira endures 2 harm: health 5 -> 3" in lines
    assert (
        "seq 36 (Session 2.md:22): the sheet shows Kira at health 3 (the ledger has health 1)"
        in lines
    )
    assert lines[-1] == "Nothing was appended (--dry-run)."
    assert ok(db, "list") == f"No encounters in {db}.\n"
    events = json.loads(ok(db, *IMPORT, "--dry-run", "--json"))["events"]
    assert events[7] == {
        "seq": 8,
        "type": "harm.suffered",
        "source": "Session 1.md:20",
        "text": "Kira endures 2 harm: health 5 -> 3",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["import", "--from", "iron-vault", str(JOURNALS), "--character", "Kira"],
            "import --from iron-vault needs --into NAME (the encounter to import into)",
        ),
        (
            ["import", "--from", "iron-vault", str(JOURNALS), "--into", "saga"],
            "Session 1.md:8: this mechanics block names no character (no actor node): give "
            "--character NAME",
        ),
        (
            ["import", str(JOURNALS / "Session 1.md"), "--sheet", "Kira.md"],
            "--character, --sheet and --dry-run are for --from iron-vault",
        ),
        (
            ["import", "a.jsonl", "b.jsonl"],
            "import reads one JSON Lines file, not 2",
        ),
        (
            [*IMPORT, "--new-ids"],
            "--new-ids, --unchained and --strict are for JSON Lines imports",
        ),
        (
            ["import", "--from", "iron-vault", "Nowhere", "--into", "saga"],
            "no such note or folder: Nowhere",
        ),
    ],
    ids=["no-into", "no-character", "sheet-for-jsonl", "two-jsonl", "new-ids", "no-folder"],
)
def test_bad_input_is_one_line_and_exit_2(db: Path, args: list[str], message: str) -> None:
    code, out, err = run(db, *args)
    assert (code, out, err) == (2, "", f"Error: {message}\n")


def test_a_block_that_is_not_kdl_names_its_note_and_line(db: Path, tmp_path: Path) -> None:
    note = tmp_path / "Session 4.md"
    note.write_text('Text.\n\n```mechanics\nmove "x" {\n```\n', encoding="utf-8")
    code, out, err = run(db, "import", "--from", "iron-vault", str(note), "--into", "s")
    assert (code, out) == (2, "")
    assert re.fullmatch(
        r"Error: Session 4\.md:3: the mechanics block is not valid KDL \([^\n]+\)\n", err
    )
    code, _, err = run(db, "import", "--from", "iron-vault", str(note), "--into", "s", "--json")
    assert code == 2
    assert json.loads(err)["error"]["code"] == "bad-input"


def test_a_changed_journal_is_refused_with_exit_2(db: Path, tmp_path: Path) -> None:
    journal = tmp_path / "J"
    shutil.copytree(JOURNALS, journal)
    args = ["import", "--from", "iron-vault", str(journal), "--into", "saga", "--character", "Kira"]
    ok(db, *args)
    note = journal / "Session 2.md"
    note.write_text(note.read_text(encoding="utf-8").replace("from=3 to=2", "from=1 to=0"))
    code, out, err = run(db, *args)
    assert (code, out) == (2, "")
    assert err.startswith("Error: Session 2.md:22: the journal changed where it was imported: ")
    assert json.loads(ok(db, "list", "--json"))[0]["seq"] == 63


def test_log_shows_where_each_event_came_from(db: Path) -> None:
    ok(db, *IMPORT)
    lines = ok(db, "log", "saga").splitlines()
    assert lines[0] == "seq\trecorded_at\ttype\tsource\tdetails"
    assert lines[1].split("\t")[3] == "-"
    assert lines[8].split("\t")[2:] == [
        "harm.suffered",
        "Session 1.md:20",
        "target=Kira amount=2",
    ]


def test_replay_and_history_tell_each_step_with_its_note_and_line(db: Path) -> None:
    ok(db, *IMPORT)
    replay = ok(db, "replay", "saga", "--from", "8", "--to", "8")
    assert (
        replay
        == "seq 8 (Session 1.md:20): Kira endures 2 harm: health 5 -> 3\n  Kira health: 5 -> 3\n"
    )
    history = ok(db, "history", "saga", "Ash", "--track", "conditions")
    assert history == (
        "seq 63 (Session 10.md:40): Ash rolls 42 on the Endure Harm oracle: reeling\n"
        "  Ash conditions: - -> reeling\n"
    )


def test_the_markdown_log_and_the_html_report_show_each_event_s_note_and_line(
    db: Path, tmp_path: Path
) -> None:
    ok(db, *IMPORT)
    markdown = ok(db, "export", "saga", "--format", "md")
    assert "- seq 8 (Session 1.md:20): Kira endures 2 harm: health 5 -> 3\n" in markdown
    assert "Session 2.md:22 says 'Kira' health is 3 here; the ledger has 1 (seq 36)" in markdown
    page = tmp_path / "saga.html"
    assert run(db, "report", "saga", "--html", str(page))[0] == 0
    html = page.read_text(encoding="utf-8")
    assert '<span class="source">(Session 1.md:20)</span>' in html


def test_the_manual_s_iron_vault_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = fences.DOCS / "iron-vault.md"
    block = next(f for f in fences.fences(page) if f.text.startswith("encounter import --from"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ENCOUNTER_DB", raising=False)
    shutil.copytree(JOURNALS, tmp_path / "Journals")
    codes = [runner.invoke(cli.app, args) for args in fences.commands(block.text)]
    assert len(codes) == 3
    assert [r.exit_code for r in codes] == [0, 1, 0]
    assert "journal-disagrees" in codes[1].stdout
    assert "(Session 2.md:22)" in codes[2].stdout


NOTE = '```iron-vault-mechanics\nmeter "Health" from=5 to=4\n```\n'


def test_a_note_whose_file_name_is_not_utf8_imports_under_its_name_with_the_bytes_escaped(
    db: Path, tmp_path: Path
) -> None:
    # A file named on a Latin-1 system: Python reads the byte 0xFF as a lone surrogate.
    journal = tmp_path / "J"
    journal.mkdir()
    (journal / "Caf\udce9.md").write_text(NOTE, encoding="utf-8")
    (journal / "Caf\udcea.md").write_text(NOTE, encoding="utf-8")
    args = ["import", "--from", "iron-vault", str(journal), "--into", "s", "--character", "K"]
    assert ok(db, *args).startswith("Imported 6 events into 's' from 2 notes")
    sources = [line.split("\t")[3] for line in ok(db, "log", "s").splitlines()[1:]]
    assert sources == ["-", *["Caf\\xe9.md:2"] * 3, *["Caf\\xea.md:2"] * 2]
    assert ok(db, *args).startswith("Imported 0 events into 's' from 2 notes (6 already stored)")


def test_a_character_or_encounter_name_that_is_not_utf8_is_one_error_line(
    db: Path, tmp_path: Path
) -> None:
    note = tmp_path / "Session 1.md"
    note.write_text(NOTE, encoding="utf-8")
    code, out, err = run(
        db, "import", "--from", "iron-vault", str(note), "--into", "s", "--character", "K\udcff"
    )
    assert (code, out) == (2, "")
    assert err == (
        "Error: Session 1.md:2: combatant.joined event field 'name': the text holds a lone "
        "surrogate\n"
    )
    code, out, err = run(
        db, "import", "--from", "iron-vault", str(note), "--into", "s\udcff", "--character", "K"
    )
    assert (code, out) == (2, "")
    assert err == (
        "Error: encounter name 's\\udcff': input should be a valid string, unable to parse raw "
        "data as a unicode string\n"
    )


def test_a_sheet_whose_file_name_is_not_utf8_is_named_with_the_bytes_escaped(
    db: Path, tmp_path: Path
) -> None:
    note = tmp_path / "Session 1.md"
    note.write_text(NOTE, encoding="utf-8")
    sheet = tmp_path / "K\udcff.md"
    sheet.write_text("---\nhealth: 4\n---\n", encoding="utf-8")
    ok(db, "import", "--from", "iron-vault", str(note), "--into", "s", "--character", "K")
    args = ["--into", "t", "--character", "K", "--sheet", str(sheet)]
    ok(db, "import", "--from", "iron-vault", str(note), *args)
    assert "'K' joins at seq 2 with what K\\xff.md:1 gives (health 4)" in ok(db, "audit", "t")


def test_a_bad_value_in_a_character_sheet_is_blamed_on_the_sheet_and_appends_nothing(
    db: Path, tmp_path: Path
) -> None:
    note = tmp_path / "Session 1.md"
    note.write_text(NOTE, encoding="utf-8")
    sheet = tmp_path / "K.md"
    sheet.write_text("---\nhealth: lots\n---\n", encoding="utf-8")
    code, out, err = run(
        db, "import", "--from", "iron-vault", str(note), "--into", "s", "--character", "K",
        "--sheet", str(sheet),
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.startswith("Error: K.md:1: stats of 'K' field 'health': input should be a valid ")
    assert json.loads(ok(db, "list", "--json")) == []


def test_a_journal_kept_inline_and_in_callouts_imports_through_the_command(
    db: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "Journals"
    folder.mkdir()
    (folder / "S.md").write_text(
        "# S\n\n> [!danger] The wight\n> `iv-meter:Health|5|3` `iv-move:Endure Harm|iron|5|3|0|2|6"
        "|move:classic/suffer/endure_harm` `iv-ooc:brb`\n\n"
        '```iron-vault-mechanics\nMove "Face Danger"\n```\n',
        encoding="utf-8",
    )
    args = ["import", "--from", "iron-vault", str(folder), "--into", "saga", "--character", "Kira"]
    lines = ok(db, *args, "--dry-run").splitlines()
    assert lines[4:9] == [
        "seq 3 (S.md:4): the sheet shows Kira at health 5 (the ledger agrees)",
        "seq 4 (S.md:4): Kira endures 2 harm: health 5 -> 3",
        "  Kira health: 5 -> 3",
        "seq 5 (S.md:4): Kira rolls Endure Harm +iron: d6 5 + iron 3 = score 8 vs 2, 6: strong hit",
        "seq 6 (S.md:4): note: iv-ooc:brb",
    ]
    assert ok(db, *args) == (
        "Imported 7 events into 'saga' from 1 note (0 already stored); head seq 7.\n"
        "Kept as notes (not modelled): 1 iv-ooc, 1 move.\n"
    )
    assert ok(db, *args).startswith("Imported 0 events into 'saga' from 1 note (7 already stored)")
    assert ok(db, "audit", "saga").splitlines()[-1] == "0 errors, 0 warnings, 2 notes."


def test_every_form_iron_vault_writes_imports_and_reads_back_through_the_commands(
    db: Path, tmp_path: Path
) -> None:
    """The Iron Vault projects' forms (tests/library/test_iron_vault_forms.py), one note each,
    import through the command; `tracks`, `audit`, `log` and `replay` read them back, each
    event with its note and line, and a second import appends nothing."""
    folder = tmp_path / "Journals"
    folder.mkdir()
    for number, (_, _, note, _, _) in enumerate(forms.FORMS, start=1):
        (folder / f"Session {number}.md").write_bytes(note.encode("utf-8"))
    args = ["import", "--from", "iron-vault", str(folder), "--into", "forms"]
    first = ok(db, *args, "--character", "Kira")
    assert f"into 'forms' from {len(forms.FORMS)} notes (0 already stored)" in first
    again = ok(db, *args, "--character", "Kira")
    assert again.startswith("Imported 0 events")
    assert "Kira\tactive\t" in ok(db, "tracks", "forms")
    code, out, err = run(db, "audit", "forms")
    assert code in (0, 1) and not err and "Traceback" not in out
    log = ok(db, "log", "forms")
    assert f"Session {len(forms.FORMS)}.md:" in log
    assert "(Session 1.md:" in ok(db, "replay", "forms")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        # sgreg/iron-vault-mdparser tests/test_mechanics_blockproc.py: bare words are no KDL 1
        ("unknown content", "the mechanics block is not valid KDL"),
        # ... tests/test_node_parsers.py: an impact neither marked nor unmarked
        ('impact "Wounded" "unknown"', "is marked (true) or unmarked (false)"),
        # ... tests/test_node_parsers.py: a reroll to no number, a meter without its to=
        ('move "Face Danger" {\n  roll "wits" 2 2 0 7 7\n  reroll action="text"\n}', "reroll"),
        ('meter "Momentum" from=5', "needs from= and to="),
    ],
)
def test_a_form_iron_vault_s_parsers_refuse_is_one_line_and_exit_2(
    db: Path, tmp_path: Path, block: str, message: str
) -> None:
    note = tmp_path / "Session 1.md"
    note.write_text(f"```iron-vault-mechanics\n{block}\n```\n", encoding="utf-8")
    code, out, err = run(
        db, "import", "--from", "iron-vault", str(note), "--into", "s", "--character", "Kira"
    )
    assert (code, out) == (2, "")
    assert message in err and err.startswith("Error: Session 1.md:") and err.count("\n") == 1
    assert run(db, "log", "s")[0] != 0  # nothing was appended: no encounter
