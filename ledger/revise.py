"""Admitting a retraction (undo, redo), a correction or a rewind inside a write transaction,
and what an undo or redo with no seq retracts.

Each one changes how earlier events count, so everything before the first seq whose standing
changes folds as it did: the stream is refolded from the last checkpoint before it, once as it
stood and once as it stands, side by side and audited, which gives what the change broke, what it
mended and where the two stories part (`projections.diff`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from ledger import events, systems
from ledger.dice import admit as dice_admit
from ledger.errors import BadInput, BrokenChain, RuleRefused, UnknownName
from ledger.store import snapshots
from ledger.write import NOTHING_GIVEN, Given, Session, refusal
from projections import audit as audit_rules
from projections import core
from projections import replay as steps
from projections.diff import compare, new_findings
from projections.findings import Finding
from projections.revisions import (
    KEPT_MODELS,
    UNCORRECTABLE,
    Standing,
    merged,
    reparsed,
    standing,
)
from projections.shown import end_of

#: What `revise` admits: the events that change how earlier ones count.
Revision = events.EventRetracted | events.EventCorrected | events.EncounterRewound
#: Event types no undo reaches: a dice commitment or reveal is what the dice are checked against.
UNRETRACTABLE: Final = frozenset({"encounter.opened", "dice.committed", "dice.revealed"})


def admit(
    session: Session,
    event: events.Event,
    *,
    strict: bool,
    audit: bool = True,
    given: Given = NOTHING_GIVEN,
) -> tuple[events.Recorded, list[Finding]]:
    """Admit any event: a retraction, correction or rewind here, every other one by the
    session (a dice event, or an event with dice the ledger rolled, checked first).

    While the encounter holds an effective event the ledger never accepted (unreadable), the
    only write it takes is the retraction of that event: nothing is judged on a stream that
    holds what the fold cannot read."""
    state = session.ready().state
    unread = [s for s in state.skipped if s.unreadable] if state is not None else []
    if unread and not (
        isinstance(event, events.EventRetracted) and event.target in {s.seq for s in unread}
    ):
        first = unread[0]
        raise BrokenChain(
            f"encounter {session.encounter!r} holds at seq {first.seq} an event the ledger "
            f"never accepted ({first.type}: {first.reason}): nothing was appended; retract it "
            f"first: encounter undo {session.encounter} {first.seq} --reason TEXT"
        )
    if isinstance(event, events.DiceCommitted | events.DiceRevealed) or getattr(
        event, "ledger_rolled", None
    ):
        dice_admit.check_dice(session, event)
    if isinstance(event, Revision):
        before = session.ready().state
        if before is None:
            raise UnknownName(
                f"encounter {session.encounter!r} does not exist yet", code="unknown-encounter"
            )
        revision = session.attributed(before, event)
        assert isinstance(revision, Revision)
        if isinstance(revision, events.EncounterRewound):
            revision = rewind_end(session, revision)
        return revise(session, revision, before, strict=strict, audit=audit, given=given)
    return session.admit(event, strict=strict, audit=audit, given=given)


def revise(
    session: Session,
    event: Revision,
    before: core.State,
    *,
    strict: bool,
    audit: bool,
    given: Given,
) -> tuple[events.Recorded, list[Finding]]:
    """Check, append and fold one retraction, correction or rewind; set `session.downstream`."""
    target, top = getattr(event, "target", 0), session.seq
    if target > top:
        raise UnknownName(
            f"seq {target} is not in encounter {session.encounter!r} (seqs 1-{top})",
            code="unknown-seq",
        )
    kind: str | None = None
    if isinstance(event, events.EventRetracted):
        _check_retraction(session, target)
        kind = session.stored_event(target).type if audit or strict else None
    elif isinstance(event, events.EventCorrected):
        kind = _check_correction(session, event)
    record = session.append(event, given)
    revisions = [*session.revisions, record]
    stood, stands = session.standing, standing(revisions)
    fork = stood.first_change(stands) or record.seq
    older = session.older_checkpoint(fork)
    checkpoints = [older] if older is not None else []
    session.stored = min(session.stored, checkpoints[-1][0] if checkpoints else 0)
    start, state = checkpoints[-1] if checkpoints else (0, None)
    audited = audit or strict
    # As the stream stood, the new event did not count: it is left out of that fold.
    then = Standing(stood.gone | {record.seq}, stood.fixes) if audited else None
    folds = compare(
        session.ruleset,
        session.records(start),
        then,
        stands,
        state,
        checkpoints,
        every=snapshots.EVERY,
        quiet=record.seq,
        audit=audited,
    )
    after = folds.now
    assert after is not None
    lost = [s for s in after.skipped if s.seq not in {b.seq for b in before.skipped}]
    if isinstance(event, events.EventCorrected) and any(s.seq == target for s in lost):
        why = next(s.reason for s in lost if s.seq == target)
        raise BadInput(f"the corrected seq {target} no longer applies where it was: {why}")
    if strict and lost:
        raise RuleRefused(
            f"refused (--strict): {_doing(event)} leaves seq {lost[0].seq} "
            f"({lost[0].type}) orphaned: {lost[0].reason}"
        )
    # What the stream raises now and did not before (each at its own seqs): events the
    # change orphans, and rules they now break (a roll left without its lock...).
    was = folds.was_found
    if not audited:
        # Without the audit of the stream as it stood, what was orphaned before is known
        # from the state before the change.
        was = [f for f in folds.now_found if any(s.seq == f.seq[0] for s in before.skipped)]
    found = new_findings(was, folds.now_found)
    if strict and any(f.severity == "error" for f in found):
        raise RuleRefused(
            f"refused (--strict): {_doing(event)} would add an audit error: "
            + refusal(found).removeprefix("refused (--strict): ")
        )
    types = {target: kind} if kind is not None else {}
    found += audit_rules.common(session.ruleset, before, record, after, types)
    # An obligation the change reopens (undoing the oracle roll that met a miss, or the
    # acceptance of a proposal), unless the stream's audit already raised it as new.
    found += [
        f for f in audit_rules.opened(session.ruleset, before, after).values() if f not in found
    ]
    session.state, session.revisions, session.standing = after, revisions, stands
    session.checkpoints = checkpoints
    session.downstream = folds.downstream() if audited else None
    return record, found


def rewind_end(session: Session, event: events.EncounterRewound) -> events.EncounterRewound:
    """The rewind with the seq that ends its round (`after`) filled in (checked, when given):
    the last effective event of play in that round (of its scene, when it has one), as
    `tracks --round N` finds it. Bad input for a round that never started, or one after whose
    end nothing was played."""
    told = list(
        steps.replay_stream(
            session.ruleset, session.records(), session.gone, fixes=session.standing.fixes
        )
    )
    end = steps.round_end(session.encounter, told, event.round, event.scene).record.seq
    if event.after is not None and event.after != end:
        raise BadInput(
            f"encounter.rewound after={event.after}: round {event.round} ends at seq {end} "
            "(its last effective event of play)"
        )
    if not any(s.record.seq > end and type(s.record.event) not in KEPT_MODELS for s in told):
        raise BadInput(
            f"nothing to rewind: nothing was played after {end_of(event.round)} (seq {end})"
        )
    return event.model_copy(update={"after": end})


def amend_at(session: Session, seq: int) -> events.EventRetracted | None:
    """The retraction at `seq` when it is the first half of an amend of version 0.1."""
    for r in session.revisions:
        if r.seq == seq and isinstance(r.event, events.EventRetracted):
            return r.event if r.event.kind == "amend" else None
    return None


def amended(session: Session, seq: int) -> str | None:
    """When a 0.1 amend in effect retracted `seq`: where its copy is, as advice."""
    by = retracted_by(session.revisions, seq, session.gone)
    if by and amend_at(session, by) is not None:
        return (
            f"seq {seq} was amended (retracted at seq {by}; its corrected copy is seq "
            f"{by + 1}): amend or undo seq {by + 1} instead"
        )
    return None


def undo_target(session: Session, seq: int | None) -> int:
    """What an undo retracts: `seq`, else the last effective event that is not a retraction
    (nor seq 1, nor a dice commitment or reveal); a correction is undone like any other event,
    and a rewind as one act (right after a rewind, `undo` brings back all it set aside)."""
    if seq is not None:
        session.stored_event(seq)  # unknown-seq for a seq the encounter does not hold
        return seq
    for s, kind in session.txn.seqs_from_head():
        if s > 1 and s not in session.gone and kind not in _NOT_UNDONE:
            return s
    raise BadInput(f"encounter {session.encounter!r} has nothing to undo")


#: What `undo` with no seq passes over: undos (that is `redo`), and what no undo reaches.
_NOT_UNDONE: Final = UNRETRACTABLE | {"event.retracted"}


def redo_target(session: Session, seq: int | None) -> int:
    """What a redo retracts: the undo in effect that is `seq` or retracted `seq`, else the
    last undo in effect recorded after the last rewind in effect (a redo does not reach back
    past a rewind: what it set aside stays aside until the rewind is undone)."""
    # A redo's own retraction is not an undo, so a second redo finds nothing rather than
    # undoing the first.
    undos = [
        r
        for r in session.revisions
        if r.seq not in session.gone
        and isinstance(r.event, events.EventRetracted)
        and r.event.kind == "undo"
    ]
    if seq is not None:
        session.stored_event(seq)  # unknown-seq for a seq the encounter does not hold
    if seq is None:
        rewind = _last_rewind(session)
        later = [r for r in undos if r.seq > rewind]
        if not later:
            since = f" since the rewind at seq {rewind} (undo it first)" if rewind else ""
            raise BadInput(f"encounter {session.encounter!r} has nothing to redo{since}")
        return later[-1].seq
    if any(r.seq == seq for r in undos):
        return seq
    advice = amended(session, seq) if seq in session.gone else None
    if advice is not None or amend_at(session, seq) is not None:
        raise BadInput(
            advice or f"seq {seq} is the retraction half of an amend: amends are not redone"
        )
    match = [
        r.seq for r in undos if isinstance(r.event, events.EventRetracted) and r.event.target == seq
    ]
    if not match:
        raise BadInput(
            f"seq {seq} is neither an undone event nor an undo in effect; nothing to redo there"
        )
    return match[-1]


def _last_rewind(session: Session) -> int:
    """The seq of the last rewind in effect (0: none)."""
    found = [
        r.seq
        for r in session.revisions
        if isinstance(r.event, events.EncounterRewound) and r.seq not in session.gone
    ]
    return found[-1] if found else 0


def _set_aside(session: Session, target: int) -> str | None:
    """When a rewind in effect set `target` aside: which one, as advice."""
    by = session.standing.rewound.get(target)
    if by is None:
        return None
    return f"seq {target} is set aside by the rewind at seq {by}: undo seq {by} to bring it back"


def _doing(event: Revision) -> str:
    if isinstance(event, events.EventRetracted):
        return f"retracting seq {event.target}"
    if isinstance(event, events.EncounterRewound):
        return f"rewinding to round {event.round}"
    return f"correcting seq {event.target}"


def _check_retraction(session: Session, target: int) -> None:
    if target == 1:
        raise BadInput("seq 1 (encounter.opened) cannot be retracted")
    aside = _set_aside(session, target)
    if aside is not None:
        raise BadInput(aside)
    kind = next((r.type for r in session.revisions if r.seq == target), None)
    if kind in UNRETRACTABLE:
        raise BadInput(
            f"seq {target} is {kind}, which stands: the dice the ledger rolled are checked "
            "against it"
        )
    undone = next(
        (
            r.event.target
            for r in session.revisions
            if r.seq == target and isinstance(r.event, events.EventRetracted)
        ),
        None,
    )
    if undone is not None and target not in session.gone:
        aside = _set_aside(session, undone)
        if aside is not None:
            # Redoing it would change nothing while the rewind stands.
            raise BadInput(f"seq {target} undid seq {undone}, and {aside}")
    amend = amend_at(session, target)
    if amend is not None:
        raise BadInput(
            f"seq {target} is the retraction half of the amend of seq {amend.target} "
            f"(its corrected copy is seq {target + 1}): undo seq {target + 1} to drop the "
            "correction"
        )
    if target in session.gone:
        advice = amended(session, target)
        if advice is not None:
            raise BadInput(advice)
        by = retracted_by(session.revisions, target, session.gone)
        if any(r.seq == target and r.type == "event.retracted" for r in session.revisions):
            raise BadInput(f"seq {target} is an undo that seq {by} already reversed")
        raise BadInput(f"seq {target} is already retracted (by seq {by}); use redo to restore it")


def _check_correction(session: Session, event: events.EventCorrected) -> str:
    """The type of the event a correction targets, once it is known to be correctable and the
    correction to change it into a valid event of that type."""
    target = event.target
    original = session.stored_event(target)
    kind = original.type
    if kind in UNCORRECTABLE:
        raise BadInput(f"seq {target} is {kind}: {_why_not(session, original)}")
    rolled = getattr(original.event, "ledger_rolled", None) or {}
    touched = sorted(set(event.fields) & {"ledger_rolled", *rolled})
    if touched:
        raise BadInput(
            f"seq {target}'s {touched[0]} is the ledger's own roll, which no correction "
            "changes (undo the roll to take it back)"
        )
    if target in session.gone:
        raise BadInput(
            _set_aside(session, target)
            or amended(session, target)
            or f"seq {target} is retracted; redo it, or record the event anew"
        )
    now = events.body_of(session.as_read(target).event)
    fixed = merged(now, event.fields)
    if fixed == now:
        changed = ", ".join(f"{k}={json.dumps(v)}" for k, v in event.fields.items())
        raise BadInput(f"seq {target} already has {changed}: nothing to amend")
    system = session.system()
    # The fields a correction may name: never the ledger's own roll.
    known = (
        [k for k in systems.field_names(system, kind) if k != "ledger_rolled"]
        if system is not None
        else None
    )
    reparsed(original.event, fixed, target, known)
    return kind


def _why_not(session: Session, original: events.Recorded) -> str:
    event = original.event
    if isinstance(event, events.EventCorrected):
        return f"correct the event it corrects (seq {event.target}) instead"
    if isinstance(event, events.EventRetracted):
        return "a retraction is reversed with redo (or undo), not corrected"
    if isinstance(event, events.EncounterRewound):
        return "a rewind is undone (and rewound again), not corrected"
    if isinstance(event, events.DiceCommitted | events.DiceRevealed):
        return "the dice the ledger rolled are checked against it"
    return "amend corrects a table fact (house rules are fixed when the encounter opens)"


def retracted_by(revisions: Sequence[events.Recorded], target: int, gone: frozenset[int]) -> int:
    """The seq of the retraction in force that retracts `target` (0: none)."""
    for r in reversed(revisions):
        if (
            isinstance(r.event, events.EventRetracted)
            and r.event.target == target
            and r.seq not in gone
        ):
            return r.seq
    return 0
