"""The store: append-only in the database, atomic appends, the hash chain, idempotent import."""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import BadInput, Conflict, Ledger, UnknownName, events, systems
from ledger.api import open_store
from ledger.store import chain
from ledger.store.chain import GENESIS, chain_hash
from ledger.store.sqlite import SqliteDatabase
from tests.stores import Backend

GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 1}}


def fixed_clock() -> datetime:
    return datetime(2026, 5, 1, 20, 0, 0, tzinfo=UTC)


def skirmish(ledger: Ledger, name: str = "skirmish") -> None:
    ledger.open(name, "ssss", title="Bandits at the ford")
    ledger.record(name, GUARD)
    ledger.record(name, {"type": "harm.inflicted", "target": "Guard", "level": 1})


def test_appended_events_read_back_in_seq_order_with_their_fields(ledger: Ledger) -> None:
    skirmish(ledger)
    records = ledger.records("skirmish")
    assert [r.seq for r in records] == [1, 2, 3]
    assert [r.type for r in records] == ["encounter.opened", "combatant.joined", "harm.inflicted"]
    assert records[2].event == systems.parse(
        {"type": "harm.inflicted", "target": "Guard", "level": 1}, "ssss"
    )


def test_the_database_refuses_update_and_delete_of_events(ledger: Ledger, backend: Backend) -> None:
    skirmish(ledger)
    with pytest.raises(backend.integrity_error, match="append-only: UPDATE refused"):
        backend.execute("UPDATE events SET body = '{}' WHERE seq = 2")
    with pytest.raises(backend.integrity_error, match="append-only: DELETE refused"):
        backend.execute("DELETE FROM events WHERE seq = 3")
    assert len(ledger.records("skirmish")) == 3


def test_the_file_is_in_wal_mode_with_full_synchronous_writes(db: Path) -> None:
    with Ledger(db) as ledger:
        skirmish(ledger)
        assert isinstance(ledger.store.db, SqliteDatabase)
        assert ledger.store.db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert ledger.store.db.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_stale_expected_version_is_a_conflict_and_appends_nothing(ledger: Ledger) -> None:
    skirmish(ledger)
    with pytest.raises(Conflict, match="'skirmish' is at seq 3, not 2"):
        ledger.record("skirmish", {"type": "note", "text": "late"}, expect=2)
    assert ledger.store.require("skirmish").seq == 3
    assert ledger.record("skirmish", {"type": "note", "text": "on time"}, expect=3).seq == 4


def test_a_batch_with_one_bad_event_appends_none_of_it(ledger: Ledger) -> None:
    skirmish(ledger)
    lines = [
        json.dumps({"type": "note", "text": "one"}),
        json.dumps({"type": "note", "text": "two"}),
        json.dumps({"type": "harm.inflicted", "target": "Nobody", "level": 1}),
    ]
    with pytest.raises(UnknownName, match="input line 3: target 'Nobody' is not in"):
        ledger.import_lines(lines, into="skirmish")
    assert ledger.store.require("skirmish").seq == 3


def test_each_hash_is_sha256_of_the_sorted_compact_envelope(ledger: Ledger) -> None:
    skirmish(ledger)
    prev = GENESIS
    for line in ledger.export("skirmish"):
        exchanged = json.loads(line)
        body = {k: v for k, v in exchanged.items() if k not in {"type", *events.ENVELOPE_KEYS}}
        document = {
            "encounter": exchanged["encounter"],
            "seq": exchanged["seq"],
            "id": exchanged["id"],
            "type": exchanged["type"],
            "recorded_at": exchanged["recorded_at"],
            "body": body,
            "prev_hash": prev,
        }
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert exchanged["prev_hash"] == prev
        assert exchanged["hash"] == hashlib.sha256(text.encode()).hexdigest()
        prev = exchanged["hash"]


def test_verify_names_the_first_row_edited_behind_the_triggers(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    ledger.record("skirmish", {"type": "harm.inflicted", "target": "Guard", "level": 1})
    backend.unguard()
    backend.execute(
        "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":2') WHERE seq = 3"
    )
    [report] = ledger.verify("skirmish")
    assert (report.ok, report.bad_seq, report.problem) == (
        False,
        3,
        "hash does not match the event's contents",
    )


def test_verify_passes_an_untouched_chain_and_reports_its_head(ledger: Ledger) -> None:
    skirmish(ledger)
    [report] = ledger.verify()
    assert report.ok and report.events == 3
    assert report.head == ledger.store.require("skirmish").hash


def test_reimporting_an_export_is_a_no_op(ledger: Ledger) -> None:
    skirmish(ledger)
    exported = list(ledger.export("skirmish"))
    result = ledger.import_lines(exported)
    assert (result.appended, result.already_stored, result.head) == (0, 3, 3)


def test_an_export_imports_into_another_file_with_the_same_chain(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    exported = list(ledger.export("skirmish"))
    with backend.sibling("other").ledger() as other:
        assert other.import_lines(exported).appended == 3
        assert list(other.export("skirmish")) == exported
        assert other.verify()[0].ok


def test_an_id_already_stored_with_other_contents_is_bad_input(ledger: Ledger) -> None:
    skirmish(ledger)
    exported = [json.loads(line) for line in ledger.export("skirmish")]
    exported[2]["level"] = 2
    with pytest.raises(BadInput, match=r"line 3: event id .* is already stored with different"):
        ledger.import_lines([json.dumps(e) for e in exported])


def test_import_new_ids_copies_an_encounter_under_another_name(ledger: Ledger) -> None:
    skirmish(ledger)
    exported = list(ledger.export("skirmish"))
    result = ledger.import_lines(exported, into="rematch", new_ids=True)
    assert result.appended == 3
    original = {r.id for r in ledger.records("skirmish")}
    assert not original & {r.id for r in ledger.records("rematch")}
    assert (
        ledger.tracks("rematch").view()["combatants"]
        == ledger.tracks("skirmish").view()["combatants"]
    )


def test_a_supplied_seq_must_be_the_next_one(ledger: Ledger) -> None:
    skirmish(ledger)
    line = json.dumps({"type": "note", "text": "x", "seq": 7})
    with pytest.raises(BadInput, match="'seq' is 7, but the encounter's next seq is 4"):
        ledger.import_lines([line], into="skirmish")


def test_a_supplied_hash_must_match_the_recomputed_chain(ledger: Ledger) -> None:
    skirmish(ledger)
    line = json.dumps({"type": "note", "text": "x", "hash": "f" * 64})
    with pytest.raises(BadInput, match="'hash' does not match the recomputed chain at seq 4"):
        ledger.import_lines([line], into="skirmish")
    assert ledger.store.require("skirmish").seq == 3


def test_a_supplied_recorded_at_is_kept_by_an_unchained_import_and_refused_by_another(
    ledger: Ledger,
) -> None:
    skirmish(ledger)
    line = json.dumps({"type": "note", "text": "x", "recorded_at": "2025-01-02T03:04:05Z"})
    with pytest.raises(BadInput, match="carries 'recorded_at' but no 'hash'"):
        ledger.import_lines([line], into="skirmish")
    ledger.import_lines([line], into="skirmish", unchained=True)
    assert ledger.records("skirmish")[-2].recorded_at == "2025-01-02T03:04:05Z"


def test_the_injected_clock_stamps_recorded_at(backend: Backend) -> None:
    with backend.ledger(clock=fixed_clock) as ledger:
        skirmish(ledger)
        assert {r.recorded_at for r in ledger.records("skirmish")} == {
            "2026-05-01T20:00:00.000000Z"
        }


def test_the_heads_cache_is_rebuilt_when_deleted(ledger: Ledger, backend: Backend) -> None:
    skirmish(ledger)
    skirmish(ledger, "second")
    ledger.close()
    backend.execute("DROP TABLE heads")
    store = open_store(backend.location)
    assert [(h.encounter, h.seq, h.title) for h in store.heads()] == [
        ("second", 3, "Bandits at the ford"),
        ("skirmish", 3, "Bandits at the ford"),
    ]
    store.close()


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.db"
    bogus.write_text("these are my session notes, not a database\n" * 100)
    from ledger import StoreError

    with pytest.raises(StoreError, match="is not an encounter ledger or is damaged"):
        SqliteDatabase(bogus)


def test_chain_hash_matches_the_contract_formula_for_non_ascii_names() -> None:
    digest = chain_hash("duel", 1, "x", "note", "t", {"text": "Sōhei"}, GENESIS)
    text = json.dumps(
        {
            "body": {"text": "Sōhei"},
            "encounter": "duel",
            "id": "x",
            "prev_hash": GENESIS,
            "recorded_at": "t",
            "seq": 1,
            "type": "note",
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert digest == hashlib.sha256(text.encode("utf-8")).hexdigest()


def contract_hash(row: dict[str, Any]) -> str:
    text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


texts = st.text(st.characters(codec="utf-8"), max_size=12)


@given(
    encounter=texts,
    links=st.lists(st.tuples(texts, texts, texts, texts), min_size=1, max_size=4),
    bad=st.integers(min_value=0, max_value=4),
)
def test_the_chain_check_accepts_exactly_the_rows_the_contract_formula_hashes(
    encounter: str, links: list[tuple[str, str, str, str]], bad: int
) -> None:
    """Any text in any field (quotes, controls, other scripts): the check a write makes of
    every row agrees with the contract's formula, and names the first row that does not."""
    rows: list[tuple[Any, ...]] = []
    prev = GENESIS
    for seq, (id_, type_, at, text) in enumerate(links, start=1):
        body = json.dumps({"text": text}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        fields: dict[str, Any] = {"encounter": encounter, "seq": seq, "id": id_, "type": type_}
        fields |= {"recorded_at": at, "prev_hash": prev}
        digest = contract_hash({**fields, "body": {"text": text}})
        rows.append((encounter, seq, id_, type_, at, body, prev, digest))
        prev = digest
    if bad < len(rows):  # one row's text changed, its hash kept
        row = list(rows[bad])
        row[5] = row[5][:-1] + ', "x": 1}'
        rows[bad] = tuple(row)
    found: list[tuple[int, str]] = []
    asked: list[int] = []
    real = chain.row_problem

    def problem(expected: int, *args: Any) -> str | None:
        asked.append(expected)  # the slow look, only at a row the quick one did not pass
        return real(expected, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chain, "row_problem", problem)
        checked = list(chain.checked(rows, 0, GENESIS, lambda seq, why: found.append((seq, why))))
    assert checked == rows
    if bad < len(rows):
        assert found == [(bad + 1, "hash does not match the event's contents")]
        assert asked == [bad + 1]
    else:
        assert (found, asked) == ([], [])


def test_importing_an_export_under_another_name_needs_new_ids(ledger: Ledger) -> None:
    skirmish(ledger)
    exported = list(ledger.export("skirmish"))
    with pytest.raises(BadInput, match="ids are global: use --new-ids"):
        ledger.import_lines(exported, into="rematch")
    assert ledger.store.head("rematch") is None


def test_a_body_is_stored_as_the_canonical_text_that_is_hashed(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    [(body,)] = backend.execute("SELECT body FROM events WHERE seq = 3")
    assert body == '{"level":1,"target":"Guard"}'


def test_a_body_written_in_event_order_by_0_1_0_still_verifies(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    backend.unguard()
    # 0.1.0 stored the fields in the event's order; the hash (of the sorted text) is the same.
    backend.execute('UPDATE events SET body = \'{"target":"Guard","level":1}\' WHERE seq = 3')
    assert ledger.verify("skirmish")[0].ok
    backend.execute('UPDATE events SET body = \'{"target": "Guard","level":1}\' WHERE seq = 3')
    [report] = ledger.verify("skirmish")
    assert (report.bad_seq, report.problem) == (3, "body is not the text the ledger wrote for it")


def test_an_import_that_undoes_its_own_and_older_events_folds_as_recorded_one_by_one(
    backend: Backend,
) -> None:
    harm = {"type": "harm.inflicted", "target": "Guard", "level": 1}
    lines = [
        json.dumps(e)
        for e in (
            {"type": "encounter.opened", "system": "ssss", "title": "Ford"},
            GUARD,
            harm,
            harm,
            {"type": "event.retracted", "target": 4, "reason": "missed"},
            harm,
            {"type": "event.retracted", "target": 3, "reason": "missed too"},
        )
    ]
    with backend.sibling("one").ledger() as one:
        one.import_lines(lines[:4], into="ford")  # seqs 3 and 4 stored before the import
        one.import_lines(lines[4:], into="ford")
        imported = one.tracks("ford")
    with backend.sibling("two").ledger() as two:
        for line in lines:
            two.import_lines([line], into="ford")
        stepwise = two.tracks("ford")
    assert imported.view() == stepwise.view()
    assert imported.combatants["Guard"].view()["slots"] == {"1": {"filled": 1, "capacity": 3}}


def test_the_audit_reports_a_chain_broken_behind_the_triggers_first(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    ledger.record("skirmish", {"type": "harm.inflicted", "target": "Guard", "level": 1})
    assert [f.rule for f in ledger.audit("skirmish")] == []
    backend.unguard()
    backend.execute(
        "UPDATE events SET body = replace(body, '\"level\":1', '\"level\":2') WHERE seq = 4"
    )
    broken, *rest = ledger.audit("skirmish")
    # The edited harm, judged as stored: it defeats the Guard, whose manner is then owed.
    assert [f.rule for f in rest] == ["slot-placement", "obligation-open"]
    assert (broken.rule, broken.severity, broken.seq) == ("chain-broken", "error", (4,))
    assert "do not verify at seq 4 (hash does not match the event's contents)" in broken.message


def test_the_audit_of_a_body_edited_into_broken_json_is_chain_broken_and_that_event_unreadable(
    ledger: Ledger, backend: Backend
) -> None:
    skirmish(ledger)
    backend.unguard()
    backend.execute("UPDATE events SET body = '{not json' WHERE seq = 3")
    broken, unreadable = ledger.audit("skirmish")
    assert (broken.rule, broken.seq) == ("chain-broken", (3,))
    assert broken.message == (
        "the stored events do not verify at seq 3 (body is not valid JSON): the file was "
        "changed after they were written; see `encounter verify`"
    )
    assert (unreadable.rule, unreadable.seq) == ("event-unreadable", (3,))
    assert "body is not JSON: Expecting property name enclosed in double quotes" in (
        unreadable.message
    )


def test_verify_names_a_missing_hash(ledger: Ledger) -> None:
    from ledger import jsonl as exchange

    skirmish(ledger)
    lines = [json.loads(line) for line in ledger.export("skirmish")]
    del lines[1]["hash"]
    report = exchange.chain_of(lines)
    assert report is not None
    assert (report.bad_seq, report.problem) == (2, "hash is missing")


def test_a_name_holding_a_lone_surrogate_is_an_unknown_encounter_on_every_read_and_write(
    ledger: Ledger,
) -> None:
    # A command line's bytes that are not UTF-8 reach Python as lone surrogates; no store
    # takes them, so no stored encounter has such a name.
    skirmish(ledger)
    name = "skirmish\udcff"
    for read in (ledger.tracks, ledger.records, ledger.audit):
        with pytest.raises(UnknownName, match="is not in"):
            read(name)
    with pytest.raises(UnknownName, match="is not in"):
        ledger.record(name, {"type": "note", "text": "x"})
    assert [(r.encounter, r.ok) for r in ledger.verify()] == [("skirmish", True)]
    assert [r.seq for r in ledger.records("skirmish")] == [1, 2, 3]


def test_every_new_event_id_is_a_random_version_4_uuid_in_its_canonical_text(
    ledger: Ledger,
) -> None:
    skirmish(ledger)
    ids = [r.id for r in ledger.records("skirmish")] + [chain.new_id() for _ in range(500)]
    parsed = [uuid.UUID(i) for i in ids]
    assert [str(u) for u in parsed] == ids
    assert {(u.version, u.variant) for u in parsed} == {(4, uuid.RFC_4122)}
    assert len(set(ids)) == len(ids)
