"""The audit: every effective event checked against the common rules and its system's rules.

A rule is a function of (state before, the event, state after); whatever it must remember across
events lives in the state, so the audit of a whole stream and the warnings of one new event are
the same computation. An obligation an event opens (a miss at 0 health owing a debility, a
critical strike due, a defeat whose manner is not recorded) is an `obligation-open` reminder at
its seq; the audit of a stream keeps it only while the end state still owes it. Every system's
obligations come through one door, `owed`: the common ones here, then its ruleset's own.

One mistake, one finding: when two rules see the same mistake in one event, the finding of the
rule that says more about it is kept (`one_per_mistake`, with each ruleset's `refines`).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any, Final

from ledger import events
from projections import acts, proposals
from projections.core import AnyRuleset, RunningFold, State, roles_of
from projections.findings import Finding, Obligation, error, info, warning
from projections.played import as_played
from projections.revisions import standing
from projections.shown import end_of
from projections.words import indefinite, plain

#: The common event types that test a combatant: none may involve one who is gone. Each
#: system's ruleset adds its own (`Ruleset.attrition`).
ATTRITION: Final = frozenset({"roll.made"})


def attrition(ruleset: AnyRuleset) -> frozenset[str]:
    """The event types of a system that hurt, tire or test a combatant (`event-after-defeat`)."""
    return ATTRITION | ruleset.attrition


def _involved(before: State, event: events.EventBase) -> list[str]:
    # The event's own names; whom a roll opposes comes from its stake's lock below.
    names = [getattr(event, role) for role in roles_of(type(event), ("target", "actor"))]
    stake = getattr(event, "stake", None) if events.type_of(event) == "roll.made" else None
    if stake:
        locked = before.stakes.get(stake)
        if locked is not None:
            lock = locked.lock
            names += [lock.actor, lock.target, getattr(lock, "opposing", None)]
    seen: list[str] = []
    for name in names:
        if isinstance(name, str) and name not in seen:
            seen.append(name)
    return seen


def event_type(event: events.EventBase) -> str:
    """The type tag of an event."""
    return events.type_of(event)


def common(
    ruleset: AnyRuleset,
    before: State,
    record: events.Recorded,
    after: State,
    types: Mapping[int, str],
) -> list[Finding]:
    """The rules every system shares (DESIGN.md section 6, 'common')."""
    found: list[Finding] = []
    for check in _checks(type(record.event), attrition(ruleset)):
        found += check(before, record, after, types)
    return found


Check = Callable[[State, events.Recorded, State, Mapping[int, str]], Iterable[Finding]]


def _roll_before_lock(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, stake = record.seq, getattr(record.event, "stake", None)
    if isinstance(stake, str) and stake not in before.stakes:
        yield error(
            "stakes-before-roll",
            (seq,),
            f"roll at seq {seq} names stake {stake!r}, which was never locked; "
            "stakes must be locked before the roll",
        )


def _locked_again(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.StakesLocked)
    if event.stake in before.stakes:
        first = before.stakes[event.stake].seq
        yield error(
            "stakes-locked-once",
            (first, seq),
            f"seq {seq} locks stake {event.stake!r} again; it was locked at seq {first} "
            "and that first lock stands",
        )


def _claimed_outcome(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> list[Finding]:
    # Any system's roll (`roll.made`, a throw...): an event that rolled is the newest roll.
    # A list, not a generator: this runs on every event, and rarely finds anything.
    seq, rolls = record.seq, after.rolls
    if rolls is before.rolls:
        return []  # no roll added (most events): the same log
    roll = rolls[-1] if len(rolls) > len(before.rolls) else None
    if roll is None or roll.seq != seq or roll.claimed in (None, roll.outcome):
        return []
    return [
        error(
            "outcome-claim",
            (seq,),
            # Outcomes in words (`a strong hit`), not keys: `--json` has the roll's key.
            f"roll at seq {seq} was recorded as {indefinite(plain(str(roll.claimed)))}, "
            f"but the rules give {indefinite(plain(str(roll.outcome)))}",
        )
    ]


def _after_defeat(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> list[Finding]:
    seq, event, kind = record.seq, record.event, record.type
    found = []
    for name in _involved(before, event):
        who = before.combatants.get(name)
        if who is not None and not who.active:
            found.append(
                error(
                    "event-after-defeat",
                    (seq,),
                    f"seq {seq} ({kind}) involves {name!r}, who is {who.status} "
                    f"and no longer in the fight: by the rules it would not happen; "
                    f"{as_played(before, after)}",
                )
            )
    return found


def _sheet_differs(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.TracksNoted)
    view = before.combatants[event.target].view()
    note = events.origin(event)
    for track, noted in event.values.items():
        if view.get(track) == noted:
            continue
        if note is not None:
            # An imported note's claim (an Iron Vault `from`): the finding names the file and
            # line to open, in place of `tracks-diverged`.
            yield warning(
                "journal-disagrees",
                (seq,),
                f"{note} says {event.target!r} {track} is {_show(noted)} here; the ledger "
                f"has {_show(view.get(track))} (seq {seq})",
            )
        else:
            yield warning(
                "tracks-diverged",
                (seq,),
                f"the sheet at seq {seq} says {event.target!r} {track} is "
                f"{_show(noted)}; the ledger has {_show(view.get(track))}",
            )


def _joined_from(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.CombatantJoined)
    note = events.origin(event)
    if note is None:
        return
    stats = ", ".join(f"{k} {_show(v)}" for k, v in event.stats.items() if v not in ((), []))
    yield info(
        "journal-start",
        (seq,),
        f"{event.name!r} joins at seq {seq} with what {note} gives ({stats or 'no stats'}): "
        "taken from the imported notes, not entered at the table; every later claim of "
        "theirs is checked against it",
    )


def _adjusted(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.TrackAdjusted)
    was = before.combatants[event.target].view().get(event.track)
    yield info(
        "manual-adjustment",
        (seq,),
        f"seq {seq} sets {event.target!r} {event.track} to {_show(event.value)} "
        f"(the rules gave {_show(was)}): {event.reason}",
    )


def _retracted(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.EventRetracted)
    target_type = types.get(event.target, "?")
    if target_type == "event.retracted":
        yield info(
            "ruling-reversed",
            (seq, event.target),
            f"seq {seq} redoes: it retracts the retraction at seq {event.target}: {event.reason}",
        )
    else:
        yield info(
            "ruling-reversed",
            (seq, event.target),
            f"seq {seq} retracts seq {event.target} ({target_type}): {event.reason}",
        )


def _corrected(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.EventCorrected)
    target_type = types.get(event.target, "?")
    fields = ", ".join(f"{k}={_show(v)}" for k, v in event.fields.items())
    yield info(
        "ruling-reversed",
        (seq, event.target),
        f"seq {seq} corrects seq {event.target} ({target_type}: {fields}): {event.reason}",
    )


def _rewound(
    before: State, record: events.Recorded, after: State, types: Mapping[int, str]
) -> Iterator[Finding]:
    seq, event = record.seq, record.event
    assert isinstance(event, events.EncounterRewound)
    yield info(
        "ruling-reversed",
        (seq,),
        f"seq {seq} rewinds to {end_of(event.round)} (seq {event.after}): what was "
        f"played after it is set aside: {event.reason}",
    )


@cache
def _checks(kind: type[events.EventBase], attrition: frozenset[str]) -> tuple[Check, ...]:
    """The common rules that can apply to an event of class `kind` in a system whose attrition
    is `attrition`, in the order their findings are listed (looked up once per class: the audit
    asks on every event)."""
    tag = kind.model_fields["type"].default
    found: list[Check] = []
    if tag == "roll.made":
        found.append(_roll_before_lock)
    if issubclass(kind, events.StakesLocked):
        found.append(_locked_again)
    found.append(_claimed_outcome)
    if tag in attrition:
        found.append(_after_defeat)
    own = (
        (events.CombatantJoined, _joined_from),
        (events.TracksNoted, _sheet_differs),
        (events.TrackAdjusted, _adjusted),
        (events.EventRetracted, _retracted),
        (events.EventCorrected, _corrected),
        (events.EncounterRewound, _rewound),
    )
    found += [check for base, check in own if issubclass(kind, base)]
    return tuple(found)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value)


def orphaned(seq: int, kind: str, reason: str) -> Finding:
    """`event-orphaned`: a stored event that no longer applies (an undo removed what it names)."""
    return error("event-orphaned", (seq,), f"seq {seq} ({kind}) no longer applies: {reason}")


def unreadable(seq: int, kind: str, reason: str) -> Finding:
    """`event-unreadable`: a stored event its system refuses, which the ledger never accepted
    (another hand inserted it); it counts for nothing until an undo retracts it."""
    return error(
        "event-unreadable",
        (seq,),
        f"seq {seq} ({kind}) was never accepted by the ledger and counts for nothing: {reason} "
        f"(retract it: encounter undo ENCOUNTER {seq} --reason TEXT)",
    )


def owed(ruleset: AnyRuleset, state: State) -> Iterator[Obligation]:
    """Every obligation open in `state`: the common ones, then its system's own."""
    for name, seq in state.unrecorded.items():
        who = state.combatants.get(name)
        if who is not None and who.status == "defeated":
            yield Obligation(
                (seq,),
                f"{name!r} is defeated by the rules at seq {seq}, and the manner is not recorded "
                f"yet: record combatant.left for {name!r} with the manner the fiction gives "
                "(defeated, fled, surrendered...)",
                "defeat-manner",
            )
    named = shlex.quote(state.encounter)  # as a shell takes it: names may hold spaces
    for seq, proposal in state.proposals.items():
        kind = proposal.event.get("type", "?")
        by = f" by {proposal.by}" if proposal.by else ""
        yield Obligation(
            (seq,),
            f"the proposal at seq {seq}{by} ({kind}) awaits a ruling: a GM accepts it "
            f"(encounter accept {named} {seq}) or rejects it (encounter reject {named} {seq})",
            "proposal-ruled",
        )
    yield from ruleset.obligations(state)


Key = tuple[str, tuple[int, ...]]


def reminders(ruleset: AnyRuleset, state: State) -> dict[Key, Finding]:
    """The reminders of the obligations open in `state`, by what asks and the seqs."""
    return {(o.asks, o.seq): o.reminder() for o in owed(ruleset, state)}


def opened(ruleset: AnyRuleset, before: State, after: State) -> dict[Key, Finding]:
    """Reminders of the obligations an event opened (open after it, not before it), by key."""
    now = reminders(ruleset, after)
    if not now:  # nearly every event: nothing is owed after it, so nothing it opened is
        return {}
    was = reminders(ruleset, before)
    return {key: f for key, f in now.items() if key not in was}


def one_per_mistake(found: list[Finding], refines: Mapping[str, frozenset[str]]) -> list[Finding]:
    """The findings of one event, less each finding that another rule's finding refines: when
    `refines[a]` holds `b` and both cite the same seqs, only `a`'s is kept (a harm after a
    successful defense is `defense-avoids-hit`, not also `hit-without-success`). The one place
    where the audit decides which finding wins."""
    if len(found) < 2 or not refines:
        return found
    beaten = {(loser, f.seq) for f in found for loser in refines.get(f.rule, ()) if loser != f.rule}
    return [f for f in found if (f.rule, f.seq) not in beaten]


def for_event(
    ruleset: AnyRuleset,
    before: State,
    record: events.Recorded,
    after: State,
    types: Mapping[int, str],
) -> list[Finding]:
    """Everything one folded event raises, with a reminder of each obligation it opens."""
    found, reminding = raised_and_reminded(ruleset, before, record, after, types)
    return found + list(reminding.values())


def raised_and_reminded(
    ruleset: AnyRuleset,
    before: State,
    record: events.Recorded,
    after: State,
    types: Mapping[int, str],
) -> tuple[list[Finding], dict[Key, Finding]]:
    """(the findings of one folded event, the reminders of the obligations it opens, by key):
    for folds that, like `audit_stream`, keep a reminder only while it is open at their end."""
    if len(after.skipped) > len(before.skipped):
        gone = after.skipped[-1]
        if gone.unreadable:
            return [unreadable(record.seq, gone.type, gone.reason)], {}
        return [orphaned(record.seq, gone.type, gone.reason)], {}
    found = allowed(before, record)
    if type(record.event) is events.ProposalAccepted:
        # The rules judge the event the acceptance applied, where it applied it.
        fact = proposals.applied(ruleset, before, record.event)
        record = replace(record, event=fact)
    found += common(ruleset, before, record, after, types)
    found += ruleset.audit(before, record.seq, record.event, after)
    return one_per_mistake(found, ruleset.refines), opened(ruleset, before, after)


def allowed(before: State, record: events.Recorded) -> list[Finding]:
    """`policy-allows-act` and `proposal-ruled-by-gm`: an act the policy in force refuses to
    the user it names (one imported, or written around the library's check)."""
    if before.policy is None:
        return []
    event, seq = record.event, record.seq
    refused = acts.refusal(before, event.by, event)
    if refused is None:
        return []
    if isinstance(event, events.ProposalAccepted | events.ProposalRejected):
        verb = "accepts" if isinstance(event, events.ProposalAccepted) else "rejects"
        gms = ", ".join(before.policy.gms) or "none"
        return [
            error(
                "proposal-ruled-by-gm",
                (event.target, seq),
                f"seq {seq}: {event.by or 'nobody named'} {verb} the proposal at seq "
                f"{event.target}, but only a GM rules on proposals (gms: {gms}); applied as "
                "recorded",
            )
        ]
    return [error("policy-allows-act", (seq,), f"seq {seq}: {refused}; recorded as played")]


def audit(ruleset: AnyRuleset, records: Sequence[events.Recorded]) -> list[Finding]:
    """All findings of an encounter's stream (as corrected), in seq order."""
    now = standing(records)
    targets = {
        r.event.target
        for r in records
        if isinstance(r.event, events.EventRetracted | events.EventCorrected)
    }
    return audit_stream(ruleset, records, now.gone, targets, fixes=now.fixes)


def audit_stream(
    ruleset: AnyRuleset,
    records: Iterable[events.Recorded],
    gone: frozenset[int],
    targets: Collection[int],
    observe: Callable[[State], None] | None = None,
    fixes: Mapping[int, Sequence[events.Recorded]] | None = None,
) -> list[Finding]:
    """`audit` over stored rows read once, in seq order: `gone` are the seqs that do not count,
    `fixes` the corrections in force (each target is judged corrected, where it was), and
    `targets` the seqs some retraction or correction names (for `ruling-reversed`);
    `observe` is shown the state after each event folded (the cache check).

    A reminder stays only while its obligation is open at the end of the stream (a debility
    marked, an oracle rolled or a miss burned away meets it), worded as the end state has it.
    """
    types: dict[int, str] = {}
    folder = RunningFold(ruleset, fixes=fixes)
    found: list[Finding | Key] = []
    for record in records:
        if record.seq in targets:
            types[record.seq] = record.type
        if record.seq in gone:
            continue
        before = folder.state
        after = folder.add(record)
        if observe is not None:
            observe(after)
        if before is not None:
            assert folder.last is not None  # the event as the fold read it (corrected)
            raised, reminding = raised_and_reminded(
                folder.ruleset, before, folder.last, after, types
            )
            # A reminder is kept by its key, to be read from the end state.
            found += [*raised, *reminding]
    if folder.state is None:
        return []
    still = reminders(folder.ruleset, folder.state)
    return [
        item if isinstance(item, Finding) else still[item]
        for item in found
        if isinstance(item, Finding) or item in still
    ]


def worst(findings: Iterable[Finding]) -> str | None:
    """The highest severity among findings, or None."""
    order = {"error": 3, "warning": 2, "info": 1}
    top = max((order[f.severity] for f in findings), default=0)
    return {3: "error", 2: "warning", 1: "info", 0: None}[top]
