"""Tenants on PostgreSQL (#28): row-level security holds the docs' app role to the tenant its
session names, even in SQL written by hand; every statement the store issues names its tenant
(so the tables can be distributed by tenant on Citus, as the hosting page shows)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import psycopg.errors
import pytest

from ledger import Ledger
from ledger.store import chain, postgres_schema
from tests.stores import HOSTING, Hosted, PgBackend


@pytest.fixture
def hosted(pg_server: str) -> Iterator[Hosted]:
    """The hosting page's database and roles; tenants `a` and `b` each hold `ford`, written by
    the app role (`b`'s note: "b's secret")."""
    place = Hosted(pg_server)
    try:
        for tenant in ("a", "b"):
            with Ledger(place.app, tenant=tenant) as book:
                book.open("ford", "ssss")
                book.join("ford", "Bandit", "adversary", {"level": 2})
                book.record("ford", {"type": "note", "text": f"{tenant}'s secret"})
        yield place
    finally:
        place.close()


def app_session(hosted: Hosted, tenant: str | None) -> psycopg.Connection[Any]:
    """A connection as the app role, in a session that names `tenant` (None: names none)."""
    conn = psycopg.connect(hosted.app, autocommit=True)
    if tenant is not None:
        conn.execute("SELECT set_config('app.tenant', %s, false)", (tenant,))
    return conn


def test_the_app_role_reads_only_its_tenant_s_rows_even_asking_for_another_s(
    hosted: Hosted,
) -> None:
    with app_session(hosted, "a") as conn:
        for table in ("events", "heads"):
            assert conn.execute(f"SELECT DISTINCT tenant FROM {table}").fetchall() == [("a",)]
            found = conn.execute(f"SELECT count(*) FROM {table} WHERE tenant = 'b'").fetchone()
            assert found == (0,)
        assert (
            conn.execute("SELECT body FROM events WHERE body LIKE '%b''s secret%'").fetchall() == []
        )
    with app_session(hosted, None) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)


def test_the_app_role_cannot_append_to_another_tenant_s_encounter(hosted: Hosted) -> None:
    # A row the guard would take (seq 1 of a new encounter, its hash right), but for tenant b.
    body = '{"system":"ssss","type":"encounter.opened"}'
    stamp = "2026-05-01T20:00:00.000000Z"
    digest = chain.hash_text("x", 1, "forged", "encounter.opened", stamp, body, chain.GENESIS)
    insert = (
        "INSERT INTO events (tenant, encounter, seq, id, type, recorded_at, body, prev_hash, "
        "hash) VALUES ('b', 'x', 1, 'forged', 'encounter.opened', %s, %s, %s, %s)"
    )
    with (
        app_session(hosted, "a") as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"),
    ):
        conn.execute(insert, (stamp, body, chain.GENESIS, digest))
    with (
        app_session(hosted, "a") as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"),
    ):
        conn.execute(
            "INSERT INTO heads (tenant, encounter, system, seq, hash, opened_at, updated_at) "
            "VALUES ('b', 'ford', 'ssss', 9, 'x', 'x', 'x') ON CONFLICT DO NOTHING"
        )
    with Ledger(hosted.app, tenant="b") as book:
        assert book.tracks("ford").seq == 3 and [r.ok for r in book.verify()] == [True]


def test_the_app_role_cannot_lock_another_tenant_s_rows(hosted: Hosted) -> None:
    with (
        app_session(hosted, "a") as conn,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"),
    ):
        conn.execute("SELECT seq FROM events WHERE tenant = 'b' FOR KEY SHARE")  # no event
    with app_session(hosted, "a") as conn, conn.transaction():
        locked = conn.execute("SELECT tenant FROM heads FOR UPDATE").fetchall()
        assert locked == [("a",)]  # its own tenant's head only
        assert conn.execute("SELECT * FROM heads WHERE tenant = 'b' FOR UPDATE").fetchall() == []
        # Meanwhile tenant b appends to its encounter of the same name without waiting.
        done = threading.Event()

        def write() -> None:
            with Ledger(hosted.app, tenant="b") as book:
                book.record("ford", {"type": "note", "text": "not blocked"})
            done.set()

        writer = threading.Thread(target=write)
        writer.start()
        assert done.wait(10), "tenant b's write waited for tenant a's locks"
        writer.join()


def test_the_owner_too_sees_only_the_tenant_its_session_names(hosted: Hosted) -> None:
    with psycopg.connect(hosted.owner, autocommit=True) as conn:
        conn.execute("SET app.tenant = 'b'")
        assert conn.execute("SELECT DISTINCT tenant FROM events").fetchall() == [("b",)]
    security = hosted.execute(
        hosted.admin,
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = ANY(?) "
        "ORDER BY relname",
        (list(postgres_schema.TENANT_TABLES),),
    )
    assert security == [(t, True, True) for t in sorted(postgres_schema.TENANT_TABLES)]


#: The ledger's tables: a statement that reads or writes one must name its tenant.
_TABLES = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN)\s+(events|heads|snapshots|track_changes)\b")


def test_every_statement_the_store_issues_names_its_tenant(
    pg_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    execute, executemany = psycopg.Connection.execute, psycopg.Cursor.executemany
    cursor_execute = psycopg.Cursor.execute

    def record(query: Any) -> None:
        seen.append(" ".join(str(query).split()))

    def spying(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        record(query)
        return execute(self, query, *args, **kwargs)

    def spying_many(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        record(query)
        return executemany(self, query, *args, **kwargs)

    def spying_cursor(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        record(query)
        return cursor_execute(self, query, *args, **kwargs)

    backend = PgBackend(pg_server)
    try:
        with backend.ledger(tenant="t1") as made:
            made.open("warmup", "ssss")  # the schema is made before the spying starts
        monkeypatch.setattr(psycopg.Connection, "execute", spying)
        monkeypatch.setattr(psycopg.Cursor, "executemany", spying_many)
        monkeypatch.setattr(psycopg.Cursor, "execute", spying_cursor)
        with backend.ledger(tenant="t1", user="gm") as book:
            book.open("ford", "ssss")
            book.join("ford", "Bandit", "adversary", {"level": 2})
            written = book.record(
                "ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1}
            )
            book.amend("ford", 3, {"level": 2}, reason="it was 2")
            book.undo("ford", reason="typo")
            book.tracks("ford", at_least=written.position)
            list(book.replay("ford"))
            book.audit("ford")
            book.verify()
            lines = list(book.export("ford"))
            book.import_lines(lines, into="ford")
            follower = book.follow(after=0, poll=0.01)
            next(follower)
            next(book.follow("ford", poll=0.01))
            book.rebuild_views()
    finally:
        backend.close()
    touching = [s for s in seen if _TABLES.search(s) and not s.startswith(("CREATE", "DROP"))]
    assert len(touching) > 15
    unscoped = [s for s in touching if "tenant" not in s]
    assert unscoped == []


def test_the_hosting_page_distributes_every_tenant_table_by_tenant() -> None:
    page = HOSTING.read_text(encoding="utf-8")
    distributed = set(re.findall(r"create_distributed_table\('(\w+)', 'tenant'", page))
    assert distributed >= {*postgres_schema.TENANT_TABLES}
