"""What only the PostgreSQL projection cache promises (the contract itself is tests/test_cache.py,
on both stores): its tables come with the schema and with the owner's next open of an older
ledger, and a role that may not write them still appends and reads, folding from the events."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from ledger import Ledger, cache, headview
from tests.stores import PgBackend
from tests.test_cache import head_view_of


@pytest.fixture
def pg(pg_server: str) -> Iterator[PgBackend]:
    """A fresh PostgreSQL store (a schema of its own)."""
    backend = PgBackend(pg_server)
    try:
        yield backend
    finally:
        backend.close()


#: The cache tables, as `tables` lists them.
ALL = [(name,) for name in sorted(cache.TABLES)]


def tables(pg: PgBackend) -> list[tuple[str]]:
    return pg.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = ? AND tablename LIKE 'cache_%%' "
        "ORDER BY tablename",
        (pg.schema,),
    )


def brawl(pg: PgBackend) -> None:
    with pg.ledger() as ledger:
        ledger.open("brawl", "ssss")
        ledger.join("brawl", "Thug", "adversary", {"level": 2})


def test_the_cache_tables_are_made_with_the_events_schema(pg: PgBackend) -> None:
    with pg.ledger():
        pass
    assert tables(pg) == ALL


@pytest.mark.parametrize("missing", [cache.TABLES, ("cache_rolls",)])
def test_the_owner_opening_a_ledger_made_before_the_cache_makes_its_tables(
    pg: PgBackend, missing: tuple[str, ...]
) -> None:
    brawl(pg)
    for table in missing:
        pg.execute(f"DROP TABLE {table}")
    with pg.ledger() as ledger:
        assert tables(pg) == ALL
        # Made anew, all empty: no head view counts on rolls its new table does not hold.
        assert [f for f in ledger.audit("brawl") if f.rule == "cache-disagrees"] == []
        ledger.record("brawl", {"type": "harm.inflicted", "target": "Thug", "level": 1})
        head = ledger.store.require("brawl")
        view = headview.load_view(ledger.store.cache_db, "brawl", (head.seq, head.hash))
        assert view == head_view_of(ledger.refold("brawl"))


@pytest.fixture
def app_role(pg: PgBackend) -> Iterator[str]:
    """The URL of a role that may append to `brawl` (the README's grants on events and heads)
    but has no grant on the cache tables."""
    brawl(pg)
    role = f"app_{uuid.uuid4().hex[:8]}"
    pg.execute(f"CREATE ROLE {role} LOGIN")
    try:
        pg.execute(f"GRANT USAGE ON SCHEMA {pg.schema} TO {role}")
        pg.execute(f"GRANT SELECT, INSERT ON events TO {role}")
        pg.execute(f"GRANT SELECT, INSERT, UPDATE ON heads TO {role}")
        yield pg.location.replace("postgresql://postgres@", f"postgresql://{role}@")
    finally:
        pg.execute(f"DROP OWNED BY {role}")
        pg.execute(f"DROP ROLE {role}")


def test_a_role_without_the_cache_grants_appends_and_reads_folding_the_events(
    pg: PgBackend, app_role: str
) -> None:
    before = pg.execute("SELECT name, seq, view FROM cache_views ORDER BY name")
    with Ledger(app_role) as ledger:
        ledger.record("brawl", {"type": "harm.inflicted", "target": "Thug", "level": 1})
        ledger.undo("brawl", reason="missed")
        ledger.record("brawl", {"type": "harm.inflicted", "target": "Thug", "level": 2})
        assert cache.snapshot_seqs(ledger.store.cache_db, "brawl") == set()
    with Ledger(app_role) as ledger:
        assert ledger.tracks("brawl") == ledger.refold("brawl")
        assert ledger.tracks("brawl").view()["combatants"]["Thug"]["slots"]["2"]["filled"] == 1
        assert ledger.verify("brawl")[0].ok
    # Untouched by a role that may not write it; the owner's next write brings it up to date.
    assert pg.execute("SELECT name, seq, view FROM cache_views ORDER BY name") == before
    with pg.ledger() as ledger:
        ledger.record("brawl", {"type": "note", "text": "the owner writes"})
        head = ledger.store.require("brawl")
        view = headview.load_view(ledger.store.cache_db, "brawl", (head.seq, head.hash))
        assert view == head_view_of(ledger.refold("brawl"))
        assert [f for f in ledger.audit("brawl") if f.rule == "cache-disagrees"] == []
