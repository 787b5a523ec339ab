"""The standing under rewinds, pure: what a rewind sets aside is read from the log alone (its
`after`, and which seqs are revisions or dice events), and folds see it like an undo."""

from __future__ import annotations

from typing import Any

from projections import core
from projections.revisions import standing
from tests.streams import ruleset_of, stream

DIGEST = "ab" * 32


def harm(level: int) -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": "Bandit", "level": level}


def rewind(round_: int, after: int, reason: str = "back") -> dict[str, Any]:
    return {"type": "encounter.rewound", "round": round_, "after": after, "reason": reason}


def fight(*more: dict[str, Any]) -> list[Any]:
    """ssss: Bandit joins (2), round 1 (3-4), round 2 (5-8), then `more` from seq 9."""
    return stream(
        "ssss",
        {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 4}},
        {"type": "round.started", "round": 1},
        harm(1),
        {"type": "round.started", "round": 2},
        {"type": "dice.committed", "digest": DIGEST},
        {"type": "event.corrected", "target": 4, "reason": "it was a level-2 blow",
         "fields": {"level": 2}},
        harm(3),
        *more,
    )  # fmt: skip


def test_a_rewind_sets_aside_play_but_keeps_revisions_and_dice_events() -> None:
    now = standing(fight(rewind(1, 4)))
    assert now.gone == {5, 8}
    assert now.rewound == {5: 9, 8: 9}
    assert [r.seq for r in now.fixes[4]] == [7]  # the correction of round 1 stays in force


def test_an_undone_rewind_sets_nothing_aside_and_the_fold_reads_it_like_an_undo() -> None:
    records = fight(rewind(1, 4), {"type": "event.retracted", "target": 9, "reason": "no"})
    assert standing(records).gone == {9}
    assert core.fold(ruleset_of(records), records).round == 2


def test_a_later_rewind_further_back_keeps_the_earlier_one_in_force() -> None:
    records = fight(
        rewind(1, 4),  # 9: sets aside 5 and 8
        {"type": "round.started", "round": 2},  # 10
        harm(2),  # 11
        rewind(1, 4, "again"),  # 12: sets aside 10 and 11; 9 is not play
        {"type": "event.retracted", "target": 12, "reason": "keep the replay"},  # 13
    )
    assert standing(records).gone == {5, 8, 12}
    assert standing(records[:12]).gone == {5, 8, 10, 11}
    assert standing(records[:12]).rewound == {5: 9, 8: 9, 10: 12, 11: 12}


def test_the_fold_after_a_rewind_is_at_the_end_of_its_round() -> None:
    records = fight(rewind(1, 4))
    state = core.fold(ruleset_of(records), records)
    assert (state.round, state.seq) == (1, 9)
    slots = state.view()["combatants"]["Bandit"]["slots"]
    assert {t: s["filled"] for t, s in slots.items() if s["filled"]} == {"2": 1}
