"""A write transaction's view of one encounter: folded to the head, validating what is appended.

Every write runs inside one store transaction (`ledger.transaction`): read the head, fold to it
(from the ledger's cache when it is still the head), validate the new events against that state,
compute the findings they raise, append. A retraction or correction (`ledger.revising`) refolds
only from the last checkpoint before what it changes. What the write folded is kept in the
projection cache in the same transaction (`Session.keep`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from typing import Final

from ledger import cache, events, headview, revising
from ledger.cache import SNAPSHOT_EVERY, load_snapshot
from ledger.errors import BadInput, RuleRefused, UnknownName
from ledger.revising import refusal, retracted_by
from ledger.rows import recorded
from ledger.transaction import NOTHING_GIVEN, Given, Transaction
from projections import audit as audit_rules
from projections import core
from projections.downstream import Downstream
from projections.findings import Finding
from projections.registry import RULESETS, ruleset
from projections.revisions import REVISION_MODELS, Standing, corrected, standing

#: The event types that change how earlier events count.
REVISIONS: Final = frozenset({"event.retracted", "event.corrected"})

#: A write keeps the folded state every this many seqs, so an undo refolds at most this many
#: events before what it changes (instead of the whole encounter).
CHECKPOINT_EVERY: Final = SNAPSHOT_EVERY

#: A session also keeps the state after each of its last this many events, so that undoing or
#: correcting a recent event (the usual mistake: the wrong hit, just now) refolds only the events
#: after it rather than everything since the last checkpoint. States share what they did not
#: change, so these cost little memory.
RECENT_KEPT: Final = 32

Checkpoint = tuple[int, core.State]


class AtHead:
    """An encounter folded to its head: the state, the retractions and corrections and their
    standing, and checkpoints (the state after every CHECKPOINT_EVERY-th seq) to refold from."""

    def __init__(
        self,
        seq: int,
        hash: str,
        state: core.State | None,
        revisions: list[events.Recorded],
        standing: Standing,
        checkpoints: list[Checkpoint],
        stored: int = 0,
        recent: Iterable[Checkpoint] = (),
        sealed: bool = False,
    ) -> None:
        self.seq = seq
        self.hash = hash
        self.state = state
        self.revisions = revisions
        self.standing = standing
        self.checkpoints = checkpoints
        #: The newest seq of a checkpoint that the file's cache holds too (0: none).
        self.stored = stored
        #: The states after the last few events (`RECENT_KEPT`), oldest first.
        self.recent = tuple(recent)
        #: Whether the head view's rows in the file are the ones this ledger's last write at
        #: this head left (written or checked): the next write need not read them back.
        self.sealed = sealed


def fold_on(
    records: Iterable[events.Recorded],
    standing: Standing,
    state: core.State | None,
    checkpoints: list[Checkpoint] | None = None,
    also: Collection[int] = (),
) -> core.State | None:
    """Fold `records` (as `standing` has them) on top of `state`, keeping checkpoints (and
    the states after the seqs `also`)."""
    folder = core.RunningFold(RULESETS, state, standing.fixes)
    for record in records:
        if record.seq not in standing.gone:
            folder.feed(record)
        if checkpoints is not None and (record.seq % CHECKPOINT_EVERY == 0 or record.seq in also):
            assert folder.state is not None
            checkpoints.append((record.seq, folder.state))
    return folder.state


class Session:
    """The state of one encounter inside a write transaction, kept at the transaction's head.

    The encounter is folded on first need: re-importing events that are all stored already
    never folds at all.
    """

    def __init__(self, folds: Mapping[str, AtHead], txn: Transaction) -> None:
        self.txn = txn
        self._folds = folds
        self._ready = False
        self.state: core.State | None = None
        #: The encounter's retractions and corrections, in seq order, and what they do.
        self.revisions: list[events.Recorded] = []
        self.standing = Standing()
        self.checkpoints: list[Checkpoint] = []
        self.stored = 0
        #: The states after this encounter's last few events (not a checkpoint: never stored).
        self.recent: deque[Checkpoint] = deque(maxlen=RECENT_KEPT)
        #: What the last retraction or correction admitted did downstream.
        self.downstream: Downstream | None = None
        #: Whether the file's head view rows are known (see `AtHead.sealed`).
        self.sealed = False

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

    def ready(self) -> Session:
        """Fold to the transaction's head (once)."""
        if not self._ready:
            folded = at_head(self._folds, self.txn)
            self.state = folded.state
            # Copies: the cached lists must not see what a transaction that may roll back adds.
            self.revisions = list(folded.revisions)
            self.standing = folded.standing
            self.checkpoints = list(folded.checkpoints)
            self.stored = folded.stored
            self.recent.extend(folded.recent)
            self.sealed = folded.sealed
            self._ready = True
        return self

    def system(self) -> str | None:
        """The encounter's system (None: it is not opened yet)."""
        return self.txn.system

    def known_id(self, id: str) -> events.Recorded | None:
        """The event with this id, in any encounter, appended here or stored before."""
        return self.txn.known_id(id)

    def folded(self) -> AtHead | None:
        """What the ledger may cache once the transaction commits (None: nothing was folded)."""
        if not self._ready:
            return None
        return AtHead(
            self.txn.seq,
            self.txn.hash,
            self.state,
            self.revisions,
            self.standing,
            self.checkpoints,
            self.stored,
            self.recent,
            self.sealed,
        )

    def stored_event(self, seq: int) -> events.Recorded:
        """The event stored at `seq`, as recorded (unknown name when there is none)."""
        found = next(iter(self.txn.records(seq - 1)), None) if seq >= 1 else None
        if found is None or found.seq != seq:
            raise UnknownName(
                f"seq {seq} is not in encounter {self.encounter!r} (seqs 1-{self.seq})",
                code="unknown-seq",
            )
        return found

    def as_read(self, seq: int) -> events.Recorded:
        """The event at `seq` as the fold reads it now (its corrections applied)."""
        return corrected(self.stored_event(seq), self.standing.fixes.get(seq, ()))

    def amend_at(self, seq: int) -> events.EventRetracted | None:
        """The retraction at `seq` when it is the first half of an amend of version 0.1."""
        for r in self.revisions:
            if r.seq == seq and isinstance(r.event, events.EventRetracted):
                return r.event if r.event.kind == "amend" else None
        return None

    def amended(self, seq: int) -> str | None:
        """When a 0.1 amend in effect retracted `seq`: where its copy is, as advice."""
        by = retracted_by(self.revisions, seq, self.gone)
        if by and self.amend_at(by) is not None:
            return (
                f"seq {seq} was amended (retracted at seq {by}; its corrected copy is seq "
                f"{by + 1}): amend or undo seq {by + 1} instead"
            )
        return None

    def undo_target(self, seq: int | None) -> int:
        """What an undo retracts: `seq`, else the last effective event that is not a
        retraction (nor seq 1); a correction is undone like any other event."""
        if seq is not None:
            return seq
        for s, kind in self.txn.seqs_from_head():
            if s > 1 and s not in self.gone and kind != "event.retracted":
                return s
        raise BadInput(f"encounter {self.encounter!r} has nothing to undo")

    def redo_target(self, seq: int | None) -> int:
        """What a redo retracts: the undo in effect that is `seq` or retracted `seq`, else the
        last undo in effect."""
        # A redo's own retraction is not an undo, so a second redo finds nothing rather than
        # undoing the first.
        undos = [
            r
            for r in self.revisions
            if r.seq not in self.gone
            and isinstance(r.event, events.EventRetracted)
            and r.event.kind == "undo"
        ]
        if seq is None:
            if not undos:
                raise BadInput(f"encounter {self.encounter!r} has nothing to redo")
            return undos[-1].seq
        if any(r.seq == seq for r in undos):
            return seq
        amended = self.amended(seq) if seq in self.gone else None
        if amended is not None or self.amend_at(seq) is not None:
            raise BadInput(
                amended or f"seq {seq} is the retraction half of an amend: amends are not redone"
            )
        match = [
            r.seq
            for r in undos
            if isinstance(r.event, events.EventRetracted) and r.event.target == seq
        ]
        if not match:
            raise BadInput(
                f"seq {seq} is neither an undone event nor an undo in effect; nothing to redo there"
            )
        return match[-1]

    def admit(
        self,
        event: events.Event,
        *,
        strict: bool,
        audit: bool = True,
        given: Given = NOTHING_GIVEN,
    ) -> tuple[events.Recorded, list[Finding]]:
        """Validate one event against the head state, append it, and return its findings."""
        before = (self if self._ready else self.ready()).state
        seq = self.txn.seq + 1
        # Exact classes (no event model is subclassed): pydantic's model classes are ABCs,
        # whose isinstance costs several times as much, and an import asks for every line.
        kind = type(event)
        if kind is events.EncounterOpened:
            assert isinstance(event, events.EncounterOpened)
            if before is not None:
                raise BadInput(
                    f"encounter {self.encounter!r} is already open "
                    f"({before.system}); encounter.opened comes once, at seq 1",
                    code="encounter-exists",
                )
            rules = core.pinned_rules(ruleset(event.system), event.rules)
            event = event.pinning(rules)
        elif before is None:
            raise UnknownName(
                f"encounter {self.encounter!r} does not exist yet", code="unknown-encounter"
            )
        if kind in REVISION_MODELS:
            assert before is not None
            assert isinstance(event, events.EventRetracted | events.EventCorrected)
            return revising.revise(
                self,
                event,
                before,
                strict=strict,
                audit=audit,
                given=given,
                every=CHECKPOINT_EVERY,
            )
        if before is None:
            probe = recorded(self.encounter, seq, given.id or "", "", "", "", event)
            after = core.RunningFold(RULESETS).add(probe, strict=True)
        else:
            # One event on the head (bad input when it names what the state does not hold),
            # without a fold's bookkeeping: an import admits its every line so.
            system = ruleset(before.system)
            after = core.replace(core.advance(system, before, seq, event), seq=seq)
        found: list[Finding] = []
        if before is not None and (audit or strict):
            probe = recorded(self.encounter, seq, given.id or "", "", "", "", event)
            found = audit_rules.for_event(system, before, probe, after, {})
            if strict and any(f.severity == "error" for f in found):
                raise RuleRefused(refusal(found))
        record = self.txn.append(event, given)
        self.state = after
        self.recent.append((record.seq, after))
        if record.seq % CHECKPOINT_EVERY == 0:
            self.checkpoints.append((record.seq, after))
        return record, found

    def keep(self, before: tuple[int, str] | None, was: core.State | None, *, final: bool) -> None:
        """Store what this write adds to the projection cache, in its transaction: the snapshots
        it folded that the file does not hold yet (all of them, and the head too, when `final`:
        the end of an import), and the head view (`before` is the head the write started from,
        `was` the state there)."""
        state, txn = self.state, self.txn
        if state is None:
            return
        conn = txn.cache_connection()
        if conn is None:  # a store without cache tables
            return
        fresh = [c for c in self.checkpoints if c[0] > self.stored]
        if final and (not fresh or fresh[-1][0] != txn.seq) and txn.seq > self.stored:
            fresh.append((txn.seq, state))
        if fresh:
            fresh = fresh[-cache.SNAPSHOTS_KEPT :]
            hashes = {r.seq: r.hash for r in txn.appended}
            snapshots = [
                (seq, hashes.get(seq) or cache.event_hash(conn, txn.encounter, seq), s)
                for seq, s in fresh
            ]
            cache.save_snapshots(conn, txn.encounter, snapshots, self.standing)
            self.stored = fresh[-1][0]
        headview.save_view(conn, before, was, (txn.seq, txn.hash), state, known=self.sealed)
        self.sealed = True


def at_head(folds: Mapping[str, AtHead], txn: Transaction) -> AtHead:
    """The encounter folded to the transaction's head: from the cache when it is still the
    head, caught up from it when only new events (no retraction or correction) came since, else
    folded anew."""
    if txn.system is None:
        return AtHead(0, txn.hash, None, [], Standing(), [])
    cached = folds.get(txn.encounter)
    if cached is not None and cached.seq <= txn.seq:
        if cached.seq == txn.seq and cached.hash == txn.hash:
            return cached
        newer = list(txn.records(cached.seq))
        if (
            newer
            and (newer[0].seq, newer[0].prev_hash) == (cached.seq + 1, cached.hash)
            and not any(r.type in REVISIONS for r in newer)
        ):
            checkpoints = list(cached.checkpoints)
            state = fold_on(newer, cached.standing, cached.state, checkpoints)
            return AtHead(
                txn.seq,
                txn.hash,
                state,
                cached.revisions,
                cached.standing,
                checkpoints,
                cached.stored,
                cached.recent,
            )
    revisions = txn.revisions()
    now = standing(revisions)
    # The file's newest valid snapshot, if any: only the events after it are folded.
    damaged: list[int] = []
    snapshot = load_snapshot(txn.cache_connection(), txn.encounter, now, txn.seq, damaged)
    start, state = snapshot if snapshot is not None else (0, None)
    checkpoints = [snapshot] if snapshot is not None else []
    # A snapshot skipped for its digest is folded past: kept, so that this write stores it anew.
    state = fold_on(txn.records(start), now, state, checkpoints, damaged)
    return AtHead(txn.seq, txn.hash, state, revisions, now, checkpoints, start)
