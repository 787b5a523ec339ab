"""The fast canonical body text (`ledger.chain.canonical`) is the stdlib's, byte for byte.

Every append stores and hashes this text, and anyone recomputes the hash with the stdlib form
(DESIGN §3): the orjson path may be used only where it writes exactly the same.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import BadInput, Ledger, chain, events
from ledger.events import common, versions
from tests.test_fuzz import FUZZ, STRATEGIES, Event

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.jsonl"))

#: JSON without floats: text of any code point (controls, surrogates, U+2028), integers past
#: 64 bits, nesting, and keys that are not text.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.text(),
    st.text(st.characters(codec=None, categories=None)),
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(), inner, max_size=4),
        st.dictionaries(st.integers(0, 9), inner, max_size=2),
    ),
    max_leaves=20,
)


def stdlib(document: Any) -> str | type[Exception]:
    try:
        return chain.CANONICAL.encode(document)
    except (TypeError, ValueError) as exc:
        return type(exc)


def fast(document: Any) -> str | type[Exception]:
    try:
        return chain.canonical(document, float_free=True)
    except (TypeError, ValueError) as exc:
        return type(exc)


@settings(max_examples=500, deadline=None, database=None)
@given(DOCUMENTS)
def test_orjson_writes_the_stdlib_canonical_text_for_documents_without_floats(
    document: Any,
) -> None:
    assert fast(document) == stdlib(document)


@settings(max_examples=200, deadline=None, database=None)
@given(st.dictionaries(st.text(), st.floats(allow_nan=False, allow_infinity=False), min_size=1))
def test_a_document_that_may_hold_floats_keeps_the_stdlib_text(document: dict[str, Any]) -> None:
    assert chain.canonical(document) == chain.CANONICAL.encode(document)


def test_only_event_types_whose_fields_cannot_hold_a_float_take_the_fast_path() -> None:
    # Stats, values and house rules are any JSON: they may hold a float.
    assert not events.float_free(common.CombatantJoined)
    assert not events.float_free(common.TrackAdjusted)
    assert not events.float_free(common.TracksNoted)
    assert not events.float_free(common.EncounterOpened)
    assert events.float_free(common.Note)
    assert events.float_free(common.EventRetracted)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_stored_body_is_the_stdlib_canonical_text(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        rows = list(ledger.store.raw_rows(imported.encounter))
        assert ledger.verify(imported.encounter)[0].ok
    assert rows
    for row in rows:
        assert row[5] == chain.CANONICAL.encode(json.loads(row[5]))


def test_ids_stay_unique_and_version_4_across_refills_of_the_pool() -> None:
    ids = [chain.new_id() for _ in range(2000)]
    assert len(set(ids)) == 2000
    assert all(i[14] == "4" and i[19] in "89ab" and len(i) == 36 for i in ids)


@given(st.binary(min_size=16, max_size=16))
def test_an_id_is_the_text_uuid_gives_the_same_random_bytes(chunk: bytes) -> None:
    chain._pool.append(chunk)
    assert chain.new_id() == str(uuid.UUID(bytes=chunk, version=4))


def test_a_forked_child_never_makes_the_ids_its_parent_will() -> None:
    chain.new_id()  # the pool is filled: a child copies it with the process
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write, chain.new_id().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    theirs = os.read(read, 64).decode()
    os.close(read)
    mine = {chain.new_id() for _ in range(300)}
    assert len(theirs) == 36 and theirs not in mine


def full_body(event: events.EventBase) -> dict[str, Any]:
    """A body as the ledger has always dumped it: every field, then the top-level nulls out."""
    dumped = event.model_dump(mode="json")
    kind = dumped.pop("type")
    return versions.stamped(kind, {k: v for k, v in dumped.items() if v is not None})


def test_only_event_types_of_scalar_fields_are_dumped_by_pydantics_exclude_none() -> None:
    ssss = events._models("ssss")
    assert events.flat(ssss["harm.inflicted"]) and events.flat(ssss["note"])
    # Nested values keep their nulls in a body: exclude_none would drop them there too.
    assert not events.flat(ssss["combatant.joined"])  # stats
    assert not events.flat(events._models("fates-edge")["stakes.locked"])  # partial


@pytest.mark.parametrize("system", sorted(STRATEGIES))
def test_every_body_is_the_full_dump_without_its_top_level_nulls(system: str) -> None:
    @FUZZ
    @given(STRATEGIES[system]())
    def check(item: Event) -> None:
        try:
            event = events.parse(dict(item), system)
        except BadInput:
            return
        assert events.body_of(event) == full_body(event)
        assert list(events.body_of(event)) == list(full_body(event))

    check()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_body_is_the_full_dump_without_its_top_level_nulls(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        for record in ledger.records(imported.encounter):
            assert events.body_of(record.event) == full_body(record.event)


@settings(max_examples=300, deadline=None, database=None)
@given(DOCUMENTS, st.booleans())
def test_a_body_of_any_type_is_the_stdlib_canonical_text_with_or_without_floats(
    document: Any, floats: bool
) -> None:
    # A type that may hold a float is looked through: only a body that holds one, anywhere,
    # is written by the stdlib; the text is the stdlib's either way.
    if floats:
        document = {"values": [document, {"x": 1.5}]}
    try:
        text: str | type[Exception] = chain.canonical(document)
    except (TypeError, ValueError) as exc:
        text = type(exc)
    assert text == stdlib(document)
