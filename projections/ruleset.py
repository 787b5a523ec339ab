"""The seam between the core and a rule system: a generic ruleset over its state and events.

The core folds the events every system shares and hands a system's own events to its ruleset's
`apply`, typed by the system's state class and event union, so `mypy --strict` checks each
ruleset's `match` (ending in `assert_never`) against the events it must handle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from ledger import events
from ledger.errors import BadInput
from ledger.events.base import code_of
from ledger.events.common import Common
from projections.charts import Measure
from projections.findings import Finding, Obligation
from projections.odds import Odds
from projections.state import Combatant, Roll, State
from projections.values import builtins, fields_of

S = TypeVar("S", bound=State)
E = TypeVar("E")


class Ruleset(ABC, Generic[S, E]):
    """One rule system: its key, its house-rule table, its state, and what its events do.

    `start` builds the system's state from the common one, with the house rules parsed once as
    `house`; `join` validates stats and builds a combatant; `apply` folds the system's own events
    (`E`); `adjust` applies a GM override; `scene_end` applies scene-end recovery; `audit` yields
    the findings one event raises, given the states before and after it. `explain` tells one
    event in words (None: the common words of `projections.words` serve). `obligations` names
    each obligation still open (the audit shows it as an `obligation-open` reminder at the seq
    that opened it while it is open, and drops it once met). `rescores` names the earlier roll an
    event changes the outcome of (a momentum burn). `touches` says, for each combatant, what an
    event did to each track it touched, even one that ended where it started (`history`).
    `stats` names the stat block of each side (`add --help` lists its keys); `refines` says
    which of its rules says more about a mistake than another rule that sees it too
    (`projections.audit.one_per_mistake`).
    `hurt`, `dealer`, `cleared` and `odds` feed the statistics: what of a combatant counts as
    damage, who dealt an event's damage, what the rules cleared (neither damage nor recovery),
    and the chances of a roll's outcomes.
    """

    #: The system's key, as `encounter.opened` names it.
    key: str
    #: The house-rule table: the defaults where the texts are silent, pinned at opening.
    rules: type[BaseModel]
    #: The system's state, which `start` builds and every other method is given (its class
    #: says how its tracks read: `State.readings`).
    state: type[S]
    #: The union of the system's own events (`E`); with the common ones, every event an
    #: encounter of the system accepts.
    own_events: Any
    #: Its own event types that hurt, tire or test a combatant (`event-after-defeat`).
    attrition: frozenset[str] = frozenset()
    #: The stat block of each side (`player`, `adversary`): the model its `join` validates
    #: `combatant.joined`'s stats with, whose fields `add --help` and a stat error list.
    stats: Mapping[str, type[BaseModel]] = MappingProxyType({})
    #: rule -> the rules it outranks: when both see one mistake in one event, its finding is
    #: the one kept (`projections.audit.one_per_mistake`).
    refines: Mapping[str, frozenset[str]] = MappingProxyType({})
    #: The event types that are a combatant's rolls: what the default policy lets a player
    #: record for a combatant they play (`projections.policy`).
    rolls: frozenset[str] = frozenset({"roll.made"})
    #: House rules added after tables were pinned without them, each with the value those
    #: tables were played by: a stored table that lacks one gets it when it is read
    #: (`pinned_rules(..., as_played=True)`), so that an older file folds as it did.
    rules_added: Mapping[str, Any] = MappingProxyType({})

    def start(self, opened: State) -> S:
        """The system's initial state: the common one, with the pinned house rules parsed."""
        house = self.rules.model_validate(builtins(opened.rules))
        made: S = self.state(**{**fields_of(opened), "house": house})
        return made

    @abstractmethod
    def join(self, state: S, seq: int, event: events.CombatantJoined) -> Combatant:
        """The combatant that `event` adds, its stats validated."""

    @abstractmethod
    def apply(self, state: S, seq: int, event: E) -> S:
        """The state after one of the system's own events."""

    @abstractmethod
    def adjust(self, state: S, seq: int, event: events.TrackAdjusted) -> S:
        """The state after a GM's override of one track."""

    @abstractmethod
    def audit(self, before: S, seq: int, event: Common | E, after: S) -> Iterable[Finding]:
        """The findings one event raises, given the states before and after it."""

    def scene_end(self, state: S, seq: int) -> S:
        """Scene-end recovery (by default none)."""
        return state

    def explain(self, before: S | None, seq: int, event: Common | E, after: S) -> str | None:
        """The event in the system's words, or None for the common words."""
        return None

    def obligations(self, state: S) -> Iterable[Obligation]:
        """Each obligation of the system's rules still open in `state` (the audit reminds of
        it while it is open: `projections.audit.reminders`)."""
        return ()

    def rescores(self, event: Common | E) -> int | None:
        """The seq of the earlier roll whose outcome `event` changes, if any."""
        return None

    def touches(
        self, before: S | None, seq: int, event: Common | E, after: S
    ) -> Mapping[str, Mapping[str, str]]:
        """Combatant -> track -> what `event` did to it, for tracks it touched."""
        return {}

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """What the report charts of a combatant, from its tracks (`view()`): by default
        nothing but its changes."""
        return ()

    def condition(self, view: Mapping[str, Any]) -> str | None:
        """How a combatant still in the fight stands where its status does not say it (an
        L5R character `incapacitated`), from its tracks: the report marks where it began."""
        return None

    def hurt(self, combatant: Combatant) -> Mapping[str, int]:
        """What of a combatant grows as it is hurt, by track (Resilience lost, Fatigue marked,
        slots filled): the statistics count each step's rise as damage taken and each fall as
        recovered. By default nothing."""
        return {}

    def dealer(self, before: S, seq: int, event: Common | E, after: S) -> str | None:
        """Who dealt the damage `event` did, where the events say: a combatant (its stake's
        roller, the foe it names), or a source that is none, by name (a weapon: the
        statistics credit it apart); None when they do not."""
        return None

    def cleared(
        self, before: S, seq: int, event: Common | E, after: S
    ) -> Mapping[str, Mapping[str, int]]:
        """What the rules cleared at `event` that is neither damage nor recovery, by combatant
        and track (a Fate's Edge Fatigue track that overflowed and reset): the statistics
        count what was marked as taken and this as cleared, not recovered. By default
        nothing."""
        return {}

    def odds(self, before: S, event: Common | E, roll: Roll) -> Odds | None:
        """The chances the dice gave `roll` (made by `event`, on the state `before` it), exactly;
        None where the ledger does not read the dice."""
        return None


#: A ruleset of any system, as the core and the registry hold them.
AnyRuleset = Ruleset[Any, Any]


def pinned_rules(
    ruleset: AnyRuleset, overrides: Mapping[str, Any], *, as_played: bool = False
) -> dict[str, Any]:
    """The full house-rule table: the system's defaults with `overrides` applied and checked.
    `as_played`: `overrides` is a table stored before, whose missing rules (added since) take
    the values such tables were played by (`played_by`), not today's defaults."""
    if as_played:
        overrides = played_by(ruleset, overrides)
    try:
        # Strict, as JSON: a house rule is data from a file, so "yes" is not a boolean.
        table = ruleset.rules.model_validate_json(to_json(dict(overrides)), strict=True)
    except ValidationError as exc:
        raise BadInput(
            events.describe(exc, f"{ruleset.key} rules", known=ruleset.rules.model_fields),
            code=code_of(exc, "unknown-rule"),
        ) from exc
    return table.model_dump(mode="json")


def played_by(ruleset: AnyRuleset, pinned: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pinned house-rule table with the rules its system added since it was pinned, each at
    the value such tables were played by (`Ruleset.rules_added`): an older file folds as it
    did. Every table the ledger stores is whole (`pinned_rules` at the write), so only a table
    pinned before a rule existed lacks it; an empty one (no table given) takes the defaults."""
    added = {k: v for k, v in ruleset.rules_added.items() if pinned and k not in pinned}
    return {**pinned, **added} if added else pinned
