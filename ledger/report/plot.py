"""Each combatant's chart as the replay goes: a point per event that changed its tracks, no
step kept, and no more points than the picture can show.

A chart of a few hundred changes keeps every one. Past `MOST_SPANS` changes, the x axis is cut
into spans of equal numbers of changes (at most `MOST_SPANS` of them, at least half as many:
more than one per unit of the 400-unit-wide SVG), and a span keeps the changes that draw it: its
first and last, each measure's lowest and highest value and limit, and the first change into
each status. The step line then reaches every height it reached in each span, which is all a
span narrower than a unit of the picture can show; a value that came and went between a span's
lowest and highest is not drawn on its own (a track changing 75,000 times cannot be, in 358
units), and the chart says how many changes it stands for (`Chart.changes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ledger import systems
from projections import charts, core, words
from projections.replay import Step

#: The most spans a chart's x axis is cut into before a span holds two changes, then four...:
#: twice the plot's width (358 units of the 400-unit SVG), so a span is never wider than a unit.
MOST_SPANS = 720


@dataclass(frozen=True)
class Point:
    """A combatant's charted measures right after one event that changed its tracks."""

    seq: int
    round: int | None
    values: tuple[float | None, ...]
    limits: tuple[float | None, ...]
    status: str
    note: str
    #: Its place among the chart's changes (0: the first) when the chart was thinned; None: its
    #: place in `Chart.points`.
    at: int | None = None


@dataclass(frozen=True)
class Chart:
    """One combatant's tracks over the seqs: a point per event that changed them (or, past
    `MOST_SPANS` of them, those that draw the same picture)."""

    combatant: str
    side: str
    status: str
    labels: tuple[str, ...]
    points: tuple[Point, ...]
    #: How many events changed its tracks when `points` keeps fewer; None: a point each.
    changes: int | None = None

    @property
    def count(self) -> int:
        """How many events changed the combatant's tracks."""
        return len(self.points) if self.changes is None else self.changes


#: Whether a track (the second) of a combatant of a side (the first) is hidden from a reader.
Hides = Callable[[str, str], bool]


def charts_of(
    steps: Iterable[Step], hides: Hides | None = None, spans: int | None = None
) -> tuple[Chart, ...]:
    """A chart per combatant still in the encounter: a point per step that changed its tracks
    (with `hides`, none of the tracks it hides: not a line, a limit or a change; past `spans`
    of them, MOST_SPANS by default, those that draw its picture), the steps read once."""
    drawing = Charts(hides, spans)
    state: core.State | None = None
    for step in steps:
        state = step.state
        drawing.add(step)
    return () if state is None else drawing.charts(state)


class Charts:
    """Every combatant's chart as the replay goes (no step kept)."""

    def __init__(self, hides: Hides | None = None, spans: int | None = None) -> None:
        self.hides = hides
        self.spans = MOST_SPANS if spans is None else spans
        self.drawing: dict[str, _Drawing] = {}
        self.ruleset: Any = None
        self.read: Any = None

    def add(self, step: Step) -> None:
        """Take the step's changes into the charts of the combatants it changed."""
        state = step.state
        if self.ruleset is None:
            self.ruleset = systems.ruleset(state.system)
            self.read = systems.readings(state.system)
        for name in {c.combatant for c in step.changes}:
            them = state.combatants.get(name)
            if them is not None:
                if name not in self.drawing:
                    hidden = _hidden_of(self.hides, them.side)
                    self.drawing[name] = _Drawing(hidden, self.spans)
                self.drawing[name].add(step, them, self.ruleset, self.read)

    def charts(self, state: core.State) -> tuple[Chart, ...]:
        """A chart per combatant still in the encounter at `state`."""
        return tuple(
            self.drawing.get(
                name, _Drawing(_hidden_of(self.hides, combatant.side), self.spans)
            ).chart(name, combatant)
            for name, combatant in state.combatants.items()
        )


@dataclass(frozen=True, slots=True)
class _Mark:
    """One change as a chart keeps it, before its labels are all known."""

    at: int
    seq: int
    round: int | None
    found: dict[str, charts.Measure]
    status: str
    note: str
    #: Whether its status differs from the change before it (the picture labels it).
    turned: bool

    def numbers(self) -> Iterator[tuple[tuple[str, bool], float]]:
        """Each measure's value and limit, keyed by (label, whether a limit)."""
        for label, measure in self.found.items():
            yield (label, False), measure.value
            if measure.limit is not None:
                yield (label, True), measure.limit


class _Span:
    """The changes of one span of a chart's x axis that draw it: the first and the last, each
    measure's lowest and highest (the earliest of equals), the first change into each status."""

    __slots__ = ("first", "high", "last", "low", "turns")

    def __init__(self, mark: _Mark) -> None:
        self.first = mark
        self.last = mark
        self.low: dict[tuple[str, bool], tuple[float, _Mark]] = {}
        self.high: dict[tuple[str, bool], tuple[float, _Mark]] = {}
        self.turns: dict[str, _Mark] = {}
        self.add(mark)

    def add(self, mark: _Mark) -> None:
        self.last = mark
        for key, number in mark.numbers():
            self._keep(key, number, mark)
        if mark.turned:
            self.turns.setdefault(mark.status, mark)

    def _keep(self, key: tuple[str, bool], number: float, mark: _Mark) -> None:
        low = self.low.get(key)
        if low is None or number < low[0]:
            self.low[key] = (number, mark)
        high = self.high.get(key)
        if high is None or number > high[0]:
            self.high[key] = (number, mark)

    def merge(self, later: _Span) -> None:
        """Take in the span that follows this one (what they keep is what one span of both
        would have kept)."""
        self.last = later.last
        for key, (number, mark) in later.low.items():
            self._keep(key, number, mark)
        for key, (number, mark) in later.high.items():
            self._keep(key, number, mark)
        for status, mark in later.turns.items():
            self.turns.setdefault(status, mark)

    def marks(self) -> Iterator[_Mark]:
        yield self.first
        yield self.last
        for _, mark in (*self.low.values(), *self.high.values()):
            yield mark
        yield from self.turns.values()


class _Drawing:
    """One combatant's chart as the replay goes: its labels and, span by span, its points."""

    def __init__(self, hidden: Callable[[str | None], bool], most: int) -> None:
        self.hidden = hidden
        self.most = most
        self.labels: list[str] = []
        self.count = 0
        #: Changes a span holds (1 until the chart has more than `most` of them).
        self.width = 1
        self.spans: dict[int, _Span] = {}
        self.status = "active"

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
        mark = _Mark(
            self.count, step.record.seq, step.round, found, status, note, status != self.status
        )
        self.status = status
        index = self.count // self.width
        span = self.spans.get(index)
        if span is None:
            self.spans[index] = _Span(mark)
        else:
            span.add(mark)
        self.count += 1
        if len(self.spans) > self.most:
            self._coarsen()

    def _coarsen(self) -> None:
        """Twice as many changes a span: each pair of spans becomes one."""
        self.width *= 2
        merged: dict[int, _Span] = {}
        for index, span in self.spans.items():
            into = merged.get(index // 2)
            if into is None:
                merged[index // 2] = span
            else:
                into.merge(span)
        self.spans = merged

    def chart(self, name: str, combatant: core.Combatant) -> Chart:
        labels = self.labels
        thinned = self.width > 1
        kept = {mark.at: mark for span in self.spans.values() for mark in span.marks()}
        points = tuple(
            Point(
                seq=mark.seq,
                round=mark.round,
                values=tuple(mark.found[k].value if k in mark.found else None for k in labels),
                limits=tuple(mark.found[k].limit if k in mark.found else None for k in labels),
                status=mark.status,
                note=mark.note,
                at=mark.at if thinned else None,
            )
            for mark in (kept[at] for at in sorted(kept))
        )
        changes = self.count if thinned else None
        return Chart(name, combatant.side, combatant.status, tuple(labels), points, changes)


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
