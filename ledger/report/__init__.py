"""The post-session report as data: the story in words by round, the rulings, the findings,
the head to publish and each combatant's tracks over the seqs.

One `Report` feeds both faces: `ledger.report.markdown` (the Markdown session log) and
`ledger.report.html` (the self-contained HTML page with its charts), written as they are read:
the story a round at a time from a second replay, the charts thinned to what their pictures
show (`ledger.report.plot`), so a report of any length is written in bounded memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from ledger import events, systems
from ledger.errors import LedgerError
from ledger.read import Reader
from ledger.report.plot import Chart, Charts, Hides, Point, charts_of
from projections import core, words
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


class Round:
    """The events of one round (or of the set-up before the first) as the replay reaches
    them, and the tracks after it: `lines` is read once, as the report is written, and the
    tracks are known once it has been (`end` passes by the lines left unread)."""

    def __init__(
        self,
        number: int | None,
        scene: str | None,
        title: str,
        steps: Iterator[Step],
        committed: bool = False,
    ) -> None:
        self.number = number
        self.scene = scene
        self.title = title
        self._state: core.State | None = None
        self.lines: Iterator[Line] = self._told(steps, committed)

    def _told(self, steps: Iterator[Step], committed: bool) -> Iterator[Line]:
        for step in steps:
            self._state = step.state
            yield _line(step, committed)

    def end(self) -> core.State:
        """The tracks after the group (the lines not read yet are passed by)."""
        for _ in self.lines:
            pass
        if self._state is None:
            raise LedgerError(f"{self.title} holds no event")
        return self._state

    @property
    def state(self) -> core.State:
        """The tracks after the group (`end`)."""
        return self.end()

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
    #: Whether `target_text` is the event a rewind goes back to as the story tells it (a
    #: rewind keeps it), not an undone or corrected event as played.
    kept: bool = False

    @property
    def target_label(self) -> str:
        """What `target_text` is: `seq 6 as played`, or `seq 6, the last event it keeps`."""
        return (
            f"seq {self.target}, the last event it keeps"
            if self.kept
            else (f"seq {self.target} as played")
        )


@dataclass(frozen=True)
class HouseRule:
    """A house rule pinned in `encounter.opened` that differs from the system's default."""

    key: str
    value: Any
    default: Any


@dataclass(frozen=True)
class Report:
    """Everything the session log and the HTML report show: what must be known before the
    story (the header, the rulings, the findings, the charts, the statistics) read in a first
    pass that keeps only that, and the story itself (`rounds`) told again as it is written."""

    encounter: str
    system: str
    title: str | None
    house_rules: tuple[HouseRule, ...]
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
    #: The seqs of the rulings and of what they reversed that the timeline shows as events.
    told: frozenset[int]
    #: Every (combatant, track) that changes in the encounter: the tracks tables show those.
    changing: frozenset[tuple[str, str]]
    #: How many groups (rounds, the set-up...) the timeline has.
    groups: int
    #: Whether the encounter has a dice commitment (each event with dice says who rolled them).
    committed: bool
    #: The encounter's replay read anew (under the `reading` the report was built in, the
    #: same steps the first pass read).
    replay: Callable[[], Iterable[Step]] = field(repr=False, compare=False)

    @property
    def name(self) -> str:
        """The title, else the encounter's name."""
        return self.title or self.encounter

    @property
    def audit(self) -> tuple[Finding, ...]:
        """The findings the report lists: every one but `ruling-reversed`, whose undos and
        amends the rulings section tells (each ruling once)."""
        return tuple(f for f in self.findings if f.rule != "ruling-reversed")

    def rounds(self) -> Iterator[Round]:
        """The timeline a group at a time, from a new replay: each group's lines are told as
        they are read and let go (a long encounter's story is never held whole)."""
        seen: int | None = None
        for (number, scene), steps in groupby(self.replay(), key=_time):
            title = _title(number, scene, seen, self.groups)
            group = Round(number, scene, title, steps, self.committed)
            yield group
            group.end()
            seen = number if number is not None else seen


@contextmanager
def reading(book: Reader, encounter: str, published: bool = True) -> Iterator[Report]:
    """The report of an encounter (`build`) for as long as it is written: both its passes
    see the ledger as of one moment, however many events are appended meanwhile."""
    with book.store.reading():
        yield build(book, encounter, published)


def build(book: Reader, encounter: str, published: bool = True) -> Report:
    """The report of an encounter, with its head digest unless the stream is not `published`
    (a hand-written file carries no chain of its own: its hashes were made up on reading).

    Its story (`Report.rounds`) is a second replay, read while the report is written: write
    it within `reading` for it to be the story the first pass read."""
    current = book.store.require(encounter)
    head = current.hash if published else None
    chain = book.store.verify(encounter)
    broken = None if chain.ok else f"at seq {chain.bad_seq}: {chain.problem}"
    if broken is not None:
        head = None
    # The first pass over the replay keeps only what is small however long the encounter:
    # each step is counted for the statistics and drawn into the charts, then let go.
    records = _reversed_and_rulings(book, encounter)
    committed = any(r.type == "dice.committed" for r in records)
    tally = Tally(systems.ruleset(current.system))
    outline = _Outline(_named(records), _kept(records))
    for step in book.replay(encounter):
        tally.add(step)
        outline.add(step)
    state = outline.end()
    findings = tuple(book.audit(encounter, chain=chain))
    stats = tally.stats(records, findings)
    return Report(
        encounter=encounter,
        system=state.system,
        title=state.title,
        house_rules=_house_rules(state),
        rulings=tuple(_rulings(book, encounter, records, outline.kept)),
        findings=findings,
        charts=outline.charts.charts(state),
        events=current.seq,
        head=head,
        broken=broken,
        state=state,
        stats=stats,
        told=frozenset(outline.told),
        changing=frozenset(outline.changing),
        groups=outline.groups,
        committed=committed,
        replay=lambda: book.replay(encounter),
    )


class _Outline:
    """What the report must know before it tells the story, from one replay that keeps no
    step: the charts, the tracks that change, how many groups the timeline has, which of the
    rulings' seqs it shows, and the state at the end."""

    def __init__(self, wanted: frozenset[int], keeping: frozenset[int]) -> None:
        self.wanted = wanted
        self.keeping = keeping
        #: The events the rewinds go back to, as the story tells them.
        self.kept: dict[int, str] = {}
        self.charts = Charts()
        self.changing: set[tuple[str, str]] = set()
        self.told: set[int] = set()
        self.groups = 0
        self.time: tuple[int | None, str | None] | None = None
        self.state: core.State | None = None

    def add(self, step: Step) -> None:
        self.state = step.state
        self.charts.add(step)
        self.changing.update((c.combatant, c.track) for c in step.changes)
        time = _time(step)
        if self.groups == 0 or time != self.time:
            self.groups += 1
            self.time = time
        if step.record.seq in self.wanted:
            self.told.add(step.record.seq)
        if step.record.seq in self.keeping:
            self.kept[step.record.seq] = step.text

    def end(self) -> core.State:
        """The state at the end of the replay."""
        if self.state is None:
            raise LedgerError("the encounter has no effective event to report")
        return self.state


def _time(step: Step) -> tuple[int | None, str | None]:
    """The round and scene a step is grouped by."""
    return step.round, None if step.scene is None else str(step.scene)


def _line(step: Step, committed: bool) -> Line:
    """A step in words; in an encounter with a dice commitment, each event with dice says
    whether the ledger rolled them."""
    text = step.text + (_dice_mark(step.record.event) if committed else "")
    return Line(step.record.seq, step.record.type, text, step.changes, step.skipped, step.source)


def _named(records: Sequence[events.Recorded]) -> frozenset[int]:
    """The seqs the rulings name: their own and what they reverse."""
    seqs = {r.seq for r in records}
    seqs |= {_target(r.event) for r in records if isinstance(r.event, Reversing)}
    return frozenset(seqs)


def _kept(records: Sequence[events.Recorded]) -> frozenset[int]:
    """The seqs the rewinds go back to: the last event of play each keeps."""
    return frozenset(
        _target(r.event) for r in records if isinstance(r.event, events.EncounterRewound)
    )


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


def _rulings(
    book: Reader,
    encounter: str,
    records: Sequence[events.Recorded],
    kept: Mapping[int, str],
) -> Iterable[Ruling]:
    """Each undo, redo, correction and rewind; what a rewind goes back to is told as the story
    tells it (`kept`: it is kept, not reversed), unless the story no longer has it."""
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
        text, is_kept = told[target], False
        if isinstance(event, events.EncounterRewound):
            verb = f"rewound to the end of round {event.round} at"
            fields = _rewound(records, record.seq)
            if target in kept:
                text, is_kept = kept[target], True
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
            target_text=text,
            reason=str(getattr(event, "reason", "")),
            in_force=record.seq not in gone,
            fields=fields,
            kept=is_kept,
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


__all__ = [
    "Chart",
    "Hides",
    "HouseRule",
    "Line",
    "Point",
    "Report",
    "Round",
    "Ruling",
    "build",
    "charts_of",
    "reading",
]
