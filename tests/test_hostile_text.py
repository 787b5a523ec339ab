"""Hostile text stays text: markup-like names and control characters reach people inert."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli, render

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


def test_a_combatant_named_like_a_closing_tag_shows_in_tracks(hostile: Path) -> None:
    out = ok(hostile, "tracks", "e")
    assert "│ [/]    │" in out
    assert "│ Ogre[blink] │" in out


def test_a_note_that_looks_like_markup_keeps_log_working_even_after_undo(hostile: Path) -> None:
    assert "text=[/]" in ok(hostile, "log", "e")
    ok(hostile, "undo", "e", "4", "--reason", "typo")
    assert "(retracted by seq 6) text=[/]" in ok(hostile, "log", "e")


def test_a_title_with_a_link_tag_is_shown_as_written_not_as_a_hyperlink(hostile: Path) -> None:
    out = ok(hostile, "list")
    assert "[link=https://evil.example/x]Harmless[/link]" in out
    assert "\x1b]8;" not in out


def test_control_characters_in_a_note_are_shown_escaped_in_every_output_for_people(
    hostile: Path,
) -> None:
    shown = r"x\x1b]0;PWNED\x07\x1b[2J\x9b5m\u202eevil"
    for command in (["replay", "e"], ["log", "e"]):
        out = ok(hostile, *command)
        assert shown in out, command
        assert not set(out) & {"\x1b", "\x07", "\x9b", "\u202e"}, command


def test_json_output_keeps_control_characters_as_json_escapes(hostile: Path) -> None:
    out = ok(hostile, "log", "e", "--json")
    assert r"x\u001b]0;PWNED\u0007\u001b[2J" in out


def test_visible_escapes_controls_and_leaves_other_text_alone() -> None:
    assert render.visible("Sōhei\tsaid\n\x00ok 🗡") == r"Sōhei\tsaid\n\x00ok 🗡"
