"""JSON Lines files read without a ledger file: a shared session, an export to verify."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ledger import exchange
from ledger.chain import ChainReport
from ledger.errors import BadInput, BrokenChain, UnknownName
from ledger.service import Ledger


def read_text(file: Path) -> str:
    """A UTF-8 text file, or bad input naming what is wrong with it."""
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UnknownName(f"no such file: {file}", code="no-file") from exc
    except UnicodeDecodeError as exc:
        raise BadInput(f"{file} is not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise BadInput(f"cannot read {file}: {exc.strerror}") from exc


def lines(file: Path) -> Iterator[str]:
    """The lines of a UTF-8 text file, read as they are needed (memory stays bounded); the file
    is opened now, so a missing one is told before anything else happens."""
    try:
        handle = file.open("rb")
    except FileNotFoundError as exc:
        raise UnknownName(f"no such file: {file}") from exc
    except OSError as exc:
        raise BadInput(f"cannot read {file}: {exc.strerror}") from exc
    return _decoded(handle, str(file))


def stdin_lines() -> Iterator[str]:
    """The lines of standard input, read as they are needed."""
    return _decoded(sys.stdin.buffer, "stdin")


def _decoded(handle: IO[bytes], name: str) -> Iterator[str]:
    offset = 0
    try:
        for raw in handle:
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadInput(f"{name} is not UTF-8 text (byte {offset + exc.start})") from exc
            offset += len(raw)
    except OSError as exc:
        raise BadInput(f"cannot read {name}: {exc.strerror}") from exc
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()


def load(path: str | Path) -> tuple[Ledger, str]:
    """A JSON Lines file read into an in-memory ledger (nothing written), and its encounter."""
    file = Path(path)
    # Split at newlines only: an event's text may hold U+2028, which splitlines() splits at.
    read = list(lines(file))
    report = exchange.chain_of(exchange.parse_lines(read, str(file)), str(file))
    if report is not None and not report.ok:
        raise BrokenChain(f"{file}: the chain is broken at seq {report.bad_seq}: {report.problem}")
    ledger = Ledger(":memory:")
    result = ledger.import_lines(read, source=str(file))
    return ledger, result.encounter


def verify_file(path: str | Path) -> list[ChainReport]:
    """Recompute the hash chain of each encounter in an exported JSON Lines file (nothing is
    written)."""
    file = Path(path)
    items = exchange.parse_lines(list(lines(file)), str(file))
    by_encounter: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_encounter.setdefault(str(item.get("encounter", "")), []).append(item)
    reports = [exchange.chain_of(lines, str(file)) for lines in by_encounter.values()]
    if not reports or any(r is None for r in reports):
        raise BadInput(f"{file} carries no hashes to verify (export a ledger to get them)")
    return [r for r in reports if r is not None]
