"""`verify` checks that row-level security still holds on PostgreSQL (#28): a tenant table with
RLS disabled, not forced, its tenant policy dropped or replaced, or a policy of another hand
that widens it, is reported (exit 1), as an altered append-only trigger is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from ledger import Ledger
from ledger.cli import app
from tests.stores import PgBackend

runner = CliRunner()


@pytest.fixture
def pg(pg_server: str) -> Iterator[PgBackend]:
    backend = PgBackend(pg_server)
    try:
        with backend.ledger(tenant="a") as ledger:
            ledger.open("ford", "ssss")
        with backend.ledger(tenant="b") as ledger:
            ledger.open("ford", "ssss")
            ledger.record("ford", {"type": "note", "text": "b's secret"})
        yield backend
    finally:
        backend.close()


CASES = {
    "disabled": (
        ["ALTER TABLE events DISABLE ROW LEVEL SECURITY"],
        "events (row-level security disabled)",
    ),
    "not forced": (
        ["ALTER TABLE heads NO FORCE ROW LEVEL SECURITY"],
        "heads (row-level security not forced: its owner is not held to it)",
    ),
    "policy dropped": (
        ["DROP POLICY ledger_tenant ON snapshots"],
        "snapshots (its tenant policy ledger_tenant is missing)",
    ),
    "policy replaced": (
        [
            "DROP POLICY ledger_tenant ON events",
            "CREATE POLICY ledger_tenant ON events USING (true) WITH CHECK (true)",
        ],
        "events (its tenant policy ledger_tenant was replaced)",
    ),
    "policy for one command only": (
        [
            "DROP POLICY ledger_tenant ON events",
            "CREATE POLICY ledger_tenant ON events FOR INSERT "
            "WITH CHECK (tenant = current_setting('app.tenant', true))",
        ],
        "events (its tenant policy ledger_tenant was replaced)",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_row_level_security_switched_off_is_reported_and_the_owner_s_open_restores_it(
    pg: PgBackend, case: str
) -> None:
    statements, said = CASES[case]
    for statement in statements:
        pg.execute(statement)
    with Ledger(pg.location, tenant="a", readonly=True) as ledger:
        assert ledger.problems() == [
            f"the row-level security of {said}: a session can see or write another tenant's rows"
        ]
    result = runner.invoke(app, ["--db", pg.location, "--tenant", "a", "verify"])
    assert result.exit_code == 1
    assert f"BROKEN: the row-level security of {said}" in result.stdout
    with Ledger(pg.location, tenant="a") as ledger:  # the owner's open makes it anew
        assert ledger.problems() == []
    found = pg.execute(
        "SELECT relrowsecurity AND relforcerowsecurity FROM pg_class WHERE oid IN "
        "('events'::regclass, 'heads'::regclass, 'snapshots'::regclass)"
    )
    assert found == [(True,)] * 3


def test_a_policy_of_another_hand_that_widens_a_tenant_table_is_reported(pg: PgBackend) -> None:
    pg.execute("CREATE POLICY everyone ON events USING (true)")
    with Ledger(pg.location, tenant="a") as ledger:  # the owner's open leaves it: not its own
        assert ledger.problems() == [
            "the row-level security of events (the policy everyone is not the ledger's own): "
            "a session can see or write another tenant's rows"
        ]
    pg.execute("DROP POLICY everyone ON events")
    pg.execute("CREATE POLICY narrower ON events AS RESTRICTIVE USING (seq > 0)")
    with Ledger(pg.location, tenant="a", readonly=True) as ledger:  # a restrictive one narrows
        assert ledger.problems() == []


def test_a_ledger_as_it_is_made_has_its_row_level_security_in_force(pg: PgBackend) -> None:
    with Ledger(pg.location, tenant="a") as ledger:
        ledger.rebuild_views()  # track_changes is held to its tenant too
        assert ledger.problems() == []
    pg.execute("ALTER TABLE track_changes DISABLE ROW LEVEL SECURITY")
    with Ledger(pg.location, tenant="a", readonly=True) as ledger:
        assert ledger.problems() == [
            "the row-level security of track_changes (row-level security disabled): a session "
            "can see or write another tenant's rows"
        ]
    with Ledger(pg.location, tenant="a") as ledger:  # the owner's open makes it anew
        assert ledger.problems() == []
