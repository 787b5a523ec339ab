"""The geometry of a report's charts (`ledger.report.svg`): a full track stays visible against
its max line, and status labels that would overlap are stacked (#24)."""

from __future__ import annotations

import re

from ledger.report import Chart, Point, svg


def chart(*values: float, statuses: tuple[str, ...] = ()) -> Chart:
    """Fatigue filling to its limit of 3, one point a value."""
    points = tuple(
        Point(seq=i + 2, round=None, values=(v,), limits=(3.0,), status=s, note="")
        for i, (v, s) in enumerate(zip(values, statuses or ("active",) * len(values), strict=True))
    )
    return Chart("Ogre", "adversary", points[-1].status, ("Fatigue",), points)


def ys(path: str) -> list[float]:
    return [float(y) for y in re.findall(r"[MV]\S+ (\S+)", path.replace("H", "\nH"))]


def test_a_full_track_is_drawn_just_under_its_max_line_not_on_it() -> None:
    drawing = svg.draw(chart(1, 3))
    solid, dashed = drawing.lines
    assert dashed.dashed and not solid.dashed
    full = drawing.points[-1].dots[0].y
    assert ys(dashed.path)[-1] == full - svg.LIMIT_LIFT


def test_status_labels_close_together_are_stacked_a_line_apart() -> None:
    drawing = svg.draw(chart(1, 2, 3, 3, statuses=("active", "shaken", "defeated", "fled")))
    labels = [p.status for p in drawing.points if p.status is not None]
    assert [(label.text, label.y) for label in labels] == [
        ("shaken", svg.TOP + 10),
        ("defeated", svg.TOP + 10 + svg.LABEL_LINE),
        ("fled", svg.TOP + 10),
    ]
