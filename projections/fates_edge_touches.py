"""What a Fate's Edge hit or Fatigue event did to each track it touched, in words.

A track can end where it started and still have been touched: a hit whose Harm cleared the
Fatigue it then marked again, a Fatigue mark that filled the track, cost a Resilience and cleared
it. `history` lists those events too and says what happened to the track.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projections.fates_edge_model import Adversary, FatesEdgeState, Hit


def touches(
    before: FatesEdgeState | None, seq: int, event: Any, after: FatesEdgeState
) -> Mapping[str, Mapping[str, str]]:
    """{combatant: {track: what happened to it}} for the hit or Fatigue event at `seq`."""
    hit = after.last_hit
    if hit is None or hit.seq != seq:
        return {}
    who = after.combatants.get(hit.target)
    if isinstance(who, Adversary):
        return {hit.target: _adversary(hit, who)}
    return {hit.target: _player(hit)}


def _adversary(hit: Hit, who: Adversary) -> dict[str, str]:
    out = _fatigue(hit, f"filled the track (capacity {who.fatigue_capacity}) and cleared")
    resilience: list[str] = []
    if hit.remaining:
        resilience.append(f"{hit.remaining} Harm")
    if hit.overflow:
        resilience.append("1 for the Fatigue overflow")
    if resilience:
        out["resilience"] = " and ".join(resilience)
    if hit.phase[0] != hit.phase[1]:
        out["phase"] = f"phase {hit.phase[0]} ended"
    return out


def _player(hit: Hit) -> dict[str, str]:
    out = _fatigue(hit, "filled the track and overflowed")
    harm: list[str] = []
    if hit.remaining:
        harm.append(f"{hit.remaining} Harm")
    if hit.overflow:
        harm.append(f"{hit.overflow} for the Fatigue overflow")
    if harm:
        out["harm"] = " and ".join(harm)
    return out


def _fatigue(hit: Hit, overflowed: str) -> dict[str, str]:
    """What a hit did to the Fatigue track, in order (`overflowed`: how its side words an
    overflow)."""
    fatigue: list[str] = []
    if hit.cleared:
        fatigue.append("cleared by the Harm")
    if hit.converted:
        fatigue.append(f"{hit.converted} marked")
    if hit.overflow:
        fatigue.append(overflowed)
    return {"fatigue": ", then ".join(fatigue)} if fatigue else {}
