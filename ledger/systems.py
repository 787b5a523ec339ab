"""The rule systems: one `projections.system.System` description each, found through the
`encounter.systems` entry points, and what the ledger asks of them by key (a ruleset, a
vocabulary of events, the owner of a verb).

Nothing is cached on disk: the entry points are read at each start, from the installed
distributions' `entry_points.txt` files (`_declared`, a few milliseconds; a test holds it to
`importlib.metadata`, which takes ten times that to import). A description is light (data and
the place of its ruleset), so a command loads every description it needs and one ruleset: the
encounter's. A system whose description does not load is a warning, once, and the others work.
"""

from __future__ import annotations

import configparser
import hashlib
import importlib
import itertools
import json
import os
import pkgutil
import sys
import warnings
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final, NamedTuple

import projections
from ledger import events
from ledger.errors import BadInput, LedgerWarning, did_you_mean
from projections.core import AnyRuleset
from projections.journal import Planner
from projections.ruleset import Ruleset
from projections.shown import Readings
from projections.system import System, article
from projections.verbs import Verb, option_names
from projections.verbs import stored_fields as verb_fields

#: The entry-point group a rule system declares itself in.
GROUP: Final = "encounter.systems"


class Declared(NamedTuple):
    """Where a system is declared: its object reference, its distribution and version."""

    reference: str
    origin: str
    version: str = ""
    #: Installed as a link to a source tree (`pip install -e`): its code changes under one
    #: version, so a snapshot's key also stamps its sources (`folded_by`).
    editable: bool = False


def _declared() -> dict[str, Declared]:
    """Every `encounter.systems` entry point of the installed distributions: key -> (object
    reference, distribution, its version), the first found on `sys.path` winning, as
    importlib.metadata has it; then each built-in system (a folder of `projections` with a
    `system` module) that no entry point names, as a source tree that was never installed has
    them (with no version)."""
    found: dict[str, Declared] = {}
    seen: set[str] = set()
    for path in sys.path:
        try:
            entries = sorted(os.scandir(path or "."), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")):
                continue
            named = entry.name.rsplit(".", 1)[0].split("-")
            project = named[0].lower().replace("-", "_")
            if project in seen:
                continue
            seen.add(project)
            declared = _group(os.path.join(entry.path, "entry_points.txt"))
            if not declared:
                continue
            # The version goes into a snapshot's key (`folded_by`).
            version = named[1] if len(named) > 1 else _version(entry.path)
            # An `.egg-info` beside its sources is a source tree (or `setup.py develop`).
            editable = entry.name.endswith(".egg-info") or _editable(entry.path)
            for key, reference in declared:
                found.setdefault(
                    key, Declared(reference, project.replace("_", "-"), version, editable)
                )
    references = {declared.reference for declared in found.values()}
    for package in sorted(pkgutil.iter_modules(projections.__path__), key=lambda m: m.name):
        reference = f"projections.{package.name}.system:SYSTEM"
        if package.ispkg and reference not in references:
            try:
                described = _load(reference)
            except ImportError:
                continue
            if isinstance(described, System):
                found.setdefault(described.key, Declared(reference, "built in"))
    return found


def _version(folder: str) -> str:
    """The `Version:` of a distribution's metadata (an `.egg-info` folder's name has none)."""
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for line in itertools.islice(f, 20):
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip()
        except (OSError, UnicodeDecodeError):
            continue
    return ""


def _editable(folder: str) -> bool:
    """Whether a distribution is installed editable: its `direct_url.json` (PEP 610) says so."""
    try:
        with open(os.path.join(folder, "direct_url.json"), encoding="utf-8") as f:
            told = json.load(f)
    except (OSError, ValueError):
        return False
    return isinstance(told, dict) and bool((told.get("dir_info") or {}).get("editable"))


def _group(path: str) -> list[tuple[str, str]]:
    """The entry points of `GROUP` in one `entry_points.txt` (none when it is unreadable)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return []
    if f"[{GROUP}]" not in text:
        return []
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys as written
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    return [(key.strip(), reference.strip()) for key, reference in parser.items(GROUP)]


class _Found:
    """The systems of this process: their references, and each description once loaded."""

    def __init__(self, declared: Mapping[str, Declared]) -> None:
        self.references = {key: found.reference for key, found in declared.items()}
        self.origins = {key: found.origin for key, found in declared.items()}
        #: What folds each system: its distribution and version, as a snapshot's key has it.
        self.folders = {
            key: f"{found.origin} {found.version}".strip() for key, found in declared.items()
        }
        #: The systems whose code may change under one version (editable, or a source tree).
        self.unversioned = {
            key for key, found in declared.items() if found.editable or not found.version
        }
        self._stamped: dict[str, str] = {}
        self._loaded: dict[str, System] = {}
        self._broken: dict[str, str] = {}
        self._told = False

    def system(self, key: str) -> System:
        if key in self._loaded:
            return self._loaded[key]
        reference = self.references.get(key)
        if reference is None:
            raise unknown(key, self.keys())
        try:
            described = _load(reference)
            if not isinstance(described, System) or described.key != key:
                raise TypeError(f"{reference} is not the System of {key!r}")
        except Exception as exc:  # a third party's module: a warning, never a traceback
            why = self._broken[key] = f"{type(exc).__name__}: {exc}"
            origin = self.origins.get(key) or "an unnamed distribution"
            raise BadInput(
                f"system {key!r} (from {origin}) does not load: {why}", code="unknown-system"
            ) from exc
        self._loaded[key] = described
        return described

    def every(self) -> tuple[System, ...]:
        """Every system that loads, in listing order (a warning, once, for any that does not)."""
        loaded = self._loadable()
        self.report()
        return loaded

    def _loadable(self) -> tuple[System, ...]:
        loaded = []
        for key in self.references:
            try:
                loaded.append(self.system(key))
            except BadInput:
                continue
        return tuple(sorted(loaded, key=lambda s: (s.listed, s.key)))

    def keys(self) -> tuple[str, ...]:
        """Every system found, those that load in listing order, then any that does not."""
        loaded = [s.key for s in self._loadable()]
        return (*loaded, *(k for k in self.references if k not in loaded))

    def report(self) -> None:
        """Say once which systems do not load."""
        if self._broken and not self._told:
            self._told = True
            for key, why in self._broken.items():
                warnings.warn(
                    f"rule system {key!r} ({self._where(key)}) does not load ({why}); "
                    "the other systems work",
                    LedgerWarning,
                    stacklevel=3,
                )

    def folded_by(self, key: str) -> str:
        folder = self.folders.get(key, "")
        if key not in self.unversioned:
            return folder
        if key not in self._stamped:
            top = self.references[key].partition(":")[0].partition(".")[0]
            self._stamped[key] = f"{folder} source {stamp([top, events.__name__])}".lstrip()
        return self._stamped[key]

    def _where(self, key: str) -> str:
        origin = self.origins.get(key) or "an unnamed distribution"
        return f"from {origin}, {self.references[key]}"


def _load(reference: str) -> Any:
    """The object named by `module:attribute`."""
    module, _, attribute = reference.partition(":")
    found: Any = importlib.import_module(module)
    for part in filter(None, attribute.split(".")):
        found = getattr(found, part)
    return found


@cache
def found() -> _Found:
    """The systems of this process (read once)."""
    return _Found(_declared())


def known() -> tuple[str, ...]:
    """The keys of every system that loads, in listing order."""
    return found().keys()


def get(key: str) -> System:
    """The description of one system, or bad input naming the known ones."""
    return found().system(key)


def every() -> tuple[System, ...]:
    """Every system's description that loads, in listing order."""
    return found().every()


def report() -> None:
    """Warn once of each system that does not load."""
    found().report()


def journal(format: str) -> tuple[System, Planner]:
    """The system that reads a journal format (the first listed), and its planner."""
    for system in every():
        reference = system.journals.get(format)
        if reference is not None:
            try:
                planner: Planner = _load(reference)
            except Exception as exc:
                raise BadInput(
                    f"the {format} reader of {system.key!r} ({reference}) does not load "
                    f"({type(exc).__name__}: {exc})",
                    code="unknown-system",
                ) from exc
            return system, planner
    raise BadInput(f"no rule system reads {format} journals", code="unknown-system")


def folded_by(key: str) -> str:
    """What folds a system's encounters: its distribution and that distribution's version
    (`encounter-ledger 0.2.0`). A snapshot is keyed by it, so that a fold of another release,
    which may fold the same events otherwise, never reads it. Where the code can change under
    one version (an editable install, a source tree), the key also stamps the sources the fold
    runs: the system's top package and the event vocabulary (`stamp`)."""
    return found().folded_by(key)


def stamp(packages: Sequence[str]) -> str:
    """A digest of the Python sources of some packages as the interpreter judges them current:
    each file's path, size and modification time, which is what decides whether Python
    compiles a module again. An edit of any file of them changes it (half a millisecond for
    the engine's 70 files, where their text would take 6)."""
    digest = hashlib.sha256()
    for name in packages:
        module = importlib.import_module(name)
        roots = list(getattr(module, "__path__", ())) or [module.__file__ or ""]
        for root in roots:
            for path in sorted(_sources(root)):
                try:
                    seen = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{seen.st_size}\0{seen.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _sources(root: str) -> list[str]:
    """The `.py` files of a package folder (or the one file of a module)."""
    if not os.path.isdir(root):
        return [root] if root.endswith(".py") else []
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        found += [os.path.join(folder, f) for f in files if f.endswith(".py")]
    return found


@cache
def ruleset(key: str) -> AnyRuleset:
    """The ruleset of a system (its events, fold, audit and words; imported on first use)."""
    described = get(key)
    try:
        loaded = _load(described.ruleset)
    except Exception as exc:
        raise BadInput(
            f"the ruleset of {key!r} ({described.ruleset}) does not load "
            f"({type(exc).__name__}: {exc})",
            code="unknown-system",
        ) from exc
    if not isinstance(loaded, Ruleset) or loaded.key != key:
        raise BadInput(f"{described.ruleset} is not the ruleset of {key!r}", code="unknown-system")
    return loaded


def readings(key: str) -> Readings:
    """How the tracks of a system read (`projections.shown`)."""
    found: Readings = ruleset(key).state.readings
    return found


@cache
def vocabulary(key: str) -> events.Vocabulary:
    """The events of a system, by type (the common ones, then its own)."""
    return events.Vocabulary.of(key, ruleset(key).own_events, lambda kind: owners_of(kind, key))


def owners_of(kind: str, system: str | None = None) -> list[str]:
    """The systems other than `system` that have an event type `kind`, each key with its
    article (`an oath`); for an error's words only: it loads every system's events."""
    return [
        other.article() for other in every() if other.key != system and kind in _types(other.key)
    ]


def _types(key: str) -> tuple[str, ...]:
    try:
        return vocabulary(key).types
    except BadInput:
        return ()


def parse(data: Mapping[str, Any], system: str | None) -> events.Event:
    """Validate one event for an encounter of `system` (None: not opened yet); an
    `encounter.opened` in the vocabulary of the system it opens."""
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadInput("event has no 'type' (a string such as \"hit.resolved\")")
    if kind == "encounter.opened":
        opened = events.versions.upcast(kind, data).get("system")
        if not isinstance(opened, str):
            raise BadInput(
                "encounter.opened needs 'system', the key of a rule system "
                f"(known: {', '.join(known())})",
                code="unknown-system",
            )
        system = opened
    elif system is None:
        raise BadInput(f"a {kind!r} event needs an encounter opened first")
    return events.parse(data, vocabulary(system))


def from_row(row: Sequence[Any], system: str) -> events.Recorded:
    """A stored row of an encounter of `system` as the record it holds."""
    return events.from_row(row, vocabulary(system))


@cache
def verbs(key: str) -> tuple[Verb, ...]:
    """The verbs of a system (imported on first use); they must be those its description
    names (TypeError otherwise, as for any system that does not load)."""
    described = get(key)
    if described.verbs is None:
        return ()
    found = _load(described.verbs)
    if not isinstance(found, tuple) or not all(isinstance(v, Verb) for v in found):
        raise TypeError(f"{described.verbs} is not a tuple of projections.verbs.Verb")
    names = tuple(v.name for v in found)
    if sorted(names) != sorted(described.verb_names):
        raise TypeError(
            f"{described.verbs} has the verbs {', '.join(names) or 'none'}; the description of "
            f"{key!r} names {', '.join(described.verb_names) or 'none'}"
        )
    return found


def _verbs_or_none(key: str) -> tuple[Verb, ...]:
    # A third party's verbs that do not load name no option: their stored names still work.
    try:
        return verbs(key)
    except (TypeError, ImportError, AttributeError, BadInput):
        return ()


def stored_fields(key: str, kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` of an event of type `kind` in system `key`, each given by the option name of
    a verb that records that type (`using`, `--against`, `increase`) renamed to the field it
    fills (`stat`, `opposing`, `increases`); a stored field name stays as it is."""
    model = vocabulary(key).models.get(kind)
    # `type` is no field to correct: `--type` of a verb (`damage --type`) names its own.
    stored = [n for n in (model.model_fields if model is not None else ()) if n != "type"]
    try:
        return verb_fields(_verbs_or_none(key), kind, fields, stored)
    except ValueError as exc:
        raise BadInput(str(exc)) from exc


def field_names(key: str, kind: str) -> list[str]:
    """The names a field of `kind` may be given by: its stored names, then the option names
    of the verbs that record it."""
    model = vocabulary(key).models.get(kind)
    stored = [n for n in (model.model_fields if model is not None else ()) if n != "type"]
    options = option_names(_verbs_or_none(key), kind)
    return [*stored, *(o for o in options if o not in stored)]


def verb_owner(verb: str) -> str | None:
    """The key of the system whose verb `verb` is, if any (no ruleset is loaded)."""
    for described in found()._loadable():
        if verb in described.verb_names:
            return described.key
    return None


def refuse_other(encounter: str, system: str, verb: str | None, kind: object) -> None:
    """Bad input (`wrong-system`) when the verb `verb`, or the event type `kind`, is another
    system's than `system`, the encounter's: "`VERB` is a SYSTEM verb; 'NAME' is an OTHER
    encounter". A type nobody has is left for the parse to refuse."""
    owner = verb_owner(verb) if verb is not None else None
    if owner is not None and owner != system:
        raise BadInput(
            f"`{verb}` is {article(owner)} verb; {encounter!r} is {article(system)} encounter",
            code="wrong-system",
        )
    if owner is None and isinstance(kind, str) and kind not in _types(system):
        others = owners_of(kind, system)
        if others:
            raise BadInput(
                f"{kind!r} is {' and '.join(others)} event; {encounter!r} is "
                f"{article(system)} encounter",
                code="wrong-system",
            )


def unknown(key: str, keys: tuple[str, ...]) -> BadInput:
    """Bad input for a system key nobody declares."""
    return BadInput(
        f"unknown system {key!r}{did_you_mean(key, keys)} (known: {', '.join(keys)})",
        code="unknown-system",
    )


__all__ = [
    "System",
    "article",
    "every",
    "from_row",
    "get",
    "known",
    "owners_of",
    "parse",
    "readings",
    "refuse_other",
    "report",
    "ruleset",
    "unknown",
    "verb_owner",
    "verbs",
    "vocabulary",
]
