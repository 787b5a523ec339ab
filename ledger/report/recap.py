"""The recap (`encounter recap`): a short summary to post after the session, with the same
facts as the report: who fought whom, the decisive moments in words, who fell, the numbers.

Three forms: Markdown (`md`), a Discord message (`discord`: at most 2,000 characters, mentions
defused) and plain text (`text`). Names and texts from the table are escaped as the session log
escapes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Final

from ledger.report import Report
from ledger.report import statistics as tables
from ledger.report.markdown import escape as md_escape
from projections import shown, words
from projections.statistics import Blow, Fighter, Roller

#: Discord refuses a message longer than this.
DISCORD_LIMIT: Final = 2000
#: The most moments a recap tells.
MOMENTS: Final = 6
#: A moment's words are cut at this length (the report has them whole).
MOMENT_TEXT: Final = 180
#: The most names a side lists (then `and 12 more`).
NAMED: Final = 8


class Form(StrEnum):
    """The forms of a recap."""

    md = "md"
    discord = "discord"
    text = "text"


def recap(report: Report, form: Form | str = Form.md) -> str:
    """The recap of `report` in `form`, ending with one newline."""
    form = Form(form)
    clean: Callable[[str], str] = _plain if form is Form.text else md_escape
    if form is Form.discord:
        clean = _discord
    lines = _lines(report, form, clean)
    if form is Form.discord:
        lines = fit(lines, DISCORD_LIMIT)
    return "\n".join(lines) + "\n"


def _plain(text: str) -> str:
    return shown.visible(" ".join(str(text).split()))


def _discord(text: str) -> str:
    # A name like `@everyone` or `<@123>` would ping a channel: a zero-width space defuses it.
    return md_escape(text).replace("@", "@\u200b")


def _bold(text: str, form: Form) -> str:
    return text if form is Form.text else f"**{text}**"


def _lines(report: Report, form: Form, clean: Callable[[str], str]) -> list[str]:
    stats = report.stats
    title = clean(report.name)
    head = f"# {title}" if form is Form.md else _bold(title, form)
    picked = _picked(report)
    played, said = _told(report, picked)
    facts = [clean(report.system), words.plural(report.events, "event")]
    if played:
        facts.insert(1, words.plural(len(played), "round"))
    if report.head:
        facts.append(f"head {report.head[:16]}")
    out = [head, " · ".join(facts), "", _sides(report, clean)]
    moments = list(_moments(picked, said, clean))
    if moments:
        out += ["", _bold("Moments", form)]
        out += [f"- {m}" for m in moments]
    out += ["", f"{_bold('Out of the fight', form)}: {_fell(report, clean)}"]
    numbers = [_fighter(f, clean) for f in stats.fighters if f.taken or f.dealt]
    numbers += [
        f"{clean(s.name)} (source): {clean(f'dealt {tables.tracks(s.dealt)}')}"
        for s in stats.sources
    ]
    numbers += [_roller(r, clean) for r in stats.rollers]
    numbers += [clean(n) for n in tables.notes(stats) if n.startswith("GM's pool")]
    if numbers:
        out += ["", _bold("Numbers", form)]
        out += [f"- {n}" for n in numbers]
    rulings = next(n for n in tables.notes(stats) if n.startswith("Rulings"))
    found = next(n for n in tables.notes(stats) if n.startswith("Findings"))
    out += ["", clean(f"{rulings} {found}")]
    return out


def _sides(report: Report, clean: Callable[[str], str]) -> str:
    players = [clean(f.name) for f in report.stats.fighters if f.side == "player"]
    foes = [clean(f.name) for f in report.stats.fighters if f.side != "player"]
    if players and foes:
        return f"{_and(players)} against {_and(foes)}."
    if players:
        return f"{_and(players)} in the fight; no foe joined."
    if foes:
        return f"{_and(foes)} in the fight; no player joined."
    return f"{tables.NOBODY.capitalize()}."


def _and(names: Sequence[str]) -> str:
    if len(names) > NAMED:
        names = [*names[: NAMED - 1], f"{len(names) - NAMED + 1} more"]
    return words.both(names)


def _picked(report: Report) -> list[int]:
    """The seqs of the moments: the defeats, and the heaviest blows, in the order they
    happened."""
    picked = {d.seq for d in report.stats.defeats}
    heaviest = sorted(_by_step(report.stats.blows).items(), key=lambda item: (-item[1], item[0]))
    for seq, _ in heaviest:
        if len(picked) >= MOMENTS:
            break
        picked.add(seq)
    return sorted(picked)[:MOMENTS]


def _told(
    report: Report, picked: Sequence[int]
) -> tuple[list[int], dict[int, tuple[int | None, str]]]:
    """The rounds played, and the round and words of each picked seq, from the story read
    once (and kept no further)."""
    played: set[int] = set()
    said: dict[int, tuple[int | None, str]] = {}
    wanted = set(picked)
    for group in report.rounds():
        if group.number is not None:
            played.add(group.number)
        for line in group.lines:
            if line.seq in wanted:
                said[line.seq] = (group.number, line.text)
    return sorted(played), said


def _moments(
    picked: Sequence[int], said: Mapping[int, tuple[int | None, str]], clean: Callable[[str], str]
) -> Iterable[str]:
    """The defeats, and the heaviest blows, in the order they happened, in words."""
    for seq in picked:
        number, text = said.get(seq, (None, ""))
        if len(text) > MOMENT_TEXT:  # cut between words: "of enduran..." read as a typo
            text = text[: MOMENT_TEXT - 2].rsplit(" ", 1)[0].rstrip(",;:") + "..."
        when = f"round {number}, " if number is not None else ""
        yield f"{when}seq {seq}: {clean(text)}"


def _by_step(blows: Iterable[Blow]) -> dict[int, int]:
    """The damage each step dealt, all tracks together."""
    found: dict[int, int] = {}
    for blow in blows:
        if blow.amount > 0:
            found[blow.seq] = found.get(blow.seq, 0) + blow.amount
    return found


def _fell(report: Report, clean: Callable[[str], str]) -> str:
    fell = [
        f"{clean(d.combatant)} ({d.status}{f', round {d.round}' if d.round is not None else ''})"
        for d in report.stats.defeats
    ]
    if len(fell) > NAMED:
        fell = [*fell[: NAMED - 1], f"{len(fell) - NAMED + 1} more"]
    return "; ".join(fell) + "." if fell else "nobody."


def _fighter(f: Fighter, clean: Callable[[str], str]) -> str:
    parts = [f"took {tables.tracks(f.taken)}"] if f.taken else []
    if f.recovered:
        parts.append(f"recovered {tables.tracks(f.recovered)}")
    if f.cleared:
        parts.append(f"{tables.tracks(f.cleared)} cleared by the rules")
    if f.dealt:
        parts.append(f"dealt {tables.tracks(f.dealt)}")
    return f"{clean(f.name)}: {clean(', '.join(parts))}"


def _roller(r: Roller, clean: Callable[[str], str]) -> str:
    if not r.with_odds:
        # Outcomes in the table's own words (an SSSS Throw): the report lists them.
        return f"{clean(r.actor)} rolled {r.rolls}"
    odds = r.expected
    counts = ", ".join(
        f"{words.plain(o)} {n}" + (f" ({tables.expected(odds[o])} expected)" if o in odds else "")
        for o, n in r.outcomes.items()
    )
    return f"{clean(r.actor)} rolled {r.rolls}: {clean(counts)}"


def fit(lines: list[str], limit: int) -> list[str]:
    """`lines` cut to fit `limit` characters (joined by newlines): the last bullets go first
    (the numbers, then the moments), a heading left with none goes too, and a last line says
    the full report has the rest."""
    if len("\n".join(lines)) <= limit:
        return lines
    more = "- (more in the full report: `encounter report`)"
    kept = list(lines)
    while len("\n".join([*kept, more])) > limit:
        bullets = [i for i, line in enumerate(kept) if line.startswith("- ")]
        if not bullets:
            # Long names: the text itself is cut.
            return ["\n".join(kept)[: limit - 3] + "..."]
        last = bullets[-1]
        del kept[last]
        if last < len(kept) and kept[last - 1].endswith("**") and kept[last] == "":
            del kept[last - 2 : last]  # the blank line and the heading of an emptied list
    return [*kept, more]
