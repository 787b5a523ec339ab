"""The use cases: record, undo, redo, import, and the reads, over one ledger file.

Every write runs inside one store transaction: read the head, fold to it, validate the new events
against that state, compute the findings they raise, append. Bad input raises before anything is
appended; a broken rule is appended and reported (or refused with `strict`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SerializeAsAny

from ledger import events
from ledger.errors import BadInput, RuleRefused, UnknownName
from ledger.store import ChainReport, Head, Store, Writer, now_utc
from projections import audit as audit_rules
from projections import core
from projections.findings import Finding
from projections.registry import RULESETS, ruleset

DEFAULT_DB = "encounters.db"


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


def parse_lines(lines: Iterable[str], source: str = "input") -> list[dict[str, Any]]:
    """JSON Lines into objects; blank lines are skipped, anything else must be a JSON object."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{source} line {number}: malformed JSON: {exc.msg}") from exc
        except RecursionError as exc:
            raise BadInput(f"{source} line {number}: JSON nested too deeply") from exc
        if not isinstance(data, dict):
            raise BadInput(f"{source} line {number}: expected a JSON object, got {_kind(data)}")
        out.append(data)
    return out


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), "null" if value is None else "a boolean"
    )


class _Session:
    """The state of one encounter inside a write transaction, kept at the writer's head."""

    def __init__(self, ledger: Ledger, writer: Writer) -> None:
        self.writer = writer
        self.records: list[events.Recorded] | None = None
        self.state = ledger._state_at_head(writer)
        self._ledger = ledger

    def all_records(self) -> list[events.Recorded]:
        if self.records is None:
            self.records = self.writer.records() if self.writer.seq else []
        return self.records

    def system(self) -> str | None:
        return self.state.system if self.state else None

    def admit(
        self,
        event: events.Event,
        *,
        strict: bool,
        id: str | None = None,
        recorded_at: str | None = None,
    ) -> tuple[events.Recorded, list[Finding]]:
        """Validate one event against the head state, append it, and return its findings."""
        before = self.state
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
        probe = events.Recorded.model_construct(
            encounter=self.writer.encounter,
            seq=seq,
            id=id or "",
            recorded_at="",
            prev_hash="",
            hash="",
            event=event,
        )
        folder = core.Folder(RULESETS, before)
        after = folder.add(probe, strict=True)
        found: list[Finding] = []
        if before is not None:
            found = audit_rules.for_event(folder.ruleset, before, probe, after, {})
            if strict and any(f.severity == "error" for f in found):
                raise RuleRefused(_refusal(found))
        record = self.writer.append(event, id=id, recorded_at=recorded_at)
        if self.records is not None:
            self.records.append(record)
        self.state = after
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
        records = self.all_records()
        target = event.target
        if target > len(records):
            raise UnknownName(
                f"seq {target} is not in encounter {self.writer.encounter!r} "
                f"(seqs 1-{len(records)})"
            )
        if target == 1:
            raise BadInput("seq 1 (encounter.opened) cannot be retracted")
        gone = core.excluded(records)
        if target in gone:
            by = _retracted_by(records, target, gone)
            raise BadInput(
                f"seq {target} is already retracted (by seq {by}); use redo to restore it"
            )
        record = self.writer.append(event, id=id, recorded_at=recorded_at)
        records.append(record)
        after = core.fold(RULESETS, records)
        if strict and len(after.skipped) > len(before.skipped):
            lost = after.skipped[-1]
            raise RuleRefused(
                f"refused (--strict): retracting seq {target} leaves seq {lost.seq} "
                f"({lost.type}) orphaned: {lost.reason}"
            )
        types = {target: records[target - 1].type}
        found = audit_rules.for_event(RULESETS[before.system], before, record, after, types)
        self.state = after
        return record, found


def _retracted_by(records: Sequence[events.Recorded], target: int, gone: frozenset[int]) -> int:
    for r in reversed(records):
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
        self._cache: dict[str, tuple[int, str, core.State]] = {}

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
        with self.store.writing(encounter, expect) as writer:
            if writer.head is None and not _opening:
                self.store.require(encounter)
            session = _Session(self, writer)
            parsed = self._parse(event, session.system())
            before = session.state
            record, found = session.admit(parsed, strict=strict)
            after = session.state
            assert after is not None
        self._remember(encounter, writer, after)
        return Recorded(
            records=(record,),
            findings=tuple(found),
            changes=tuple(core.changes(before, after)) if before is not None else (),
            state=after,
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
        records = self.store.records(encounter)
        if seq is None:
            gone = core.excluded(records)
            candidates = [
                r.seq
                for r in records
                if r.seq > 1
                and r.seq not in gone
                and not isinstance(r.event, events.EventRetracted)
            ]
            if not candidates:
                raise BadInput(f"encounter {encounter!r} has nothing to undo")
            seq = candidates[-1]
        fields = {"type": "event.retracted", "target": seq, "reason": reason}
        return self.record(encounter, fields, strict=strict, expect=expect)

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
        records = self.store.records(encounter)
        gone = core.excluded(records)
        live = [
            r for r in records if isinstance(r.event, events.EventRetracted) and r.seq not in gone
        ]
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
        return self.record(encounter, fields, strict=strict, expect=expect)

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
            if new_ids and writer.head is not None:
                raise BadInput(
                    f"encounter {into!r} already exists; --new-ids copies into a new name"
                )
            for number, item in enumerate(items, start=1):
                where = f"{source} line {number}"
                try:
                    done = self._import_one(session, item, new_ids)
                except BadInput as exc:
                    raise type(exc)(f"{where}: {exc}") from exc
                appended += done
                already += 1 - done
        if session.state is not None:
            self._remember(into, writer, session.state)
        return Imported(encounter=into, appended=appended, already_stored=already, head=writer.seq)

    def _import_one(self, session: _Session, item: dict[str, Any], new_ids: bool) -> int:
        envelope: dict[str, Any] = {k: item.pop(k) for k in events.ENVELOPE_KEYS if k in item}
        if new_ids:
            for key in ("id", "seq", "hash", "prev_hash"):
                envelope.pop(key, None)
        event = self._parse(item, session.system())
        id_ = envelope.get("id")
        if id_ is not None:
            if not isinstance(id_, str) or not id_.strip() or len(id_) > 100:
                raise BadInput("'id' must be a non-empty string of at most 100 characters")
            stored = session.writer.known_id(id_)
            if stored is not None:
                return self._same_as_stored(stored, event, envelope, session)
        seq = envelope.get("seq")
        if seq is not None and seq != session.writer.seq + 1:
            raise BadInput(
                f"'seq' is {seq!r}, but the encounter's next seq is {session.writer.seq + 1}"
            )
        recorded_at = envelope.get("recorded_at")
        if recorded_at is not None:
            _check_time(recorded_at)
        record, _ = session.admit(event, strict=False, id=id_, recorded_at=recorded_at)
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

    def _state_at_head(self, writer: Writer) -> core.State | None:
        if writer.head is None:
            return None
        cached = self._cache.get(writer.encounter)
        if cached and cached[0] == writer.head.seq and cached[1] == writer.head.hash:
            return cached[2]
        return core.fold(RULESETS, writer.records())

    def _remember(self, encounter: str, writer: Writer, state: core.State) -> None:
        if writer.head is not None:
            self._cache[encounter] = (writer.head.seq, writer.head.hash, state)

    # Reads.

    def encounters(self) -> list[Head]:
        """Every encounter in the file."""
        return self.store.encounters()

    def records(self, encounter: str) -> list[events.Recorded]:
        """The encounter's whole stream, retractions and retracted events included."""
        return self.store.records(encounter)

    def tracks(
        self, encounter: str, at: int | None = None, without: Iterable[int] = ()
    ) -> core.State:
        """The tracks now, at a past seq, or as they would be without some events."""
        records = self.store.records(encounter)
        _check_seqs(records, [at] if at is not None else [], "--at")
        _check_seqs(records, list(without), "--without")
        return core.fold(RULESETS, records, at=at, without=without)

    def replay(
        self, encounter: str, start: int | None = None, end: int | None = None
    ) -> Iterator[core.Step]:
        """One step per effective event, with the tracks after it."""
        records = self.store.records(encounter)
        return core.replay(RULESETS, records, start, end)

    def audit(self, encounter: str) -> list[Finding]:
        """Every finding of the encounter, in seq order."""
        return audit_rules.audit(RULESETS, self.store.records(encounter))

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


def _check_seqs(records: Sequence[events.Recorded], seqs: Sequence[int], option: str) -> None:
    top = len(records)
    for seq in seqs:
        if not 1 <= seq <= top:
            raise UnknownName(f"{option} {seq}: the encounter has seqs 1-{top}")
