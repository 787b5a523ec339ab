"""The downstream diff: what a retraction or correction does to the rest of the encounter.

The stream is folded twice from the same checkpoint, as it stood and as it stands, side by side:
the first seq where the two folds differ, the tracks that differ at the end and the findings one
has and the other lacks all come from folding, never from inverse arithmetic.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ledger import events
from projections import audit as audit_rules
from projections.changes import Change, changes
from projections.core import AnyRuleset, Roll, RunningFold, State
from projections.findings import Finding
from projections.revisions import Standing
from projections.values import builtins

Checkpoint = tuple[int, State]


class RollChange(BaseModel, frozen=True, defer_build=True):
    """A roll in both stories whose computed numbers differ (its lock corrected, say): the
    roll as `tracks --json` shows it before and after, and the two in words."""

    seq: int
    stake: str | None
    actor: str | None
    before: dict[str, Any]
    after: dict[str, Any]
    text: str


class Downstream(BaseModel, frozen=True, defer_build=True):
    """What a change of standing did downstream (DESIGN's `"downstream"` document)."""

    first_divergence: int | None
    changes: tuple[Change, ...] = ()
    rolls: tuple[RollChange, ...] = ()
    findings_added: tuple[Finding, ...] = ()
    findings_removed: tuple[Finding, ...] = ()

    def document(self) -> dict[str, Any]:
        """The `"downstream"` key of a write's `--json` document."""
        document: dict[str, Any] = builtins(
            {name: getattr(self, name) for name in type(self).model_fields}
        )
        return document


@dataclass
class Compared:
    """Two folds of one stream from one checkpoint: as it stood (`was`) and as it stands."""

    was: State | None
    now: State | None
    was_found: list[Finding] = field(default_factory=list)
    now_found: list[Finding] = field(default_factory=list)
    first_divergence: int | None = None

    def downstream(self) -> Downstream:
        """The diff, for people and for `--json`."""
        assert self.now is not None
        # A change's own `ruling-reversed` note (and that of a correction it undoes) is about
        # the ledger, not the fight: the diff is what the table's facts now raise.
        was = [f for f in self.was_found if f.rule != "ruling-reversed"]
        now = [f for f in self.now_found if f.rule != "ruling-reversed"]
        # A finding that now says something else (another value the rules would have
        # given) is one gone and one added: the diff shows what the audit says now.
        return Downstream(
            first_divergence=self.first_divergence,
            changes=tuple(changes(self.was, self.now)),
            rolls=tuple(rolls_changed(self.was, self.now, self.first_divergence)),
            findings_added=tuple(new_findings(was, now, worded=True)),
            findings_removed=tuple(new_findings(now, was, worded=True)),
        )


def rolls_changed(was: State | None, now: State, since: int | None) -> Iterable[RollChange]:
    """The rolls both states hold whose computed numbers differ, in seq order, from the first
    seq where the stories part (`since`; None: they never do): rolls are not tracks, and a lock
    corrected after its roll changes the roll and maybe no track."""
    if was is None or was is now or since is None:
        return
    rolls = now.rolls
    for roll in rolls[bisect_left(rolls, since, key=_seq_of) :]:
        old = was.roll_at(roll.seq)
        if old is None or old is roll or old == roll:
            continue
        before, after = old.dump(), roll.dump()
        if before != after:
            text = f"{old.describe()} -> {roll.describe()}"
            yield RollChange(
                seq=roll.seq,
                stake=roll.stake,
                actor=roll.actor,
                before=before,
                after=after,
                text=text,
            )


def _seq_of(roll: Roll) -> int:
    return roll.seq


def compare(
    ruleset: AnyRuleset,
    records: Iterable[events.Recorded],
    stood: Standing | None,
    stands: Standing,
    state: State | None,
    checkpoints: list[Checkpoint] | None = None,
    every: int = 256,
    quiet: int | None = None,
    audit: bool = True,
) -> Compared:
    """Fold `records` on top of `state` under both standings (`stood` None: only the new
    one), auditing each event (except the seq `quiet`) and keeping the new fold's checkpoints
    every `every` seqs. Without `audit`, only what no longer applies is reported.

    Once every seq whose standing differs is behind them (`quiet` aside: it is folded by
    neither story's audit, and changes no state) and the two states are equal, the two
    stories are one from there on: the rest is folded once, its findings told to both.
    """
    old = RunningFold(ruleset, state, stood.fixes) if stood is not None else None
    new = RunningFold(ruleset, state, stands.fixes)
    out = Compared(state, state)
    was: list[Raised] = []
    now: list[Raised] = []
    parting = max((stood.changes(stands) - {quiet}) if stood is not None else (), default=0)
    one, attempt, wait = False, 0, 1
    for record in records:
        seq = record.seq
        if one:
            if seq not in stands.gone:
                raised = _fold(new, record, quiet, audit)
                now += raised
                was += raised
        else:
            if old is not None and stood is not None and seq not in stood.gone:
                was += _fold(old, record, quiet, audit)
            if seq not in stands.gone:
                now += _fold(new, record, quiet, audit)
            if old is not None and out.first_divergence is None and _differs(old.state, new.state):
                out.first_divergence = seq
            if old is not None and seq > parting and seq >= attempt:
                # Tried less often while they stay apart: an equal test may read every roll.
                if converged(old.state, new.state):
                    one = True
                else:
                    attempt, wait = seq + wait, wait * 2
        if checkpoints is not None and seq % every == 0:
            assert new.state is not None
            checkpoints.append((seq, new.state))
    out.now = new.state
    if old is not None:
        # One story at the end: the state as it stood is the state as it stands.
        out.was = new.state if one else old.state
        out.was_found = _still(new if one else old, was)
    else:
        out.was = None
    out.now_found = _still(new, now)
    return out


def converged(was: State | None, now: State | None) -> bool:
    """Whether the two stories hold the same encounter (its `seq` aside), so that the same
    events fold and audit alike in both from here."""
    if was is None or now is None:
        return was is now
    return was.seq == now.seq and was == now


#: A finding, or the key of a reminder: kept only while its obligation is open at the end.
Raised = Finding | tuple[str, tuple[int, ...]]


def _fold(
    folder: RunningFold, record: events.Recorded, quiet: int | None, audit: bool
) -> list[Raised]:
    was = folder.state
    now = folder.add(record)
    if was is None or record.seq == quiet:
        return []
    if audit:
        assert folder.last is not None  # the event as the fold read it (corrected)
        raised, reminding = audit_rules.raised_and_reminded(
            folder.ruleset, was, folder.last, now, {}
        )
        return [*raised, *reminding]
    if len(now.skipped) > len(was.skipped):
        lost = now.skipped[-1]
        return [audit_rules.orphaned(lost.seq, lost.type, lost.reason)]
    return []


def _still(folder: RunningFold, found: list[Raised]) -> list[Finding]:
    # As the audit of the whole stream words it: a reminder only while it is still owed.
    if folder.state is None:
        return []
    open_ = audit_rules.reminders(folder.ruleset, folder.state)
    return [
        f if isinstance(f, Finding) else open_[f]
        for f in found
        if not isinstance(f, tuple) or f in open_
    ]


def _differs(a: State | None, b: State | None) -> bool:
    # What people see: tracks, pools, the rolls' outcomes, what no longer applies. Folds that
    # have not diverged share every untouched combatant, so this stays cheap on long streams.
    if a is None or b is None:
        return a is not b
    if a.pools != b.pools or len(a.rolls) != len(b.rolls) or len(a.skipped) != len(b.skipped):
        return True
    if a.rolls and a.rolls[-1] != b.rolls[-1]:
        return True
    return bool(changes(a, b))


def new_findings(
    was: Sequence[Finding], now: Sequence[Finding], worded: bool = False
) -> list[Finding]:
    """The findings in `now` that `was` does not have (by rule and seqs; `worded`: by their
    severity and message too), in order."""

    def key(f: Finding) -> tuple[Any, ...]:
        return (f.rule, f.seq, f.severity, f.message) if worded else (f.rule, f.seq)

    left = Counter(key(f) for f in was)
    fresh = []
    for f in now:
        if left[key(f)] > 0:
            left[key(f)] -= 1
        else:
            fresh.append(f)
    return fresh
