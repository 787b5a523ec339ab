"""Ironsworn (classic): Endure Harm, action rolls and momentum (ironsworn-endure-harm.txt).

Harm comes off health first and spills into -momentum at 0 health; the Endure Harm roll is an
action roll (die + stat + adds, capped, strictly beating each challenge die). A miss costs 1
momentum at once; a later burn replaces the outcome with the momentum held at the roll and then
sets momentum to the reset value, which absorbs that -1 (a burn needs positive momentum, so the
-1 never touched the floor), unless the roll is still a miss: then the -1 comes off the reset.
Shake it off trades momentum for health only when the health can rise. Debilities set max
momentum and reset; the oracle sets tags.
"""

from __future__ import annotations

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
from projections.findings import Finding, Obligation
from projections.ironsworn import audit as ironsworn_audit
from projections.ironsworn import events as vocab
from projections.ironsworn import stats as ironsworn_stats
from projections.ironsworn import words as ironsworn_words
from projections.ironsworn.model import (
    METER_MAX,
    ORACLE_TAGS,
    Character,
    Foe,
    IronswornRoll,
    IronswornState,
    Rules,
    action_score,
    beaten,
    character,
    harm_amount,
    oracle_tag,
    settle,
    shake_blocked,
    shift_meter,
    shift_momentum,
)
from projections.ironsworn.shown import measures
from projections.odds import Odds
from projections.words import plural


def join(state: IronswornState, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """A player is a character; an adversary is a foe with a rank."""
    rules = state.house
    try:
        if event.side == "adversary":
            foe = vocab.FoeStats.model_validate(dict(event.stats), strict=False)
            return Foe(name=event.name, side=event.side, joined=seq, rank=foe.rank)
        stats = vocab.CharacterStats.model_validate(dict(event.stats), strict=False)
    except ValidationError as exc:
        model = vocab.FoeStats if event.side == "adversary" else vocab.CharacterStats
        raise stat_texts.refused(exc, event.name, event.side, model, state.system) from exc
    debilities = tuple(dict.fromkeys(stats.debilities))
    momentum = rules.momentum_start if stats.momentum is None else stats.momentum
    c = Character(
        name=event.name,
        side=event.side,
        joined=seq,
        health=stats.health,
        spirit=stats.spirit,
        supply=stats.supply,
        momentum=momentum,
        max_momentum=0,
        momentum_reset=0,
        debilities=debilities,
        stats=core.read_only(
            (k, getattr(stats, k)) for k in ("edge", "heart", "iron", "shadow", "wits")
        ),
    )
    settled = settle(c, rules)
    if settled.momentum != momentum:
        raise BadInput(
            f"stats of {event.name!r}: momentum {momentum} is outside "
            f"{rules.momentum_min}..{settled.max_momentum} "
            f"({plural(len(debilities), 'debility', 'debilities')})"
        )
    return settled


def moved_on(state: IronswornState, name: str) -> IronswornState:
    """The story moves on for `name`: an owed 0-health miss choice is no longer owed."""
    if name not in state.owed:
        return state
    return core.replace(state, owed=core.without(state.owed, name))


def scene_end(state: IronswornState, seq: int) -> IronswornState:
    """No recovery at scene end; owed 0-health miss choices lapse (the audit flags them)."""
    return core.replace(state, owed=core.read_only({}))


def suffer(state: IronswornState, seq: int, event: vocab.IronswornHarmSuffered) -> IronswornState:
    """-health, and the rest as -momentum once health is at 0."""
    c = character(state, event.target)
    state = moved_on(state, c.name)
    amount = harm_amount(state, event)
    spill = max(0, amount - c.health)
    c = core.replace(c, health=max(0, c.health - amount))
    if spill:
        c = shift_momentum(c, -spill, state.house)
    state = core.replace(state, pending_harm=core.with_entry(state.pending_harm, c.name, seq))
    return core.replace_combatant(state, c)


def roll(state: IronswornState, seq: int, event: vocab.IronswornRollMade) -> IronswornState:
    """Score the roll; an Endure Harm miss costs 1 momentum and may owe a debility or oracle."""
    rules = state.house
    c = character(state, event.actor, "actor")
    stat_value = c.value(event.stat)
    score = action_score(rules, c.momentum, event.action_die, stat_value, event.adds)
    outcome = beaten(score, event.challenge)
    made = IronswornRoll(
        seq=seq,
        stake=event.stake,
        actor=event.actor,
        outcome=outcome,
        claimed=event.outcome,
        move=event.move,
        stat=event.stat,
        score=score,
        match=event.challenge[0] == event.challenge[1],
        stat_value=stat_value,
        action_die=event.action_die,
        challenge=event.challenge,
        momentum=c.momentum,
        health=c.health,
    )
    owed = core.without(state.owed, c.name)
    if event.move == "endure_harm" and outcome == "miss":
        c = shift_momentum(c, -1, rules)
        if c.health == 0:
            owed = core.with_entry(owed, c.name, seq)
    state = core.replace(
        state,
        pending_harm=core.without(state.pending_harm, c.name),
        owed=owed,
        last_roll=core.with_entry(state.last_roll, c.name, seq),
    )
    return core.replace_combatant(core.add_roll(state, made), c)


def burn(state: IronswornState, seq: int, event: vocab.MomentumBurned) -> IronswornState:
    """Replace a roll's outcome using the momentum held at it; momentum becomes the reset."""
    c = character(state, event.target)
    made = state.roll_at(event.roll)
    if not isinstance(made, IronswornRoll):
        raise core.not_a_roll("momentum.burned", event.roll, seq)
    if made.actor != c.name:
        raise BadInput(
            f"momentum.burned: the roll at seq {event.roll} is {made.actor!r}'s, not {c.name!r}'s"
        )
    outcome = beaten(made.score, made.challenge, made.momentum)
    burnt = core.replace(made, outcome=outcome, burned=True)
    rolls = tuple(burnt if r.seq == made.seq else r for r in state.rolls)
    owed = state.owed
    if owed.get(c.name) is not None and (outcome != "miss" or owed[c.name] != made.seq):
        owed = core.without(owed, c.name)
    c = settle(core.replace(c, momentum=c.momentum_reset), state.house)
    if made.move == "endure_harm" and outcome == "miss":
        c = shift_momentum(c, -1, state.house)  # still a miss: "also suffer -1 momentum"
    burns = core.with_entry(state.burns, made.seq, seq)
    state = core.replace(state, rolls=rolls, owed=owed, burns=burns)
    return core.replace_combatant(state, c)


def shake_it_off(c: Character, rules: Rules) -> Character:
    """-1 momentum in exchange for +1 health; no exchange when the +1 health cannot happen."""
    if shake_blocked(c, rules) is not None:
        return c  # a wound that blocks it, or "if your health is greater than 0"
    if rules.strong_hit_text == "commentary":
        return core.replace(c, health=min(METER_MAX, c.health + 1))
    if c.health == METER_MAX and rules.shake_it_off_at_max_health == "disallowed":
        return c
    # At full health a house rule that allows it lets the table pay for a wasted +1.
    c = core.replace(c, health=min(METER_MAX, c.health + 1))
    return shift_momentum(c, -1, rules)


def choose(state: IronswornState, seq: int, event: vocab.ChoiceMade) -> IronswornState:
    """Shake it off (-1 momentum for +1 health, when allowed) or embrace the pain (+1)."""
    rules = state.house
    c = character(state, event.target)
    state = moved_on(state, c.name)
    if event.option == "embrace_the_pain":
        c = shift_momentum(c, 1, rules)
    else:
        c = shake_it_off(c, rules)
    on = state.last_roll.get(c.name)
    if on is not None:
        state = core.replace(
            state,
            choices=core.with_entry(state.choices, on, state.choices.get(on, seq)),
            acted=core.with_entry(state.acted, on, state.acted.get(on, seq)),
        )
    return core.replace_combatant(state, c)


def _resolve_owed(state: IronswornState, name: str, seq: int) -> IronswornState:
    on = state.owed[name]
    return core.replace(
        state,
        owed=core.without(state.owed, name),
        acted=core.with_entry(state.acted, on, state.acted.get(on, seq)),
    )


def mark(state: IronswornState, seq: int, event: vocab.DebilityMarked) -> IronswornState:
    """Mark a debility; wounded or maimed newly marked settles a miss at 0 health."""
    c = character(state, event.target)
    if event.debility in c.debilities:
        return state
    if c.name in state.owed and event.debility in ("wounded", "maimed"):
        state = _resolve_owed(state, c.name, seq)
    c = core.replace(c, debilities=(*c.debilities, event.debility))
    return core.replace_combatant(state, settle(c, state.house))


def clear(state: IronswornState, seq: int, event: vocab.DebilityCleared) -> IronswornState:
    """Clear a debility (max momentum and reset rise again)."""
    c = character(state, event.target)
    kept = tuple(d for d in c.debilities if d != event.debility)
    return core.replace_combatant(state, settle(core.replace(c, debilities=kept), state.house))


def consult(state: IronswornState, seq: int, event: vocab.OracleRolled) -> IronswornState:
    """The oracle's tag replaces any earlier oracle tag; it settles a miss at 0 health."""
    c = character(state, event.target)
    if c.name in state.owed:
        state = _resolve_owed(state, c.name, seq)
    kept = tuple(t for t in c.conditions if t not in ORACLE_TAGS)
    c = core.replace(c, conditions=(*kept, oracle_tag(event.roll)))
    return core.replace_combatant(state, c)


def change(state: IronswornState, seq: int, event: vocab.MeterChanged) -> IronswornState:
    """Move a meter; momentum keeps its range, wounded/shaken/unprepared stop a meter rising."""
    c = character(state, event.target)
    if event.meter == "momentum":
        c = shift_momentum(c, event.amount, state.house)
    else:
        c = shift_meter(c, event.meter, event.amount)
    return core.replace_combatant(state, c)


def adjust(state: IronswornState, seq: int, event: events.TrackAdjusted) -> IronswornState:
    """A GM override: max momentum and reset become offsets on their formulas; ranges hold."""
    rules = state.house
    c = state.combatant(event.target, "target")
    data: dict[str, Any] = {event.track: event.value}
    if isinstance(c, Character) and event.track in ("max_momentum", "momentum_reset"):
        if not isinstance(event.value, int) or isinstance(event.value, bool):
            raise BadInput(f"track {event.track!r} of {event.target!r} takes a whole number")
        n = len(c.debilities)
        if event.track == "max_momentum":
            data["max_offset"] = event.value - (rules.momentum_max - n)
        else:
            data["reset_offset"] = event.value - rules.momentum_reset[min(n, 2)]
    updated = core.overridden(c, f"track {event.track!r} of {event.target!r}", **data)
    if isinstance(updated, Character):
        settled = settle(
            core.replace(updated, debilities=tuple(dict.fromkeys(updated.debilities))), rules
        )
        if settled.momentum != updated.momentum:
            raise BadInput(
                f"momentum {updated.momentum} of {event.target!r} is outside "
                f"{rules.momentum_min}..{settled.max_momentum}"
            )
        updated = settled
    return core.replace_combatant(state, updated)


class Ironsworn(core.Ruleset[IronswornState, vocab.Events]):
    """Ironsworn (classic): Endure Harm, action rolls and momentum."""

    key = "ironsworn"
    rules = Rules
    state = IronswornState
    own_events = vocab.Events
    attrition = frozenset({"harm.suffered", "oracle.rolled"})
    stats = MappingProxyType({"player": vocab.CharacterStats, "adversary": vocab.FoeStats})
    rolls = frozenset({"roll.made", "oracle.rolled"})

    def join(
        self, state: IronswornState, seq: int, event: events.CombatantJoined
    ) -> core.Combatant:
        """A player is a character; an adversary is a foe with a rank."""
        return join(state, seq, event)

    def apply(self, state: IronswornState, seq: int, event: vocab.Events) -> IronswornState:
        """Fold an Ironsworn event."""
        match event:
            case vocab.IronswornHarmSuffered():
                return suffer(state, seq, event)
            case vocab.IronswornRollMade():
                return roll(state, seq, event)
            case vocab.MomentumBurned():
                return burn(state, seq, event)
            case vocab.ChoiceMade():
                return choose(state, seq, event)
            case vocab.DebilityMarked():
                return mark(state, seq, event)
            case vocab.DebilityCleared():
                return clear(state, seq, event)
            case vocab.OracleRolled():
                return consult(state, seq, event)
            case vocab.MeterChanged():
                return change(state, seq, event)
            case events.StakesLocked():
                return state  # the core keeps the lock; Ironsworn reads nothing more from it
            case _:
                assert_never(event)

    def adjust(
        self, state: IronswornState, seq: int, event: events.TrackAdjusted
    ) -> IronswornState:
        """A GM override: max momentum and reset become offsets on their formulas."""
        return adjust(state, seq, event)

    def scene_end(self, state: IronswornState, seq: int) -> IronswornState:
        """No recovery at scene end; owed 0-health miss choices lapse."""
        return scene_end(state, seq)

    def audit(
        self, before: IronswornState, seq: int, event: Common | vocab.Events, after: IronswornState
    ) -> Iterator[Finding]:
        """The Ironsworn rules (see `projections.ironsworn.audit`)."""
        return ironsworn_audit.audit(before, seq, event, after)

    def obligations(self, state: IronswornState) -> Iterator[Obligation]:
        """A 0-health miss's debility or oracle roll, still owed."""
        return ironsworn_audit.obligations(state)

    def rescores(self, event: Common | vocab.Events) -> int | None:
        """A momentum burn changes the outcome of the roll it names."""
        return event.roll if isinstance(event, vocab.MomentumBurned) else None

    def explain(
        self,
        before: IronswornState | None,
        seq: int,
        event: Common | vocab.Events,
        after: IronswornState,
    ) -> str | None:
        """The event in words (`projections.ironsworn.words`)."""
        return ironsworn_words.explain(before, seq, event, after)

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """What the report charts of a combatant (`projections.ironsworn.shown`)."""
        return measures(view)

    def hurt(self, combatant: core.Combatant) -> Mapping[str, int]:
        """Health and spirit lost (`.stats`)."""
        return ironsworn_stats.hurt(combatant)

    def dealer(
        self,
        before: IronswornState,
        seq: int,
        event: Common | vocab.Events,
        after: IronswornState,
    ) -> str | None:
        """The foe a harm names (`.stats`)."""
        return ironsworn_stats.dealer(before, event)

    def odds(
        self, before: IronswornState, event: Common | vocab.Events, roll: core.Roll
    ) -> Odds | None:
        """An action roll's chances, enumerated (`.stats`)."""
        return ironsworn_stats.odds(before, event, roll)


RULESET = Ironsworn()
