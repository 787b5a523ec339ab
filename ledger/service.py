"""The use cases: record, undo, redo, import, and the reads, over one ledger file.

Every write runs inside one store transaction: read the head, fold to it, validate the new events
against that state, compute the findings they raise, append. Bad input raises before anything is
appended; a broken rule is appended and reported (or refused with `strict`).

Reads stream the stored rows through one fold (a long encounter is never held as a list), and a
write refolds only from the last checkpoint before what an undo or redo changes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, SerializeAsAny

from ledger import events
from ledger.errors import BadInput, RuleRefused, UnknownName
from ledger.store import ChainReport, Head, Store, Writer, now_utc, recorded
from projections import audit as audit_rules
from projections import core
from projections.findings import Finding
from projections.registry import RULESETS, ruleset

DEFAULT_DB = "encounters.db"
#: A write keeps the folded state every this many seqs, so an undo refolds at most this many
#: events before what it changes (instead of the whole encounter).
CHECKPOINT_EVERY: Final = 256


class Recorded(BaseModel, frozen=True):
    """What a write did: the events appended, the findings they raise, the tracks they changed."""

    records: tuple[events.Recorded, ...]
    findings: tuple[Finding, ...] = ()
    changes: tuple[core.Change, ...] = ()
    state: SerializeAsAny[core.State]

    @property
    def seq(self) -> int:
        """The last seq appended (or the head, when nothing new was appended)."""
        return self.records[-1].seq if self.records else self.state.seq


class Imported(BaseModel, frozen=True):
    """What an import did."""

    encounter: str
    appended: int
    already_stored: int
    head: int


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is too large")
    return value


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON value")


def parse_lines(lines: Iterable[str], source: str = "input") -> list[dict[str, Any]]:
    """JSON Lines into objects; blank lines are skipped, anything else must be a JSON object."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_float=_finite, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{source} line {number}: malformed JSON: {exc.msg}") from exc
        except RecursionError as exc:
            raise BadInput(f"{source} line {number}: JSON nested too deeply") from exc
        except ValueError as exc:
            raise BadInput(f"{source} line {number}: {exc}") from exc
        if not isinstance(data, dict):
            raise BadInput(f"{source} line {number}: expected a JSON object, got {_kind(data)}")
        out.append(data)
    return out


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), "null" if value is None else "a boolean"
    )


Checkpoint = tuple[int, core.State]


class _Folded:
    """An encounter folded to its head: the state, the retractions and the seqs they exclude,
    and checkpoints (the state after every CHECKPOINT_EVERY-th seq) to refold from."""

    def __init__(
        self,
        seq: int,
        hash: str,
        state: core.State | None,
        retractions: list[events.Recorded],
        gone: frozenset[int],
        checkpoints: list[Checkpoint],
    ) -> None:
        self.seq = seq
        self.hash = hash
        self.state = state
        self.retractions = retractions
        self.gone = gone
        self.checkpoints = checkpoints


def _fold_forward(
    records: Iterable[events.Recorded],
    gone: frozenset[int],
    state: core.State | None,
    checkpoints: list[Checkpoint] | None = None,
) -> core.State | None:
    """Fold `records` (skipping `gone`) on top of `state`, keeping checkpoints on the way."""
    folder = core.Folder(RULESETS, state)
    for record in records:
        if record.seq not in gone:
            folder.add(record)
        if checkpoints is not None and record.seq % CHECKPOINT_EVERY == 0:
            assert folder.state is not None
            checkpoints.append((record.seq, folder.state))
    return folder.state


class _Session:
    """The state of one encounter inside a write transaction, kept at the writer's head.

    The encounter is folded on first need: re-importing events that are all stored already
    never folds at all.
    """

    def __init__(self, ledger: Ledger, writer: Writer) -> None:
        self.writer = writer
        self._ledger = ledger
        self._ready = False
        self.state: core.State | None = None
        self.retractions: list[events.Recorded] = []
        self.gone: frozenset[int] = frozenset()
        self.checkpoints: list[Checkpoint] = []

    def ready(self) -> _Session:
        """Fold to the writer's head (once)."""
        if not self._ready:
            folded = self._ledger._folded_at_head(self.writer)
            self.state = folded.state
            # Copies: the cached lists must not see what a transaction that may roll back adds.
            self.retractions = list(folded.retractions)
            self.gone = folded.gone
            self.checkpoints = list(folded.checkpoints)
            self._ready = True
        return self

    def system(self) -> str | None:
        return self.writer.system

    def folded(self) -> _Folded | None:
        """What the ledger may cache once the transaction commits (None: nothing was folded)."""
        if not self._ready:
            return None
        return _Folded(
            self.writer.seq,
            self.writer.hash,
            self.state,
            self.retractions,
            self.gone,
            self.checkpoints,
        )

    def admit(
        self,
        event: events.Event,
        *,
        strict: bool,
        audit: bool = True,
        id: str | None = None,
        recorded_at: str | None = None,
    ) -> tuple[events.Recorded, list[Finding]]:
        """Validate one event against the head state, append it, and return its findings."""
        before = self.ready().state
        seq = self.writer.seq + 1
        if isinstance(event, events.EncounterOpened):
            if before is not None:
                raise BadInput(
                    f"encounter {self.writer.encounter!r} is already open "
                    f"({before.system}); encounter.opened comes once, at seq 1"
                )
            rules = core.pinned_rules(ruleset(event.system), event.rules)
            event = event.model_copy(update={"rules": rules})
        elif before is None:
            raise UnknownName(f"encounter {self.writer.encounter!r} does not exist yet")
        if isinstance(event, events.EventRetracted):
            assert before is not None
            return self._retract(event, before, strict=strict, id=id, recorded_at=recorded_at)
        probe = recorded(self.writer.encounter, seq, id or "", "", "", "", event)
        folder = core.Folder(RULESETS, before)
        after = folder.add(probe, strict=True)
        found: list[Finding] = []
        if before is not None and (audit or strict):
            found = audit_rules.for_event(folder.ruleset, before, probe, after, {})
            if strict and any(f.severity == "error" for f in found):
                raise RuleRefused(_refusal(found))
        record = self.writer.append(event, id=id, recorded_at=recorded_at)
        self.state = after
        if record.seq % CHECKPOINT_EVERY == 0:
            self.checkpoints.append((record.seq, after))
        return record, found

    def _retract(
        self,
        event: events.EventRetracted,
        before: core.State,
        *,
        strict: bool,
        id: str | None,
        recorded_at: str | None,
    ) -> tuple[events.Recorded, list[Finding]]:
        target, top = event.target, self.writer.seq
        if target > top:
            raise UnknownName(
                f"seq {target} is not in encounter {self.writer.encounter!r} (seqs 1-{top})"
            )
        if target == 1:
            raise BadInput("seq 1 (encounter.opened) cannot be retracted")
        if target in self.gone:
            by = _retracted_by(self.retractions, target, self.gone)
            raise BadInput(
                f"seq {target} is already retracted (by seq {by}); use redo to restore it"
            )
        record = self.writer.append(event, id=id, recorded_at=recorded_at)
        retractions = [*self.retractions, record]
        gone = core.excluded(retractions)
        # Everything before the first seq whose standing changed folds as it did: refold from
        # the last checkpoint before it.
        fork = min(gone ^ self.gone)
        checkpoints = [c for c in self.checkpoints if c[0] < fork]
        start, state = checkpoints[-1] if checkpoints else (0, None)
        types: dict[int, str] = {}

        def remember_target(records: Iterator[events.Recorded]) -> Iterator[events.Recorded]:
            for r in records:
                if r.seq == target:
                    types[target] = r.type
                yield r

        after = _fold_forward(remember_target(self.writer.records(start)), gone, state, checkpoints)
        assert after is not None
        if strict and len(after.skipped) > len(before.skipped):
            lost = after.skipped[-1]
            raise RuleRefused(
                f"refused (--strict): retracting seq {target} leaves seq {lost.seq} "
                f"({lost.type}) orphaned: {lost.reason}"
            )
        found = audit_rules.for_event(RULESETS[before.system], before, record, after, types)
        self.state, self.retractions, self.gone = after, retractions, gone
        self.checkpoints = checkpoints
        return record, found


def _retracted_by(retractions: Sequence[events.Recorded], target: int, gone: frozenset[int]) -> int:
    for r in reversed(retractions):
        if (
            isinstance(r.event, events.EventRetracted)
            and r.event.target == target
            and r.seq not in gone
        ):
            return r.seq
    return 0


def _refusal(found: Sequence[Finding]) -> str:
    first = next(f for f in found if f.severity == "error")
    return f"refused (--strict): [{first.rule}] {first.message}"


class Ledger:
    """One ledger file: the library API that the CLI is built on (for bots and VTT bridges).

    >>> with Ledger("duel.db") as ledger:                                  # doctest: +SKIP
    ...     ledger.open("duel", "ssss")
    ...     ledger.record("duel", {"type": "combatant.joined", "name": "Guard",
    ...                            "side": "adversary", "stats": {"level": 1}})
    ...     ledger.tracks("duel").view()["combatants"]["Guard"]["slots"]
    """

    def __init__(self, path: str | Path = DEFAULT_DB, clock: Any = now_utc) -> None:
        self.store = Store(path, clock=clock)
        self._cache: dict[str, _Folded] = {}

    def close(self) -> None:
        """Close the file."""
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Writes.

    def open(
        self,
        encounter: str,
        system: str,
        *,
        title: str | None = None,
        rules: Mapping[str, Any] | None = None,
        expect: int | None = None,
    ) -> Recorded:
        """Open a new encounter of `system`, pinning the house rules (defaults + `rules`)."""
        _check_name(encounter, "encounter")
        ruleset(system)
        if self.store.head(encounter) is not None:
            raise BadInput(f"encounter {encounter!r} already exists in {self.store.path}")
        fields: dict[str, Any] = {"type": "encounter.opened", "system": system}
        if title is not None:
            fields["title"] = title
        fields["rules"] = dict(rules or {})
        return self.record(encounter, fields, expect=expect, _opening=True)

    def join(
        self,
        encounter: str,
        name: str,
        side: str,
        stats: Mapping[str, Any] | None = None,
        *,
        strict: bool = False,
        expect: int | None = None,
    ) -> Recorded:
        """Add a combatant with its stat block."""
        fields = {
            "type": "combatant.joined",
            "name": name,
            "side": side,
            "stats": dict(stats or {}),
        }
        return self.record(encounter, fields, strict=strict, expect=expect)

    def record(
        self,
        encounter: str,
        event: Mapping[str, Any] | events.EventBase,
        *,
        strict: bool = False,
        expect: int | None = None,
        _opening: bool = False,
    ) -> Recorded:
        """Append one event (a dict with `type`, or an event model) after validating it."""
        return self._write(
            encounter,
            lambda session: self._parse(event, session.system()),
            strict=strict,
            expect=expect,
            opening=_opening,
        )

    def undo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
    ) -> Recorded:
        """Retract `seq` (default: the last effective event that is not a retraction)."""

        def retraction(session: _Session) -> events.Event:
            target = seq
            if target is None:
                target = next(
                    (
                        s
                        for s, kind in session.writer.seqs_from_head()
                        if s > 1 and s not in session.gone and kind != "event.retracted"
                    ),
                    None,
                )
                if target is None:
                    raise BadInput(f"encounter {encounter!r} has nothing to undo")
            fields = {"type": "event.retracted", "target": target, "reason": reason}
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect)

    def redo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str = "redo",
        strict: bool = False,
        expect: int | None = None,
    ) -> Recorded:
        """Retract a retraction: `seq` is the retraction or the event it retracted."""

        def retraction(session: _Session) -> events.Event:
            live = [r for r in session.retractions if r.seq not in session.gone]
            if seq is None:
                if not live:
                    raise BadInput(f"encounter {encounter!r} has nothing to redo")
                target = live[-1].seq
            elif any(r.seq == seq for r in live):
                target = seq
            else:
                match = [
                    r.seq
                    for r in live
                    if isinstance(r.event, events.EventRetracted) and r.event.target == seq
                ]
                if not match:
                    raise BadInput(f"seq {seq} is not an undone event nor an effective retraction")
                target = match[-1]
            fields = {"type": "event.retracted", "target": target, "reason": reason}
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect)

    def _write(
        self,
        encounter: str,
        build: Callable[[_Session], events.Event],
        *,
        strict: bool,
        expect: int | None,
        opening: bool = False,
    ) -> Recorded:
        """One event, built from the session at the head, validated and appended atomically."""
        with self.store.writing(encounter, expect) as writer:
            if writer.system is None and not opening:
                self.store.require(encounter)
            session = _Session(self, writer).ready()
            parsed = build(session)
            before = session.state
            record, found = session.admit(parsed, strict=strict)
            after = session.state
            assert after is not None
        self._remember(encounter, session)
        return Recorded(
            records=(record,),
            findings=tuple(found),
            changes=tuple(core.changes(before, after)) if before is not None else (),
            state=after,
        )

    def import_lines(
        self,
        lines: Iterable[str],
        *,
        into: str | None = None,
        new_ids: bool = False,
        source: str = "input",
    ) -> Imported:
        """Import JSON Lines atomically: all lines land or none; stored ids are no-ops."""
        items = parse_lines(lines, source)
        if not items:
            raise BadInput(f"{source} has no events")
        names = {item.get("encounter") for item in items} - {None}
        if into is None:
            if len(names) > 1:
                raise BadInput(
                    f"{source} holds several encounters ({', '.join(map(str, names))}); "
                    "import them one at a time"
                )
            into = str(names.pop()) if names else Path(source).stem
        _check_name(into, "encounter")
        appended = already = 0
        with self.store.writing(into) as writer:
            session = _Session(self, writer)
            if new_ids and writer.system is not None:
                raise BadInput(
                    f"encounter {into!r} already exists; --new-ids copies into a new name"
                )
            given = [] if new_ids else [i["id"] for i in items if isinstance(i.get("id"), str)]
            stored = writer.stored_ids(given)
            for number, item in enumerate(items, start=1):
                where = f"{source} line {number}"
                try:
                    done = self._import_one(session, item, new_ids, stored)
                except BadInput as exc:
                    raise type(exc)(f"{where}: {exc}") from exc
                appended += done
                already += 1 - done
        self._remember(into, session)
        return Imported(encounter=into, appended=appended, already_stored=already, head=writer.seq)

    def _import_one(
        self, session: _Session, item: dict[str, Any], new_ids: bool, stored: set[str]
    ) -> int:
        envelope: dict[str, Any] = {k: item.pop(k) for k in events.ENVELOPE_KEYS if k in item}
        if new_ids:
            for key in ("id", "seq", "hash", "prev_hash"):
                envelope.pop(key, None)
        event = self._parse(item, session.system())
        id_ = envelope.get("id")
        if id_ is not None:
            if not isinstance(id_, str) or not id_.strip() or len(id_) > 100:
                raise BadInput("'id' must be a non-empty string of at most 100 characters")
            known = session.writer.appended_with(id_) or (
                session.writer.known_id(id_) if id_ in stored else None
            )
            if known is not None:
                return self._same_as_stored(known, event, envelope, session)
        seq = envelope.get("seq")
        if seq is not None and seq != session.writer.seq + 1:
            raise BadInput(
                f"'seq' is {seq!r}, but the encounter's next seq is {session.writer.seq + 1}"
            )
        recorded_at = envelope.get("recorded_at")
        if recorded_at is not None:
            _check_time(recorded_at)
        record, _ = session.admit(event, strict=False, audit=False, id=id_, recorded_at=recorded_at)
        for key in ("prev_hash", "hash"):
            if key in envelope and envelope[key] != getattr(record, key):
                raise BadInput(f"{key!r} does not match the recomputed chain at seq {record.seq}")
        return 1

    @staticmethod
    def _same_as_stored(
        stored: events.Recorded, event: events.Event, envelope: Mapping[str, Any], session: _Session
    ) -> int:
        if isinstance(event, events.EncounterOpened) and isinstance(
            stored.event, events.EncounterOpened
        ):
            rules = core.pinned_rules(ruleset(event.system), event.rules)
            event = event.model_copy(update={"rules": rules})
        if stored.encounter != session.writer.encounter:
            raise BadInput(
                f"event id {stored.id!r} is already stored in encounter {stored.encounter!r}; "
                "ids are global: use --new-ids to copy an encounter under another name"
            )
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

    def _parse(
        self, event: Mapping[str, Any] | events.EventBase, system: str | None
    ) -> events.Event:
        if isinstance(event, events.EventBase):
            return events.parse({"type": events.type_of(event), **events.body_of(event)}, system)
        return events.parse(event, system)

    def _remember(self, encounter: str, session: _Session) -> None:
        folded = session.folded()
        if folded is not None and folded.state is not None:
            self._cache[encounter] = folded

    def _folded_at_head(self, writer: Writer) -> _Folded:
        """The encounter folded to the writer's head: from the cache when it is still the head,
        caught up from it when only new events (no retraction) came since, else folded anew."""
        if writer.system is None:
            return _Folded(0, writer.hash, None, [], frozenset(), [])
        cached = self._cache.get(writer.encounter)
        if cached is not None and cached.seq <= writer.seq:
            if cached.seq == writer.seq and cached.hash == writer.hash:
                return cached
            newer = list(writer.records(cached.seq))
            if (
                newer
                and (newer[0].seq, newer[0].prev_hash) == (cached.seq + 1, cached.hash)
                and not any(isinstance(r.event, events.EventRetracted) for r in newer)
            ):
                checkpoints = list(cached.checkpoints)
                state = _fold_forward(newer, cached.gone, cached.state, checkpoints)
                return _Folded(
                    writer.seq, writer.hash, state, cached.retractions, cached.gone, checkpoints
                )
        retractions = writer.retractions()
        gone = core.excluded(retractions)
        checkpoints = []
        state = _fold_forward(writer.records(), gone, None, checkpoints)
        return _Folded(writer.seq, writer.hash, state, retractions, gone, checkpoints)

    # Reads.

    def encounters(self) -> list[Head]:
        """Every encounter in the file."""
        return self.store.encounters()

    def records(self, encounter: str) -> list[events.Recorded]:
        """The encounter's whole stream, retractions and retracted events included."""
        return self.store.records(encounter)

    def _stream(
        self, encounter: str, at: int | None = None, without: Iterable[int] = ()
    ) -> tuple[Head, frozenset[int], list[events.Recorded], Iterator[events.Recorded]]:
        """The head, the seqs that do not count, the retractions, and the rows up to `at`."""
        head = self.store.require(encounter)
        top = head.seq if at is None else at
        retractions = self.store.retractions(encounter, head.system, top)
        gone = core.excluded(retractions, without)
        return head, gone, retractions, self.store.load_rows(encounter, head.system, 0, top)

    def tracks(
        self, encounter: str, at: int | None = None, without: Iterable[int] = ()
    ) -> core.State:
        """The tracks now, at a past seq, or as they would be without some events."""
        without = list(without)
        head = self.store.require(encounter)
        _check_seqs(head.seq, [at] if at is not None else [], "--at")
        _check_seqs(head.seq, without, "--without")
        cached = self._cache.get(encounter)
        if (
            at is None
            and not without
            and cached is not None
            and cached.state is not None
            and (cached.seq, cached.hash) == (head.seq, head.hash)
        ):
            return cached.state
        _, gone, _, rows = self._stream(encounter, at, without)
        state = _fold_forward(rows, gone, None)
        if state is None:
            raise BadInput("the stream has no encounter.opened")
        return state

    def replay(
        self, encounter: str, start: int | None = None, end: int | None = None
    ) -> Iterator[core.Step]:
        """One step per effective event, with the tracks after it."""
        _, gone, _, rows = self._stream(encounter)
        folder = core.Folder(RULESETS)
        previous: core.State | None = None
        for record in rows:
            if end is not None and record.seq > end:
                break
            if record.seq in gone:
                continue
            state = folder.add(record)
            if start is None or record.seq >= start:
                changes = tuple(core.changes(previous, state))
                yield core.Step(record=record, state=state, changes=changes)
            previous = state

    def audit(self, encounter: str) -> list[Finding]:
        """Every finding of the encounter, in seq order (the audit driver, streaming)."""
        _, gone, retractions, rows = self._stream(encounter)
        targets = {
            r.event.target for r in retractions if isinstance(r.event, events.EventRetracted)
        }
        types: dict[int, str] = {}
        folder = core.Folder(RULESETS)
        found: list[Finding] = []
        for record in rows:
            if record.seq in targets:
                types[record.seq] = record.type
            if record.seq in gone:
                continue
            before = folder.state
            after = folder.add(record)
            if before is not None:
                found += audit_rules.for_event(folder.ruleset, before, record, after, types)
        return found

    def export(self, encounter: str) -> Iterator[str]:
        """The encounter as JSON Lines (one event a line, envelope included)."""
        for record in self.store.iter_records(encounter):
            yield json.dumps(record.exchange(), ensure_ascii=False)

    def verify(self, encounter: str | None = None) -> list[ChainReport]:
        """Recompute the hash chain of one encounter, or of every encounter in the file."""
        if encounter is not None:
            self.store.require(encounter)
            return [self.store.verify(encounter)]
        names = sorted(
            set(self.store.stored_encounters()) | {h.encounter for h in self.encounters()}
        )
        return [self.store.verify(name) for name in names]


def load(path: str | Path) -> tuple[Ledger, str]:
    """A JSON Lines file read into an in-memory ledger (nothing written), and its encounter."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UnknownName(f"no such file: {file}") from exc
    except UnicodeDecodeError as exc:
        raise BadInput(f"{file} is not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise BadInput(f"cannot read {file}: {exc.strerror}") from exc
    ledger = Ledger(":memory:")
    result = ledger.import_lines(text.splitlines(), source=str(file))
    return ledger, result.encounter


def _check_name(name: str, what: str) -> None:
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter(events.Name).validate_python(name)
    except ValidationError as exc:
        raise BadInput(f"{what} name {name!r}: {exc.errors()[0]['msg'].lower()}") from exc


def _check_time(value: Any) -> None:
    if not isinstance(value, str):
        raise BadInput(f"'recorded_at' must be an ISO 8601 string, got {value!r}")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise BadInput(f"'recorded_at' {value!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        raise BadInput(f"'recorded_at' {value!r} has no time zone (use UTC, ending in Z)")


def _check_seqs(top: int, seqs: Sequence[int], option: str) -> None:
    for seq in seqs:
        if not 1 <= seq <= top:
            raise UnknownName(f"{option} {seq}: the encounter has seqs 1-{top}")
