"""A damaged ledger is told, not served: the heads cache is checked against the rows, the
append-only triggers are checked and restored, and a broken chain is never extended."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger import Ledger, LedgerWarning
from tests.cli.invoke import run


def sql(db: Path, *statements: str) -> None:
    with closing(sqlite3.connect(db)) as raw:
        for statement in statements:
            raw.execute(statement)
        raw.commit()


def rows(db: Path, encounter: str = "crypt") -> list[tuple[int, str]]:
    raw = sqlite3.connect(db)
    found = raw.execute(
        "SELECT seq, hash FROM events WHERE encounter = ? ORDER BY seq", (encounter,)
    )
    out = [(int(seq), str(digest)) for seq, digest in found]
    raw.close()
    return out


@pytest.fixture
def crypt(db: Path) -> Path:
    """Encounter 'crypt' (ssss) at seq 8: Ash and a Ghoul, harm and notes."""
    with Ledger(db) as ledger:
        ledger.open("crypt", "ssss", title="The crypt")
        ledger.join("crypt", "Ash", "player")
        ledger.join("crypt", "Ghoul", "adversary", {"level": 2})
        for n in range(3):
            ledger.record("crypt", {"type": "note", "text": f"a torch gutters ({n})"})
        ledger.record("crypt", {"type": "harm.inflicted", "target": "Ghoul", "level": 1})
        ledger.record("crypt", {"type": "note", "text": "the ghoul howls"})
    return db


def test_an_edited_head_hash_is_refused_as_a_lost_head_and_appends_nothing(crypt: Path) -> None:
    before = rows(crypt)
    sql(crypt, "UPDATE heads SET hash = '" + "e" * 64 + "'")
    code, out, err = run(crypt, "record", "crypt", "note", "text=later")
    assert (code, out) == (1, "")
    assert err == (
        "Error: encounter 'crypt' does not hold the head the ledger acknowledged (seq 8 was "
        f"acknowledged with hash {'e' * 16}, but the stored seq 8 has hash {before[-1][1][:16]}: "
        "events were removed or replaced): nothing was appended; `encounter repair crypt "
        "--accept-loss --reason TEXT` records the loss and lets writes go on\n"
    )
    assert rows(crypt) == before


@pytest.mark.parametrize("shift", [3, -2])
def test_a_head_seq_moved_by_hand_is_refused_as_a_lost_head_and_appends_nothing(
    crypt: Path, shift: int
) -> None:
    before = rows(crypt)
    sql(crypt, f"UPDATE heads SET seq = seq + {shift}")
    code, out, err = run(crypt, "record", "crypt", "note", "text=later")
    assert (code, out) == (1, "")
    assert err.startswith("Error: encounter 'crypt' does not hold the head the ledger acknowledged")
    assert rows(crypt) == before
    assert run(crypt, "verify")[0] == 1


def test_a_lagging_cache_is_rewritten_by_the_next_append_which_says_so(crypt: Path) -> None:
    sql(crypt, "UPDATE heads SET seq = 6, hash = (SELECT hash FROM events WHERE seq = 6)")
    code, out, err = run(crypt, "record", "crypt", "note", "text=later")
    assert (code, out) == (0, "Recorded seq 9: note\n  note: later\n")
    assert err == (
        "Warning: the heads cache of encounter 'crypt' says seq 6, but its stored events end at "
        "seq 8: repaired from the rows (if events were removed, only a published head digest "
        "shows it)\n"
    )
    assert run(crypt, "verify", "crypt")[:2] == (
        0,
        f"crypt: 9 events, chain ok, head {rows(crypt)[-1][1]}\n",
    )


def test_verify_reports_a_lagging_cache_as_the_cache_not_as_removed_events(crypt: Path) -> None:
    sql(crypt, "UPDATE heads SET seq = 6, hash = (SELECT hash FROM events WHERE seq = 6)")
    code, out, _ = run(crypt, "verify")
    assert code == 1
    head, sixth = rows(crypt)[-1][1], rows(crypt)[5][1]
    assert out.splitlines() == [
        f"crypt: 8 events, chain ok, head {head}",
        f"crypt: CACHE DISAGREES: the heads cache says seq 6 (hash {sixth[:12]}), but the "
        f"rows end at seq 8 (hash {head[:12]}) (the next write repairs it)",
    ]


def test_an_encounter_whose_cached_head_was_deleted_is_still_listed_and_read(crypt: Path) -> None:
    sql(crypt, "DELETE FROM heads")
    code, out, err = run(crypt, "list", "--json")
    assert code == 0 and '"encounter": "crypt"' in out and '"seq": 8' in out
    assert err.startswith("Warning: the heads cache of encounter 'crypt' says nothing, but its ")
    code, out, _ = run(crypt, "tracks", "crypt")
    assert code == 0 and out.startswith("crypt (ssss) at seq 8\n")
    code, out, _ = run(crypt, "verify")
    assert code == 1 and "crypt: CACHE DISAGREES: the heads cache has no row for it" in out


def test_dropped_triggers_fail_verify_and_are_recreated_by_the_next_write(crypt: Path) -> None:
    sql(crypt, "DROP TRIGGER events_no_delete")
    code, out, _ = run(crypt, "verify")
    assert code == 1
    assert out.splitlines()[0] == (
        f"{crypt}: BROKEN: the append-only trigger events_no_delete is missing or not the "
        "ledger's own: rows can be changed without a trace in the database (a write recreates it)"
    )
    code, _, err = run(crypt, "record", "crypt", "note", "text=later")
    assert code == 0
    assert err == (
        f"Warning: {crypt}: the append-only trigger events_no_delete was missing or not the "
        "ledger's own: recreated (rows may have been changed meanwhile: run `encounter verify`)\n"
    )
    assert run(crypt, "verify")[0] == 0
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        sql(crypt, "DELETE FROM events WHERE seq = 9")


def test_a_trigger_of_the_same_name_that_does_nothing_is_not_the_ledgers_own(crypt: Path) -> None:
    sql(
        crypt,
        "DROP TRIGGER events_no_update",
        "CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT 1; END",
    )
    code, out, _ = run(crypt, "verify")
    assert code == 1 and "trigger events_no_update is missing or not the ledger's own" in out


def tamper_seq_7(db: Path) -> None:
    """Change seq 7's harm behind the trigger, and put the trigger back."""
    raw = sqlite3.connect(db)
    (trigger,) = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute(
        "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":2') WHERE seq = 7"
    )
    raw.execute(trigger[0])
    raw.commit()
    raw.close()


def test_a_write_refuses_to_extend_a_tampered_chain(crypt: Path) -> None:
    tamper_seq_7(crypt)
    before = rows(crypt)
    code, out, err = run(crypt, "record", "crypt", "harm.inflicted", "target=Ash", "level=1")
    assert (code, out) == (1, "")
    assert err == (
        "Error: encounter 'crypt' does not verify at seq 7 (hash does not match the event's "
        "contents): nothing was appended to a broken chain; see `encounter verify`\n"
    )
    assert rows(crypt) == before


def test_a_read_of_a_tampered_chain_warns_in_one_line_and_still_shows_the_tracks(
    crypt: Path,
) -> None:
    tamper_seq_7(crypt)
    code, out, err = run(crypt, "tracks", "crypt")
    assert code == 0 and out.startswith("crypt (ssss) at seq 8\n")
    assert err == (
        "Warning: encounter 'crypt' does not verify at seq 7 (hash does not match the event's "
        "contents): what is shown may not be what was recorded; see `encounter verify`\n"
    )


def test_a_write_checks_the_whole_chain_whatever_mark_the_heads_cache_holds(
    crypt: Path,
) -> None:
    with Ledger(crypt) as ledger:
        ledger.tracks("crypt")
        ledger.record("crypt", {"type": "note", "text": "warm"})
        sql(crypt, "UPDATE heads SET verified = 5")
        tamper_seq_7(crypt)
        with pytest.raises(Exception, match="does not verify at seq 7"):
            ledger.record("crypt", {"type": "note", "text": "on top"})
    assert len(rows(crypt)) == 9


@pytest.fixture
def long_edited(db: Path) -> Path:
    """Encounter 'long' (ssss, 601 events, snapshots past seq 256) whose seq 3 was changed with
    the update trigger dropped, and left so."""
    with Ledger(db) as ledger:
        ledger.open("long", "ssss")
        ledger.import_lines(
            [json.dumps({"type": "note", "text": f"watch {n}"}) for n in range(600)], into="long"
        )
    sql(
        db,
        "DROP TRIGGER events_no_update",
        "UPDATE events SET body = replace(body, 'watch 1', 'watch 9') WHERE seq = 3",
    )
    return db


def test_a_write_after_a_dropped_trigger_checks_the_whole_chain_behind_its_snapshot(
    long_edited: Path,
) -> None:
    # The write folds from a snapshot past seq 3: only the missing trigger tells that rows may
    # have changed.
    for _ in range(2):  # the first write restores the trigger; neither extends the chain
        code, out, err = run(long_edited, "record", "long", "note", "text=on top")
        assert (code, out) == (1, ""), err
        assert err.endswith(
            "Error: encounter 'long' does not verify at seq 3 (hash does not match the event's "
            "contents): nothing was appended to a broken chain; see `encounter verify`\n"
        )
    assert len(rows(long_edited, "long")) == 601


def test_a_read_with_the_triggers_dropped_checks_the_rows_behind_its_snapshot(
    long_edited: Path,
) -> None:
    db = long_edited
    # Without the triggers, tracks fold every row rather than start from a snapshot.
    for args in (["tracks", "long"], ["tracks", "long", "--json"]):
        code, out, err = run(db, *args)
        assert code == 0 and out, err
        assert err == (
            "Warning: encounter 'long' does not verify at seq 3 (hash does not match the "
            "event's contents): what is shown may not be what was recorded; see `encounter "
            "verify`\n"
        )


def test_the_library_warns_with_a_ledger_warning(crypt: Path) -> None:
    sql(crypt, "UPDATE heads SET seq = 2, hash = (SELECT hash FROM events WHERE seq = 2)")
    with Ledger(crypt, readonly=True) as ledger, pytest.warns(LedgerWarning, match="says seq 2"):
        assert ledger.tracks("crypt").seq == 8
