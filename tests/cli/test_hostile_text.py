"""Hostile text stays text: markup-like names and control characters reach people inert."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from ledger.cli import render
from tests.cli.invoke import run
from tests.cli.test_terminal import ANSI, on_terminal

CONTROL = "x\x1b]0;PWNED\x07\x1b[2J\x9b5m\u202eevil"


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


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


#: One code point of each class a terminal or a Markdown renderer acts on: a C0 control, DEL,
#: a C1 control, format characters (Arabic letter mark, zero-width space, soft hyphen, byte
#: order mark, a tag), the line and paragraph separators.
HIDDEN = "\x1c\x7f\x85\u061c\u200b\u00ad\ufeff\U000e0041\u2028\u2029"


def hidden_in(text: str) -> list[str]:
    """The code points of `text` of category Cc, Cf, Zl or Zp, less the line ends of the output
    itself and the escapes rich styles a terminal with."""
    plain = ANSI.sub("", text)
    return sorted(
        {
            f"U+{ord(c):04X}"
            for c in plain
            if c not in "\n\t" and unicodedata.category(c) in HIDDEN_CATEGORIES
        }
    )


HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


@pytest.fixture
def hidden(db: Path) -> Path:
    """An encounter whose every text of the table holds each hidden code point: its title, a
    combatant's name, a stat key, a scene, a note, a reason, who recorded it."""
    mark = "\u2028\u2029"  # a name holds no control or format character: these it may
    name = f"Og{mark}re"
    ok(db, "new", "e", "--system", "ssss", "--title", f"The {HIDDEN} ford")
    ok(db, "add", "e", "Ash", "--side", "player", "--stat", f"record.k{HIDDEN}=1")
    ok(db, "round", "e", "1", "--scene", f"the{mark}ford")
    ok(db, "record", "e", "note", f"text=a{HIDDEN}b", f"by=G{mark}M")
    ok(
        db,
        "record",
        "e",
        "combatant.joined",
        f"name={name}",
        "side=adversary",
        'stats={"level": 2}',
    )
    ok(db, "record", "e", "harm.inflicted", f"target={name}", "level=1")
    ok(db, "undo", "e", "--reason", f"r{HIDDEN}r")
    return db


READS = (
    ["list"],
    ["log", "e"],
    ["tracks", "e"],
    ["replay", "e"],
    ["replay", "e", "--as-played"],
    ["history", "e", "Ash"],
    ["audit", "e"],
    ["export", "e", "--format", "md"],
    ["verify"],
)


@pytest.mark.parametrize("command", READS, ids=[" ".join(c) for c in READS])
def test_every_hidden_code_point_is_shown_escaped_piped_and_on_a_terminal(
    hidden: Path, command: list[str]
) -> None:
    code, piped, err = run(hidden, *command)
    assert code in (0, 1) and err == "", err
    assert hidden_in(piped) == [], (command, piped)
    shown = on_terminal(["--db", str(hidden), *command], 200)
    assert hidden_in(shown) == [], (command, shown)


def test_the_writes_say_what_they_did_with_every_hidden_code_point_escaped(db: Path) -> None:
    ok(db, "new", "e", "--system", "ssss")
    for args in (
        ["add", "e", "Ash", "--side", "player", "--stat", f"record.k{HIDDEN}=1"],
        ["record", "e", "note", f"text=a{HIDDEN}b"],
        ["round", "e", "2", "--scene", "s\u2028\u2029t"],
        ["undo", "e", "--reason", f"r{HIDDEN}r"],
        ["amend", "e", "3", f"text=c{HIDDEN}", "--reason", f"q{HIDDEN}"],
        ["redo", "e"],
        ["add", "e", "Og\u2028re", "--side", "adversary", "--stat", "level=2"],
        ["harm", "e", "Og\u2028re", "1"],
        ["import", str(lines_of(db, f"n{HIDDEN}"))],
    ):
        out = ok(db, *args)
        assert hidden_in(out) == [], (args, out)


def lines_of(db: Path, text: str) -> Path:
    path = db.with_name("notes.jsonl")
    path.write_text(json.dumps({"type": "note", "text": text, "encounter": "e"}) + "\n")
    return path


def test_visible_escapes_the_whole_classes_and_nothing_else() -> None:
    assert render.visible(f"a{HIDDEN}b") == (
        r"a\x1c\x7f\x85\u061c\u200b\xad\ufeff\U000e0041\u2028\u2029b"
    )
    kept = "Sōhei 🗡 ü\u00a0x\u0301\ue000"  # a no-break space, a combining mark, private use
    assert render.visible(kept) == kept


#: What `encounter tracks $'\xff'` hands the program: Python reads a command line's bytes that
#: are not UTF-8 as lone surrogates.
NOT_UTF8 = "\udcff"
NAMED_READS = [
    ["tracks", NOT_UTF8],
    ["log", NOT_UTF8],
    ["audit", NOT_UTF8],
    ["export", NOT_UTF8],
    ["verify", NOT_UTF8],
    ["stats", NOT_UTF8],
    ["recap", NOT_UTF8],
    ["report", NOT_UTF8, "--html", "out.html"],
    ["dice", "commit", NOT_UTF8],
    ["erase", NOT_UTF8, "--confirm", NOT_UTF8],
]


@pytest.mark.parametrize("command", NAMED_READS, ids=[c[0] for c in NAMED_READS])
def test_an_encounter_name_that_is_not_utf8_is_an_unknown_encounter_not_a_traceback(
    db: Path, command: list[str]
) -> None:
    ok(db, "new", "e", "--system", "ssss")
    code, out, err = run(db, *command)
    assert (code, out) == (2, "")
    assert err == f"Error: encounter '\\udcff' is not in {db} (known: e)\n"
    if command[0] not in ("export", "report", "recap"):  # text to keep or post: no --json
        code, _, err = run(db, *command, "--json")
        assert json.loads(err)["error"]["code"] == "unknown-encounter"
    ok(db, "verify", "e")


def test_a_ledger_path_with_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    db = tmp_path / "new\nline\x1b[31m.db"
    code, out, _ = run(db, "list")
    assert code == 0
    assert out.count("\n") == 1 and "\x1b" not in out
    assert out.startswith("No encounters in ") and "new\\nline\\x1b[31m.db." in out
    code, _, err = run(db, "verify")  # no file there: the error names it, escaped
    assert code == 2 and err.count("\n") == 1 and "\x1b" not in err
