"""Ironsworn events in words: harm off health then momentum, action rolls, burns and choices."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ledger import events
from projections.ironsworn import events as vocab
from projections.ironsworn.model import (
    BLOCKS,
    METER_MAX,
    Character,
    Foe,
    IronswornRoll,
    IronswornState,
    harm_amount,
    oracle_tag,
    shake_blocked,
)
from projections.ironsworn.shown import condition, move_name
from projections.words import indefinite, joined, plain, with_changes

_LABELS = MappingProxyType({"max_momentum": "max momentum", "momentum_reset": "momentum reset"})


def explain(
    before: IronswornState | None, seq: int, event: Any, after: IronswornState
) -> str | None:
    """An Ironsworn event in words (None: the common words serve)."""
    match event:
        case events.CombatantJoined():
            found = after.combatants.get(event.name)
            if isinstance(found, Foe):
                return joined(after, event.name, indefinite(f"{found.rank} foe"))
            if isinstance(found, Character):
                stats = ", ".join(f"{k} {v}" for k, v in found.stats.items())
                debilities = f", {', '.join(found.debilities)}" if found.debilities else ""
                return joined(
                    after,
                    event.name,
                    f"{stats}; health {found.health}, spirit {found.spirit}, supply "
                    f"{found.supply}, momentum {found.momentum} (max {found.max_momentum}, "
                    f"reset {found.momentum_reset}){debilities}",
                )
            return None
        case vocab.IronswornHarmSuffered() if before is not None:
            return endured(before, event, after)
        case vocab.IronswornRollMade() if before is not None:
            return rolled(before, seq, event, after)
        case vocab.MomentumBurned() if before is not None:
            return burned(before, event, after)
        case vocab.ChoiceMade() if before is not None:
            return chosen(before, event, after)
        case vocab.DebilityMarked():
            if before is not None and _has(before, event.target, event.debility):
                return f"{event.target} is already {plain(event.debility)}: nothing changes"
            head = f"{event.target} marks {plain(event.debility)}"
            return with_changes(head, before, after, event.target, **_LABELS)
        case vocab.DebilityCleared():
            if before is not None and not _has(before, event.target, event.debility):
                return f"{event.target} is not {plain(event.debility)}: nothing to clear"
            head = f"{event.target} clears {plain(event.debility)}"
            return with_changes(head, before, after, event.target, **_LABELS)
        case vocab.OracleRolled():
            tag = condition(oracle_tag(event.roll))
            return f"{event.target} rolls {event.roll} on the Endure Harm oracle: {tag}"
        case vocab.MeterChanged() if before is not None:
            return metered(before, event, after)
        case _:
            return None


def _has(state: IronswornState, name: str, debility: str) -> bool:
    c = state.combatants.get(name)
    return isinstance(c, Character) and debility in c.debilities


def endured(
    before: IronswornState, event: vocab.IronswornHarmSuffered, after: IronswornState
) -> str:
    """`Kai endures 3 harm: health 1 -> 0, momentum 2 -> 0 (2 past zero)`."""
    amount = harm_amount(before, event)
    if event.amount is not None:
        source = ""
    elif event.rank is not None:
        source = f" ({indefinite(f'{event.rank} blow')})"
    elif event.foe is not None:
        foe = before.combatants[event.foe]
        source = f" from {event.foe} ({foe.rank})" if isinstance(foe, Foe) else ""
    else:
        source = " (the default harm)"
    c = before.combatants[event.target]
    assert isinstance(c, Character)
    spill = max(0, amount - c.health)
    text = with_changes(
        f"{event.target} endures {amount} harm{source}", before, after, event.target
    )
    notes = [f"{spill} past zero"] if spill else []
    return noted(text, *notes, *untaken(before, after, event.target, spill))


def untaken(before: IronswornState, after: IronswornState, name: str, loss: int) -> list[str]:
    """`-1 momentum not taken: momentum is at its floor, -6`: the part of a momentum loss the
    rules asked for that the track could not take (the floor calls for Face a Setback, which
    the conditions show), told as `(2 past zero)` tells harm that health could not take;
    none when it took it all."""
    was, now = before.combatants.get(name), after.combatants.get(name)
    if not isinstance(was, Character) or not isinstance(now, Character) or loss <= 0:
        return []
    short = loss - (was.momentum - now.momentum)
    if short <= 0:
        return []
    return [f"-{short} momentum not taken: momentum is at its floor, {after.house.momentum_min}"]


def noted(text: str, *notes: str) -> str:
    """`text (a; b)`, or `text` when there is no note."""
    return f"{text} ({'; '.join(notes)})" if notes else text


def rolled(
    before: IronswornState, seq: int, event: vocab.IronswornRollMade, after: IronswornState
) -> str:
    """The action roll's arithmetic and outcome, and what a miss costs at once."""
    roll = after.roll_at(seq)
    if not isinstance(roll, IronswornRoll):
        return f"{event.actor} rolls; it changes nothing"
    parts = [f"d6 {event.action_die}"]
    if roll.momentum < 0 and -roll.momentum == event.action_die:
        parts = [f"d6 {event.action_die} (cancelled by momentum {roll.momentum})"]
    parts.append(f"{event.stat} {roll.stat_value}")
    if event.adds:
        parts.append(f"adds {event.adds}")
    raw = (0 if "cancelled" in parts[0] else event.action_die) + roll.stat_value + event.adds
    capped = f" (capped at {roll.score})" if raw > roll.score else ""
    match = ", a match" if roll.match else ""
    head = (
        f"{event.actor} rolls {move_name(event.move)} +{event.stat}: {' + '.join(parts)} = score "
        f"{raw if capped else roll.score}{capped} vs {event.challenge[0]}, {event.challenge[1]}: "
        f"{plain(str(roll.outcome))}{match}"
    )
    text = with_changes(head, before, after, event.actor, "; ")
    # An Endure Harm miss: "also suffer -1 momentum" (the fold's `roll`).
    miss = event.move == "endure_harm" and roll.outcome == "miss"
    return noted(text, *untaken(before, after, event.actor, 1 if miss else 0))


def burned(before: IronswornState, event: vocab.MomentumBurned, after: IronswornState) -> str:
    """The outcome the burn gives the roll, and momentum back to its reset."""
    was, now = before.roll_at(event.roll), after.roll_at(event.roll)
    if not isinstance(was, IronswornRoll) or not isinstance(now, IronswornRoll):
        return with_changes(f"{event.target} burns momentum", before, after, event.target)
    head = (
        f"{event.target} burns momentum {was.momentum} on the roll at seq {event.roll}: "
        f"{plain(str(was.outcome))} -> {plain(str(now.outcome))}"
    )
    return with_changes(head, before, after, event.target)


def chosen(before: IronswornState, event: vocab.ChoiceMade, after: IronswornState) -> str:
    """Shake it off or embrace the pain, and why nothing changed when nothing did."""
    c = before.combatants[event.target]
    if event.option == "embrace_the_pain":
        return with_changes(f"{event.target} embraces the pain", before, after, event.target)
    head = f"{event.target} shakes it off"
    if after.combatants[event.target] is not c and after.combatants[event.target] != c:
        text = with_changes(head, before, after, event.target)
        return noted(text, *untaken(before, after, event.target, 1))
    assert isinstance(c, Character)
    # The reasons the fold (`fold.shake_it_off`) gives, house rules included.
    blocked = shake_blocked(c, before.house)
    if blocked == "wounded":
        why = "wounded, health cannot rise"
    elif blocked == "no_health":
        why = "at 0 health there is nothing to shake off"
    elif c.health == METER_MAX:
        why = "health is already full"
    else:
        why = "nothing changes"
    return f"{head}: {why}, so momentum is kept"


def metered(before: IronswornState, event: vocab.MeterChanged, after: IronswornState) -> str:
    """A meter moved by an amount, or held by a debility."""
    cause = f" ({event.cause})" if event.cause else ""
    head = f"{event.target}'s {event.meter} {event.amount:+d}{cause}"
    c = before.combatants[event.target]
    blocked = BLOCKS.get(event.meter)
    if (
        isinstance(c, Character)
        and event.amount > 0
        and blocked is not None
        and blocked in c.debilities
    ):
        return f"{head}: {blocked}, so {event.meter} cannot rise"
    told = with_changes(head, before, after, event.target, **_LABELS)
    loss = -event.amount if event.meter == "momentum" else 0
    return noted(
        told if told != head else f"{head}: no change",
        *untaken(before, after, event.target, loss),
    )
