"""Every event in words, told from the encounter before and after it.

One explanation serves the live command, `replay`, `history` and the session reports: each
ruleset tells its own events (`Ruleset.explain`), and this module tells the common ones and
gives every other event plain words built from its fields and the tracks it changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from ledger import events
from ledger.errors import BadInput
from projections import proposals
from projections.changes import POOLS, Change, changes
from projections.core import AnyRuleset, State, advance, replace
from projections.shown import Reading, Readings, end_of
from projections.state import Proposal

#: How `combatant.left` reads, by its manner.
LEFT: Final[Mapping[str, str]] = MappingProxyType(
    {
        "defeated": "is defeated",
        "fled": "flees",
        "surrendered": "surrenders",
        "bargained": "bargains its way out",
        "escaped": "escapes",
        "resolved": "is resolved",
        "other": "leaves the encounter",
    }
)


def explain(
    ruleset: AnyRuleset, before: State | None, seq: int, event: events.Event, after: State
) -> str:
    """One effective event in words (its ruleset's, else the common ones): what happened and
    what it did to the tracks."""
    gone = after.skipped[-1] if after.skipped else None
    if gone is not None and gone.seq == seq and gone.unreadable:
        return (
            f"{plain(gone.type)}: never accepted by the ledger, counts for nothing ({gone.reason})"
        )
    if gone is not None and gone.seq == seq:
        return f"{plain(gone.type)}: no longer applies ({gone.reason})"
    if before is not None and isinstance(event, events.ProposalMade):
        return proposed(ruleset, before, seq, event)
    if before is not None and isinstance(event, events.ProposalAccepted):
        return accepted(ruleset, before, seq, event, after)
    told = ruleset.explain(before, seq, event, after)
    if told is None:
        told = common(before, seq, event, after)
    if isinstance(event, events.CombatantJoined) and event.player is not None:
        told += f" (played by {event.player})"
    return told


def proposed(ruleset: AnyRuleset, before: State, seq: int, event: events.ProposalMade) -> str:
    """`Ash proposes: Ogre is hit for Harm 2: ...; Ogre Resilience 6 -> 4 (seq 14)`: the
    proposed event told as it would play if a GM accepted it now (it changes nothing yet)."""
    who = event.by or "someone"
    return f"{who} proposes: {proposal_text(ruleset, before, seq, event.event)} (seq {seq})"


def proposed_now(ruleset: AnyRuleset, state: State, proposal: Proposal) -> str:
    """An open proposal in words, as it would play on `state` (accepted now)."""
    who = proposal.by or "someone"
    return f"{who} proposes: {proposal_text(ruleset, state, state.seq + 1, proposal.event)}"


def proposal_text(ruleset: AnyRuleset, before: State, seq: int, body: Mapping[str, Any]) -> str:
    """A proposed event in words, as it would play on `before` (plain words when it would not
    apply there)."""
    try:
        fact = proposals.proposed(ruleset, proposals.thawed(body), seq)
        would = replace(advance(ruleset, before, seq, fact), seq=seq)
    except BadInput:
        kind = body.get("type", "event")
        fields = ", ".join(
            f"{plain(str(k))} {value(v)}"
            for k, v in body.items()
            if k not in ("type", "by", "entered_by")
        )
        return plain(str(kind)) + (f" ({fields})" if fields else "")
    return explain(ruleset, before, seq, fact, would)


def accepted(
    ruleset: AnyRuleset, before: State, seq: int, event: events.ProposalAccepted, after: State
) -> str:
    """`the GM accepts Ash's proposal at seq 14 with harm 1 (half): ...`: the GM's changes,
    then the event applied, in its own words, with the tracks it changed."""
    proposal = before.proposals.get(event.target)
    if proposal is None:
        return f"proposal accepted: seq {event.target} is no open proposal"
    policy = before.policy
    gm = event.by is None or (policy is not None and policy.is_gm(event.by)) or policy is None
    who = "the GM" if gm else event.by
    whose = f"{proposal.by}'s proposal" if proposal.by else "the proposal"
    changed = ", ".join(
        f"{plain(str(k))} {value(v)}{_against(proposal.event.get(k), v)}"
        for k, v in (event.fields or {}).items()
    )
    head = f"{who} accepts {whose} at seq {event.target}" + (f" with {changed}" if changed else "")
    fact = proposals.applied(ruleset, before, event)
    return f"{head}: {explain(ruleset, proposals.closed(before, event.target), seq, fact, after)}"


def _against(proposed: Any, given: Any) -> str:
    """How a GM's value stands to the proposed one: `(half)`, `(proposed 3)`."""
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (proposed, given))
    if numbers and proposed >= 2 and given == proposed // 2:
        return " (half)"
    if proposed is not None and proposed != given:
        return f" (proposed {value(proposed)})"
    return ""


def common(before: State | None, seq: int, event: events.Event, after: State) -> str:
    """The words of an event every system shares, or plain words for any other."""
    match event:
        case events.EncounterOpened():
            title = f": {event.title}" if event.title else ""
            pinned = len(after.rules)
            gms = f"; GM {', '.join(after.policy.gms)}" if after.policy is not None else ""
            return (
                f"encounter {after.encounter!r} opens{title} ({event.system}, "
                f"{pinned} house rule{'s' * (pinned != 1)} pinned{gms})"
            )
        case events.CombatantJoined():
            return joined(after, event.name)
        case events.CombatantLeft():
            note = f" ({event.note})" if event.note else ""
            return f"{event.name} {LEFT[event.manner]}{note}"
        case events.StakesLocked():
            return stakes(event)
        case events.RollMade():
            return rolled(event.actor or event.stake or "someone", after, seq)
        case events.EventRetracted():
            return retracted(event)
        case events.EventCorrected():
            return corrected(event, after)
        case events.TrackAdjusted():
            return adjusted(event, before, after)
        case events.TracksNoted():
            return noted(event, after)
        case events.RoundStarted():
            scene = f" (scene {event.scene})" if event.scene is not None else ""
            return f"round {event.round} begins{scene}"
        case events.SceneEnded():
            return with_changes("the scene ends", before, after)
        case events.Note():
            return f"note: {event.text}"
        case events.ProposalRejected():
            return rejected(before, event)
        case events.PolicyChanged():
            return policy_changed(before, event, after)
        case events.EncounterRewound():
            return rewound(event)
        case events.DiceCommitted():
            return (
                f"dice committed (seed digest {event.digest[:12]}): the dice the ledger rolls "
                "from here can be checked once the seed is revealed"
            )
        case events.DiceRevealed():
            return (
                f"dice seed revealed ({event.seed[:12]}...): every die the ledger rolled can "
                "be checked with `encounter verify`"
            )
        case _:
            return fallback(before, event, after)


def rejected(before: State | None, event: events.ProposalRejected) -> str:
    """`the GM rejects Ash's proposal at seq 14: ...`."""
    proposal = before.proposals.get(event.target) if before is not None else None
    whose = f"{proposal.by}'s proposal" if proposal is not None and proposal.by else "the proposal"
    policy = before.policy if before is not None else None
    gm = event.by is None or policy is None or policy.is_gm(event.by)
    who = "the GM" if gm else event.by
    return f"{who} rejects {whose} at seq {event.target}: {event.reason}"


def policy_changed(before: State | None, event: events.PolicyChanged, after: State) -> str:
    """Who is a GM now, what a player records, what only the GMs see."""
    policy = after.policy
    if policy is None:
        return "the policy changes"
    was = before.policy if before is not None else None
    added = [g for g in policy.gms if was is None or g not in was.gms]
    if was is not None and added and policy.model_copy(update={"gms": was.gms}) == was:
        return f"the GM makes {' and '.join(added)} a GM" + (
            f": {event.reason}" if event.reason else ""
        )
    own = ", ".join(policy.players_own) or "nothing"
    anyone = ", ".join(policy.players_any) or "nothing"
    hidden = "; ".join(
        f"{side} {', '.join(plain(t) for t in tracks)}"
        for side, tracks in policy.hidden.items()
        if tracks
    )
    text = (
        f"the policy changes: GM {', '.join(policy.gms)}; a player records {own} for a "
        f"combatant they play, and {anyone}"
    )
    text += f"; only the GMs see {hidden}" if hidden else ""
    return text + (f" ({event.reason})" if event.reason else "")


def fallback(before: State | None, event: events.EventBase, after: State) -> str:
    """Plain words for any event: its type, its fields, and the tracks it changed."""
    body = events.body_of(event)
    # Game time, who recorded it and where it came from are told beside the event, not as
    # its fields.
    fields = ", ".join(
        f"{plain(k)} {value(v)}"
        for k, v in body.items()
        if k not in ("round", "scene", "by", "source", "entered_by")
    )
    return with_changes(
        plain(events.type_of(event)) + (f" ({fields})" if fields else ""), before, after
    )


def joined(after: State, name: str, tracks: str | None = None) -> str:
    """`Ash joins as a player: ...`, the tracks as the combatant starts (or `tracks`)."""
    found = after.combatants.get(name)
    if found is None:
        return f"{name} joins"
    if tracks is None:
        view, read = found.view(), type(after).readings
        tracks = ", ".join(
            f"{plain(k)} {value(v, read.get(k))}"
            for k, v in view.items()
            if k not in ("side", "status")
        )
    side = "a player" if found.side == "player" else "an adversary"
    return f"{name} joins as {side}" + (f": {tracks}" if tracks else "")


def stakes(event: events.StakesLocked) -> str:
    """The common words of locked stakes: who, what for, and what a failure costs."""
    target = f" against {event.target}" if event.target else ""
    intent = f": {event.intent}" if event.intent else ""
    cost = f"; on a failure, {event.consequence}" if event.consequence else ""
    return f"{event.actor} locks the stakes of {event.stake!r}{target}{intent}{cost}"


def rolled(who: str, after: State, seq: int) -> str:
    """`Ash rolls: strong hit (score 7)`, from the roll the fold computed."""
    roll = after.roll_at(seq)
    if roll is None or roll.outcome is None:
        return f"{who} rolls; it changes nothing"
    return f"{who} rolls: {plain(roll.describe())}"


def retracted(event: events.EventRetracted) -> str:
    """An undo, a redo or the first half of an amend, as what it did (the tracks it changed
    are the refold's, listed by whoever shows the write)."""
    reason = event.reason.strip()
    if event.kind == "redo":
        why = f" ({reason})" if reason and reason != "redo" else ""
        text = f"the undo at seq {event.target} is reversed: what it undid counts again{why}"
    elif event.kind == "amend":
        text = f"seq {event.target} withdrawn to be corrected: {reason}"
    else:
        text = f"seq {event.target} undone: {reason}"
    return text


def rewound(event: events.EncounterRewound) -> str:
    """A rewind: back to the end of its round, what was played after it set aside."""
    end = f" (seq {event.after})" if event.after is not None else ""
    return (
        f"back to {end_of(event.round)}{end}: what was played after it is set "
        f"aside: {event.reason.strip()}"
    )


def corrected(event: events.EventCorrected, after: State) -> str:
    """A correction: the fields it gives its target, why, and the target's roll as it is now."""
    fields = ", ".join(f"{plain(k)} {value(v)}" for k, v in event.fields.items())
    text = f"seq {event.target} corrected to {fields}: {event.reason.strip()}"
    roll = after.roll_at(event.target)
    if roll is not None and roll.outcome is not None:
        text += f"; its roll is now {plain(roll.describe())}"
    return text


def adjusted(event: events.TrackAdjusted, before: State | None, after: State) -> str:
    """A GM override, with the value it replaced."""
    was = None
    if before is not None and event.target in before.combatants:
        was = before.combatants[event.target].view().get(event.track)
    reading = type(after).readings.get(event.track)
    old = f" (was {value(was, reading)})" if was is not None else ""
    return (
        f"the GM sets {event.target}'s {plain(event.track)} to {value(event.value, reading)}"
        f"{old}: {event.reason}"
    )


def noted(event: events.TracksNoted, after: State) -> str:
    """What the sheet said, and whether the ledger agrees."""
    read = type(after).readings
    said = ", ".join(f"{plain(k)} {value(v, read.get(k))}" for k, v in event.values.items())
    found = after.combatants.get(event.target)
    view = found.view() if found is not None else {}
    differ = [
        f"{plain(k)} {value(view.get(k), read.get(k))}"
        for k, v in event.values.items()
        if view.get(k) != v
    ]
    verdict = f"the ledger has {', '.join(differ)}" if differ else "the ledger agrees"
    return f"the sheet shows {event.target} at {said} ({verdict})"


def with_changes(
    text: str,
    before: State | None,
    after: State,
    subject: str | None = None,
    sep: str = ": ",
    **labels: str,
) -> str:
    """`text` followed by the tracks that changed from `before` to `after`, when any did; the
    `subject`'s own changes first, after `sep` and without its name."""
    return told_with(text, before, after, subject, sep, labels, {})


def told_with(
    text: str,
    before: State | None,
    after: State,
    subject: str | None,
    sep: str,
    labels: Mapping[str, str],
    states: Mapping[str, str],
) -> str:
    """`with_changes`, the subject's new status read as `states` words it (a Fate's Edge
    player `defeated` is dead)."""
    found = changes(before, after)
    read = type(after).readings
    if subject is not None and any(c.combatant == subject for c in found):
        mine = [c for c in found if c.combatant == subject]
        rest = tell([c for c in found if c.combatant != subject], read, **labels)
        told = tell(mine, read, states, **labels)
        for prefix in (f"{subject}: ", f"{subject} "):
            told = told.removeprefix(prefix)
        return f"{text}{sep}{told}" + (f"; {rest}" if rest else "")
    told = tell(found, read, **labels)
    return f"{text}; {told}" if told else text


def changed(before: State | None, after: State, **labels: str) -> str:
    """The tracks that changed, in words: `Ogre resilience 8 -> 7, fatigue 0 -> 1; SB 2 -> 1`.

    `labels` names tracks the way their rules text does (`resilience="Resilience"`).
    """
    return tell(changes(before, after), type(after).readings, **labels)


def tell(
    found: Sequence[Change],
    read: Readings,
    states: Mapping[str, str] | None = None,
    /,
    **labels: str,
) -> str:
    """Track changes in words, one group per combatant (pools last); `read`: how the tracks
    of the encounter's system read; `states`: how a new status reads, where not as itself."""
    groups: dict[str, list[str]] = {}
    for c in found:
        groups.setdefault(c.combatant, []).append(_change(c, read, labels, states or {}))
    parts = []
    for who, told in groups.items():
        moved = [t for t in told if not t.startswith("\0")]
        statuses = [t[1:] for t in told if t.startswith("\0")]
        text = ", ".join(moved)
        if who == POOLS:
            parts.append(text)
            continue
        line = f"{who} {text}" if text else ""
        for status in statuses:
            line = f"{line}: {status}" if line else f"{who}: {status}"
        parts.append(line)
    return "; ".join(p for p in parts if p)


def _change(c: Change, read: Readings, labels: Mapping[str, str], states: Mapping[str, str]) -> str:
    if c.track == "status":
        # A status reads as what happened, flagged for `tell` to put after the numbers.
        if c.after is None:
            return "\0no longer in the encounter"
        if c.before is None:
            return f"\0joins ({c.after})"
        if c.after == "active":
            return "\0back in the fight"
        return "\0" + states.get(str(c.after), plain(str(c.after)))
    label = labels.get(c.track, plain(c.track))
    if isinstance(c.before, bool) and isinstance(c.after, bool):
        return label if c.after else f"no longer {label}"
    reading = c.reading(read)
    return f"{label} {value(c.before, reading)} -> {value(c.after, reading)}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 Void point`, `2 Void points` (`many`: the plural, when it is not noun + s)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def both(items: Sequence[object]) -> str:
    """`1`, `1 and 2`, `1, 2 and 3`."""
    return _listed(items, "and")


def either(items: Sequence[object]) -> str:
    """`1`, `1 or 2`, `1, 2 or 3`."""
    return _listed(items, "or")


def _listed(items: Sequence[object], word: str) -> str:
    texts = [str(item) for item in items]
    if len(texts) < 2:
        return "".join(texts)
    return f"{', '.join(texts[:-1])} {word} {texts[-1]}"


def indefinite(phrase: str) -> str:
    """`phrase` with its indefinite article as it is read aloud: `an extreme blow`, `a
    dangerous foe`, `an Endure Harm roll`."""
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"


def plain(text: str) -> str:
    """Jargon as words: `strong_hit` -> `strong hit`, `hit.resolved` -> `hit resolved`."""
    return text.replace("_", " ").replace(".", " ")


def value(v: Any, reading: Reading | None = None) -> str:
    """A value in a sentence: `none`, `yes`, `wounded, shaken`, or as `reading` (its system's)
    has it in a sentence."""
    if v is None:
        return "none"
    if reading is not None and reading.sentence is not None:
        told = reading.sentence(v)
        if told is not None:
            return told
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return plain(v)
    if isinstance(v, Mapping):
        return ", ".join(f"{plain(str(k))} {value(x)}" for k, x in v.items()) or "none"
    if isinstance(v, Iterable):
        items = list(v)
        if items and all(isinstance(x, Mapping) and "seq" in x for x in items):
            return ", ".join(
                f"seq {x['seq']}"
                + "".join(f" {plain(k)} {value(y)}" for k, y in x.items() if k != "seq")
                for x in items
            )
        return ", ".join(value(x) for x in items) or "none"
    return str(v)
