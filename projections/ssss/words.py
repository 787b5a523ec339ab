"""Stones, Scrolls, Swords and Sorcery events in words: throws, harm in its slot, Grit."""

from __future__ import annotations

from typing import Any

from ledger import events
from projections.ssss import events as vocab
from projections.ssss.model import (
    Enemy,
    Player,
    SsssState,
    free_tier,
    level_4_exhausted,
    passed,
)
from projections.ssss.shown import TRACKS
from projections.words import both, joined, value, with_changes


def explain(before: SsssState | None, seq: int, event: Any, after: SsssState) -> str | None:
    """An ssss event in words (None: the common words serve)."""
    match event:
        case events.CombatantJoined():
            found = after.combatants.get(event.name)
            if isinstance(found, Enemy):
                tags = f", tags {', '.join(found.tags)}" if found.tags else ""
                slots = value(found.view()["slots"], TRACKS["slots"])
                bonuses = "".join(f", {k} {v:+d}" for k, v in found.attributes.items())
                return joined(
                    after, event.name, f"a level-{found.level} enemy, slots {slots}{tags}{bonuses}"
                )
            if isinstance(found, Player) and found.record:
                return joined(after, event.name, value(dict(found.record)))
            return joined(after, event.name, "")
        case vocab.ThrowMade():
            level = f", harm level {event.harm_level}" if event.harm_level is not None else ""
            draw = ""
            if event.draw_break is not None and event.draw_break is not False:
                draw = ", a draw break" if event.draw_break is True else f", {event.draw_break}"
            return f"{event.actor} throws {event.attribute}: {event.outcome}{level}{draw}"
        case vocab.HarmInflicted() if before is not None:
            return inflicted(before, event, after)
        case vocab.GritUsed():
            if event.to_level == 0:
                what = f"resists the level-{event.from_level} harm entirely"
            else:
                what = f"turns level-{event.from_level} harm into level {event.to_level}"
            return with_changes(f"{event.target} uses Grit: {what}", before, after, event.target)
        case _:
            return None


def inflicted(before: SsssState, event: vocab.HarmInflicted, after: SsssState) -> str:
    """Where harm lands: its own tier, a higher one (and why), or nowhere (defeat)."""
    head = f"{event.target} takes level-{event.level} harm"
    if event.throw is not None:
        head += f" from the throw at seq {event.throw}"
    target = before.combatants.get(event.target)
    if not isinstance(target, Enemy):
        return with_changes(head, before, after, event.target)
    if not target.active:
        return f"{head}: it is already {target.status}, so the harm lands nowhere"
    tier = free_tier(target, event.level)
    if tier is not None and level_4_exhausted(target, before.house):
        return (
            f"{head}: its Level 4 Harm is exhausted and the house rule "
            "top_tier_exhaustion_defeats_on_any_harm defeats it on any harm: defeated"
        )
    if tier is None:
        return f"{head}: no free slot at level {event.level} or above: defeated"
    landed = after.combatants[event.target]
    assert isinstance(landed, Enemy)
    slot = landed.slots[str(tier)]
    where = f"a level-{tier} slot ({slot.filled}/{slot.capacity} filled)"
    if tier == event.level:
        text = f"{head} in {where}"
    else:
        why = []
        for full, run in passed(target, event.level, tier):
            tiers = both([f"level-{t}" for t in run])
            why.append(f"its {tiers} slots are full" if full else f"it has no {tiers} slots")
        text = f"{head}: {both(why)}, so it rises to {where}"
    if landed.penalties != target.penalties:
        text += f"; penalties {target.penalties} -> {landed.penalties}"
    return text
