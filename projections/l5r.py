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
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, Field, ValidationError, model_validator

from ledger import events
from ledger.errors import BadInput
from ledger.events import l5r as vocab
from projections import core
from projections.findings import Finding, error, info, warning

Cause = Literal["incapacitated", "void", "direct"]


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 4.3 and 5.4)."""

    #: The text says fatigue that *exceeds* endurance Incapacitates; ">=" is the "reaches" reading.
    incapacitation_comparison: Literal[">", ">="] = ">"
    #: Void points when no `void_points` stat is given: half the Void ring, rounded up or down.
    void_points_start: Literal["half_rounded_up", "half_rounded_down"] = "half_rounded_up"


class Critical(core.Value, frozen=True):
    """A critical strike: the damage seq that caused it, its severity, why, and its resolution.

    `severity` is the source's deadliness until `resolved` (the `critical.resolved` seq) is set,
    then the final severity recorded by the table. A `direct` one (a technique's critical strike,
    with no damage) has the `critical.resolved` seq for both.
    """

    seq: int
    severity: int
    cause: Cause
    resolved: int | None = None


class Character(core.Combatant, frozen=True):
    """An L5R character's tracks; fatigue is never clamped to endurance."""

    fatigue: Annotated[int, Field(ge=0)] = 0
    endurance: Annotated[int, Field(ge=1)]
    incapacitated: bool = False
    void_points: Annotated[int, Field(ge=0)]
    criticals: tuple[Critical, ...] = ()
    resistance: vocab.Resistance = vocab.Resistance()
    rings: vocab.Rings

    @model_validator(mode="after")
    def _void_within_ring(self) -> Character:
        # The fold keeps Void points within the ring (it copies without validating); this
        # refuses a GM override (track.adjusted) past it.
        if self.void_points > self.rings.void:
            raise ValueError(
                f"void_points {self.void_points} is more than the Void ring {self.rings.void} "
                "allows"
            )
        return self

    def pending(self) -> tuple[Critical, ...]:
        """Critical strikes not yet resolved, oldest first."""
        return tuple(c for c in self.criticals if c.resolved is None)


class L5rState(core.State, frozen=True):
    """The encounter, its house rules read once, and the latest damage to each character
    in this scene (for `defend-while-incapacitated`)."""

    house: Rules = Rules()
    last_damage: Mapping[str, int] = {}


class Resolution(NamedTuple):
    """What one `damage.dealt` does to its target under the rules."""

    final: int
    outcome: Literal["reduced", "defended", "critical"]
    cause: Cause | None
    spends_void: bool
    #: Why a voluntary critical strike was not allowed (None when allowed or not chosen).
    refused: str | None


def rules_of(state: core.State) -> Rules:
    """The encounter's pinned house rules."""
    if isinstance(state, L5rState):
        return state.house
    return Rules.model_validate(state.rules)


def final_damage(target: Character, event: vocab.DamageDealt) -> int:
    """Increases first, then reductions and resistance to the damage type, floored at 0 once."""
    resistance: int = getattr(target.resistance, event.damage_type)
    raw = event.amount + sum(event.increases) - sum(event.reductions) - resistance
    return max(0, raw)


def _incapacitation(target: Character) -> str:
    return f"Incapacitated: fatigue {target.fatigue} over endurance {target.endurance}"


def resolve(target: Character, event: vocab.DamageDealt) -> Resolution:
    """The outcome of damage on `target` as it stands before the hit."""
    final = final_damage(target, event)
    if final == 0:
        return Resolution(final, "reduced", None, False, None)
    if target.incapacitated:
        refused = f"while {_incapacitation(target)}" if event.voluntary_critical else None
        return Resolution(final, "critical", "incapacitated", False, refused)
    if event.voluntary_critical:
        if target.void_points < 1:
            return Resolution(final, "critical", "void", False, "holding 0 Void points")
        return Resolution(final, "critical", "void", True, None)
    return Resolution(final, "defended", None, False, None)


def with_fatigue(target: Character, fatigue: int, rules: Rules) -> Character:
    """The character at a new fatigue, with Incapacitated re-evaluated."""
    if rules.incapacitation_comparison == ">=":
        down = fatigue >= target.endurance
    else:
        down = fatigue > target.endurance
    return target.model_copy(update={"fatigue": fatigue, "incapacitated": down})


def start(state: core.State) -> core.State:
    """The initial state, with the pinned house rules parsed once."""
    return L5rState(**dict(state), house=Rules.model_validate(state.rules))


def join(state: core.State, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate stats; endurance defaults to (Earth + Fire) x 2, Void points to half the ring."""
    try:
        stats = vocab.CharacterStats.model_validate(dict(event.stats))
    except ValidationError as exc:
        raise BadInput(events.describe(exc, f"stats of {event.name!r}")) from exc
    rings = stats.rings
    endurance = stats.endurance or (rings.earth + rings.fire) * 2
    if stats.void_points is not None:
        void = stats.void_points
        if void > rings.void:
            raise BadInput(
                f"stats of {event.name!r}: void_points {void} is more than the Void ring "
                f"{rings.void} allows"
            )
    elif rules_of(state).void_points_start == "half_rounded_up":
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


def _character(state: core.State, name: str) -> Character:
    found = state.combatant(name, "target")
    assert isinstance(found, Character)
    return found


def deal(state: L5rState, seq: int, event: vocab.DamageDealt) -> core.State:
    """Fold damage: nothing, fatigue (defended), or a critical strike pending at deadliness."""
    target = _character(state, event.target)
    res = resolve(target, event)
    state = state.model_copy(update={"last_damage": {**state.last_damage, target.name: seq}})
    if res.outcome == "reduced":
        return state
    if res.outcome == "defended":
        return core.replace_combatant(
            state, with_fatigue(target, target.fatigue + res.final, rules_of(state))
        )
    if event.deadliness is None:
        why = _incapacitation(target) if res.cause == "incapacitated" else "a voluntary critical"
        raise BadInput(
            f"damage.dealt: {res.final} damage to {target.name!r} becomes a critical strike "
            f"({why}), and a critical strike needs the source's deadliness: give deadliness"
        )
    assert res.cause is not None
    crit = Critical(seq=seq, severity=event.deadliness, cause=res.cause)
    hurt = target.model_copy(
        update={
            "criticals": (*target.criticals, crit),
            "void_points": target.void_points - 1 if res.spends_void else target.void_points,
        }
    )
    return core.replace_combatant(state, hurt)


def _listed(crits: tuple[Critical, ...]) -> str:
    return ", ".join(f"seq {c.seq} at severity {c.severity}" for c in crits) or "none"


def resolved_by(target: Character, event: vocab.CriticalResolved) -> Critical | None:
    """The pending critical strike `event` resolves: the one from its `damage` seq, else the
    oldest pending; None (a direct one) when none is pending and no damage is named."""
    pending = target.pending()
    if event.damage is None:
        return pending[0] if pending else None
    for crit in pending:
        if crit.seq == event.damage:
            return crit
    done = next((c for c in target.criticals if c.seq == event.damage), None)
    if done is not None:
        raise BadInput(
            f"critical.resolved: the critical strike from damage seq {event.damage} on "
            f"{target.name!r} was resolved at seq {done.resolved} (pending: {_listed(pending)})"
        )
    raise BadInput(
        f"critical.resolved names damage seq {event.damage}, which left no pending critical "
        f"strike on {target.name!r} (pending: {_listed(pending)})"
    )


def resolve_critical(state: core.State, seq: int, event: vocab.CriticalResolved) -> core.State:
    """Record the final severity of the named (else the oldest) pending critical strike, or
    of a direct one when none is pending."""
    target = _character(state, event.target)
    crit = resolved_by(target, event)
    if crit is not None:
        done = crit.model_copy(update={"severity": event.severity, "resolved": seq})
        crits = tuple(done if c is crit else c for c in target.criticals)
    else:
        # A technique or the Strike action can inflict a critical strike without damage.
        direct = Critical(seq=seq, severity=event.severity, cause="direct", resolved=seq)
        crits = (*target.criticals, direct)
    return core.replace_combatant(state, target.model_copy(update={"criticals": crits}))


def _remove(state: core.State, name: str, amount: int) -> core.State:
    target = _character(state, name)
    return core.replace_combatant(
        state, with_fatigue(target, max(0, target.fatigue - amount), rules_of(state))
    )


def _void(state: core.State, name: str, change: int) -> core.State:
    """Void points move by `change`, within 0 and the Void ring."""
    target = _character(state, name)
    void = min(target.rings.void, max(0, target.void_points + change))
    return core.replace_combatant(state, target.model_copy(update={"void_points": void}))


def apply(state: core.State, seq: int, event: Any) -> core.State:
    """Fold an l5r event."""
    assert isinstance(state, L5rState)
    match event:
        case vocab.DamageDealt():
            return deal(state, seq, event)
        case vocab.CriticalResolved():
            return resolve_critical(state, seq, event)
        case vocab.FatigueRemoved():
            return _remove(state, event.target, event.amount)
        case vocab.RestTaken():
            return _remove(state, event.target, 2 * _character(state, event.target).rings.water)
        case vocab.VoidSpent():
            return _void(state, event.target, -event.amount)
        case vocab.VoidGained():
            return _void(state, event.target, event.amount)
        case events.RollMade():
            return core.note_roll(state, seq, event)
        case _:
            return state


def adjust(state: core.State, seq: int, event: events.TrackAdjusted) -> core.State:
    """A GM override; a new fatigue or endurance re-evaluates Incapacitated."""
    state = core.adjust_track(state, seq, event)
    if event.track not in ("fatigue", "endurance"):
        return state
    target = _character(state, event.target)
    return core.replace_combatant(state, with_fatigue(target, target.fatigue, rules_of(state)))


def scene_end(state: core.State, seq: int) -> core.State:
    """Each character's fatigue drops to half their endurance (rounded up) if it is over it."""
    rules = rules_of(state)
    for c in state.combatants.values():
        if isinstance(c, Character):
            half = math.ceil(c.endurance / 2)
            state = core.replace_combatant(state, with_fatigue(c, min(c.fatigue, half), rules))
    return state.model_copy(update={"last_damage": {}})


def _undefended(before: core.State, name: str) -> Iterator[Critical]:
    """Critical strikes from the latest damage to an Incapacitated `name` still unresolved."""
    assert isinstance(before, L5rState)
    last = before.last_damage.get(name)
    target = before.combatants.get(name)
    if last is None or not isinstance(target, Character):
        return
    for crit in target.pending():
        if crit.seq == last and crit.cause == "incapacitated":
            yield crit


def _unresolved(crit: Critical, name: str, seq: int, what: str) -> Finding:
    return error(
        "defend-while-incapacitated",
        (crit.seq, seq),
        f"damage at seq {crit.seq} hit {name!r} while Incapacitated, so it was a critical strike "
        f"at severity {crit.severity} (an Incapacitated character cannot defend), but {what} at "
        f"seq {seq} came before any critical.resolved for it: play went on as if it was defended",
    )


def audit(before: core.State, seq: int, event: Any, after: core.State) -> Iterator[Finding]:
    """`defend-while-incapacitated`, `void-critical-not-allowed`, `void-overspent`,
    `critical-severity-raised` (a warning) and `critical-without-damage` (informational)."""
    match event:
        case vocab.DamageDealt():
            for crit in _undefended(before, event.target):
                yield _unresolved(crit, event.target, seq, "the next damage")
            target = _character(before, event.target)
            res = resolve(target, event)
            if res.refused is not None:
                yield error(
                    "void-critical-not-allowed",
                    (seq,),
                    f"{event.target!r} chose a voluntary critical strike at seq {seq} "
                    f"{res.refused}; only a character who is not Incapacitated may spend 1 Void "
                    "point to take one: recorded as a critical strike, no Void point spent",
                )
        case events.SceneEnded():
            for name in before.combatants:
                for crit in _undefended(before, name):
                    yield _unresolved(crit, name, seq, "the scene end")
        case vocab.CriticalResolved():
            resolving = resolved_by(_character(before, event.target), event)
            if resolving is None:
                yield info(
                    "critical-without-damage",
                    (seq,),
                    f"seq {seq} resolves a critical strike on {event.target!r} at severity "
                    f"{event.severity} with none pending from damage: recorded as a direct one",
                )
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
        case vocab.VoidSpent():
            held = _character(before, event.target).void_points
            if event.amount > held:
                yield error(
                    "void-overspent",
                    (seq,),
                    f"{event.target!r} spends {event.amount} Void point(s) at seq {seq} holding "
                    f"only {held}; the spend stops at 0",
                )
        case _:
            return


def pin(state: core.State, seq: int, fields: Mapping[str, Any]) -> Mapping[str, Any]:
    """A `critical.resolved` that named no damage resolved the oldest pending critical strike:
    its copy names that strike's damage seq, so it resolves the same one at the head."""
    if fields.get("type") != "critical.resolved" or fields.get("damage") is not None:
        return fields
    target = state.combatants.get(str(fields.get("target")))
    if not isinstance(target, Character):
        return fields
    crit = next((c for c in target.criticals if c.resolved == seq), None)
    if crit is None or crit.seq == seq:  # not resolved by it, or a direct critical strike
        return fields
    return {**fields, "damage": crit.seq}


RULESET = core.Ruleset(
    key="l5r",
    rules=Rules,
    start=start,
    join=join,
    apply=apply,
    adjust=adjust,
    scene_end=scene_end,
    audit=audit,
    pin=pin,
)
