"""Fate's Edge: adversary Resilience, Fatigue and armor, and player-facing tests.

A damaging hit converts its first 3 Harm through the armor column (after any ignored steps),
subtracts the remaining Harm from Resilience (clearing Fatigue if any remains), adds the converted
Fatigue, then checks overflow once. Resilience 0 ends a phase or defeats. Rolls count d10
successes against the locked DV; each 1 gives the GM a Story Beat. A stake's first effective roll
stands: rolling it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, assert_never

from pydantic import ValidationError
from pydantic_core import to_json

from ledger import events
from ledger.errors import BadInput
from ledger.events.common import Common
from projections import core
from projections import stats as stat_texts
from projections.charts import Measure
from projections.fates_edge import audit as fates_edge_audit
from projections.fates_edge import events as vocab
from projections.fates_edge import stats as fates_edge_stats
from projections.fates_edge import words as fates_edge_words
from projections.fates_edge.model import (
    Adversary,
    FatesEdgeState,
    FELock,
    FERoll,
    Player,
    Rules,
    after_a_hit,
    attack_cost,
    carries,
    hurt,
    landed,
    move_of,
    renewed,
    spend_owner,
    stepped,
    struck,
    unpaid_after,
    wound,
)
from projections.fates_edge.shown import measures
from projections.findings import Finding, Obligation
from projections.growing import appended
from projections.odds import Odds


def join(state: core.State, seq: int, event: events.CombatantJoined) -> core.Combatant:
    """Validate a stat block and build the adversary or player."""
    what = f"stats of {event.name!r}"
    try:
        if event.side == "player":
            player = vocab.PlayerStats.model_validate_json(to_json(event.stats))
            fatigue = 0 if player.body is not None else None
            return Player(
                name=event.name,
                side="player",
                joined=seq,
                armor=player.armor,
                body=player.body,
                fatigue=fatigue,
            )
        stats = vocab.AdversaryStats.model_validate_json(to_json(event.stats))
    except ValidationError as exc:
        model = vocab.PlayerStats if event.side == "player" else vocab.AdversaryStats
        raise stat_texts.refused(exc, event.name, event.side, model, state.system) from exc
    if stats.resilience == 0:
        # "At zero Resilience the adversary is defeated": it cannot join the fight that way.
        raise BadInput(
            f"{what}: resilience 0 is an adversary already defeated; give its starting "
            "Resilience (or null, with a resolution, for a puzzle)"
        )
    capacity = stats.capacity() if stats.fatigue_capacity is not None else None
    return Adversary(
        name=event.name,
        side="adversary",
        joined=seq,
        resilience=stats.resilience,
        fatigue_capacity=capacity,
        armor=stats.armor,
        stats=stats,
    )


def _charge(charges: Mapping[str, int], stake: str | None, seq: int) -> Mapping[str, int]:
    if stake is None or stake in charges:
        return charges
    return core.with_entry(charges, stake, seq)


def _struck(
    state: FatesEdgeState, seq: int, target: core.Combatant, harm: int, ignore: Any
) -> dict[str, Any]:
    """The changes of a damaging hit (or a suffered harm) on `target`: its tracks, the hit."""
    who, hit = struck(state, seq, target, harm, ignore)
    return {"combatants": core.with_entry(state.combatants, who.name, who), "last_hit": hit}


def hit_resolved(state: FatesEdgeState, seq: int, event: vocab.HitResolved) -> FatesEdgeState:
    """A damaging hit on its target (on a puzzle, remembered: it still needs its Resolution)."""
    target = state.combatant(event.target, "target")
    update = _struck(state, seq, target, event.harm, event.ignore_armor)
    if isinstance(target, Adversary) and target.puzzle and target.active:
        hits = (*state.puzzle_hits.get(target.name, ()), seq)
        update["puzzle_hits"] = core.with_entry(state.puzzle_hits, target.name, hits)
    if isinstance(target, Player):
        update.update(_harm_charged(state, event.stake, seq))
    else:
        update["hit_charged"] = _charge(state.hit_charged, event.stake, seq)
    return renewed(state, **update)


def harm_suffered(state: FatesEdgeState, seq: int, event: vocab.FEHarmSuffered) -> FatesEdgeState:
    """A player suffers the consequence of a failed response."""
    target = state.combatant(event.target, "target")
    if not isinstance(target, Player):
        raise BadInput(
            f"harm.suffered: {event.target!r} is an adversary; adversaries have no Harm-level "
            "track (record a hit.resolved)"
        )
    update = _struck(state, seq, target, event.harm, 0)
    lock = state.lock(event.stake)
    by = state.opposing(lock) if lock is not None else None
    if by is not None:
        update["last_hit_by"] = core.with_entry(state.last_hit_by, by.name, seq)
    update.update(_harm_charged(state, event.stake, seq))
    return renewed(state, **update)


def _harm_charged(state: FatesEdgeState, stake: str | None, seq: int) -> dict[str, Any]:
    """The changes of Harm on a player charged to `stake` at `seq` (the first charge counts):
    its consequence is no longer due."""
    due = core.without(state.due, stake) if stake is not None else state.due
    return {"harm_charged": _charge(state.harm_charged, stake, seq), "due": due}


def consequence(state: FatesEdgeState, lock: FELock, outcome: str) -> int | None:
    """The Harm a player's failed response lets in, by its lock, for a roll short of a
    success: a miss the announced Harm (a defense's, by default, the adversary's printed
    Harm); a Partial defense the lesser Harm agreed for it; None when nothing is announced."""
    if not isinstance(state.combatants.get(lock.actor), Player):
        return None
    if outcome == "partial":
        lesser = lock.partial.harm if lock.partial is not None else None
        return lesser if lock.kind == "defense" else None
    harm = lock.consequence_harm
    if harm is None and lock.kind == "defense":
        opposing = state.opposing(lock)
        harm = opposing.stats.harm if opposing is not None else None
    return harm or None


def fatigue_marked(state: FatesEdgeState, seq: int, event: vocab.FatigueMarked) -> FatesEdgeState:
    """Fatigue marked directly: one overflow check for the event."""
    target = state.combatant(event.target, "target")
    if isinstance(target, Adversary):
        wounded, hit = wound(target, seq, 0, "none", 0, event.amount, carries(state, target))
        return landed(state, wounded, hit)
    if not isinstance(target, Player) or target.fatigue is None:
        raise BadInput(f"{event.target!r} has no Fatigue track (a player needs 'body' in stats)")
    after, hit = hurt(target, state.house, seq, 0, "none", 0, event.amount)
    return landed(state, after, hit)


def stakes_locked(state: FatesEdgeState, seq: int, event: vocab.FEStakesLocked) -> FatesEdgeState:
    """Snapshot the opposing adversary's Fatigue; claim an SB spent ahead for this attack."""
    stake = event.stake
    locked = state.stakes[stake]
    if locked.seq != seq:
        return state  # a second lock of the id: the first stands
    books = state.books
    update: dict[str, Any] = {}
    if isinstance(state.combatants[event.actor], Player):
        opposing = state.opposing(event)
        if opposing is not None and opposing.fatigue:
            # Only Fatigue steps a Position down: no entry reads as none marked.
            update["lock_fatigue"] = core.with_entry(books.lock_fatigue, stake, opposing.fatigue)
    cost = attack_cost(state, event)
    paying = books.paid.get(stake)
    if paying is None and cost > 0:
        want = "move" if event.source == "sb_move" else "attack"
        for spend in books.credits:
            used = books.spends[spend]
            if used.purpose == want and used.move in (None, event.move):
                paying = (spend,)
                update["paid"] = core.with_entry(books.paid, stake, paying)
                update["credits"] = tuple(s for s in books.credits if s != spend)
                break
    # Its attack owes SB while it is not rolled and less than its cost is paid (the terms
    # kept, `locked.lock`, are this event's: the cost is the same).
    paid = sum(books.spends[s].amount for s in paying) if paying else 0
    owes = paid < cost and stake not in state.rolled
    if owes != (stake in books.unpaid):
        was = books.unpaid
        update["unpaid"] = core.with_entry(was, stake, seq) if owes else core.without(was, stake)
    return renewed(state, **update) if update else state


def successes(dice: tuple[int, ...]) -> int:
    """6-9 is one success, 10 is two (a 10 counts once as a face of 6 or more, and once more)."""
    return len([d for d in dice if d >= 6]) + dice.count(10)


def roll_made(state: FatesEdgeState, seq: int, event: vocab.FERollMade) -> FatesEdgeState:
    """Count successes against the locked DV; each 1 adds an SB to the GM's pool.

    A stake's first effective roll stands: a later roll of it changes nothing (no SB, no entry
    in `rolls`); the audit flags it as `stake-rolled-once`.
    """
    stake = event.stake
    rolled = state.rolled
    if stake in rolled:
        return state
    found = state.stakes.get(stake)
    lock = found.lock if found is not None else None
    dice = event.dice
    hits = successes(dice)
    house = state.house
    if lock is None:
        dv, position, actor = house.dv_default, None, event.actor
    else:
        dv = lock.dv if lock.dv is not None else house.dv_default
        # Only Fatigue on the opposing adversary at the lock steps the Position (none: as is).
        steps = state.books.lock_fatigue.get(stake, 0)
        position = stepped(house, lock.position, steps) if steps else lock.position
        actor = event.actor or lock.actor
    outcome = "success" if hits >= dv else "partial" if hits > 0 else "miss"
    sb = dice.count(1)
    roll = FERoll(
        seq=seq,
        stake=stake,
        actor=actor,
        outcome=outcome,
        claimed=event.outcome,
        successes=hits,
        sb=sb,
        dv=dv,
        effective_position=position,
    )
    # One new state for the roll: it is rolled (so it no longer owes SB), its SB are in the
    # pool, what paid for it is settled, and its consequence is due while no harm is charged.
    update: dict[str, Any] = {
        "rolled": core.with_entry(rolled, stake, seq),
        "rolls": appended(state.rolls, roll),
    }
    pools = state.pools
    if sb or "sb" not in pools:
        update["pools"] = core.with_entry(pools, "sb", pools.get("sb", 0) + sb)
    books = state.books
    if stake in books.unpaid:
        update["unpaid"] = core.without(books.unpaid, stake)
    if lock is not None:
        if stake in books.paid:
            update.update(_settled(state, stake))
        if outcome != "success" and stake not in books.harm_charged:
            harm = consequence(state, lock, outcome)
            if harm is not None:
                update["due"] = core.with_entry(books.due, stake, harm)
    return renewed(state, **update)


def sb_spent(state: FatesEdgeState, seq: int, event: vocab.SBSpent) -> FatesEdgeState:
    """Spend from the pool (never below 0); remember what the spend pays for while a rule may
    still read it: an attack not rolled yet, or a lock to come (a credit)."""
    update: dict[str, Any] = {
        "pools": core.with_entry(
            state.pools, "sb", max(0, state.pools.get("sb", 0) - event.amount)
        ),
    }
    owner = spend_owner(state, event)
    if event.purpose == "move" and after_a_hit(move_of(owner, event.move)):
        if owner is not None:
            hit = (
                state.harm_charged.get(event.stake, 0)
                if event.stake
                else state.last_hit_by.get(owner.name, 0)
            )
            update["triggered"] = core.with_entry(state.triggered, owner.name, hit)
    elif event.purpose in ("attack", "move"):
        # A spend naming no stake pays the oldest attack still owing one of its kind (the GM
        # paying what the audit reminded of), else it is kept for the next such lock.
        stake = event.stake if event.stake is not None else _owed_by(state, event)
        if stake is None:
            update["credits"] = (*state.credits, seq)
            update["spends"] = core.with_entry(state.spends, seq, event)
            return renewed(state, **update)
        if stake in state.rolled and stake in state.stakes:
            return renewed(state, **update)  # what it paid for is settled (`_settled`)
        spends = core.with_entry(state.spends, seq, event)
        paying = (*state.paid.get(stake, ()), seq)
        update["spends"] = spends
        update["paid"] = core.with_entry(state.paid, stake, paying)
        paid = sum(spends[s].amount for s in paying)
        unpaid = unpaid_after(state, stake, state.lock(stake), paid)
        if unpaid is not state.unpaid:
            update["unpaid"] = unpaid
    return renewed(state, **update)


def _settled(state: FatesEdgeState, stake: str) -> dict[str, Any]:
    """The changes that take what paid for `stake`, locked and now rolled, out of the state:
    what it was paid is read only before its roll (`unpaid_after`, the roll's audit), and a later
    lock of its id changes nothing (the first stands), so no rule reads it again; its spends
    go with it (none: nothing paid for it)."""
    paying = state.paid.get(stake)
    if paying is None:
        return {}
    spends = state.spends
    for spend in paying:
        spends = core.without(spends, spend)
    return {"paid": core.without(state.paid, stake), "spends": spends}


def _owed_by(state: FatesEdgeState, spend: vocab.SBSpent) -> str | None:
    """The oldest locked attack still owing SB that a stakeless spend of this kind pays for."""
    for stake in state.unpaid:
        lock = state.lock(stake)
        want = "move" if lock is not None and lock.source == "sb_move" else "attack"
        if lock is not None and spend.purpose == want and spend.move in (None, lock.move):
            return stake
    return None


class FatesEdge(core.Ruleset[FatesEdgeState, vocab.Events]):
    """Fate's Edge: adversary Resilience, Fatigue and armor, and player-facing tests."""

    key = "fates-edge"
    rules = Rules
    state = FatesEdgeState
    own_events = vocab.Events
    attrition = frozenset({"hit.resolved", "harm.suffered", "fatigue.marked"})
    stats = MappingProxyType({"player": vocab.PlayerStats, "adversary": vocab.AdversaryStats})
    refines = MappingProxyType({"defense-avoids-hit": frozenset({"hit-without-success"})})

    def start(self, opened: core.State) -> FatesEdgeState:
        """The initial state, with the pinned rules read once and the GM's Story Beat pool."""
        return core.replace(super().start(opened), pools=core.read_only({"sb": 0}))

    def join(
        self, state: FatesEdgeState, seq: int, event: events.CombatantJoined
    ) -> core.Combatant:
        """Validate a stat block and build the adversary or player."""
        return join(state, seq, event)

    def apply(self, state: FatesEdgeState, seq: int, event: vocab.Events) -> FatesEdgeState:
        """Fold a Fate's Edge event."""
        match event:
            case vocab.FEStakesLocked():
                return stakes_locked(state, seq, event)
            case vocab.FERollMade():
                return roll_made(state, seq, event)
            case vocab.HitResolved():
                return hit_resolved(state, seq, event)
            case vocab.FEHarmSuffered():
                return harm_suffered(state, seq, event)
            case vocab.FatigueMarked():
                return fatigue_marked(state, seq, event)
            case vocab.SBSpent():
                return sb_spent(state, seq, event)
            case _:
                assert_never(event)

    def adjust(
        self, state: FatesEdgeState, seq: int, event: events.TrackAdjusted
    ) -> FatesEdgeState:
        """A GM override of one track; Resilience set to 0 ends the phase (or defeats)."""
        was = state.combatant(event.target, "target")
        standing = event.track == "status" and event.value == "active"
        if standing and isinstance(was, Adversary) and was.resilience == 0:
            # "At zero Resilience the adversary is defeated": it stands up with some.
            raise BadInput(
                f"{event.target!r} has Resilience 0 and would be defeated again: set its "
                "resilience first (track.adjusted track=resilience), then its status"
            )
        if event.track == "body" and isinstance(was, Player):
            # A body given (or taken away) brings its Fatigue track (or ends it), as a stat
            # block's body does when the player joins.
            tracked = event.value is not None
            if tracked != (was.body is not None):
                fatigue = 0 if tracked else None
                was = core.replace(was, fatigue=fatigue)
                state = core.replace_combatant(state, was)
        state = core.adjust_track(state, seq, event)
        updated = state.combatants[event.target]
        if isinstance(updated, Adversary) and updated.resilience == 0 and updated.active:
            updated, _ = wound(updated, seq, 0, "none", 0, 0, False)
        return core.replace_combatant(state, updated)

    def scene_end(self, state: FatesEdgeState, seq: int) -> FatesEdgeState:
        """Unspent SB carry over up to the pinned maximum."""
        most = state.house.sb_carry_over_max
        held = state.pools.get("sb", 0)
        kept = held if most is None else min(held, most)
        return core.replace(state, pools=core.with_entry(state.pools, "sb", kept))

    def audit(
        self, before: FatesEdgeState, seq: int, event: Common | vocab.Events, after: FatesEdgeState
    ) -> Iterator[Finding]:
        """The Fate's Edge rules (see `projections.fates_edge.audit`)."""
        return fates_edge_audit.audit(before, seq, event, after)

    def obligations(self, state: FatesEdgeState) -> Iterator[Obligation]:
        """SB owed for a locked attack, a consequence not charged, a puzzle's Resolution."""
        return fates_edge_audit.obligations(state)

    def touches(
        self,
        before: FatesEdgeState | None,
        seq: int,
        event: Common | vocab.Events,
        after: FatesEdgeState,
    ) -> Mapping[str, Mapping[str, str]]:
        """A Fatigue track filled and cleared by one hit, and the like."""
        return fates_edge_words.touches(before, seq, event, after)

    def explain(
        self,
        before: FatesEdgeState | None,
        seq: int,
        event: Common | vocab.Events,
        after: FatesEdgeState,
    ) -> str | None:
        """The event in words (`projections.fates_edge.words`)."""
        return fates_edge_words.explain(before, seq, event, after)

    def charts(self, view: Mapping[str, Any]) -> tuple[Measure, ...]:
        """What the report charts of a combatant (`projections.fates_edge.shown`)."""
        return measures(view)

    def hurt(self, combatant: core.Combatant) -> Mapping[str, int]:
        """Resilience lost and Fatigue; a player's Harm and Fatigue (`.stats`)."""
        return fates_edge_stats.hurt(combatant)

    def dealer(
        self,
        before: FatesEdgeState,
        seq: int,
        event: Common | vocab.Events,
        after: FatesEdgeState,
    ) -> str | None:
        """The other side of the stake a hit or a suffered harm resolves (`.stats`)."""
        return fates_edge_stats.dealer(before, event)

    def cleared(
        self,
        before: FatesEdgeState,
        seq: int,
        event: Common | vocab.Events,
        after: FatesEdgeState,
    ) -> Mapping[str, Mapping[str, int]]:
        """The Fatigue a hit cleared by the rules, overflow included (`.stats`)."""
        return fates_edge_stats.cleared(after, seq)

    def odds(
        self, before: FatesEdgeState, event: Common | vocab.Events, roll: core.Roll
    ) -> Odds | None:
        """A pool of d10s against its DV, exactly (`.stats`)."""
        return fates_edge_stats.odds(event, roll)


RULESET = FatesEdge()
