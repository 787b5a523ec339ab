"""The Ironsworn model: the oracle table, meters, house rules, characters, foes, rolls and state.

The fold (`projections.ironsworn`) and the audit (`projections.ironsworn.audit`) share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Annotated, ClassVar, Final, Literal, cast

from pydantic import BaseModel, Field, field_validator

from ledger.errors import BadInput
from ledger.events.frozen import FrozenDict
from projections import core
from projections.ironsworn import events as vocab
from projections.ironsworn.shown import TRACKS, move_name
from projections.shown import Readings
from projections.values import EMPTY, Hidden
from projections.words import plain

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
BLOCKS: Final[Mapping[str, str]] = MappingProxyType(
    {"health": "wounded", "spirit": "shaken", "supply": "unprepared"}
)
METER_MAX: Final = 5


#: Harm by foe rank (Enter the Fray / Endure Harm guidance).
RANK_HARM: Final[Mapping[vocab.Rank, int]] = MappingProxyType(
    {
        "troublesome": 1,
        "dangerous": 2,
        "formidable": 3,
        "extreme": 4,
        "epic": 5,
    }
)


def _read_only(ranks: Mapping[vocab.Rank, int]) -> Mapping[vocab.Rank, int]:
    # A read-only dict (pydantic dumps it as the object it is; a MappingProxyType it cannot).
    return cast(Mapping[vocab.Rank, int], FrozenDict(ranks.items()))


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 5.2, 'Configurable defaults')."""

    edition: Literal["classic"] = "classic"
    harm_default: int = Field(2, ge=0)
    rank_harm: Mapping[vocab.Rank, Annotated[int, Field(ge=0)]] = Field(
        default_factory=lambda: _read_only(RANK_HARM)
    )
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
        # An override names the ranks it changes; the others keep the book's harm. Read-only,
        # as all a state holds (a dict subclass, which pydantic dumps as the object it is).
        return _read_only({**RANK_HARM, **value})


#: A meter's value: 0 to 5.
Meter = Annotated[int, Field(ge=0, le=METER_MAX)]


@core.value
class Character(core.Combatant):
    """A character's meters, momentum, debilities and oracle tags (stats kept internal)."""

    health: Meter
    spirit: Meter
    supply: Meter
    momentum: int
    max_momentum: int
    momentum_reset: int
    debilities: tuple[vocab.Debility, ...] = ()
    conditions: tuple[Condition, ...] = ()
    stats: Hidden[Mapping[str, int]] = EMPTY
    # A GM's adjustment of max momentum or reset (an asset) is kept as an offset on the formula.
    max_offset: Hidden[int] = 0
    reset_offset: Hidden[int] = 0

    def value(self, stat: str) -> int:
        """The current value of a stat or meter."""
        if stat in ("health", "spirit", "supply"):
            meter: int = getattr(self, stat)
            return meter
        return self.stats[stat]


@core.value
class Foe(core.Combatant):
    """A foe: only its rank matters to Endure Harm."""

    rank: vocab.Rank


@core.value
class IronswornRoll(core.Roll):
    """An action roll with its score, match flag and burn; dice and momentum kept internal."""

    move: str
    stat: str
    score: int
    match: bool
    burned: bool = False
    stat_value: Hidden[int]
    action_die: Hidden[int]
    challenge: Hidden[tuple[int, int]]
    momentum: Hidden[int]
    health: Hidden[int]

    def describe(self) -> str:
        """The outcome and how it came, as the replay tells the roll: `weak hit (Endure Harm
        +iron: score 4 vs 2, 7)`, a match and a burn said when they are so."""
        first, second = self.challenge
        told = [f"{move_name(self.move)} +{self.stat}: score {self.score} vs {first}, {second}"]
        if self.match:
            told.append("a match")
        if self.burned:
            told.append("momentum burned")
        return f"{plain(str(self.outcome))} ({', '.join(told)})"


@core.value
class IronswornState(core.State):
    """The encounter, plus what the audit must remember across events."""

    readings: ClassVar[Readings] = TRACKS
    combatants: Mapping[str, Character | Foe] = EMPTY
    rolls: Sequence[IronswornRoll] = ()
    house: Rules = field(default_factory=Rules)
    #: character -> seq of the harm still waiting for its Endure Harm roll
    pending_harm: Mapping[str, int] = EMPTY
    #: character -> seq of their latest roll
    last_roll: Mapping[str, int] = EMPTY
    #: roll seq -> seq of the first event that acted on its outcome (choice, debility, oracle)
    acted: Mapping[int, int] = EMPTY
    #: roll seq -> seq of the strong-hit choice made on it
    choices: Mapping[int, int] = EMPTY
    #: roll seq -> seq of the burn on it
    burns: Mapping[int, int] = EMPTY
    #: character -> seq of an Endure Harm miss at 0 health still owing a debility or the oracle
    owed: Mapping[str, int] = EMPTY


def settle(c: Character, rules: Rules) -> Character:
    """Max momentum and reset from the debilities; momentum held within its range."""
    n = len(c.debilities)
    top = rules.momentum_max - n + c.max_offset
    reset = rules.momentum_reset[min(n, 2)] + c.reset_offset
    momentum = max(rules.momentum_min, min(c.momentum, top))
    return core.replace(c, max_momentum=top, momentum_reset=reset, momentum=momentum)


def character(state: core.State, name: str, role: str = "target") -> Character:
    """The named character, or bad input (unknown name, or a foe: foes have no meters)."""
    c = state.combatant(name, role)
    if not isinstance(c, Character):
        raise BadInput(f"{name!r} is a foe; foes have no health or momentum in Ironsworn")
    return c


def shake_blocked(c: Character, rules: Rules) -> Literal["wounded", "no_health"] | None:
    """Why shaking it off cannot raise health now: `wounded` (when the house rules let the
    wound block it) or `no_health` (0 health, under the move's "if your health is greater than
    0"); None when it can. The fold, its words and the audit's reminder ask this one question."""
    if "wounded" in c.debilities and rules.wounded_blocks_shake_it_off:
        return "wounded"
    if rules.strong_hit_text == "move" and c.health == 0:
        return "no_health"
    return None


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
    return core.replace(c, momentum=momentum, conditions=conditions)


def shift_meter(c: Character, meter: str, delta: int) -> Character:
    """Raise or lower a meter within 0..5; a blocking debility stops it rising."""
    now: int = getattr(c, meter)
    if delta > 0 and BLOCKS[meter] in c.debilities:
        return c
    return core.replace(c, **{meter: max(0, min(METER_MAX, now + delta))})


def action_score(rules: Rules, momentum: int, action_die: int, stat: int, adds: int) -> int:
    """The action score: the action die (cancelled, 0, by negative momentum equal to it) plus
    the stat and adds, capped at `score_cap`."""
    die = 0 if momentum < 0 and -momentum == action_die else action_die
    return min(rules.score_cap, die + stat + adds)


def beaten(score: int, challenge: tuple[int, int], momentum: int | None = None) -> Outcome:
    """Strong hit beating both dice, weak hit one, miss none; a burn cancels dice below it."""
    hits = sum(1 for d in challenge if d < score or (momentum is not None and d < momentum))
    return ("miss", "weak_hit", "strong_hit")[hits]


def oracle_tag(result: int) -> Condition:
    """The tag of an Endure Harm oracle result (1-100)."""
    return next(tag for top, tag in ORACLE if result <= top)


def harm_amount(state: IronswornState, event: vocab.IronswornHarmSuffered) -> int:
    """The harm: `amount`, else `rank`'s, else the foe's rank's, else the default."""
    rules = state.house
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
