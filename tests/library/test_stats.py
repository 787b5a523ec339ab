"""`Ledger.stats`: the statistics are computed from the fold, the same on both stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import Ledger
from tests import paths

EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_statistics_are_the_same_on_both_stores(ledger: Ledger, example: Path) -> None:
    lines = example.read_text("utf-8").splitlines()
    ledger.import_lines(lines, into="here")
    with Ledger(":memory:") as memory:
        memory.import_lines(lines, into="here")
        assert ledger.stats("here").document() == memory.stats("here").document()


def test_a_rewind_and_an_undo_change_the_statistics_as_they_change_the_tracks(
    ledger: Ledger,
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 3})
    ledger.record("ford", {"type": "round.started", "round": 1})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    ledger.record("ford", {"type": "round.started", "round": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 2})
    ledger.rewind("ford", 1, reason="replay")
    stats = ledger.stats("ford")
    [bandit] = stats.fighters
    assert dict(bandit.taken) == {"slots": 1}
    assert dict(bandit.taken_by_round) == {(1, "slots"): 1}
    assert (dict(stats.rulings), dict(stats.in_force)) == ({"rewind": 1}, {"rewind": 1})
    ledger.undo("ford", reason="it happened")
    stats = ledger.stats("ford")
    assert dict(stats.fighters[0].taken) == {"slots": 2}
    assert dict(stats.rulings) == {"rewind": 1, "undo": 1}
    assert dict(stats.in_force) == {"undo": 1}
