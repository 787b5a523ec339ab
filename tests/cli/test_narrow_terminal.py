"""Narrow terminals, as a game master on a laptop sees them: at 80, 60 and 40 columns every
table and every line of prose fits, and no word or value is cut or lost; piped and `--plain`
output is not width-bound at all."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ledger import Ledger
from ledger.cli import terminal as fit
from tests.cli.test_terminal import ANSI, ROOT, on_terminal

EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
NAMES = [p.stem for p in EXAMPLES]
WIDE = 400
GOLDEN = ROOT / "tests" / "fixtures" / "terminal" / "fates-edge-ambush.tracks.60.txt"
BOX = re.compile("[┏┓┗┛┃━┳┻╋┡┩╇│─┬┴┼└┘┌┐├┤]")


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every shipped example (all four systems) in one ledger file, each under its own name."""
    db = tmp_path_factory.mktemp("narrow") / "encounters.db"
    with Ledger(db) as book:
        for example in EXAMPLES:
            book.import_lines(example.read_text(encoding="utf-8").splitlines(), into=example.stem)
    return db


def someone(name: str) -> str:
    """The first combatant of an example, from its golden tracks."""
    tracks = json.loads((ROOT / "examples" / f"{name}.tracks.json").read_text(encoding="utf-8"))
    return str(next(iter(tracks["combatants"])))


def commands(name: str) -> list[tuple[list[str], int]]:
    """The read commands people look at, with their exit codes (audit: 1 on an error)."""
    audit = json.loads((ROOT / "examples" / f"{name}.audit.json").read_text(encoding="utf-8"))
    failing = any(f["severity"] == "error" for f in audit["findings"])
    return [
        (["tracks", name], 0),
        (["log", name], 0),
        (["audit", name], int(failing)),
        (["history", name, someone(name)], 0),
    ]


#: Each read command of each example, and `list` (of them all) once.
READS = [(args, code) for name in NAMES for args, code in commands(name)] + [(["list"], 0)]


def shown(db: Path, args: list[str], columns: int, code: int) -> str:
    return ANSI.sub("", on_terminal(["--db", str(db), *args], columns, code=code))


def words(text: str) -> set[str]:
    return set(BOX.sub(" ", text).split())


def assert_kept(wide: str, narrow: str, columns: int) -> None:
    """Every line fits `columns`, nothing is elided, and every word of the wide rendering is
    whole in the narrow one (as a `name:` label in a block, or, when longer than a line can
    hold, folded across lines with nothing lost)."""
    lines = narrow.splitlines()
    assert max(cell_len(line) for line in lines) <= columns
    assert "…" not in narrow
    kept = words(narrow)
    squashed = "".join(BOX.sub("", line).strip() for line in lines)
    for word in words(wide):
        whole = word in kept or f"{word}:" in kept
        folded = cell_len(word) > columns - 2 - fit.PROSE_HANG and word in squashed
        assert whole or folded, word


@pytest.mark.slow
@pytest.mark.parametrize(("args", "code"), READS, ids=[" ".join(args[:2]) for args, _ in READS])
def test_every_read_command_keeps_every_word_at_80_60_and_40_columns(
    shelf: Path, args: list[str], code: int
) -> None:
    wide = shown(shelf, args, WIDE, code)
    for columns in (80, 60, 40):
        assert_kept(wide, shown(shelf, args, columns, code), columns)


def test_a_wide_terminal_still_gets_the_tracks_as_tables(shelf: Path) -> None:
    out = shown(shelf, ["tracks", "l5r-duel"], 160, 0)
    assert out.count("┏") == 2
    assert "│ Akodo Toshiro │ surrendered │" in out


def test_tracks_too_wide_for_a_table_are_a_block_a_combatant(shelf: Path) -> None:
    out = shown(shelf, ["tracks", "l5r-duel"], 80, 0)
    assert out.splitlines()[:3] == [
        "l5r-duel (l5r) at seq 17",
        "player Akodo Toshiro",
        "  status: surrendered",
    ]
    assert "\nadversary Bayushi Kaeru\n  status: active\n" in out
    assert "  criticals: @12: 4 (resolved @13), @14: 5 (due)\n" in out


def test_a_narrow_table_and_the_blocks_beside_it_match_their_golden_file(
    shelf: Path, update_golden: bool
) -> None:
    out = shown(shelf, ["tracks", "fates-edge-ambush"], 60, 0)
    if update_golden:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(out, encoding="utf-8")
    assert out == GOLDEN.read_text(encoding="utf-8")


def test_a_log_at_40_columns_keeps_a_timestamp_whole_and_wraps_a_note_at_spaces(
    shelf: Path,
) -> None:
    lines = shown(shelf, ["log", "l5r-duel"], 40, 0).splitlines()
    assert lines[:3] == ["seq 1", "  recorded_at:", lines[2]]
    assert re.fullmatch(r"    \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", lines[2])
    assert "    successes on the attack check are" in lines


@pytest.mark.parametrize(
    "args", [["tracks", "l5r-duel", "--plain"], ["log", "ssss-bandits", "--plain"]]
)
def test_plain_output_on_a_40_column_terminal_is_as_wide_as_it_is_on_a_wide_one(
    shelf: Path, args: list[str]
) -> None:
    narrow = on_terminal(["--db", str(shelf), *args], 40)
    assert narrow == on_terminal(["--db", str(shelf), *args], WIDE)
    assert "\t" in narrow and max(len(line) for line in narrow.splitlines()) > 40


def test_plain_history_lines_are_not_wrapped(shelf: Path) -> None:
    args = ["history", "l5r-duel", "Akodo Toshiro", "--plain"]
    lines = on_terminal(["--db", str(shelf), *args], 40).splitlines()
    assert lines[0] == (
        "seq 2: Akodo Toshiro joins as a player: rings air 2, earth 3, fire 2, water 2, void 2; "
        "endurance 10, 1 Void point, resistance physical 3"
    )


def drawn(tables: list[Table], columns: int) -> str:
    out = io.StringIO()
    fit.print_tables(Console(file=out, width=columns, color_system=None), tables)
    return out.getvalue()


def test_a_table_that_fits_is_drawn_exactly_as_rich_draws_it() -> None:
    def table() -> Table:
        made = Table()
        for name in ("player", "status", "harm"):
            made.add_column(name)
        made.add_row(Text("Ash"), Text("active"), Text("0"))
        return made

    out = io.StringIO()
    Console(file=out, width=60, color_system=None).print(table())
    assert drawn([table()], 60) == out.getvalue()


def test_a_table_narrowed_to_fit_keeps_each_column_as_wide_as_its_longest_word() -> None:
    table = Table()
    table.add_column("name")
    table.add_column("note")
    table.add_row(Text("Ferryman's Riddle"), Text("a riddle " * 8 + "unanswerable"))
    out = drawn([table], 40)
    assert max(len(line) for line in out.splitlines()) == 40
    assert "Ferryman's" in out and "unanswerable" in out and "…" not in out


PIECE = st.text(st.characters(codec="ascii", categories=["L", "N", "P"]), min_size=1, max_size=30)
CELL = st.lists(PIECE, min_size=1, max_size=8).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=9).flatmap(
        lambda n: st.tuples(
            st.lists(PIECE, min_size=n, max_size=n),
            st.lists(st.lists(CELL, min_size=n, max_size=n), min_size=1, max_size=4),
        )
    ),
    st.integers(min_value=40, max_value=120),
)
def test_any_table_at_any_width_fits_and_keeps_every_word(
    grid: tuple[list[str], list[list[str]]], columns: int
) -> None:
    names, rows = grid
    table = Table()
    for name in names:
        table.add_column(Text(name))
    for row in rows:
        table.add_row(*map(Text, row))
    out = drawn([table], columns)
    wide = " ".join([*names, *(cell for row in rows for cell in row)])
    assert_kept(wide, out, columns)
