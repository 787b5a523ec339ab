"""A Fate's Edge state holds what a later rule can still read, and no more (#22): what paid for
an attack leaves once it is rolled, and a long fight's snapshot grows by a few hundred bytes a
test (the stake, its roll), not by everything each event carried."""

from __future__ import annotations

import json
from typing import Any

from projections import core
from projections.fates_edge.model import FatesEdgeState
from tests.longstreams import fates_edge_stream
from tests.streams import RULESETS, audit, fold, stream

Event = dict[str, Any]
HAG: Event = {
    "type": "combatant.joined",
    "name": "Marsh Hag",
    "side": "adversary",
    "stats": {"resilience": 40, "fatigue_capacity": 3, "harm": 2},
}
ASH: Event = {"type": "combatant.joined", "name": "Ash", "side": "player", "stats": {"body": 3}}


def bought_attacks(rounds: int) -> list[Event]:
    """Rounds of an attack the GM buys with SB ahead (a credit), locks, and Ash rolls (a 1
    among the dice gives the SB back)."""
    items: list[Event] = [ASH, HAG]
    for n in range(rounds):
        stake = f"claw-{n}"
        items += [
            {"type": "sb.spent", "amount": 1, "purpose": "attack"},
            {
                "type": "stakes.locked",
                "stake": stake,
                "actor": "Ash",
                "opposing": "Marsh Hag",
                "kind": "defense",
                "source": "sb_attack",
                "dv": 3,
            },
            {"type": "roll.made", "stake": stake, "dice": [1, 6, 7]},
        ]
    return items


def fates_edge(count: int) -> FatesEdgeState:
    """The state after `count` events of the benchmark's long Fate's Edge encounter."""
    records = stream("fates-edge", *list(fates_edge_stream(count))[1:])
    state = fold(records)
    assert isinstance(state, FatesEdgeState)
    return state


def test_the_spends_that_paid_for_an_attack_leave_the_state_once_it_is_rolled() -> None:
    records = stream("fates-edge", *bought_attacks(300))
    state = fold(records)
    assert isinstance(state, FatesEdgeState)
    assert (dict(state.spends), dict(state.paid), state.credits) == ({}, {}, ())
    assert len(state.stakes) == len(state.rolled) == len(state.rolls) == 300
    # Only the first spend overspends (the pool is empty); every attack was paid before its roll.
    assert [(f.rule, f.seq) for f in audit(records) if f.severity != "info"] == [
        ("sb-overspent", (4,))
    ]


def test_a_spend_for_an_attack_not_rolled_yet_stays_until_its_roll() -> None:
    state = fold(stream("fates-edge", *bought_attacks(3)[:-1]))
    assert isinstance(state, FatesEdgeState)
    assert dict(state.paid) == {"claw-2": (10,)}
    assert list(state.spends) == [10]


def test_a_spend_after_the_roll_is_judged_as_ever_and_kept_nowhere() -> None:
    items = [
        *bought_attacks(1),
        {"type": "sb.spent", "amount": 1, "purpose": "attack", "stake": "claw-0"},
    ]
    records = stream("fates-edge", *items)
    state = fold(records)
    assert isinstance(state, FatesEdgeState)
    assert (dict(state.spends), dict(state.paid)) == ({}, {})
    found = [f for f in audit(records) if f.rule == "sb-not-retroactive"]
    assert [f.seq for f in found] == [(5, 6, 7)]
    assert "it was already rolled at seq 6" not in found[0].message  # the roll made 1 SB
    assert "its roll at seq 6 generated 1 SB" in found[0].message


def test_a_spend_for_a_stake_rolled_before_its_lock_still_pays_for_that_lock() -> None:
    # The roll came first (roll-before-lock); the stake is not settled until it is locked, so
    # what was paid for it is kept and the lock claims no credit.
    items = [
        ASH,
        HAG,
        {"type": "sb.spent", "amount": 1, "purpose": "attack", "stake": "claw"},
        {"type": "roll.made", "stake": "claw", "dice": [6, 7, 8]},
        {"type": "sb.spent", "amount": 1, "purpose": "attack"},
        {
            "type": "stakes.locked",
            "stake": "claw",
            "actor": "Ash",
            "opposing": "Marsh Hag",
            "source": "sb_attack",
        },
    ]
    state = fold(stream("fates-edge", *items))
    assert isinstance(state, FatesEdgeState)
    assert dict(state.paid) == {"claw": (4,)}
    assert state.credits == (6,)


def test_a_lock_against_an_adversary_with_no_fatigue_keeps_no_fatigue_entry() -> None:
    state = fates_edge(3_004)
    assert len(state.stakes) == 1_000
    assert dict(state.lock_fatigue) == {}


def test_a_long_fights_snapshot_grows_by_a_few_hundred_bytes_a_test() -> None:
    # 1,000 more tests (a lock, its roll, a note each): before #22 each cost 560 bytes of
    # snapshot text (every lock term and roll field, the None ones too, every class's full
    # name); now 350.
    shorter = core.state_to_json(fates_edge(3_004))
    longer = core.state_to_json(fates_edge(6_004))
    assert shorter is not None and longer is not None
    assert (len(longer) - len(shorter)) / 1_000 < 400


def test_the_books_of_a_fight_are_a_record_of_their_own_read_by_their_own_names() -> None:
    # A lock and its roll change no charge, spend or hit: they copy the state, not its books.
    records = stream("fates-edge", *list(fates_edge_stream(3_006))[1:])
    folder = core.RunningFold(RULESETS["fates-edge"])
    kept = {}
    for record in records:
        kept[record.seq] = folder.add(record)
    before, after = kept[3_004], kept[3_006]
    assert isinstance(before, FatesEdgeState) and isinstance(after, FatesEdgeState)
    assert after.rolled is not before.rolled and after.books is before.books
    assert after.unpaid is after.books.unpaid and after.last_hit is after.books.last_hit


def test_a_snapshot_of_the_state_before_its_books_were_split_is_not_read() -> None:
    # A snapshot is a cache: one written with the books in the state itself (before #22's
    # second pass) no longer reads back, and the reader folds from the events instead.
    records = stream("fates-edge", *bought_attacks(3)[:-1])
    state = fold(records)
    text = core.state_to_json(state)
    assert text is not None
    data = json.loads(text)
    books = data.pop("books")
    del books["@"]
    old = json.dumps({**data, **books})
    ruleset = RULESETS["fates-edge"]
    assert core.state_from_json(old, ruleset) is None
    assert core.state_from_json(text, ruleset) == state
