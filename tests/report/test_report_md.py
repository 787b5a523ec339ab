"""`encounter export NAME --format md`: the Markdown session log, against golden files and as
the command prints it."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from freezegun import freeze_time

import ledger
from ledger import report
from ledger.report import markdown as report_md
from tests import paths
from tests.cli.invoke import run

HOSTILE = "<script>alert(1)</script>"
EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert code == 0, err
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_exports_to_its_golden_session_log(path: Path, update_golden: bool) -> None:
    code, out, err = run(path.parent / "unused.db", "export", str(path), "--format", "md")
    assert (code, err) == (0, "")
    expected = path.with_suffix(".md")
    if update_golden:
        expected.write_text(out, encoding="utf-8")
    assert expected.exists(), f"run pytest --update-golden to create {expected.name}"
    assert out == expected.read_text(encoding="utf-8"), (
        f"{expected.name} differs: when the words or the tracks changed on purpose, run "
        "pytest --update-golden and review the diff in git"
    )


def test_the_log_of_a_file_with_no_chain_says_it_has_no_head_to_publish() -> None:
    book, name = ledger.load(EXAMPLES[0])
    with book:
        text = report_md.session_log(report.build(book, name, published=False))
    assert text.endswith(
        "## Head digest\n\nThis file carries no hash chain, so it has no head to publish: "
        "import it into a ledger and export it again to get one.\n"
    )


@pytest.fixture
def ford(db: Path) -> Path:
    """A short ssss fight in two rounds, with a house rule, an undo and a hostile name."""
    rules = db.parent / "house.json"
    rules.write_text(json.dumps({"top_tier_exhaustion_defeats_on_any_harm": True}))
    hit = ["record", "ford", "harm.inflicted", f"target={HOSTILE}", "level=1"]
    with freeze_time("2026-11-29 20:00:00"):
        ok(
            db,
            "new",
            "ford",
            "--system",
            "ssss",
            "--title",
            "Bandits *at* the ford",
            "--rules",
            str(rules),
        )
        ok(db, "add", "ford", HOSTILE, "--side", "adversary", "--stat", "level=1")
        ok(db, "add", "ford", "Ash", "--side", "player")
        ok(db, "record", "ford", "round.started", "round=1")
        ok(db, *hit)
        ok(db, *hit)
        ok(db, "undo", "ford", "--reason", "that blow was on Ash | not the bandit")
        ok(db, "record", "ford", "round.started", "round=2")
        ok(db, *hit)
    return db


def test_the_log_of_a_ledger_encounter_reads_as_the_session(ford: Path) -> None:
    head = json.loads(ok(ford, "export", "ford").splitlines()[-1])["hash"]
    assert ok(ford, "export", "ford", "--format", "md") == (
        "# Bandits \\*at\\* the ford\n"
        "\n"
        "ssss encounter ford: 9 events, 1 ruling reversed or corrected, 0 findings.\n"
        "\n"
        "House rules that differ from the ssss defaults:\n"
        "\n"
        "- top\\_tier\\_exhaustion\\_defeats\\_on\\_any\\_harm: true (default: false)\n"
        "\n"
        "## Set-up\n"
        "\n"
        "- seq 1: encounter 'ford' opens: Bandits \\*at\\* the ford (ssss, 4 house rules pinned)\n"
        "- seq 2: \\<script>alert(1)\\</script> joins as an adversary: a level-1 enemy, slots T1 0/3\n"
        "- seq 3: Ash joins as a player\n"
        "\n"
        "Tracks after the set-up:\n"
        "\n"
        "| player | status |\n"
        "| ------ | ------ |\n"
        "| Ash    | active |\n"
        "\n"
        "| adversary                   | status | slots  | penalties |\n"
        "| --------------------------- | ------ | ------ | --------- |\n"
        "| \\<script>alert(1)\\</script> | active | T1:0/3 | 0         |\n"
        "\n"
        "## Round 1\n"
        "\n"
        "- seq 4: round 1 begins\n"
        "- seq 5: \\<script>alert(1)\\</script> takes level-1 harm in a level-1 slot (1/3 filled); penalties 0 -> 1\n"
        "\n"
        "Tracks after round 1:\n"
        "\n"
        "| player | status |\n"
        "| ------ | ------ |\n"
        "| Ash    | active |\n"
        "\n"
        "| adversary                   | status | slots  | penalties |\n"
        "| --------------------------- | ------ | ------ | --------- |\n"
        "| \\<script>alert(1)\\</script> | active | T1:1/3 | 1         |\n"
        "\n"
        "## Round 2\n"
        "\n"
        "- seq 8: round 2 begins\n"
        "- seq 9: \\<script>alert(1)\\</script> takes level-1 harm in a level-1 slot (2/3 filled)\n"
        "\n"
        "Tracks after round 2:\n"
        "\n"
        "| player | status |\n"
        "| ------ | ------ |\n"
        "| Ash    | active |\n"
        "\n"
        "| adversary                   | status | slots  | penalties |\n"
        "| --------------------------- | ------ | ------ | --------- |\n"
        "| \\<script>alert(1)\\</script> | active | T1:2/3 | 1         |\n"
        "\n"
        "## Statistics\n"
        "\n"
        "Damage:\n"
        "\n"
        "| combatant                   | side      | status | taken   | recovered | dealt |\n"
        "| --------------------------- | --------- | ------ | ------- | --------- | ----- |\n"
        "| \\<script>alert(1)\\</script> | adversary | active | slots 2 | -         | -     |\n"
        "| Ash                         | player    | active | -       | -         | -     |\n"
        "\n"
        "Damage by round:\n"
        "\n"
        "| round | combatant                   | taken   | dealt |\n"
        "| ----- | --------------------------- | ------- | ----- |\n"
        "| 1     | \\<script>alert(1)\\</script> | slots 1 | -     |\n"
        "| 2     | \\<script>alert(1)\\</script> | slots 1 | -     |\n"
        "\n"
        "- Out of the fight: nobody.\n"
        "- Rulings: 1 undo.\n"
        "- Findings: none.\n"
        "\n"
        "## Undone and corrected rulings\n"
        "\n"
        "- seq 7 undid seq 6: that blow was on Ash \\| not the bandit\n"
        "  - seq 6 as played: \\<script>alert(1)\\</script> takes level-1 harm in a level-1 slot (2/3 filled)\n"
        "\n"
        "## Audit findings\n"
        "\n"
        "No findings: the encounter keeps every rule the audit checks.\n"
        "\n"
        "## Head digest\n"
        "\n"
        f"Head at seq 9: `{head}`\n"
        "\n"
        f"Check a copy: `encounter verify FILE.jsonl --head {head}`\n"
    )


def test_export_md_out_writes_the_file_and_says_so_on_stderr(ford: Path, tmp_path: Path) -> None:
    out = tmp_path / "ford.md"
    code, stdout, err = run(ford, "export", "ford", "--format", "md", "--out", str(out))
    assert (code, stdout) == (0, "")
    assert err == f"Exported the session log of 'ford' to {out}.\n"
    assert out.read_text(encoding="utf-8") == ok(ford, "export", "ford", "--format", "md")
    # Written whole through a temporary file, but readable as a plain write would leave it.
    assert out.stat().st_mode & 0o777 == 0o666 & ~_umask()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_export_stays_json_lines_by_default(ford: Path) -> None:
    lines = ok(ford, "export", "ford").splitlines()
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, 10))
    assert ok(ford, "export", "ford", "--format", "jsonl").splitlines() == lines


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["export", "nowhere", "--format", "md"],
            "Error: encounter 'nowhere' is not in {db} (known: ford)",
        ),
        (
            ["export", "ford", "--format", "pdf"],
            "Error: Invalid value for '--format': 'pdf' is not one of 'jsonl', 'md'. (see --help)",
        ),
        (
            ["export", "ford", "--format", "md", "--out", "{tmp}"],
            "Error: cannot write {tmp}: it is a directory",
        ),
        (
            ["export", "ford", "--format", "md", "--out", "{db}"],
            "Error: the session log would overwrite {db}, which it is read from: choose another file",
        ),
        (["export", "missing.jsonl", "--format", "md"], "Error: no such file: missing.jsonl"),
    ],
)
def test_export_md_refuses_bad_input_in_one_line(
    ford: Path, tmp_path: Path, args: list[str], error: str
) -> None:
    before = ford.read_bytes()
    filled = [a.format(db=ford, tmp=tmp_path) for a in args]
    code, out, err = run(ford, *filled)
    assert (code, out) == (2, "")
    assert err == error.format(db=ford, tmp=tmp_path) + "\n"
    assert ford.read_bytes() == before


def test_escape_shows_control_characters_and_reordering_marks_as_escapes() -> None:
    assert report_md.escape("a\x1b]0;owned\x07b\u202ec") == "a\\\\x1b\\]0;owned\\\\x07b\\\\u202ec"


def test_escape_leaves_no_markdown_or_html_active() -> None:
    assert report_md.escape("<b>*x*</b> _y_ `z` [a](b) | ~~s~~ #tag\nnext") == (
        "\\<b>\\*x\\*\\</b> \\_y\\_ \\`z\\` \\[a\\](b) \\| \\~\\~s\\~\\~ \\#tag next"
    )


def test_the_log_of_a_tampered_ledger_publishes_no_head(ford: Path) -> None:
    with closing(sqlite3.connect(ford)) as con, con:
        for (trigger,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            con.execute(f"DROP TRIGGER {trigger}")
        con.execute(
            "UPDATE events SET body = replace(body, ?, ?) WHERE seq = 9",
            ('"level":1', '"level":2'),
        )
    text = ok(ford, "export", "ford", "--format", "md")
    assert "- **error** chain-broken (seq 9): the stored events do not verify at seq 9" in text
    assert text.endswith(
        "## Head digest\n\nThe stored chain does not verify (at seq 9: hash does not match the "
        "event's contents): the events were changed after they were written, so there is no "
        "head to publish.\n"
    )


def test_the_log_of_an_exported_file_publishes_the_head_of_its_chain(
    ford: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "ford.jsonl"
    ok(ford, "export", "ford", "--out", str(shared))
    head = json.loads(shared.read_text(encoding="utf-8").splitlines()[-1])["hash"]
    text = ok(tmp_path / "elsewhere.db", "export", str(shared), "--format", "md")
    assert text == ok(ford, "export", "ford", "--format", "md")
    assert f"Head at seq 9: `{head}`" in text


def test_a_correction_reads_with_the_fields_it_changed_and_the_event_as_played(
    ford: Path,
) -> None:
    ok(ford, "amend", "ford", "5", "level=2", "--reason", "a heavier blow")
    text = ok(ford, "export", "ford", "--format", "md")
    rulings = text.split("## Undone and corrected rulings\n\n")[1].split("\n\n")[0]
    assert rulings == (
        "- seq 7 undid seq 6: that blow was on Ash \\| not the bandit\n"
        "  - seq 6 as played: \\<script>alert(1)\\</script> takes level-1 harm in a level-1 slot "
        "(2/3 filled)\n"
        "- seq 10 corrected seq 5 (level 2): a heavier blow\n"
        "  - seq 5 as played: \\<script>alert(1)\\</script> takes level-1 harm in a level-1 slot "
        "(1/3 filled); penalties 0 -> 1"
    )
