"""`Ledger.follow` and the live table on both stores: SQLite and PostgreSQL hand out the same
events, in order, to a follower on a connection of its own while another writes."""

from __future__ import annotations

import threading

import pytest

from ledger import NotAllowed
from tests.stores import Backend


def test_a_follower_sees_every_append_of_another_writer_in_order(backend: Backend) -> None:
    with backend.ledger(user="gm") as gm:
        gm.open("ford", "ssss")
        gm.join("ford", "Bandit", "adversary", {"level": 2})

    def write() -> None:
        with backend.ledger(user="gm") as writer:
            for i in range(10):
                writer.record("ford", {"type": "note", "text": f"n{i}"})

    with backend.ledger(readonly=True) as reader:
        stream = reader.follow("ford", after=1, poll=0.02)
        writer = threading.Thread(target=write)
        writer.start()
        got = [next(stream) for _ in range(11)]
        writer.join()
    assert [f.seq for f in got] == list(range(2, 13))
    assert [f.record.type for f in got] == ["combatant.joined", *["note"] * 10]
    assert {f.encounter for f in got} == {"ford"} and {f.event.by for f in got} == {"gm"}


def test_the_policy_refuses_a_player_on_either_store(backend: Backend) -> None:
    with backend.ledger(user="gm") as gm:
        gm.open("ford", "ssss")
        gm.join("ford", "Bandit", "adversary", {"level": 2})
    with backend.ledger(user="ana") as ana, pytest.raises(NotAllowed):
        ana.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    with backend.ledger() as book:
        assert book.tracks("ford").seq == 2
