"""Game time: the round and scene each event happened in (`round.started`, or its own fields)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ledger import events

Scene = int | str | None


def stamps(
    records: Iterable[events.Recorded], gone: frozenset[int] = frozenset()
) -> Iterator[tuple[events.Recorded, int | None, Scene]]:
    """Each record with its round and scene: its own, else the latest effective `round.started`
    before it (a `round.started` in `gone`, undone, sets nothing)."""
    round_: int | None = None
    scene: Scene = None
    for record in records:
        event = record.event
        if isinstance(event, events.RoundStarted) and record.seq not in gone:
            round_ = event.round
            scene = event.scene if event.scene is not None else scene
        yield (
            record,
            event.round if event.round is not None else round_,
            event.scene if event.scene is not None else scene,
        )


def when(round_: int | None, scene: Scene) -> str:
    """`round 2`, `round 2, scene the ford`, `scene 3`, or `` when there is no game time."""
    parts = []
    if round_ is not None:
        parts.append(f"round {round_}")
    if scene is not None:
        parts.append(f"scene {scene}")
    return ", ".join(parts)


def scene_of(text: str | None) -> Scene:
    """A scene as given on a command line: a whole number is stored as one, else the text."""
    if text is None:
        return None
    return int(text) if text.isdigit() and text.isascii() else text
