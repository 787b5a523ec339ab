"""Reading an Iron Vault journal: its notes in natural order, their mechanics blocks (fenced
KDL, version 1), each node with the line it is on, and a character note's front matter.

The KDL is parsed by ckdl (`pip install 'encounter-ledger[ironvault]'`), loaded only here and
only when a journal is read; YAML front matter by PyYAML, the same extra.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from ledger.errors import BadInput, UnknownName
from ledger.ironvault import inline
from ledger.jsonl import read_text
from projections.journal import Block, Node

#: The fences Iron Vault writes its mechanics in (the plain `mechanics` of older notes too).
FENCES: Final = ("iron-vault-mechanics", "mechanics")
EXTRA: Final = "pip install 'encounter-ledger[ironvault]'"
#: An opening fence, indented, or on a list item's line (`- ```iron-vault-mechanics`, `1. ...`).
_FENCE: Final = re.compile(
    r"^(?P<indent>[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(?P<ticks>`{3,}|~{3,})[ \t]*"
    r"(?P<info>[^\s`]*)"
)
_NATURAL: Final = re.compile(r"(\d+)")
#: One blockquote marker (a callout's lines start with them: `> `, `> > `).
_QUOTE: Final = re.compile(r"[ \t]{0,3}>[ ]?")


def note_files(paths: Sequence[str | Path]) -> list[tuple[str, Path]]:
    """(the name an event's `source` gives it, the file) of every note to read: a file as
    given (its name), a folder's `*.md` recursively (relative to the folder; not those in
    dot-folders, such as Obsidian's `.trash`), in natural order of that name ("Session 2"
    before "Session 10"), each once."""
    found: dict[Path, str] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = [
                p for p in path.rglob("*.md") if p.is_file() and not _hidden(p.relative_to(path))
            ]
            for file in sorted(inside, key=lambda p: _order(p.relative_to(path).as_posix())):
                found.setdefault(file.resolve(), file_text(file.relative_to(path).as_posix()))
        elif path.is_file():
            found.setdefault(path.resolve(), file_text(path.name))
        else:
            raise UnknownName(f"no such note or folder: {path}", code="no-file")
    return [(name, file) for file, name in found.items()]


def _hidden(relative: Path) -> bool:
    """Whether a note is in a dot-folder (`.trash`, `.obsidian`) or is a dot-file, which
    Obsidian does not read."""
    return any(part.startswith(".") for part in relative.parts)


def _order(name: str) -> tuple[tuple[tuple[int, int | str], ...], str]:
    """Natural order, the name itself breaking ties (`Session 02` and `Session 2`)."""
    return natural(name), name


def file_text(name: str) -> str:
    """A file name as text an event holds: bytes that are not UTF-8 (which Python reads as
    lone surrogates) written as escapes, `Caf\\xe9.md`, so that each file keeps a name of its
    own."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key in which the numbers in a name count as numbers."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold())
        for part in _NATURAL.split(name)
        if part
    )


def blocks(name: str, text: str) -> Iterator[Block]:
    """The mechanics blocks of one note, in order of appearance, each node with its line; a
    block inside a callout or quote (`> ```iron-vault-mechanics`) too, its lines read
    without their `>` markers, and ended where the quote ends. The inline mechanics of each
    paragraph of prose (`iv-meter:Health|5|3`) are a block of their own. What an Obsidian
    comment (`%% ... %%`) hides, Obsidian does not show and Iron Vault does not render: it is
    not read."""
    raw = uncommented(text.splitlines())
    lines = [_unquoted(line) for line in raw]
    ordinal = 0
    number = 0
    prose: list[tuple[int, str]] = []  # the inline mechanics since the last block
    while number < len(lines):
        depth, line = lines[number]
        opened = _FENCE.match(line)
        if opened is not None and opened["ticks"][0] == "`" and "`" in line[opened.end() :]:
            opened = None  # ```code``` is inline code: a backtick fence's info has no backtick
        number += 1
        if opened is None and not line.strip() and prose:
            # A paragraph's inline mechanics are a block: a move holds the spans after it
            # in its paragraph only.
            made, ordinal = inline.nodes(prose, name, ordinal)
            yield Block(name, prose[0][0], tuple(made))
            prose = []
        if opened is None:
            prose.extend((number, code) for code in inline.spans(line))
            continue
        ticks, info = opened["ticks"], opened["info"]
        start = number
        while (
            number < len(lines)
            and lines[number][0] >= depth
            and not (lines[number][0] == depth and _closes(lines[number][1], ticks))
        ):
            number += 1
        body = [_strip(line, depth) for line in raw[start:number]]
        if number < len(lines) and lines[number][0] == depth:
            number += 1  # past the closing fence
        if info not in FENCES:
            continue
        if prose:
            made, ordinal = inline.nodes(prose, name, ordinal)
            yield Block(name, prose[0][0], tuple(made))
            prose = []
        parsed = parse("\n".join(body), f"{name}:{start}")
        located = list(_located(parsed, body, start + 1))
        block: list[Node] = []
        for item in parsed:
            node, ordinal = _node(item, name, located, ordinal)
            block.append(node)
        yield Block(name, start, tuple(block))
    if prose:
        made, _ = inline.nodes(prose, name, ordinal)
        yield Block(name, prose[0][0], tuple(made))


def uncommented(raw: Sequence[str]) -> list[str]:
    """The lines of a note with what its Obsidian comments hide taken out: from a `%%` to the
    next (on one line or across lines, fences inside included), each line keeping its quote
    markers, so that line numbers and callouts stay as they are. A `%%` inside a fenced block
    is the block's text, not a comment."""
    shown: list[str] = []
    hidden = False
    fence: tuple[int, str] | None = None  # (quote depth, ticks) of the open fence
    for line in raw:
        depth, body = _unquoted(line)
        prefix = line[: len(line) - len(body)]
        if fence is not None and depth >= fence[0]:
            shown.append(line)
            if depth == fence[0] and _closes(body, fence[1]):
                fence = None
            continue
        fence = None  # a quote that ends closes the fence it held
        opened = None if hidden else _FENCE.match(body)
        if opened is not None and "%%" not in opened["indent"]:
            fence = (depth, opened["ticks"])
            shown.append(line)
            continue
        kept: list[str] = []
        for number, part in enumerate(body.split("%%")):
            if number:
                hidden = not hidden
            if not hidden:
                kept.append(part)
        shown.append(prefix + "".join(kept))
    return shown


def _unquoted(line: str) -> tuple[int, str]:
    """A line's quote depth (its leading `>` markers) and the line without them."""
    if ">" not in line:
        return 0, line
    depth = 0
    while (marker := _QUOTE.match(line)) is not None:
        depth += 1
        line = line[marker.end() :]
    return depth, line


def _strip(line: str, depth: int) -> str:
    """A line without its first `depth` quote markers."""
    for _ in range(depth):
        marker = _QUOTE.match(line)
        if marker is None:
            break
        line = line[marker.end() :]
    return line


def _closes(line: str, ticks: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(ticks[0] * len(ticks)) and not stripped.strip(ticks[0])


def parse(text: str, where: str) -> list[Any]:
    """The top nodes of a KDL (version 1) document, or bad input naming `where`."""
    try:
        import ckdl
    except ImportError as exc:
        raise BadInput(f"reading Iron Vault journals needs the KDL parser: {EXTRA}") from exc
    try:
        return list(ckdl.parse(text, version="1").nodes)
    except ckdl.ParseError as exc:
        raise BadInput(f"{where}: the mechanics block is not valid KDL ({exc})") from exc


def _walk(raw: Iterable[Any]) -> Iterator[Any]:
    for node in raw:
        yield node
        yield from _walk(node.children)


def _located(parsed: Sequence[Any], body: Sequence[str], first: int) -> Iterator[int]:
    """The line of each node in document order: the next line, from the previous node's,
    where a node of its name starts (ckdl keeps no positions; a node shares the line of the
    one before it when both are on one line)."""
    text = "\n".join(body)
    offsets = [0]
    for line in body:
        offsets.append(offsets[-1] + len(line) + 1)
    cursor = 0
    for node in _walk(parsed):
        name = re.escape(node.name)
        pattern = re.compile(rf"(?:^|[{{;])[ \t]*(?:{name}|\"{name}\")(?=[\s{{;]|$)", re.M)
        found = None
        for match in pattern.finditer(text, cursor):
            start = text.rfind("\n", 0, match.start()) + 1
            if "//" not in text[start : match.start()]:  # not inside a line comment
                found = match
                break
        if found is None:
            yield _line_of(offsets, cursor) + first
            continue
        cursor = found.end()
        yield _line_of(offsets, found.end()) + first


def _line_of(offsets: Sequence[int], position: int) -> int:
    low, high = 0, len(offsets) - 1
    while low < high - 1:
        middle = (low + high) // 2
        if offsets[middle] <= position:
            low = middle
        else:
            high = middle
    return low


def _node(raw: Any, file: str, lines: list[int], ordinal: int) -> tuple[Node, int]:
    """A parsed ckdl node as a `Node`, its name in lower case (the lines come in document
    order, one a node)."""
    line = lines.pop(0)
    mine = ordinal
    ordinal += 1
    children = []
    for child in raw.children:
        made, ordinal = _node(child, file, lines, ordinal)
        children.append(made)
    args = tuple(_plain(a) for a in raw.args)
    props = {str(k): _plain(v) for k, v in raw.properties.items()}
    text = " ".join([raw.name, *map(_kdl, args), *(f"{k}={_kdl(v)}" for k, v in props.items())])
    # Iron Vault reads a node's name in any case (`Move`, `METER`): so does the planner. The
    # text keeps the name as written.
    node = Node(
        raw.name.lower(), args, MappingProxyType(props), tuple(children), file, line, mine, text
    )
    return node, ordinal


def _plain(value: Any) -> Any:
    """A KDL value as plain data: a whole number as an int, a tagged value as its value."""
    value = getattr(value, "value", value)  # ckdl's Value (a type-annotated value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _kdl(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def front_matter(file: Path) -> dict[str, Any]:
    """A note's YAML front matter (Iron Vault keeps a character's sheet there), or bad input."""
    text = read_text(file)
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise BadInput(f"{file} has no front matter (a character note starts with ---)")
    try:
        end = next(n for n in range(1, len(lines)) if lines[n].strip() in ("---", "..."))
    except StopIteration as exc:
        raise BadInput(f"{file}: its front matter has no closing ---") from exc
    try:
        import yaml
    except ImportError as exc:
        raise BadInput(f"reading a character note needs PyYAML: {EXTRA}") from exc
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""
        raise BadInput(f"{file}{line}: its front matter is not valid YAML") from exc
    if not isinstance(data, dict):
        raise BadInput(f"{file}: its front matter is not a mapping of keys to values")
    return data
