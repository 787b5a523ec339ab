"""The geometry of a report's track charts: a combatant's measures as step lines over its
points (one per event that changed its tracks), laid out for an inline SVG."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ledger.report import Chart

WIDTH = 400
HEIGHT = 200
STRIP = 90
ROUND_LINE = 16
LEFT, RIGHT, TOP, BOTTOM = 30, 12, 14, 36
#: A status label's line height, and the most a character of it is wide (12px text): labels
#: that would overlap are stacked a line apart, never drawn over one another.
LABEL_LINE = 15
LABEL_CHAR = 7.5
#: How far above its measure a limit's dashed line is drawn: a full track shows both.
LIMIT_LIFT = 3
#: Colour-blind-safe (Okabe-Ito) colours, one a measure.
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")


@dataclass(frozen=True)
class Dot:
    """One measure's value at one point."""

    x: float
    y: float
    colour: str
    label: str
    value: str


@dataclass(frozen=True)
class Label:
    """A status label where it is drawn: the text, its anchor point and side."""

    text: str
    x: float
    y: float
    anchor: str


@dataclass(frozen=True)
class PointMark:
    """The marks of one point: its dots, its seq label, and what changed (a tooltip)."""

    seq: int
    x: float
    label: str
    show_label: bool
    title: str
    dots: tuple[Dot, ...]
    status: Label | None
    #: `R3` at the first point of each round, when the encounter keeps game time.
    round: str | None = None


@dataclass(frozen=True)
class Line:
    """One measure's step line (or its limit's, dashed)."""

    path: str
    colour: str
    dashed: bool


@dataclass(frozen=True)
class Tick:
    """A horizontal grid line with its value."""

    y: float
    label: str


@dataclass(frozen=True)
class Drawing:
    """Everything the template draws for one chart."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    lines: tuple[Line, ...]
    points: tuple[PointMark, ...]
    ticks: tuple[Tick, ...]
    legend: tuple[tuple[str, str, bool], ...]
    rounds: bool = False


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = max(1, math.ceil(span / 5))
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    return [float(v) for v in range(int(first), int(last) + 1, step)]


def draw(chart: Chart) -> Drawing:
    """The chart laid out in a WIDTH x HEIGHT box (the SVG scales to its container)."""
    # A thinned chart (`ledger.report.plot`) places each point where its change falls among
    # all of them; the others take their places in turn.
    count = chart.count
    places = [i if p.at is None else p.at for i, p in enumerate(chart.points)]
    plot_w = WIDTH - LEFT - RIGHT
    # A chart with nothing to measure is a strip of dots (its events), not a grid; rounds,
    # when the encounter keeps game time, get a line of their own under the seqs.
    rounds = any(p.round is not None for p in chart.points)
    bottom = BOTTOM + (ROUND_LINE if rounds else 0)
    height = (HEIGHT if chart.labels else STRIP) + (ROUND_LINE if rounds else 0)
    plot_h = height - TOP - bottom
    xs = [LEFT + plot_w * (place + 0.5) / count for place in places]
    numbers = [v for p in chart.points for v in (*p.values, *p.limits) if v is not None]
    low = min([0.0, *numbers])
    high = max([1.0, *numbers])
    ticks = _ticks(low, high) if chart.labels else []
    low, high = (ticks[0], ticks[-1]) if ticks else (low, high)
    # Measures with equal values would hide one another: each is drawn a little apart.
    spread = len(chart.labels)

    def at(index: float) -> Callable[[float], float]:
        shift = (index - (spread - 1) / 2) * 2.5

        def y(value: float) -> float:
            return round(TOP + plot_h * (high - value) / (high - low) + shift, 2)

        return y

    y = at((spread - 1) / 2) if spread else at(0)

    lines: list[Line] = []
    legend: list[tuple[str, str, bool]] = []
    for index, label in enumerate(chart.labels):
        colour = COLOURS[index % len(COLOURS)]
        values = [p.values[index] if index < len(p.values) else None for p in chart.points]
        limits = [p.limits[index] if index < len(p.limits) else None for p in chart.points]
        lines.append(Line(_steps(xs, values, at(index)), colour, False))
        has_limit = any(v is not None for v in limits)
        if has_limit:
            lines.append(Line(_steps(xs, limits, _lifted(at(index))), colour, True))
        legend.append((label, colour, has_limit))
    every = max(1, math.ceil(count / 16))
    marks = []
    previous_status = "active"
    previous_round: int | None = None
    placed: list[tuple[float, float, int]] = []
    last = len(chart.points) - 1
    previous_slot: int | None = None
    for i, point in enumerate(chart.points):
        dots = tuple(
            Dot(round(xs[i], 2), at(k)(v), COLOURS[k % len(COLOURS)], chart.labels[k], _number(v))
            for k, v in enumerate(point.values)
            if v is not None
        )
        where = f"seq {point.seq}" + (f", round {point.round}" if point.round is not None else "")
        status = None
        if point.status != previous_status:
            status = _label(point.status, xs[i], placed)
        previous_status = point.status
        new_round = point.round is not None and point.round != previous_round
        previous_round = point.round
        # The first point of each sixteenth of the axis (and the last) names its seq.
        slot = places[i] // every
        show_label = slot != previous_slot or i == last
        previous_slot = slot
        marks.append(
            PointMark(
                seq=point.seq,
                x=round(xs[i], 2),
                label=str(point.seq),
                show_label=show_label,
                title=f"{where}: {point.note}",
                dots=dots,
                status=status,
                round=f"R{point.round}" if new_round else None,
            )
        )
    return Drawing(
        width=WIDTH,
        height=height,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=height - bottom,
        lines=tuple(lines),
        points=tuple(marks),
        ticks=tuple(Tick(y(t), _number(t)) for t in ticks),
        legend=tuple(legend),
        rounds=rounds,
    )


def _label(text: str, x: float, placed: list[tuple[float, float, int]]) -> Label:
    """A status label beside the mark at `x`, on the first line (from the top) where it
    overlaps no label placed before it; `placed` gains its extent."""
    right = x > WIDTH * 0.6
    width = len(text) * LABEL_CHAR + 2
    start, end = (x - 3 - width, x - 3) if right else (x + 3, x + 3 + width)
    row = 0
    while any(row == r and start < e and s < end for s, e, r in placed):
        row += 1
    placed.append((start, end, row))
    return Label(
        text=text,
        x=round(x - 3 if right else x + 3, 2),
        y=TOP + 10 + row * LABEL_LINE,
        anchor="end" if right else "start",
    )


def _lifted(y: Callable[[float], float]) -> Callable[[float], float]:
    """`y`, drawn LIMIT_LIFT above: a limit's dashed line stays visible over a full track."""
    return lambda value: round(y(value) - LIMIT_LIFT, 2)


def _steps(xs: Sequence[float], values: Sequence[float | None], y: Callable[[float], float]) -> str:
    """An SVG path that holds each value until the next point (tracks change by events)."""
    parts: list[str] = []
    last: float | None = None
    for x, value in zip(xs, values, strict=True):
        if value is None:
            last = None
            continue
        if last is None:
            parts.append(f"M{x:.2f} {y(value)}")
        else:
            parts.append(f"H{x:.2f} V{y(value)}")
        last = value
    return " ".join(parts)
