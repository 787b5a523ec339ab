"""Fate's Edge audit rules: what a hit, harm, roll, lock or SB spend may do (DESIGN.md 6).

Each check reads the states before and after one event; what it must remember (charges, SB
provenance, payments, Fatigue snapshots) the fold keeps in `FatesEdgeState`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ledger import events
from projections.fates_edge import events as vocab
from projections.fates_edge.harm_audit import harm_on_player, hit_on_adversary, seqs_of, tally
from projections.fates_edge.model import (
    Adversary,
    FatesEdgeState,
    Player,
    after_a_hit,
    attack_cost,
    move_of,
    spend_owner,
)
from projections.findings import Finding, Obligation, error, warning


def locked(state: FatesEdgeState, seq: int, lock: vocab.FEStakesLocked) -> Iterator[Finding]:
    """Player-facing framing, DV, what bought the attack, and outgoing Harm."""
    rules = state.house
    opposing = state.opposing(lock)
    if isinstance(state.combatants[lock.actor], Adversary):
        yield warning(
            "npc-does-not-roll",
            (seq,),
            f"stakes {lock.stake!r} at seq {seq} make adversary {lock.actor!r} the actor; "
            "adversaries take no initiative turn and roll nothing: frame the player's response",
        )
    if (
        opposing is not None
        and lock.dv is not None
        and lock.dv not in (rules.dv_default, rules.dv_hard)
    ):
        yield warning(
            "dv-default",
            (seq,),
            f"stakes {lock.stake!r} at seq {seq} set DV {lock.dv} against {opposing.name!r}; "
            f"NPC opposition is normally DV {rules.dv_default}, or {rules.dv_hard} for hard "
            "resistance (a printed pool is not a DV)",
        )
    move = move_of(opposing, lock.move)
    who = opposing.name if opposing is not None else "no adversary"
    if lock.source == "sb_move":
        if move is None:
            moves = ", ".join(m.name for m in opposing.stats.moves) if opposing else ""
            yield error(
                "move-cost",
                (seq,),
                f"stakes {lock.stake!r} at seq {seq} frame a move {lock.move!r} that {who!r} "
                f"does not list (moves: {moves or 'none'}); a named move has a printed cost",
            )
        elif after_a_hit(move):
            yield error(
                "move-trigger",
                (seq,),
                f"stakes {lock.stake!r} at seq {seq} use {move.name!r} (trigger: {move.trigger!r}) "
                f"as a new attack; its {move.cost} SB buys its effect after a hit, "
                "not a second attack",
            )
    yield from _lesser(state, seq, lock, opposing)
    printed = opposing.stats.harm if opposing is not None else None
    declared = lock.consequence_harm
    if (
        opposing is not None
        and opposing.fatigue > 0
        and printed is not None
        and (declared is not None and declared > printed)
    ):
        yield error(
            "fatigue-no-outgoing-harm",
            (seq,),
            f"stakes {lock.stake!r} at seq {seq} announce Harm {declared} from {opposing.name!r}, "
            f"whose printed Harm is {printed}, while it has Fatigue {opposing.fatigue}; "
            "Fatigue never increases an adversary's outgoing Harm",
        )


def _lesser(
    state: FatesEdgeState, seq: int, lock: vocab.FEStakesLocked, opposing: Adversary | None
) -> Iterator[Finding]:
    """`partial-is-lesser` at the lock: a Partial's Harm no less than the full Harm it stands
    for (a success's, with its Effect; for a defense, what a miss lets in)."""
    lesser = lock.partial.harm if lock.partial is not None else None
    if lesser is None:
        return
    if lock.kind == "defense":
        full = lock.consequence_harm
        if full is None and opposing is not None:
            full = opposing.stats.harm
        if full is not None and lesser >= full:
            yield warning(
                "partial-is-lesser",
                (seq,),
                f"stakes {lock.stake!r} at seq {seq} agree Harm {lesser} on a Partial defense, "
                f"no less than the Harm {full} a miss lets in; a Partial defense uses the lesser "
                "protection agreed before the roll",
            )
    elif lock.harm is not None and lesser >= lock.harm + (lock.effect_harm or 0):
        full = lock.harm + (lock.effect_harm or 0)
        yield warning(
            "partial-is-lesser",
            (seq,),
            f"stakes {lock.stake!r} at seq {seq} declare Harm {lesser} on a Partial, no less "
            f"than the Harm {full} of a success; a Partial grants the stated lesser progress, "
            "not full weapon damage",
        )


def rolled(state: FatesEdgeState, seq: int, event: vocab.FERollMade) -> Iterator[Finding]:
    """One roll per stake; no NPC rolls; a new attack was bought with SB before its roll."""
    if isinstance(state.combatants.get(event.actor or ""), Adversary):
        yield warning(
            "npc-does-not-roll",
            (seq,),
            f"roll at seq {seq} is made by adversary {event.actor!r}; a printed NPC pool is a "
            "competence reference, not a second roll: the player's test is the opposed test",
        )
    first_roll = state.roll_of(event.stake)
    if first_roll is not None:
        # The fold keeps the first roll and folds nothing of this one (no SB, no outcome); an
        # undone first roll is not in the effective stream, so the next roll is the first.
        yield error(
            "stake-rolled-once",
            (first_roll.seq, seq),
            f"seq {seq} rolls stake {event.stake!r} again; it was rolled at seq "
            f"{first_roll.seq} ({tally(first_roll)}: {first_roll.outcome}) and that roll "
            "stands: one roll resolves locked stakes",
        )
        return
    lock = state.lock(event.stake)
    if lock is None:
        return
    cost, paid = attack_cost(state, lock), state.paid_for(event.stake)
    first = state.stakes[event.stake].seq
    paying = state.paid.get(event.stake, ())
    if cost > 0 and paid == 0 and lock.source == "opportunity":
        # The fiction may make it an opportunity; the text frees only an expressly free one.
        yield warning(
            "npc-attack-needs-sb",
            (first, seq),
            f"the opportunity attack framed by stakes {lock.stake!r} (seq {first}) names no "
            f"expressly free move and was rolled at seq {seq} with no SB spent for it; only an "
            f"expressly free opportunity attack is free, a new attack costs {cost} SB",
        )
    elif cost > 0 and paid == 0:
        yield error(
            "npc-attack-needs-sb",
            (first, seq),
            f"the attack framed by stakes {lock.stake!r} (seq {first}, source={lock.source}) "
            f"was rolled at seq {seq} with no SB spent for it; a new attack costs {cost} SB "
            "(the harm of a failed response is a consequence, not a new attack)",
        )
    elif paid < cost and any(state.spends[s].stake is not None for s in paying):
        # a spend claimed ahead (no stake) was checked against the cost when it was made
        move = move_of(state.opposing(lock), lock.move)
        what = f"{move.name!r} has a printed cost of" if move else "a new attack costs"
        yield error(
            "move-cost" if move else "npc-attack-needs-sb",
            seqs_of(first, *paying, seq),
            f"the attack framed by stakes {lock.stake!r} (seq {first}) was paid {paid} SB "
            f"before its roll at seq {seq}; {what} {cost} SB",
        )


def spent(state: FatesEdgeState, seq: int, spend: vocab.SBSpent) -> Iterator[Finding]:
    """The pool covers it; it changes no framed roll; a move's cost and trigger hold."""
    pool = state.pools.get("sb", 0)
    if spend.amount > pool:
        yield error(
            "sb-overspent",
            (seq,),
            f"seq {seq} spends {spend.amount} SB with {pool} in the GM's pool: the pool stops at "
            f"0 (SB pool {pool} -> 0)",
        )
    owner = spend_owner(state, spend)
    move = move_of(owner, spend.move)
    lock = state.lock(spend.stake)
    roll = state.roll_of(spend.stake) if spend.stake is not None else None
    if lock is not None and spend.stake is not None:
        first = state.stakes[spend.stake].seq
        fallout = spend.purpose == "complication" or after_a_hit(move)
        paid_attack = spend.purpose in ("attack", "move") and attack_cost(state, lock) > 0
        if spend.purpose == "shape" or (paid_attack and roll is not None and not fallout):
            if roll is not None and roll.sb > 0:
                why = (
                    f"its roll at seq {roll.seq} generated {roll.sb} SB, which "
                    "cannot change that roll's Position, DV, success or damage"
                )
            elif roll is not None:
                why = f"it was already rolled at seq {roll.seq}; SB cannot change a resolved roll"
            else:
                why = "earlier SB may shape a test only before its stakes are locked"
            # Stakes not rolled yet have no roll to stay as it was: what stands is the lock.
            stays = "the roll stays as rolled" if roll is not None else "the stakes stay as locked"
            yield error(
                "sb-not-retroactive",
                seqs_of(first, roll.seq if roll else None, seq),
                f"seq {seq} spends {spend.amount} SB ({spend.purpose}) on stakes "
                f"{spend.stake!r}, locked at seq {first}; {why}: {stays}; "
                f"recorded as played: {_pool(pool, spend.amount)}",
            )
    if spend.purpose == "move":
        yield from _move(state, seq, spend, owner, move)


def _pool(held: int, amount: int) -> str:
    """`SB pool 3 -> 1`: the pool after a spend (never below 0)."""
    return f"SB pool {held} -> {max(0, held - amount)}"


def _move(
    state: FatesEdgeState,
    seq: int,
    spend: vocab.SBSpent,
    owner: Adversary | None,
    move: vocab.Move | None,
) -> Iterator[Finding]:
    pool = state.pools.get("sb", 0)
    if move is None or owner is None:
        yield error(
            "move-cost",
            (seq,),
            f"seq {seq} spends {spend.amount} SB on move {spend.move!r}, which no adversary "
            "lists; a named move is paid at its printed cost: recorded as played: "
            + _pool(pool, spend.amount),
        )
        return
    if move.free:
        yield warning(
            "move-cost",
            (seq,),
            f"seq {seq} spends {spend.amount} SB on {owner.name!r}'s {move.name!r}, which is "
            "expressly free",
        )
    elif spend.amount != move.cost and (spend.stake is None or after_a_hit(move)):
        # spends naming an attack's stake are summed against the cost at its roll
        yield error(
            "move-cost",
            (seq,),
            f"seq {seq} pays {spend.amount} SB for {owner.name!r}'s {move.name!r}, whose printed "
            f"cost is {move.cost} SB: by the rules {_pool(pool, move.cost)}; recorded as played: "
            + _pool(pool, spend.amount),
        )
    if after_a_hit(move):
        hit = (
            state.harm_charged.get(spend.stake)
            if spend.stake
            else state.last_hit_by.get(owner.name)
        )
        if hit is None or state.triggered.get(owner.name) == hit:
            after = "" if hit is None else f" since the hit at seq {hit}, already used"
            yield error(
                "move-trigger",
                seqs_of(hit, seq),
                f"seq {seq} buys {move.name!r} (trigger: {move.trigger!r}) with no hit by "
                f"{owner.name!r} to follow{after}; its SB buys the effect after a hit, "
                f"not a second attack: by the rules the SB pool stays {pool}; recorded as played: "
                + _pool(pool, spend.amount),
            )


def obligations(state: FatesEdgeState) -> Iterator[Obligation]:
    """What is still owed: an attack's SB before its roll; the consequence of a failed
    response, never charged; a puzzle adversary's Resolution after a hit on it."""
    for stake, first in state.unpaid.items():
        lock = state.lock(stake)
        assert lock is not None
        opposing = state.opposing(lock)
        by = f" by {opposing.name!r}" if opposing is not None else ""
        kind = "opportunity attack" if lock.source == "opportunity" else "attack"
        if lock.kind == "defense":
            what = f"the new {kind}{by} that stakes {stake!r} (seq {first}) defend against"
        else:
            what = f"the {kind}{by} framed by stakes {stake!r} (seq {first})"
        # A player-sourced defense is an attack the GM introduced; a failed response's harm is not.
        free = (
            "; if it is the consequence of a failed response, lock it with source consequence"
            if lock.source == "player"
            else ""
        )
        yield Obligation(
            (first,),
            f"{what} needs {attack_cost(state, lock)} SB spent for it before its roll "
            f"({state.paid_for(stake)} paid so far){free}",
            "npc-attack-needs-sb",
        )
    yield from uncharged(state)
    for name, hits in state.puzzle_hits.items():
        puzzle = state.adversary(name)
        if puzzle is None or not puzzle.active:
            continue
        for seq in hits:
            yield Obligation(
                (seq,),
                f"the hit at seq {seq} on puzzle adversary {name!r} changes no track; it still "
                f"requires its stated Resolution: {puzzle.stats.resolution} (record "
                "combatant.left with manner 'resolved' once it is met)",
                "puzzle-needs-resolution",
            )


def uncharged(state: FatesEdgeState) -> Iterator[Obligation]:
    """A failed response whose announced consequence deals Harm, with no harm charged for it
    yet: "Harm from a previously announced failed response is the consequence of that
    response". A miss lets in the announced Harm (a defense's, by default, the adversary's
    printed Harm); a Partial defense the lesser Harm agreed for it."""
    for stake, harm in state.due.items():
        lock, roll = state.lock(stake), state.roll_of(stake)
        who = state.combatants.get(lock.actor) if lock is not None else None
        if lock is None or roll is None or not isinstance(who, Player) or not who.active:
            continue
        first = state.stakes[stake].seq
        result = "missed" if roll.outcome == "miss" else "got a Partial on"
        yield Obligation(
            (first, roll.seq),
            f"{lock.actor!r} {result} {stake!r} at seq {roll.seq}, and its announced "
            f"consequence, Harm {harm}, is not charged yet: record it (harm.suffered "
            f"target={lock.actor} stake={stake} harm={harm}), or undo what was announced",
            "consequence-charged-once",
        )


def left(state: FatesEdgeState, seq: int, event: events.CombatantLeft) -> Iterator[Finding]:
    """A puzzle adversary ends by its Resolution, not by being worn down."""
    who = state.combatants[event.name]
    if isinstance(who, Adversary) and who.puzzle and event.manner == "defeated":
        yield warning(
            "puzzle-needs-resolution",
            (seq,),
            f"puzzle adversary {event.name!r} leaves at seq {seq} as defeated; with no "
            f"Resilience it requires its stated Resolution ({who.stats.resolution}): record "
            "manner 'resolved' (or a bargain, escape or surrender)",
        )


def audit(before: FatesEdgeState, seq: int, event: Any, after: FatesEdgeState) -> Iterator[Finding]:
    """The Fate's Edge rules one event raises."""
    match event:
        case vocab.FEStakesLocked() if event.stake not in before.stakes:
            yield from locked(before, seq, event)
        case vocab.FERollMade():
            yield from rolled(before, seq, event)
        case vocab.HitResolved() if isinstance(before.combatants[event.target], Player):
            yield from harm_on_player(
                before, seq, event.target, event.harm, event.stake, event.ignore_armor, after
            )
        case vocab.HitResolved():
            yield from hit_on_adversary(before, seq, event, after)
        case vocab.FEHarmSuffered():
            yield from harm_on_player(before, seq, event.target, event.harm, event.stake, 0, after)
        case vocab.SBSpent():
            yield from spent(before, seq, event)
        case events.CombatantLeft():
            yield from left(before, seq, event)
        case _:
            pass
