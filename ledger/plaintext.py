"""The tracks as people read them, built from the plain `tracks --json` document: the header
line, a table a side and the pools line, with control characters in user text escaped.

Nothing here needs the event models or the folds (rich is imported only to build a table), so
the `tracks` command and its fast path (`ledger.fastpath`, which renders the stored head view)
print the same bytes from the same code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from projections.shown import Readings, Scene, shown, when

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

#: A table as text: its column names, then its rows of cells (unescaped).
Grid = tuple[list[str], list[list[str]]]

_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: C0 and C1 controls, DEL, and the marks that reorder or break lines: a terminal would act on
#: them (set its title, clear the screen, hide text), so people see them as escapes instead.
_ESCAPES: Final = {
    code: _NAMED.get(chr(code), f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    for code in (
        *range(0x20),
        *range(0x7F, 0xA0),
        0x200E,
        0x200F,
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
}


def visible(text: str) -> str:
    """`text` with its control characters shown as escapes (`\\x1b`), for people to read."""
    return text.translate(_ESCAPES)


def tsv(cells: Iterable[str]) -> str:
    """One tab-separated line (a tab or line break inside a cell becomes a space)."""
    return "\t".join(" ".join(c.split()) if c else "" for c in cells) + "\n"


def literal(text: str) -> Text:
    """User text for a rich table: literal (no markup), control characters escaped."""
    from rich.text import Text

    return Text(visible(text))


def console() -> Console:
    """A console on the current stdout, as wide as the terminal (COLUMNS overrides it); rich
    drops colour under NO_COLOR and when stdout is not a terminal."""
    import sys

    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, emoji=False)


def table(grid: Grid) -> Table:
    """A grid as a rich table (each cell literal text)."""
    from rich.table import Table

    names, rows = grid
    out = Table()
    for name in names:
        out.add_column(name)
    for row in rows:
        out.add_row(*map(literal, row))
    return out


def grid_lines(grid: Grid) -> str:
    """A grid as `--plain` prints it: its header line, then one tab-separated line a row."""
    names, rows = grid
    return tsv(names) + "".join(tsv(visible(cell) for cell in row) for row in rows)


def track_grids(view: Mapping[str, Any], read: Readings) -> list[Grid]:
    """One grid a side (players, then adversaries): a row a combatant, a column a track, each
    value as `read` (how the tracks of the encounter's system read) has it."""
    grids: list[Grid] = []
    for side in ("player", "adversary"):
        rows = {n: t for n, t in view["combatants"].items() if t["side"] == side}
        if not rows:
            continue
        columns: list[str] = []
        for tracks in rows.values():
            for key in tracks:
                if key not in ("side", "status") and key not in columns:
                    columns.append(key)
        names = [name.replace("_", " ") for name in (side, "status", *columns)]
        cells = [
            [name, tracks["status"], *(shown(tracks.get(c), read.get(c)) for c in columns)]
            for name, tracks in rows.items()
        ]
        grids.append((names, cells))
    return grids


def tracks_header(encounter: str, system: str, seq: int, round_: int | None, scene: Scene) -> str:
    """`duel (SYSTEM) at seq 9, round 2`: the first line of `tracks`."""
    time = when(round_, scene)
    return f"{encounter} ({system}) at seq {seq}" + (f", {time}" if time else "")


def pools_line(pools: Mapping[str, int]) -> str | None:
    """`pools: sb 3`, or None when the system has no pools."""
    if not pools:
        return None
    return visible("pools: " + ", ".join(f"{k} {v}" for k, v in pools.items()))
