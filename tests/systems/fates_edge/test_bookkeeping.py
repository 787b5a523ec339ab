"""The Fate's Edge fold keeps its bookkeeping by the event (#22): what each event changes, not a
recount of the fight. Whatever the stream, after every event that bookkeeping is what its
definition gives when recounted from the state, and a fold resumed from a snapshot's text ends
where the whole fold ends."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import events
from projections import core
from projections.fates_edge.model import FatesEdgeState, attack_cost
from tests.streams import RULESETS, fold, stream

Event = dict[str, Any]
STAKES = st.sampled_from(["s1", "s2", "s3", "s4"])
MOVES = st.sampled_from([None, "Poisoned Cut", "Howl"])
CAST: list[Event] = [
    {"type": "combatant.joined", "name": "Ash", "side": "player", "stats": {"body": 3}},
    {"type": "combatant.joined", "name": "Brin", "side": "player", "stats": {}},
    {
        "type": "combatant.joined",
        "name": "Marsh Hag",
        "side": "adversary",
        "stats": {
            "resilience": 12,
            "fatigue_capacity": 3,
            "harm": 2,
            "moves": [
                {"name": "Poisoned Cut", "cost": 1, "trigger": "after a hit"},
                {"name": "Howl", "cost": 2},
            ],
        },
    },
]


def fields(type_: str, **drawn: st.SearchStrategy[Any]) -> st.SearchStrategy[Event]:
    """An event of type `type_`; fields drawn as None are left out."""
    return st.fixed_dictionaries(drawn).map(
        lambda found: {"type": type_, **{k: v for k, v in found.items() if v is not None}}
    )


EVENTS = st.one_of(
    fields(
        "stakes.locked",
        stake=STAKES,
        actor=st.sampled_from(["Ash", "Brin"]),
        opposing=st.sampled_from(["Marsh Hag", None]),
        kind=st.sampled_from(["action", "defense"]),
        source=st.sampled_from(["player", "sb_attack", "sb_move", "opportunity", "consequence"]),
        move=MOVES,
        consequence_harm=st.one_of(st.none(), st.integers(1, 3)),
        partial=st.one_of(st.none(), st.just({"harm": 1})),
    ),
    fields("roll.made", stake=STAKES, dice=st.lists(st.integers(1, 10), min_size=1, max_size=4)),
    fields(
        "sb.spent",
        amount=st.integers(1, 2),
        purpose=st.sampled_from(["attack", "move", "shape"]),
        move=MOVES,
        stake=st.one_of(st.none(), STAKES),
    ),
    fields(
        "hit.resolved",
        target=st.sampled_from(["Marsh Hag", "Ash"]),
        harm=st.integers(0, 3),
        stake=st.one_of(st.none(), STAKES),
    ),
    fields("harm.suffered", target=st.just("Ash"), stake=STAKES, harm=st.integers(0, 2)),
    fields(
        "fatigue.marked", target=st.sampled_from(["Marsh Hag", "Ash"]), amount=st.integers(1, 2)
    ),
    st.just({"type": "scene.ended"}),
    st.just({"type": "note", "text": "the fight goes on"}),
)
STREAMS = st.lists(EVENTS, max_size=40).map(lambda drawn: stream("fates-edge", *CAST, *drawn))


def recounted_unpaid(state: FatesEdgeState) -> dict[str, int]:
    """The attacks locked and not rolled whose SB spent so far is less than their cost."""
    return {
        stake: locked.seq
        for stake, locked in state.stakes.items()
        if stake not in state.rolled and state.paid_for(stake) < attack_cost(state, locked.lock)
    }


def states(records: list[events.Recorded]) -> list[FatesEdgeState]:
    folder = core.RunningFold(RULESETS["fates-edge"])
    found = []
    for record in records:
        state = folder.add(record)
        assert isinstance(state, FatesEdgeState)
        found.append(state)
    return found


@settings(max_examples=150, deadline=None)
@given(STREAMS)
def test_after_every_event_the_bookkeeping_is_what_a_recount_of_the_state_gives(
    records: list[events.Recorded],
) -> None:
    for state in states(records):
        assert dict(state.unpaid) == recounted_unpaid(state)
        # Each stake's first effective roll is the roll in `rolls` at its seq.
        for stake, seq in state.rolled.items():
            roll = state.roll_of(stake)
            assert roll is not None and (roll.seq, roll.stake) == (seq, stake)
        assert len(state.rolled) == len(state.rolls)
        # What paid for a stake leaves once it is locked and rolled (it stays only when the
        # roll came before the lock, as it always has); no spend is kept that neither a stake
        # nor a lock to come can claim.
        settled = [s for s in state.paid if s in state.stakes and s in state.rolled]
        assert all(state.rolled[s] < state.stakes[s].seq for s in settled)
        claimable = {seq for paying in state.paid.values() for seq in paying}
        assert set(state.spends) == claimable | set(state.credits)
        # A consequence is due only for a rolled stake with no harm charged for it.
        assert all(s in state.rolled and s not in state.harm_charged for s in state.due)
        assert state.pools["sb"] >= 0


@settings(max_examples=100, deadline=None)
@given(STREAMS, st.integers(4, 44))
def test_a_fold_resumed_from_a_snapshots_text_ends_where_the_whole_fold_ends(
    records: list[events.Recorded], cut: int
) -> None:
    ruleset = RULESETS["fates-edge"]
    folder = core.RunningFold(ruleset)
    for record in records[:cut]:
        folder.add(record)
    assert folder.state is not None
    text = core.state_to_json(folder.state)
    assert text is not None
    snapshot = core.state_from_json(text, ruleset)
    assert snapshot == folder.state
    resumed = core.RunningFold(ruleset, snapshot)
    for record in records[cut:]:
        resumed.add(record)
    whole = fold(records)
    assert resumed.state == whole
    assert core.state_to_json(whole) == core.state_to_json(states(records)[-1])
