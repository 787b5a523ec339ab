"""`encounter report NAME --html FILE` (and `audit --html`), opened in a real headless Chromium.

The page must load with no console error and fetch nothing, draw one chart per combatant with a
point per event that changed its tracks, link every finding to an element that exists, show a
hostile name as text, and fit a phone's width.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time
from playwright.sync_api import (
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Error,
    Page,
    Request,
    sync_playwright,
)

import ledger
from tests import paths
from tests.cli.invoke import run
from tests.conftest import missing

#: A real headless Chromium: run by `.ci/run` (`-m slow`), not by the README's test command.
pytestmark = pytest.mark.slow

EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: The network is closed here: nothing of Chromium's own may try to reach it.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOSTILE = "<script>alert(1)</script>"


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """A headless Chromium with a fresh profile (skipped only when no Chromium is installed)."""
    if not Path(CHROMIUM).exists():
        missing("no Chromium: install Debian's chromium package (.ci/run does)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            tmp_path_factory.mktemp("chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


class Opened:
    """A report opened in a page, with everything the page said and asked for."""

    def __init__(self, context: BrowserContext, file: Path, width: int = 1280) -> None:
        self.page: Page = context.new_page()
        self.page.set_viewport_size({"width": width, "height": 900})
        self.console: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []

        def on_console(message: ConsoleMessage) -> None:
            if message.type in ("error", "warning"):
                self.console.append(f"{message.type}: {message.text}")

        def on_request(request: Request) -> None:
            self.requests.append(request.url)

        def on_dialog(dialog: Dialog) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        def on_error(exc: Error) -> None:
            self.console.append(f"pageerror: {exc}")

        self.page.on("console", on_console)
        self.page.on("pageerror", on_error)
        self.page.on("request", on_request)
        self.page.on("dialog", on_dialog)
        self.page.goto(file.as_uri(), wait_until="load")

    def evaluate(self, script: str) -> Any:
        return self.page.evaluate(script)

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def opened(browser: BrowserContext) -> Iterator[list[Opened]]:
    pages: list[Opened] = []
    yield pages
    for page in pages:
        page.close()


def report_of(source: str, db: Path, out: Path) -> Path:
    code, stdout, err = run(db, "report", source, "--html", str(out))
    assert (code, stdout) == (0, ""), err
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_report_loads_with_no_console_error_and_fetches_nothing(
    path: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    file = report_of(str(path), tmp_path / "unused.db", tmp_path / "report.html")
    page = Opened(browser, file)
    opened.append(page)
    assert page.console == []
    assert page.requests == [file.as_uri()]
    assert page.evaluate("document.querySelectorAll('script').length") == 0


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_report_has_a_chart_per_combatant_with_a_point_per_track_change(
    path: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    book, name = ledger.load(path)
    with book:
        combatants = list(book.tracks(name).combatants)
        # history also lists what touched a track and left it where it was (#9): no point.
        changes = {
            who: sum(any(c.before != c.after for c in s.changes) for s in book.history(name, who))
            for who in combatants
        }
    page = Opened(browser, report_of(str(path), tmp_path / "unused.db", tmp_path / "r.html"))
    opened.append(page)
    drawn = page.evaluate(
        """[...document.querySelectorAll('figure.chart')].map(f => [
            f.querySelector('figcaption').firstChild.textContent.trim(),
            f.querySelectorAll('svg g.point').length,
        ])"""
    )
    # A combatant with nothing to chart is named in one line, with its changes, not a card.
    listed = page.evaluate(
        """[...document.querySelectorAll('p.uncharted span.combatant')].map(s => [
            s.dataset.combatant, Number((s.textContent.match(/(\\d+) changes?\\)/) || [0, 0])[1]),
        ])"""
    )
    assert page.evaluate("document.querySelectorAll('p.uncharted').length") == (1 if listed else 0)
    assert {**dict(drawn), **dict(listed)} == changes
    assert sorted(who for who, _ in [*drawn, *listed]) == sorted(combatants)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_finding_links_to_each_event_it_cites(
    path: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    book, name = ledger.load(path)
    with book:
        # The rulings section tells each undo and amend: the findings leave their notes out.
        findings = [f for f in book.audit(name) if f.rule != "ruling-reversed"]
    page = Opened(browser, report_of(str(path), tmp_path / "unused.db", tmp_path / "r.html"))
    opened.append(page)
    cited = page.evaluate(
        """[...document.querySelectorAll('li.finding')].map(li =>
            [...li.querySelectorAll('a.cite')].map(a => {
                const target = document.getElementById(a.getAttribute('href').slice(1));
                return target === null ? null : Number(a.textContent);
            }))"""
    )
    assert cited == [list(f.seq) for f in findings]
    dangling = page.evaluate(
        """[...document.querySelectorAll('a[href^="#"]')]
            .map(a => a.getAttribute('href'))
            .filter(href => document.getElementById(href.slice(1)) === null)"""
    )
    assert dangling == []


@pytest.fixture
def hostile(db: Path) -> Path:
    """An encounter whose every name and text tries to inject markup, with an undo."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "fates-edge", "--title", "<img src=x onerror=alert(2)>")
        stats = ["--stat", "resilience=3", "--stat", "fatigue_capacity=2", "--stat", "armor=none"]
        ok(db, "add", "ford", HOSTILE, "--side", "adversary", *stats)
        ok(db, "add", "ford", "Ash", "--side", "player")
        ok(db, "record", "ford", "hit.resolved", f"target={HOSTILE}", "harm=1")
        ok(db, "record", "ford", "hit.resolved", f"target={HOSTILE}", "harm=1")
        ok(db, "undo", "ford", "--reason", "</li><script>alert(3)</script>")
        ok(db, "record", "ford", "note", "text=<style>body{display:none}</style>")
        ok(db, "record", "ford", "note", "text=\x1b[2Jgone \u202eesrever")
        ok(db, "amend", "ford", "4", "harm=2", "--reason", "<b>a deeper cut</b>")
    return db


def test_a_hostile_name_shows_as_text_and_never_runs(
    hostile: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    page = Opened(browser, report_of("ford", hostile, tmp_path / "ford.html"))
    opened.append(page)
    assert page.dialogs == []
    assert page.console == []
    assert page.evaluate("document.querySelectorAll('script, img, body style').length") == 0
    assert (
        page.evaluate("document.querySelector('h1').textContent") == "<img src=x onerror=alert(2)>"
    )
    caption = page.evaluate(
        "document.querySelector('figure.chart figcaption').firstChild.textContent"
    )
    assert caption.strip() == HOSTILE
    assert page.evaluate("document.querySelector('ul.rulings q').textContent") == (
        "</li><script>alert(3)</script>"
    )
    assert page.page.is_visible("main")
    dangling = page.evaluate(
        """[...document.querySelectorAll('a[href^="#"]')]
            .map(a => a.getAttribute('href'))
            .filter(href => document.getElementById(href.slice(1)) === null)"""
    )
    assert dangling == []
    ruling = page.evaluate("document.querySelectorAll('ul.rulings li')[1].textContent")
    assert " ".join(ruling.split()) == (
        "seq 9 corrected seq 4 (harm 2): <b>a deeper cut</b> seq 4 as played: "
        f"{HOSTILE} is hit for Harm 1: no armor: all 1 stays Harm; Resilience 3 -> 2"
    )
    last = page.evaluate("document.querySelector('#seq-8 .text').textContent")
    assert last == "note: \\x1b[2Jgone \\u202eesrever"


def test_the_report_of_a_ledger_encounter_shows_its_head_digest(
    hostile: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    head = json.loads(ok(hostile, "export", "ford").splitlines()[-1])["hash"]
    page = Opened(browser, report_of("ford", hostile, tmp_path / "ford.html"))
    opened.append(page)
    assert page.evaluate("document.getElementById('head').textContent") == head


@pytest.mark.parametrize("width", [360, 1280])
def test_the_report_fits_a_phone_and_a_laptop_without_scrolling_sideways(
    width: int, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    source = str(EXAMPLES[0])
    page = Opened(browser, report_of(source, tmp_path / "unused.db", tmp_path / "r.html"), width)
    opened.append(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    chart_width = page.evaluate(
        "document.querySelector('figure.chart svg').getBoundingClientRect().width"
    )
    assert chart_width >= min(300, width - 60)


def test_audit_html_writes_the_same_report_and_keeps_its_exit_code(
    tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    path = next(p for p in EXAMPLES if p.stem == "fates-edge-ambush")
    out = tmp_path / "audit.html"
    code, stdout, err = run(tmp_path / "unused.db", "audit", str(path), "--html", str(out))
    assert code == 1
    assert "5 errors, 1 warning, 2 notes." in stdout
    assert (
        err
        == f"Wrote the report of 'fates-edge-ambush' to {out} (48 events, 4 charts, 7 findings).\n"
    )
    page = Opened(browser, out)
    opened.append(page)
    assert page.evaluate("document.querySelectorAll('li.finding').length") == 7
    assert page.console == []


def test_a_chart_of_an_encounter_in_rounds_marks_where_each_round_begins(
    tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    path = next(p for p in EXAMPLES if p.stem == "l5r-duel")
    page = Opened(browser, report_of(str(path), tmp_path / "unused.db", tmp_path / "r.html"))
    opened.append(page)
    marks = page.evaluate(
        """[...document.querySelectorAll('figure.chart')].map(f =>
            [...f.querySelectorAll('g.point')].map(g => [
                Number(g.dataset.seq), g.querySelector('.round-label')?.textContent ?? null]))"""
    )
    # Toshiro's tracks change at seqs 2 (joins), 5 and 7 (rounds 1, 2), 11-13 (3, 4), 14 and
    # 15 (round 5), then at the scene's end and the rest (no round).
    assert marks[0] == [
        [2, None],
        [5, "R1"],
        [7, "R2"],
        [11, "R3"],
        [12, "R4"],
        [13, None],
        [14, "R5"],
        [15, None],
        [16, None],
        [17, None],
    ]


@pytest.fixture
def fallen(db: Path) -> Path:
    """An L5R character Incapacitated at seq 4 who surrenders at seq 5, and one Incapacitated at
    seq 7 who escapes, is caught and bargains (status changes at consecutive points)."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "duel", "--system", "l5r")
        rings = '{"air": 2, "earth": 2, "fire": 2, "water": 2, "void": 2}'
        ok(db, "add", "duel", "Akodo", "--side", "player", "--stat", f"rings={rings}")
        ok(db, "damage", "duel", "Akodo", "3")
        ok(db, "damage", "duel", "Akodo", "7")
        ok(db, "leave", "duel", "Akodo", "--manner", "surrendered")
        ok(db, "add", "duel", "Bayushi", "--side", "adversary", "--stat", f"rings={rings}")
        ok(db, "damage", "duel", "Bayushi", "9")
        ok(db, "record", "duel", "track.adjusted", "target=Bayushi", "track=status",
           "value=escaped", "reason=over the rail")  # fmt: skip
        ok(db, "record", "duel", "track.adjusted", "target=Bayushi", "track=status",
           "value=active", "reason=caught on the bridge")  # fmt: skip
        ok(db, "leave", "duel", "Bayushi", "--manner", "bargained")
    return db


def test_status_labels_never_overprint_and_l5r_marks_where_incapacitated_began(
    fallen: Path, tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    page = Opened(browser, report_of("duel", fallen, tmp_path / "duel.html"))
    opened.append(page)
    labels = page.evaluate(
        """[...document.querySelectorAll('figure.chart')].map(f =>
            [...f.querySelectorAll('g.point')].filter(g => g.querySelector('.status-label'))
            .map(g => {
                const box = g.querySelector('.status-label').getBoundingClientRect();
                return [Number(g.dataset.seq), g.querySelector('.status-label').textContent,
                        box.left, box.top, box.right, box.bottom];
            }))"""
    )
    akodo, bayushi = labels
    assert [(seq, text) for seq, text, *_ in akodo] == [(4, "incapacitated"), (5, "surrendered")]
    assert [(seq, text) for seq, text, *_ in bayushi] == [
        (7, "incapacitated"),
        (8, "escaped"),
        (9, "incapacitated"),
        (10, "bargained"),
    ]
    for chart in labels:
        boxes = [tuple(mark[2:]) for mark in chart]
        for i, (left, top, right, bottom) in enumerate(boxes):
            for other in boxes[i + 1 :]:
                apart = (
                    right <= other[0] or other[2] <= left or bottom <= other[1] or other[3] <= top
                )
                assert apart, (boxes[i], other)


def test_an_example_report_opens_with_its_title_and_no_word_of_a_missing_chain(
    tmp_path: Path, browser: BrowserContext, opened: list[Opened]
) -> None:
    for path in EXAMPLES:
        page = Opened(browser, report_of(str(path), tmp_path / "unused.db", tmp_path / "r.html"))
        opened.append(page)
        header = page.evaluate("document.querySelector('header').textContent")
        assert "hash chain" not in header
        assert "no hash chain" in page.evaluate("document.querySelector('footer').textContent")
