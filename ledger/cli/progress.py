"""Progress on long work, for people: a rich progress bar on stderr while `import`, `verify`
or `audit` works through a large input, only when stderr is a terminal and `--json` is not
given (nothing when piped, so scripts and logs see only the result). The bar is erased when
the work ends.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Final, TypeVar

T = TypeVar("T")

#: Inputs below these sizes finish too soon for a bar to help.
LARGE_EVENTS: Final = 5_000
LARGE_BYTES: Final = 512 * 1024


def wanted(json_: bool) -> bool:
    """A bar helps: a person watches stderr and no tool reads the output."""
    return not json_ and sys.stderr.isatty()


@contextmanager
def bar(description: str, total: int | None, show: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar (pulsing when `total` is None); yields `advance(n)`. With `show`
    false, nothing is drawn and `advance` does nothing."""
    if not show:
        yield _nothing
        return
    from ledger.cli import terminal  # rich, for a terminal only (see `render.show`)

    yield from terminal.bar(description, total)


def _nothing(n: int) -> None:
    return None


def by_size(lines: Iterable[str], advance: Callable[[int], None]) -> Iterator[str]:
    """The lines, advancing the bar by each line's size in bytes as it is consumed."""
    for line in lines:
        advance(len(line.encode("utf-8")))
        yield line
