"""Fate's Edge events and stat blocks (rules/adversary-resolution.txt)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from ledger.events.base import (
    Amount,
    EventBase,
    Model,
    Name,
    Positive,
    SignedAmount,
    Text,
    own_source_in_place,
)
from ledger.events.common import LedgerRolled, StakesLocked
from ledger.events.frozen import frozen_object

Armor = Literal["none", "light", "medium", "heavy"]
Position = Literal["desperate", "controlled", "dominant"]
Effect = Literal["limited", "standard", "great"]
StakeSource = Literal["player", "sb_attack", "sb_move", "opportunity", "consequence"]
#: An action the player takes, or a defense against an adversary's threat.
StakeKind = Literal["action", "defense"]
#: What an SB spend buys.
Purpose = Literal["attack", "move", "complication", "shape"]
Die = Annotated[int, Field(ge=1, le=10)]
#: The most d10s one roll may hold.
MOST_DICE: Final = 40


class Move(Model, frozen=True):
    """A named adversary move: its SB cost, when it may be used, and whether it is free."""

    name: Name
    cost: Amount = 1
    trigger: Text | None = None
    free: bool = False
    #: The move expressly bypasses a defense (its Harm lands without a failed response).
    unavoidable: bool = False


class AdversaryStats(Model, frozen=True):
    """An adversary's stat block; `resilience` null makes it a puzzle with a `resolution`."""

    resilience: Amount | None
    fatigue_capacity: Positive | Name | None = None
    armor: Armor = "none"
    harm: Amount | None = None
    phases: tuple[Positive, ...] = ()
    moves: tuple[Move, ...] = ()
    pool: Amount | None = None
    resolution: Text | None = None
    attributes: Annotated[Mapping[Name, Amount], AfterValidator(frozen_object)] = Field(
        default={}, validate_default=True
    )
    tl: Amount | None = None
    #: Its rules say excess damage crosses into the next phase (None: the encounter's rule).
    carry_excess: bool | None = None

    @model_validator(mode="after")
    def _complete(self) -> AdversaryStats:
        if self.resilience is None:
            if not self.resolution:
                raise ValueError("a puzzle adversary (resilience null) needs a 'resolution'")
            return self
        cap = self.fatigue_capacity
        if cap is None:
            raise ValueError("an adversary with resilience needs 'fatigue_capacity'")
        if isinstance(cap, str) and cap not in self.attributes:
            known = ", ".join(self.attributes) or "none"
            raise ValueError(f"fatigue_capacity names attribute {cap!r} (attributes: {known})")
        return self

    def capacity(self) -> int:
        """The Fatigue capacity as a number, reading a governing attribute when one is named."""
        cap = self.fatigue_capacity
        if isinstance(cap, str):
            return max(1, self.attributes[cap])
        return cap if cap is not None else 1


class PlayerStats(Model, frozen=True):
    """A player character: worn armor and `body`, the size of the Fatigue track."""

    armor: Armor = "none"
    body: Positive | None = None


class Partial(Model, frozen=True):
    """The lesser progress (or protection) a Partial grants, declared before the roll."""

    harm: Amount | None = None
    text: Text | None = None


class FEStakesLocked(StakesLocked, frozen=True):
    """Stakes of a Fate's Edge test: Position, DV, Effect, Harm and the Partial, fixed now."""

    kind: StakeKind = "action"
    opposing: Name | None = None
    position: Position = "controlled"
    dv: Annotated[int, Field(ge=1, le=20)] | None = None
    effect: Effect = "standard"
    harm: Amount | None = None
    effect_harm: SignedAmount | None = None
    #: The Harm the named consequence deals the actor if the response fails.
    consequence_harm: Amount | None = None
    partial: Partial | None = None
    # This event's own `source` (older than the envelope's, DESIGN 4) keeps its meaning here:
    # the event cannot carry where it was imported from.
    source: StakeSource = "player"  # type: ignore[assignment]
    move: Name | None = None

    @model_serializer(mode="wrap")
    def _own_source_in_place(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return own_source_in_place(self, handler, after="partial")


class FERollMade(LedgerRolled, frozen=True):
    """A Fate's Edge roll: the d10 faces of the pool for a locked stake."""

    type: Literal["roll.made"] = "roll.made"
    stake: Name
    actor: Name | None = None
    dice: Annotated[tuple[Die, ...], Field(min_length=1, max_length=MOST_DICE)]
    outcome: Literal["success", "partial", "miss"] | None = None


class HitResolved(EventBase, frozen=True):
    """Harm lands on a target (usually an adversary) for a stake."""

    type: Literal["hit.resolved"] = "hit.resolved"
    target: Name
    stake: Name | None = None
    harm: Amount
    ignore_armor: Amount | Literal["all"] = 0


class FatigueMarked(EventBase, frozen=True):
    """Fatigue marked directly (not through armor), with one overflow check."""

    type: Literal["fatigue.marked"] = "fatigue.marked"
    target: Name
    amount: Positive
    cause: Text | None = None


class SBSpent(EventBase, frozen=True):
    """The GM spends Story Beats."""

    type: Literal["sb.spent"] = "sb.spent"
    amount: Positive
    purpose: Purpose
    move: Name | None = None
    stake: Name | None = None


class FEHarmSuffered(EventBase, frozen=True):
    """A player suffers the consequence of a failed response."""

    type: Literal["harm.suffered"] = "harm.suffered"
    target: Name
    stake: Name
    harm: Amount


Events = FEStakesLocked | FERollMade | HitResolved | FatigueMarked | SBSpent | FEHarmSuffered
