"""Fate's Edge events in words: stakes, rolls, hits through armor, Fatigue, SB spends."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ledger import events
from projections import core
from projections.fates_edge import events as vocab
from projections.fates_edge.model import Adversary, FatesEdgeState, FERoll, Hit, Player, stepped
from projections.words import joined, plural, rolled, stakes, told_with, with_changes

#: Track and pool names as the rules text writes them.
LABELS: Final = MappingProxyType(
    {
        "resilience": "Resilience",
        "fatigue": "Fatigue",
        "harm": "Harm",
        "sb": "SB",
        "fatigue_capacity": "Fatigue capacity",
    }
)

_SOURCES: Final = MappingProxyType(
    {
        "player": "",
        "sb_attack": ", an attack bought with SB",
        "opportunity": ", an opportunity",
        "consequence": ", a consequence",
    }
)

_PURPOSES: Final = MappingProxyType(
    {
        "attack": "on an attack",
        "move": "on a move",
        "complication": "on a complication",
        "shape": "to shape the scene",
    }
)


def explain(
    before: FatesEdgeState | None, seq: int, event: Any, after: FatesEdgeState
) -> str | None:
    """A Fate's Edge event in words (None: the common words serve)."""
    match event:
        case events.CombatantJoined():
            return arrived(after, event.name)
        case vocab.FEStakesLocked():
            return locked(seq, event, after)
        case vocab.FERollMade():
            return dice(before, seq, event, after)
        case vocab.HitResolved():
            actor = _actor(after, event.stake)
            verb = f"{actor} hits {event.target}" if actor else f"{event.target} is hit"
            return hit(f"{verb} for Harm {event.harm}", before, seq, after, event.ignore_armor)
        case vocab.FEHarmSuffered():
            head = f"{event.target} suffers Harm {event.harm} for {event.stake!r}"
            return hit(head, before, seq, after, 0)
        case vocab.FatigueMarked():
            cause = f" ({event.cause})" if event.cause else ""
            head = f"{event.target} marks {event.amount} Fatigue{cause}"
            return hit(head, before, seq, after, 0)
        case vocab.SBSpent():
            return spent(before, event, after)
        case events.SceneEnded():
            most = after.house.sb_carry_over_max
            kept = "all unspent SB carry over" if most is None else f"up to {most} SB carry over"
            return with_changes(f"the scene ends: {kept}", before, after, **LABELS)
        case _:
            return None


def _actor(state: FatesEdgeState, stake: str | None) -> str | None:
    lock = state.lock(stake)
    return lock.actor if lock is not None else None


def arrived(after: FatesEdgeState, name: str) -> str:
    """An adversary's Resilience, capacity, armor and phases; a player's armor and Body."""
    found = after.combatants.get(name)
    if isinstance(found, Adversary):
        if found.puzzle:
            return joined(after, name, f"a puzzle, ended by {found.stats.resolution}")
        phases = found.stats.phases
        more = f", then phases at Resilience {', '.join(map(str, phases))}" if phases else ""
        return joined(
            after,
            name,
            f"Resilience {found.resilience}, Fatigue capacity {found.fatigue_capacity}, "
            f"{_armor(found.armor)}{more}",
        )
    if isinstance(found, Player):
        body = f", Body {found.body}" if found.body is not None else ""
        return joined(after, name, f"{_armor(found.armor)}{body}")
    return joined(after, name)


def _armor(armor: str) -> str:
    return "no armor" if armor == "none" else f"{armor} armor"


def locked(seq: int, event: vocab.FEStakesLocked, after: FatesEdgeState) -> str:
    """Position, DV, Effect, Harm and the Partial, fixed before the roll."""
    if after.stakes[event.stake].seq != seq:
        first = after.stakes[event.stake].seq
        return (
            f"{event.actor} locks {event.stake!r} again: the first lock, at seq {first}, stands "
            "(a stake id names one test of the encounter: lock a new test under a new id)"
        )
    text = stakes(event.model_copy(update={"target": event.opposing or event.target}))
    dv = event.dv if event.dv is not None else after.house.dv_default
    kind = "an action" if event.kind == "action" else "a defense"
    terms = [f"{kind} at {event.position} Position", f"DV {dv}", f"{event.effect} Effect"]
    if event.harm is not None:
        terms.append(f"Harm {event.harm} on a success")
    if event.effect_harm:
        terms.append(f"{event.effect_harm:+d} Harm from Effect")
    partial = event.partial
    if partial is not None and (partial.harm is not None or partial.text):
        lesser = [f"Harm {partial.harm}"] if partial.harm is not None else []
        lesser += [partial.text] if partial.text else []
        terms.append(f"on a Partial: {' and '.join(lesser)}")
    if event.consequence_harm is not None:
        terms.append(f"Harm {event.consequence_harm} if the response fails")
    source = _SOURCES.get(event.source, "")
    if event.source == "sb_move":
        source = f", the move {event.move or '?'} bought with SB"
    text = f"{text} ({', '.join(terms)}{source})"
    marked = after.lock_fatigue.get(event.stake)
    opposing = after.opposing(event)
    if marked and opposing is not None:
        where = stepped(after.house, event.position, marked)
        text += f"; effective Position {where} ({opposing.name} has Fatigue {marked})"
    return text


def dice(
    before: core.State | None, seq: int, event: vocab.FERollMade, after: FatesEdgeState
) -> str:
    """The faces, successes against the DV, the outcome and the SB the 1s give the GM."""
    faces = ", ".join(map(str, event.dice))
    roll = after.roll_at(seq)
    who = event.actor or _actor(after, event.stake) or "someone"
    if not isinstance(roll, FERoll):
        first = after.roll_of(event.stake)
        at = f" at seq {first.seq}" if first is not None else ""
        return (
            f"{who} rolls {faces} for {event.stake!r} again: the first roll{at} stands, "
            "this one changes nothing"
        )
    head = rolled(f"{who} rolls {faces} for {event.stake!r}", after, seq).replace(
        " rolls: ", ": ", 1
    )
    return with_changes(head, before, after, sep="; ", **LABELS)


def hit(head: str, before: core.State | None, seq: int, after: FatesEdgeState, ignore: Any) -> str:
    """Harm through armor (or Fatigue), what it cleared, overflow, phases and defeat."""
    done: Hit | None = after.last_hit if after.last_hit and after.last_hit.seq == seq else None
    if done is None:
        return with_changes(head, before, after, **LABELS)
    target = before.combatants.get(done.target) if before is not None else None
    if isinstance(target, Adversary) and target.puzzle:
        return f"{head}: a puzzle, attrition does not touch it"
    how = []
    if done.incoming > 0:
        if ignore:
            steps = "all armor" if ignore == "all" else plural(int(ignore), "armor step")
            how.append(f"ignoring {steps}")
        if done.armor == "none":
            how.append(f"no armor: all {done.incoming} stays Harm")
        else:
            how.append(
                f"{done.armor} armor converts it to {done.remaining} Harm + "
                f"{done.converted} Fatigue"
            )
    if done.cleared:
        old, new = done.before[1], done.after[1]
        if old == new and not done.overflow:
            # Cleared and marked back to where it was: no track change tells it, so say it.
            how.append(
                f"the Harm clears the old Fatigue, then the new {done.converted} marks it again "
                f"(Fatigue {old} -> 0 -> {new})"
            )
        else:
            how.append("the Harm clears the old Fatigue")
    if done.overflow and isinstance(target, Adversary):
        # An adversary has no Harm track: the overflow subtracts 1 Resilience and clears.
        capacity = target.fatigue_capacity
        how.append(f"Fatigue overflows (capacity {capacity}): -{done.overflow} Resilience")
    elif done.overflow:
        how.append(f"Fatigue overflows: {plural(done.overflow, 'more Harm', 'more Harm')}")
    if done.phase[1] > done.phase[0]:
        how.append(f"phase {done.phase[0]} ends, phase {done.phase[1]} begins")
    states: dict[str, str] = {}
    hurt = after.combatants.get(done.target)
    if isinstance(target, Player) and isinstance(hurt, Player):
        last = after.house.player_dead_above_harm
        # The SRD's Harm levels: 3 is incapacitated or dying, above 3 dead (the house rule).
        states["defeated"] = f"dead (Harm {hurt.harm}, above {last})"
        if hurt.harm == last and target.harm < last:
            how.append(f"Harm {last}: incapacitated or dying")
    text = f"{head}: {', '.join(how)}" if how else head
    return told_with(text, before, after, done.target, "; ", LABELS, states)


def spent(before: core.State | None, event: vocab.SBSpent, after: FatesEdgeState) -> str:
    """What the SB buy, and the pool after (never below 0)."""
    what = _PURPOSES[event.purpose]
    if event.move:
        what = f"on the move {event.move}"
    for_stake = f" for {event.stake!r}" if event.stake else ""
    held = before.pools.get("sb", 0) if before is not None else 0
    short = f" holding only {held}" if event.amount > held else ""
    head = f"the GM spends {event.amount} SB {what}{for_stake}{short}"
    return with_changes(head, before, after, sep="; ", **LABELS)


def touches(
    before: FatesEdgeState | None, seq: int, event: Any, after: FatesEdgeState
) -> Mapping[str, Mapping[str, str]]:
    """{combatant: {track: what happened to it}} for the hit or Fatigue event at `seq`."""
    hit = after.last_hit
    if hit is None or hit.seq != seq:
        return {}
    who = after.combatants.get(hit.target)
    if isinstance(who, Adversary):
        return {hit.target: _adversary(hit, who)}
    return {hit.target: _player(hit)}


def _adversary(hit: Hit, who: Adversary) -> dict[str, str]:
    out = _fatigue(hit, f"filled the track (capacity {who.fatigue_capacity}) and cleared")
    resilience: list[str] = []
    if hit.remaining:
        resilience.append(f"{hit.remaining} Harm")
    if hit.overflow:
        resilience.append("1 for the Fatigue overflow")
    if resilience:
        out["resilience"] = " and ".join(resilience)
    if hit.phase[0] != hit.phase[1]:
        out["phase"] = f"phase {hit.phase[0]} ended"
    return out


def _player(hit: Hit) -> dict[str, str]:
    out = _fatigue(hit, "filled the track and overflowed")
    harm: list[str] = []
    if hit.remaining:
        harm.append(f"{hit.remaining} Harm")
    if hit.overflow:
        harm.append(f"{hit.overflow} for the Fatigue overflow")
    if harm:
        out["harm"] = " and ".join(harm)
    return out


def _fatigue(hit: Hit, overflowed: str) -> dict[str, str]:
    """What a hit did to the Fatigue track, in order (`overflowed`: how its side words an
    overflow)."""
    fatigue: list[str] = []
    if hit.cleared:
        fatigue.append("cleared by the Harm")
    if hit.converted:
        fatigue.append(f"{hit.converted} marked")
    if hit.overflow:
        fatigue.append(overflowed)
    return {"fatigue": ", then ".join(fatigue)} if fatigue else {}
