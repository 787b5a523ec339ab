"""Charts over long encounters (`ledger.report.plot`, #23): a chart of few changes keeps each
one; past `spans` changes it keeps, span by span, the changes that draw its picture (the first
and last, each measure's lowest and highest, each first change into a status), and says how
many changes it stands for."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hypothesis import given
from hypothesis import strategies as st

from ledger.report import Chart, Point, charts_of, svg
from projections.replay import replay
from tests.streams import ruleset_of, stream

SPANS = 8


def kira(amounts: Sequence[int], spans: int) -> Chart:
    """Kira's chart after her momentum moves by each of `amounts` in turn."""
    records = stream(
        "ironsworn",
        {"type": "combatant.joined", "name": "Kira", "side": "player", "stats": {}},
        *(
            {"type": "meter.changed", "target": "Kira", "meter": "momentum", "amount": amount}
            for amount in amounts
        ),
    )
    (chart,) = charts_of(replay(ruleset_of(records), records), spans=spans)
    return chart


def width_of(count: int, spans: int) -> int:
    """How many changes a span holds once a chart has `count` of them."""
    width = 1
    while -(-count // width) > spans:
        width *= 2
    return width


def place(point: Point, index: int) -> int:
    return index if point.at is None else point.at


amounts = st.lists(st.integers(min_value=-4, max_value=4).filter(bool), max_size=300)


@given(amounts)
def test_a_chart_of_few_changes_keeps_every_one(moves: list[int]) -> None:
    few = moves[: SPANS - 1]  # and her joining: SPANS changes at most
    chart = kira(few, spans=SPANS)
    assert chart == kira(few, spans=10**9)
    assert chart.changes is None
    assert all(p.at is None for p in chart.points)


@given(amounts)
def test_each_span_of_a_long_chart_keeps_its_ends_and_its_lowest_and_highest(
    moves: list[int],
) -> None:
    whole = kira(moves, spans=10**9)
    chart = kira(moves, spans=SPANS)
    assert chart.count == len(whole.points)
    width = width_of(chart.count, SPANS)
    spans: dict[int, list[Point]] = {}
    for index, point in enumerate(chart.points):
        spans.setdefault(place(point, index) // width, []).append(point)
    assert len(spans) <= SPANS
    for span, kept in spans.items():
        every = whole.points[span * width : (span + 1) * width]
        assert kept[0] == _at(every[0], span * width, chart)
        assert kept[-1] == _at(every[-1], span * width + len(every) - 1, chart)
        for k in range(len(chart.labels)):
            assert extent(p.values[k] for p in kept) == extent(p.values[k] for p in every)
            assert extent(p.limits[k] for p in kept) == extent(p.limits[k] for p in every)


def extent(numbers: Iterable[float | None]) -> tuple[float, float] | None:
    """The lowest and highest of the numbers there are, or None."""
    there = [n for n in numbers if n is not None]
    return (min(there), max(there)) if there else None


def _at(point: Point, at: int, chart: Chart) -> Point:
    """`point` as a chart thinned or not keeps it."""
    if chart.changes is None:
        return point
    return Point(point.seq, point.round, point.values, point.limits, point.status, point.note, at)


def test_a_thinned_chart_spans_the_same_width_and_heights_as_the_whole() -> None:
    moves = [3, -2, 4, -4, 1, 1, -3, 2] * 40
    whole = svg.draw(kira(moves, spans=10**9))
    thinned_chart = kira(moves, spans=SPANS)
    thinned = svg.draw(thinned_chart)
    assert len(thinned_chart.points) < len(moves) / 4
    assert (thinned.points[0].x, thinned.points[-1].x) == (whole.points[0].x, whole.points[-1].x)
    heights = {dot.y for p in whole.points for dot in p.dots}
    assert {dot.y for p in thinned.points for dot in p.dots} <= heights
    assert min(heights) == min(dot.y for p in thinned.points for dot in p.dots)
    assert max(heights) == max(dot.y for p in thinned.points for dot in p.dots)
    assert [t.label for t in thinned.ticks] == [t.label for t in whole.ticks]


def test_a_long_chart_holds_a_bounded_number_of_points_and_counts_every_change() -> None:
    moves = [1, 1, -1, -1] * 2_000
    chart = kira(moves, spans=SPANS)
    assert chart.count == len(moves) + 1  # and her joining
    # A span keeps its first and last, and each measure's lowest and highest.
    assert len(chart.points) <= SPANS * (2 + 4 * len(chart.labels))


def test_every_status_a_long_chart_passes_through_is_labelled() -> None:
    # Kira's momentum up, then down after she fled (the table played on: it is charted).
    records = stream(
        "ironsworn",
        {"type": "combatant.joined", "name": "Kira", "side": "player", "stats": {}},
        *({"type": "meter.changed", "target": "Kira", "meter": "momentum", "amount": 1},) * 50,
        {"type": "combatant.left", "name": "Kira", "manner": "fled"},
        *({"type": "meter.changed", "target": "Kira", "meter": "momentum", "amount": -1},) * 50,
    )
    whole = charts_of(replay(ruleset_of(records), records), spans=10**9)[0]
    chart = charts_of(replay(ruleset_of(records), records), spans=SPANS)[0]
    turned = [
        b.status
        for a, b in zip(whole.points, whole.points[1:], strict=False)
        if a.status != b.status
    ]
    labels = [p.status.text for p in svg.draw(chart).points if p.status is not None]
    assert turned and labels == turned
