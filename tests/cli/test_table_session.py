"""A scripted table session, the issue's "done when": a GM and two players as three processes,
through the command line and the library, with the watch view and the live page following.

The GM opens the encounter and rules from the command line; ana proposes through the library
(as a bot would); ben tries a direct hit on Ash, which the policy refuses, then proposes; the
GM accepts ana's proposal with half the Harm, rejects ben's, then undoes the acceptance. The
watch view and the page show each act within 2 seconds; the audit lists who did what.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pexpect
import pytest
from playwright.sync_api import BrowserContext, expect

from tests import paths
from tests.cli.test_watch import watching
from tests.report.test_live_browser import browser, serving

pytestmark = pytest.mark.slow
__all__ = ["browser"]  # the fixture, used by name

ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT)}


def cli(db: Path, user: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    """`encounter --as USER ARGS` in a process of its own."""
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(db), "--as", user, *args],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert done.returncode == code, done.stderr
    return done


def library(db: Path, user: str, code: str) -> None:
    """`code` run with `book`, a `Ledger(db, user=USER)`, in a process of its own."""
    script = f"from ledger import Ledger\nwith Ledger({str(db)!r}, user={user!r}) as book:\n"
    script += textwrap.indent(textwrap.dedent(code), "    ")
    subprocess.run([sys.executable, "-c", script], check=True, env=ENV, capture_output=True)


def test_a_gm_and_two_players_play_a_round_with_the_watch_and_the_page_following(
    db: Path, browser: BrowserContext
) -> None:
    cli(db, "gm", "new", "duel", "--system", "fates-edge", "--title", "The ford")
    cli(
        db,
        "gm",
        "add",
        "duel",
        "Ash",
        "--side",
        "player",
        "--stat",
        "armor=light",
        "--player",
        "ana",
    )
    cli(
        db,
        "gm",
        "add",
        "duel",
        "Brin",
        "--side",
        "player",
        "--stat",
        "armor=light",
        "--player",
        "ben",
    )
    ogre = ["--stat", "resilience=6", "--stat", "fatigue_capacity=3", "--stat", "armor=none"]
    cli(db, "gm", "add", "duel", "Ogre", "--side", "adversary", *ogre)
    view = watching(db)
    with serving(db) as (url, _):
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        expect(page.locator("#status")).to_have_text("Live: seq 4", timeout=10000)

        def shown(seq: int, words: str) -> None:
            """The act at `seq` is on the page and in the watch view within 2 seconds."""
            started = time.monotonic()
            expect(page.locator("#seq")).to_have_text(str(seq), timeout=5000)
            expect(page.locator("#events")).to_contain_text(words, timeout=5000)
            view.expect_exact(words, timeout=5)
            assert time.monotonic() - started < 2.0

        # ana, through the library: a proposal (it changes nothing yet).
        library(
            db, "ana", 'book.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})'
        )
        shown(5, "ana proposes: Ogre is hit for Harm 2")
        # ben, on the command line: a direct hit on Ash is refused; nothing is appended.
        refused = cli(db, "ben", "hit", "duel", "Ash", "2", code=2)
        assert refused.stderr.startswith("Error: 'ben' may not record hit.resolved on 'Ash': ")
        cli(db, "ben", "hit", "duel", "Ogre", "3", "--propose")
        shown(6, "ben proposes: Ogre is hit for Harm 3")
        # The GM rules: ana's hit at half, ben's rejected, then the acceptance undone.
        cli(db, "gm", "accept", "duel", "5", "harm=1")
        shown(7, "the GM accepts ana's proposal at seq 5 with harm 1 (half)")
        expect(page.locator("#tracks")).to_contain_text("5")
        cli(db, "gm", "reject", "duel", "6", "--reason", "the Ogre ducked")
        shown(8, "the GM rejects ben's proposal at seq 6: the Ogre ducked")
        cli(db, "gm", "undo", "duel", "7", "--reason", "the parry held")
        shown(9, "seq 7 undone: the parry held")
        expect(page.locator("#proposals")).to_contain_text("seq 5: ana proposes")
        assert errors == []
    view.send("q")
    view.expect(pexpect.EOF, timeout=10)
    view.close()
    assert view.exitstatus == 0

    tracks = json.loads(cli(db, "gm", "tracks", "duel", "--json").stdout)
    assert tracks["combatants"]["Ogre"]["resilience"] == 6  # the acceptance undone
    assert [p["seq"] for p in tracks["proposals"]] == [5]  # open again
    audit = json.loads(cli(db, "gm", "audit", "duel", "--json").stdout)
    assert [(a["seq"], a["by"], a["type"]) for a in audit["acts"]][4:] == [
        (5, "ana", "proposal.made"),
        (6, "ben", "proposal.made"),
        (7, "gm", "proposal.accepted"),
        (8, "gm", "proposal.rejected"),
        (9, "gm", "event.retracted"),
    ]
    assert ("obligation-open", [5]) in [(f["rule"], f["seq"]) for f in audit["findings"]]
