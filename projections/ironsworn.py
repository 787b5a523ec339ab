"""Ironsworn (classic): Endure Harm, action rolls and momentum (ironsworn-endure-harm.txt).

Harm comes off health first and spills into -momentum at 0 health; the Endure Harm roll is an
action roll (die + stat + adds, capped, strictly beating each challenge die). A miss costs 1
momentum at once; a later burn replaces the outcome with the momentum held at the roll and then
sets momentum to the reset value, which absorbs that -1 (a burn needs positive momentum, so the
-1 never touched the floor). Debilities set max momentum and reset; the oracle sets tags.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from ledger import events
from ledger.errors import BadInput
from ledger.events import ironsworn as vocab
from projections import core, ironsworn_audit
from projections.findings import Finding

Outcome = Literal["strong_hit", "weak_hit", "miss"]
Condition = Literal["face_death", "dying", "unconscious", "reeling", "battered", "face_a_setback"]

#: Upper bounds of the Endure Harm oracle rows (d100) and the tag each row sets.
ORACLE: Final[tuple[tuple[int, Condition], ...]] = (
    (10, "face_death"),
    (20, "dying"),
    (35, "unconscious"),
    (50, "reeling"),
    (100, "battered"),
)
ORACLE_TAGS: Final = frozenset(tag for _, tag in ORACLE)
#: Debilities that stop a meter from rising (Datasworn `prevents_recovery`).
BLOCKS: Final[Mapping[str, str]] = {"health": "wounded", "spirit": "shaken", "supply": "unprepared"}
METER_MAX: Final = 5


#: Harm by foe rank (Enter the Fray / Endure Harm guidance).
RANK_HARM: Final[Mapping[vocab.Rank, int]] = {
    "troublesome": 1,
    "dangerous": 2,
    "formidable": 3,
    "extreme": 4,
    "epic": 5,
}


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 5.2, 'Configurable defaults')."""

    edition: Literal["classic"] = "classic"
    harm_default: int = Field(2, ge=0)
    rank_harm: Mapping[vocab.Rank, Annotated[int, Field(ge=0)]] = RANK_HARM
    score_cap: int = Field(10, ge=1)
    momentum_min: int = Field(-6, le=0)
    momentum_max: int = Field(10, ge=0)
    momentum_start: int = 2
    momentum_reset: tuple[int, int, int] = (2, 1, 0)
    strong_hit_text: Literal["move", "commentary"] = "move"
    shake_it_off_at_max_health: Literal["allowed", "allowed_with_warning", "disallowed"] = (
        "allowed_with_warning"
    )
    wounded_blocks_shake_it_off: bool = True
    burn_momentum_allowed: bool = True

    @field_validator("rank_harm")
    @classmethod
    def _every_rank(cls, value: Mapping[vocab.Rank, int]) -> Mapping[vocab.Rank, int]:
        # An override names the ranks it changes; the others keep the book's harm.
        return {**RANK_HARM, **value}


class Character(core.Combatant, frozen=True):
    """A character's meters, momentum, debilities and oracle tags (stats kept internal)."""

    health: int = Field(ge=0, le=METER_MAX)
    spirit: int = Field(ge=0, le=METER_MAX)
    supply: int = Field(ge=0, le=METER_MAX)
    momentum: int
    max_momentum: int
    momentum_reset: int
    debilities: tuple[vocab.Debility, ...] = ()
    conditions: tuple[Condition, ...] = ()
    stats: Mapping[str, int] = Field(default={}, exclude=True)
    # A GM's adjustment of max momentum or reset (an asset) is kept as an offset on the formula.
    max_offset: int = Field(default=0, exclude=True)
    reset_offset: int = Field(default=0, exclude=True)

    def value(self, stat: str) -> int:
        """The current value of a stat or meter."""
        if stat in ("health", "spirit", "supply"):
            meter: int = getattr(self, stat)
            return meter
        return self.stats[stat]


class Foe(core.Combatant, frozen=True):
    """A foe: only its rank matters to Endure Harm."""

    rank: vocab.Rank


class IronswornRoll(core.Roll, frozen=True):
    """An action roll with its score, match flag and burn; dice and momentum kept internal."""

    move: str
    stat: str
    score: int
    match: bool
    burned: bool = False
    stat_value: int = Field(exclude=True)
    action_die: int = Field(exclude=True)
    challenge: tuple[int, int] = Field(exclude=True)
    momentum: int = Field(exclude=True)
    health: int = Field(exclude=True)


class IronswornState(core.State, frozen=True):
    """The encounter, plus what the audit must remember across events."""

    house: Rules = Field(default_factory=Rules, exclude=True)
    #: character -> seq of the harm still waiting for its Endure Harm roll
    pending_harm: Mapping[str, int] = {}
    #: character -> seq of their latest roll
    last_roll: Mapping[str, int] = {}
    #: roll seq -> seq of the first event that acted on its outcome (choice, debility, oracle)
    acted: Mapping[int, int] = {}
    #: roll seq -> seq of the strong-hit choice made on it
    choices: Mapping[int, int] = {}
    #: roll seq -> seq of the burn on it
    burns: Mapping[int, int] = {}
    #: character -> seq of an Endure Harm miss at 0 health still owing a debility or the oracle
    owed: Mapping[str, int] = {}


def start(state: core.State) -> core.State:
    """The initial state, with the pinned house rules parsed once."""
    return IronswornState(**dict(state), house=Rules.model_validate(state.rules))


def _house(state: core.State) -> Rules:
    assert isinstance(state, IronswornState)
    return state.house


def settle(c: Character, rules: Rules) -> Character:
    """Max momentum and reset from the debilities; momentum held within its range."""
    n = len(c.debilities)
    top = rules.momentum_max - n + c.max_offset
    reset = rules.momentum_reset[min(n, 2)] + c.reset_offset
    momentum = max(rules.momentum_min, min(c.momentum, top))
    return c.model_copy(update={"max_momentum": top, "momentum_reset": reset, "momentum": momentum})


def join(state: core.State, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """A player is a character; an adversary is a foe with a rank."""
    rules = _house(state)
    try:
        if event.side == "adversary":
            foe = vocab.FoeStats.model_validate(dict(event.stats), strict=False)
            return Foe(name=event.name, side=event.side, joined=seq, rank=foe.rank)
        stats = vocab.CharacterStats.model_validate(dict(event.stats), strict=False)
    except ValidationError as exc:
        raise BadInput(events.describe(exc, f"stats of {event.name!r}")) from exc
    debilities = tuple(dict.fromkeys(stats.debilities))
    momentum = stats.momentum if "momentum" in event.stats else rules.momentum_start
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
        stats={k: getattr(stats, k) for k in ("edge", "heart", "iron", "shadow", "wits")},
    )
    settled = settle(c, rules)
    if settled.momentum != momentum:
        raise BadInput(
            f"stats of {event.name!r}: momentum {momentum} is outside "
            f"{rules.momentum_min}..{settled.max_momentum} ({len(debilities)} debilities)"
        )
    return settled


def character(state: core.State, name: str, role: str = "target") -> Character:
    """The named character, or bad input (unknown name, or a foe: foes have no meters)."""
    c = state.combatant(name, role)
    if not isinstance(c, Character):
        raise BadInput(f"{name!r} is a foe; foes have no health or momentum in Ironsworn")
    return c


def shift_momentum(c: Character, delta: int, rules: Rules) -> Character:
    """Gain or lose momentum: gains above max are lost; a loss past the minimum owes a setback."""
    momentum = c.momentum + delta
    conditions = c.conditions
    if delta > 0:
        momentum = max(c.momentum, min(momentum, c.max_momentum))
    elif momentum < rules.momentum_min:
        momentum = rules.momentum_min
        if "face_a_setback" not in conditions:
            conditions = (*conditions, "face_a_setback")
    return c.model_copy(update={"momentum": momentum, "conditions": conditions})


def shift_meter(c: Character, meter: str, delta: int) -> Character:
    """Raise or lower a meter within 0..5; a blocking debility stops it rising."""
    now: int = getattr(c, meter)
    if delta > 0 and BLOCKS[meter] in c.debilities:
        return c
    return c.model_copy(update={meter: max(0, min(METER_MAX, now + delta))})


def harm_amount(state: core.State, event: vocab.IronswornHarmSuffered) -> int:
    """The harm: `amount`, else `rank`'s, else the foe's rank's, else the default."""
    rules = _house(state)
    if event.amount is not None:
        return event.amount
    if event.rank is not None:
        return rules.rank_harm[event.rank]
    if event.foe is not None:
        foe = state.combatant(event.foe, "foe")
        if not isinstance(foe, Foe):
            raise BadInput(f"harm.suffered names foe {event.foe!r}, which is not an adversary")
        return rules.rank_harm[foe.rank]
    return rules.harm_default


def moved_on(state: IronswornState, name: str) -> IronswornState:
    """The story moves on for `name`: an owed 0-health miss choice is no longer owed."""
    if name not in state.owed:
        return state
    return state.model_copy(update={"owed": {k: v for k, v in state.owed.items() if k != name}})


def scene_end(state: core.State, seq: int) -> core.State:
    """No recovery at scene end; owed 0-health miss choices lapse (the audit flags them)."""
    assert isinstance(state, IronswornState)
    return state.model_copy(update={"owed": {}})


def suffer(state: IronswornState, seq: int, event: vocab.IronswornHarmSuffered) -> core.State:
    """-health, and the rest as -momentum once health is at 0."""
    c = character(state, event.target)
    state = moved_on(state, c.name)
    amount = harm_amount(state, event)
    spill = max(0, amount - c.health)
    c = c.model_copy(update={"health": max(0, c.health - amount)})
    if spill:
        c = shift_momentum(c, -spill, state.house)
    state = state.model_copy(update={"pending_harm": {**state.pending_harm, c.name: seq}})
    return core.replace_combatant(state, c)


def beaten(score: int, challenge: tuple[int, int], momentum: int | None = None) -> Outcome:
    """Strong hit beating both dice, weak hit one, miss none; a burn cancels dice below it."""
    hits = sum(1 for d in challenge if d < score or (momentum is not None and d < momentum))
    return ("miss", "weak_hit", "strong_hit")[hits]


def roll(state: IronswornState, seq: int, event: vocab.IronswornRollMade) -> core.State:
    """Score the roll; an Endure Harm miss costs 1 momentum and may owe a debility or oracle."""
    rules = state.house
    c = character(state, event.actor, "actor")
    die = event.action_die
    if c.momentum < 0 and -c.momentum == die:
        die = 0  # negative momentum equal to the action die cancels it
    stat_value = c.value(event.stat)
    score = min(rules.score_cap, die + stat_value + event.adds)
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
    pending = {k: v for k, v in state.pending_harm.items() if k != c.name}
    owed = {k: v for k, v in state.owed.items() if k != c.name}
    if event.move == "endure_harm" and outcome == "miss":
        c = shift_momentum(c, -1, rules)
        if c.health == 0:
            owed[c.name] = seq
    state = state.model_copy(
        update={
            "pending_harm": pending,
            "owed": owed,
            "last_roll": {**state.last_roll, c.name: seq},
        }
    )
    return core.replace_combatant(core.add_roll(state, made), c)


def burn(state: IronswornState, seq: int, event: vocab.MomentumBurned) -> core.State:
    """Replace a roll's outcome using the momentum held at it; momentum becomes the reset."""
    c = character(state, event.target)
    made = state.roll_at(event.roll)
    if not isinstance(made, IronswornRoll):
        raise BadInput(f"momentum.burned names seq {event.roll}, which is not a roll")
    if made.actor != c.name:
        raise BadInput(
            f"momentum.burned: the roll at seq {event.roll} is {made.actor!r}'s, not {c.name!r}'s"
        )
    outcome = beaten(made.score, made.challenge, made.momentum)
    rolls = tuple(
        r.model_copy(update={"outcome": outcome, "burned": True}) if r.seq == made.seq else r
        for r in state.rolls
    )
    owed = dict(state.owed)
    if owed.get(c.name) is not None and (outcome != "miss" or owed[c.name] != made.seq):
        del owed[c.name]
    c = c.model_copy(update={"momentum": c.momentum_reset})
    state = state.model_copy(
        update={"rolls": rolls, "owed": owed, "burns": {**state.burns, made.seq: seq}}
    )
    return core.replace_combatant(state, settle(c, state.house))


def choose(state: IronswornState, seq: int, event: vocab.ChoiceMade) -> core.State:
    """Shake it off (-1 momentum, +1 health) or embrace the pain (+1 momentum)."""
    rules = state.house
    c = character(state, event.target)
    state = moved_on(state, c.name)
    if event.option == "embrace_the_pain":
        c = shift_momentum(c, 1, rules)
    else:
        if rules.strong_hit_text == "move":
            c = shift_momentum(c, -1, rules)
        wounded = "wounded" in c.debilities and rules.wounded_blocks_shake_it_off
        if not wounded:
            c = c.model_copy(update={"health": min(METER_MAX, c.health + 1)})
    on = state.last_roll.get(c.name)
    if on is not None:
        state = state.model_copy(
            update={
                "choices": {**state.choices, on: state.choices.get(on, seq)},
                "acted": {**state.acted, on: state.acted.get(on, seq)},
            }
        )
    return core.replace_combatant(state, c)


def _resolve_owed(state: IronswornState, name: str, seq: int) -> IronswornState:
    on = state.owed[name]
    return state.model_copy(
        update={
            "owed": {k: v for k, v in state.owed.items() if k != name},
            "acted": {**state.acted, on: state.acted.get(on, seq)},
        }
    )


def mark(state: IronswornState, seq: int, event: vocab.DebilityMarked) -> core.State:
    """Mark a debility; wounded or maimed newly marked settles a miss at 0 health."""
    c = character(state, event.target)
    if event.debility in c.debilities:
        return state
    if c.name in state.owed and event.debility in ("wounded", "maimed"):
        state = _resolve_owed(state, c.name, seq)
    c = c.model_copy(update={"debilities": (*c.debilities, event.debility)})
    return core.replace_combatant(state, settle(c, state.house))


def clear(state: IronswornState, seq: int, event: vocab.DebilityCleared) -> core.State:
    """Clear a debility (max momentum and reset rise again)."""
    c = character(state, event.target)
    kept = tuple(d for d in c.debilities if d != event.debility)
    return core.replace_combatant(
        state, settle(c.model_copy(update={"debilities": kept}), state.house)
    )


def oracle_tag(result: int) -> Condition:
    """The tag of an Endure Harm oracle result (1-100)."""
    return next(tag for top, tag in ORACLE if result <= top)


def consult(state: IronswornState, seq: int, event: vocab.OracleRolled) -> core.State:
    """The oracle's tag replaces any earlier oracle tag; it settles a miss at 0 health."""
    c = character(state, event.target)
    if c.name in state.owed:
        state = _resolve_owed(state, c.name, seq)
    kept = tuple(t for t in c.conditions if t not in ORACLE_TAGS)
    c = c.model_copy(update={"conditions": (*kept, oracle_tag(event.roll))})
    return core.replace_combatant(state, c)


def change(state: IronswornState, seq: int, event: vocab.MeterChanged) -> core.State:
    """Move a meter; momentum keeps its range, wounded/shaken/unprepared stop a meter rising."""
    c = character(state, event.target)
    if event.meter == "momentum":
        c = shift_momentum(c, event.amount, state.house)
    else:
        c = shift_meter(c, event.meter, event.amount)
    return core.replace_combatant(state, c)


def apply(state: core.State, seq: int, event: Any) -> core.State:
    """Fold an Ironsworn event."""
    assert isinstance(state, IronswornState)
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
        case _:
            return state


def adjust(state: core.State, seq: int, event: events.TrackAdjusted) -> core.State:
    """A GM override: max momentum and reset become offsets on their formulas; ranges hold."""
    rules = _house(state)
    c = state.combatant(event.target, "target")
    data = {**dict(c), event.track: event.value}
    if isinstance(c, Character) and event.track in ("max_momentum", "momentum_reset"):
        if not isinstance(event.value, int) or isinstance(event.value, bool):
            raise BadInput(f"track {event.track!r} of {event.target!r} takes a whole number")
        n = len(c.debilities)
        if event.track == "max_momentum":
            data["max_offset"] = event.value - (rules.momentum_max - n)
        else:
            data["reset_offset"] = event.value - rules.momentum_reset[min(n, 2)]
    try:
        updated = type(c).model_validate(data)
    except ValidationError as exc:
        raise BadInput(events.describe(exc, f"track {event.track!r} of {event.target!r}")) from exc
    if isinstance(updated, Character):
        settled = settle(
            updated.model_copy(update={"debilities": tuple(dict.fromkeys(updated.debilities))}),
            rules,
        )
        if settled.momentum != updated.momentum:
            raise BadInput(
                f"momentum {updated.momentum} of {event.target!r} is outside "
                f"{rules.momentum_min}..{settled.max_momentum}"
            )
        updated = settled
    return core.replace_combatant(state, updated)


def audit(before: core.State, seq: int, event: Any, after: core.State) -> Iterator[Finding]:
    """The Ironsworn rules (see `projections.ironsworn_audit`)."""
    return ironsworn_audit.audit(before, seq, event, after)


RULESET = core.Ruleset(
    key="ironsworn",
    rules=Rules,
    start=start,
    join=join,
    apply=apply,
    adjust=adjust,
    scene_end=scene_end,
    audit=audit,
)
