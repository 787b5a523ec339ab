"""What an attacker with the database (or a role on it) tries, on both stores (issue #23): a
forged cache served as truth, a write that extends a chain broken behind a snapshot or cut short,
a trigger of another hand that swallows an acknowledged write, and an edited heads cache.

Each attack is made behind the append-only guard, which is put back word for word afterwards, so
nothing of the guard itself shows it: only the rows do."""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import BrokenChain, Ledger, StoreError
from ledger.cli import app
from ledger.store import chain, snapshots
from tests.stores import Backend

runner = CliRunner()
CONTEXT = multiprocessing.get_context("fork")

JOIN = {"type": "combatant.joined", "name": "Bandit", "side": "adversary", "stats": {"level": 1}}


def cli(backend: Backend, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--db", backend.location, *args])
    return result.exit_code, result.stdout, result.stderr


def rows(backend: Backend, encounter: str = "long") -> list[tuple[int, str]]:
    found = backend.execute(
        "SELECT seq, hash FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
    )
    return [(int(seq), str(digest)) for seq, digest in found]


@pytest.fixture
def long(backend: Backend) -> Iterator[Backend]:
    """Encounter 'long' (ssss): a level-1 Bandit, one harm, 600 notes (snapshots at 256 and
    512: a read or a write folds only what comes after them)."""
    lines: list[dict[str, Any]] = [{"type": "encounter.opened", "system": "ssss"}, JOIN]
    lines += [{"type": "harm.inflicted", "target": "Bandit", "level": 1}]
    lines += [{"type": "note", "text": f"watch {n}"} for n in range(600)]
    with backend.ledger() as ledger:
        ledger.import_lines([json.dumps(line) for line in lines], into="long")
    assert [s for (s,) in backend.execute("SELECT seq FROM snapshots ORDER BY seq")] == [256, 512]
    yield backend


def edit_seq_5(backend: Backend) -> None:
    """Change seq 5's note behind the guard, and put the guard back."""
    backend.tamper(
        "UPDATE events SET body = replace(body, 'watch 1', 'watch 9') "
        "WHERE encounter = 'long' AND seq = 5"
    )


REFUSED_AT_5 = (
    "Error: encounter 'long' does not verify at seq 5 (hash does not match the event's "
    "contents): nothing was appended to a broken chain; see `encounter verify`\n"
)


def test_a_write_refuses_a_chain_edited_behind_its_snapshot_with_the_guard_put_back(
    long: Backend,
) -> None:
    edit_seq_5(long)
    before = rows(long)
    assert cli(long, "record", "long", "note", "text=on top") == (1, "", REFUSED_AT_5)
    assert rows(long) == before
    code, out, _ = cli(long, "verify", "long")
    assert (code, out) == (1, "long: BROKEN at seq 5: hash does not match the event's contents\n")


def test_tracks_of_a_chain_edited_behind_its_snapshot_warn(long: Backend) -> None:
    edit_seq_5(long)
    code, out, err = cli(long, "tracks", "long")
    assert code == 0 and out.startswith("long (ssss) at seq 603\n")
    assert err == (
        "Warning: encounter 'long' does not verify at seq 5 (hash does not match the event's "
        "contents): what is shown may not be what was recorded; see `encounter verify`\n"
    )


def test_a_long_lived_library_writer_refuses_a_chain_edited_under_it(long: Backend) -> None:
    with long.ledger() as bot:
        bot.record("long", {"type": "note", "text": "the bot was here"})
        bot.tracks("long")
        edit_seq_5(long)
        with pytest.raises(BrokenChain, match="does not verify at seq 5"):
            bot.record("long", {"type": "note", "text": "and again"})
        with pytest.raises(BrokenChain, match="does not verify at seq 5"):
            bot.undo("long", reason="a retraction is a write too")
    assert rows(long)[-1][0] == 604


def cut_after(backend: Backend, seq: int) -> None:
    backend.tamper(f"DELETE FROM events WHERE encounter = 'long' AND seq > {seq}")


def test_a_write_refuses_to_extend_an_encounter_cut_short_and_verify_keeps_saying_so(
    long: Backend,
) -> None:
    cut_after(long, 600)
    removed = (
        "the last stored seq is 600, but seq 603 was acknowledged: events were removed from the end"
    )
    code, out, err = cli(long, "record", "long", "note", "text=on top")
    assert (code, out) == (1, "")
    assert err == (
        f"Error: encounter 'long' does not hold the head the ledger acknowledged ({removed}): "
        "nothing was appended; `encounter repair long --accept-loss --reason TEXT` records the "
        "loss and lets writes go on\n"
    )
    with long.ledger() as ledger, pytest.raises(BrokenChain) as refused:
        ledger.record("long", {"type": "note", "text": "a bot tries"})
    assert refused.value.code == "broken-chain"
    for _ in range(2):
        assert cli(long, "verify", "long")[:2] == (1, f"long: BROKEN at seq 601: {removed}\n")
    assert rows(long)[-1][0] == 600


def test_repair_accepts_the_loss_once_with_a_note_that_the_audit_reports_for_good(
    long: Backend,
) -> None:
    cut_after(long, 600)
    code, out, err = cli(long, "repair", "long", "--accept-loss", "--reason", "a bad restore")
    lost = (
        "events lost (encounter repair --accept-loss): the last stored seq is 600, but seq 603 "
        "was acknowledged: events were removed from the end; reason: a bad restore"
    )
    assert (code, out, err) == (0, f"Recorded seq 601: note\n  note: {lost}\n", "")
    assert cli(long, "verify", "long")[0] == 0
    assert cli(long, "record", "long", "note", "text=on we go")[0] == 0
    assert cli(long, "undo", "long", "601", "--reason", "hide the loss")[0] == 0
    code, out, _ = cli(long, "audit", "long", "--json")
    found = json.loads(out)["findings"]
    assert [(f["rule"], f["seq"], f["severity"]) for f in found] == [
        ("loss-accepted", [601], "warning"),
        ("ruling-reversed", [603, 601], "info"),
    ]
    assert found[0]["message"].startswith(lost)


def test_repair_takes_expect_and_strict_as_every_recording_command_does(long: Backend) -> None:
    """Two GMs repairing at once: the second, whose `--expect` is stale, appends nothing."""
    cut_after(long, 600)
    args = ("repair", "long", "--accept-loss", "--reason", "a bad restore", "--strict")
    assert cli(long, *args, "--expect", "599") == (
        3,
        "",
        "Error: encounter 'long' is at seq 600, not 599: another writer appended first; "
        "re-read and try again\n",
    )
    assert rows(long)[-1][0] == 600
    assert cli(long, *args, "--expect", "600")[0] == 0  # loss-accepted is a warning
    assert cli(long, *args, "--expect", "601")[::2] == (
        2,
        "Error: encounter 'long' holds the head the ledger acknowledged last: nothing was lost, "
        "so there is nothing to repair\n",
    )
    assert rows(long)[-1][0] == 601


def test_repair_refuses_what_it_cannot_repair(long: Backend) -> None:
    assert cli(long, "repair", "long", "--accept-loss", "--reason", "why not") == (
        2,
        "",
        "Error: encounter 'long' holds the head the ledger acknowledged last: nothing was lost, "
        "so there is nothing to repair\n",
    )
    cut_after(long, 600)
    assert cli(long, "repair", "long", "--reason", "why")[::2] == (
        2,
        "Error: repair gives up acknowledged events for good: say so with --accept-loss\n",
    )
    assert cli(long, "repair", "long", "--accept-loss")[::2] == (
        2,
        "Error: repair needs --reason TEXT (the ledger keeps why events were given up)\n",
    )
    edit_seq_5(long)  # a chain broken in the middle is no loss to accept: it stays refused
    assert cli(long, "repair", "long", "--accept-loss", "--reason", "x") == (1, "", REFUSED_AT_5)
    assert rows(long)[-1][0] == 600


def test_a_foreign_trigger_that_swallows_a_write_is_reported_and_nothing_is_acknowledged(
    long: Backend,
) -> None:
    if long.kind == "sqlite":
        long.execute(
            "CREATE TRIGGER swallow BEFORE INSERT ON events WHEN NEW.type = 'note' "
            "BEGIN SELECT RAISE(IGNORE); END"
        )
    else:
        long.execute(
            "CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RETURN NULL; END $$"
        )
        long.execute(
            "CREATE TRIGGER swallow BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION swallow()"
        )
    code, out, err = cli(long, "record", "long", "note", "text=swallowed")
    assert (code, out) == (2, "")
    assert err == (
        "Error: encounter 'long': the database did not store what this write appended (seq 604 "
        "is missing): a trigger or rule that is not the ledger's swallowed or changed it; "
        "nothing was appended; see `encounter verify`\n"
    )
    with long.ledger() as ledger, pytest.raises(StoreError) as refused:
        ledger.record("long", {"type": "note", "text": "swallowed too"})
    assert refused.value.code == "store-error"
    assert rows(long)[-1][0] == 603
    with long.ledger() as ledger:
        where = ledger.store.name
    code, out, _ = cli(long, "verify")
    assert code == 1
    assert out.splitlines()[0] == (
        f"{where}: BROKEN: the trigger swallow on events is not the ledger's own: it can "
        "swallow or change what is written"
    )


def test_an_edited_system_in_the_heads_cache_changes_nothing(long: Backend) -> None:
    long.execute("UPDATE heads SET system = 'l5r', title = 'forged' WHERE encounter = 'long'")
    code, out, _ = cli(long, "tracks", "long")
    assert code == 0 and out.startswith("long (ssss) at seq 603\n")
    assert cli(long, "verify", "long")[0] == 0
    assert cli(long, "harm", "long", "Bandit", "1")[0] == 0
    with long.ledger() as ledger:
        assert [(h.system, h.title) for h in ledger.encounters()] == [("ssss", None)]
    assert long.execute("SELECT system, title FROM heads") == [("ssss", None)]


def forge_defeat(backend: Backend, secret: bytes) -> None:
    """Rewrite the newest snapshot so that the Bandit is defeated, sealed with `secret`."""
    seq, digest, standing, state = backend.execute(
        "SELECT seq, hash, standing, state FROM snapshots WHERE encounter = 'long' "
        "ORDER BY seq DESC LIMIT 1"
    )[0]
    alive = '"name":"Bandit","side":"adversary"'  # status left out: its default, active
    assert alive in state
    forged = state.replace(alive, alive + ',"status":"defeated"')
    seal = snapshots.seal(secret, "long", int(seq), digest, standing, forged)
    backend.execute(
        "UPDATE snapshots SET state = ?, seal = ? WHERE encounter = 'long' AND seq = ?",
        (forged, seal, seq),
    )


@pytest.mark.parametrize("secret", [b"", b"the attacker's own key"], ids=["empty", "other"])
def test_a_snapshot_forged_and_resealed_without_the_key_decides_nothing(
    long: Backend, secret: bytes
) -> None:
    forge_defeat(long, secret)
    code, out, _ = cli(long, "tracks", "long", "--json")
    assert json.loads(out)["combatants"]["Bandit"]["status"] == "active"
    # A legal harm on a Bandit who still stands is judged on the log, not on the forgery.
    code, out, err = cli(long, "harm", "long", "Bandit", "1", "--strict")
    assert (code, err) == (0, ""), out
    assert "event-after-defeat" not in out
    with long.ledger() as ledger:
        assert ledger.tracks("long") == ledger.refold("long")
        assert not [f for f in ledger.audit("long") if f.rule == "event-after-defeat"]


def test_the_same_forgery_sealed_with_the_key_is_read(long: Backend) -> None:
    """The control of the test above: the forgery is a snapshot the ledger would read, and
    only the key it lacks keeps it out (which is why the key is kept outside the database)."""
    secret = snapshots.key()
    assert secret is not None
    forge_defeat(long, secret)
    code, out, _ = cli(long, "tracks", "long", "--json")
    assert code == 0
    assert json.loads(out)["combatants"]["Bandit"]["status"] == "defeated"


def test_an_event_stored_behind_the_ledger_s_back_is_reported_read_and_retracted(
    long: Backend, tmp_path: Path
) -> None:
    last_seq, last_hash = rows(long)[-1]
    body = '{"level":"nine","target":"Bandit"}'
    row = ("long", last_seq + 1, "by-hand", "harm.inflicted", "2026-12-01T20:00:00.000000Z")
    digest = chain.hash_text(*row, body, last_hash)
    long.execute(
        "INSERT INTO events (encounter, seq, id, type, recorded_at, body, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (*row, body, last_hash, digest),
    )
    code, out, _ = cli(long, "verify", "long")
    assert code == 1 and "long: NEVER ACCEPTED: seq 604 (harm.inflicted): " in out
    report = tmp_path / "long.html"
    for args in (
        ["tracks", "long"],
        ["log", "long"],
        ["replay", "long", "--from", "600"],
        ["history", "long", "Bandit"],
        ["export", "long", "--format", "md"],
        ["report", "long", "--html", str(report)],
    ):
        code, out, err = cli(long, *args)
        assert code == 0, (args, out, err)
    code, out, _ = cli(long, "replay", "long", "--from", "604")
    assert "harm inflicted: never accepted by the ledger, counts for nothing" in out
    assert cli(long, "record", "long", "note", "text=x")[0] == 1
    assert cli(long, "undo", "long", "604", "--reason", "not ours")[0] == 0
    assert cli(long, "verify", "long")[0] == 0
    assert cli(long, "record", "long", "note", "text=x")[0] == 0


def _appender(url: str, count: int) -> None:
    with Ledger(url) as ledger:
        for n in range(count):
            ledger.record("ford", {"type": "note", "text": f"storm {n}"})


@pytest.mark.slow
def test_verify_while_another_process_appends_never_cries_wolf(backend: Backend) -> None:
    with backend.ledger() as ledger:
        ledger.open("ford", "ssss")
    writer = CONTEXT.Process(target=_appender, args=(backend.location, 400))
    writer.start()
    alarms: list[object] = []
    runs = 0
    try:
        with backend.ledger(readonly=True) as ledger:
            while writer.is_alive() or runs < 5:
                for report in ledger.verify("ford"):
                    runs += 1
                    if not report.ok or report.cache is not None or report.invalid is not None:
                        alarms.append(report)
                code, out, _ = cli(backend, "verify", "ford")
                if code != 0:
                    alarms.append(out)
                time.sleep(0.005)
    finally:
        writer.join(60)
    assert writer.exitcode == 0
    assert runs >= 5 and alarms == []


def test_a_chain_rewritten_consistently_verifies_and_only_the_published_head_catches_it(
    long: Backend,
) -> None:
    code, out, _ = cli(long, "verify", "long")
    published = out.split("head ")[1].strip()
    # Someone holding the database rewrites the last event's words and recomputes its hash,
    # and the heads cache with it: every link holds.
    seq, prev, kind, at, id_ = long.execute(
        "SELECT seq, prev_hash, type, recorded_at, id FROM events WHERE encounter = 'long' "
        "ORDER BY seq DESC LIMIT 1"
    )[0]
    body = chain.canonical({"text": "nothing happened here"})
    digest = chain.hash_text("long", seq, id_, kind, at, body, prev)
    long.tamper(
        f"UPDATE events SET body = '{body}', hash = '{digest}' "
        f"WHERE encounter = 'long' AND seq = {seq}",
        f"UPDATE heads SET hash = '{digest}' WHERE encounter = 'long'",
    )
    assert cli(long, "verify", "long")[:2] == (0, f"long: 603 events, chain ok, head {digest}\n")
    code, out, _ = cli(long, "verify", "long", "--head", published[:16])
    assert code == 1
    assert out.splitlines()[1].startswith(
        f"head does NOT match the published digest {published[:16]}"
    )
