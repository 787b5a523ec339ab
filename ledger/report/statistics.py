"""The statistics in tables and sentences, for `encounter stats`, the session log's and the HTML
report's statistics section, and the recap (`projections.statistics` computes them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from projections import words
from projections.statistics import Fighter, Roller, Stats

#: What the statistics, the session log and the report say of an encounter with no combatant.
NOBODY = "nobody has joined the fight yet"


@dataclass(frozen=True)
class Table:
    """A titled table: its header and rows, as text."""

    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def tracks(amounts: Mapping[str, int]) -> str:
    """`resilience 3, fatigue 1`, or `-` for nothing."""
    shown = [f"{words.plain(track)} {n}" for track, n in amounts.items() if n]
    return ", ".join(shown) or "-"


def expected(value: Fraction) -> str:
    """An expected count to one decimal place (`1.6`)."""
    return f"{float(value):.1f}"


def tables(stats: Stats) -> list[Table]:
    """Damage by combatant, damage by round, rolls by actor and by group (no table while
    nobody has joined: `notes` says so)."""
    out = [_damage(stats.fighters)] if stats.fighters else []
    if stats.sources:
        rows = tuple((s.name, tracks(s.dealt)) for s in stats.sources)
        title = "Dealt by a source that is no combatant (a weapon, a trap)"
        out.append(Table(title, ("source", "dealt"), rows))
    by_round = _by_round(stats)
    if by_round.rows and any(r is not None for r in stats.rounds):
        out.append(by_round)
    out += _rolls(stats.rollers)
    return out


def _damage(fighters: Sequence[Fighter]) -> Table:
    # What the rules cleared (a Fatigue overflow) is its own column, where anything was.
    cleared = any(f.cleared for f in fighters)
    rows = tuple(
        (
            f.name,
            f.side,
            f.status,
            tracks(f.taken),
            tracks(f.recovered),
            *([tracks(f.cleared)] if cleared else []),
            tracks(f.dealt),
        )
        for f in fighters
    )
    header = (
        "combatant",
        "side",
        "status",
        "taken",
        "recovered",
        *(["cleared by the rules"] if cleared else []),
        "dealt",
    )
    return Table("Damage", header, rows)


def _by_round(stats: Stats) -> Table:
    rows = []
    for round_ in stats.rounds:
        for f in stats.fighters:
            taken = {t: n for (r, t), n in f.taken_by_round.items() if r == round_}
            dealt = {t: n for (r, t), n in f.dealt_by_round.items() if r == round_}
            if taken or dealt:
                shown = "-" if round_ is None else str(round_)
                rows.append((shown, f.name, tracks(taken), tracks(dealt)))
    return Table("Damage by round", ("round", "combatant", "taken", "dealt"), tuple(rows))


def _rolls(rollers: Sequence[Roller]) -> list[Table]:
    if not rollers:
        return []
    if not any(r.with_odds for r in rollers):
        # Outcomes the table wrote in its own words (an SSSS Throw): listed, not tabulated.
        listed = tuple(
            (r.actor, str(r.rolls), "; ".join(_times(o, n) for o, n in r.outcomes.items()))
            for r in rollers
        )
        return [Table("Rolls", ("actor", "rolls", "outcomes"), listed)]
    outcomes = list(dict.fromkeys(o for r in rollers for o in r.outcomes))
    rows = []
    for r in rollers:
        cells = [
            _count(r.outcomes.get(o, 0), r.expected.get(o) if r.with_odds else None)
            for o in outcomes
        ]
        rows.append((r.actor, str(r.rolls), *cells))
    header = ("actor", "rolls", *(words.plain(o) for o in outcomes))
    title = "Rolls: outcomes as the dice gave them (expected)"
    found = [Table(title, header, tuple(rows))]
    grouped = [(r.actor, g) for r in rollers for g in r.groups]
    if grouped:
        measured = any(g.measure for _, g in grouped)
        group_rows = []
        for actor, g in grouped:
            cells = [_count(g.outcomes.get(o, 0), g.expected.get(o)) for o in outcomes]
            measure = (
                [f"{g.value} ({expected(g.expected_value)})" if g.measure else "-"]
                if measured
                else []
            )
            group_rows.append((actor, g.group, str(g.rolls), *measure, *cells))
        name = next((g.measure for _, g in grouped if g.measure), None)
        extra = (words.plain(name),) if name else ()
        head = ("actor", "dice", "rolls", *extra, *(words.plain(o) for o in outcomes))
        found.append(Table("Rolls by dice (expected)", head, tuple(group_rows)))
    return found


def _times(outcome: str, count: int) -> str:
    return f"{words.plain(outcome)} x{count}" if count > 1 else words.plain(outcome)


def _count(seen: int, likely: Fraction | None) -> str:
    return f"{seen} ({expected(likely)})" if likely is not None else str(seen)


def _lowered(by: Mapping[str, int]) -> str:
    """What lowered a pool, by the event types a GM records: `4 lowered, all by sb.spent`."""
    total = sum(by.values())
    if len(by) == 1:
        return f"{total} lowered, all by {next(iter(by))}"
    kinds = ", ".join(f"{n} by {kind}" for kind, n in by.items())
    return f"{total} lowered{f' ({kinds})' if kinds else ''}"


def notes(stats: Stats) -> list[str]:
    """The GM's pools, who fell when, the rulings, the findings, the dice: a sentence each."""
    out = [] if stats.fighters else [f"{NOBODY.capitalize()}."]
    for pool in stats.pools:
        out.append(f"GM's pool {pool.pool}: {pool.gained} gained, {_lowered(pool.lowered)}.")
    changed = [f"{r.actor} {r.changed}" for r in stats.rollers if r.changed]
    if changed:
        out.append(f"Outcomes changed after the roll (a burn, a reroll): {', '.join(changed)}.")
    if stats.defeats:
        fell = "; ".join(
            f"{d.combatant} {d.status} ({_when(d.round)}seq {d.seq})" for d in stats.defeats
        )
        out.append(f"Out of the fight: {fell}.")
    else:
        out.append("Out of the fight: nobody.")
    out.append(f"Rulings: {_rulings(stats.rulings, stats.in_force)}.")
    out.append(f"Findings: {by_severity(_findings(stats)) or 'none'}.")
    dice = stats.dice
    if dice["ledger"] or dice["typed"]:
        out.append(
            f"Dice: {words.plural(dice['typed'], 'roll')} typed, {dice['ledger']} rolled by "
            "the ledger (verifiable)."
        )
    return out


def by_severity(counts: Mapping[str, int]) -> str:
    """`1 error, 2 warnings, 1 info`: the severities counted (none left out at 0), in order."""
    return ", ".join(
        words.plural(n, severity, "info" if severity == "info" else None)
        for severity, n in counts.items()
        if n
    )


def _findings(stats: Stats) -> dict[str, int]:
    """The findings by severity but the `ruling-reversed` notes: those are the rulings, counted
    in their own sentence (and the report lists each ruling once, under the rulings)."""
    found = dict(stats.findings)
    told = stats.rules.get("ruling-reversed", 0)
    if told:
        found["info"] = found.get("info", 0) - told
    return found


def _when(round_: int | None) -> str:
    return f"round {round_}, " if round_ is not None else ""


def _rulings(recorded: Mapping[str, int], in_force: Mapping[str, int]) -> str:
    if not recorded:
        return "none"
    parts = []
    for kind, n in recorded.items():
        standing = in_force.get(kind, 0)
        reversed_ = f", {n - standing} reversed later" if standing != n else ""
        parts.append(f"{words.plural(n, kind)}{reversed_}")
    return "; ".join(parts)
