"""The statistics of an encounter, from its replay as corrected: damage dealt and taken by
combatant, track and round; rolls per actor beside the chances their dice gave; what the GM's
pools gained and lost; who fell in which round; the rulings and findings.

Everything is counted from the fold: a step's damage is the rise of what its ruleset counts as
hurt (`Ruleset.hurt`) from the state before it to the state after it, plus what the rules
cleared on the way (`Ruleset.cleared`: a Fatigue overflow, neither damage nor recovery), so for
every combatant the damage taken less the damage recovered and the cleared is exactly how far
its tracks moved since it joined.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ledger import events
from projections.core import AnyRuleset, State
from projections.findings import Finding
from projections.odds import Odds, tally
from projections.replay import Step
from projections.revisions import standing


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class Blow:
    """What one step did to one track of one combatant: `amount` > 0 is damage taken (by
    `dealer`, where the events say), < 0 damage recovered, or, when `cleared`, what the rules
    cleared (a Fatigue overflow: neither damage nor recovery)."""

    seq: int
    round: int | None
    target: str
    track: str
    amount: int
    dealer: str | None
    type: str
    cleared: bool = False


@dataclass(frozen=True, slots=True)
class Fighter:
    """One combatant's damage: taken, recovered and dealt by track, and by round."""

    name: str
    side: str
    status: str
    taken: Mapping[str, int]
    recovered: Mapping[str, int]
    dealt: Mapping[str, int]
    #: (round, track) -> amount, in the order the rounds came.
    taken_by_round: Mapping[tuple[int | None, str], int]
    dealt_by_round: Mapping[tuple[int | None, str], int]
    #: What the rules cleared that is neither damage nor recovery (a Fatigue overflow).
    cleared: Mapping[str, int] = field(default_factory=lambda: _frozen({}))


@dataclass(frozen=True, slots=True)
class Source:
    """What dealt damage and is no combatant (a weapon an event names, a trap): what it
    dealt by track, and by round."""

    name: str
    dealt: Mapping[str, int]
    dealt_by_round: Mapping[tuple[int | None, str], int]


@dataclass(frozen=True, slots=True)
class Group:
    """Rolls alike in their odds (a pool size, an action die's bonus): how many, the outcomes
    the dice gave and their expected counts, and a number the dice make (rolled, expected)."""

    group: str
    rolls: int
    outcomes: Mapping[str, int]
    expected: Mapping[str, Fraction]
    measure: str | None = None
    value: int = 0
    expected_value: Fraction = Fraction(0)


@dataclass(frozen=True, slots=True)
class Roller:
    """One actor's rolls: how many, the outcomes the dice gave (counted as the ledger scores
    them), the expected count of each (where the ledger reads the dice), the outcomes a later
    event changed (a momentum burn), and the rolls by group."""

    actor: str
    rolls: int
    outcomes: Mapping[str, int]
    expected: Mapping[str, Fraction]
    with_odds: int
    changed: int
    groups: tuple[Group, ...]


@dataclass(frozen=True, slots=True)
class Pool:
    """A GM's pool: what it gained, and what lowered it, by event type."""

    pool: str
    gained: int
    lowered: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Defeat:
    """A combatant out of the fight: when, and how."""

    seq: int
    round: int | None
    combatant: str
    status: str
    text: str


@dataclass(frozen=True, slots=True)
class Stats:
    """An encounter's statistics (`encounter stats`)."""

    encounter: str
    system: str
    fighters: tuple[Fighter, ...]
    blows: tuple[Blow, ...]
    rollers: tuple[Roller, ...]
    pools: tuple[Pool, ...]
    defeats: tuple[Defeat, ...]
    #: The rulings recorded and those in force, by kind (undo, redo, correction, rewind).
    rulings: Mapping[str, int]
    in_force: Mapping[str, int]
    #: Findings by severity, and by rule.
    findings: Mapping[str, int]
    rules: Mapping[str, int]
    #: Events with dice: rolled by the ledger (verifiable), or typed.
    dice: Mapping[str, int] = field(default_factory=lambda: _frozen({"ledger": 0, "typed": 0}))
    #: What dealt damage and is no combatant, in the order it first did.
    sources: tuple[Source, ...] = ()

    @property
    def rounds(self) -> tuple[int | None, ...]:
        """The rounds damage was dealt in, in order."""
        return tuple(dict.fromkeys(b.round for b in self.blows))

    def document(self) -> dict[str, Any]:
        """`stats --json`."""
        return {
            "encounter": self.encounter,
            "system": self.system,
            "combatants": {f.name: _fighter(f) for f in self.fighters},
            "rolls": {r.actor: _roller(r) for r in self.rollers},
            "pools": {p.pool: {"gained": p.gained, "lowered": dict(p.lowered)} for p in self.pools},
            "defeats": [
                {"seq": d.seq, "round": d.round, "combatant": d.combatant, "status": d.status}
                for d in self.defeats
            ],
            "rulings": {"recorded": dict(self.rulings), "in_force": dict(self.in_force)},
            "findings": {"by_severity": dict(self.findings), "by_rule": dict(self.rules)},
            "dice": dict(self.dice),
            "sources": {
                s.name: {"dealt": dict(s.dealt), "dealt_by_round": _by_round(s.dealt_by_round)}
                for s in self.sources
            },
        }


def _by_round(found: Mapping[tuple[int | None, str], int]) -> list[dict[str, Any]]:
    rounds: dict[int | None, dict[str, int]] = {}
    for (round_, track), amount in found.items():
        rounds.setdefault(round_, {})[track] = amount
    return [{"round": r, "tracks": tracks} for r, tracks in rounds.items()]


def _fighter(f: Fighter) -> dict[str, Any]:
    return {
        "side": f.side,
        "status": f.status,
        "taken": dict(f.taken),
        "recovered": dict(f.recovered),
        "dealt": dict(f.dealt),
        "cleared": dict(f.cleared),
        "taken_by_round": _by_round(f.taken_by_round),
        "dealt_by_round": _by_round(f.dealt_by_round),
    }


def _number(value: Fraction) -> float:
    return round(float(value), 4)


def _roller(r: Roller) -> dict[str, Any]:
    return {
        "rolls": r.rolls,
        "outcomes": dict(r.outcomes),
        "expected": {k: _number(v) for k, v in r.expected.items()} if r.with_odds else None,
        "with_odds": r.with_odds,
        "changed": r.changed,
        "groups": [
            {
                "group": g.group,
                "rolls": g.rolls,
                "outcomes": dict(g.outcomes),
                "expected": {k: _number(v) for k, v in g.expected.items()},
                "measure": g.measure,
                "value": g.value if g.measure else None,
                "expected_value": _number(g.expected_value) if g.measure else None,
            }
            for g in r.groups
        ],
    }


def tally_encounter(
    ruleset: AnyRuleset,
    steps: Iterable[Step],
    records: Sequence[events.Recorded],
    findings: Iterable[Finding],
) -> Stats:
    """The statistics of an encounter from its replay as corrected (`steps`, read once), its
    stored events (for the rulings) and its findings."""
    tally = Tally(ruleset)
    for step in steps:
        tally.add(step)
    return tally.stats(records, findings)


class Tally:
    """The statistics as a replay goes: each step is read once and let go (a report of a long
    encounter tells its story in the same pass). What is kept grows with the damage dealt,
    the defeats and the rolls whose chances the system reads, not with the steps."""

    def __init__(self, ruleset: AnyRuleset) -> None:
        self.ruleset = ruleset
        self.final: State | None = None
        self.blows: list[Blow] = []
        self.gained: dict[str, int] = {}
        self.lowered: dict[str, dict[str, int]] = {}
        self.defeats: list[Defeat] = []
        self.dice = {"ledger": 0, "typed": 0}
        #: roll seq -> the state before it and its event, for the rolls whose chances the
        #: system reads (priced once the rolls as they finally stand are known).
        self.priced: dict[int, tuple[State, Any]] = {}

    def add(self, step: Step) -> None:
        """Count one step of the replay."""
        self.final = step.state
        self.blows.extend(_blows(self.ruleset, (step,)))
        self.defeats.extend(_defeats((step,)))
        event = step.record.event
        if isinstance(event, events.LedgerRolled) and step.skipped is None:
            self.dice["ledger" if event.ledger_rolled else "typed"] += 1
        before = step.before
        if before is None:
            return
        for pool, value in step.state.pools.items():
            delta = value - before.pools.get(pool, 0)
            if delta > 0:
                _add(self.gained, pool, delta)
            elif delta < 0:
                _add(self.lowered.setdefault(pool, {}), step.record.type, -delta)
        roll = step.state.roll_at(step.record.seq)
        if roll is not None and self.ruleset.odds(before, event, roll) is not None:
            self.priced[step.record.seq] = (before, event)

    def stats(self, records: Sequence[events.Recorded], findings: Iterable[Finding]) -> Stats:
        """The statistics of the steps counted."""
        final = self.final
        if final is None:
            raise ValueError("no step to count")
        blows = tuple(self.blows)
        dealers = _dealt(blows)
        found = list(findings)
        recorded, in_force = _rulings(records)
        pools = dict.fromkeys([*final.pools, *self.gained, *self.lowered])
        return Stats(
            encounter=final.encounter,
            system=final.system,
            fighters=tuple(_fighters(final, blows, dealers)),
            blows=blows,
            rollers=tuple(_rollers(self.ruleset, self.priced, final)),
            pools=tuple(
                Pool(pool, self.gained.get(pool, 0), _frozen(self.lowered.get(pool, {})))
                for pool in pools
            ),
            defeats=tuple(self.defeats),
            rulings=_frozen(recorded),
            in_force=_frozen(in_force),
            findings=_frozen(tally(f.severity for f in found)),
            rules=_frozen(tally(f.rule for f in found)),
            dice=_frozen(self.dice),
            sources=tuple(_sources(final, dealers)),
        )


def _blows(ruleset: AnyRuleset, steps: Iterable[Step]) -> Iterable[Blow]:
    for step in steps:
        before, after = step.before, step.state
        if before is None:
            continue
        dealer: str | None = None
        asked = False
        event, seq = step.record.event, step.record.seq
        cleared = ruleset.cleared(before, seq, event, after)
        for name, now in after.combatants.items():
            was = before.combatants.get(name)
            if was is None or was is now:
                continue
            old, new = ruleset.hurt(was), ruleset.hurt(now)
            gone = cleared.get(name, {})
            for track in dict.fromkeys([*old, *new]):
                # What the rules cleared is neither damage nor recovery: the rest of the
                # track's movement is (what was marked, when the track also reset).
                reset = gone.get(track, 0)
                amount = new.get(track, 0) - old.get(track, 0) + reset
                if reset:
                    yield Blow(
                        seq=seq,
                        round=step.round,
                        target=name,
                        track=track,
                        amount=-reset,
                        dealer=None,
                        type=step.record.type,
                        cleared=True,
                    )
                if not amount:
                    continue
                if amount > 0 and not asked:
                    dealer = ruleset.dealer(before, seq, event, after)
                    asked = True
                yield Blow(
                    seq=step.record.seq,
                    round=step.round,
                    target=name,
                    track=track,
                    amount=amount,
                    dealer=dealer if amount > 0 and dealer != name else None,
                    type=step.record.type,
                )


def _add(into: dict[Any, int], key: Any, amount: int) -> None:
    into[key] = into.get(key, 0) + amount


#: By track, and by (round, track).
Dealt = tuple[dict[str, int], dict[tuple[int | None, str], int]]


def _dealt(blows: Sequence[Blow]) -> dict[str, Dealt]:
    """What each dealer dealt, a combatant or a source that is none (a weapon), in the order
    each first did."""
    out: dict[str, Dealt] = {}
    for blow in blows:
        if blow.dealer is not None:
            tracks, by_round = out.setdefault(blow.dealer, ({}, {}))
            _add(tracks, blow.track, blow.amount)
            _add(by_round, (blow.round, blow.track), blow.amount)
    return out


def _fighters(
    final: State, blows: Sequence[Blow], dealers: Mapping[str, Dealt]
) -> Iterable[Fighter]:
    for name, combatant in final.combatants.items():
        taken: dict[str, int] = {}
        recovered: dict[str, int] = {}
        taken_by: dict[tuple[int | None, str], int] = {}
        cleared: dict[str, int] = {}
        dealt, dealt_by = dealers.get(name, ({}, {}))
        for blow in blows:
            if blow.target == name and blow.cleared:
                _add(cleared, blow.track, -blow.amount)
            elif blow.target == name:
                if blow.amount > 0:
                    _add(taken, blow.track, blow.amount)
                    _add(taken_by, (blow.round, blow.track), blow.amount)
                else:
                    _add(recovered, blow.track, -blow.amount)
        yield Fighter(
            name=name,
            side=combatant.side,
            status=combatant.status,
            taken=_frozen(taken),
            recovered=_frozen(recovered),
            dealt=_frozen(dealt),
            taken_by_round=_frozen(taken_by),
            dealt_by_round=_frozen(dealt_by),
            cleared=_frozen(cleared),
        )


def _sources(final: State, dealers: Mapping[str, Dealt]) -> Iterable[Source]:
    """Whatever dealt damage and is no combatant: the weapon an event names (`Ruleset.dealer`)."""
    for name, (tracks, by_round) in dealers.items():
        if name not in final.combatants:
            yield Source(name, _frozen(tracks), _frozen(by_round))


def _rollers(
    ruleset: AnyRuleset, read: Mapping[int, tuple[State, Any]], final: State
) -> Iterable[Roller]:
    mine: dict[str, list[tuple[str, str, Odds | None]]] = {}
    for roll in final.rolls:
        pair = read.get(roll.seq)
        odds = ruleset.odds(pair[0], pair[1], roll) if pair is not None else None
        scored = roll.outcome or "none"
        rolled = odds.outcome if odds is not None else scored
        mine.setdefault(roll.actor or roll.stake or "?", []).append((rolled, scored, odds))
    for actor, made in mine.items():
        priced = [o for _, _, o in made if o is not None]
        order = priced[0].order if priced else ()
        outcomes = tally(rolled for rolled, _, _ in made)
        yield Roller(
            actor=actor,
            rolls=len(made),
            outcomes=_frozen(_ordered(outcomes, order)),
            expected=_frozen(_ordered(_expected(priced), order)),
            with_odds=len(priced),
            changed=sum(1 for rolled, scored, _ in made if rolled != scored),
            groups=tuple(_groups(priced)),
        )


def _ordered(counts: Mapping[str, Any], order: Sequence[str]) -> dict[str, Any]:
    """`counts` with the outcomes in `order` first (those never rolled at 0), then the rest."""
    zero = Fraction(0) if any(isinstance(v, Fraction) for v in counts.values()) else 0
    out = {k: counts.get(k, zero) for k in order}
    out.update((k, v) for k, v in counts.items() if k not in out)
    return out


def _expected(priced: Sequence[Odds]) -> dict[str, Fraction]:
    total: dict[str, Fraction] = {}
    for odds in priced:
        for outcome, chance in odds.chances.items():
            total[outcome] = total.get(outcome, Fraction(0)) + chance
    return total


def _groups(priced: Sequence[Odds]) -> Iterable[Group]:
    by: dict[str, list[Odds]] = {}
    for odds in priced:
        by.setdefault(odds.group, []).append(odds)
    for name, alike in by.items():
        order = alike[0].order
        yield Group(
            group=name,
            rolls=len(alike),
            outcomes=_frozen(_ordered(tally(o.outcome for o in alike), order)),
            expected=_frozen(_ordered(_expected(alike), order)),
            measure=alike[0].measure,
            value=sum(o.value or 0 for o in alike),
            expected_value=sum((o.expected or Fraction(0) for o in alike), Fraction(0)),
        )


def _defeats(steps: Iterable[Step]) -> Iterable[Defeat]:
    for step in steps:
        for change in step.changes:
            if change.track == "status" and change.before == "active" and change.after:
                yield Defeat(
                    seq=step.record.seq,
                    round=step.round,
                    combatant=change.combatant,
                    status=str(change.after),
                    text=step.text,
                )


def _rulings(records: Sequence[events.Recorded]) -> tuple[dict[str, int], dict[str, int]]:
    """The rulings recorded, and those in force, by kind."""
    gone = standing(records).gone
    kinds = {r.seq: r.type for r in records}
    recorded: dict[str, int] = {}
    in_force: dict[str, int] = {}
    for record in records:
        event = record.event
        if isinstance(event, events.EventRetracted):
            kind = "redo" if kinds.get(event.target) == "event.retracted" else "undo"
            if event.kind == "amend":
                kind = "correction"
        elif isinstance(event, events.EventCorrected):
            kind = "correction"
        elif isinstance(event, events.EncounterRewound):
            kind = "rewind"
        else:
            continue
        _add(recorded, kind, 1)
        if record.seq not in gone:
            _add(in_force, kind, 1)
    return recorded, in_force
