"""Tables and lines that fit the terminal without cutting a word: a table's columns never
narrower than their longest word, or, when even those do not fit, one block a row; long lines
wrapped at spaces under a hanging indent.

rich on its own shrinks the widest columns of a table too wide for the terminal below their
longest word and cuts that word with an ellipsis; here the widths are settled before rich draws.
Only a word longer than a whole line (a JSON value of a `log` entry at 40 columns) is folded
across lines, which keeps every character. Nothing here changes piped or `--plain` output.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.table import Column, Table
    from rich.text import Text

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
    from rich.measure import Measurement

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
    from rich.text import Text

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
    from rich.text import Text

    if isinstance(cell, Text):
        return cell
    return console.render_str(str(cell))


def hanging(console: Console, text: Text, width: int, indent: int, hang: int = HANG) -> list[Text]:
    """`text` wrapped at spaces to `width`, starting `indent` in and continuing `hang` further;
    a word longer than a line is folded, never cut."""
    # One line when it fits; else every line as narrow as a continuation, which keeps each
    # line's words as rich divided them (a folded word is never joined back with a space).
    from rich.text import Text

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
    from rich.text import Text

    for line in lines:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        for part in hanging(console, Text(body), console.width, indent, PROSE_HANG):
            console.print(part)
