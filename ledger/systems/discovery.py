"""Finding the rule systems: the `encounter.systems` entry points, then any built-in one that no
entry point names (a source tree that was never installed), with the result cached per
environment. Systems are listed by their descriptions' `listed`, then by key.

`importlib.metadata` reads every installed distribution's metadata to answer one group, and
checking a description means importing it; so the answer (each system's key, where
its description is, its verbs) is kept in a small file under the user's cache directory, keyed
by the interpreter, `sys.path` and the modification times of its entries (an install or an
uninstall changes them). The file is a hint, never trusted blindly: a system or a verb that it
does not know, or a description that no longer loads, rescans.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from ledger.errors import BadInput, LedgerWarning
from ledger.systems import System, load, unknown

#: The entry-point group a rule system declares itself in.
GROUP: Final = "encounter.systems"
#: Bumped when the cache file's shape changes.
_FORMAT: Final = 3
#: The package whose modules are the built-in descriptions.
_BUILT_IN: Final = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Entry:
    """One declared system: its key, where its description is, who declares it, its verbs."""

    key: str
    reference: str
    origin: str
    verbs: tuple[str, ...] = ()
    #: Why its description does not load (None: it loads).
    broken: str | None = None
    #: Its description's `listed` (a broken one comes after the others).
    listed: int = 1000


class Found:
    """The systems of this environment, in listing order, and the owner of each verb."""

    def __init__(self, entries: list[Entry], cached: bool) -> None:
        self.entries = {e.key: e for e in entries}
        self.verbs = {verb: e.key for e in reversed(entries) for verb in e.verbs}
        #: Whether this came from the cache file (a miss then rescans).
        self.cached = cached

    def system(self, key: str) -> System:
        """The description of `key`; a key or description the cache got wrong rescans."""
        entry = self.entries.get(key)
        if entry is None or entry.broken:
            if self.cached:
                return rescan().system(key)
            if entry is None:
                raise unknown(key, tuple(self.entries))
            raise BadInput(f"system {key!r} ({entry.origin}) does not load: {entry.broken}")
        try:
            found = _description(entry)
        except Exception:
            if self.cached:
                return rescan().system(key)
            raise
        return found

    def loaded(self) -> tuple[System, ...]:
        """Every description that loads (a broken one was reported when it was found)."""
        out = []
        for key, entry in self.entries.items():
            if entry.broken is None:
                try:
                    out.append(self.system(key))
                except BadInput:
                    continue
        return tuple(out)


_found: Found | None = None


def found() -> Found:
    """The systems of this environment (the cache file when it is current, else a scan)."""
    global _found
    if _found is None:
        stamp = _stamp()
        entries = _read_cache(stamp)
        _found = Found(entries, cached=True) if entries is not None else _scan(stamp)
    return _found


def rescan() -> Found:
    """Scan again, whatever the cache says, and rewrite it."""
    global _found
    _found = _scan(_stamp())
    return _found


def forget() -> None:
    """Drop what this process found (the next question reads the cache or scans again)."""
    global _found
    _found = None


def _scan(stamp: list[Any]) -> Found:
    entries = []
    problems = []
    seen: dict[str, str] = {}
    # Entry points come in no order a distribution can rely on: by key here, then by `listed`.
    for key, reference, origin in sorted(_declared(), key=lambda d: d[0]):
        if key in seen:
            if seen[key] != reference:
                problems.append(
                    f"system {key!r} is declared twice ({seen[key]} and {reference}, "
                    f"{origin}); the first is used"
                )
            continue
        seen[key] = reference
        entry = Entry(key, reference, origin)
        try:
            description = _description(entry)
            verbs, listed = description.verb_names, description.listed
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
            problems.append(
                f"rule system {key!r} ({origin}, {reference}) does not load ({why}); "
                "the other systems work"
            )
            entries.append(Entry(key, reference, origin, broken=why))
            continue
        entries.append(Entry(key, reference, origin, verbs, listed=listed))
    entries.sort(key=lambda e: (e.listed, e.key))
    _write_cache(stamp, entries)
    # Said once, by `report`: the cache remembers a broken system, and later commands stay
    # quiet about it until it is asked for.
    _pending.extend(problems)
    return Found(entries, cached=False)


#: What the last scan found wrong, not yet said.
_pending: list[str] = []


def pending() -> bool:
    """Whether the last scan found something wrong that `report` has not said yet."""
    return bool(_pending)


def report() -> None:
    """Warn (`LedgerWarning`) about what the last scan found wrong, once."""
    while _pending:
        warnings.warn(_pending.pop(0), LedgerWarning, stacklevel=2)


def _declared() -> Iterator[tuple[str, str, str]]:
    """(key, reference, origin) of every declaration: entry points first, then any built-in
    description no entry point names (a source tree that was never installed)."""
    # Imported here: reading installed metadata costs more than the cache file it is kept in.
    from importlib import metadata

    named = set()
    for point in metadata.entry_points(group=GROUP):
        dist = point.dist.name if point.dist is not None else "an unnamed distribution"
        named.add(point.value)
        yield point.name, point.value, f"from {dist}"
    for key, reference in _built_in():
        if reference not in named:
            yield key, reference, "built in"


def _built_in() -> Iterator[tuple[str, str]]:
    """(key, reference) of every description module of this package."""
    import pkgutil

    for module in pkgutil.iter_modules([str(_BUILT_IN)]):
        if module.name != "discovery":
            reference = f"{__package__}.{module.name}:SYSTEM"
            yield load(reference).key, reference


def _description(entry: Entry) -> System:
    system = load(entry.reference)
    if not isinstance(system, System):
        raise TypeError(f"{entry.reference} is a {type(system).__name__}, not a System")
    if system.key != entry.key:
        raise ValueError(f"{entry.reference} describes {system.key!r}, not {entry.key!r}")
    return system


# The cache file.


def _stamp() -> list[Any]:
    """What the answer depends on: the interpreter, the built-in descriptions' folder, and
    each `sys.path` entry with its modification time (installing or upgrading a distribution,
    this one too, changes its directory's). Not the ledger's version: reading it parses the
    whole of its metadata, which would cost more than the scan this file saves."""

    def mtime(path: str | Path) -> int | None:
        try:
            return os.stat(path or ".").st_mtime_ns
        except OSError:
            return None

    return [
        _FORMAT,
        sys.executable,
        mtime(_BUILT_IN),
        [[entry, mtime(entry)] for entry in _path()],
    ]


def _path() -> list[str]:
    """`sys.path` without the working directory (`python -m ledger` puts it first): the ledger
    file's writes change its modification time, and a system installed there is found anyway,
    as a system the cache does not know."""
    here = os.getcwd()
    return [entry for entry in sys.path if entry not in ("", here)]


def cache_file() -> Path:
    """This environment's cache file: `$XDG_CACHE_HOME/encounter-ledger/` (or `~/.cache`)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256(f"{sys.executable}\0{_path()}".encode()).hexdigest()[:16]
    return Path(root) / "encounter-ledger" / f"systems-{digest}.json"


def _read_cache(stamp: list[Any]) -> list[Entry] | None:
    try:
        document = json.loads(cache_file().read_text(encoding="utf-8"))
        if document["stamp"] != stamp:
            return None
        return [
            Entry(
                e["key"],
                e["reference"],
                e["origin"],
                tuple(e["verbs"]),
                e.get("broken") or None,
                e["listed"],
            )
            for e in document["entries"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing, unreadable or another shape: scan


def _write_cache(stamp: list[Any], entries: list[Entry]) -> None:
    path = cache_file()
    document = {"stamp": stamp, "entries": [asdict(e) for e in entries]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(document), encoding="utf-8")
        # A reader sees the old file or the new one, never half of one.
        os.replace(partial, path)
    except OSError:
        pass  # a read-only home: every command scans, nothing else changes
