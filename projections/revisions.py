"""Retractions, corrections and rewinds: which stored events count, and with which fields.

A retraction drops its target from the effective stream (retracting a retraction is a redo);
a correction (`event.corrected`) changes some fields of its target, which the fold reads at the
target's own seq, so every order-sensitive rule judges it where it happened; a rewind
(`encounter.rewound`) sets aside every event of play after the end of a round, as one act that
one retraction undoes. Nothing stored is ever rewritten: all three are events appended at the
head.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeVar

from pydantic import ValidationError

from ledger import events
from ledger.errors import BadInput

#: Event types a correction may not target: what they mean is fixed (house rules are pinned
#: when the encounter opens; an undo is redone, a correction undone or corrected at its target,
#: a rewind undone; a dice commitment or reveal is what the dice are checked against).
UNCORRECTABLE = frozenset(
    {
        "encounter.opened",
        "event.retracted",
        "event.corrected",
        "encounter.rewound",
        "dice.committed",
        "dice.revealed",
    }
)

#: The models of the events that change how earlier events count (exact classes: no event
#: model is subclassed, and an isinstance of a pydantic model class is an ABC's, far slower).
REVISION_MODELS: Final = frozenset(
    {events.EventRetracted, events.EventCorrected, events.EncounterRewound}
)
#: The models a rewind never sets aside: the revisions (an undo or a correction recorded after
#: the round fixes the past; it is not play) and the dice commitments and reveals.
KEPT_MODELS: Final = REVISION_MODELS | {events.DiceCommitted, events.DiceRevealed}

#: An event model: a correction keeps its type.
E = TypeVar("E", bound=events.EventBase)


def merged(body: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with `changes` applied: a nested object changes only in the keys given
    (`stats.level=3` keeps the other stats); null removes a key (`stats.level=null`)."""
    out = dict(body)
    for key, value in changes.items():
        old = out.get(key)
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = merged(old, value)
        else:
            out[key] = value
    return out


def excluded(records: Iterable[events.Recorded], without: Iterable[int] = ()) -> frozenset[int]:
    """Seqs that are not in the effective stream: retracted ones, those a rewind sets aside,
    and those in `without`."""
    return set_aside(records, without)[0]


def set_aside(
    records: Iterable[events.Recorded], without: Iterable[int] = ()
) -> tuple[frozenset[int], Mapping[int, int]]:
    """(the seqs not in the effective stream, and for each one a rewind sets aside the seq of
    that rewind: the earliest, when several do). `records` holds at least every retraction,
    correction, rewind and dice event: a seq not among them in a rewind's span is play.

    A retraction or rewind is effective unless an effective retraction targets it; neither
    ever reaches a later seq, and a rewind sets aside no retraction or rewind, so walking them
    from the newest decides each one.
    """
    dropped = set(without)
    # Exact classes (no event model is subclassed): isinstance of a pydantic model class is an
    # ABC's, several times slower, and an import's every undo asks of every revision.
    acts: list[tuple[int, events.EventRetracted | events.EncounterRewound]] = []
    kept: set[int] = set()
    for r in records:
        kind = type(r.event)
        if kind in KEPT_MODELS:
            kept.add(r.seq)
        if (kind is events.EventRetracted or kind is events.EncounterRewound) and (
            r.seq not in dropped
        ):
            acts.append((r.seq, r.event))  # type: ignore[arg-type]
    out = set(dropped)
    rewound: dict[int, int] = {}
    for seq, act in sorted(acts, key=_first, reverse=True):
        if seq in out:
            continue
        if type(act) is events.EventRetracted:
            out.add(act.target)
            continue
        assert isinstance(act, events.EncounterRewound)
        for earlier in range((act.after or seq - 1) + 1, seq):
            # Set aside by several rewinds, it is told as the earliest one's.
            if earlier not in kept and (earlier not in out or earlier in rewound):
                out.add(earlier)
                rewound[earlier] = seq
    return frozenset(out), rewound


def _first(item: tuple[int, Any]) -> int:
    return int(item[0])


@dataclass(frozen=True)
class Standing:
    """What the retractions, corrections and rewinds in force do to a stored stream: the seqs
    that do not count, for each corrected seq its corrections in force, in seq order, and for
    each seq a rewind sets aside the seq of that rewind."""

    gone: frozenset[int] = frozenset()
    fixes: Mapping[int, tuple[events.Recorded, ...]] = field(default_factory=dict)
    rewound: Mapping[int, int] = field(default_factory=dict)

    def first_change(self, other: Standing) -> int | None:
        """The first seq that counts, or reads, differently in `other`."""
        return min(self.changes(other), default=None)

    def changes(self, other: Standing) -> set[int]:
        """The seqs that count, or read, differently in `other`."""
        moved = set(self.gone ^ other.gone)
        moved |= {seq for seq in self.fixes.keys() | other.fixes.keys() if self._fixed(other, seq)}
        return moved

    def _fixed(self, other: Standing, seq: int) -> bool:
        mine, theirs = self.fixes.get(seq, ()), other.fixes.get(seq, ())
        return [r.seq for r in mine] != [r.seq for r in theirs]


def standing(revisions: Iterable[events.Recorded], without: Iterable[int] = ()) -> Standing:
    """The standing of a stream from its retractions, corrections and rewinds (other events
    but the dice events a rewind keeps are ignored), as if the seqs in `without` were never
    recorded."""
    kept = [r for r in revisions if type(r.event) in KEPT_MODELS]
    gone, rewound = set_aside(kept, without)
    fixes: dict[int, tuple[events.Recorded, ...]] = {}
    for r in sorted(kept, key=_seq):
        event = r.event
        if type(event) is events.EventCorrected and r.seq not in gone and event.target not in gone:
            fixes[event.target] = (*fixes.get(event.target, ()), r)
    return Standing(gone, fixes, rewound)


def _seq(record: events.Recorded) -> int:
    return record.seq


def corrected(record: events.Recorded, fixes: Sequence[events.Recorded]) -> events.Recorded:
    """`record` as its corrections make it (bad input when they leave no valid event)."""
    if not fixes:
        return record
    kind = record.type
    if kind in UNCORRECTABLE:
        raise BadInput(f"seq {record.seq} is {kind}, which a correction cannot change")
    body = events.body_of(record.event)
    for fix in fixes:
        assert isinstance(fix.event, events.EventCorrected)
        body = merged(body, fix.event.fields)
    # As the fold reads it: not what is stored, so no stored bytes of an older version either.
    return replace(record, event=reparsed(record.event, body, record.seq), as_stored=None)


def reparsed(event: E, body: Mapping[str, Any], seq: int, known: Iterable[str] | None = None) -> E:
    """`event`'s type with `body` as its fields, validated by the same model (an unknown
    field is named with the nearest of `known`, and all of them)."""
    kind = events.type_of(event)
    try:
        # The model of the event itself: a correction never changes what type it is.
        fixed = type(event).model_validate_json(json.dumps({"type": kind, **body}))
    except ValidationError as exc:
        what = f"the corrected seq {seq} ({kind})"
        raise BadInput(events.describe(exc, what, known=known)) from exc
    return fixed
