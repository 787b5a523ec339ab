"""The L5R audit rules: due critical strikes, voluntary ones, Void points, severities; and
the critical strikes still due (`obligations`).

Ids (DESIGN.md section 6): `defend-while-incapacitated` (a due critical strike, from an
Incapacitated target or a voluntary one, still unresolved at the next damage or the scene end),
`void-critical-not-allowed` (an error, or a warning when the damage was reduced to 0 and the
ledger spent and applied nothing); added here: `void-overspent`, `critical-severity-raised` (a
warning), `critical-fitness` (a warning), `critical-unconscious` (a warning: the house default
+10 on an Unconscious character, NOTES 5.4) and `critical-without-damage` (informational).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from ledger import events
from projections.findings import Finding, Obligation, error, info, warning
from projections.l5r import events as vocab
from projections.l5r.model import (
    Character,
    Critical,
    L5rState,
    character,
    incapacitation,
    resolve,
    resolved_by,
    with_fatigue,
)
from projections.words import plural


def _undefended(before: L5rState, name: str) -> Iterator[Critical]:
    """Critical strikes from the latest damage to `name` still unresolved: one due because they
    were Incapacitated or Unconscious, could not defend, or chose one with a Void point (all
    are due alike)."""
    last = before.last_damage.get(name)
    target = before.combatants.get(name)
    if last is None or not isinstance(target, Character):
        return
    for crit in target.pending():
        if crit.seq == last and crit.cause != "direct":
            yield crit


def _unresolved(crit: Critical, name: str, seq: int, what: str) -> Finding:
    """`defend-while-incapacitated`: a due critical strike left behind by `what` at `seq`."""
    if crit.cause == "void":
        why = (
            f"{name!r} chose to take it as a voluntary critical strike at severity "
            f"{crit.severity} instead of defending"
        )
    elif crit.cause == "undefended":
        why = (
            f"it hit {name!r}, who could not defend, so it was a critical strike at severity "
            f"{crit.severity}"
        )
    else:
        state = "Unconscious" if crit.cause == "unconscious" else "Incapacitated"
        why = (
            f"it hit {name!r} while {state}, so it was a critical strike at severity "
            f"{crit.severity} (an {state} character cannot defend)"
        )
    return error(
        "defend-while-incapacitated",
        (crit.seq, seq),
        f"damage at seq {crit.seq}: {why}, but {what} at seq {seq} came before any "
        "critical.resolved for it: play went on as if it was defended (record its "
        f"critical.resolved with damage={crit.seq})",
    )


def _refused(before: Character, seq: int, event: vocab.DamageDealt, after: L5rState) -> str:
    """What the rules give instead of a voluntary critical strike they do not allow."""
    res = resolve(before, event)
    played = f"recorded as played: a critical strike at severity {event.deadliness}"
    now = after.combatants[before.name]
    assert isinstance(now, Character)
    if before.void_points != now.void_points:
        played += f", Void points {before.void_points} -> {now.void_points}"
    if res.cause in ("incapacitated", "unconscious"):
        state = "Unconscious" if res.cause == "unconscious" else "Incapacitated"
        return (
            f"by the rules it is a critical strike anyway (an {state} character cannot "
            f"defend) and no Void point is spent: Void points stay {before.void_points}; {played}"
        )
    defended = with_fatigue(before, before.fatigue + res.final, after.house)
    down = f", and they are {incapacitation(defended)}" if defended.incapacitated else ""
    return (
        f"by the rules they defend: fatigue {before.fatigue} -> {defended.fatigue}{down}; {played}"
    )


def _glancing(target: Character, seq: int, event: vocab.DamageDealt) -> Finding:
    """`void-critical-not-allowed` (a warning): a voluntary critical strike chosen against damage
    reduced to 0, which needs no defence; the fold spends no Void point and adds no critical."""
    how = [f"{event.amount} damage"]
    if event.increases:
        how.append(f"increases +{sum(event.increases)}")
    if event.reductions:
        how.append(f"reductions -{sum(event.reductions)}")
    resistance: int = getattr(target.resistance, event.damage_type)
    if resistance:
        how.append(f"resistance {resistance}")
    return warning(
        "void-critical-not-allowed",
        (seq,),
        f"{event.target!r} chose a voluntary critical strike at seq {seq} on damage reduced to 0 "
        f"({', '.join(how)}); damage reduced to 0 glances off and needs no defence, so there is "
        "no critical strike to take instead: no Void point is spent (Void points stay "
        f"{target.void_points}) and no critical strike happens",
    )


def _fitness(seq: int, event: vocab.CriticalResolved, resolving: Critical) -> Iterator[Finding]:
    """`critical-fitness`: the Fitness check (TN 1) lowers the deadliness by its successes, to a
    minimum of 0; a severity those successes do not account for contradicts its own record."""
    successes = event.fitness_successes
    assert successes is not None
    left = max(0, resolving.severity - successes)
    if event.severity != left:
        yield warning(
            "critical-fitness",
            (resolving.seq, seq),
            f"seq {seq} resolves the critical strike from damage seq {resolving.seq} on "
            f"{event.target!r} at severity {event.severity} after "
            f"{plural(successes, 'Fitness success', 'Fitness successes')}; the Fitness check "
            f"lowers the source's deadliness {resolving.severity} by its successes, to severity "
            f"{left}: recorded as played: severity {event.severity}",
        )


class _Out(NamedTuple):
    """An Unconscious character the house rule adds severity against: the seq it was knocked
    out at (None: unknown), who it is in words, and the house rule in words."""

    since: int | None
    who: str
    rule: str


def _knocked_out(state: L5rState, name: str) -> _Out | None:
    """`name` while it is Unconscious and the house rule adds anything."""
    target = state.combatants.get(name)
    plus = state.house.unconscious_severity
    if not (isinstance(target, Character) and target.unconscious and plus > 0):
        return None
    since = state.unconscious_since.get(name)
    return _Out(
        since,
        f"{name!r}, Unconscious" + (f" since seq {since}" if since is not None else ""),
        f"a critical strike on an Unconscious character is {plus} more severe (house rule "
        "unconscious_severity)",
    )


def _unconscious_damage(before: L5rState, seq: int, event: vocab.DamageDealt) -> Iterator[Finding]:
    """`critical-unconscious`: a critical strike from damage on an Unconscious character at a
    deadliness below the house +10, which no source's deadliness (0 or more) plus it can be."""
    out = _knocked_out(before, event.target)
    deadliness = event.deadliness
    plus = before.house.unconscious_severity
    if out is None or deadliness is None or deadliness >= plus:
        return
    if resolve(character(before, event.target), event).outcome != "critical":
        return
    yield warning(
        "critical-unconscious",
        (seq,) if out.since is None else (out.since, seq),
        f"damage at seq {seq} is a critical strike on {out.who}, at severity {deadliness} (the "
        f"recorded deadliness); {out.rule}, so the rules give severity {deadliness + plus} "
        f"before the Fitness check: recorded as played: severity {deadliness} (record "
        f"deadliness={deadliness + plus})",
    )


def _unconscious_direct(
    before: L5rState, seq: int, event: vocab.CriticalResolved
) -> Iterator[Finding]:
    """`critical-unconscious`: a direct critical strike on an Unconscious character lower than
    the house +10 less the recorded Fitness successes allow (without them, a good check may
    explain any severity)."""
    out = _knocked_out(before, event.target)
    successes = event.fitness_successes
    plus = before.house.unconscious_severity
    if out is None or successes is None or event.severity >= plus - successes:
        return
    checked = plural(successes, "Fitness success", "Fitness successes")
    yield warning(
        "critical-unconscious",
        (seq,) if out.since is None else (out.since, seq),
        f"seq {seq} resolves a direct critical strike on {out.who}, at severity "
        f"{event.severity} after {checked}; {out.rule}, so it begins at {plus} or more and "
        f"{checked} leave at least {plus - successes}: recorded as played: severity "
        f"{event.severity}",
    )


def audit(before: L5rState, seq: int, event: Any, after: L5rState) -> Iterator[Finding]:
    """`defend-while-incapacitated`, `void-critical-not-allowed`, `void-overspent`,
    `critical-severity-raised`, `critical-fitness` and `critical-unconscious` (warnings) and
    `critical-without-damage` (informational)."""
    match event:
        case vocab.DamageDealt():
            for crit in _undefended(before, event.target):
                yield _unresolved(crit, event.target, seq, "the next damage")
            target = character(before, event.target)
            res = resolve(target, event)
            if res.outcome == "reduced" and event.voluntary_critical:
                # The fold applied nothing (the rules), but the recorded choice was void.
                yield _glancing(target, seq, event)
            yield from _unconscious_damage(before, seq, event)
            if res.refused is not None:
                yield error(
                    "void-critical-not-allowed",
                    (seq,),
                    f"{event.target!r} chose a voluntary critical strike at seq {seq} "
                    f"{res.refused}; only a character who is not Incapacitated may spend 1 Void "
                    f"point to take one: {_refused(target, seq, event, after)}",
                )
        case events.SceneEnded():
            for name in before.combatants:
                for crit in _undefended(before, name):
                    yield _unresolved(crit, name, seq, "the scene end")
        case vocab.CriticalResolved():
            resolving = resolved_by(character(before, event.target), event)
            if resolving is None:
                yield info(
                    "critical-without-damage",
                    (seq,),
                    f"seq {seq} resolves a critical strike on {event.target!r} at severity "
                    f"{event.severity} with none pending from damage: recorded as a direct one",
                )
                yield from _unconscious_direct(before, seq, event)
            elif event.severity > resolving.severity:
                # Resolving the wrong pending critical is the usual cause; naming it is the cure.
                hint = (
                    ""
                    if event.damage is not None
                    else " (name the damage it resolves with damage=SEQ)"
                )
                yield warning(
                    "critical-severity-raised",
                    (resolving.seq, seq),
                    f"seq {seq} resolves the critical strike from damage seq {resolving.seq} "
                    f"on {event.target!r} at severity {event.severity}, above the source's "
                    f"deadliness {resolving.severity}; severity is based on the damage source "
                    f"and a Fitness check lowers it{hint}",
                )
            elif event.fitness_successes is not None:
                yield from _fitness(seq, event, resolving)
        case vocab.VoidSpent():
            held = character(before, event.target).void_points
            if event.amount > held:
                yield error(
                    "void-overspent",
                    (seq,),
                    f"{event.target!r} spends {plural(event.amount, 'Void point')} at seq {seq} "
                    "holding "
                    f"only {held}; the spend stops at 0 (Void points {held} -> 0)",
                )
        case _:
            return


def obligations(state: L5rState) -> Iterator[Obligation]:
    """Each critical strike still due from a character's latest damage of the scene: its
    severity is recorded by `critical.resolved`. (Once more damage or the scene end comes
    first, `defend-while-incapacitated` says it, once.)"""
    for name in state.combatants:
        for crit in _undefended(state, name):
            yield Obligation(
                (crit.seq,),
                f"the critical strike on {name!r} from the damage at seq {crit.seq} (deadliness "
                f"{crit.severity}) is still due: record the severity it ends at (critical.resolved "
                f"target={name} severity=N damage={crit.seq})",
                "defend-while-incapacitated",
            )
