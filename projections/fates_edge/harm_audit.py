"""Fate's Edge audit rules for damage: what a hit on an adversary, or harm on a player, may do.

A hit needs a success on locked stakes (or its declared Partial) and the Harm declared before the
roll; harm on a player follows a failed response, once, within what was announced. Each finding
says what the rules would have given, beside what the ledger applied as played.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from projections import core
from projections.fates_edge import events as vocab
from projections.fates_edge.model import Adversary, FatesEdgeState, FERoll, damage, move_of
from projections.findings import Finding, error, warning
from projections.played import as_played, delta


def seqs_of(*seqs: int | None) -> tuple[int, ...]:
    """The distinct seqs given, sorted (None left out)."""
    return tuple(sorted({s for s in seqs if s is not None}))


def tally(roll: FERoll) -> str:
    """`2 successes vs DV 3`."""
    return f"{roll.successes} success{'es' * (roll.successes != 1)} vs DV {roll.dv}"


def instead(
    before: FatesEdgeState, seq: int, target: str, harm: int | None, ignore: Any, after: core.State
) -> str:
    """`by the rules Harm 1: resilience 8 -> 7; recorded as played: resilience 8 -> 5`."""
    if not harm:
        rules = "by the rules it changes nothing"
    else:
        would = damage(before, seq, before.combatants[target], harm, ignore)
        rules = f"by the rules Harm {harm}: {delta(before, would, target)}"
    return f"{rules}; {as_played(before, after, target)}"


def hit_on_adversary(
    state: FatesEdgeState, seq: int, hit: vocab.HitResolved, after: core.State
) -> Iterator[Finding]:
    """A hit needs a success (or its declared Partial) and the Harm declared before the roll."""

    def given(harm: int | None) -> str:
        return instead(state, seq, hit.target, harm, hit.ignore_armor, after)

    lock = state.lock(hit.stake)
    if hit.stake is None or lock is None:
        name = f"stake {hit.stake!r}, which was never locked" if hit.stake else "no stake"
        make = error if hit.stake else warning
        yield make(
            "hit-without-success",
            (seq,),
            f"hit {hit.harm} Harm on {hit.target!r} at seq {seq} names {name}; "
            f"a damaging hit follows a successful roll on locked stakes: {given(None)}",
        )
        return
    first = state.stakes[hit.stake].seq
    if hit.stake in state.hit_charged:
        charged = state.hit_charged[hit.stake]
        yield error(
            "consequence-charged-once",
            (charged, seq),
            f"hit {hit.harm} Harm on {hit.target!r} at seq {seq} charges stakes {hit.stake!r} "
            f"again (already charged at seq {charged}); never charge damage twice for one "
            f"consequence: {given(None)}",
        )
    roll = state.roll_of(hit.stake)
    if roll is None or roll.outcome == "miss":
        # Not "never rolled": a roll may be recorded later (an amended roll goes to the head).
        what = (
            f"had no roll before seq {seq}"
            if roll is None
            else f"missed at seq {roll.seq} ({tally(roll)})"
        )
        yield error(
            "hit-without-success",
            seqs_of(first, roll.seq if roll else None, seq),
            f"hit {hit.harm} Harm on {hit.target!r} at seq {seq} for stakes {hit.stake!r}, "
            f"which {what}; a Miss makes no progress: {given(None)}",
        )
        return
    seqs = (first, roll.seq, seq)
    if lock.kind == "defense" and lock.harm is None:
        yield error(
            "no-retaliation",
            seqs,
            f"hit {hit.harm} Harm on {hit.target!r} at seq {seq} for the defense {hit.stake!r} "
            f"({roll.outcome} at seq {roll.seq}); a successful defense avoids the hit but deals "
            "no weapon Harm unless that was the declared action (no Harm declared): " + given(None),
        )
        return
    if roll.outcome == "partial":
        lesser = lock.partial.harm if lock.partial is not None else None
        if lesser is None or hit.harm > lesser:
            was = "no lesser Harm" if lesser is None else f"{lesser} Harm"
            yield error(
                "partial-is-lesser",
                seqs,
                f"hit {hit.harm} Harm on a Partial ({tally(roll)}, seq {roll.seq}) whose "
                f"declared lesser progress was {was}; a Partial grants the stated lesser "
                f"progress, not full weapon damage: {given(lesser)}",
            )
        return
    if lock.harm is None:
        yield error(
            "effect-declared-before-roll",
            seqs,
            f"hit {hit.harm} Harm on {hit.target!r} at seq {seq} for stakes {hit.stake!r}, "
            f"which declared no Harm when locked at seq {first}; state the Harm before the roll: "
            + given(None),
        )
    elif hit.harm > lock.harm + (lock.effect_harm or 0):
        yield error(
            "effect-declared-before-roll",
            seqs,
            f"hit {hit.harm} Harm at seq {seq}, but stakes {hit.stake!r} (seq {first}) declared "
            f"Harm {lock.harm} (+{lock.effect_harm or 0} from {lock.effect} Effect); Effect "
            "does not secretly multiply Harm: a change must be stated before the roll; "
            + given(lock.harm + (lock.effect_harm or 0)),
        )


def harm_on_player(
    state: FatesEdgeState,
    seq: int,
    target: str,
    harm: int,
    stake: str | None,
    ignore: int | str,
    after: core.State,
) -> Iterator[Finding]:
    """Harm lands only through a failed response, once, within what was announced."""

    def given(harm: int | None) -> str:
        return instead(state, seq, target, harm, ignore, after)

    lock = state.lock(stake)
    if stake is None or lock is None:
        name = f"stake {stake!r}, which was never locked" if stake else "no stake"
        yield (error if stake else warning)(
            "hit-without-success",
            (seq,),
            f"harm {harm} on {target!r} at seq {seq} names {name}; harm is the consequence "
            f"of a failed response to announced stakes: {given(None)}",
        )
        return
    first = state.stakes[stake].seq
    if stake in state.harm_charged:
        charged = state.harm_charged[stake]
        yield error(
            "consequence-charged-once",
            (charged, seq),
            f"harm {harm} on {target!r} at seq {seq} charges the consequence of stakes "
            f"{stake!r} again (already charged at seq {charged}); never charge damage twice "
            f"for one consequence: {given(None)}",
        )
    opposing = state.opposing(lock)
    move = move_of(opposing, lock.move)
    bypass = move is not None and move.unavoidable
    roll = state.roll_of(stake)
    if not bypass and (roll is None or roll.outcome == "success"):
        if roll is not None and lock.kind == "defense":
            yield error(
                "defense-avoids-hit",
                (first, roll.seq, seq),
                f"harm {harm} on {target!r} at seq {seq} though the defense {stake!r} succeeded "
                f"at seq {roll.seq} ({tally(roll)}); a successful defense avoids the "
                "threatened hit, and a paid move does not bypass it unless it says so: "
                + given(None),
            )
            # Harm from a successful defense is also harm without a failed response; the
            # ruleset's `refines` keeps only the finding above (one mistake, one finding).
            yield error(
                "hit-without-success",
                (first, roll.seq, seq),
                f"harm {harm} on {target!r} at seq {seq} comes from the successful defense "
                f"{stake!r} (seq {roll.seq}); harm follows a failed response",
            )
        else:
            what = (
                f"had no roll before seq {seq}" if roll is None else f"succeeded at seq {roll.seq}"
            )
            yield error(
                "hit-without-success",
                seqs_of(first, roll.seq if roll else None, seq),
                f"harm {harm} on {target!r} at seq {seq} for stakes {stake!r}, which {what}; "
                f"harm follows a failed response: {given(None)}",
            )
        return
    if target not in (lock.actor, lock.target) and not isinstance(
        state.combatants.get(lock.actor), Adversary
    ):
        failed = f"failed at seq {roll.seq}" if roll is not None else "was bypassed"
        yield error(
            "consequence-on-actor",
            seqs_of(first, roll.seq if roll else None, seq),
            f"harm {harm} on {target!r} at seq {seq} charges the consequence of stakes "
            f"{stake!r} (seq {first}), the response of {lock.actor!r}, which {failed}; harm "
            f"from a failed response is the consequence of that response and lands on "
            f"{lock.actor!r}, who made it: by the rules {target!r} takes nothing from it; "
            + as_played(state, after, target),
        )
    printed = opposing.stats.harm if opposing is not None else None
    announced = lock.consequence_harm if lock.consequence_harm is not None else printed
    tired = opposing is not None and max(state.lock_fatigue.get(stake, 0), opposing.fatigue) > 0
    seqs = seqs_of(first, roll.seq if roll else None, seq)
    if (
        tired
        and printed is not None
        and harm > printed
        and announced is not None
        and (harm > announced)
    ):
        assert opposing is not None
        yield error(
            "fatigue-no-outgoing-harm",
            seqs,
            f"harm {harm} on {target!r} at seq {seq} from {opposing.name!r}, whose printed Harm "
            f"is {printed} (Fatigue {opposing.fatigue}); Fatigue never increases outgoing Harm: "
            + given(min(printed, announced)),
        )
    elif roll is not None and roll.outcome == "partial":
        lesser = lock.partial.harm if lock.partial is not None else None
        partial = "Partial defense" if lock.kind == "defense" else "Partial"
        if lesser is None:
            yield error(
                "partial-is-lesser",
                seqs,
                f"harm {harm} on {target!r} at seq {seq} on a {partial} ({tally(roll)}, seq "
                f"{roll.seq}): no lesser protection was agreed before the roll, so the Partial "
                "should have protected as the GM rules (agree it with the stakes, partial.harm), "
                f"not charged the full Harm {harm}; {as_played(state, after, target)}",
            )
        elif harm > lesser:
            yield error(
                "partial-is-lesser",
                seqs,
                f"harm {harm} on {target!r} at seq {seq} on a {partial} ({tally(roll)}, seq "
                f"{roll.seq}) whose lesser protection agreed before the roll was Harm {lesser}: "
                + given(lesser),
            )
    elif announced is not None and harm > announced:
        yield error(
            "effect-declared-before-roll",
            seqs,
            f"harm {harm} on {target!r} at seq {seq}, but the consequence announced with "
            f"stakes {stake!r} (seq {first}) was Harm {announced}; the consequence is fixed "
            f"before the roll: {given(announced)}",
        )
