"""Game time: the round and scene each event happened in (`round.started`, or its own fields)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ledger import events
from projections.shown import Scene as Scene
from projections.shown import when as when


def stamps(
    records: Iterable[events.Recorded], gone: frozenset[int] = frozenset()
) -> Iterator[tuple[events.Recorded, int | None, Scene]]:
    """Each record with its round and scene: its own, else the latest effective `round.started`
    (or rewind, which puts the game back in its round) before it (one in `gone` sets nothing)."""
    round_: int | None = None
    scene: Scene = None
    for record in records:
        event = record.event
        if isinstance(event, events.RoundStarted | events.EncounterRewound) and (
            record.seq not in gone
        ):
            round_ = event.round
            scene = event.scene if event.scene is not None else scene
        yield (
            record,
            event.round if event.round is not None else round_,
            event.scene if event.scene is not None else scene,
        )


def scene_of(text: str | None) -> Scene:
    """A scene as given on a command line: a whole number is stored as one, else the text."""
    if text is None:
        return None
    return int(text) if text.isdigit() and text.isascii() else text
