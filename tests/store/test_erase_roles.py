"""Erasure as the documented app role, and of a whole tenant in one transaction (#28).

The app role of the hosting page erases through the ledger's one sanctioned path, the function
`ledger_erase` (SECURITY DEFINER, EXECUTE granted): it has no UPDATE or DELETE on `events`, so
it changes no row by hand, and the function erases only the session's own tenant's encounters.
`erase --tenant-all` erases every encounter of the tenant in one transaction, or none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import psycopg.errors
import pytest

from ledger import BrokenChain, Ledger, StoreError
from ledger.errors import Erased
from ledger.store import postgres_schema
from ledger.store.sql import SqlStore
from tests.stores import Backend, Hosted, PgBackend


@pytest.fixture
def hosted(pg_server: str) -> Iterator[Hosted]:
    """The hosting page's database and roles; tenants `a` and `b` each hold `ford` and `keep`,
    written by the app role."""
    place = Hosted(pg_server)
    try:
        for tenant in ("a", "b"):
            with Ledger(place.app, tenant=tenant) as book:
                for name in ("ford", "keep"):
                    book.open(name, "ssss")
                    book.record(name, {"type": "note", "text": f"{tenant}'s {name} secret"})
        yield place
    finally:
        place.close()


def app_session(hosted: Hosted, tenant: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(hosted.app, autocommit=True)
    conn.execute("SELECT set_config('app.tenant', %s, false)", (tenant,))
    return conn


def test_the_app_role_erases_its_tenant_s_encounter_through_the_ledger(hosted: Hosted) -> None:
    with Ledger(hosted.app, tenant="a") as ledger:
        head = ledger.store.require("ford").hash
        done = ledger.erase("ford", confirm="ford")
        assert done.document()["encounters"] == [{"encounter": "ford", "erased": 2, "head": head}]
        report = ledger.verify("ford")[0]
        assert report.ok and report.erased == 2 and report.head == head
        with pytest.raises(Erased):
            ledger.tracks("ford")
        assert ledger.problems() == []
    with Ledger(hosted.app, tenant="b") as other:
        assert [getattr(r.event, "text", None) for r in other.records("ford")][1] == (
            "b's ford secret"
        )


def test_the_app_role_still_cannot_update_or_delete_rows_by_hand(hosted: Hosted) -> None:
    with app_session(hosted, "a") as conn:
        conn.execute("SELECT set_config('app.erasing', 'a/ford', false)")  # the permit, forged
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE events SET body = '' WHERE encounter = 'ford'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM events WHERE encounter = 'ford'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE events SET body = '' WHERE encounter = 'ford' AND seq = 2")
    with Ledger(hosted.app, tenant="a") as ledger:
        assert [r.ok and not r.erased for r in ledger.verify()] == [True, True]


def test_the_app_role_cannot_erase_another_tenant_s_encounter(hosted: Hosted) -> None:
    with app_session(hosted, "a") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="not the tenant"):
            conn.execute("SELECT ledger_erase('b', 'ford')")
        # Its own tenant's session sees none of b's rows, so there is nothing of b's to erase.
        assert conn.execute("SELECT ledger_erase('a', 'nowhere')").fetchone() == (0,)
    with Ledger(hosted.app, tenant="b") as other:
        assert [r.ok and not r.erased for r in other.verify()] == [True, True]


def test_a_role_without_the_grant_cannot_erase(hosted: Hosted) -> None:
    with psycopg.connect(hosted.admin, autocommit=True) as conn:
        app = hosted.names["encounter_app"]
        conn.execute(f"REVOKE EXECUTE ON FUNCTION ledger_erase(text, text) FROM {app}")
    with Ledger(hosted.app, tenant="a") as ledger:
        with pytest.raises(StoreError, match="permission denied for function ledger_erase"):
            ledger.erase("ford", confirm="ford")
        assert not ledger.store.require("ford").erased


def test_a_database_without_the_erasure_function_says_how_to_make_it_and_erases_nothing(
    hosted: Hosted,
) -> None:
    with psycopg.connect(hosted.owner, autocommit=True) as conn:
        conn.execute("DROP FUNCTION ledger_erase(text, text)")
    with Ledger(hosted.app, tenant="a") as ledger:
        with pytest.raises(StoreError, match=r"no ledger_erase function.*open it once"):
            ledger.erase("ford", confirm="ford")
        assert not ledger.store.require("ford").erased
    with Ledger(hosted.owner, tenant="a") as owner:  # the owner's open makes it anew
        assert owner.erase("ford", confirm="ford").erased == 2


def test_a_replaced_erasure_function_is_reported_and_the_owner_s_open_makes_it_anew(
    pg_server: str,
) -> None:
    pg = PgBackend(pg_server)
    try:
        with pg.ledger() as ledger:
            ledger.open("ford", "ssss")
        pg.execute(
            "CREATE OR REPLACE FUNCTION ledger_erase(erased_tenant text, erased_encounter text) "
            "RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT "
            "AS $$ BEGIN RETURN 0; END $$"
        )
        with pg.ledger(readonly=True) as ledger:
            assert [p.split(":")[0] for p in ledger.problems()] == [
                f"the erasure function {postgres_schema.ERASE_FUNCTION} was replaced"
            ]
        with pg.ledger() as ledger:
            assert ledger.problems() == []
    finally:
        pg.close()


def three_encounters(backend: Backend) -> None:
    with backend.ledger(tenant="t") as ledger:
        for name in ("a", "b", "c"):
            ledger.open(name, "ssss")
            ledger.record(name, {"type": "note", "text": f"{name} secret"})


def test_erase_tenant_all_erases_every_encounter_in_one_transaction(backend: Backend) -> None:
    three_encounters(backend)
    with backend.ledger(tenant="t") as ledger:
        done = ledger.erase_tenant(confirm="t")
        assert [(n, c) for n, c, _ in done.encounters] == [("a", 2), ("b", 2), ("c", 2)]
        assert [r.erased for r in ledger.verify()] == [2, 2, 2]
        again = ledger.erase_tenant(confirm="t")
        assert again.erased == 0


def test_a_failure_half_way_through_erase_tenant_all_leaves_everything_as_before(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    three_encounters(backend)
    erase_in = SqlStore._erase_in
    calls: list[str] = []

    def failing(self: SqlStore, conn: Any, head: Any) -> int:
        calls.append(head.encounter)
        if len(calls) == 2:
            raise StoreError("the server went away (injected)")
        return erase_in(self, conn, head)

    monkeypatch.setattr(SqlStore, "_erase_in", failing)
    with backend.ledger(tenant="t") as ledger:
        with pytest.raises(StoreError, match="injected"):
            ledger.erase_tenant(confirm="t")
        assert calls == ["a", "b"]
        assert [r.erased for r in ledger.verify()] == [0, 0, 0]
        texts = [getattr(ledger.records(n)[1].event, "text", None) for n in ("a", "b", "c")]
        assert texts == ["a secret", "b secret", "c secret"]


def test_one_broken_chain_refuses_the_whole_tenant_s_erasure(backend: Backend) -> None:
    three_encounters(backend)
    backend.tamper(
        'UPDATE events SET body = \'{"text":"forged","type":"note"}\' '
        "WHERE encounter = 'c' AND seq = 2"
    )
    with backend.ledger(tenant="t") as ledger:
        with pytest.raises(BrokenChain, match="'c' does not verify at seq 2"):
            ledger.erase_tenant(confirm="t")
        assert [r.erased for r in ledger.verify()] == [0, 0, 0]
