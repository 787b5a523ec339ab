"""`encounter serve` in a real headless Chromium: the page follows appends by another process
within 2 seconds, logs no console error, shows a `<script>` name as text, and off this
machine answers only a request that carries its token."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect, sync_playwright

from ledger import Ledger
from tests import paths
from tests.conftest import missing
from tests.report.test_report_html import CHROMIUM, FLAGS, HOSTILE

pytestmark = pytest.mark.slow

OGRE = {"resilience": 97, "fatigue_capacity": 3, "armor": "none", "harm": 2}
ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT)}


@pytest.fixture
def duel(db: Path) -> Path:
    with Ledger(db, user="gm") as gm:
        gm.open("duel", "fates-edge", policy={"hidden": {"adversary": ["resilience"]}})
        gm.join("duel", "Ash", "player", {"armor": "light"}, player="ana")
        gm.join("duel", HOSTILE, "adversary", OGRE)
        gm.join("duel", "Ogre", "adversary", OGRE)
    return db


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def serving(db: Path, *options: str) -> Iterator[tuple[str, int]]:
    """`encounter serve duel OPTIONS` in another process: (the URL it printed, its port)."""
    port = free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "ledger", "--db", str(db), "serve", "duel", "--port", str(port),
         "--poll", "0.1", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    ) as server:  # fmt: skip
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            assert line.startswith("Serving 'duel' read-only at http://"), line
            found = re.search(r"(http://\S+)", line)
            assert found is not None
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield found.group(1), port
        finally:
            server.terminate()
            server.wait(timeout=10)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[BrowserContext]:
    if not Path(CHROMIUM).exists():
        missing("no Chromium: install Debian's chromium package (.ci/run does)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            tmp_path / "profile",
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1100, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def encounter(db: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), *args],
        check=True,
        capture_output=True,
        env=ENV,
    )


def test_the_page_follows_an_append_by_another_process_within_2_seconds(
    duel: Path, browser: BrowserContext
) -> None:
    with serving(duel) as (url, _):
        page = browser.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("dialog", lambda d: problems.append(f"a dialog opened: {d.message}"))
        page.goto(url)
        # Locators, not page scripts: the page's policy lets no other script run.
        expect(page.locator("#status")).to_have_text("Live: seq 4", timeout=10000)
        page.wait_for_timeout(300)  # the stream is open
        encounter(duel, "propose", "duel", "hit.resolved", "target=Ogre", "harm=2", "--as", "ana")
        appended = time.monotonic()
        expect(page.locator("#proposals")).to_contain_text("ana proposes", timeout=5000)
        assert time.monotonic() - appended < 2.0
        encounter(duel, "accept", "duel", "5", "harm=1", "--as", "gm")
        appended = time.monotonic()
        expect(page.locator("#seq")).to_have_text("6", timeout=5000)
        assert time.monotonic() - appended < 2.0
        text = page.inner_text("main")
        assert HOSTILE in text  # shown as text, never run
        assert page.locator("main script").count() == 0
        assert not re.search(r"\b9[67]\b", text)  # the hidden Resilience
        assert page.locator("figure.chart").count() == 3
        assert problems == []


def test_off_this_machine_a_request_without_the_token_gets_403(duel: Path) -> None:
    with serving(duel, "--host", "0.0.0.0") as (url, port):
        token = url.split("?token=")[1]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        refused.value.close()
        assert refused.value.code == 403
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={token}", timeout=10) as ok:
            assert ok.status == 200 and "Ogre" in ok.read().decode()
