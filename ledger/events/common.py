"""Events common to all four systems (DESIGN.md section 4, 'Common to all systems')."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, JsonValue, model_validator

from ledger.events.base import MAX_AMOUNT, EventBase, Name, Seq, Side, SystemKey, Text
from ledger.events.frozen import Json, JsonObject, frozen_object

#: A SHA-256 digest, or a dice seed, as lowercase hex.
Hex64 = Annotated[str, Field(pattern="^[0-9a-f]{64}$")]

Manner = Literal["defeated", "fled", "surrendered", "bargained", "escaped", "resolved", "other"]


class EncounterOpened(EventBase, frozen=True):
    """Seq 1 of every encounter: its system and the full house-rule table in force, and the
    policy (who may record what: `projections.policy`) when the encounter has roles."""

    type: Literal["encounter.opened"] = "encounter.opened"
    system: SystemKey
    title: Text | None = None
    rules: JsonObject = Field(default={}, validate_default=True)
    #: The full policy table in force (None: no roles, anyone records anything: a notebook).
    policy: JsonObject | None = None

    def pinning(self, table: Mapping[str, JsonValue]) -> EncounterOpened:
        """This opening with `table` (the full house-rule table in force) as its rules,
        read-only as a parsed event's (a copy with an update validates nothing)."""
        return self.model_copy(update={"rules": frozen_object(table)})


class CombatantJoined(EventBase, frozen=True):
    """A combatant enters; `stats` are validated by the system's ruleset."""

    type: Literal["combatant.joined"] = "combatant.joined"
    name: Name
    side: Side
    stats: JsonObject = Field(default={}, validate_default=True)
    #: The user who plays it (a player records rolls for it where the policy lets them).
    player: Name | None = None


class CombatantLeft(EventBase, frozen=True):
    """A combatant stops opposing without (or beyond) attrition."""

    type: Literal["combatant.left"] = "combatant.left"
    name: Name
    manner: Manner
    note: Text | None = None


class StakesLocked(EventBase, frozen=True):
    """Frames a roll: what the actor intends and what it costs on a failure; immutable."""

    type: Literal["stakes.locked"] = "stakes.locked"
    stake: Name
    actor: Name
    intent: Text | None = None
    consequence: Text | None = None
    target: Name | None = None


class RollMade(EventBase, frozen=True):
    """A roll in a system without its own dice fields; `outcome` is the table's claim."""

    type: Literal["roll.made"] = "roll.made"
    stake: Name | None = None
    actor: Name | None = None
    outcome: Name | None = None

    @model_validator(mode="after")
    def _someone_rolls(self) -> RollMade:
        if self.actor is None and self.stake is None:
            raise ValueError("a roll names its actor (or the stake it resolves)")
        return self


class EventRetracted(EventBase, frozen=True):
    """Undo: removes `target` from the effective stream; retracting a retraction is a redo."""

    type: Literal["event.retracted"] = "event.retracted"
    target: Seq
    reason: Text
    #: Which command made it: `redo` looks for the last `undo` still in effect, so a second
    #: redo finds nothing rather than undoing the first. An `amend` retraction is followed by
    #: the corrected copy of its target: it is undone by undoing that copy, never redone alone.
    kind: Literal["undo", "redo", "amend"] = "undo"


class EventCorrected(EventBase, frozen=True):
    """A correction: the fold reads `target` with `fields` changed, at the target's own seq."""

    type: Literal["event.corrected"] = "event.corrected"
    target: Seq
    reason: Text
    #: The fields to change (null removes one; a nested object changes only the keys given).
    fields: JsonObject

    @model_validator(mode="after")
    def _changes_fields(self) -> EventCorrected:
        if not self.fields:
            raise ValueError("a correction names at least one field to change")
        if "type" in self.fields:
            raise ValueError("a correction keeps the event's type; undo it and record another")
        return self


class TrackAdjusted(EventBase, frozen=True):
    """A GM's deliberate override of one track, applied as given."""

    type: Literal["track.adjusted"] = "track.adjusted"
    target: Name
    track: Name
    value: Json
    reason: Text


class TracksNoted(EventBase, frozen=True):
    """What the table's sheet said at this point; not applied, compared by the audit."""

    type: Literal["tracks.noted"] = "tracks.noted"
    target: Name
    values: JsonObject


class RoundStarted(EventBase, frozen=True):
    """Game time: later events of the encounter are stamped with this round (and scene)."""

    type: Literal["round.started"] = "round.started"
    round: Annotated[int, Field(ge=0, le=MAX_AMOUNT)]


class SceneEnded(EventBase, frozen=True):
    """The scene ends: scene-end recovery where the system has it."""

    type: Literal["scene.ended"] = "scene.ended"


class Note(EventBase, frozen=True):
    """Free text for the record."""

    type: Literal["note"] = "note"
    text: Text


#: Event types a proposal may not propose: they open, revise, rule or set the policy.
UNPROPOSABLE = frozenset(
    {
        "encounter.opened",
        "event.retracted",
        "event.corrected",
        "proposal.made",
        "proposal.accepted",
        "proposal.rejected",
        "policy.changed",
        "encounter.rewound",
        "dice.committed",
        "dice.revealed",
    }
)


class ProposalMade(EventBase, frozen=True):
    """A player's proposal of an event (its body, `type` included): it changes nothing until a
    GM accepts it (`proposal.accepted`), and is closed by a rejection."""

    type: Literal["proposal.made"] = "proposal.made"
    event: JsonObject

    @model_validator(mode="after")
    def _proposes_an_event(self) -> ProposalMade:
        kind = self.event.get("type")
        if not isinstance(kind, str):
            raise ValueError("a proposal's event names its type (event.type)")
        if kind in UNPROPOSABLE:
            raise ValueError(f"{kind} cannot be proposed: only a table fact can")
        return self


class ProposalAccepted(EventBase, frozen=True):
    """A GM applies the proposal at `target`, with `fields` changed (as a correction merges
    them), at this event's own position."""

    type: Literal["proposal.accepted"] = "proposal.accepted"
    target: Seq
    fields: JsonObject | None = None

    @model_validator(mode="after")
    def _keeps_the_type(self) -> ProposalAccepted:
        if self.fields is not None and "type" in self.fields:
            raise ValueError("an acceptance keeps the proposed type; reject it instead")
        return self


class ProposalRejected(EventBase, frozen=True):
    """A GM closes the proposal at `target` without applying it."""

    type: Literal["proposal.rejected"] = "proposal.rejected"
    target: Seq
    reason: Text


class PolicyChanged(EventBase, frozen=True):
    """The policy in force from here on (the full table, pinned as `encounter.opened` pins
    one): who is a GM, what a player may record, which values are the GM's only."""

    type: Literal["policy.changed"] = "policy.changed"
    policy: JsonObject
    reason: Text | None = None


class EncounterRewound(EventBase, frozen=True):
    """Back to the end of round `round`, as one act: every effective event of play recorded
    after seq `after` (the last event of play in that round) is set aside; undone as one.

    Retractions, corrections, rewinds and dice commitments are not play: they stay in force.
    `after` is filled in when the rewind is recorded, so the standing is read from the log.
    """

    type: Literal["encounter.rewound"] = "encounter.rewound"
    round: Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
    reason: Text
    after: Seq | None = None


class DiceCommitted(EventBase, frozen=True):
    """The SHA-256 `digest` of a secret seed kept outside the file: the dice the ledger rolls
    from here on derive from it (`ledger.dice`), and its reveal lets anyone check them."""

    type: Literal["dice.committed"] = "dice.committed"
    digest: Hex64
    #: The name the dice are derived under (the encounter's when committed), so that a copy
    #: under another name still verifies.
    encounter_name: Name | None = None


class DiceRevealed(EventBase, frozen=True):
    """The seed of the open commitment, revealed: every ledger-rolled die can be recomputed."""

    type: Literal["dice.revealed"] = "dice.revealed"
    seed: Hex64


class LedgerRolled(EventBase, frozen=True):
    """A base of the events that carry dice the ledger may roll (`--roll`): `ledger_rolled`
    names each field it rolled and the dice's sides, `{"dice": 10}`; its absence means the
    faces were given (typed, or rolled by the command line)."""

    ledger_rolled: (
        Annotated[
            dict[Name, Annotated[int, Field(ge=2, le=1000)]],
            Field(min_length=1),
            AfterValidator(frozen_object),
        ]
        | None
    ) = None


Common = (
    EncounterOpened
    | CombatantJoined
    | CombatantLeft
    | EventRetracted
    | EventCorrected
    | TrackAdjusted
    | TracksNoted
    | RoundStarted
    | SceneEnded
    | Note
    | ProposalMade
    | ProposalAccepted
    | ProposalRejected
    | PolicyChanged
    | EncounterRewound
    | DiceCommitted
    | DiceRevealed
)
