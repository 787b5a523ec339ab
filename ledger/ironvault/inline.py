"""Iron Vault's inline mechanics: with its "Use inline mechanics" setting, the plugin writes each
mechanic into the prose as a code span, `iv-move:Face Danger|shadow|4|2|0|1|6|move:...`, instead
of a block (its docs: "Other Features/Inline Mechanics.md").

Each span is read as the node its block would hold (`iv-move` a `move` holding its `roll` and
`burn`, `iv-meter` a `meter`, `iv-burn`, `iv-reroll`, `iv-oracle`), so that the system's planner
reads both alike. Inline spans carry no actor, and are not nested: the spans after an `iv-move`
in its paragraph belong to it until the next move, as Iron Vault appends them to the last move
of a block (a paragraph's spans are read as one block); a health loss right before an Endure
Harm move stays on its own, where the planner takes it for that move's harm. A span of any
other kind, or one whose numbers do not read, is a node of its own name (`iv-ooc`...), which
the planner keeps as a note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from projections.journal import Node

#: An inline code span holding an Iron Vault mechanic (single backticks, on one line).
SPAN: Final = re.compile(r"(?<!`)`(?P<code>iv-[a-z-]+:[^`]*)`(?!`)")
#: The spans that start a move of their own (and end the one before); any other span after an
#: `iv-move` in its paragraph belongs to it.
_MOVES: Final = frozenset({"iv-move", "iv-noroll", "iv-progress", "iv-action-roll"})


def spans(line: str) -> list[str]:
    """The inline mechanics of one line of prose, in order."""
    if "`iv-" not in line:
        return []
    return [match["code"] for match in SPAN.finditer(line)]


@dataclass(slots=True)
class _Made:
    """A node being made: its name, values, properties, children, and the span's text."""

    name: str
    args: tuple[Any, ...]
    props: dict[str, Any]
    line: int
    text: str
    children: list[_Made] = field(default_factory=list)


def nodes(found: Sequence[tuple[int, str]], file: str, ordinal: int) -> tuple[list[Node], int]:
    """The nodes of a run of inline spans (line, span), in order, numbered from `ordinal`
    in document order; and the next ordinal."""
    made = [_read(line, code) for line, code in found]
    top: list[_Made] = []
    move: _Made | None = None
    for index, item in enumerate(made):
        kind = found[index][1].split(":", 1)[0]
        after = made[index + 1] if index + 1 < len(made) else None
        if kind in _MOVES:
            move = item if item.name == "move" else None
            top.append(item)
        elif move is not None and not _harm_before(item, after):
            move.children.append(item)
        else:
            top.append(item)
    built = []
    for item in top:
        node, ordinal = _build(item, file, ordinal)
        built.append(node)
    return built, ordinal


def _harm_before(item: _Made, after: _Made | None) -> bool:
    """A health loss right before an Endure Harm move: that move's harm, not the last's."""
    if item.name != "meter" or after is None or after.name != "move":
        return False
    start, end = item.props["from"], item.props["to"]
    ident = _slug(str(after.props.get("id", "")))
    endure = ident.endswith("endure_harm") or _slug(str(after.args[0])) == "endure_harm"
    return _slug(str(item.args[0])) == "health" and end < start and endure


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _build(item: _Made, file: str, ordinal: int) -> tuple[Node, int]:
    mine = ordinal
    ordinal += 1
    children = []
    for child in item.children:
        node, ordinal = _build(child, file, ordinal)
        children.append(node)
    props = MappingProxyType(dict(item.props))
    node = Node(item.name, item.args, props, tuple(children), file, item.line, mine, item.text)
    return node, ordinal


def _read(line: int, code: str) -> _Made:
    """One span as the node its block would hold; a span that does not read, as itself."""
    kind, _, content = code.partition(":")
    parts = content.split("|")
    made = _known(kind, parts, line, code)
    return made if made is not None else _Made(kind, tuple(parts), {}, line, code)


def _known(kind: str, parts: list[str], line: int, code: str) -> _Made | None:
    if kind in ("iv-move", "iv-action-roll"):
        named = kind == "iv-move"
        head = 1 if named else 0
        if len(parts) < head + 6:
            return None
        numbers = _numbers(parts[head + 1 : head + 6])
        if numbers is None:
            return None
        action, stat, adds, vs1, vs2 = numbers
        stat_name = parts[head]
        dice = {"action": action, "stat": stat, "adds": adds, "vs1": vs1, "vs2": vs2}
        roll = _Made("roll", (stat_name,), dice, line, _kdl("roll", (stat_name,), dice))
        children = [roll]
        ident = None
        for extra in parts[head + 6 :]:
            if extra.startswith("burn="):
                burned = _numbers(extra[5:].split(":"))
                if burned is None or len(burned) != 2:
                    return None
                props = {"from": burned[0], "to": burned[1]}
                children.append(_Made("burn", (), props, line, _kdl("burn", (), props)))
            elif extra and not extra.startswith("adds="):
                ident = extra
        if not named:
            return _Made("roll", roll.args, roll.props, line, code)
        named_props: dict[str, Any] = {"id": ident} if ident else {}
        return _Made("move", (parts[0],), named_props, line, code, children)
    if kind == "iv-meter" and len(parts) == 3:
        numbers = _numbers(parts[1:])
        if numbers is None:
            return None
        return _Made("meter", (parts[0],), {"from": numbers[0], "to": numbers[1]}, line, code)
    if kind == "iv-burn" and len(parts) == 2:
        numbers = _numbers(parts)
        if numbers is None:
            return None
        return _Made("burn", (), {"from": numbers[0], "to": numbers[1]}, line, code)
    if kind == "iv-reroll" and len(parts) >= 3 and parts[0] in ("action", "vs1", "vs2"):
        numbers = _numbers(parts[2:3])
        if numbers is None:
            return None
        return _Made("reroll", (), {parts[0]: numbers[0]}, line, code)
    if kind == "iv-oracle" and len(parts) >= 3:
        numbers = _numbers(parts[1:2])
        if numbers is None:
            return None
        ident = next((p for p in parts[3:] if p and not p.startswith("cursed=")), None)
        name = f"[{parts[0]}]({ident})" if ident else parts[0]
        return _Made("oracle", (name,), {"roll": numbers[0], "result": parts[2]}, line, code)
    return None


def _numbers(texts: Sequence[str]) -> list[int] | None:
    """Whole numbers written as text, or None when one is not."""
    try:
        return [int(text.strip()) for text in texts]
    except ValueError:
        return None


def _kdl(name: str, args: tuple[Any, ...], props: dict[str, Any]) -> str:
    """A node as the KDL line its block would hold (the text of a step an inline move made)."""
    shown = [name, *(json.dumps(a) for a in args), *(f"{k}={v}" for k, v in props.items())]
    return " ".join(shown)
