"""The use cases over one ledger file: record, undo, redo, amend, import (the reads are in
`ledger.queries`, which `Ledger` extends).

Every write runs inside one store transaction: read the head, fold to it, validate the new events
against that state, compute the findings they raise, append. Bad input raises before anything is
appended; a broken rule is appended and reported (or refused with `strict`). A write refolds only
from the last checkpoint before what an undo or redo changes.
"""

from __future__ import annotations

import functools
import gc
import itertools
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, PrivateAttr

from ledger import events, exchange, systems
from ledger.errors import BadInput, Conflict
from ledger.queries import Queries
from ledger.rows import built, now_utc
from ledger.session import AtHead, Session
from ledger.storefile import DEFAULT_DB as DEFAULT_DB
from ledger.stores import open_store
from projections import core, played, steps, words
from projections.downstream import Downstream
from projections.findings import Finding
from projections.registry import ruleset


class Written(BaseModel, frozen=True, defer_build=True):
    """What a write did: the events appended, the findings they raise, the tracks they changed.

    The tracks changed, the state after the write and the events in words are worked out when
    first asked for: a bot that only appends pays for none of them.
    """

    records: tuple[events.Recorded, ...]
    findings: tuple[Finding, ...] = ()
    #: What an undo, redo or amend did to the rest of the encounter.
    downstream: Downstream | None = None
    #: A dry run: the records are what would have been appended; nothing was.
    dry_run: bool = False
    #: (state before, event, state after) for each record appended.
    _folds: tuple[tuple[core.State | None, events.Recorded, core.State], ...] = PrivateAttr(())

    @classmethod
    def of(
        cls,
        folds: Sequence[tuple[core.State | None, events.Recorded, core.State]],
        findings: Iterable[Finding],
        downstream: Downstream | None = None,
        dry_run: bool = False,
    ) -> Written:
        """The result of a write from its folds (values already checked: not validated again)."""
        fields = {
            "records": tuple(f[1] for f in folds),
            "findings": tuple(findings),
            "downstream": downstream,
            "dry_run": dry_run,
        }
        return built(cls, fields, {"_folds": tuple(folds)})

    @functools.cached_property
    def changes(self) -> tuple[steps.Change, ...]:
        """The tracks (and pools) the write changed."""
        first, last = self._folds[0][0], self._folds[-1][2]
        return tuple(steps.changes(first, last)) if first is not None else ()

    @property
    def state(self) -> core.State:
        """The tracks after the write (frozen: the state the ledger keeps, which nobody can
        change)."""
        return self._folds[-1][2]

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        """Each appended event in words (`projections.words.explain`), one per record."""
        return tuple(words.explain(b, r.seq, r.event, a) for b, r, a in self._folds)

    @property
    def system(self) -> str:
        """The key of the encounter's rule system."""
        return self._folds[-1][2].system

    @property
    def seq(self) -> int:
        """The last seq appended (or the head, when nothing new was appended)."""
        return self.records[-1].seq if self.records else self.state.seq

    def document(self) -> dict[str, Any]:
        """The write's `--json` document: the events appended (as exported), the rolls they
        made, the tracks they changed and the findings they raised."""
        seqs = {r.seq for r in self.records}
        # A burn changes an earlier roll's outcome: that roll, as it is now, is listed too.
        changed = (played.rescored(self.state, r.event) for r in self.records)
        seqs |= {roll.seq for roll in changed if roll is not None}
        rolls: list[dict[str, Any]] = []
        for roll in reversed(self.state.rolls):  # the newest first: stop before the write
            if roll.seq < min(seqs, default=0):
                break
            if roll.seq in seqs:
                rolls.insert(0, roll.dump())
        document: dict[str, Any] = {
            "encounter": self.state.encounter,
            "seq": self.seq,
            "records": [r.exchange() for r in self.records],
            "rolls": rolls,
            "changes": [c.model_dump(mode="json") for c in self.changes],
            "findings": [f.model_dump(mode="json") for f in self.findings],
            "words": list(self.words),
        }
        if self.downstream is not None:
            document["downstream"] = self.downstream.document()
        if self.dry_run:
            document["dry_run"] = True
        return document


class Imported(BaseModel, frozen=True, defer_build=True):
    """What an import did."""

    encounter: str
    appended: int
    already_stored: int
    head: int


class Ledger(Queries):
    """One ledger file: the library API that the CLI is built on (for bots and VTT bridges).

    >>> with Ledger("duel.db") as ledger:                                  # doctest: +SKIP
    ...     ledger.open("duel", system)  # a key of `ledger.systems.known()`
    ...     ledger.record("duel", {"type": "combatant.joined", "name": "Guard",
    ...                            "side": "adversary", "stats": stats})
    ...     ledger.tracks("duel").view()["combatants"]["Guard"]
    """

    def __init__(
        self,
        path: str | Path = DEFAULT_DB,
        clock: Any = now_utc,
        create: bool = True,
        readonly: bool = False,
        *,
        pool_size: int | None = None,
    ) -> None:
        """Open (with `create`, or create) the ledger at `path`: a SQLite file, or a PostgreSQL
        database named by a `postgresql://` URL (`pool_size` connections at most, default 4);
        `readonly` only reads it (and creates or changes nothing)."""
        self.store = open_store(
            path, clock=clock, create=create, readonly=readonly, pool_size=pool_size
        )
        self._cache: dict[str, AtHead] = {}

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
    ) -> Written:
        """Open a new encounter of `system`, pinning the house rules (defaults + `rules`)."""
        _check_name(encounter, "encounter")
        ruleset(system)
        head = self.store.head(encounter)
        if head is not None:
            if expect is not None and expect != head.seq:
                # The writer expected it not to exist yet: another one opened it first.
                raise Conflict(
                    f"encounter {encounter!r} is at seq {head.seq}, not {expect}: another "
                    "writer opened it first; re-read and try again",
                    code="stale-expect",
                    expected=expect,
                    actual=head.seq,
                )
            raise BadInput(
                f"encounter {encounter!r} already exists in {self.store.name}",
                code="encounter-exists",
            )
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
    ) -> Written:
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
        verb: str | None = None,
        _opening: bool = False,
    ) -> Written:
        """Append one event (a dict with `type`, or an event model) after validating it.

        `verb` names the system verb it comes from (`endure-harm`): a verb, or an event type,
        of another system than the encounter's is bad input that says whose it is."""

        def build(session: Session) -> events.Event:
            system = session.system()
            if system is not None:
                kind = events.type_of(event) if isinstance(event, events.EventBase) else None
                if isinstance(event, Mapping):
                    kind = event.get("type")
                systems.refuse_other(encounter, system, verb, kind)
            return self._parse(event, system)

        return self._write(encounter, build, strict=strict, expect=expect, opening=_opening)

    def undo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Retract `seq` (default: the last effective event that is not a retraction); with
        `dry_run`, say what it would do downstream and append nothing. `stamp` holds the
        optional game time of the ruling (`round`, `scene`, `by`)."""
        _check_seq(seq)
        time = _game_time(stamp)
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("undo needs a reason (the ledger keeps why a ruling changed)")

        def retraction(session: Session) -> events.Event:
            fields = {
                "type": "event.retracted",
                "target": session.undo_target(seq),
                "reason": reason,
                **time,
            }
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect, dry_run=dry_run)

    def redo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str = "redo",
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Retract a retraction: `seq` is the retraction or the event it retracted (with
        `dry_run`, append nothing; `stamp` as for `undo`)."""
        _check_seq(seq)
        time = _game_time(stamp)
        if not isinstance(reason, str):
            raise BadInput(f"a reason is text, not {reason!r}")

        def retraction(session: Session) -> events.Event:
            target = session.redo_target(seq)
            fields = {
                "type": "event.retracted",
                "target": target,
                "reason": reason,
                "kind": "redo",
                **time,
            }
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect, dry_run=dry_run)

    def amend(
        self,
        encounter: str,
        seq: int,
        fields: Mapping[str, Any],
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Correct the event at `seq`: append one `event.corrected`, which the fold reads at
        `seq` itself, so everything after it is judged against the corrected event (with
        `dry_run`, say what it would do downstream and append nothing; `stamp` as for `undo`)."""
        _check_seq(seq)
        time = _game_time(stamp)
        if not isinstance(fields, Mapping) or not fields:
            raise BadInput("amend needs the fields to change, as a mapping (KEY=VALUE)")
        if "type" in fields:
            raise BadInput("amend keeps the event's type; undo it and record another instead")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("amend needs a reason (the ledger keeps why a ruling changed)")

        def correction(session: Session) -> events.Event:
            fix = {
                "type": "event.corrected",
                "target": seq,
                "reason": reason,
                "fields": fields,
                **time,
            }
            return self._parse(fix, session.system())

        return self._write(encounter, correction, strict=strict, expect=expect, dry_run=dry_run)

    @contextmanager
    def _transaction(
        self,
        encounter: str,
        expect: int | None,
        *,
        opening: bool = False,
        bulk: bool = False,
        folds: Mapping[str, AtHead] | None = None,
    ) -> Iterator[Session]:
        """The one skeleton of every write: a store transaction (`Store.begin`), the encounter
        folded over it (from `folds`, by default what this ledger folded last), and, once it
        commits, what was folded remembered for the next write. A use case builds its events
        over the session inside the block, and stores what it adds to the projection cache
        (`Session.keep`) before it ends; a dry run discards the transaction instead."""
        with (
            _gc_paused() if bulk else nullcontext(),
            self.store.begin(encounter, expect, bulk=bulk) as txn,
        ):
            if txn.system is None and not opening:
                self.store.require(encounter)
            session = Session(self._cache if folds is None else folds, txn)
            yield session
        if not txn.discarded:
            self._remember(encounter, session)

    def _write(
        self,
        encounter: str,
        build: Callable[[Session], events.Event],
        *,
        strict: bool,
        expect: int | None,
        opening: bool = False,
        dry_run: bool = False,
    ) -> Written:
        """One event, built from the session at the head, validated and appended atomically
        (with `dry_run`, the transaction is rolled back once the result is known)."""
        with self._transaction(encounter, expect, opening=opening) as session:
            parsed = build(session.ready())
            before, head = session.state, (session.seq, session.txn.hash)
            record, found = session.admit(parsed, strict=strict)
            after = session.state
            assert after is not None
            result = Written.of([(before, record, after)], found, session.downstream, dry_run)
            if dry_run:
                session.txn.discard()
            else:
                session.keep(head, before, final=False)
        return result

    def import_lines(
        self,
        lines: Iterable[str],
        *,
        into: str | None = None,
        new_ids: bool = False,
        source: str = "input",
        strict: bool = False,
        expect: int | None = None,
        unchained: bool = False,
    ) -> Imported:
        """Import JSON Lines atomically: all lines land or none; stored ids are no-ops.

        The lines are read, checked and appended one at a time (memory stays bounded, and a
        bad line is refused before the next is read); the transaction commits after the last.
        """
        if isinstance(lines, str | bytes):
            raise BadInput("import_lines takes the lines (text.splitlines()), not one text")
        numbered = exchange.iter_lines(lines, source)
        first = next(numbered, None)
        if first is None:
            raise BadInput(f"{source} has no events")
        named = first[1].get("encounter")
        pinned = into is None
        if into is None:
            into = str(named) if named is not None else Path(source).stem
        _check_name(into, "encounter")
        with self._transaction(into, expect, opening=True, bulk=True) as session:
            if new_ids and session.system() is not None:
                raise BadInput(
                    f"encounter {into!r} already exists; --new-ids copies into a new name",
                    code="encounter-exists",
                )
            importer = exchange.Importer(
                session, new_ids=new_ids, strict=strict, unchained=unchained, source=source
            )
            for number, item in itertools.chain([first], numbered):
                other = item.get("encounter")
                if pinned and other != named:
                    shown = ", ".join(str(n) for n in (named, other))
                    raise BadInput(
                        f"{source} holds several encounters ({shown}); import them one at a time"
                    )
                importer.admit(number, item)
            importer.finish()
            if importer.appended:
                session.keep(None, None, final=True)
        return Imported(
            encounter=into,
            appended=importer.appended,
            already_stored=importer.already,
            head=session.seq,
        )

    def warm_cache(self, encounter: str) -> None:
        """Fold the encounter from its events and store its projection cache (snapshots and
        head view), as its own writes would have: for files written without it."""
        with self._transaction(encounter, None, folds={}) as session:
            session.ready().stored = 0
            session.keep(None, None, final=True)

    def _parse(
        self, event: Mapping[str, Any] | events.EventBase, system: str | None
    ) -> events.Event:
        if isinstance(event, events.EventBase):
            return events.parse({"type": events.type_of(event), **events.body_of(event)}, system)
        if not isinstance(event, Mapping):
            raise BadInput(
                "an event is a mapping with a 'type' (or an event model), "
                f"not {type(event).__name__}"
            )
        return events.parse(event, system)

    def _remember(self, encounter: str, session: Session) -> None:
        folded = session.folded()
        if folded is not None and folded.state is not None:
            self._cache[encounter] = folded


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a bulk transaction: an import allocates a model or
    two an event and frees almost nothing, so each collection only walks what stays (a sixth
    of an import's time); it runs again after the transaction."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def __getattr__(name: str) -> Any:
    # `Recorded` named the write result until 0.2, and `ledger.events.Recorded` the stored
    # envelope: one name had two meanings.
    if name == "Recorded":
        warnings.warn(
            "ledger.service.Written is deprecated: the result of a write is `Written` "
            "(`ledger.events.Recorded` is the event as stored)",
            DeprecationWarning,
            stacklevel=2,
        )
        return Written
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_GAME_TIME: Final = frozenset({"round", "scene", "by"})


def _game_time(stamp: Mapping[str, Any] | None) -> dict[str, Any]:
    """A ruling's optional game time, checked to hold nothing else (its values are checked by
    the event model, as on any event)."""
    if stamp is None:
        return {}
    if not isinstance(stamp, Mapping) or not set(stamp) <= _GAME_TIME:
        raise BadInput(f"a stamp holds only round, scene and by, not {stamp!r}")
    return dict(stamp)


def _check_seq(seq: int | None) -> None:
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        raise BadInput(f"a seq is a whole number, not {seq!r}")


def _check_name(name: str, what: str) -> None:
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter(events.Name).validate_python(name)
    except ValidationError as exc:
        raise BadInput(f"{what} name {name!r}: {exc.errors()[0]['msg'].lower()}") from exc
    if what == "encounter" and name.endswith(".jsonl"):
        # The read commands take a NAME ending in .jsonl as a file to read.
        raise BadInput(f"encounter name {name!r}: must not end in .jsonl (that names a file)")
