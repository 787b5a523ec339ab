"""The live page (`encounter serve`) without a browser: what it sends, to whom, and never a
value the policy keeps for the GMs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ledger import Ledger
from ledger.live import page as pages
from ledger.live import serve

OGRE = {"resilience": 97, "fatigue_capacity": 3, "armor": "none", "harm": 2}
HIDDEN = {"gms": ["gm"], "hidden": {"adversary": ["resilience"]}}


@pytest.fixture
def table(db: Path) -> Iterator[Ledger]:
    """A GM hiding the Ogre's Resilience (17) from the players; ana proposes a hit, accepted."""
    with Ledger(db, user="gm") as gm:
        gm.open("duel", "fates-edge", policy=HIDDEN)
        gm.join("duel", "Ash", "player", {"armor": "light"}, player="ana")
        gm.join("duel", "<script>alert(1)</script>", "adversary", {**OGRE, "resilience": 5})
        gm.join("duel", "Ogre", "adversary", OGRE)
        with Ledger(db, user="ana") as ana:
            ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
        gm.accept("duel", 5, {"harm": 1})
        with Ledger(db, user="ana") as ana:
            ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 3})
        yield gm


def sent(book: Ledger) -> str:
    """Everything the page's two answers carry: the whole page and a stream message (the
    page's style left out: its colours are numbers too)."""
    page = pages.build(book, "duel")
    whole = pages.render(page, whole=True)
    message = json.loads(json.dumps(pages.document(page)))["html"]
    text = re.sub(r"<style>.*?</style>", "", whole + message, flags=re.S)
    # The charts' coordinates are numbers too: what the page says is in its text and titles.
    return re.sub(r'\s(?:x|y|x1|x2|y1|y2|cx|cy|d|viewBox|width|height)="[^"]*"', "", text)


def test_a_hidden_track_is_never_sent_not_even_in_words_or_charts(table: Ledger) -> None:
    text = sent(table)
    # Resilience 97, 96 after the accepted Harm 1, 93 if the pending Harm 3 were accepted.
    for value in ("97", "96", "93", "Resilience 9", "resilience 9"):
        assert not re.search(rf"\b{value}\b", text), value
    page = pages.build(table, "duel")
    adversaries = page.tables[1]
    assert "resilience" not in adversaries.header
    assert all("Resilience" not in chart.labels for chart, _ in page.charts)


def test_without_a_hidden_track_the_page_tells_everything(db: Path) -> None:
    with Ledger(db, user="gm") as gm:
        gm.open("duel", "fates-edge")
        gm.join("duel", "Ogre", "adversary", OGRE)
        text = sent(gm)
    assert "Resilience 97" in text


def test_the_page_tells_the_proposals_and_rulings(table: Ledger) -> None:
    page = pages.build(table, "duel")
    assert page.proposals == ("seq 7: ana proposes hit resolved (harm 3, target Ogre)",)
    told = {t.seq: (t.by, t.text) for t in page.events}
    assert told[5] == ("ana", "ana proposes hit resolved")
    assert told[6] == ("gm", "the GM accepts the proposal at seq 5")
    assert told[2] == ("gm", "Ash joins as a player: light armor (played by ana)")
    assert told[4] == ("gm", "Ogre joins as an adversary")


def test_a_script_tag_in_a_name_is_text(table: Ledger) -> None:
    html = pages.render(pages.build(table, "duel"), whole=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<script>") == 1  # the page's own


@pytest.fixture
def served(table: Ledger) -> serve.Feed:
    feed = serve.Feed(lambda: pages.build(table, "duel"))
    feed.refresh()
    return feed


def test_on_the_lan_a_request_without_the_token_gets_403(served: serve.Feed) -> None:
    client = TestClient(serve.app(served, "s3cret", "0.0.0.0"))
    assert client.get("/").status_code == 403
    assert client.get("/?token=wrong").status_code == 403
    assert client.get("/events").status_code == 403
    answer = client.get("/?token=s3cret")
    assert answer.status_code == 200 and "Ogre" in answer.text


def test_on_this_machine_only_a_request_naming_it_is_answered(served: serve.Feed) -> None:
    client = TestClient(serve.app(served, None, "127.0.0.1"), base_url="http://127.0.0.1:8765")
    assert client.get("/").status_code == 200
    rebound = client.get("/", headers={"Host": "attacker.example"})
    assert rebound.status_code == 400


def test_the_page_is_read_only_and_locked_down(served: serve.Feed) -> None:
    client = TestClient(serve.app(served, None, "127.0.0.1"), base_url="http://127.0.0.1:8765")
    assert client.post("/").status_code == 405
    headers = client.get("/").headers
    assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'sha")
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"


def test_the_lan_url_carries_the_token_and_this_machine_none() -> None:
    assert serve.url("127.0.0.1", 8765, None) == "http://127.0.0.1:8765/"
    lan = serve.url("0.0.0.0", 8765, "abc")
    assert lan.startswith("http://") and lan.endswith(":8765/?token=abc")
    assert serve.token_for("127.0.0.1") is None
    token = serve.token_for("0.0.0.0")
    assert token is not None and len(token) >= 20 and token != serve.token_for("0.0.0.0")
