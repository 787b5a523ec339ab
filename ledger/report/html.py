"""The HTML report (`encounter report NAME --html FILE`): one self-contained page, with no
script and nothing fetched, that opens from a USB stick. Jinja2 escapes every name and text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ledger import systems
from ledger.report import Chart, Report, Round, statistics
from ledger.report import svg as report_svg
from ledger.report.markdown import table_columns
from projections import shown


@dataclass(frozen=True)
class Table:
    """A tracks table: the header and the rows, as text."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def page(report: Report) -> str:
    """The whole page."""
    return "".join(chunks(report))


def chunks(report: Report) -> Iterator[str]:
    """The page a part at a time, as Jinja2 renders it: the timeline is told from a second
    replay as it is written (`Report.rounds`), never held whole."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ledger.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Control characters and the marks that reorder text would let a name disguise
        # itself (or another): every value is shown with them escaped, as the terminal does.
        finalize=lambda v: shown.visible(v) if isinstance(v, str) else v,
    )
    # Anchors for what the timeline does not show (undone events, reversed undos), once each,
    # so that every seq a finding cites can be linked to.
    anchored = set(report.told)
    rulings = []
    for ruling in report.rulings:
        ids = []
        for seq in (ruling.seq, ruling.target):
            ids.append(f"seq-{seq}" if seq not in anchored else None)
            anchored.add(seq)
        rulings.append((ruling, *ids))
    cited: dict[int, list[int]] = {}
    for index, finding in enumerate(report.audit):
        for seq in finding.seq:
            cited.setdefault(seq, []).append(index)
    return env.get_template("report.html.j2").generate(
        report=report,
        rulings=rulings,
        cited=cited,
        charts=[(chart, report_svg.draw(chart)) for chart in report.charts if chart.labels],
        uncharted=[chart for chart in report.charts if not chart.labels],
        rounds=report.rounds(),
        tables=lambda group: _tables(report, group),
        errors=sum(f.severity == "error" for f in report.audit),
        statistics=statistics.tables(report.stats),
        notes=statistics.notes(report.stats),
        nobody=f"{statistics.NOBODY.capitalize()}.",
        reversed_count=sum(r.in_force for r in report.rulings),
    )


def _tables(report: Report, group: Round) -> list[Table]:
    """One table a side, with the tracks that change in the encounter (as in `markdown`)."""

    out = []
    read = systems.readings(report.system)
    for side, rows, columns in table_columns(report, group):
        header = (side, "status", *(c.replace("_", " ") for c in columns))
        body = tuple(
            (
                name,
                str(tracks["status"]),
                *(shown.shown(tracks.get(c), read.get(c)) for c in columns),
            )
            for name, tracks in rows.items()
        )
        out.append(Table(header, body))
    return out


def chart_summary(chart: Chart) -> str:
    """What a chart shows, in words (its accessible description)."""
    if not chart.labels:
        return f"{chart.combatant}: {chart.count} changes; no track to chart."
    return f"{chart.combatant}: {', '.join(chart.labels)} over {chart.count} changes."
