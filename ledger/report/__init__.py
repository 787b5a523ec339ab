"""The post-session report as data: the story in words by round, the rulings, the findings,
the head to publish and each combatant's tracks over the seqs.

One `Report` feeds both faces: `ledger.report.markdown` (the Markdown session log) and
`ledger.report.html` (the self-contained HTML page with its charts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ledger import events, systems
from ledger.errors import LedgerError
from ledger.read import Reader
from projections import charts, core, words
from projections.changes import Change
from projections.findings import Finding
from projections.replay import Step
from projections.revisions import standing
from projections.statistics import Stats, Tally
from projections.values import builtins


@dataclass(frozen=True)
class Line:
    """One effective event in words, with the tracks it changed."""

    seq: int
    type: str
    text: str
    changes: tuple[Change, ...]
    skipped: str | None = None
    #: Where it was imported from (`Session 3.md:41`), or None.
    source: str | None = None


@dataclass(frozen=True)
class Round:
    """The events of one round (or of the set-up before the first), and the tracks after it."""

    number: int | None
    scene: str | None
    title: str
    lines: tuple[Line, ...]
    state: core.State

    @property
    def tracks_title(self) -> str:
        """What the tracks shown after the group are: `Tracks after round 3`."""
        if self.number is not None:
            return f"Tracks after round {self.number}"
        if self.title.startswith("Set-up"):
            return "Tracks after the set-up"
        return "Tracks at the end"


@dataclass(frozen=True)
class Ruling:
    """An undo, a redo, a correction or a rewind, what it reversed, and why (a rewind's target
    is the last event of the round it went back to)."""

    seq: int
    verb: str
    target: int
    target_type: str
    target_text: str
    reason: str
    in_force: bool
    #: What a correction changed, in words (`level 2, stake none`), what a rewind set aside
    #: (`sets aside seqs 6-9, 4 events`), or None.
    fields: str | None = None


@dataclass(frozen=True)
class Point:
    """A combatant's charted measures right after one event that changed its tracks."""

    seq: int
    round: int | None
    values: tuple[float | None, ...]
    limits: tuple[float | None, ...]
    status: str
    note: str


@dataclass(frozen=True)
class Chart:
    """One combatant's tracks over the seqs: a point per event that changed them."""

    combatant: str
    side: str
    status: str
    labels: tuple[str, ...]
    points: tuple[Point, ...]


@dataclass(frozen=True)
class HouseRule:
    """A house rule pinned in `encounter.opened` that differs from the system's default."""

    key: str
    value: Any
    default: Any


@dataclass(frozen=True)
class Report:
    """Everything the session log and the HTML report show."""

    encounter: str
    system: str
    title: str | None
    house_rules: tuple[HouseRule, ...]
    rounds: tuple[Round, ...]
    rulings: tuple[Ruling, ...]
    findings: tuple[Finding, ...]
    charts: tuple[Chart, ...]
    events: int
    head: str | None
    #: Why the stored chain does not verify (then there is no head to publish), or None.
    broken: str | None
    state: core.State
    #: The statistics (`projections.statistics`): damage, rolls and their odds, pools, defeats.
    stats: Stats

    @property
    def name(self) -> str:
        """The title, else the encounter's name."""
        return self.title or self.encounter

    @property
    def audit(self) -> tuple[Finding, ...]:
        """The findings the report lists: every one but `ruling-reversed`, whose undos and
        amends the rulings section tells (each ruling once)."""
        return tuple(f for f in self.findings if f.rule != "ruling-reversed")

    def anchors(self) -> frozenset[int]:
        """Every seq the report shows as a target of links: the effective events and the
        rulings with what they reversed."""
        seqs = {line.seq for r in self.rounds for line in r.lines}
        for ruling in self.rulings:
            seqs |= {ruling.seq, ruling.target}
        return frozenset(seqs)


def build(book: Reader, encounter: str, published: bool = True) -> Report:
    """The report of an encounter, with its head digest unless the stream is not `published`
    (a hand-written file carries no chain of its own: its hashes were made up on reading)."""
    head = book.store.require(encounter).hash if published else None
    chain = book.store.verify(encounter)
    broken = None if chain.ok else f"at seq {chain.bad_seq}: {chain.problem}"
    if broken is not None:
        head = None
    # One pass over the replay: each step's words, changes and chart points are kept for the
    # story and counted for the statistics, its state let go (a state a step is what made a
    # long encounter's report hold gigabytes).
    records = _reversed_and_rulings(book, encounter)
    committed = any(r.type == "dice.committed" for r in records)
    tally = Tally(systems.ruleset(book.store.require(encounter).system))
    rounds, charts_, state = _story(_counted(book.replay(encounter), tally), committed)
    findings = tuple(book.audit(encounter))
    stats = tally.stats(records, findings)
    return Report(
        encounter=encounter,
        system=state.system,
        title=state.title,
        house_rules=_house_rules(state),
        rounds=rounds,
        rulings=tuple(_rulings(book, encounter, records)),
        findings=findings,
        charts=charts_,
        events=book.store.require(encounter).seq,
        head=head,
        broken=broken,
        state=state,
        stats=stats,
    )


def _counted(steps: Iterable[Step], tally: Tally) -> Iterator[Step]:
    """The steps, each counted by `tally` as it passes."""
    for step in steps:
        tally.add(step)
        yield step


def _story(
    steps: Iterable[Step], committed: bool = False
) -> tuple[tuple[Round, ...], tuple[Chart, ...], core.State]:
    """The rounds and charts of a replay read once, and the state at its end; in an encounter
    with a dice commitment, each event with dice says whether the ledger rolled them."""
    grouped: list[tuple[tuple[int | None, str | None], list[Line], core.State]] = []
    drawing = _Charts()
    state: core.State | None = None
    for step in steps:
        state = step.state
        drawing.add(step)
        time = (step.round, None if step.scene is None else str(step.scene))
        text = step.text + (_dice_mark(step.record.event) if committed else "")
        line = Line(
            step.record.seq, step.record.type, text, step.changes, step.skipped, step.source
        )
        if grouped and grouped[-1][0] == time:
            grouped[-1][1].append(line)
            grouped[-1] = (time, grouped[-1][1], state)
        else:
            grouped.append((time, [line], state))
    if state is None:
        raise LedgerError("the encounter has no effective event to report")
    rounds = []
    seen: int | None = None
    for (number, scene), lines, end in grouped:
        title = _title(number, scene, seen, len(grouped))
        rounds.append(Round(number, scene, title, tuple(lines), end))
        seen = number if number is not None else seen
    return tuple(rounds), drawing.charts(state), state


def charts_of(steps: Iterable[Step], hides: Hides | None = None) -> tuple[Chart, ...]:
    """A chart per combatant still in the encounter: a point per step that changed its tracks
    (with `hides`, none of the tracks it hides: not a line, a limit or a change), the steps
    read once."""
    drawing = _Charts(hides)
    state: core.State | None = None
    for step in steps:
        state = step.state
        drawing.add(step)
    return () if state is None else drawing.charts(state)


#: Whether a track (the second) of a combatant of a side (the first) is hidden from a reader.
Hides = Callable[[str, str], bool]


class _Charts:
    """Every combatant's chart as the replay goes (no step kept)."""

    def __init__(self, hides: Hides | None = None) -> None:
        self.hides = hides
        self.drawing: dict[str, _Drawing] = {}
        self.ruleset: Any = None
        self.read: Any = None

    def add(self, step: Step) -> None:
        state = step.state
        if self.ruleset is None:
            self.ruleset = systems.ruleset(state.system)
            self.read = systems.readings(state.system)
        for name in {c.combatant for c in step.changes}:
            them = state.combatants.get(name)
            if them is not None:
                if name not in self.drawing:
                    self.drawing[name] = _Drawing(_hidden_of(self.hides, them.side))
                self.drawing[name].add(step, them, self.ruleset, self.read)

    def charts(self, state: core.State) -> tuple[Chart, ...]:
        """A chart per combatant still in the encounter at `state`."""
        return tuple(
            self.drawing.get(name, _Drawing(_hidden_of(self.hides, combatant.side))).chart(
                name, combatant
            )
            for name, combatant in state.combatants.items()
        )


class _Drawing:
    """One combatant's chart as the replay goes: its labels and points."""

    def __init__(self, hidden: Callable[[str | None], bool]) -> None:
        self.hidden = hidden
        self.labels: list[str] = []
        self.taken: list[tuple[int, int | None, dict[str, charts.Measure], str, str]] = []

    def add(self, step: Step, them: core.Combatant, ruleset: Any, read: Any) -> None:
        hidden = self.hidden
        mine = [c for c in step.changes if c.combatant == them.name and not hidden(c.track)]
        if not mine:
            return
        view = them.view()
        found = {m.label: _shown(m, hidden) for m in ruleset.charts(view) if not hidden(m.track)}
        self.labels.extend(label for label in found if label not in self.labels)
        note = words.tell(mine, read)
        status = charts.standing(them.status, ruleset.condition(view))
        self.taken.append((step.record.seq, step.round, found, status, note))

    def chart(self, name: str, combatant: core.Combatant) -> Chart:
        labels = self.labels
        points = tuple(
            Point(
                seq=seq,
                round=round_,
                values=tuple(found[k].value if k in found else None for k in labels),
                limits=tuple(found[k].limit if k in found else None for k in labels),
                status=status,
                note=note,
            )
            for seq, round_, found, status, note in self.taken
        )
        return Chart(name, combatant.side, combatant.status, tuple(labels), points)


def _reversed_and_rulings(book: Reader, encounter: str) -> list[events.Recorded]:
    """The retractions, corrections and rewinds (and the dice events), and the events they
    name (few, however long the encounter: the rulings need nothing else)."""
    head = book.store.require(encounter)
    revisions = book.revisions(head)
    targets = sorted({_target(r.event) for r in revisions if isinstance(r.event, Reversing)})
    found = {r.seq: r for r in revisions}
    for target in targets:
        if target not in found:
            found.update((r.seq, r) for r in book.iter_records(encounter, target - 1, target))
    return [found[seq] for seq in sorted(found)]


def _house_rules(state: core.State) -> tuple[HouseRule, ...]:
    defaults = systems.ruleset(state.system).rules().model_dump(mode="json")
    # As JSON data: the state holds the table read-only (tuples and read-only mappings).
    pinned: dict[str, Any] = builtins(state.rules)
    return tuple(
        HouseRule(key, value, defaults.get(key))
        for key, value in pinned.items()
        if defaults.get(key) != value
    )


def _dice_mark(event: events.EventBase) -> str:
    """How an event's dice came to be: rolled by the ledger (verifiable), or typed in."""
    if not isinstance(event, events.LedgerRolled):
        return ""
    return " (dice rolled by the ledger)" if event.ledger_rolled else " (dice typed)"


def _title(number: int | None, scene: str | None, seen: int | None, groups: int) -> str:
    if number is None:
        title = "Events" if groups == 1 else "Set-up" if seen is None else f"After round {seen}"
    else:
        title = f"Round {number}"
    return f"{title} (scene {scene})" if scene is not None else title


def _as_played(book: Reader, encounter: str, targets: set[int]) -> dict[int, str]:
    """Each reversed event in words, told from the tracks as the table knew them when it was
    recorded (the retractions recorded later not applied): one as-played replay of the
    stream, however many rulings there are."""
    told: dict[int, str] = {}
    if not targets:
        return told
    for step in book.replay(encounter, end=max(targets), as_played=True):
        seq = step.record.seq
        if seq in targets:
            told[seq] = words.explain(step.ruleset, step.before, seq, step.record.event, step.state)
    return told


def _rulings(book: Reader, encounter: str, records: Sequence[events.Recorded]) -> Iterable[Ruling]:
    gone = core.excluded(records)
    by_seq = {r.seq: r for r in records}
    revisions = [
        (record, record.event)
        for record in records
        if isinstance(record.event, Reversing) and _target(record.event) in by_seq
    ]
    told = _as_played(book, encounter, {_target(event) for _, event in revisions})
    for record, event in revisions:
        target = _target(event)
        reversed_ = by_seq[target]
        fields = _fields(getattr(event, "fields", None))
        if isinstance(event, events.EncounterRewound):
            verb = f"rewound to the end of round {event.round} at"
            fields = _rewound(records, record.seq)
        elif record.type == "event.corrected":
            verb = "corrected"
        elif reversed_.type == "event.retracted":
            verb = "redid"
        else:
            verb = "amended" if getattr(event, "kind", None) == "amend" else "undid"
        yield Ruling(
            seq=record.seq,
            verb=verb,
            target=target,
            target_type=reversed_.type,
            target_text=told[target],
            reason=str(getattr(event, "reason", "")),
            in_force=record.seq not in gone,
            fields=fields,
        )


#: The events the report lists as rulings.
Reversing = events.EventRetracted | events.EventCorrected | events.EncounterRewound


def _target(event: events.EventBase) -> int:
    """The seq a ruling names: what an undo or correction reverses, where a rewind goes back to."""
    if isinstance(event, events.EncounterRewound):
        return event.after or 0
    target: int = getattr(event, "target")  # noqa: B009 - a retraction's or correction's
    return target


def _rewound(records: Sequence[events.Recorded], seq: int) -> str:
    """What the rewind at `seq` sets aside (while it is in force: undoing it brings them back)."""
    undos = [
        r.seq
        for r in records
        if isinstance(r.event, events.EventRetracted) and r.event.target == seq
    ]
    aside = sorted(s for s, by in standing(records, undos).rewound.items() if by == seq)
    return f"sets aside {_spans(aside)}, {words.plural(len(aside), 'event')}"


def _spans(seqs: Sequence[int]) -> str:
    """`seqs 6-9, 12` (or `seq 6`)."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    return f"seq{'s' * (len(seqs) != 1)} {text}"


def _fields(changed: object) -> str | None:
    """A correction's fields in words; null removes a key (it reads as `none`)."""
    if not isinstance(changed, Mapping) or not changed:
        return None
    return ", ".join(f"{words.plain(str(k))} {words.value(v)}" for k, v in changed.items())


def _hidden_of(hides: Hides | None, side: str) -> Callable[[str | None], bool]:
    """Whether a track of a combatant of `side` is hidden (by `hides`)."""

    def hidden(track: str | None) -> bool:
        return hides is not None and track is not None and hides(side, track)

    return hidden


def _shown(found: charts.Measure, hidden: Callable[[str | None], bool]) -> charts.Measure:
    """A measure with its limit left out when that limit is a hidden track."""
    if hidden(found.limit_track):
        return charts.Measure(found.label, found.value, None, found.track, None)
    return found
