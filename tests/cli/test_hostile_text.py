"""Hostile text stays text: markup-like names and control characters reach people inert."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli
from ledger.cli import render
from tests.cli.test_terminal import ANSI, on_terminal

runner = CliRunner()

CONTROL = "x\x1b]0;PWNED\x07\x1b[2J\x9b5m\u202eevil"


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def run(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert (code, err) == (0, ""), (out, err)
    return out


@pytest.fixture
def hostile(db: Path) -> Path:
    ok(
        db,
        "new",
        "e",
        "--system",
        "ssss",
        "--title",
        "[link=https://evil.example/x]Harmless[/link]",
    )
    ok(db, "add", "e", "[/]", "--side", "player")
    ok(db, "add", "e", "Ogre[blink]", "--side", "adversary", "--stat", "level=2")
    ok(db, "record", "e", "note", "text=[/]")
    ok(db, "record", "e", "note", f"text={CONTROL}")
    return db


#: What a terminal would act on, were the hostile text sent raw (rich's own styling aside).
RAW = ("\x1b]", "\x1b[2J", "\x07", "\x9b", "\u202e")


def test_a_combatant_named_like_a_closing_tag_shows_in_tracks_on_a_terminal(hostile: Path) -> None:
    out = ANSI.sub("", on_terminal(["--db", str(hostile), "tracks", "e"], 100))
    assert "│ [/]    │" in out
    assert "│ Ogre[blink] │" in out


def test_a_note_that_looks_like_markup_keeps_log_working_even_after_undo(hostile: Path) -> None:
    assert "text=[/]" in ANSI.sub("", on_terminal(["--db", str(hostile), "log", "e"], 200))
    ok(hostile, "undo", "e", "4", "--reason", "typo")
    out = ANSI.sub("", on_terminal(["--db", str(hostile), "log", "e"], 200))
    assert "(retracted by seq 6) text=[/]" in out


def test_a_title_with_a_link_tag_is_shown_as_written_not_as_a_hyperlink(hostile: Path) -> None:
    out = on_terminal(["--db", str(hostile), "list"], 200)
    assert "[link=https://evil.example/x]Harmless[/link]" in ANSI.sub("", out)
    assert "\x1b]8;" not in out


@pytest.mark.parametrize("command", [["replay", "e"], ["log", "e"]])
def test_control_characters_in_a_note_are_shown_escaped_on_a_terminal_and_piped(
    hostile: Path, command: list[str]
) -> None:
    shown = r"x\x1b]0;PWNED\x07\x1b[2J\x9b5m\u202eevil"
    for out in (ok(hostile, *command), on_terminal(["--db", str(hostile), *command], 400)):
        assert shown in ANSI.sub("", out).replace("\n", ""), command
        assert not any(raw in out for raw in RAW), command


def test_json_output_keeps_control_characters_as_json_escapes(hostile: Path) -> None:
    out = ok(hostile, "log", "e", "--json")
    assert r"x\u001b]0;PWNED\u0007\u001b[2J" in out


def test_visible_escapes_controls_and_leaves_other_text_alone() -> None:
    assert render.visible("Sōhei\tsaid\n\x00ok 🗡") == r"Sōhei\tsaid\n\x00ok 🗡"
