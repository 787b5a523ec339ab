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


def _fighters(lines: list[str]) -> dict[str, dict[str, object]]:
    with Ledger(":memory:") as memory:
        memory.import_lines(lines, into="here")
        combatants: dict[str, dict[str, object]] = memory.stats("here").document()["combatants"]
        return combatants


def test_fatigue_that_overflows_counts_as_marked_and_cleared_never_as_recovered() -> None:
    # adversary-resolution.txt: three Harm 1 hits each add 1 Fatigue; the third fills the
    # track, clears it and removes 1 Resilience. A Harm 3 Backstab clears the old Fatigue.
    lines = (paths.EXAMPLES / "silken-blade.jsonl").read_text("utf-8").splitlines()
    fighters = _fighters(lines)
    cuts = fighters["Silken Blade (three cuts)"]
    assert (cuts["taken"], cuts["recovered"], cuts["cleared"]) == (
        {"fatigue": 3, "resilience": 1},
        {},
        {"fatigue": 3},
    )
    backstab = fighters["Silken Blade (backstab)"]
    assert (backstab["taken"], backstab["recovered"], backstab["cleared"]) == (
        {"fatigue": 2, "resilience": 3},
        {},
        {"fatigue": 2},
    )
    # The later wound clears Fatigue 1 and marks 1 again: 2 marked in all, 1 cleared.
    blade = fighters["Silken Blade"]
    assert (blade["taken"], blade["cleared"]) == ({"resilience": 2, "fatigue": 2}, {"fatigue": 1})
    assert fighters["Ash"]["dealt"] == {"resilience": 6, "fatigue": 5}


def test_a_gm_lowering_fatigue_is_still_a_recovery() -> None:
    lines = [
        '{"type": "encounter.opened", "system": "fates-edge"}',
        '{"type": "combatant.joined", "name": "Ogre", "side": "adversary", "stats": '
        '{"resilience": 8, "fatigue_capacity": 3}}',
        '{"type": "fatigue.marked", "target": "Ogre", "amount": 2}',
        '{"type": "track.adjusted", "target": "Ogre", "track": "fatigue", "value": 0, '
        '"reason": "a breather"}',
    ]
    ogre = _fighters(lines)["Ogre"]
    assert (ogre["taken"], ogre["recovered"], ogre["cleared"]) == (
        {"fatigue": 2},
        {"fatigue": 2},
        {},
    )
