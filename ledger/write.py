"""Writing: every write runs inside one store transaction, as one `Session`.

Read the head, fold to it (from the newest sealed snapshot that still holds, else from seq 1),
validate the new events against that state, compute the findings they raise, append. Bad input
raises before anything is appended; a broken rule is appended and reported (or refused with
`strict`). A retraction or correction is admitted by `ledger.revise`, on the same session.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from ledger import events, systems
from ledger.errors import BadInput, NotAllowed, RuleRefused, UnknownName
from ledger.events import lookalike
from ledger.events.base import name_adapter
from ledger.events.frozen import frozen_object
from ledger.store import Row
from ledger.store import chain as chains
from ledger.store import snapshots as sealed
from ledger.store.transaction import Transaction
from projections import acts, core, played, proposals, words
from projections import audit as audit_rules
from projections.changes import Change
from projections.changes import changes as changed_tracks
from projections.diff import Downstream
from projections.findings import Finding
from projections.revisions import KEPT_MODELS, Standing, corrected, standing

Checkpoint = tuple[int, core.State]


@dataclass(frozen=True, slots=True)
class Given:
    """What an imported line fixes about its own append: its id, its time, and the body to
    store as an older version of its type wrote it (its hash covers those bytes)."""

    id: str | None = None
    recorded_at: str | None = None
    as_stored: dict[str, Any] | None = None
    #: The line carries its hash: it is a copy of an event stored before, not a new one.
    chained: bool = False


NOTHING_GIVEN: Final = Given()


def standing_key(now: Standing, seq: int, system: str) -> str:
    """The standing of a stream up to `seq` as text (a snapshot's key): what folds the system
    (its distribution and version: another release may fold the same events otherwise), the
    seqs retracted, and the corrections in force of the seqs up to it."""
    gone = sorted(s for s in now.gone if s <= seq)
    fixed = [[t, [r.seq for r in fixes]] for t, fixes in sorted(now.fixes.items()) if t <= seq]
    return chains.canonical([systems.folded_by(system), gone, fixed])


def from_snapshot(
    ruleset: core.AnyRuleset, found: Iterable[sealed.Snapshot], now: Standing, encounter: str
) -> Checkpoint | None:
    """The newest snapshot that holds for a stream of standing `now` (its key matches and its
    state reads back), as a checkpoint."""
    for snap in found:
        if snap.standing != standing_key(now, snap.seq, ruleset.key):
            continue
        state = core.state_from_json(snap.state, ruleset)
        if state is not None and state.encounter == encounter and state.seq == snap.seq:
            return snap.seq, state
    return None


def fold_on(
    ruleset: core.AnyRuleset,
    records: Iterable[events.Recorded],
    now: Standing,
    state: core.State | None,
    checkpoints: list[Checkpoint] | None = None,
) -> core.State | None:
    """Fold `records` (as `now` has them) on top of `state`, keeping a checkpoint every
    `snapshots.EVERY` seqs."""
    folder = core.RunningFold(ruleset, state, now.fixes)
    for record in records:
        if record.seq not in now.gone:
            folder.feed(record)
        if checkpoints is not None and record.seq % sealed.EVERY == 0:
            assert folder.state is not None
            checkpoints.append((record.seq, folder.state))
    return folder.state


@dataclass(frozen=True, slots=True)
class Folded:
    """An encounter as a write left it: its head (seq and hash) and what was folded to it.

    A writer that keeps one (a long-lived `Ledger`) reuses it only in a transaction whose
    whole chain was checked and whose head is this very head: the same hash at the same seq
    means the same rows, so a refold would give this state. Anything else folds anew.
    """

    seq: int
    hash: str
    system: str
    state: core.State
    revisions: tuple[events.Recorded, ...]
    standing: Standing


class Session:
    """The state of one encounter inside a write transaction, kept at the transaction's head.

    The encounter is folded on first need: re-importing events that are all stored already
    never folds at all.
    """

    def __init__(
        self,
        txn: Transaction,
        secret: bytes | None,
        user: str | None = None,
        policed: bool = True,
        folded: Folded | None = None,
    ) -> None:
        self.txn = txn
        self.secret = secret
        #: Who acts (`Ledger(user=...)`): each event names them as its `by` unless it names
        #: someone itself; None: the event's own `by` is who acts.
        self.user = user
        #: Whether the policy in force judges each act (an import restores acts as recorded).
        self.policed = policed
        self._ready = False
        self.state: core.State | None = None
        #: The encounter's retractions, corrections, rewinds and dice events, in seq order.
        self.revisions: list[events.Recorded] = []
        self.standing = Standing()
        #: States after every `snapshots.EVERY`th seq, oldest first; `stored`: the newest in
        #: the store.
        self.checkpoints: list[Checkpoint] = []
        self.stored = 0
        #: What the last retraction or correction admitted did downstream.
        self.downstream: Downstream | None = None
        #: The encounter as this writer's last write left it, if it kept it (`Folded`).
        self._folded = folded

    @property
    def encounter(self) -> str:
        """The encounter written to."""
        return self.txn.encounter

    @property
    def seq(self) -> int:
        """The head's seq, counting what this transaction appended."""
        return self.txn.seq

    @property
    def gone(self) -> frozenset[int]:
        """The seqs that do not count (retracted)."""
        return self.standing.gone

    def system(self) -> str | None:
        """The encounter's system (None: it is not opened yet)."""
        return self.txn.system

    @property
    def ruleset(self) -> core.AnyRuleset:
        """The ruleset of the encounter's system (it must be open)."""
        system = self.txn.system
        if system is None:
            raise UnknownName(
                f"encounter {self.encounter!r} does not exist yet", code="unknown-encounter"
            )
        return systems.ruleset(system)

    def records(self, after: int = 0) -> Iterable[events.Recorded]:
        """The encounter's events after seq `after`, appended ones included."""
        system = self.txn.system
        if system is None:
            return ()
        return (systems.from_row(row, system) for row in self.txn.rows(after))

    def ready(self) -> Session:
        """Fold to the transaction's head (once): from the newest snapshot that holds."""
        if self._ready:
            return self
        self._ready = True
        system = self.txn.system
        if system is None:
            return self
        kept = self._folded
        if (
            kept is not None
            and self.txn.checked
            and (kept.seq, kept.hash, kept.system) == (self.txn.seq, self.txn.hash, system)
        ):
            self.state, self.revisions, self.standing = kept.state, [*kept.revisions], kept.standing
            self.stored = kept.seq
            return self
        self.revisions = [systems.from_row(row, system) for row in self.txn.revisions()]
        self.standing = standing(self.revisions)
        found = self.txn.snapshots(self.txn.seq, self.secret)
        start = from_snapshot(self.ruleset, found, self.standing, self.encounter)
        if start is not None:
            self.checkpoints, self.stored = [start], start[0]
        first, state = start if start is not None else (0, None)
        self.state = fold_on(
            self.ruleset, self.records(first), self.standing, state, self.checkpoints
        )
        return self

    def folded(self) -> Folded | None:
        """The encounter as this session leaves it (None: it was never folded), for the
        writer's next write."""
        system = self.txn.system
        if not self._ready or self.state is None or system is None:
            return None
        return Folded(
            self.txn.seq,
            self.txn.hash,
            system,
            self.state,
            tuple(self.revisions),
            self.standing,
        )

    def older_checkpoint(self, before: int) -> Checkpoint | None:
        """The newest state before seq `before` to refold from: a checkpoint of this session,
        else a snapshot in the store that holds for the standing as it was."""
        kept = [c for c in self.checkpoints if c[0] < before]
        if kept:
            return kept[-1]
        found = self.txn.snapshots(before - 1, self.secret)
        return from_snapshot(self.ruleset, found, self.standing, self.encounter)

    def known_row(self, id: str) -> Row | None:
        """The row with this id, in any encounter, appended here or stored before."""
        return self.txn.by_id(id)

    def stored_event(self, seq: int) -> events.Recorded:
        """The event stored at `seq`, as recorded (unknown name when there is none)."""
        row = self.txn.row_at(seq) if 1 <= seq <= self.seq else None
        system = self.txn.system
        if row is None or system is None:
            raise UnknownName(
                f"seq {seq} is not in encounter {self.encounter!r} (seqs 1-{self.seq})",
                code="unknown-seq",
            )
        return systems.from_row(row, system)

    def as_read(self, seq: int) -> events.Recorded:
        """The event at `seq` as the fold reads it now (its corrections applied)."""
        return corrected(self.stored_event(seq), self.standing.fixes.get(seq, ()))

    def append(self, event: events.Event, given: Given = NOTHING_GIVEN) -> events.Recorded:
        """Append one validated event at the next seq."""
        kind = events.type_of(event)
        body = events.body_of(event) if given.as_stored is None else given.as_stored
        try:
            text = chains.canonical(body)
        except ValueError as exc:  # NaN or infinity: not JSON
            raise BadInput(f"{kind} event holds a number that JSON cannot carry: {exc}") from exc
        opened = event if isinstance(event, events.EncounterOpened) else None
        row = self.txn.append(
            kind,
            text,
            id=given.id,
            recorded_at=given.recorded_at,
            system=opened.system if opened is not None else None,
            title=opened.title if opened is not None else None,
        )
        return events.Recorded(
            row.encounter,
            row.seq,
            row.id,
            row.recorded_at,
            row.prev_hash,
            row.hash,
            event,
            given.as_stored,
        )

    def attributed(self, before: core.State, event: events.Event) -> events.Event:
        """`event` in the name of the acting user (its `by`, when it names nobody), once the
        policy in force lets that user record it (`NotAllowed` otherwise)."""
        if self.user is not None and event.by is None:
            event = event.model_copy(update={"by": self.user})
        if not self.policed:
            return event
        refused = acts.refusal(before, self.user if self.user is not None else event.by, event)
        if refused is not None:
            raise NotAllowed(refused)
        if before.policy is not None and self.user is not None and event.by != self.user:
            # A GM enters an act in another's name: the act names them both, so the audit
            # judges the GM's right to it (and a name nobody at the table has is a typo).
            stranger = acts.stranger(before, event.by)
            if stranger is not None:
                raise BadInput(stranger, code="unknown-user")
            event = event.model_copy(update={"entered_by": self.user})
        return event

    def admit(
        self,
        event: events.Event,
        *,
        strict: bool,
        audit: bool = True,
        given: Given = NOTHING_GIVEN,
    ) -> tuple[events.Recorded, list[Finding]]:
        """Validate one event (not a retraction or correction: `ledger.revise.admit` takes
        those) against the head state, append it, and return its findings."""
        before = self.ready().state
        seq = self.txn.seq + 1
        if isinstance(event, events.EncounterOpened):
            if before is not None:
                raise BadInput(
                    f"encounter {self.encounter!r} is already open "
                    f"({before.system}); encounter.opened comes once, at seq 1",
                    code="encounter-exists",
                )
            ruleset = systems.ruleset(event.system)
            if self.user is not None and event.by is None:
                event = event.model_copy(update={"by": self.user})
            # A copy of a stored opening (its hash given) keeps the table it was played by, as
            # a read of the stored bytes will; a new one is filled from today's defaults.
            rules = core.pinned_rules(ruleset, event.rules, as_played=given.chained)
            event = event.pinning(rules)
            if event.policy is not None:
                table = acts.pinned(ruleset, event.policy, opener=event.by)
                event = event.model_copy(update={"policy": frozen_object(table)})
            probe = events.Recorded(self.encounter, seq, given.id or "", "", "", "", event, None)
            after = core.RunningFold(ruleset).add(probe, strict=True)
        elif before is None:
            raise UnknownName(
                f"encounter {self.encounter!r} does not exist yet", code="unknown-encounter"
            )
        else:
            event = self.attributed(before, event)
            event = self.table_checked(before, seq, event)
            if isinstance(event, events.CombatantJoined) and not given.chained:
                check_lookalike(event.name, before)
            probe = events.Recorded(self.encounter, seq, given.id or "", "", "", "", event, None)
            after = core.replace(core.advance(self.ruleset, before, seq, event), seq=seq)
        found: list[Finding] = []
        if before is not None and (audit or strict):
            found = audit_rules.for_event(self.ruleset, before, probe, after, {})
            if strict and any(f.severity == "error" for f in found):
                raise RuleRefused(refusal(found))
        record = self.append(event, given)
        self.state = after
        if type(event) in KEPT_MODELS:
            # A dice event: a rewind keeps it, so the standing must know its seq.
            self.revisions.append(record)
        if record.seq % sealed.EVERY == 0:
            self.checkpoints.append((record.seq, after))
        return record, found

    def table_checked(self, before: core.State, seq: int, event: events.Event) -> events.Event:
        """A proposal that would apply now, and a policy change pinned whole (bad input
        otherwise); any other event as it is."""
        if isinstance(event, events.ProposalMade):
            # A proposal of an event that would not apply now (a GM accepting it) is refused.
            fact = proposals.proposed(
                self.ruleset, proposals.thawed(event.event), seq, stored=False
            )
            core.advance(self.ruleset, before, seq, fact)
        elif isinstance(event, events.PolicyChanged):
            table = acts.pinned(self.ruleset, event.policy)
            if not table["gms"]:
                raise BadInput("a policy names at least one GM (gms); none would rule")
            event = event.model_copy(update={"policy": frozen_object(table)})
        return event

    def keep(self) -> None:
        """Store, sealed, the checkpoints this write folded that the store does not hold yet
        (a cache: without a seal key nothing is stored)."""
        fresh = [c for c in self.checkpoints if c[0] > self.stored][-sealed.KEPT :]
        if not fresh or self.txn.system is None:
            return
        secret = self.secret or sealed.key(create=True)
        if secret is None:
            return
        for seq, state in fresh:
            # One at a time: a long encounter's state is large as text, and four at once
            # were the peak of a long import's memory.
            row = self.txn.row_at(seq)
            text = core.state_to_json(state)
            if row is not None and text is not None:
                key = standing_key(self.standing, seq, self.txn.system)
                self.txn.keep_snapshots(secret, [sealed.Snapshot(seq, row.hash, key, text)])
            del text
        self.stored = fresh[-1][0]


class Written:
    """What a write did: the events appended, the findings they raise, the tracks they changed.

    The tracks changed, the state after the write and the events in words are worked out when
    first asked for: a bot that only appends pays for none of them.
    """

    def __init__(
        self,
        folds: Sequence[tuple[core.State | None, events.Recorded, core.State]],
        findings: Iterable[Finding],
        downstream: Downstream | None = None,
        dry_run: bool = False,
        set_aside: Iterable[int] = (),
        positions: Mapping[int, int] | None = None,
    ) -> None:
        self._folds = tuple(folds)
        #: The global position of each appended event, by seq (the transaction's: filled in as
        #: its rows are stored; empty on a dry run).
        self._positions = positions if positions is not None else {}
        #: The events appended (on a dry run: what would have been).
        self.records: tuple[events.Recorded, ...] = tuple(f[1] for f in self._folds)
        #: The findings they raise.
        self.findings: tuple[Finding, ...] = tuple(findings)
        #: What an undo, redo or amend did to the rest of the encounter.
        self.downstream = downstream
        #: A dry run: nothing was appended.
        self.dry_run = dry_run
        #: The seqs a rewind set aside (none for any other write).
        self.set_aside: tuple[int, ...] = tuple(set_aside)

    @functools.cached_property
    def changes(self) -> tuple[Change, ...]:
        """The tracks (and pools) the write changed."""
        first, last = self._folds[0][0], self._folds[-1][2]
        return tuple(changed_tracks(first, last)) if first is not None else ()

    @property
    def state(self) -> core.State:
        """The tracks after the write (frozen: nobody can change them)."""
        return self._folds[-1][2]

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        """Each appended event in words (`projections.words.explain`), one per record."""
        ruleset = systems.ruleset(self.system)
        return tuple(words.explain(ruleset, b, r.seq, r.event, a) for b, r, a in self._folds)

    @property
    def system(self) -> str:
        """The key of the encounter's rule system."""
        return self.state.system

    @property
    def seq(self) -> int:
        """The last seq appended (or the head, when nothing new was appended)."""
        return self.records[-1].seq if self.records else self.state.seq

    @property
    def position(self) -> int | None:
        """The global position of the last event appended (None on a dry run): a read with
        `at_least=position` sees this write, a follower hands it out after the ones before."""
        if self.dry_run or not self.records:
            return None
        return self._positions.get(self.records[-1].seq)

    def document(self) -> dict[str, Any]:
        """The write's `--json` document: the events appended (as exported), their position,
        the rolls they made, the tracks they changed and the findings they raised."""
        seqs = {r.seq for r in self.records}
        # A burn changes an earlier roll's outcome: that roll, as it is now, is listed too.
        ruleset = systems.ruleset(self.system)
        changed = (played.rescored(ruleset, self.state, r.event) for r in self.records)
        seqs |= {roll.seq for roll in changed if roll is not None}
        rolls = [roll.dump() for roll in self.state.rolls if roll.seq in seqs]
        document: dict[str, Any] = {
            "encounter": self.state.encounter,
            "seq": self.seq,
            "position": self.position,
            "records": [r.exchange() for r in self.records],
            "rolls": rolls,
            "changes": [c.document() for c in self.changes],
            "findings": [f.model_dump(mode="json") for f in self.findings],
            "words": list(self.words),
        }
        if self.downstream is not None:
            document["downstream"] = self.downstream.document()
        if self.set_aside:
            document["set_aside"] = list(self.set_aside)
        if self.dry_run:
            document["dry_run"] = True
        return document


def refusal(found: Sequence[Finding]) -> str:
    """The `--strict` refusal for the first error among `found`."""
    first = next(f for f in found if f.severity == "error")
    return f"refused (--strict): [{first.rule}] {first.message}"


def check_lookalike(name: str, state: core.State) -> None:
    """Bad input for a new combatant whose name looks like one already in the encounter
    (Unicode's confusables: a Cyrillic `і` for a Latin `i`) or differs from one only in case
    (`kakita` beside `Kakita`: the same person to the table), naming both."""
    folded = name.casefold()
    same = next((o for o in state.combatants if o != name and o.casefold() == folded), None)
    if same is not None:
        raise BadInput(
            f"combatant name {name!r} differs only in case from {same!r}, already in encounter "
            f"{state.encounter!r}: name {same!r} to mean them, or choose a name that differs"
        )
    other = lookalike.lookalike(name, state.combatants)
    if other is not None:
        where = lookalike.difference(name, other)
        raise BadInput(
            f"combatant name {name!r} looks like {other!r}, already in encounter "
            f"{state.encounter!r}{f' ({where})' if where else ''}: choose a name that does not"
        )


def check_name(name: str, what: str) -> None:
    """Bad input for an encounter or combatant name the events would refuse."""
    try:
        name_adapter().validate_python(name)
    except ValidationError as exc:
        raise BadInput(f"{what} name {name!r}: {exc.errors()[0]['msg'].lower()}") from exc
    if what == "encounter" and name.endswith(".jsonl"):
        # The read commands take a NAME ending in .jsonl as a file to read.
        raise BadInput(f"encounter name {name!r}: must not end in .jsonl (that names a file)")


_GAME_TIME: Final = frozenset({"round", "scene", "by"})


def game_time(stamp: Mapping[str, Any] | None) -> dict[str, Any]:
    """A ruling's optional game time, checked to hold nothing else (its values are checked by
    the event model, as on any event)."""
    if stamp is None:
        return {}
    if not isinstance(stamp, Mapping) or not set(stamp) <= _GAME_TIME:
        raise BadInput(f"a stamp holds only round, scene and by, not {stamp!r}")
    return dict(stamp)


def check_seq(seq: int | None) -> None:
    """Bad input for a seq that is not a whole number."""
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool)):
        raise BadInput(f"a seq is a whole number, not {seq!r}")
