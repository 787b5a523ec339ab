"""The fenced blocks of the project's Markdown pages (the README and `docs/`), as the tests
that run them read them.

A block whose text starts with `encounter new ` is a session: its lines are `encounter`
commands (a `#` starts a comment, `&&` joins two commands), run in order in a fresh folder. A
fence whose info string is exactly `python` runs too; `python notest` is shown, never run.
A `text` or `console` block shows what commands print: each line `$ encounter ...`, then the
lines it printed (a line `...` stands for any lines, a line ending in `...` for the rest of one).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Final, NamedTuple

from tests import paths

#: An opening fence with its info string, its text, and the closing fence.
FENCE: Final = re.compile(r"^```([^`\n]*)\n(.*?)^```$", re.S | re.M)
README: Final = paths.ROOT / "README.md"
DOCS: Final = paths.ROOT / "docs"


class Fence(NamedTuple):
    """One fenced block of a page: its info string, its text and the line it opens at."""

    info: str
    text: str
    line: int


def fences(page: Path) -> list[Fence]:
    """Every fenced block of a Markdown page, in order."""
    text = page.read_text(encoding="utf-8")
    return [
        Fence(m[1].strip(), m[2], text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)
    ]


def doc_pages() -> list[Path]:
    """Every page of the manual (`docs/**/*.md`), sorted."""
    return sorted(DOCS.rglob("*.md"))


def sessions(page: Path) -> list[Fence]:
    """The blocks of a page that open an encounter and run as written."""
    return [f for f in fences(page) if f.text.startswith("encounter new ")]


class Shown(NamedTuple):
    """A command a page shows beside what it printed, and the line of the page it is on."""

    args: tuple[str, ...]
    printed: tuple[str, ...]
    line: int


def shown(page: Path) -> list[Shown]:
    """Every `$ encounter ...` of a page's `text` and `console` blocks that shows what it
    printed, in order."""
    found = []
    for fence in fences(page):
        if fence.info not in ("text", "console"):
            continue
        command: tuple[tuple[str, ...], int] | None = None
        printed: list[str] = []
        for number, line in enumerate([*fence.text.splitlines(), "$ "], fence.line + 1):
            if not line.startswith("$ "):
                printed.append(line)
                continue
            if command is not None and printed:
                found.append(Shown(command[0], tuple(printed), command[1]))
            words = shlex.split(line[2:])
            command = (tuple(words[1:]), number) if words[:1] == ["encounter"] else None
            printed = []
    return found


def commands(text: str) -> list[list[str]]:
    """The `encounter` commands of a session block, each as its arguments after `encounter`."""
    found = []
    for line in text.splitlines():
        for part in line.split("#")[0].split("&&"):
            words = shlex.split(part)
            if words:
                assert words[0] == "encounter", words
                found.append(words[1:])
    return found


def label(page: Path, fence: Fence) -> str:
    """`docs/tour.md:22`: where a block is, for a test id."""
    return f"{page.relative_to(paths.ROOT).as_posix()}:{fence.line}"
