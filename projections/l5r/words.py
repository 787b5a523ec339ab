"""Legend of the Five Rings events in words: damage against resistance, fatigue or a critical."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final

from ledger import events
from projections.l5r import events as vocab
from projections.l5r.model import Character, Critical, L5rState, resolve, resolved_by
from projections.words import joined, plural, with_changes

#: The conditions whose change a line names, each as the text has it.
CONDITIONS: Final = MappingProxyType(
    {"incapacitated": "Incapacitated", "unconscious": "Unconscious"}
)


def explain(before: L5rState | None, seq: int, event: Any, after: L5rState) -> str | None:
    """An l5r event in words (None: the common words serve)."""
    match event:
        case events.CombatantJoined():
            c = after.combatants.get(event.name)
            if not isinstance(c, Character):
                return None
            rings = ", ".join(f"{k} {v}" for k, v in c.rings.model_dump().items())
            resist = ", ".join(f"{k} {v}" for k, v in c.resistance.model_dump().items() if v)
            return joined(
                after,
                event.name,
                f"rings {rings}; endurance {c.endurance}, {plural(c.void_points, 'Void point')}"
                + (f", resistance {resist}" if resist else ""),
            )
        case vocab.DamageDealt() if before is not None:
            return dealt(before, event, after)
        case vocab.CriticalResolved() if before is not None:
            return settled(before, seq, event)
        case vocab.FatigueRemoved():
            cause = f" ({event.cause})" if event.cause else ""
            head = f"{event.target} recovers {event.amount} fatigue{cause}"
            return with_changes(head, before, after, event.target, **CONDITIONS)
        case vocab.RestTaken() if before is not None:
            c = before.combatants[event.target]
            assert isinstance(c, Character)
            heals = 2 * c.rings.water
            head = f"{event.target} rests: twice Water {c.rings.water} heals {heals} fatigue"
            return with_changes(head, before, after, event.target, **CONDITIONS)
        case vocab.VoidSpent() if before is not None:
            held = before.combatants[event.target]
            assert isinstance(held, Character)
            short = f" holding only {held.void_points}" if event.amount > held.void_points else ""
            head = f"{event.target} spends {plural(event.amount, 'Void point')}{short}"
            return with_changes(head, before, after, event.target, void_points="Void points")
        case vocab.VoidGained():
            c = after.combatants[event.target]
            assert isinstance(c, Character)
            head = f"{event.target} gains {plural(event.amount, 'Void point')}"
            told = with_changes(head, before, after, event.target, void_points="Void points")
            held = before.combatants[event.target] if before is not None else c
            assert isinstance(held, Character)
            capped = held.void_points + event.amount > c.void_points
            return told + (f" (capped at the Void ring, {c.rings.void})" if capped else "")
        case events.SceneEnded():
            return with_changes(
                "the scene ends: fatigue above half endurance falls to it",
                before,
                after,
                **CONDITIONS,
            )
        case _:
            return None


def dealt(before: L5rState, event: vocab.DamageDealt, after: L5rState) -> str:
    """Damage through increases, reductions and resistance, then fatigue or a critical strike."""
    target = before.combatants[event.target]
    assert isinstance(target, Character)
    source = f" from {event.source}" if event.source else ""
    head = f"{event.target} takes {event.amount} {event.damage_type} damage{source}"
    res = resolve(target, event)
    steps = []
    raised = event.amount + sum(event.increases)
    if event.increases:
        steps.append(f"increased to {raised}")
    cuts = []
    if event.reductions:
        cuts.append(f"reductions {sum(event.reductions)}")
    resistance: int = getattr(target.resistance, event.damage_type)
    if resistance:
        cuts.append(f"resistance {resistance}")
    if res.final == 0:
        # No damage: no defense and no critical strike, even one asked for (NOTES 4.2).
        unasked = "; no critical strike, though one was chosen" if event.voluntary_critical else ""
        if not cuts:
            return f"{head}: reduced to 0: the blow glances off{unasked}"
        lead = f"{steps[0]}, then " if steps else ""
        verb = "reduces" if len(cuts) == 1 else "reduce"
        return f"{head}: {lead}{' and '.join(cuts)} {verb} it to 0: the blow glances off{unasked}"
    if cuts:
        steps.append(f"{' and '.join(cuts)} leave{'s' * (len(cuts) == 1)} {res.final}")
    text = f"{head}: {', '.join(steps)}" if steps else head
    hit = after.combatants[event.target]
    assert isinstance(hit, Character)
    if res.outcome == "defended":
        text += (
            f"; {event.target} defends with {res.final} fatigue (fatigue {target.fatigue} -> "
            f"{hit.fatigue} of endurance {hit.endurance})"
        )
        if hit.incapacitated and not target.incapacitated:
            text += ": Incapacitated"
        return text
    plus = before.house.unconscious_severity
    more = (
        f"; Unconscious adds {plus}: the rules give {event.deadliness + plus}"
        if target.unconscious and event.deadliness is not None and event.deadliness < plus
        else ""
    )
    severity = f"a critical strike at severity {event.deadliness} (the deadliness{more})"
    if res.cause in ("incapacitated", "unconscious"):
        state = "Unconscious" if target.unconscious else "Incapacitated"
        why = f"{event.target} is {state} and cannot defend"
    elif res.cause == "undefended":
        why = f"{event.target} cannot defend"
    elif res.spends_void:
        why = (
            f"{event.target} spends a Void point ({target.void_points} -> {hit.void_points}) "
            "to take it as a critical strike"
        )
    else:
        why = f"{event.target} chooses a critical strike, with no Void point to spend"
    out = (
        f"; {event.target} falls Unconscious" if hit.unconscious and not target.unconscious else ""
    )
    return f"{text}; {why}: {severity}, to be resolved{out}"


def settled(before: L5rState, seq: int, event: vocab.CriticalResolved) -> str:
    """Which critical strike ends at what severity (or a direct one)."""
    target = before.combatants[event.target]
    assert isinstance(target, Character)
    fitness = (
        f" after {plural(event.fitness_successes, 'Fitness success', 'Fitness successes')}"
        if event.fitness_successes is not None
        else ""
    )
    crit: Critical | None = resolved_by(target, event)
    if crit is None:
        down = target.incapacitated and not target.unconscious
        out = f"; {event.target} falls Unconscious" if down else ""
        return (
            f"{event.target} suffers a direct critical strike at severity {event.severity}"
            f"{fitness}{out}"
        )
    return (
        f"the critical strike on {event.target} from the damage at seq {crit.seq} (deadliness "
        f"{crit.severity}) resolves at severity {event.severity}{fitness}"
    )
