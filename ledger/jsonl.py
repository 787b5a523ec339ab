"""JSON Lines, the exchange format: reading lines and files, checking an exported chain,
admitting one imported line to a write, and writing a file whole or not at all.

An imported line may carry the envelope (`encounter`, `seq`, `id`, `recorded_at`, `hash`,
`prev_hash`): a stored id is a no-op when identical and bad input when not, a supplied seq must be
the next one, a supplied time is kept, and a supplied hash must match the recomputed chain.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Final

from ledger import dice, events, revise, systems
from ledger.dice import DiceReport
from ledger.errors import BadInput, UnknownName
from ledger.events import portable, versions
from ledger.events.portable import normalized
from ledger.read import UNCHAINED_NOTE
from ledger.store import Row, chain
from ledger.store.chain import ChainReport
from ledger.write import NOTHING_GIVEN, Given, Session
from projections import core

#: The largest event a line may hold, in bytes (UTF-8, without its line ending): a house
#: setting, `ENCOUNTER_MAX_EVENT_BYTES` in the environment.
MAX_EVENT_BYTES: Final = 1_000_000
_CAP_SETTING: Final = "ENCOUNTER_MAX_EVENT_BYTES"


def max_event_bytes() -> int:
    """The size cap of one event line: the house setting, else 1 MB."""
    text = os.environ.get(_CAP_SETTING, "").strip()
    if not text:
        return MAX_EVENT_BYTES
    try:
        cap = int(text)
    except ValueError:
        cap = 0
    if cap <= 0:
        raise BadInput(f"{_CAP_SETTING}={text!r} must be a whole number of bytes above 0")
    return cap


class Refused(ValueError):
    """JSON that parses but that the ledger refuses: a key given twice, nesting deeper than
    `MAX_DEPTH`, a whole number longer than `MAX_DIGITS`."""


#: How deeply a JSON value may nest (`ledger.events.portable`, which checks events alike).
MAX_DEPTH: Final = portable.MAX_DEPTH
#: The longest whole number a JSON value may hold, in digits (Python's own conversion limit).
MAX_DIGITS: Final = 4300


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is too large")
    return value


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise Refused(f"a whole number of {digits} digits (at most {MAX_DIGITS})")
    return int(text)


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON value")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A key given twice would silently mean its last value (a note posing as a harm).
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise Refused(f"key {key!r} is given twice")
            seen.add(key)
    return data


#: JSON as the exchange format reads it: no NaN or infinity, no key given twice.
STRICT: Final = json.JSONDecoder(
    object_pairs_hook=_unique, parse_float=_finite, parse_int=_whole, parse_constant=_no_constant
)


def loads(text: str) -> Any:
    """Strict JSON (see STRICT), nested at most `MAX_DEPTH` deep; ValueError says what is
    wrong (`Refused` for what parses but is refused; `json.JSONDecodeError` for what does not
    parse)."""
    try:
        data = STRICT.decode(text)
    except RecursionError as exc:
        raise Refused(f"JSON nested too deeply (more than {MAX_DEPTH} levels)") from exc
    # Each level opens with a bracket of the text (those inside strings only add to the
    # count): a line with fewer brackets than the limit cannot nest past it.
    if text.count("{") + text.count("[") > MAX_DEPTH:
        check_depth(data)
    return data


def check_depth(data: Any, what: str = "JSON") -> None:
    """`Refused` when `data` nests objects and arrays more than `MAX_DEPTH` deep (walked
    without recursion, so any depth is measured)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise Refused(f"{what} nested too deeply (more than {MAX_DEPTH} levels)")
            items = value.values() if isinstance(value, dict) else value
            stack.extend(
                (item, depth + 1) for item in items if isinstance(item, dict | list | tuple)
            )


def iter_lines(lines: Iterable[str], source: str = "input") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of JSON Lines, one line at a time: blank lines are skipped,
    anything else must be a JSON object within the size cap, its `seq` a whole number."""
    cap = max_event_bytes()
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\r\n")
        if not line or line.isspace():  # blank (no stripped copy of every line)
            continue
        # A character is at most 4 bytes: most lines are measured without encoding them.
        if len(line) * 4 > cap and (size := len(line.encode("utf-8", "surrogatepass"))) > cap:
            raise BadInput(
                f"{source} line {number}: the event is {size} bytes; one event may be at most "
                f"{cap} bytes ({_CAP_SETTING})"
            )
        try:
            data = loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{source} line {number}: malformed JSON: {exc.msg}") from exc
        except ValueError as exc:
            raise BadInput(f"{source} line {number}: {exc}") from exc
        if not isinstance(data, dict):
            raise BadInput(f"{source} line {number}: expected a JSON object, got {_kind(data)}")
        seq = data.get("seq")
        if seq is not None and type(seq) is not int:
            raise BadInput(
                f"{source} line {number}: 'seq' must be a whole number, not {json.dumps(seq)}"
            )
        yield number, data


def parse_lines(lines: Iterable[str], source: str = "input") -> list[dict[str, Any]]:
    """JSON Lines into objects; blank lines are skipped, anything else must be a JSON object."""
    return [data for _, data in iter_lines(lines, source)]


def chain_of(items: Iterable[Mapping[str, Any]], source: str = "input") -> ChainReport | None:
    """The hash chain of exported lines, recomputed as they are read (None: the lines carry no
    hashes, as a hand-written file does). A line without its envelope breaks the chain at its
    seq. The lines are not kept: a long file is checked in bounded memory."""
    reports = chains_of(((n, item) for n, item in enumerate(items, 1)), source, single=True)
    return reports[0] if reports else None


def chains_of(
    numbered: Iterable[tuple[int, Mapping[str, Any]]], source: str, *, single: bool = False
) -> list[ChainReport] | None:
    """The hash chain of each encounter of exported lines, each checked as its lines are read
    (the lines are not kept), in the order the encounters first appear; None when no line
    carries a hash. `single`: the lines must all be of one encounter."""
    checks: dict[str, chain.ChainCheck] = {}
    hashed = False
    for number, item in numbered:
        hashed = hashed or "hash" in item
        name = str(item.get("encounter", ""))
        check = checks.get(name)
        if check is None:
            if single and checks:
                first = next(iter(checks))
                raise BadInput(
                    f"{source} holds several encounters ({first}, {name}); read them one at a time"
                )
            check = checks[name] = chain.ChainCheck(name)
        if check.broken is not None:
            continue
        body = {
            k: v
            for k, v in item.items()
            if k != "type" and k not in events.ENVELOPE_KEYS and k not in events.ANNOTATION_KEYS
        }
        try:
            text = chain.CANONICAL.encode(body)
        except ValueError as exc:
            raise BadInput(f"{source} line {number}: {exc}") from exc
        check.feed(
            (
                item.get("encounter"),
                item.get("seq", check.count + 1),
                item.get("id"),
                item.get("type"),
                item.get("recorded_at"),
                text,
                item.get("prev_hash"),
                item.get("hash"),
            )
        )
    if not hashed:
        return None
    return [c.report() for c in checks.values()]


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), "null" if value is None else "a boolean"
    )


def check_time(value: Any) -> None:
    if not isinstance(value, str):
        raise BadInput(f"'recorded_at' must be an ISO 8601 string, got {value!r}")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise BadInput(f"'recorded_at' {value!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        raise BadInput(f"'recorded_at' {value!r} has no time zone (use UTC, ending in Z)")


#: The in-memory fold checkpoints a long import keeps (the newest; each holds a state).
_CHECKPOINTS_KEPT: Final = 8


class Importer:
    """One import's lines, admitted one at a time inside one write transaction.

    Lines that carry a hash chain carry it on every line from the first that does (a line
    without it could have been edited); `unchained` takes the lines without checking their
    hashes, and a note appended after them says so.
    """

    def __init__(
        self, session: Session, *, new_ids: bool, strict: bool, unchained: bool, source: str
    ) -> None:
        self.session = session
        self.new_ids, self.strict, self.unchained, self.source = new_ids, strict, unchained, source
        self.appended = self.already = 0
        self.chained_from: int | None = None
        self._prev: str | None = None
        self._first_new: int | None = None

    def admit(self, number: int, item: dict[str, Any]) -> None:
        """Admit the line numbered `number`, or raise bad input naming it."""
        try:
            if self.unchained or self.chained_from is not None or "hash" in item:
                self._check_chain(number, item)
            elif not item.keys().isdisjoint(_STORED_KEYS):
                given = ", ".join(repr(k) for k in _STORED_KEYS if k in item)
                raise BadInput(
                    f"the line carries {given} but no 'hash': a line copied from a ledger "
                    "without its hash may have been edited (import --unchained takes the lines "
                    "unverified, and the audit says so)"
                )
            done = admit_line(self.session, item, self.new_ids, self.strict)
        except BadInput as exc:
            raise exc.reworded(f"{self.source} line {number}: {exc}") from exc
        if done and self._first_new is None:
            self._first_new = self.session.seq
        checkpoints = self.session.checkpoints
        if len(checkpoints) > _CHECKPOINTS_KEPT:
            # Memory stays bounded: an undo that reaches further back refolds from the file.
            del checkpoints[:-_CHECKPOINTS_KEPT]
        self.appended += done
        self.already += 1 - done

    def finish(self) -> None:
        """After the last line: an unchained import records that its events were unverified."""
        if not (self.unchained and self.appended):
            return
        text = (
            f"{UNCHAINED_NOTE}: seqs {self._first_new}-{self.session.seq} from "
            f"{self.source}; their hash chain was not checked"
        )
        note = systems.parse({"type": "note", "text": text}, self.session.system())
        revise.admit(self.session, note, strict=False, audit=False)

    def _check_chain(self, number: int, item: dict[str, Any]) -> None:
        if self.unchained:
            item.pop("hash", None)
            item.pop("prev_hash", None)
            return
        if "hash" in item and self.chained_from is None:
            self.chained_from = number
        if self.chained_from is None:
            return
        if "hash" not in item:
            raise BadInput(
                f"no 'hash', but the lines carry a hash chain from line {self.chained_from}: "
                "a line without its hash may have been edited (import --unchained takes the "
                "lines unverified)"
            )
        if self.new_ids:
            # The copy gets a chain of its own: the lines' chain is checked as it stands.
            self._check_own_hash(item)

    def _check_own_hash(self, item: Mapping[str, Any]) -> None:
        prev = item.get("prev_hash", self._prev or chain.GENESIS)
        if self._prev is not None and prev != self._prev:
            raise BadInput("'prev_hash' is not the previous line's hash")
        body = {
            k: v
            for k, v in item.items()
            if k != "type" and k not in events.ENVELOPE_KEYS and k not in events.ANNOTATION_KEYS
        }
        try:
            digest = chain.hash_text(
                str(item.get("encounter")),
                int(item.get("seq", 0)),
                str(item.get("id")),
                str(item.get("type")),
                str(item.get("recorded_at")),
                chain.CANONICAL.encode(body),
                str(prev),
            )
        except ValueError as exc:
            raise BadInput(str(exc)) from exc
        if digest != item["hash"]:
            raise BadInput("'hash' does not match the line's contents: it was edited")
        self._prev = digest


#: The envelope keys a line copied from a ledger carries: without its `hash` beside them, such
#: a line may have been edited, and only `--unchained` takes it.
_STORED_KEYS: Final = ("id", "recorded_at", "prev_hash")
#: The keys of a line that are not its event's: its envelope and a reader's annotations.
_LINE_KEYS: Final = frozenset(events.ENVELOPE_KEYS) | frozenset(events.ANNOTATION_KEYS)


def admit_line(session: Session, item: dict[str, Any], new_ids: bool, strict: bool = False) -> int:
    """Admit one imported line: 1 when appended, 0 when it was already stored."""
    envelope: dict[str, Any] = {}
    # Most lines of a hand-written or converted file carry neither: one C pass says so.
    if not item.keys().isdisjoint(_LINE_KEYS):
        envelope = {k: item.pop(k) for k in events.ENVELOPE_KEYS if k in item}
        for key in events.ANNOTATION_KEYS:
            item.pop(key, None)
    if new_ids:
        for key in ("id", "seq", "hash", "prev_hash"):
            envelope.pop(key, None)
    chained = "hash" in envelope
    if not chained:
        # A line no hash covers is a new event: its texts in composed form, as any write's.
        item = normalized(item)
    kind = item.get("type")
    # A line an older version of its type wrote keeps its bytes when its hash covers them; so
    # does an opening, whose table may lack a house rule added since (read as it was played).
    older = (
        isinstance(kind, str)
        and "hash" in envelope
        and (kind == "encounter.opened" or versions.version_of(kind, item) < versions.current(kind))
    )
    system = session.system()
    event = systems.parse(item, system)
    id_ = envelope.get("id")
    if id_ is None and type(event) is events.EncounterOpened and system:
        raise BadInput(
            f"encounter {session.encounter!r} is already open ({system}), and "
            "this line has no id to match it with what is stored: import into a new name "
            "(--into NAME)"
        )
    if id_ is not None:
        if not isinstance(id_, str) or not id_.strip() or len(id_) > 100:
            raise BadInput("'id' must be a non-empty string of at most 100 characters")
        known = session.known_row(id_)
        if known is not None:
            return _same_as_stored(known, event, envelope, session)
    seq = envelope.get("seq")
    if seq is not None and seq != session.seq + 1:
        raise BadInput(f"'seq' is {seq!r}, but the encounter's next seq is {session.seq + 1}")
    recorded_at = envelope.get("recorded_at")
    if recorded_at is not None:
        check_time(recorded_at)
    as_stored = {k: v for k, v in item.items() if k != "type"} if older else None
    given = (
        Given(id=id_, recorded_at=recorded_at, as_stored=as_stored, chained=chained)
        if envelope or as_stored is not None
        else NOTHING_GIVEN  # a line of only its event: nothing of its own to keep
    )
    record, _ = revise.admit(session, event, strict=strict, audit=strict, given=given)
    if not envelope:
        return 1
    for key in ("prev_hash", "hash"):
        if key in envelope and envelope[key] != getattr(record, key):
            named = envelope.get("encounter")
            if isinstance(named, str) and named != session.encounter:
                raise BadInput(
                    f"{key!r} was computed for encounter {named!r}, and the chain includes the "
                    f"name: use --new-ids to copy it as {session.encounter!r}"
                )
            raise BadInput(f"{key!r} does not match the recomputed chain at seq {record.seq}")
    return 1


def _same_as_stored(
    row: Row, event: events.Event, envelope: Mapping[str, Any], session: Session
) -> int:
    if row.encounter != session.encounter:
        raise BadInput(
            f"event id {row.id!r} is already stored in encounter {row.encounter!r}; "
            "ids are global: use --new-ids to copy an encounter under another name"
        )
    system = session.system()
    if system is None and isinstance(event, events.EncounterOpened):
        system = event.system
    stored = systems.from_row(row, system or "?")
    if isinstance(event, events.EncounterOpened) and isinstance(
        stored.event, events.EncounterOpened
    ):
        ruleset = systems.ruleset(event.system)
        stored_rules = core.pinned_rules(ruleset, stored.event.rules, as_played=True)
        stored = replace(stored, event=stored.event.pinning(stored_rules))
        event = event.pinning(core.pinned_rules(ruleset, event.rules, as_played=True))
    same = (
        stored.type == events.type_of(event)
        and events.body_of(stored.event) == events.body_of(event)
        and all(
            envelope.get(k, getattr(stored, k)) == getattr(stored, k)
            for k in ("seq", "recorded_at", "hash", "prev_hash")
        )
    )
    if not same:
        raise BadInput(f"event id {stored.id!r} is already stored with different contents")
    return 0


# Files.


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


#: The UTF-8 byte order mark some editors put at the start of a file.
_BOM: Final = b"\xef\xbb\xbf"


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
            if offset == 0 and raw.startswith(_BOM):
                # A byte order mark, as Windows' Notepad writes UTF-8: not part of the JSON.
                raw, offset = raw[len(_BOM) :], len(_BOM)
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


def dice_of_file(path: str | Path) -> dict[str, DiceReport | None]:
    """The ledger-rolled dice of each encounter in an exported JSON Lines file, recomputed
    where their seed is revealed (`ledger.dice.check`), by encounter: the file is read once,
    a line at a time, so memory stays bounded at any size."""
    file = Path(path)
    checks = dice.Checks()
    for _, item in iter_lines(lines(file), str(file)):
        seq = item.get("seq")
        kind = item.get("type")
        if isinstance(seq, int) and isinstance(kind, str):
            body = {k: v for k, v in item.items() if k != "type" and k not in _LINE_KEYS}
            checks.step(str(item.get("encounter", "")), seq, kind, body)
    return checks.reports()


def verify_file(path: str | Path) -> list[ChainReport]:
    """Recompute the hash chain of each encounter in an exported JSON Lines file (nothing is
    written), reading the file once, a line at a time: memory stays bounded at any size."""
    file = Path(path)
    reports = chains_of(iter_lines(lines(file), str(file)), str(file))
    if not reports:
        raise BadInput(f"{file} carries no hashes to verify (export a ledger to get them)")
    return reports
