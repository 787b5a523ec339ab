"""Admitting dice inside a write: a commitment, a reveal, and dice the ledger rolls from the
open commitment's seed (or that an event says it rolled), checked against the commitments
before them. `ledger.revise.admit` checks every dice event here; `Ledger.record(roll=...)`
rolls here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ledger import events
from ledger.dice.check import Commitment, bodies, open_commitment
from ledger.dice.derive import Throw, dice_of, digest_of, kept_seed, roll, seed_file
from ledger.errors import BadInput
from ledger.write import Session


def check_dice(session: Session, event: events.Event) -> None:
    """Bad input for a dice event that does not follow from the commitments before it: a
    second commitment while one is open, a reveal of a seed that does not open the open one,
    dice the ledger rolled with no commitment open or with faces its dice do not have."""
    if isinstance(event, events.DiceCommitted):
        refuse_open(session)
        return
    found = _open(session)
    if found is None:
        what = "to reveal" if isinstance(event, events.DiceRevealed) else "for the ledger to roll"
        raise BadInput(
            f"encounter {session.encounter!r} has no open dice commitment {what}: "
            f"`encounter dice commit {session.encounter}` first",
            code="no-commitment",
        )
    if isinstance(event, events.DiceRevealed):
        if digest_of(event.seed) != found.digest:
            raise BadInput(
                f"this seed does not open the dice commitment at seq {found.seq}: its SHA-256 "
                f"is {digest_of(event.seed)}, the commitment's {found.digest}"
            )
        return
    dice_of(events.body_of(event))


def _open(session: Session) -> Commitment | None:
    """The encounter's dice commitment not yet revealed."""
    session.ready()
    kept = (
        r
        for r in session.revisions
        if isinstance(r.event, events.DiceCommitted | events.DiceRevealed)
    )
    return open_commitment(session.encounter, bodies(kept))


def refuse_open(session: Session) -> None:
    """Bad input when a dice commitment is open: a second one waits for its reveal."""
    found = _open(session)
    if found is not None:
        raise BadInput(
            f"the dice commitment at seq {found.seq} is still open: reveal it first "
            f"(`encounter dice reveal {session.encounter}`)"
        )


def open_seed(session: Session) -> tuple[Commitment, str]:
    """The open commitment and its seed, kept on this machine (bad input without either)."""
    found = _open(session)
    if found is None:
        raise BadInput(
            f"encounter {session.encounter!r} has no open dice commitment: "
            f"`encounter dice commit {session.encounter}` first",
            code="no-commitment",
        )
    seed = kept_seed(found.digest)
    if seed is None:
        raise BadInput(
            f"the seed of the dice commitment at seq {found.seq} is not kept on this machine "
            f"({seed_file(found.digest)}): the ledger rolls and reveals where the dice "
            "were committed"
        )
    return found, seed


def rolled_into(
    session: Session, fields: Mapping[str, Any], throws: Sequence[Throw]
) -> dict[str, Any]:
    """`fields` with the dice of `throws` rolled by the ledger from the open commitment's seed,
    for the event at the next seq, and `ledger_rolled` naming them."""
    for throw in throws:
        if fields.get(throw.field) is not None:
            raise BadInput(
                f"the ledger rolls {throw.field}: leave its faces out (--roll), or type them "
                "and leave out --roll"
            )
        if not 2 <= throw.sides <= 1000 or not 1 <= throw.count <= 40:
            raise BadInput(
                f"the ledger rolls 1-40 dice of 2-1000 sides, not {throw.count}d{throw.sides}"
            )
    if len({t.field for t in throws}) != len(throws):
        raise BadInput("each field is rolled once")
    found, seed = open_seed(session)
    return {**fields, **roll(seed, found.name, session.seq + 1, throws)}
