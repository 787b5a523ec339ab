"""The Markdown session log (`encounter export NAME --format md`): it pastes cleanly into
Obsidian or a Discord post, and every name and text from the table is escaped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from ledger import systems
from ledger.report import Report, Round, statistics
from projections import shown
from projections.findings import Finding
from projections.statistics import Stats
from projections.words import plural

# Characters that would start Markdown (emphasis, code, links, tables, strikethrough) or raw
# HTML, which Obsidian renders: escaped so that a name shows exactly as it was typed.
_SPECIAL = re.compile(r"([\\`*_\[\]<|~#])")


#: The white space a line of the log folds into one space (every other control, format or
#: separator code point is shown as an escape by `shown.visible`).
_SPACES = re.compile(r"[ \t\n\r\f\v]+")


def escape(text: str) -> str:
    """`text` on one line, its control characters shown as escapes (a terminal would act on
    them) and Markdown's (and raw HTML's) special characters backslash-escaped."""
    return _SPECIAL.sub(r"\\\1", shown.visible(_SPACES.sub(" ", str(text)).strip()))


def session_log(report: Report) -> str:
    """The whole log, ending with one newline."""
    return "".join(session_chunks(report))


def session_chunks(report: Report) -> Iterator[str]:
    """The log a part at a time (its header, each event of each round, the tables after it,
    the rulings, the findings, the head), for a writer to write as they come: the story is
    told from a second replay as it is written (`Report.rounds`), never held whole."""
    yield _header(report)
    for group in report.rounds():
        yield from _round(report, group)
    yield "\n\n## Statistics\n\n" + statistics_text(report.stats)
    yield "\n\n" + _rulings(report)
    yield "\n\n" + _findings(report)
    yield "\n\n" + _head(report) + "\n"


def _counted(found: Sequence[Finding]) -> str:
    """`3 findings (1 error, 1 warning, 1 info)`, in the statistics' words."""
    if not found:
        return "0 findings"
    counts = {kind: sum(f.severity == kind for f in found) for kind in ("error", "warning", "info")}
    return f"{plural(len(found), 'finding')} ({statistics.by_severity(counts)})"


def _header(report: Report) -> str:
    undone = sum(r.in_force for r in report.rulings)
    summary = (
        f"{escape(report.system)} encounter {escape(report.encounter)}: "
        f"{plural(report.events, 'event')}, {plural(undone, 'ruling')} reversed or corrected, "
        f"{_counted(report.audit)}."
    )
    lines = [f"# {escape(report.name)}", "", summary, ""]
    if not report.house_rules:
        lines.append(f"House rules: the {report.system} defaults.")
    else:
        lines += [f"House rules that differ from the {report.system} defaults:", ""]
        lines += [
            f"- {escape(rule.key)}: {escape(_json(rule.value))} "
            f"(default: {escape(_json(rule.default))})"
            for rule in report.house_rules
        ]
    return "\n".join(lines)


def _round(report: Report, group: Round) -> Iterator[str]:
    """A group's heading, a line per event as it is read, then the tracks after it."""
    yield f"\n\n## {escape(group.title)}\n"
    for line in group.lines:
        source = f" ({escape(line.source)})" if line.source is not None else ""
        text = f"- seq {line.seq}{source}: {escape(line.text)}"
        if line.skipped is not None:
            text += f" (no longer applies: {escape(line.skipped)})"
        yield "\n" + text
    tables = list(_tables(report, group))
    if tables:
        lines = ["", "", f"{group.tracks_title}:"]
        for table in tables:
            lines += ["", table]
    else:
        lines = ["", "", f"{group.tracks_title}: {statistics.NOBODY}."]
    pools = shown.pools_text(group.state.pools)
    if pools:
        lines += ["", escape(pools.replace("pools: ", "GM's pools: "))]
    yield "\n".join(lines)


def table_columns(
    report: Report, group: Round
) -> Iterator[tuple[str, dict[str, dict[str, Any]], list[str]]]:
    """For each side: its combatants' tracks after the group, and the tracks to show (those
    that change in the encounter: fixed stats, such as armor or rings, would only widen it)."""
    changing = report.changing
    view = group.state.view()["combatants"]
    for side in ("player", "adversary"):
        rows = {name: tracks for name, tracks in view.items() if tracks["side"] == side}
        if not rows:
            continue
        keys = list(dict.fromkeys(k for tracks in rows.values() for k in tracks))
        columns = [
            k
            for k in keys
            if k not in ("side", "status") and any((name, k) in changing for name in rows)
        ]
        yield side, rows, columns


def _tables(report: Report, group: Round) -> Iterator[str]:
    """One Markdown table a side: a row a combatant, a column a track."""
    read = systems.readings(report.system)
    for side, rows, columns in table_columns(report, group):
        header = [side, "status", *(c.replace("_", " ") for c in columns)]
        body = [
            [name, tracks["status"], *(shown.shown(tracks.get(c), read.get(c)) for c in columns)]
            for name, tracks in rows.items()
        ]
        yield _table(header, body)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A pipe table with padded columns, so that it also reads well as plain text."""
    cells = [[escape(c) for c in header], *([escape(c) for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    lines.insert(1, "| " + " | ".join("-" * w for w in widths) + " |")
    return "\n".join(lines)


def statistics_text(stats: Stats) -> str:
    """The statistics (`projections.statistics`) as Markdown that also reads as plain text: each
    table under its title, then a sentence each for the pools, the fallen, the rulings, the
    findings and the dice (`encounter stats` prints it)."""
    parts = [
        f"{escape(table.title)}:\n\n{_table(table.header, table.rows)}"
        for table in statistics.tables(stats)
    ]
    parts.append("\n".join(f"- {escape(note)}" for note in statistics.notes(stats)))
    return "\n\n".join(parts)


def _rulings(report: Report) -> str:
    lines = ["## Undone and corrected rulings", ""]
    if not report.rulings:
        lines.append("None: every ruling stood.")
    for ruling in report.rulings:
        later = "" if ruling.in_force else " (itself reversed later)"
        fields = f" ({escape(ruling.fields)})" if ruling.fields else ""
        lines.append(
            f"- seq {ruling.seq} {ruling.verb} seq {ruling.target}{fields}: "
            f"{escape(ruling.reason)}{later}"
        )
        lines.append(f"  - {ruling.target_label}: {escape(ruling.target_text)}")
    return "\n".join(lines)


def _findings(report: Report) -> str:
    lines = ["## Audit findings", ""]
    if not report.audit:
        lines.append("No findings: the encounter keeps every rule the audit checks.")
    for finding in report.audit:
        seqs = ", ".join(map(str, finding.seq))
        rule, message = escape(finding.rule), escape(finding.message)
        lines.append(f"- **{finding.severity}** {rule} (seq {seqs}): {message}")
    return "\n".join(lines)


def _head(report: Report) -> str:
    lines = ["## Head digest", ""]
    if report.broken is not None:
        lines.append(
            f"The stored chain does not verify ({escape(report.broken)}): the events were "
            "changed after they were written, so there is no head to publish."
        )
    elif report.head is None:
        lines.append(
            "This file carries no hash chain, so it has no head to publish: import it into a "
            "ledger and export it again to get one."
        )
    else:
        lines += [
            f"Head at seq {report.events}: `{report.head}`",
            "",
            f"Check a copy: `encounter verify FILE.jsonl --head {report.head}`",
        ]
    return "\n".join(lines)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
