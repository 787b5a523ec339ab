"""The L5R model: house rules, characters, critical strikes, state, and what damage does.

The fold (`projections.l5r`) and the audit (`projections.l5r.audit`) share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, ClassVar, Literal, NamedTuple

from pydantic import BaseModel, Field

from ledger.errors import BadInput
from projections import core
from projections.l5r import events as vocab
from projections.l5r.shown import TRACKS
from projections.shown import Readings
from projections.values import EMPTY

Cause = Literal["incapacitated", "unconscious", "void", "undefended", "direct"]


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 4.3 and 5.4)."""

    #: The text says fatigue that *exceeds* endurance Incapacitates; ">=" is the "reaches" reading.
    incapacitation_comparison: Literal[">", ">="] = ">"
    #: Void points when no `void_points` stat is given: half the Void ring, rounded up or down.
    void_points_start: Literal["half_rounded_up", "half_rounded_down"] = "half_rounded_up"
    #: Severity a critical strike on an Unconscious character adds (NOTES 5.4
    #: `severity_modifiers.unconscious`); the table records it in the deadliness; 0: none.
    unconscious_severity: Annotated[int, Field(ge=0)] = 10
    #: What ends Unconscious, where the sources are silent: `incapacitated`, the same change of
    #: fatigue or endurance that ends Incapacitated (recovery, rest, the scene's end); `gm`, only
    #: a GM override (`track.adjusted` of `unconscious`).
    unconscious_ends: Literal["incapacitated", "gm"] = "incapacitated"


@core.value
class Critical(core.Value):
    """A critical strike: the damage seq that caused it, its severity, why, and its resolution.

    `severity` is the source's deadliness until `resolved` (the `critical.resolved` seq) is set,
    then the final severity recorded by the table. A `direct` one (a technique's critical strike,
    with no damage) has the `critical.resolved` seq for both.
    """

    seq: int
    severity: int
    cause: Cause
    resolved: int | None = None


@core.value
class Character(core.Combatant):
    """An L5R character's tracks; fatigue is never clamped to endurance."""

    fatigue: Annotated[int, Field(ge=0)] = 0
    endurance: Annotated[int, Field(ge=1)]
    incapacitated: bool = False
    #: Knocked out by a critical strike suffered while Incapacitated (NOTES 4.2).
    unconscious: bool = False
    void_points: Annotated[int, Field(ge=0)]
    criticals: tuple[Critical, ...] = ()
    resistance: vocab.Resistance = vocab.Resistance()
    rings: vocab.Rings

    def check(self) -> None:
        """Void points within the Void ring."""
        # The fold keeps Void points within the ring; this refuses a GM override
        # (track.adjusted) past it.
        if self.void_points > self.rings.void:
            raise ValueError(
                f"void_points {self.void_points} is more than the Void ring {self.rings.void} "
                "allows"
            )

    def pending(self) -> tuple[Critical, ...]:
        """Critical strikes not yet resolved, oldest first."""
        return tuple(c for c in self.criticals if c.resolved is None)


@core.value
class L5rState(core.State):
    """The encounter, its house rules read once, the latest damage to each character in this
    scene (for `defend-while-incapacitated`), and when each Unconscious one was knocked out."""

    readings: ClassVar[Readings] = TRACKS

    combatants: Mapping[str, Character] = EMPTY
    rolls: Sequence[core.Roll] = ()
    house: Rules = Rules()
    last_damage: Mapping[str, int] = EMPTY
    #: The seq each Unconscious character was knocked out at (for `critical-unconscious`).
    unconscious_since: Mapping[str, int] = EMPTY


class Resolution(NamedTuple):
    """What one `damage.dealt` does to its target under the rules."""

    final: int
    outcome: Literal["reduced", "defended", "critical"]
    cause: Cause | None
    spends_void: bool
    #: Why a voluntary critical strike was not allowed (None when allowed or not chosen).
    refused: str | None


def final_damage(target: Character, event: vocab.DamageDealt) -> int:
    """Increases first, then reductions and resistance to the damage type, floored at 0 once."""
    resistance: int = getattr(target.resistance, event.damage_type)
    raw = event.amount + sum(event.increases) - sum(event.reductions) - resistance
    return max(0, raw)


def incapacitation(target: Character) -> str:
    """`Incapacitated: fatigue 9 over endurance 8` (`reaching` it, under the house rule that
    fatigue equal to endurance incapacitates)."""
    fatigue, endurance = target.fatigue, target.endurance
    # Under it only when a GM set the condition (track.adjusted): the words stay true.
    how = "over" if fatigue > endurance else "reaching" if fatigue == endurance else "under"
    return f"Incapacitated: fatigue {fatigue} {how} endurance {endurance}"


def helplessness(target: Character) -> str | None:
    """Why `target` cannot defend nor choose a critical strike, in words (`Incapacitated:
    fatigue 9 over endurance 8`, or `Unconscious`), or None when it can. Unconscious counts on
    its own: under `unconscious_ends = gm`, or a GM's override, it outlasts Incapacitated."""
    if target.incapacitated:
        return incapacitation(target)
    return "Unconscious" if target.unconscious else None


def resolve(target: Character, event: vocab.DamageDealt) -> Resolution:
    """The outcome of damage on `target` as it stands before the hit."""
    final = final_damage(target, event)
    if final == 0:
        return Resolution(final, "reduced", None, False, None)
    helpless = helplessness(target)
    if helpless is not None:
        # A Void point the table spent on a voluntary critical is spent as played (the audit
        # says the rules would have kept it): the critical strike is due either way.
        cause: Cause = "incapacitated" if target.incapacitated else "unconscious"
        if not event.voluntary_critical:
            return Resolution(final, "critical", cause, False, None)
        return Resolution(final, "critical", cause, target.void_points > 0, f"while {helpless}")
    if event.voluntary_critical:
        if target.void_points < 1:
            return Resolution(final, "critical", "void", False, "holding 0 Void points")
        return Resolution(final, "critical", "void", True, None)
    if event.can_defend is False:
        # The GM says they cannot defend (unaware, bound): a critical strike, as Incapacitated.
        return Resolution(final, "critical", "undefended", False, None)
    return Resolution(final, "defended", None, False, None)


def with_fatigue(target: Character, fatigue: int, rules: Rules) -> Character:
    """The character at a new fatigue, with Incapacitated re-evaluated (and Unconscious
    ending with it, under the default house rule: when this change ends Incapacitated, not at
    every change of one the GM knocked out while standing)."""
    if rules.incapacitation_comparison == ">=":
        down = fatigue >= target.endurance
    else:
        down = fatigue > target.endurance
    woke = target.incapacitated and not down and rules.unconscious_ends == "incapacitated"
    out = target.unconscious and not woke
    return core.replace(target, fatigue=fatigue, incapacitated=down, unconscious=out)


def knocked_out(state: L5rState, target: Character, seq: int) -> L5rState:
    """`target` (as it will be stored) suffers a critical strike at `seq`: Unconscious if it
    was Incapacitated (NOTES 4.2), from `seq` unless it already was."""
    if not target.incapacitated:
        return core.replace_combatant(state, target)
    state = core.replace_combatant(state, core.replace(target, unconscious=True))
    if target.unconscious and target.name in state.unconscious_since:
        return state
    since = core.with_entry(state.unconscious_since, target.name, seq)
    return core.replace(state, unconscious_since=since)


def character(state: core.State, name: str) -> Character:
    """The named L5R character (the fold has checked the name)."""
    found = state.combatant(name, "target")
    assert isinstance(found, Character)
    return found


def listed(crits: tuple[Critical, ...]) -> str:
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
            f"{target.name!r} was resolved at seq {done.resolved} (pending: {listed(pending)})"
        )
    raise BadInput(
        f"critical.resolved names damage seq {event.damage}, which left no pending critical "
        f"strike on {target.name!r} (pending: {listed(pending)})"
    )
