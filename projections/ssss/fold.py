"""Stones, Scrolls, Swords and Sorcery: Enemy Levels 0-5 and Harm slots (enemy-harm-slots.txt).

Harm of level h goes in a free slot of tier h; a full (or absent) tier raises it to the next,
upwards only, until a tier has room; an enemy who cannot hold the resulting level is defeated.
The house rule `top_tier_exhaustion_defeats_on_any_harm` reads the text's Level 4 note literally:
once an enemy's tier-4 slots, its top tier, are all filled, any harm defeats it. Penalties apply
once per tier that holds harm. Throws and Grit are GM-entered facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, assert_never

from pydantic import ValidationError

from ledger import events
from ledger.errors import BadInput
from ledger.events.common import Common
from projections import core
from projections import stats as stat_texts
from projections.charts import Measure
from projections.findings import Finding, error, info
from projections.played import as_played, delta, shown
from projections.ssss import events as vocab
from projections.ssss import stats as ssss_stats
from projections.ssss import words as ssss_words
from projections.ssss.model import (
    LEVEL_4_TIER,
    Enemy,
    Player,
    Rules,
    Slot,
    SsssState,
    ThrowRoll,
    free_tier,
    level_4_exhausted,
    penalties,
    place,
)
from projections.ssss.shown import measures
from projections.words import either, plural


def _check_layout(where: str, level: int, layout: Mapping[str, int], rules: Rules) -> None:
    """A slot layout (tier -> slots) within the level's maximum: 3 a tier (or the house
    rule's), up to the enemy's level; at joining and by a GM override alike."""
    most, text = vocab.max_slots(level, rules.max_per_tier), vocab.max_slots(level)
    for tier, count in layout.items():
        allowed = most.get(int(tier), 0)
        if count > allowed:
            house = " under the house rules" if count <= text.get(int(tier), 0) else ""
            raise BadInput(
                f"{where}: level {level} allows {plural(allowed, 'slot')} at tier {tier}{house}, "
                f"not {count}"
            )


def join(state: SsssState, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate stats and build an enemy (with its slot layout) or a player."""
    try:
        if event.side == "player":
            vocab.PlayerStats.model_validate_json(_json(event.stats))
            record = core.frozen_json(event.stats)
            return Player(name=event.name, side="player", joined=seq, record=record)
        stats = vocab.EnemyStats.model_validate_json(_json(event.stats))
    except ValidationError as exc:
        model = vocab.PlayerStats if event.side == "player" else vocab.EnemyStats
        raise stat_texts.refused(exc, event.name, event.side, model, state.system) from exc
    most = vocab.max_slots(stats.level, state.house.max_per_tier)
    if stats.slots is None:
        layout = {str(t): n for t, n in most.items()}
    else:
        layout = {t: n for t, n in sorted(stats.slots.items()) if n > 0}
        # The stats model checks the text's 3 a tier; a house-rule maximum may be lower.
        _check_layout(f"stats of {event.name!r}", stats.level, layout, state.house)
    slots = core.read_only((tier, Slot(filled=0, capacity=n)) for tier, n in layout.items())
    return Enemy(
        name=event.name,
        side=event.side,
        joined=seq,
        level=stats.level,
        slots=slots,
        tags=stats.tags,
        attributes=core.read_only(
            (name, getattr(stats, name))
            for name in vocab.ATTRIBUTES
            if getattr(stats, name) is not None
        ),
    )


def _json(value: Any) -> str:
    return json.dumps(value)


def inflict(state: SsssState, seq: int, event: vocab.HarmInflicted) -> SsssState:
    """Record harm on an enemy (slots) or a player (harm list)."""
    target = state.combatant(event.target, "target")
    if event.throw is not None and state.roll_at(event.throw) is None:
        raise core.not_a_roll("harm.inflicted", event.throw, seq, "throw")
    if isinstance(target, Player):
        return core.replace_combatant(state, _harmed(target, (*target.harm, event.level), state))
    assert isinstance(target, Enemy)
    rules = state.house
    tier = place(target, event.level, rules)
    if tier is None:
        # Harm no slot can hold defeats; one who is already gone keeps their manner.
        status = "defeated" if target.active else target.status
        hurt: core.Combatant = core.replace(target, status=status)
    else:
        slot = target.slots[str(tier)]
        slots = core.with_entry(target.slots, str(tier), core.replace(slot, filled=slot.filled + 1))
        hurt = core.replace(target, slots=slots, penalties=penalties(slots, rules))
    return core.replace_combatant(state, hurt)


def grit(state: SsssState, seq: int, event: vocab.GritUsed) -> SsssState:
    """Lessen (or resist) the latest recorded harm of `from_level` on a player."""
    target = state.combatant(event.target, "target")
    if not isinstance(target, Player):
        raise BadInput(f"grit.used: {event.target!r} is not a player")
    harm = list(target.harm)
    if event.from_level not in harm:
        raise BadInput(
            f"grit.used: {event.target!r} has no harm of level {event.from_level} "
            f"(recorded: {', '.join(map(str, harm)) or 'none'})"
        )
    at = len(harm) - 1 - harm[::-1].index(event.from_level)
    if event.to_level == 0:
        del harm[at]
    else:
        harm[at] = event.to_level
    return core.replace_combatant(state, _harmed(target, tuple(harm), state))


def _harmed(player: Player, harm: tuple[int, ...], state: SsssState) -> Player:
    """The player with a new harm record: defeated while it holds lethal harm."""
    lethal = state.house.pc_lethal_harm_level
    # max() in C: a long fight's record holds every harm still standing.
    was_lethal = max(player.harm, default=0) >= lethal
    is_lethal = max(harm, default=0) >= lethal
    status = player.status
    if is_lethal and status == "active":
        status = "defeated"
    elif was_lethal and not is_lethal and status == "defeated":
        status = "active"  # Grit lessened the injury that killed them
    return core.replace(player, harm=harm, status=status)


def audit(before: SsssState, seq: int, event: Any, after: SsssState) -> Iterator[Finding]:
    """`slot-placement` and `grit-raises-harm`."""
    if isinstance(event, vocab.HarmInflicted):
        target = before.combatants[event.target]
        if event.throw is not None:
            throw = before.roll_at(event.throw)
            if isinstance(throw, ThrowRoll) and throw.harm_level not in (None, event.level):
                thrown = event.model_copy(update={"level": throw.harm_level})
                would = inflict(before, seq, thrown)
                yield error(
                    "slot-placement",
                    (event.throw, seq),
                    f"harm.inflicted at seq {seq} is level {event.level}, but the throw at seq "
                    f"{event.throw} gave harm level {throw.harm_level}: by the rules harm "
                    f"{throw.harm_level}: {delta(before, would, event.target)}; "
                    + as_played(before, after, event.target),
                )
        if isinstance(target, Enemy) and target.active:
            tier = free_tier(target, event.level)
            if tier is not None and level_4_exhausted(target, before.house):
                top = target.slots[LEVEL_4_TIER]
                yield info(
                    "slot-placement",
                    (seq,),
                    f"harm {event.level} on {event.target!r} would fit at tier {tier}, but its "
                    f"Level 4 Harm is exhausted (tier 4: {top.filled}/{top.capacity} filled) and "
                    "the house rule top_tier_exhaustion_defeats_on_any_harm defeats it on any "
                    "harm: defeated",
                )
            elif tier is None:
                yield info(
                    "slot-placement",
                    (seq,),
                    f"harm {event.level} on {event.target!r} finds no free slot at tier "
                    f"{event.level} or above: defeated",
                )
            elif tier > event.level:
                tiers = either(list(range(event.level, tier)))
                yield info(
                    "slot-placement",
                    (seq,),
                    f"harm {event.level} on {event.target!r} rises to tier {tier}: "
                    f"no free slot at tier {tiers}",
                )
    if isinstance(event, vocab.GritUsed) and event.to_level > event.from_level:
        # Applied as played (the table's sheet shows the raised harm); the rules keep it.
        was = before.combatants[event.target]
        harm = was.harm if isinstance(was, Player) else ()
        yield error(
            "grit-raises-harm",
            (seq,),
            f"grit at seq {seq} takes harm from level {event.from_level} to {event.to_level}; "
            f"Grit may only lessen or resist an injury: by the rules the injury stays at level "
            f"{event.from_level} (harm {shown(list(harm))}); "
            + as_played(before, after, event.target),
        )


def adjust(state: SsssState, seq: int, event: events.TrackAdjusted) -> SsssState:
    """A GM override; new slots recount the penalties."""
    state = core.adjust_track(state, seq, event)
    target = state.combatants[event.target]
    if isinstance(target, Enemy) and event.track in ("slots", "level"):
        layout = {tier: slot.capacity for tier, slot in target.slots.items()}
        where = f"track {event.track!r} of {event.target!r}"
        _check_layout(where, target.level, layout, state.house)
    if isinstance(target, Enemy) and event.track == "slots":
        count = penalties(target.slots, state.house)
        state = core.replace_combatant(state, core.replace(target, penalties=count))
    return state


class Ssss(core.Ruleset[SsssState, vocab.Events]):
    """Stones, Scrolls, Swords and Sorcery: Enemy Levels and Harm slots."""

    key = "ssss"
    rules = Rules
    state = SsssState
    own_events = vocab.Events
    attrition = frozenset({"harm.inflicted", "throw.made"})
    stats = MappingProxyType({"player": vocab.PlayerStats, "adversary": vocab.EnemyStats})
    rolls = frozenset({"roll.made", "throw.made"})

    def join(self, state: SsssState, seq: int, event: events.CombatantJoined) -> core.Combatant:
        """Validate stats and build an enemy (with its slot layout) or a player."""
        return join(state, seq, event)

    def apply(self, state: SsssState, seq: int, event: vocab.Events) -> SsssState:
        """Fold an ssss event."""
        match event:
            case vocab.HarmInflicted():
                return inflict(state, seq, event)
            case vocab.GritUsed():
                return grit(state, seq, event)
            case vocab.ThrowMade():
                roll = ThrowRoll(
                    seq=seq,
                    actor=event.actor,
                    outcome=event.outcome,
                    attribute=event.attribute,
                    harm_level=event.harm_level,
                )
                return core.add_roll(state, roll)
            case events.RollMade():
                return core.note_roll(state, seq, event)
            case events.StakesLocked():
                return state  # the core keeps the lock; ssss reads nothing more from it
            case _:
                assert_never(event)

    def adjust(self, state: SsssState, seq: int, event: events.TrackAdjusted) -> SsssState:
        """A GM override; new slots recount the penalties."""
        return adjust(state, seq, event)

    def audit(
        self, before: SsssState, seq: int, event: Common | vocab.Events, after: SsssState
    ) -> Iterator[Finding]:
        """`slot-placement` and `grit-raises-harm`."""
        return audit(before, seq, event, after)

    def explain(
        self, before: SsssState | None, seq: int, event: Common | vocab.Events, after: SsssState
    ) -> str | None:
        """The event in words (`projections.ssss.words`)."""
        return ssss_words.explain(before, seq, event, after)

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """What the report charts of a combatant (`projections.ssss.shown`)."""
        return measures(view)

    def hurt(self, combatant: core.Combatant) -> Mapping[str, int]:
        """What of a combatant counts as damage (`.stats`)."""
        return ssss_stats.hurt(combatant)

    def dealer(
        self, before: SsssState, seq: int, event: Common | vocab.Events, after: SsssState
    ) -> str | None:
        """Who dealt an event's damage, where it says (`.stats`)."""
        return ssss_stats.dealer(before, event)


RULESET = Ssss()
