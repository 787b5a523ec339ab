"""One act judged by the policy in force (`projections.policy`): whether its user may record
it, and the full table an event pins. Nothing here does I/O: the write path asks `refusal`
before it appends, the audit after (`policy-allows-act`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from ledger import events
from ledger.errors import BadInput, did_you_mean
from projections.policy import Policy, parse
from projections.proposals import vocabulary
from projections.ruleset import AnyRuleset
from projections.state import Combatant, State, track_names
from projections.values import known_classes


def pinned(
    ruleset: AnyRuleset, table: Mapping[str, Any] | None, opener: str | None = None
) -> dict[str, Any]:
    """The full policy table: `table` checked, the system's rolls as `players_own` when it
    names none, and `opener` first among the GMs."""
    data = dict(table or {})
    data.setdefault("players_own", sorted(ruleset.rolls))
    if opener is not None:
        gms = list(data.get("gms") or [])
        data["gms"] = [opener, *(g for g in gms if g != opener)]
    policy = parse(data)
    known = vocabulary(ruleset).types
    for key in ("players_own", "players_any"):
        for kind in getattr(policy, key):
            if kind not in known:
                raise BadInput(
                    f"policy {key}: {kind!r} is no event type of {ruleset.key} "
                    f"(known: {', '.join(known)})",
                    code="unknown-type",
                )
    tracks = every_track(ruleset)
    for side, names in policy.hidden.items():
        for name in names:
            if name not in tracks:
                raise BadInput(
                    f"policy hidden.{side}: {ruleset.key} has no track {name!r} "
                    f"(tracks: {', '.join(tracks)})",
                    code="unknown-track",
                )
    return policy.table()


@cache
def every_track(ruleset: AnyRuleset) -> tuple[str, ...]:
    """Every track a combatant of the system may have (a `hidden` policy names some)."""
    found: list[str] = []
    for kind in known_classes(ruleset.state).values():
        if isinstance(kind, type) and issubclass(kind, Combatant):
            found += [t for t in track_names(kind) if t not in found and t not in ("side",)]
    return tuple(found)


def player_of(state: State, combatant: str) -> str | None:
    """The user who plays `combatant` (None: nobody named)."""
    return state.players.get(combatant)


def plays(state: State, user: str) -> list[str]:
    """The combatants `user` plays, in the order they joined."""
    return [name for name, who in state.players.items() if who == user]


def striker(state: State, event: events.EventBase, target: str | None) -> str | None:
    """The combatant an event says struck, where it says so: the combatant its `by` names,
    or the one combatant its `by` user plays; never its `target` (a player who records the
    blow their own combatant took did not strike it). None: the event does not say."""
    by = event.by
    if by is None:
        return None
    named = [by] if by in state.combatants else plays(state, by)
    others = [name for name in named if name != target]
    return others[0] if len(others) == 1 else None


def owner(state: State, event: events.EventBase) -> str | None:
    """Whose act an event is: its actor, else the actor of the stake it names, else its
    target (a player's roll for their own combatant)."""
    actor = getattr(event, "actor", None)
    if isinstance(actor, str):
        return actor
    stake = getattr(event, "stake", None)
    if isinstance(stake, str) and stake in state.stakes:
        return state.stakes[stake].lock.actor
    target = getattr(event, "target", None)
    return target if isinstance(target, str) else None


def refusal(state: State, user: str | None, event: events.EventBase) -> str | None:
    """Why the policy in force refuses `user` recording `event` (None: it may): one line
    naming the user, the act and the rule."""
    policy = state.policy
    if policy is None:
        return None
    kind = events.type_of(event)
    if user is None:
        return (
            f"nobody named may record {kind} in encounter {state.encounter!r}: it has GMs, so "
            "every act names who records it (policy: gms); give --as USER or ENCOUNTER_USER "
            "(the library: Ledger(..., user=USER))"
        )
    entered = event.entered_by
    if entered is not None and entered != user:
        # An act entered in `user`'s name by someone else: theirs is the right it needs.
        return refusal(state, entered, event.model_copy(update={"by": user, "entered_by": None}))
    if policy.is_gm(user):
        return None
    by = event.by
    if by is not None and by != user:
        return (
            f"{user!r} may not record {kind} in the name of {by!r}: only a GM records an act "
            f"in another's name (policy: gms {_listed(policy.gms)})"
        )
    if kind in ("proposal.accepted", "proposal.rejected", "policy.changed"):
        return (
            f"{user!r} may not record {kind}: only a GM rules on proposals and sets the "
            f"policy (policy: gms {_listed(policy.gms)})"
        )
    mine = plays(state, user)
    if not mine:
        return (
            f"{user!r} may not record {kind}{_on(event)}: they are no GM (policy: gms "
            f"{_listed(policy.gms)}) and play no combatant of {state.encounter!r}"
        )
    if kind in policy.players_any:
        return None
    if kind in policy.players_own:
        whose = owner(state, event)
        if whose in mine:
            return None
        played = player_of(state, whose) if whose is not None else None
        by_whom = f", played by {played!r}" if played else ""
        named = repr(whose) if whose is not None else "no combatant"
        return (
            f"{user!r} may not record {kind} for {named}{by_whom}: a player "
            f"records it only for a combatant they play ({', '.join(mine)}) (policy: "
            "players_own); propose it instead"
        )
    return (
        f"{user!r} may not record {kind}{_on(event)}: a player records {_allowed(policy)} "
        "(policy: players_own, players_any); propose it instead: encounter propose"
    )


def users(state: State) -> list[str]:
    """Everyone the encounter's policy names: its GMs, then the players, in order."""
    gms = state.policy.gms if state.policy is not None else ()
    return list(dict.fromkeys([*gms, *state.players.values()]))


def stranger(state: State, user: str | None) -> str | None:
    """Why `user` is nobody an act at this table can be in the name of (None: a GM or a
    player of the encounter)."""
    known = users(state)
    if user is None or user in known:
        return None
    return (
        f"{user!r} is nobody of encounter {state.encounter!r}: no GM and no player of a "
        f"combatant{did_you_mean(user, known)} (users: {_listed(known)})"
    )


def _on(event: events.EventBase) -> str:
    """` on 'Brin'`: whom an act names as its target."""
    target = getattr(event, "target", None)
    return f" on {target!r}" if isinstance(target, str) else ""


def _listed(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


def _allowed(policy: Policy) -> str:
    own = ", ".join(policy.players_own)
    anyone = ", ".join(policy.players_any)
    parts = [f"{own} for a combatant they play"] if own else []
    parts += [anyone] if anyone else []
    return " and ".join(parts) or "nothing"
