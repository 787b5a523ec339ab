"""A write transaction's view of one encounter: folded to the head, validating what is appended.

Every write runs inside one store transaction: read the head, fold to it (from the ledger's cache
when it is still the head), validate the new events against that state, compute the findings they
raise, append. A retraction refolds only from the last checkpoint before what it changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final

from ledger import events
from ledger.cache import SNAPSHOT_EVERY, load_snapshot
from ledger.errors import BadInput, RuleRefused, UnknownName
from ledger.rows import recorded
from ledger.writer import Writer
from projections import audit as audit_rules
from projections import core
from projections.findings import Finding
from projections.registry import RULESETS, ruleset

#: A write keeps the folded state every this many seqs, so an undo refolds at most this many
#: events before what it changes (instead of the whole encounter).
CHECKPOINT_EVERY: Final = SNAPSHOT_EVERY

Checkpoint = tuple[int, core.State]


class Folded:
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
        stored: int = 0,
    ) -> None:
        self.seq = seq
        self.hash = hash
        self.state = state
        self.retractions = retractions
        self.gone = gone
        self.checkpoints = checkpoints
        #: The newest seq of a checkpoint that the file's cache holds too (0: none).
        self.stored = stored


def fold_forward(
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


class Session:
    """The state of one encounter inside a write transaction, kept at the writer's head.

    The encounter is folded on first need: re-importing events that are all stored already
    never folds at all.
    """

    def __init__(self, cache: Mapping[str, Folded], writer: Writer) -> None:
        self.writer = writer
        self._cache = cache
        self._ready = False
        self.state: core.State | None = None
        self.retractions: list[events.Recorded] = []
        self.gone: frozenset[int] = frozenset()
        self.checkpoints: list[Checkpoint] = []
        self.stored = 0

    def ready(self) -> Session:
        """Fold to the writer's head (once)."""
        if not self._ready:
            folded = folded_at_head(self._cache, self.writer)
            self.state = folded.state
            # Copies: the cached lists must not see what a transaction that may roll back adds.
            self.retractions = list(folded.retractions)
            self.gone = folded.gone
            self.checkpoints = list(folded.checkpoints)
            self.stored = folded.stored
            self._ready = True
        return self

    def system(self) -> str | None:
        return self.writer.system

    def folded(self) -> Folded | None:
        """What the ledger may cache once the transaction commits (None: nothing was folded)."""
        if not self._ready:
            return None
        return Folded(
            self.writer.seq,
            self.writer.hash,
            self.state,
            self.retractions,
            self.gone,
            self.checkpoints,
            self.stored,
        )

    def amend_at(self, seq: int) -> events.EventRetracted | None:
        """The retraction at `seq` when it is the first half of an amend."""
        for r in self.retractions:
            if r.seq == seq and isinstance(r.event, events.EventRetracted):
                return r.event if r.event.kind == "amend" else None
        return None

    def amended(self, seq: int) -> str | None:
        """When an amend in effect retracted `seq`: where its corrected copy is, as advice."""
        by = retracted_by(self.retractions, seq, self.gone)
        if by and self.amend_at(by) is not None:
            return (
                f"seq {seq} was amended (retracted at seq {by}; its corrected copy is seq "
                f"{by + 1}): amend or undo seq {by + 1} instead"
            )
        return None

    def undo_target(self, seq: int | None) -> int:
        """What an undo retracts: `seq`, else the last effective event that is not a
        retraction (nor seq 1)."""
        if seq is not None:
            return seq
        for s, kind in self.writer.seqs_from_head():
            if s > 1 and s not in self.gone and kind != "event.retracted":
                return s
        raise BadInput(f"encounter {self.writer.encounter!r} has nothing to undo")

    def redo_target(self, seq: int | None) -> int:
        """What a redo retracts: the undo in effect that is `seq` or retracted `seq`, else the
        last undo in effect."""
        # A redo's own retraction is not an undo, so a second redo finds nothing rather than
        # undoing the first.
        undos = [
            r
            for r in self.retractions
            if r.seq not in self.gone
            and isinstance(r.event, events.EventRetracted)
            and r.event.kind == "undo"
        ]
        if seq is None:
            if not undos:
                raise BadInput(f"encounter {self.writer.encounter!r} has nothing to redo")
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
            raise UnknownName(
                f"encounter {self.writer.encounter!r} does not exist yet", code="unknown-encounter"
            )
        if isinstance(event, events.EventRetracted):
            assert before is not None
            return self._retract(
                event, before, strict=strict, audit=audit, id=id, recorded_at=recorded_at
            )
        probe = recorded(self.writer.encounter, seq, id or "", "", "", "", event)
        folder = core.Folder(RULESETS, before)
        after = folder.add(probe, strict=True)
        found: list[Finding] = []
        if before is not None and (audit or strict):
            found = audit_rules.for_event(folder.ruleset, before, probe, after, {})
            if strict and any(f.severity == "error" for f in found):
                raise RuleRefused(refusal(found))
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
        audit: bool,
        id: str | None,
        recorded_at: str | None,
    ) -> tuple[events.Recorded, list[Finding]]:
        target, top = event.target, self.writer.seq
        if target > top:
            raise UnknownName(
                f"seq {target} is not in encounter {self.writer.encounter!r} (seqs 1-{top})",
                code="unknown-seq",
            )
        if target == 1:
            raise BadInput("seq 1 (encounter.opened) cannot be retracted")
        amend = self.amend_at(target)
        if amend is not None:
            raise BadInput(
                f"seq {target} is the retraction half of the amend of seq {amend.target} "
                f"(its corrected copy is seq {target + 1}): undo seq {target + 1} to drop the "
                "correction"
            )
        if target in self.gone:
            amended = self.amended(target)
            if amended is not None:
                raise BadInput(amended)
            by = retracted_by(self.retractions, target, self.gone)
            if any(r.seq == target for r in self.retractions):
                raise BadInput(f"seq {target} is an undo that seq {by} already reversed")
            raise BadInput(
                f"seq {target} is already retracted (by seq {by}); use redo to restore it"
            )
        record = self.writer.append(event, id=id, recorded_at=recorded_at)
        retractions = [*self.retractions, record]
        gone = core.excluded(retractions)
        # Everything before the first seq whose standing changed folds as it did: refold from
        # the last checkpoint before it, once as the stream stood and once as it stands now,
        # auditing both, so that what the retraction breaks shows wherever it shows (an import
        # that neither audits nor refuses folds once, without auditing).
        fork = min(gone ^ self.gone)
        checkpoints = [c for c in self.checkpoints if c[0] < fork]
        if not checkpoints:
            # A new process holds only the snapshot it started from: the file may keep older.
            older = load_snapshot(
                self.writer.connection(), self.writer.encounter, self.gone, fork - 1
            )
            checkpoints = [older] if older is not None else []
        self.stored = min(self.stored, checkpoints[-1][0] if checkpoints else 0)
        start, state = checkpoints[-1] if checkpoints else (0, None)
        audited = audit or strict
        was: list[Finding] = []
        if audited:
            _, was = fold_audited(self.writer.records(start), self.gone | {record.seq}, state)
        types: dict[int, str] = {}

        def remember_target(records: Iterator[events.Recorded]) -> Iterator[events.Recorded]:
            for r in records:
                if r.seq == target:
                    types[target] = r.type
                yield r

        after, now = fold_audited(
            remember_target(self.writer.records(start)),
            gone,
            state,
            checkpoints,
            quiet=record.seq if audited else None,
            audit=audited,
        )
        assert after is not None
        if strict and len(after.skipped) > len(before.skipped):
            lost = after.skipped[-1]
            raise RuleRefused(
                f"refused (--strict): retracting seq {target} leaves seq {lost.seq} "
                f"({lost.type}) orphaned: {lost.reason}"
            )
        # What the stream raises now and did not before (each at its own seqs): events the
        # retraction orphans, and rules they now break (a roll left without its lock...).
        if not audited:
            # Without the audit of the stream as it stood, what was orphaned before is known
            # from the state before the retraction.
            was = [f for f in now if any(s.seq == f.seq[0] for s in before.skipped)]
        found = new_findings(was, now)
        if strict and any(f.severity == "error" for f in found):
            raise RuleRefused(
                f"refused (--strict): retracting seq {target} would add an audit error: "
                + refusal(found).removeprefix("refused (--strict): ")
            )
        found += audit_rules.common(before, record, after, types)
        self.state, self.retractions, self.gone = after, retractions, gone
        self.checkpoints = checkpoints
        return record, found


def fold_audited(
    records: Iterable[events.Recorded],
    gone: frozenset[int],
    state: core.State | None,
    checkpoints: list[Checkpoint] | None = None,
    quiet: int | None = None,
    audit: bool = True,
) -> tuple[core.State | None, list[Finding]]:
    """`fold_forward`, auditing each event it folds (except the seq `quiet`); with `audit`
    False, only what no longer applies is reported (`event-orphaned`)."""
    folder = core.Folder(RULESETS, state)
    found: list[Finding] = []
    for record in records:
        if record.seq not in gone:
            was = folder.state
            now = folder.add(record)
            if not audit:
                if was is not None and len(now.skipped) > len(was.skipped):
                    lost = now.skipped[-1]
                    found.append(audit_rules.orphaned(lost.seq, lost.type, lost.reason))
            elif was is not None and record.seq != quiet:
                found += audit_rules.for_event(folder.ruleset, was, record, now, {})
        if checkpoints is not None and record.seq % CHECKPOINT_EVERY == 0:
            assert folder.state is not None
            checkpoints.append((record.seq, folder.state))
    return folder.state, found


def new_findings(was: Sequence[Finding], now: Sequence[Finding]) -> list[Finding]:
    """The findings in `now` that `was` does not have (by rule and seqs), in order."""
    left = Counter((f.rule, f.seq) for f in was)
    fresh = []
    for f in now:
        if left[(f.rule, f.seq)] > 0:
            left[(f.rule, f.seq)] -= 1
        else:
            fresh.append(f)
    return fresh


def retracted_by(retractions: Sequence[events.Recorded], target: int, gone: frozenset[int]) -> int:
    for r in reversed(retractions):
        if (
            isinstance(r.event, events.EventRetracted)
            and r.event.target == target
            and r.seq not in gone
        ):
            return r.seq
    return 0


def refusal(found: Sequence[Finding]) -> str:
    first = next(f for f in found if f.severity == "error")
    return f"refused (--strict): [{first.rule}] {first.message}"


def folded_at_head(cache: Mapping[str, Folded], writer: Writer) -> Folded:
    """The encounter folded to the writer's head: from the cache when it is still the head,
    caught up from it when only new events (no retraction) came since, else folded anew."""
    if writer.system is None:
        return Folded(0, writer.hash, None, [], frozenset(), [])
    cached = cache.get(writer.encounter)
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
            state = fold_forward(newer, cached.gone, cached.state, checkpoints)
            return Folded(
                writer.seq,
                writer.hash,
                state,
                cached.retractions,
                cached.gone,
                checkpoints,
                cached.stored,
            )
    retractions = writer.retractions()
    gone = core.excluded(retractions)
    # The file's newest valid snapshot, if any: only the events after it are folded.
    snapshot = load_snapshot(writer.connection(), writer.encounter, gone, writer.seq)
    start, state = snapshot if snapshot is not None else (0, None)
    checkpoints = [snapshot] if snapshot is not None else []
    state = fold_forward(writer.records(start), gone, state, checkpoints)
    return Folded(writer.seq, writer.hash, state, retractions, gone, checkpoints, start)
