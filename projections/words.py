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
from projections.changes import POOLS, Change, changes
from projections.core import AnyRuleset, State
from projections.shown import Reading, Readings

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
    if gone is not None and gone.seq == seq:
        return f"{plain(gone.type)}: no longer applies ({gone.reason})"
    told = ruleset.explain(before, seq, event, after)
    if told is not None:
        return told
    return common(before, seq, event, after)


def common(before: State | None, seq: int, event: events.Event, after: State) -> str:
    """The words of an event every system shares, or plain words for any other."""
    match event:
        case events.EncounterOpened():
            title = f": {event.title}" if event.title else ""
            pinned = len(after.rules)
            return (
                f"encounter {after.encounter!r} opens{title} ({event.system}, "
                f"{pinned} house rule{'s' * (pinned != 1)} pinned)"
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


def fallback(before: State | None, event: events.EventBase, after: State) -> str:
    """Plain words for any event: its type, its fields, and the tracks it changed."""
    body = events.body_of(event)
    # Game time and who recorded it are told beside the event, not as its fields.
    fields = ", ".join(
        f"{plain(k)} {value(v)}" for k, v in body.items() if k not in ("round", "scene", "by")
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
        f"back to the end of round {event.round}{end}: what was played after it is set "
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
    found = changes(before, after)
    read = type(after).readings
    if subject is not None and any(c.combatant == subject for c in found):
        mine = [c for c in found if c.combatant == subject]
        rest = tell([c for c in found if c.combatant != subject], read, **labels)
        told = tell(mine, read, **labels)
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


def tell(found: Sequence[Change], read: Readings, /, **labels: str) -> str:
    """Track changes in words, one group per combatant (pools last); `read`: how the tracks
    of the encounter's system read."""
    groups: dict[str, list[str]] = {}
    for c in found:
        groups.setdefault(c.combatant, []).append(_change(c, read, labels))
    parts = []
    for who, told in groups.items():
        moved = [t for t in told if not t.startswith("\0")]
        states = [t[1:] for t in told if t.startswith("\0")]
        text = ", ".join(moved)
        if who == POOLS:
            parts.append(text)
            continue
        line = f"{who} {text}" if text else ""
        for status in states:
            line = f"{line}: {status}" if line else f"{who}: {status}"
        parts.append(line)
    return "; ".join(p for p in parts if p)


def _change(c: Change, read: Readings, labels: Mapping[str, str]) -> str:
    if c.track == "status":
        # A status reads as what happened, flagged for `tell` to put after the numbers.
        if c.after is None:
            return "\0no longer in the encounter"
        if c.before is None:
            return f"\0joins ({c.after})"
        return "\0" + ("back in the fight" if c.after == "active" else f"{plain(str(c.after))}")
    label = labels.get(c.track, plain(c.track))
    if isinstance(c.before, bool) and isinstance(c.after, bool):
        return label if c.after else f"no longer {label}"
    reading = c.reading(read)
    return f"{label} {value(c.before, reading)} -> {value(c.after, reading)}"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 Void point`, `2 Void points` (`many`: the plural, when it is not noun + s)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


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
