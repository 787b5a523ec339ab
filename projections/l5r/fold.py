"""Legend of the Five Rings 5e: damage, fatigue, Incapacitated, critical strikes (l5r-damage.txt).

Damage is increased, then reduced (recorded reductions and the target's resistance to its type),
floored at 0 once. Damage left over is defended by taking that much fatigue, unless the target is
Incapacitated (fatigue over endurance before the hit) or spends 1 Void point to take a critical
strike instead; a critical strike waits at the source's deadliness until `critical.resolved`
records the severity it ended at (for the damage it names, else the oldest pending one). Scene
end, rest and other effects remove fatigue.
"""

from __future__ import annotations

import math
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
from projections.l5r import audit as l5r_audit
from projections.l5r import events as vocab
from projections.l5r import stats as l5r_stats
from projections.l5r import words as l5r_words
from projections.l5r.model import (
    Character,
    Critical,
    L5rState,
    Rules,
    character,
    incapacitation,
    knocked_out,
    resolve,
    resolved_by,
    with_fatigue,
)
from projections.l5r.shown import measures


def join(state: L5rState, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate stats; endurance defaults to (Earth + Fire) x 2, Void points to half the ring."""
    try:
        stats = vocab.CharacterStats.model_validate(dict(event.stats))
    except ValidationError as exc:
        model = vocab.CharacterStats
        raise stat_texts.refused(exc, event.name, event.side, model, state.system) from exc
    rings = stats.rings
    endurance = stats.endurance or (rings.earth + rings.fire) * 2
    if stats.void_points is not None:
        void = stats.void_points
        if void > rings.void:
            raise BadInput(
                f"stats of {event.name!r}: void_points {void} is more than the Void ring "
                f"{rings.void} allows"
            )
    elif state.house.void_points_start == "half_rounded_up":
        void = math.ceil(rings.void / 2)
    else:
        void = rings.void // 2
    return Character(
        name=event.name,
        side=event.side,
        joined=seq,
        endurance=endurance,
        void_points=void,
        resistance=stats.resistance,
        rings=rings,
    )


def deal(state: L5rState, seq: int, event: vocab.DamageDealt) -> L5rState:
    """Fold damage: nothing, fatigue (defended), or a critical strike pending at deadliness."""
    target = character(state, event.target)
    res = resolve(target, event)
    state = core.replace(state, last_damage=core.with_entry(state.last_damage, target.name, seq))
    if res.outcome == "reduced":
        return state
    if res.outcome == "defended":
        return core.replace_combatant(
            state, with_fatigue(target, target.fatigue + res.final, state.house)
        )
    if event.deadliness is None:
        why = {
            "incapacitated": incapacitation(target),
            "unconscious": "Unconscious",
            "undefended": "it cannot defend",
        }.get(str(res.cause), "a voluntary critical")
        raise BadInput(
            f"damage.dealt: {res.final} damage to {target.name!r} becomes a critical strike "
            f"({why}), and a critical strike needs the source's deadliness: give deadliness"
        )
    assert res.cause is not None
    crit = Critical(seq=seq, severity=event.deadliness, cause=res.cause)
    hurt = core.replace(
        target,
        criticals=(*target.criticals, crit),
        void_points=target.void_points - 1 if res.spends_void else target.void_points,
    )
    return knocked_out(state, hurt, seq)


def resolve_critical(state: L5rState, seq: int, event: vocab.CriticalResolved) -> L5rState:
    """Record the final severity of the named (else the oldest) pending critical strike, or
    of a direct one when none is pending."""
    target = character(state, event.target)
    crit = resolved_by(target, event)
    if crit is not None:
        done = core.replace(crit, severity=event.severity, resolved=seq)
        crits = tuple(done if c is crit else c for c in target.criticals)
    else:
        # A technique or the Strike action can inflict a critical strike without damage.
        direct = Critical(seq=seq, severity=event.severity, cause="direct", resolved=seq)
        # Suffered now: one on an Incapacitated character knocks it out, as from damage.
        return knocked_out(state, core.replace(target, criticals=(*target.criticals, direct)), seq)
    return core.replace_combatant(state, core.replace(target, criticals=crits))


def _remove(state: L5rState, name: str, amount: int) -> L5rState:
    target = character(state, name)
    return core.replace_combatant(
        state, with_fatigue(target, max(0, target.fatigue - amount), state.house)
    )


def _void(state: L5rState, name: str, change: int) -> L5rState:
    """Void points move by `change`, within 0 and the Void ring."""
    target = character(state, name)
    void = min(target.rings.void, max(0, target.void_points + change))
    return core.replace_combatant(state, core.replace(target, void_points=void))


def adjust(state: L5rState, seq: int, event: events.TrackAdjusted) -> L5rState:
    """A GM override; a new fatigue or endurance re-evaluates Incapacitated (and Unconscious)."""
    was = character(state, event.target).unconscious
    state = core.adjust_track(state, seq, event)
    if event.track == "unconscious" and event.value is True and not was:
        since = core.with_entry(state.unconscious_since, event.target, seq)
        return core.replace(state, unconscious_since=since)
    if event.track not in ("fatigue", "endurance"):
        return state
    target = character(state, event.target)
    return core.replace_combatant(state, with_fatigue(target, target.fatigue, state.house))


def scene_end(state: L5rState, seq: int) -> L5rState:
    """Each character's fatigue drops to half their endurance (rounded up) if it is over it."""
    rules = state.house
    for c in state.combatants.values():
        if isinstance(c, Character):
            half = math.ceil(c.endurance / 2)
            state = core.replace_combatant(state, with_fatigue(c, min(c.fatigue, half), rules))
    return core.replace(state, last_damage=core.read_only({}))


class L5r(core.Ruleset[L5rState, vocab.Events]):
    """Legend of the Five Rings 5e: damage, fatigue, Incapacitated, critical strikes."""

    key = "l5r"
    rules = Rules
    state = L5rState
    own_events = vocab.Events
    attrition = frozenset({"damage.dealt", "critical.resolved"})
    stats = MappingProxyType({"player": vocab.CharacterStats, "adversary": vocab.CharacterStats})
    #: Before Unconscious was tracked, no +10 was asked against it; it ended as it does today.
    rules_added = MappingProxyType({"unconscious_severity": 0, "unconscious_ends": "incapacitated"})

    def join(self, state: L5rState, seq: int, event: events.CombatantJoined) -> core.Combatant:
        """Validate stats; endurance and Void points default from the rings."""
        return join(state, seq, event)

    def apply(self, state: L5rState, seq: int, event: vocab.Events) -> L5rState:
        """Fold an l5r event."""
        match event:
            case vocab.DamageDealt():
                return deal(state, seq, event)
            case vocab.CriticalResolved():
                return resolve_critical(state, seq, event)
            case vocab.FatigueRemoved():
                return _remove(state, event.target, event.amount)
            case vocab.RestTaken():
                water = character(state, event.target).rings.water
                return _remove(state, event.target, 2 * water)
            case vocab.VoidSpent():
                return _void(state, event.target, -event.amount)
            case vocab.VoidGained():
                return _void(state, event.target, event.amount)
            case events.RollMade():
                return core.note_roll(state, seq, event)
            case events.StakesLocked():
                return state  # the core keeps the lock; l5r reads nothing more from it
            case _:
                assert_never(event)

    def adjust(self, state: L5rState, seq: int, event: events.TrackAdjusted) -> L5rState:
        """A GM override; a new fatigue or endurance re-evaluates Incapacitated and Unconscious."""
        return adjust(state, seq, event)

    def scene_end(self, state: L5rState, seq: int) -> L5rState:
        """Fatigue over half endurance drops to it."""
        return scene_end(state, seq)

    def audit(
        self, before: L5rState, seq: int, event: Common | vocab.Events, after: L5rState
    ) -> Iterator[Finding]:
        """The l5r rules (see `projections.l5r.audit`)."""
        return l5r_audit.audit(before, seq, event, after)

    def obligations(self, state: L5rState) -> Iterator[Obligation]:
        """Critical strikes still due (`projections.l5r.audit.obligations`)."""
        return l5r_audit.obligations(state)

    def explain(
        self, before: L5rState | None, seq: int, event: Common | vocab.Events, after: L5rState
    ) -> str | None:
        """The event in words (`projections.l5r.words`)."""
        return l5r_words.explain(before, seq, event, after)

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """What the report charts of a combatant (`projections.l5r.shown`)."""
        return measures(view)

    def condition(self, view: Mapping[str, Any]) -> str | None:
        """Unconscious, else Incapacitated: fatigue over endurance (the report marks where
        each began)."""
        if view.get("unconscious") is True:
            return "unconscious"
        return "incapacitated" if view.get("incapacitated") is True else None

    def hurt(self, combatant: core.Combatant) -> Mapping[str, int]:
        """What of a combatant counts as damage (`.stats`)."""
        return l5r_stats.hurt(combatant)

    def dealer(
        self, before: L5rState, seq: int, event: Common | vocab.Events, after: L5rState
    ) -> str | None:
        """Who dealt an event's damage, where it says (`.stats`)."""
        return l5r_stats.dealer(before, event)


RULESET = L5r()
