"""JSON Lines files read without a ledger file: a shared session, an export to verify."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ledger import exchange
from ledger.chain import ChainReport
from ledger.errors import BadInput, BrokenChain, UnknownName
from ledger.service import Ledger
from ledger.storefile import SCRATCH


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
        raise UnknownName(f"no such file: {file}", code="no-file") from exc
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


def write_whole(out: Path, chunks: Iterable[str], *, force: bool = False) -> None:
    """Write `chunks` to `out` whole or not at all: into a temporary file in the same folder,
    flushed to disk, then renamed into place, so a full disk or a crash never leaves a partial
    file nor destroys the one there. A symbolic link is not followed, nor an existing file
    replaced, unless `force`."""
    if out.is_symlink() and not force:
        raise BadInput(
            f"{out} is a symbolic link: it is not followed (--force writes where it points)"
        )
    target = out.resolve() if force else out
    if target.is_dir():
        raise BadInput(f"cannot write {out}: it is a folder")
    if target.exists() and not force:
        raise BadInput(f"{out} already exists: choose another file, or --force to replace it")
    try:
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror}") from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            for chunk in chunks:
                stream.write(chunk)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes the file private; an export gets the mode a plain write would give it.
        os.chmod(temporary, _mode(target))
        _put(Path(temporary), target, force)
        _sync_folder(target.parent)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, FileExistsError):
            raise BadInput(f"{out} already exists: choose another file, or --force") from exc
        if isinstance(exc, OSError):
            raise BadInput(
                f"cannot write {out}: {exc.strerror or exc} (nothing was changed there)"
            ) from exc
        raise


def _put(temporary: Path, target: Path, replace: bool) -> None:
    if replace:
        os.replace(temporary, target)
        return
    try:
        # A link fails if the name was taken meanwhile: never over a file that appeared.
        os.link(temporary, target)
    except OSError as exc:
        if isinstance(exc, FileExistsError) or exc.errno not in (errno.EPERM, errno.ENOTSUP):
            raise
        if target.exists():  # a file system without hard links
            raise FileExistsError(errno.EEXIST, "File exists", str(target)) from exc
        os.replace(temporary, target)
    else:
        os.unlink(temporary)


def _sync_folder(folder: Path) -> None:
    # The rename itself reaches the disk only with its folder.
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def load(path: str | Path) -> tuple[Ledger, str]:
    """A JSON Lines file read into a scratch ledger (nothing written where the file is), and its
    encounter. The file is read twice, as a stream: once for its chain, once into the ledger,
    whose rows SQLite keeps in a temporary file, so memory stays bounded."""
    file = Path(path)
    items = (item for _, item in exchange.iter_lines(lines(file), str(file)))
    report = exchange.chain_of(items, str(file))
    if report is not None and not report.ok:
        raise BrokenChain(f"{file}: the chain is broken at seq {report.bad_seq}: {report.problem}")
    ledger = Ledger(SCRATCH)
    try:
        result = ledger.import_lines(lines(file), source=str(file))
    except BaseException:
        ledger.close()
        raise
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
