"""A corpus of bad input: every malformed line or command is exit 2, one line on stderr, and
nothing appended."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app
from tests.cli.invoke import ok, run
from tests.longstreams import encounter

runner = CliRunner()

GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 1}}
HERO = {"type": "combatant.joined", "name": "Hero", "side": "player", "stats": {}}
NOTE = {"type": "note", "text": "the bridge creaks"}


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def nested(levels: int) -> Any:
    """A value of `levels` lists inside each other."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def written(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def duel(db: Path) -> Path:
    """A ledger with encounter 'duel' (ssss): Hero and a level-1 Guard, one stored note of id
    'note-1' (imported unchained, so the import's own note follows it at seq 5)."""
    with Ledger(db) as ledger:
        ledger.open("duel", "ssss")
        ledger.record("duel", HERO)
        ledger.record("duel", GUARD)
        ledger.import_lines([json.dumps({**NOTE, "id": "note-1"})], into="duel", unchained=True)
    return db


def stored(db: Path) -> int:
    """How many events the file holds."""
    with closing(sqlite3.connect(db)) as raw:
        return int(raw.execute("SELECT count(*) FROM events").fetchone()[0])


def snapshot(db: Path) -> list[tuple[Any, ...]]:
    """Every stored row and head, to compare before and after."""
    raw = sqlite3.connect(db)
    rows = raw.execute("SELECT * FROM events ORDER BY encounter, seq").fetchall()
    heads = raw.execute("SELECT * FROM heads ORDER BY encounter").fetchall()
    raw.close()
    return rows + heads


def refused(db: Path, args: list[str], expected: str) -> None:
    """The command exits 2 with one line on stderr that contains `expected`, and appends nothing."""
    before = snapshot(db)
    result = runner.invoke(app, ["--db", str(db), *args])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert expected in lines[0]
    assert snapshot(db) == before


def line(**fields: Any) -> str:
    return json.dumps(fields, ensure_ascii=False)


# (case id, the lines of the file, what the error says)
LINES: list[tuple[str, list[str], str]] = [
    ("truncated-json", ['{"type": "note", "text": "x"'], "line 1: malformed JSON"),
    ("json-array", ["[1, 2]"], "expected a JSON object, got an array"),
    ("json-string", ['"note"'], "expected a JSON object, got a string"),
    ("json-number", ["42"], "expected a JSON object, got a number"),
    ("json-null", ["null"], "expected a JSON object, got null"),
    # A byte order mark starts a file as Notepad saves it (and is read past); inside, it is
    # not JSON.
    ("utf8-bom-inside", [line(**NOTE), "\ufeff" + line(**NOTE)], "malformed JSON"),
    ("no-type", [line(text="x")], "event has no 'type'"),
    ("type-not-text", [line(type=5)], "event has no 'type'"),
    ("unknown-type", [line(type="fireball")], "unknown event type 'fireball' for ssss"),
    ("unknown-field", [line(**NOTE, color="red")], "unknown field 'color'"),
    ("wrong-kind", [line(type="note", text=5)], "field 'text'"),
    ("huge-integer", [line(type="harm.inflicted", target="Guard", level=10**30)], "level"),
    ("huge-float", ['{"type": "note", "text": "x", "round": 1e400}'], "too large"),
    ("nan", ['{"type": "note", "text": "x", "round": NaN}'], "NaN is not a JSON value"),
    ("infinity", ['{"type": "note", "text": "x", "round": -Infinity}'], "not a JSON value"),
    ("negative-level", [line(type="harm.inflicted", target="Guard", level=-1)], "level"),
    ("bool-as-number", [line(type="harm.inflicted", target="Guard", level=True)], "level"),
    ("empty-name", [line(type="combatant.joined", name="", side="player")], "field 'name'"),
    ("blank-name", [line(type="combatant.joined", name="   ", side="player")], "blank"),
    ("nul-in-name", [line(type="combatant.joined", name="Gu\x00ard", side="player")], "control"),
    ("bell-in-name", [line(type="combatant.joined", name="Gu\x07ard", side="player")], "control"),
    ("newline-in-name", [line(type="combatant.joined", name="Gu\nard", side="player")], "control"),
    ("bidi-in-name", [line(type="combatant.joined", name="Gu\u202eard", side="player")], "control"),
    (
        "joined-emoji-name",  # the joiner is invisible: the message names it
        [line(type="combatant.joined", name="\U0001f468\u200d\U0001f467", side="player")],
        "invisible format characters (it holds U+200D ZERO WIDTH JOINER)",
    ),
    (
        "bell-named",
        [line(type="combatant.joined", name="Gu\x07ard", side="player")],
        "(it holds U+0007)",
    ),
    ("edge-spaces", [line(type="combatant.joined", name=" Guard", side="player")], "spaces"),
    ("long-name", [line(type="combatant.joined", name="G" * 81, side="player")], "'name'"),
    ("long-text", [line(type="note", text="x" * 2001)], "field 'text'"),
    (
        "ten-mb-line",
        [line(type="note", text="x" * 10_000_000)],
        "one event may be at most 1000000 bytes",
    ),
    ("lone-surrogate", ['{"type": "note", "text": "\\ud800"}'], "note event"),
    ("deep-nesting", ['{"type": "note", "text": "x", "by": ' + deep(100_000) + "}"], "deep"),
    (
        "nested-past-the-limit",
        [line(type="combatant.joined", name="Ogre", side="player", stats={"x": nested(65)})],
        "line 1: JSON nested too deeply (more than 64 levels)",
    ),
    (
        "five-thousand-digits",
        ['{"type": "note", "text": "x", "round": ' + "9" * 5000 + "}"],
        "line 1: a whole number of 5000 digits (at most 4300)",
    ),
    ("nested-value", [line(type="note", text="x", by=[["Ann"]])], "field 'by'"),
    ("second-opening", [line(type="encounter.opened", system="ssss")], "already open"),
    ("unknown-target", [line(type="harm.inflicted", target="Nobody", level=1)], "'Nobody'"),
    ("grit-on-enemy", [line(type="grit.used", target="Guard", from_level=1, to_level=0)], "player"),
    ("joins-twice", [json.dumps(GUARD)], "already joined"),
    (
        "level-too-high",
        [line(type="combatant.joined", name="Ogre", side="adversary", stats={"level": 6})],
        "level",
    ),
    ("retract-opening", [line(type="event.retracted", target=1, reason="x")], "cannot be"),
    ("retract-unknown", [line(type="event.retracted", target=99, reason="x")], "seq 99"),
    ("retract-zero", [line(type="event.retracted", target=0, reason="x")], "field 'target'"),
    (
        "duplicate-ids",
        [line(**NOTE, id="n-7"), line(type="note", text="other", id="n-7")],
        "line 2: event id 'n-7' is already stored with different contents",
    ),
    ("stored-id-differs", [line(type="note", text="changed", id="note-1")], "'note-1'"),
    ("wrong-seq", [line(**NOTE, seq=99)], "'seq' is 99, but the encounter's next seq is 6"),
    ("seq-as-text", [line(**NOTE, seq="5")], "'seq' must be a whole number, not \"5\""),
    (
        "wrong-prev-hash",
        [line(**NOTE, prev_hash="0" * 64, hash="f" * 64)],
        "'prev_hash' does not match",
    ),
    ("wrong-hash", [line(**NOTE, hash="f" * 64)], "'hash' does not match"),
    ("time-not-iso", [line(**NOTE, recorded_at="yesterday")], "not an ISO 8601 time"),
    ("time-no-zone", [line(**NOTE, recorded_at="2026-01-01T10:00:00")], "no time zone"),
    ("id-empty", [line(**NOTE, id="")], "'id' must be a non-empty string"),
    ("id-number", [line(**NOTE, id=7)], "'id' must be a non-empty string"),
    ("id-long", [line(**NOTE, id="i" * 101)], "'id' must be a non-empty string"),
    ("good-then-bad", [line(**NOTE), line(type="note")], "line 2: note event is missing"),
    ("blank-file", ["", "   "], "has no events"),
    (
        "export-stripped-of-its-hashes",
        [line(**NOTE, id="x-1", recorded_at="2026-01-01T10:00:00Z", prev_hash="0" * 64)],
        "line 1: the line carries 'id', 'recorded_at', 'prev_hash' but no 'hash': a line "
        "copied from a ledger without its hash may have been edited (import --unchained",
    ),
    (
        "export-stripped-of-its-hash-only",
        [line(**NOTE, prev_hash="0" * 64)],
        "the line carries 'prev_hash' but no 'hash'",
    ),
]
#: The cases whose lines carry an id or a time and no hash: imported --unchained, so that what
#: is checked is the id or the time itself.
UNCHAINED = frozenset(
    {
        "duplicate-ids",
        "stored-id-differs",
        "time-not-iso",
        "time-no-zone",
        "id-empty",
        "id-number",
        "id-long",
    }
)


@pytest.mark.parametrize(("case", "lines", "expected"), LINES, ids=[c[0] for c in LINES])
def test_a_malformed_import_line_is_refused_whole(
    duel: Path, tmp_path: Path, case: str, lines: list[str], expected: str
) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    unchained = ["--unchained"] if case in UNCHAINED else []
    refused(duel, ["import", str(source), "--into", "duel", *unchained], expected)


def test_the_corpus_holds_forty_cases_or_more() -> None:
    assert len(LINES) + len(COMMANDS) + len(ENCODINGS) >= 40


# (case id, the command line, what the error says)
Args = Callable[[Path], list[str]]
COMMANDS: list[tuple[str, Args, str]] = [
    ("new-empty-name", lambda d: ["new", "", "--system", "ssss"], "encounter name ''"),
    ("new-control-name", lambda d: ["new", "du\x01el", "--system", "ssss"], "control"),
    ("new-exists", lambda d: ["new", "duel", "--system", "ssss"], "already exists"),
    (
        "new-bad-rules",
        lambda d: ["new", "x", "--system", "ssss", "--rules", str(bad_rules(d))],
        "unknown field 'max_per_tear'",
    ),
    (
        "new-rules-not-json",
        lambda d: ["new", "x", "--system", "ssss", "--rules", str(d)],
        "--rules",
    ),
    ("record-missing-field", lambda d: ["record", "duel", "note"], "missing field 'text'"),
    ("record-unknown-type", lambda d: ["record", "duel", "fireball"], "unknown event type"),
    ("record-unknown-encounter", lambda d: ["record", "nowhere", "note", "text=x"], "'nowhere'"),
    (
        "record-unknown-target",
        lambda d: ["record", "duel", "harm.inflicted", "target=Nobody", "level=1"],
        "'Nobody'",
    ),
    (
        "record-huge-number",
        lambda d: ["record", "duel", "harm.inflicted", "target=Guard", "level=" + "9" * 40],
        "level",
    ),
    (
        "record-overflow-float",
        lambda d: ["record", "duel", "harm.inflicted", "target=Guard", "level=1e999"],
        "level",
    ),
    (
        "record-nan",
        lambda d: [
            "record",
            "duel",
            "track.adjusted",
            "target=Hero",
            "track=harm",
            "value=NaN",
            "reason=x",
        ],
        "field 'value': nan is a number that JSON cannot carry",
    ),
    (
        "record-nan-in-json-value",
        lambda d: ["record", "duel", "tracks.noted", "target=Hero", 'values={"harm": NaN}'],
        "JSON cannot carry",
    ),
    (
        "record-unknown-field",
        lambda d: ["record", "duel", "note", "text=x", "color=red"],
        "unknown field 'color'",
    ),
    ("record-type-field", lambda d: ["record", "duel", "note", "type=note"], "TYPE argument"),
    ("record-not-pair", lambda d: ["record", "duel", "note", "text"], "is not KEY=VALUE"),
    (
        "record-ten-mb",
        lambda d: ["record", "duel", "note", "text=" + "x" * 10_000_000],
        "field 'text'",
    ),
    (
        "record-control-by",
        lambda d: ["record", "duel", "note", "text=x", "by=Ann\x1b[31m"],
        "control",
    ),
    ("add-twice", lambda d: ["add", "duel", "Hero", "--side", "player"], "already joined"),
    ("add-empty-name", lambda d: ["add", "duel", "", "--side", "player"], "field 'name'"),
    (
        "add-bad-level",
        lambda d: ["add", "duel", "Ogre", "--side", "adversary", "--stat", "level=9"],
        "level",
    ),
    (
        "add-missing-stats-file",
        lambda d: ["add", "duel", "Ogre", "--side", "adversary", "--from", str(d / "none.json")],
        "no such file",
    ),
    ("undo-opening", lambda d: ["undo", "duel", "1", "--reason", "x"], "cannot be retracted"),
    ("undo-unknown-seq", lambda d: ["undo", "duel", "99", "--reason", "x"], "seq 99"),
    ("undo-no-reason", lambda d: ["undo", "duel"], "--reason"),
    ("redo-nothing", lambda d: ["redo", "duel"], "nothing to redo"),
    ("tracks-at-unknown", lambda d: ["tracks", "duel", "--at", "99"], "--at 99"),
    ("import-missing-file", lambda d: ["import", str(d / "none.jsonl")], "no such file"),
    ("import-into-bad-name", lambda d: ["import", str(good_file(d)), "--into", " x"], "spaces"),
    (
        "import-new-ids-existing",
        lambda d: ["import", str(good_file(d)), "--into", "duel", "--new-ids"],
        "already exists",
    ),
    (
        "import-id-elsewhere",
        lambda d: ["import", str(stored_id_file(d)), "--into", "other", "--unchained"],
        "ids are global",
    ),
    ("verify-unknown", lambda d: ["verify", "nowhere"], "'nowhere'"),
    (
        "record-deep-value",
        lambda d: ["record", "duel", "note", "text=" + deep(100_000)],
        "field 'text': JSON nested too deeply (more than 64 levels)",
    ),
    (
        "record-deep-key",
        lambda d: ["record", "duel", "note", ".".join(["a"] * 70) + "=1"],
        "nests more than 64 levels",
    ),
    (
        "record-five-thousand-digits",
        lambda d: ["record", "duel", "note", "text=x", "round=" + "9" * 5000],
        "field 'round': a whole number of 5000 digits (at most 4300)",
    ),
    (
        "record-duplicate-key-in-value",
        lambda d: ["record", "duel", "tracks.noted", "target=Hero", 'values={"harm":1,"harm":2}'],
        "field 'values': key 'harm' is given twice",
    ),
    (
        "rules-deep",
        lambda d: ["new", "x", "--system", "ssss", "--rules", written(d, "r.json", deep(5000))],
        "--rules: ",
    ),
    (
        "rules-key-twice",
        lambda d: [
            *("new", "x", "--system", "ssss", "--rules"),
            written(d, "r.json", '{"max_per_tier": 3, "max_per_tier": 5}'),
        ],
        "key 'max_per_tier' is given twice",
    ),
    (
        "rules-five-thousand-digits",
        lambda d: [
            *("new", "x", "--system", "ssss", "--rules"),
            written(d, "r.json", '{"max_per_tier": ' + "9" * 5000 + "}"),
        ],
        "a whole number of 5000 digits (at most 4300)",
    ),
    (
        "stat-file-five-thousand-digits",
        lambda d: [
            *("add", "duel", "Ogre", "--side", "adversary", "--stat-file"),
            written(d, "s.json", '{"level": ' + "9" * 5000 + "}"),
        ],
        "--stat-file: ",
    ),
    (
        "stat-file-key-twice",
        lambda d: [
            *("add", "duel", "Ogre", "--side", "adversary", "--stat-file"),
            written(d, "s.json", '{"level": 1, "level": 5}'),
        ],
        "key 'level' is given twice",
    ),
    (
        "stat-file-deep",
        lambda d: [
            *("add", "duel", "Ogre", "--side", "adversary", "--stat-file"),
            written(d, "s.json", '{"tags": ' + deep(3000) + "}"),
        ],
        "nested too deeply",
    ),
    (
        "stat-five-thousand-digits",
        lambda d: ["add", "duel", "Ogre", "--side", "adversary", "--stat", "level=" + "9" * 5000],
        "--stat 'level': a whole number of 5000 digits",
    ),
]


def bad_rules(folder: Path) -> Path:
    path = folder / "rules.json"
    path.write_text('{"max_per_tear": 4}', encoding="utf-8")
    return path


def good_file(folder: Path) -> Path:
    path = folder / "good.jsonl"
    path.write_text(line(**NOTE) + "\n", encoding="utf-8")
    return path


def stored_id_file(folder: Path) -> Path:
    path = folder / "copy.jsonl"
    opened = line(type="encounter.opened", system="ssss")
    path.write_text(opened + "\n" + line(**NOTE, id="note-1") + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("args", "expected"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS]
)
def test_a_malformed_command_is_refused(
    duel: Path, tmp_path: Path, args: Args, expected: str
) -> None:
    refused(duel, args(tmp_path), expected)


# (case id, the file's bytes, what the error says)
ENCODINGS: list[tuple[str, bytes, str]] = [
    ("latin-1", line(type="note", text="café").encode("latin-1"), "not UTF-8 text"),
    ("utf-16", line(**NOTE).encode("utf-16"), "not UTF-8 text"),
    ("stray-byte", b'{"type": "note", "text": "\xff"}\n', "not UTF-8 text (byte 26)"),
    ("nul-bytes", b'{"type": "note", "text": "x"}\x00\n', "malformed JSON"),
]


@pytest.mark.parametrize(
    ("data", "expected"), [c[1:] for c in ENCODINGS], ids=[c[0] for c in ENCODINGS]
)
def test_a_file_in_another_encoding_is_refused(
    duel: Path, tmp_path: Path, data: bytes, expected: str
) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_bytes(data)
    refused(duel, ["import", str(source), "--into", "duel"], expected)


def test_bad_input_on_stdin_in_a_real_process_is_one_line_and_exit_2(duel: Path) -> None:
    before = snapshot(duel)
    done = encounter(duel, "import", "-", "--into", "duel", stdin='{"type": "note"}\n')
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["Error: stdin line 1: note event is missing field 'text'"]
    assert snapshot(duel) == before


@pytest.mark.parametrize(
    ("value", "said"),
    [
        # A scene is a name or a number: an empty name is a name too short, and one problem.
        ("", "field 'scene': string should have at least 1 character (got \"\")"),
        ("-3", "field 'scene': input should be greater than or equal to 0 (got -3)"),
    ],
)
def test_a_value_a_field_of_two_kinds_refuses_is_told_in_its_own_kind(
    duel: Path, value: str, said: str
) -> None:
    args = ["record", "duel", "round.started", "round=1", f"scene={value}"]
    result = runner.invoke(app, ["--db", str(duel), *args])
    assert result.exit_code == 2
    assert result.stderr.rstrip("\n").endswith(said), result.stderr
    assert "more problem" not in result.stderr


def test_an_empty_tenant_typed_is_refused_and_an_empty_variable_is_unset(
    duel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--tenant "$GUILD"` with the variable unset must not write to the default tenant's
    encounters; an empty ENCOUNTER_TENANT reads as unset, as empty variables usually do."""
    before = stored(duel)
    for args in (["--tenant", "", "note", "duel", "x"], ["note", "duel", "x", "--tenant", ""]):
        result = CliRunner().invoke(app, ["--db", str(duel), *args])
        assert result.exit_code == 2
        assert result.stderr == (
            "Error: a tenant is named by a letter or digit, then letters, digits and _ . : @ - "
            "(at most 100 characters), not ''\n"
        )
    assert stored(duel) == before
    monkeypatch.setenv("ENCOUNTER_TENANT", "")
    listed = CliRunner().invoke(app, ["--db", str(duel), "list"])
    assert listed.exit_code == 0 and listed.stdout.splitlines()[1].startswith("duel\t")


def test_a_name_that_reads_as_a_number_is_refused_saying_how_to_quote_it(tmp_path: Path) -> None:
    """`record` reads each value as JSON: `target=42` is the number 42, refused for a name,
    and the error says how to give the text 42."""
    db = tmp_path / "e.db"
    ok(db, "new", "t", "--system", "ssss")
    ok(db, "add", "t", "42", "--side", "adversary", "--stat", "level=1", "--stat", 'slots={"1":2}')
    code, out, err = run(db, "record", "t", "harm.inflicted", "target=42", "level=1")
    assert (code, out) == (2, "")
    assert err == (
        "Error: harm.inflicted event field 'target': input should be a valid string (got 42); "
        "for the text 42, quote it: target='\"42\"'\n"
    )
    assert ok(db, "record", "t", "harm.inflicted", 'target="42"', "level=1").startswith(
        "Recorded seq 3: harm.inflicted"
    )
    assert run(db, "record", "t", "note", "text=hello")[0] == 0  # a word reads as text
