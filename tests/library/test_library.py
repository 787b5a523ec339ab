"""The library as a bot uses it: one `Ledger` shared by threads, models built by hand, and a
bot script that type-checks against the installed package."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from ledger import BadInput, Ledger
from projections.fates_edge.events import HitResolved
from projections.ssss.events import HarmInflicted


def test_a_ledger_shared_by_four_threads_stores_every_write_once_in_order(tmp_path: Path) -> None:
    errors: list[BaseException] = []
    with Ledger(tmp_path / "e.db") as book:
        book.open("ford", "ssss")
        book.join("ford", "Ash", "player")

        def writer(number: int) -> None:
            try:
                for i in range(30):
                    book.record("ford", {"type": "note", "text": f"{number}-{i}"})
                    book.tracks("ford")  # reads between writes, on the same connection
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        records = book.records("ford")
        assert book.verify("ford")[0].ok
    assert errors == []
    assert [r.seq for r in records] == list(range(1, 123))
    notes = [getattr(r.event, "text", None) for r in records[2:]]
    assert sorted(notes, key=str) == sorted(f"{n}-{i}" for n in range(4) for i in range(30))
    for n in range(4):  # each thread's writes in the order it made them
        mine = [t for t in notes if isinstance(t, str) and t.startswith(f"{n}-")]
        assert mine == [f"{n}-{i}" for i in range(30)]


def test_the_asyncio_to_thread_pattern_of_the_readme_works(tmp_path: Path) -> None:
    async def bot() -> list[int]:
        with Ledger(tmp_path / "e.db") as book:
            await asyncio.to_thread(book.open, "ford", "ssss")
            await asyncio.to_thread(book.join, "ford", "Ogre", "adversary", {"level": 2})
            hits = [
                asyncio.to_thread(book.record, "ford", HarmInflicted(target="Ogre", level=1))
                for _ in range(3)
            ]
            return sorted(result.seq for result in await asyncio.gather(*hits))

    assert asyncio.run(bot()) == [3, 4, 5]


def test_an_event_model_built_with_bad_values_is_the_ledgers_bad_input() -> None:
    with pytest.raises(BadInput, match=r"hit.resolved event field 'harm': input should be"):
        HitResolved(target="Ogre", harm=-1)
    with pytest.raises(BadInput, match="has unknown field 'colour'"):
        HitResolved(target="Ogre", harm=1, colour="red")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "value",
    [b"Bandit", {"Bandit"}, object()],
    ids=["bytes", "set", "object"],
)
def test_a_value_json_cannot_hold_is_bad_input_naming_its_field_and_nothing_is_appended(
    tmp_path: Path, value: object
) -> None:
    with Ledger(tmp_path / "e.db") as book:
        book.open("ford", "ssss")
        book.join("ford", "Bandit", "adversary", {"level": 2})
        harm = {"type": "harm.inflicted", "target": value, "level": 1}
        with pytest.raises(BadInput, match=r"harm.inflicted event field 'target': a \w+ is no"):
            book.record("ford", harm)
        with pytest.raises(BadInput, match=r"field 'stats.tags\[0\]': a \w+ is no"):
            book.join("ford", "Thug", "adversary", {"level": 1, "tags": [value]})
        assert book.tracks("ford").seq == 2
