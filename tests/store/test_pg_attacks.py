"""What a role on a PostgreSQL ledger can try (issue #23): the app role of the docs' hosting page
forging a sealed snapshot or inserting rows of its own, and a superuser or owner switching the
append-only guard off without dropping it (a disabled trigger, a replaced function, a rule, a
replication role)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ledger import Ledger, StoreError, events
from ledger.cli import app
from ledger.store import chain, snapshots
from tests.stores import Hosted, PgBackend

runner = CliRunner()
JOIN = {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 1}}


def cli(url: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", url, *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def hosted(pg_server: str) -> Iterator[Hosted]:
    """A database with the hosting page's owner and app role; encounter 'long' (ssss, a level-1
    Bandit, one harm, 600 notes: snapshots at 256 and 512), written by the owner."""
    place = Hosted(pg_server)
    try:
        lines: list[dict[str, Any]] = [{"type": "encounter.opened", "system": "ssss"}, JOIN]
        lines += [{"type": "harm.inflicted", "target": "Bandit", "level": 1}]
        lines += [{"type": "note", "text": f"watch {n}"} for n in range(600)]
        with Ledger(place.owner) as ledger:
            ledger.import_lines([json.dumps(line) for line in lines], into="long")
        yield place
    finally:
        place.close()


@pytest.fixture
def pg(pg_server: str) -> Iterator[PgBackend]:
    backend = PgBackend(pg_server)
    try:
        with backend.ledger() as ledger:
            ledger.open("ford", "ssss")
            ledger.join("ford", "Bandit", "adversary", {"level": 2})
        yield backend
    finally:
        backend.close()


def test_the_app_role_cannot_make_a_forged_snapshot_be_used(hosted: Hosted) -> None:
    seq, digest, standing, state = hosted.execute(
        hosted.app,
        "SELECT seq, hash, standing, state FROM snapshots WHERE encounter = 'long' "
        "ORDER BY seq DESC LIMIT 1",
    )[0]
    alive = '"name":"Bandit","side":"adversary"'  # status left out: its default, active
    assert alive in state
    forged = state.replace(alive, alive + ',"status":"defeated"')
    seal = snapshots.seal(b"the app role's guess", "long", seq, digest, standing, forged)
    hosted.execute(
        hosted.app,
        "UPDATE snapshots SET state = ?, seal = ? WHERE encounter = 'long' AND seq = ?",
        (forged, seal, seq),
    )
    code, out, _ = cli(hosted.app, "tracks", "long", "--json")
    assert json.loads(out)["combatants"]["Bandit"]["status"] == "active"
    code, out, err = cli(hosted.app, "harm", "long", "Bandit", "1", "--strict")
    assert (code, err) == (0, ""), out
    assert cli(hosted.app, "verify", "long")[0] == 0


def next_row(url: str, kind: str, body: str, **changes: Any) -> dict[str, Any]:
    """The next row of encounter 'long' as the ledger would chain it (with `changes`)."""
    with Ledger(url, readonly=True) as ledger:
        head = ledger.store.require("long")
    row: dict[str, Any] = {
        "encounter": "long",
        "seq": head.seq + 1,
        "id": f"by-hand-{head.seq + 1}",
        "type": kind,
        "recorded_at": "2026-12-01T20:00:00.000000Z",
        "body": body,
        "prev_hash": head.hash,
    }
    row.update(changes)
    row["hash"] = changes.get("hash") or chain.hash_text(
        row["encounter"],
        row["seq"],
        row["id"],
        row["type"],
        row["recorded_at"],
        row["body"],
        row["prev_hash"],
    )
    return row


def insert(hosted: Hosted, row: dict[str, Any]) -> None:
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    hosted.execute(
        hosted.app, f"INSERT INTO events ({columns}) VALUES ({marks})", tuple(row.values())
    )


NOTE = '{"text":"by hand"}'
REFUSED: dict[str, tuple[str, str, dict[str, Any]]] = {
    "a seq that leaves a gap": ("note", NOTE, {"seq": 605}),
    "a prev_hash of another row": ("note", NOTE, {"prev_hash": "0" * 64}),
    "a hash of other contents": ("note", NOTE, {"hash": "ab" * 32}),
    "a body that is not an object": ("note", '["by hand"]', {}),
    "a body that is not JSON": ("note", '{"text":', {}),
    "a body with white space": ("note", '{"text": "by hand"}', {}),
    "a body with its keys out of order": ("note", '{"text":"x","by":"GM"}', {}),
    "a body with a key given twice": ("note", '{"text":"x","text":"y"}', {}),
    "a number spelled otherwise": ("note", '{"round":10e0,"text":"x"}', {}),
    "a number that is not whole": ("note", '{"round":1.5,"text":"x"}', {}),
    "an escape Python does not write": ("note", '{"text":"\\u0041"}', {}),
    "a type that is no event name": ("Note!", NOTE, {}),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_the_database_refuses_a_row_the_ledger_would_never_write(hosted: Hosted, case: str) -> None:
    import psycopg

    kind, body, changes = REFUSED[case]
    with pytest.raises(psycopg.Error, match=r"events: |invalid input syntax for type json"):
        insert(hosted, next_row(hosted.app, kind, body, **changes))
    assert cli(hosted.app, "verify", "long")[0] == 0
    assert cli(hosted.app, "record", "long", "note", "text=still ours")[0] == 0


UNACCEPTED = {
    "a value of the wrong kind": ("harm.inflicted", '{"level":"nine","target":"Bandit"}'),
    "a type the system does not have": ("made.up", "{}"),
}


@pytest.mark.parametrize("case", list(UNACCEPTED))
def test_an_event_the_ledger_never_accepted_is_reported_and_retracted_not_a_brick(
    hosted: Hosted, case: str
) -> None:
    kind, body = UNACCEPTED[case]
    insert(hosted, next_row(hosted.app, kind, body))  # the chain link is right: it is stored
    code, out, _ = cli(hosted.app, "verify", "long")
    assert code == 1
    said = out.splitlines()
    assert said[1].startswith("long: CACHE DISAGREES: the heads cache says seq 603 (")
    assert said[2].startswith(f"long: NEVER ACCEPTED: seq 604 ({kind}): ")
    assert said[2].endswith(
        "(another hand stored it; retract it: encounter undo long 604 --reason TEXT)"
    )
    code, out, _ = cli(hosted.app, "audit", "long", "--json")
    found = json.loads(out)["findings"]
    assert (code, found[-1]["rule"], found[-1]["seq"]) == (1, "event-unreadable", [604])
    assert cli(hosted.app, "tracks", "long")[0] == 0
    code, out, err = cli(hosted.app, "record", "long", "note", "text=on top")
    assert (code, out) == (1, "")
    assert err.splitlines()[0].startswith(
        "Warning: the heads cache of encounter 'long' says seq 603"
    )
    assert err.splitlines()[1].startswith(
        f"Error: encounter 'long' holds at seq 604 an event the ledger never accepted ({kind}: "
    )
    assert err.endswith("retract it first: encounter undo long 604 --reason TEXT\n")
    code, out, err = cli(hosted.app, "undo", "long", "--reason", "a bot's bad row")
    assert code == 0 and err.startswith("Warning: the heads cache"), err
    assert out.startswith("Recorded seq 605: event.retracted (undid seq 604)\n")
    assert cli(hosted.app, "verify", "long")[0] == 0
    code, out, _ = cli(hosted.app, "audit", "long", "--json")
    assert "event-unreadable" not in out
    assert cli(hosted.app, "record", "long", "note", "text=on top")[0] == 0
    code, out, _ = cli(hosted.app, "export", "long")
    assert [json.loads(line)["type"] for line in out.splitlines()][603] == kind


@pytest.fixture(scope="module")
def guarded(pg_server: str) -> Iterator[str]:
    """A PostgreSQL ledger's URL: its guard's functions are there to call."""
    backend = PgBackend(pg_server)
    try:
        with backend.ledger() as ledger:
            ledger.open("any", "ssss")
        yield backend.location
    finally:
        backend.close()


#: Any text UTF-8 can carry (no lone surrogate).
TEXT = st.characters(blacklist_categories=["Cs"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=TEXT),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet=TEXT), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(body=st.dictionaries(st.text(alphabet=TEXT), JSON, max_size=5))
def test_the_database_writes_every_body_as_the_ledger_does(guarded: str, body: Any) -> None:
    import psycopg

    text = chain.canonical(body)
    if "\\u0000" in text:  # PostgreSQL holds no NUL character (the store refuses it)
        return
    with psycopg.connect(guarded, autocommit=True) as conn:
        (made,) = conn.execute("SELECT events_canonical(%s::json)", (text,)).fetchone() or (None,)
    assert made == text


def test_an_honest_write_of_odd_text_passes_the_database_s_check(pg: PgBackend) -> None:
    text = 'tab\tquote" back\\ bell\x07 del\x7f é 漢 \u2028 😀 \\u0041'
    stats = {"record": {"grit": 2, "notes": [text, -7, None, True]}}
    with pg.ledger() as ledger:
        ledger.join("ford", "Ash", "player", stats)
        ledger.record("ford", {"type": "note", "text": text})
        assert ledger.verify("ford")[0].ok
        assert ledger.records("ford")[-1].event == events.Note(text=text)


def test_a_disabled_trigger_is_reported_and_the_owner_s_open_enables_it_again(
    pg: PgBackend,
) -> None:
    pg.execute("ALTER TABLE events DISABLE TRIGGER events_no_update")
    pg.execute("UPDATE events SET body = '{\"level\":9}' WHERE seq = 2")
    with pg.ledger(readonly=True) as ledger:
        assert [p.split(":")[0] for p in ledger.problems()] == [
            "the append-only trigger events_no_update (disabled)"
        ]
        assert ledger.verify("ford")[0].bad_seq == 2
    with pg.ledger() as ledger:  # the owner's open
        assert ledger.problems() == []
    with pytest.raises(pg.integrity_error, match="append-only"):
        pg.execute("UPDATE events SET body = '{}' WHERE seq = 2")


def test_a_replaced_trigger_function_is_reported(pg: PgBackend) -> None:
    pg.execute(
        "CREATE OR REPLACE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN NEW; END $$"
    )
    with pg.ledger(readonly=True) as ledger:
        assert [p.split(":")[0] for p in ledger.problems()] == [
            f"the append-only trigger {name} (its function was replaced)"
            for name in ("events_no_delete", "events_no_truncate")
        ]


def test_a_replaced_erasure_check_is_reported(pg: PgBackend) -> None:
    pg.execute(
        "CREATE OR REPLACE FUNCTION events_check_erasure() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN NEW; END $$"
    )
    with pg.ledger(readonly=True) as ledger:
        assert [p.split(":")[0] for p in ledger.problems()] == [
            "the append-only trigger events_no_update (its function was replaced)"
        ]
    with pg.ledger() as ledger:  # the owner's open makes it anew
        assert ledger.problems() == []
    with pytest.raises(pg.integrity_error, match="append-only"):
        pg.execute("UPDATE events SET body = '' WHERE seq = 2")


def test_a_replaced_json_check_is_reported(pg: PgBackend) -> None:
    pg.execute(
        "CREATE OR REPLACE FUNCTION events_canonical(value json) RETURNS text "
        "LANGUAGE plpgsql IMMUTABLE STRICT AS $$ BEGIN RETURN value::text; END $$"
    )
    with pg.ledger(readonly=True) as ledger:
        assert [p.split(":")[0] for p in ledger.problems()] == [
            "the append-only trigger events_append_check (its function was replaced)"
        ]


def test_a_rule_that_swallows_inserts_is_reported_and_no_write_is_acknowledged(
    pg: PgBackend,
) -> None:
    pg.execute("CREATE RULE swallow AS ON INSERT TO events DO INSTEAD NOTHING")
    with pg.ledger() as ledger:
        with pytest.raises(StoreError, match=r"seq 3 is missing\): a trigger or rule"):
            ledger.record("ford", {"type": "note", "text": "swallowed"})
        assert [p.split(":")[0] for p in ledger.problems()] == [
            "the rule swallow on events is not the ledger's own"
        ]
        assert ledger.store.require("ford").seq == 2


def test_a_replication_role_that_skips_triggers_is_reported_and_the_guard_still_holds(
    pg: PgBackend,
) -> None:
    replica = pg.location.replace("options=", "options=-csession_replication_role%3Dreplica%20")
    with Ledger(replica, readonly=True) as ledger:
        assert [p.split(":")[0] for p in ledger.problems()] == [
            "session_replication_role is 'replica' for this role or database"
        ]
    import psycopg

    with psycopg.connect(replica, autocommit=True) as conn:
        assert conn.execute("SHOW session_replication_role").fetchone() == ("replica",)
        with pytest.raises(psycopg.IntegrityError, match="append-only"):
            conn.execute("UPDATE events SET body = '{}'")
        with pytest.raises(psycopg.IntegrityError, match="append-only"):
            conn.execute("DELETE FROM events")
