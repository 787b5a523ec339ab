"""The Ironsworn audit rules: Endure Harm's order, stat, strong-hit choice, 0-health miss, burns.

Ids (DESIGN.md section 6): `harm-before-roll`, `endure-harm-stat`, `shake-it-off-allowed`,
`miss-at-zero-health`, `momentum-burn-allowed`; added here: `recovery-blocked` (a meter raised
while its debility is marked), `permanent-debility-cleared` (maimed or corrupted cleared),
`debility-unchanged` (marking a debility already marked, or clearing one that is not: the fold
leaves the sheet as it was, so the table's record and the ledger's may differ), and
`oracle-not-owed` (the Endure Harm oracle rolled when no miss at 0 health called for it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ledger import events
from projections.findings import Finding, Obligation, error, info, warning
from projections.ironsworn import events as vocab
from projections.ironsworn import model as model
from projections.ironsworn.shown import move_name
from projections.played import as_played, delta
from projections.words import indefinite, plain

#: The banes (and Starforged's lasting effects): marked for good.
PERMANENT = ("maimed", "corrupted", "permanently_harmed", "traumatized")


def unchanged(c: model.Character) -> str:
    """The fold makes no exchange that the text does not allow: momentum pays only for health."""
    return (
        f"(the text makes the exchange conditional, so the ledger changes neither: health "
        f"stays {c.health}, momentum {c.momentum})"
    )


def audit(
    before: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """Every Ironsworn finding one event raises."""
    yield from harm_before_roll(before, seq, event)
    yield from endure_harm_stat(before, seq, event)
    yield from shake_it_off_allowed(before, seq, event, after)
    yield from miss_at_zero_health(before, seq, event, after)
    yield from oracle_not_owed(before, seq, event, after)
    yield from momentum_burn_allowed(before, seq, event, after)
    yield from meters(before, seq, event, after)
    yield from foe_gone(before, seq, event)


def harm_before_roll(state: model.IronswornState, seq: int, event: Any) -> Iterator[Finding]:
    """Endure Harm: the harm is suffered first, then the roll; each harm gets its roll."""
    if isinstance(event, vocab.IronswornHarmSuffered):
        pending = state.pending_harm.get(event.target)
        if pending is not None:
            yield warning(
                "harm-before-roll",
                (pending, seq),
                f"harm at seq {pending} on {event.target!r} was never followed by its Endure "
                f"Harm roll before the next harm at seq {seq}",
            )
    if isinstance(event, vocab.IronswornRollMade):
        pending = state.pending_harm.get(event.actor)
        if event.move == "endure_harm" and pending is None:
            yield error(
                "harm-before-roll",
                (seq,),
                f"Endure Harm roll at seq {seq} by {event.actor!r} follows no harm.suffered; "
                "the harm is suffered first, then the roll",
            )
        elif event.move != "endure_harm" and pending is not None:
            yield warning(
                "harm-before-roll",
                (pending, seq),
                f"harm at seq {pending} on {event.actor!r} has no Endure Harm roll; seq {seq} "
                f"is {indefinite(move_name(event.move))} roll",
            )


def endure_harm_stat(state: model.IronswornState, seq: int, event: Any) -> Iterator[Finding]:
    """Roll +health or +iron, whichever is higher, with health after the harm."""
    if not isinstance(event, vocab.IronswornRollMade) or event.move != "endure_harm":
        return
    c = model.character(state, event.actor, "actor")
    health, iron = c.health, c.value("iron")
    best = max(health, iron)
    if event.stat in ("health", "iron") and c.value(event.stat) >= best:
        return
    used = c.value(event.stat)
    stat = "iron" if iron >= health else "health"
    played = model.action_score(state.house, c.momentum, event.action_die, used, event.adds)
    score = model.action_score(state.house, c.momentum, event.action_die, best, event.adds)
    dice = f"{event.challenge[0]}, {event.challenge[1]}"
    instead = (
        f"by the rules +{stat} {best}: score {score} vs {dice}, "
        f"{plain(model.beaten(score, event.challenge))}; recorded as played: +{event.stat} "
        f"{used}, score {played}, {plain(model.beaten(played, event.challenge))}"
    )
    if event.stat not in ("health", "iron"):
        yield error(
            "endure-harm-stat",
            (seq,),
            f"Endure Harm roll at seq {seq} uses +{event.stat}; it rolls +health ({health}) "
            f"or +iron ({iron}), whichever is higher: {instead}",
        )
    else:
        yield error(
            "endure-harm-stat",
            (seq,),
            f"Endure Harm roll at seq {seq} uses +{event.stat} ({used}); "
            f"+health after the harm is {health} and +iron is {iron}: roll the higher; {instead}",
        )


def shake_it_off_allowed(
    state: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """One strong-hit choice per strong hit; shake it off needs health > 0 and no wound."""
    if not isinstance(event, vocab.ChoiceMade):
        return
    rules = state.house
    # The option in words (`shake it off`); the key stays in the event.
    name, option = event.target, plain(event.option)
    c = model.character(state, name)
    # A choice the rules do not give is applied as played; by the rules nothing changes.
    instead = f"by the rules health stays {c.health} and momentum {c.momentum}; " + as_played(
        state, after, name
    )
    on = state.last_roll.get(name)
    made = state.roll_at(on) if on is not None else None
    if on is None or not isinstance(made, model.IronswornRoll):
        yield error(
            "shake-it-off-allowed",
            (seq,),
            f"{option} at seq {seq}: {name!r} has made no roll; the choice follows a strong "
            f"hit: {instead}",
        )
        return
    if made.move != "endure_harm":
        yield error(
            "shake-it-off-allowed",
            (on, seq),
            f"{option} at seq {seq} follows {indefinite(move_name(made.move))} roll (seq {on}); "
            f"the choice belongs to an Endure Harm strong hit: {instead}",
        )
    elif made.outcome != "strong_hit":
        yield error(
            "shake-it-off-allowed",
            (on, seq),
            f"{option} at seq {seq} follows {indefinite(plain(str(made.outcome)))} (seq {on}); "
            f"only a strong hit gives a choice: {instead}",
        )
    first = state.choices.get(on)
    if first is not None:
        yield error(
            "shake-it-off-allowed",
            (first, seq),
            f"{option} at seq {seq} is a second choice on the roll at seq {on} "
            f"(first at seq {first}); a strong hit gives one: {instead}",
        )
    if event.option == "embrace_the_pain":
        if c.momentum >= c.max_momentum:
            yield info(
                "shake-it-off-allowed",
                (seq,),
                f"embrace the pain at seq {seq}: {name!r} is at max momentum "
                f"{c.max_momentum}; the +1 is lost",
            )
        return
    if "wounded" in c.debilities and rules.wounded_blocks_shake_it_off:
        yield error(
            "shake-it-off-allowed",
            (seq,),
            f"shake it off at seq {seq}: {name!r} is wounded and cannot increase health "
            f"{unchanged(c)}",
        )
    if rules.strong_hit_text == "move" and c.health == 0:
        yield error(
            "shake-it-off-allowed",
            (seq,),
            f"shake it off at seq {seq}: {name!r} has 0 health; it needs health greater than 0 "
            f"{unchanged(c)}",
        )
    if c.health == model.METER_MAX and rules.shake_it_off_at_max_health == "disallowed":
        yield error(
            "shake-it-off-allowed",
            (seq,),
            f"shake it off at seq {seq}: {name!r} is at full health {c.health}; "
            f"these house rules refuse a wasted +1 health {unchanged(c)}",
        )
    elif c.health == model.METER_MAX and rules.shake_it_off_at_max_health != "allowed":
        yield warning(
            "shake-it-off-allowed",
            (seq,),
            f"shake it off at seq {seq}: {name!r} is at full health {c.health}; "
            "the +1 health is wasted",
        )


def _moves_on(event: Any) -> str | None:
    """The character an event moves the story on for, past an owed 0-health miss choice."""
    if isinstance(event, vocab.IronswornRollMade):
        return event.actor
    if isinstance(event, vocab.IronswornHarmSuffered | vocab.ChoiceMade | vocab.MomentumBurned):
        return event.target
    return None


def miss_at_zero_health(
    state: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """A miss at 0 health: mark wounded or maimed (if unmarked), else roll the oracle."""
    owing = [
        (name, on)
        for name, on in state.owed.items()
        if isinstance(event, events.SceneEnded) or _moves_on(event) == name
    ]
    for name, on in owing:
        if isinstance(event, vocab.MomentumBurned) and event.roll == on:
            continue
        c = model.character(state, name)
        yield error(
            "miss-at-zero-health",
            (on, seq),
            f"{name!r} missed at 0 health at seq {on}, and seq {seq} moves on before they "
            + _options(c.debilities),
        )
    if isinstance(event, vocab.DebilityMarked) and event.target in state.owed:
        c = model.character(state, event.target)
        if event.debility in ("wounded", "maimed") and event.debility in c.debilities:
            on = state.owed[event.target]
            yield error(
                "miss-at-zero-health",
                (on, seq),
                f"seq {seq} marks {event.debility}, already marked; after the miss at seq {on} "
                f"{event.target!r} must " + _options(c.debilities),
            )


def obligations(state: model.IronswornState) -> Iterator[Obligation]:
    """Each Endure Harm miss at 0 health still owing a debility or the oracle, and each
    character's latest roll, when an Endure Harm strong hit, still owing its choice (until a
    new harm comes: the choice is then judged by the sheet as it is no more)."""
    for name, on in state.owed.items():
        c = model.character(state, name)
        yield Obligation(
            (on,),
            f"Endure Harm miss at 0 health at seq {on}: {name!r} must " + _options(c.debilities),
            "miss-at-zero-health",
        )
    for name, on in state.last_roll.items():
        made = state.roll_at(on)
        if (
            isinstance(made, model.IronswornRoll)
            and made.move == "endure_harm"
            and made.outcome == "strong_hit"
            and on not in state.choices
            and state.pending_harm.get(name, 0) < on  # a new harm: the moment has passed
        ):
            yield Obligation(
                (on,),
                f"Endure Harm strong hit at seq {on}: {name!r} chooses one: "
                + _choices(state, model.character(state, name)),
                "shake-it-off-allowed",
            )


def _choices(state: model.IronswornState, c: model.Character) -> str:
    """The strong-hit options the rules give a character now (`choice.made`)."""
    embrace = "embrace the pain (+1 momentum)"
    blocked = model.shake_blocked(c, state.house)
    if blocked == "wounded":
        return f"{embrace}; wounded, they cannot shake it off"
    if blocked == "no_health":
        return f"{embrace}; at 0 health they cannot shake it off"
    return f"shake it off (-1 momentum, +1 health) or {embrace}"


def _options(debilities: tuple[str, ...]) -> str:
    free = [d for d in ("wounded", "maimed") if d not in debilities]
    if not free:
        return "roll the Endure Harm oracle (wounded and maimed are both marked)"
    return f"mark {' or '.join(free)} or roll the Endure Harm oracle"


def oracle_not_owed(
    state: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """The oracle follows an Endure Harm miss at 0 health, or a reeling character's exertion."""
    if not isinstance(event, vocab.OracleRolled) or event.target in state.owed:
        return
    if "reeling" in model.character(state, event.target).conditions:
        return  # "If you engage in any vigorous activity ... roll on this table again"
    yield warning(
        "oracle-not-owed",
        (seq,),
        f"seq {seq} rolls the Endure Harm oracle for {event.target!r}, who owes no roll on it "
        "(it follows an Endure Harm miss at 0 health); the ledger keeps its tag: "
        + as_played(state, after, event.target),
    )


def momentum_burn_allowed(
    state: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """A burn needs positive momentum, comes right after its roll, once, and should help."""
    if not isinstance(event, vocab.MomentumBurned):
        return
    was = state.roll_at(event.roll)
    now = after.roll_at(event.roll)
    if not isinstance(was, model.IronswornRoll) or not isinstance(now, model.IronswornRoll):
        return
    on, name = event.roll, event.target
    held = model.character(state, name).momentum
    # A burn the rules refuse is applied as played; by the rules nothing changes.
    instead = (
        f"by the rules the roll stays {indefinite(plain(str(was.outcome)))} and momentum stays "
        f"{held}; recorded as "
        f"played: the roll {plain(str(was.outcome))} -> {plain(str(now.outcome))}, "
        f"{delta(state, after, name)}"
    )
    if not state.house.burn_momentum_allowed:
        yield error(
            "momentum-burn-allowed",
            (on, seq),
            f"seq {seq} burns momentum; these house rules allow no burn: {instead}",
        )
    if was.momentum <= 0:
        yield error(
            "momentum-burn-allowed",
            (on, seq),
            f"seq {seq} burns momentum for the roll at seq {on}, when {name!r} held "
            f"{was.momentum}; only positive momentum can be burned: {instead}",
        )
    first = state.burns.get(on)
    if first is not None:
        yield error(
            "momentum-burn-allowed",
            (first, seq),
            f"seq {seq} burns momentum again for the roll at seq {on} (burned at seq {first}): "
            f"{instead}",
        )
    latest = state.last_roll.get(name, on)
    if latest != on:
        yield error(
            "momentum-burn-allowed",
            (on, latest, seq),
            f"seq {seq} burns momentum for the roll at seq {on} after {name!r} rolled again "
            f"at seq {latest}; a burn follows its roll: {instead}",
        )
    acted = state.acted.get(on)
    if acted is not None:
        yield error(
            "momentum-burn-allowed",
            (on, acted, seq),
            f"seq {seq} burns momentum for the roll at seq {on} after its outcome was acted "
            f"on at seq {acted}: {instead}",
        )
    if was.momentum > 0 and now.outcome == was.outcome:
        yield warning(
            "momentum-burn-allowed",
            (on, seq),
            f"seq {seq} burns momentum {was.momentum} for the roll at seq {on} (score "
            f"{was.score} vs {was.challenge[0]}, {was.challenge[1]}): it stays "
            f"{indefinite(plain(str(was.outcome)))}; "
            "a burn only helps when a challenge die the score did not beat is below momentum",
        )


def meters(
    state: model.IronswornState, seq: int, event: Any, after: model.IronswornState
) -> Iterator[Finding]:
    """A meter cannot rise while its debility is marked; banes are permanent."""
    if isinstance(event, vocab.MeterChanged) and event.amount > 0 and event.meter in model.BLOCKS:
        c = model.character(state, event.target)
        debility = model.BLOCKS[event.meter]
        if debility in c.debilities:
            yield warning(
                "recovery-blocked",
                (seq,),
                f"seq {seq} gives {event.target!r} +{event.amount} {event.meter} while "
                f"{debility}; {event.meter} cannot increase until {debility} is cleared "
                f"(the ledger keeps it at {getattr(c, event.meter)})",
            )
    if isinstance(event, vocab.DebilityMarked | vocab.DebilityCleared):
        marked = event.debility in model.character(state, event.target).debilities
        if marked == isinstance(event, vocab.DebilityMarked):
            yield warning(
                "debility-unchanged",
                (seq,),
                f"seq {seq} {'marks' if marked else 'clears'} {event.debility} for "
                f"{event.target!r}, who {'already has it marked' if marked else 'does not have it'}"
                "; the ledger leaves the debilities as they were",
            )
    if isinstance(event, vocab.DebilityCleared) and event.debility in PERMANENT:
        yield warning(
            "permanent-debility-cleared",
            (seq,),
            f"seq {seq} clears {event.debility} from {event.target!r}; "
            f"{event.debility} is a permanent bane: by the rules it stays marked; "
            + as_played(state, after, event.target),
        )


def foe_gone(state: model.IronswornState, seq: int, event: Any) -> Iterator[Finding]:
    """Harm from a foe who is no longer in the fight (`event-after-defeat`, for the `foe`)."""
    if isinstance(event, vocab.IronswornHarmSuffered) and event.foe is not None:
        who = state.combatants.get(event.foe)
        if who is not None and not who.active:
            yield error(
                "event-after-defeat",
                (seq,),
                f"harm at seq {seq} comes from {event.foe!r}, who is {who.status} "
                "and no longer in the fight",
            )
