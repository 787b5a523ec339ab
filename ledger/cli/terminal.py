"""Drawing on a terminal with rich: tables and lines that fit it without cutting a word (a
table's columns never narrower than their longest word, or, when even those do not fit, one
block a row; long lines wrapped at spaces under a hanging indent), and progress bars.

The only module of the command line that imports rich, and itself imported only when something
is drawn on a terminal (`render.show`, `render.say`, `progress.bar`): rich takes about a tenth
of a second to load, which a piped or `--json` command never pays.

rich on its own shrinks the widest columns of a table too wide for the terminal below their
longest word and cuts that word with an ellipsis; here the widths are settled before rich draws.
Only a word longer than a whole line (a JSON value of a `log` entry at 40 columns) is folded
across lines, which keeps every character. Nothing here changes piped or `--plain` output.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Column, Table
from rich.text import Text

from projections.shown import visible

#: A table as text: its column names, then its rows of cells (unescaped).
Grid = tuple[list[str], list[list[str]]]

#: How far the continuation of a wrapped `column: value` line sits right of where it began.
HANG = 2
#: The same for a line of prose (`history`, `replay`), whose tracks already sit 2 in.
PROSE_HANG = 4


def print_tables(console: Console, tables: Sequence[Table]) -> None:
    """Print `tables` on `console` each as wide as its words need, or as blocks of rows."""
    blocks = False
    for table in tables:
        if fitted(table, console):
            console.print(table)
            continue
        for number, lines in enumerate(row_blocks(console, table)):
            if blocks or number:
                console.print()
            for line in lines:
                console.print(line)
        blocks = True


def fitted(table: Table, console: Console) -> bool:
    """Whether `table` fits the console with no word cut, its column widths set so that it
    does (left as rich would draw them when every cell fits on one line)."""
    options = console.options
    pad = table.padding[1] + table.padding[3]
    lows: list[int] = []
    highs: list[int] = []
    for column in table.columns:
        sizes = [Measurement.get(console, options, cell) for cell in _cells(column)]
        lows.append(max(size.minimum for size in sizes) + pad)
        highs.append(max(size.maximum for size in sizes) + pad)
    # The box's edges and the rules between columns.
    room = console.width - (len(table.columns) + 1 if table.box else 0)
    if sum(highs) <= room:
        return True
    if sum(lows) > room:
        return False
    for column, each in zip(table.columns, _shares(lows, highs, room), strict=True):
        column.width = each - pad
    return True


def _shares(lows: Sequence[int], highs: Sequence[int], room: int) -> list[int]:
    """Widths within [low, high] that fill `room`: the widest columns narrowed first, as rich
    narrows them, but never below their longest word."""
    cap = max(highs)
    while sum(max(low, min(high, cap)) for low, high in zip(lows, highs, strict=True)) > room:
        cap -= 1
    widths = [max(low, min(high, cap)) for low, high in zip(lows, highs, strict=True)]
    spare = room - sum(widths)
    for index, high in enumerate(highs):
        if spare and widths[index] < high:
            widths[index] += 1
            spare -= 1
    return widths


def _cells(column: Column) -> Iterator[RenderableType]:
    """A column's header, then its cells."""
    yield column.header
    yield from column.cells


def row_blocks(console: Console, table: Table) -> Iterator[list[Text]]:
    """Each row of `table` as lines that fit the console: its first column's name and cell as a
    bold heading, then a `column: value` line for each other column, wrapped at spaces."""
    names = [_text(console, column.header) for column in table.columns]
    cells = [[_text(console, cell) for cell in column.cells] for column in table.columns]
    for row in zip(*cells, strict=True):
        heading = Text.assemble(names[0], " ", row[0], style="bold")
        lines = hanging(console, heading, console.width, 0)
        for name, cell in zip(names[1:], row[1:], strict=True):
            lines += hanging(console, Text.assemble(name, ": ", cell), console.width, HANG)
        yield lines


def _text(console: Console, cell: RenderableType) -> Text:
    """A cell as the table would show it: `Text` as it is, a string as rich renders one."""
    if isinstance(cell, Text):
        return cell
    return console.render_str(str(cell))


def hanging(console: Console, text: Text, width: int, indent: int, hang: int = HANG) -> list[Text]:
    """`text` wrapped at spaces to `width`, starting `indent` in and continuing `hang` further;
    a word longer than a line is folded, never cut."""
    # One line when it fits; else every line as narrow as a continuation, which keeps each
    # line's words as rich divided them (a folded word is never joined back with a space).
    wrapped = text.wrap(console, max(width - indent, 1), overflow="fold", no_wrap=False)
    if len(wrapped) > 1:
        room = max(width - indent - hang, 1)
        wrapped = text.wrap(console, room, overflow="fold", no_wrap=False)
    out = []
    for number, line in enumerate(wrapped):
        line.rstrip()
        out.append(Text(" " * (indent + (hang if number else 0))) + line)
    return out or [Text("")]


def print_lines(console: Console, lines: Iterable[str]) -> None:
    """Print plain `lines` on `console`, each wrapped at spaces to its width under a hanging
    indent (a line's own leading spaces kept)."""
    for line in lines:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        for part in hanging(console, Text(body), console.width, indent, PROSE_HANG):
            console.print(part)


def console() -> Console:
    """A console on the current stdout, as wide as the terminal (COLUMNS overrides it); rich
    drops colour under NO_COLOR and when stdout is not a terminal."""
    return Console(file=sys.stdout, highlight=False, emoji=False)


def literal(text: str) -> Text:
    """User text for a rich table: literal (no markup), control characters escaped."""
    return Text(visible(text))


def table(grid: Grid) -> Table:
    """A grid as a rich table (each cell literal text)."""
    names, rows = grid
    out = Table()
    for name in names:
        out.add_column(name)
    for row in rows:
        out.add_row(*map(literal, row))
    return out


def draw(grids: Sequence[Grid]) -> None:
    """Print grids as tables that fit the terminal."""
    print_tables(console(), [table(grid) for grid in grids])


def say(lines: Iterable[str]) -> None:
    """Print lines of prose wrapped at spaces to the terminal's width."""
    print_lines(console(), lines)


def bar(description: str, total: int | None) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (pulsing when `total` is None), erased when the work ends;
    yields `advance(n)`."""
    columns = [TextColumn("{task.description}"), BarColumn(), TaskProgressColumn()]
    with Progress(
        *columns, TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True
    ) as progress:
        task = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task, n)
