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
from typing import Annotated, Any, Final, Literal, assert_never

from pydantic import BaseModel, Field, ValidationError

from ledger import events
from ledger.errors import BadInput
from ledger.events import ssss as vocab
from ledger.events.common import Common
from projections import core
from projections.findings import Finding, error, info
from projections.played import as_played, delta, shown
from projections.values import EMPTY


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where the text is silent (NOTES.md 5.3)."""

    #: The text's "maximum of 3 Harm slots at each Level"; a table may allow fewer.
    max_per_tier: int = Field(default=3, ge=1, le=3)
    #: "Once their available Level 4 Harm is exhausted, further Harm defeats them": tier 4 only,
    #: and only where it is the top tier (a god's free tier-5 slots still hold harm).
    top_tier_exhaustion_defeats_on_any_harm: bool = False
    penalty_stacking: Literal["per_distinct_tier", "highest_only"] = "per_distinct_tier"
    pc_lethal_harm_level: int = Field(default=4, ge=1, le=10)


@core.value
class Slot(core.Value):
    """One tier of Harm slots."""

    filled: Annotated[int, Field(ge=0)]
    capacity: Annotated[int, Field(ge=0)]

    def check(self) -> None:
        """No more slots filled than the tier has."""
        # A GM override (track.adjusted) cannot fill more slots than the tier has.
        if self.filled > self.capacity:
            raise ValueError(f"{self.filled} filled slots exceed the tier's {self.capacity}")


@core.value
class Enemy(core.Combatant):
    """An enemy's Harm slots by tier, and its penalty count."""

    level: int
    slots: Mapping[str, Slot]
    penalties: Annotated[int, Field(ge=0)] = 0
    tags: tuple[str, ...] = ()


@core.value
class Player(core.Combatant):
    """A player: the harm levels recorded against them (after Grit), and the sheet as given.

    Harm at `pc_lethal_harm_level` or above defeats them; Grit that lessens every such injury
    below that level undoes the defeat.
    """

    harm: tuple[int, ...] = ()
    record: Mapping[str, Any] = EMPTY


@core.value
class ThrowRoll(core.Roll):
    """A Throw as entered: the attribute and the harm level it gave."""

    attribute: str | None = None
    harm_level: int | None = None


@core.value
class SsssState(core.State):
    """The encounter with its house rules read once."""

    combatants: Mapping[str, Enemy | Player] = EMPTY
    rolls: tuple[core.Roll | ThrowRoll, ...] = ()
    house: Rules = Rules()


def _check_layout(where: str, level: int, layout: Mapping[str, int], rules: Rules) -> None:
    """A slot layout (tier -> slots) within the level's maximum: 3 a tier (or the house
    rule's), up to the enemy's level; at joining and by a GM override alike."""
    most, text = vocab.max_slots(level, rules.max_per_tier), vocab.max_slots(level)
    for tier, count in layout.items():
        allowed = most.get(int(tier), 0)
        if count > allowed:
            house = " under the house rules" if count <= text.get(int(tier), 0) else ""
            raise BadInput(
                f"{where}: level {level} allows {allowed} slot(s) at tier {tier}{house}, "
                f"not {count}"
            )


def join(state: SsssState, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate stats and build an enemy (with its slot layout) or a player."""
    try:
        if event.side == "player":
            record = core.frozen_json(event.stats)
            return Player(name=event.name, side="player", joined=seq, record=record)
        stats = vocab.EnemyStats.model_validate_json(_json(event.stats))
    except ValidationError as exc:
        known = vocab.EnemyStats.model_fields
        raise BadInput(events.describe(exc, f"stats of {event.name!r}", known=known)) from exc
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
    )


def _json(value: Any) -> str:
    return json.dumps(value)


#: The tier of the text's "Level 4 Harm" (the Level 4 Enemies note).
LEVEL_4_TIER: Final = "4"


def free_tier(enemy: Enemy, level: int) -> int | None:
    """The text's placement: the lowest tier >= `level` with a free slot, or None."""
    for tier in sorted(enemy.slots, key=int):
        slot = enemy.slots[tier]
        if int(tier) >= level and slot.filled < slot.capacity:
            return int(tier)
    return None


def level_4_exhausted(enemy: Enemy, rules: Rules) -> bool:
    """Whether the literal reading defeats on any harm: tier 4 is the top tier, and full."""
    if not rules.top_tier_exhaustion_defeats_on_any_harm:
        return False
    top = max((int(t) for t, s in enemy.slots.items() if s.capacity > 0), default=None)
    slot = enemy.slots.get(LEVEL_4_TIER)
    return top == int(LEVEL_4_TIER) and slot is not None and slot.filled >= slot.capacity


def place(enemy: Enemy, level: int, rules: Rules) -> int | None:
    """The tier Harm of `level` lands in, or None (defeated): `free_tier`, unless the house
    rule finds the enemy's Level 4 Harm exhausted."""
    if level_4_exhausted(enemy, rules):
        return None
    return free_tier(enemy, level)


def _penalties(slots: Mapping[str, Slot], rules: Rules) -> int:
    held = [t for t, s in slots.items() if s.filled > 0]
    if rules.penalty_stacking == "highest_only":
        return min(1, len(held))
    return len(held)


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
        hurt = core.replace(target, slots=slots, penalties=_penalties(slots, rules))
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
                yield info(
                    "slot-placement",
                    (seq,),
                    f"harm {event.level} on {event.target!r} rises to tier {tier}: "
                    f"no free slot at tier {event.level}",
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
        penalties = _penalties(target.slots, state.house)
        state = core.replace_combatant(state, core.replace(target, penalties=penalties))
    return state


class Ssss(core.Ruleset[SsssState, vocab.Events]):
    """Stones, Scrolls, Swords and Sorcery: Enemy Levels and Harm slots."""

    key = "ssss"
    rules = Rules
    state = SsssState

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
        """The event in words (`projections.ssss_words`, which reads this module's models)."""
        from projections import ssss_words

        return ssss_words.explain(before, seq, event, after)


RULESET = Ssss()
