"""Who may record what at the table: an encounter's policy table, pinned in its stream like the
house rules (`encounter.opened`'s `policy`, then each `policy.changed`).

An encounter opened by a named user has roles: its GMs (the opener, and whoever a
`policy.changed` adds) may record anything; a player (the user a combatant names as its
`player`) may record the event types of `players_own` for a combatant they play, and those of
`players_any`; nobody else may record anything, and every act names who records it. An
encounter opened by nobody named has no policy: anyone records anything (the GM's notebook).
`hidden` names the tracks, by side, that only the GMs see (the live page never sends them).
`projections.acts` judges one act by it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal

from pydantic import BaseModel, Field, ValidationError
from pydantic_core import to_json

from ledger import events
from ledger.errors import BadInput
from ledger.events.base import Name, code_of

Side = Literal["player", "adversary"]


class Policy(BaseModel, frozen=True, extra="forbid", strict=True, defer_build=True):
    """The policy table: who is a GM, what a player may record, which tracks are the GMs'."""

    #: The users who are GMs (the opener first): they record anything, in anyone's name.
    gms: tuple[Name, ...] = ()
    #: Event types a player records for a combatant they play (default: the system's rolls).
    players_own: tuple[str, ...] = ()
    #: Event types any player records.
    players_any: tuple[str, ...] = ("proposal.made",)
    #: Tracks only the GMs see, by side (`{"adversary": ["resilience"]}`): never on the page.
    hidden: Mapping[Side, tuple[str, ...]] = Field(default_factory=dict)

    def is_gm(self, user: str | None) -> bool:
        """Whether `user` is a GM of the encounter."""
        return user is not None and user in self.gms

    def hides(self, side: str, track: str) -> bool:
        """Whether `track` of a combatant on `side` is for the GMs only."""
        return track in self.hidden.get(side, ())  # type: ignore[call-overload]

    def table(self) -> dict[str, Any]:
        """The table as JSON data (what an event pins)."""
        return self.model_dump(mode="json")


#: The policy keys and what each means (`encounter policy` and docs/live-table.md list them).
KEYS: Final = MappingProxyType(
    {
        "gms": "the users who are GMs: they record anything, in anyone's name",
        "players_own": "event types a player records for a combatant they play",
        "players_any": "event types any player records",
        "hidden": "tracks only the GMs see, by side: the live page never sends them",
    }
)


def parse(table: Mapping[str, Any]) -> Policy:
    """A policy table read (bad input naming what is wrong)."""
    try:
        return Policy.model_validate_json(to_json(dict(table)))
    except ValidationError as exc:
        raise BadInput(
            events.describe(exc, "policy", known=list(KEYS)), code=code_of(exc, "bad-input")
        ) from exc
