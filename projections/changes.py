"""What differs between two states: the tracks (and pools) an event, a step or a ruling
changed, as `replay`, the words, the reports and the downstream diff all show them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import JsonValue

from projections import values
from projections.core import Combatant, State
from projections.shown import Reading, Readings
from projections.values import Value, builtins

#: The name a change of a pool goes by, in place of a combatant's (no combatant may take it).
POOLS: Final = "pools"


@values.value
class Change(Value):
    """One track that differs between two states."""

    combatant: str
    track: str
    before: JsonValue
    after: JsonValue

    def document(self) -> dict[str, Any]:
        """The change as JSON data (`{"combatant", "track", "before", "after"}`)."""
        document: dict[str, Any] = builtins(self)
        return document

    def reading(self, readings: Readings) -> Reading | None:
        """How this track reads in its system (`readings`); None: generically, as a pool does."""
        return None if self.combatant == POOLS else readings.get(self.track)


def _tracks(state: State | None) -> tuple[Mapping[str, Combatant], Mapping[str, int]]:
    if state is None:
        return {}, {}
    return state.combatants, state.pools


def changes(before: State | None, after: State) -> list[Change]:
    """Tracks (and pools, under the name `pools`) that differ from `before` to `after`."""
    # Only combatants the fold replaced can differ (an untouched one is the same object), and
    # rolls are not tracks: this runs on every replay step, so it must not grow with the stream.
    old, old_pools = _tracks(before)
    new, new_pools = _tracks(after)
    out: list[Change] = []
    for name, combatant in new.items():
        if name not in old:
            out.append(Change(combatant=name, track="status", before=None, after=combatant.status))
            continue
        if old[name] is combatant or old[name] == combatant:
            # Equal tracks need no views: two folds of one stream hold equal, distinct copies.
            continue
        was, tracks = old[name].view(), combatant.view()
        for track, value in tracks.items():
            if track == "side":
                continue
            if was.get(track) != value:
                out.append(Change(combatant=name, track=track, before=was.get(track), after=value))
        # Tracks the combatant no longer has (an amend that changed its side, say).
        for track, value in was.items():
            if track not in tracks:
                out.append(Change(combatant=name, track=track, before=value, after=None))
    for name, gone in old.items():
        if name not in new:
            out.append(Change(combatant=name, track="status", before=gone.status, after=None))
    for pool, value in new_pools.items():
        if old_pools.get(pool) != value:
            out.append(Change(combatant=POOLS, track=pool, before=old_pools.get(pool), after=value))
    return out
