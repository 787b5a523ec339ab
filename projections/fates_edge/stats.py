"""What the statistics read of Fate's Edge: the damage a combatant took (Resilience lost over
every phase, Fatigue marked; a player's Harm level and Fatigue), the Fatigue the rules cleared
(an overflow, a wound, a new phase: no recovery), who dealt it (the other side of the stake it
resolves), and the exact chances of a pool of d10s against its DV."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final

from projections import core
from projections.fates_edge import events as vocab
from projections.fates_edge.model import Adversary, FatesEdgeState, FERoll, Player
from projections.odds import Odds, distribution

#: Successes one d10 gives: 1-5 none, 6-9 one, 10 two.
DIE: Final = MappingProxyType({0: Fraction(5, 10), 1: Fraction(4, 10), 2: Fraction(1, 10)})
#: The outcomes, best first.
ORDER: Final = ("success", "partial", "miss")


def hurt(combatant: core.Combatant) -> Mapping[str, int]:
    """An adversary's Resilience lost (the phases it broke counted whole) and its Fatigue; a
    player's Harm level and Fatigue."""
    if isinstance(combatant, Player):
        return {"harm": combatant.harm, "fatigue": combatant.fatigue or 0}
    if not isinstance(combatant, Adversary) or combatant.resilience is None:
        return {}
    listed = (combatant.stats.resilience or 0, *combatant.stats.phases)
    broken = sum(listed[: combatant.phase - 1])
    lost = broken + listed[min(combatant.phase, len(listed)) - 1] - combatant.resilience
    return {"resilience": lost, "fatigue": combatant.fatigue}


def cleared(after: FatesEdgeState, seq: int) -> Mapping[str, Mapping[str, int]]:
    """The Fatigue the hit or Fatigue event at `seq` cleared by the rules: what was on the
    track plus what it marked, less what is left (an overflow clears the track and discards
    the excess; remaining Harm clears old Fatigue; a new phase starts with none). None of it
    is a recovery."""
    hit = after.last_hit
    if hit is None or hit.seq != seq:
        return {}
    was, now = hit.before[1], hit.after[1]
    if was is None or now is None:
        return {}
    gone = was + hit.converted - now
    return {hit.target: {"fatigue": gone}} if gone > 0 else {}


def dealer(before: FatesEdgeState, event: Any) -> str | None:
    """Whoever is on the other side of the stake a hit or a suffered harm resolves."""
    if not isinstance(event, vocab.HitResolved | vocab.FEHarmSuffered):
        return None
    lock = before.lock(event.stake)
    if lock is None:
        return None
    if isinstance(event, vocab.FEHarmSuffered):
        against = before.opposing(lock)
        return against.name if against is not None else None
    for name in (lock.actor, lock.opposing, lock.target):
        if name is not None and name != event.target and name in before.combatants:
            return name
    return None


def distribution_chances(pool: int, dv: int) -> dict[str, Fraction]:
    """The chances of success (successes >= DV), partial (some, fewer than DV) and miss (none)
    for a pool of d10s, by convolution of one die's successes."""
    found = distribution(DIE, pool)
    success = sum((p for n, p in found.items() if n >= dv), Fraction(0))
    miss = found.get(0, Fraction(0)) if dv > 0 else Fraction(0)
    return {"success": success, "partial": 1 - success - miss, "miss": miss}


def odds(event: Any, roll: core.Roll) -> Odds | None:
    """A pool of d10s against its DV: the chances of success, partial and miss, and the
    successes it makes (0.6 a die)."""
    if not isinstance(event, vocab.FERollMade) or not isinstance(roll, FERoll):
        return None
    pool = len(event.dice)
    return Odds(
        group=f"{pool}d10",
        outcome=roll.outcome or "miss",
        chances=MappingProxyType(distribution_chances(pool, roll.dv)),
        measure="successes",
        value=roll.successes,
        expected=Fraction(6, 10) * pool,
        order=ORDER,
    )
