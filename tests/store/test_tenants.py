"""Tenants on both stores (#28): each tenant's encounters are its own, an encounter name and an
event id may be used by every tenant, and the chain (so every head digest) does not name the
tenant, so an encounter copied to another tenant keeps its digest."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import BadInput, Ledger, UnknownName
from ledger.api import copy_ledger
from ledger.cli import app
from tests.stores import Backend


def fill(book: Ledger, text: str) -> None:
    book.open("ford", "ssss", title=f"the ford of {book.tenant}")
    book.join("ford", "Bandit", "adversary", {"level": 2})
    book.record("ford", {"type": "note", "text": text})


def test_two_tenants_keep_an_encounter_of_one_name_apart(backend: Backend) -> None:
    with backend.ledger(tenant="guild:1") as one, backend.ledger(tenant="guild:2") as two:
        fill(one, "one's secret")
        fill(two, "two's secret")
        two.record("ford", {"type": "note", "text": "two again"})
        assert [h.encounter for h in one.encounters()] == ["ford"]
        assert one.tracks("ford").seq == 3 and two.tracks("ford").seq == 4
        assert one.records("ford")[-1].event.text == "one's secret"  # type: ignore[attr-defined]
        assert one.encounters()[0].title == "the ford of guild:1"
        assert [r.ok for r in one.verify()] == [True] and [r.ok for r in two.verify()] == [True]
    with backend.ledger() as default:
        assert default.encounters() == []
        with pytest.raises(UnknownName, match="'ford' is not in"):
            default.tracks("ford")


def test_a_tenant_s_export_imports_into_another_with_its_ids_and_head_digest(
    backend: Backend,
) -> None:
    with backend.ledger(tenant="a") as a, backend.ledger(tenant="b") as b:
        fill(a, "copied")
        lines = list(a.export("ford"))
        result = b.import_lines(lines, into="ford")
        assert (result.appended, result.already_stored) == (3, 0)
        assert b.import_lines(lines, into="ford").already_stored == 3  # idempotent per tenant
        assert [r.id for r in b.records("ford")] == [r.id for r in a.records("ford")]
        assert b.encounters()[0].hash == a.encounters()[0].hash


def test_a_write_names_its_global_position_and_each_is_greater_than_the_last(
    backend: Backend,
) -> None:
    with backend.ledger(tenant="a") as a, backend.ledger(tenant="b") as b:
        first = a.open("ford", "ssss")
        second = b.open("ford", "ssss")
        third = a.record("ford", {"type": "note", "text": "x"})
        assert first.position is not None and second.position is not None
        assert third.position is not None
        assert first.position < second.position < third.position
        assert third.document()["position"] == third.position


@pytest.mark.parametrize("name", ["", "a/b", " x", "x" * 101, "ünï", "-x", "a b"])
def test_a_tenant_name_the_ledger_cannot_key_is_bad_input(backend: Backend, name: str) -> None:
    with pytest.raises(BadInput, match="a tenant is named by a letter or digit"):
        backend.ledger(tenant=name)


def test_following_another_tenant_names_it_and_sees_only_its_events(backend: Backend) -> None:
    with backend.ledger(tenant="a") as a, backend.ledger(tenant="b") as b:
        fill(a, "a's")
        fill(b, "b's")
        seen = a.follow(tenant="b", poll=0.01)
        got = [next(seen) for _ in range(3)]
    assert [f.event.text for f in got[2:]] == ["b's"]  # type: ignore[attr-defined]
    assert [f.seq for f in got] == [1, 2, 3]


def test_the_read_model_keeps_each_tenant_s_rows(backend: Backend) -> None:
    with backend.ledger(tenant="a") as a, backend.ledger(tenant="b") as b:
        for book in (a, b):
            fill(book, "x")
            book.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
        counts = a.rebuild_views()
        assert counts["ford"] > 0 and b.rebuild_views() == counts
        assert a.rebuild_views() == counts  # a rebuild of one tenant leaves the other's rows
    rows = backend.execute(
        "SELECT tenant, count(*) FROM track_changes GROUP BY tenant ORDER BY tenant"
    )
    assert rows == [("a", counts["ford"]), ("b", counts["ford"])]


def test_copy_with_a_tenant_copies_that_tenant_s_encounters_into_the_same_tenant(
    backend: Backend, tmp_path: Path
) -> None:
    with backend.ledger(tenant="guild:1") as one, backend.ledger() as default:
        fill(one, "the guild's")
        fill(default, "the default's")
        default.record("ford", {"type": "note", "text": "one more"})
    target = tmp_path / "copy.db"
    copied = copy_ledger(backend.location, target, tenant="guild:1")
    assert [(e.encounter, e.appended) for e in copied.encounters] == [("ford", 3)]
    with Ledger(target, tenant="guild:1") as guild, Ledger(target) as default:
        assert guild.records("ford")[-1].event.text == "the guild's"  # type: ignore[attr-defined]
        assert default.encounters() == []
    result = CliRunner().invoke(
        app,
        ["--tenant", "guild:1", "copy", "--from", backend.location, "--to", str(tmp_path / "b.db")],
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ford: 3 appended, 0 already stored; head seq 3\n")
    with Ledger(tmp_path / "b.db", tenant="guild:1") as guild:
        assert guild.tracks("ford").title == "the ford of guild:1"
