"""Event versions: files written by earlier versions keep folding the same forever, an older
body is upcast before validation, and a newer one is refused as such, never as tampering."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ledger
from ledger import BrokenChain, Ledger, UnknownVersion, events, jsonl, reference, systems
from ledger.cli import app
from ledger.events import versions
from ledger.store import chain
from projections import core
from tests import paths
from tests.streams import without_added

FIXTURES = paths.FIXTURES / "v0.2"
WRITTEN = sorted(FIXTURES.glob("*.jsonl"))
HEADS: dict[str, str] = json.loads((FIXTURES / "heads.json").read_text(encoding="utf-8"))
runner = CliRunner()


def pinned(path: Path, suffix: str) -> Any:
    return json.loads(path.with_suffix(suffix).read_text(encoding="utf-8"))


def test_the_fixture_holds_every_example_of_version_0_2() -> None:
    examples = paths.EXAMPLES
    assert [p.name for p in WRITTEN] == sorted(p.name for p in examples.glob("*.jsonl"))
    assert set(HEADS) == {p.stem for p in WRITTEN}


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.stem)
def test_a_file_written_by_version_0_2_folds_to_its_pinned_tracks_and_audit(path: Path) -> None:
    book, name = ledger.load(path)
    with book:
        # The same tracks plus those added since (l5r's `unconscious`).
        assert without_added(book.tracks(name).view()) == pinned(path, ".tracks.json")
        findings = [f.model_dump(mode="json") for f in book.audit(name)]
        assert {"encounter": name, "findings": findings} == pinned(path, ".audit.json")


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.stem)
def test_a_file_written_by_version_0_2_verifies_to_its_pinned_head(path: Path) -> None:
    (report,) = jsonl.verify_file(path)
    assert (report.ok, report.head) == (True, HEADS[path.stem])


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.stem)
def test_a_file_written_by_version_0_2_exports_byte_for_byte_as_it_was(path: Path) -> None:
    book, name = ledger.load(path)
    with book:
        assert "\n".join(book.export(name)) + "\n" == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.stem)
def test_every_house_rule_of_today_is_pinned_in_a_file_version_0_2_wrote(path: Path) -> None:
    # An opening pins the whole table in force, so a later default never reaches it; a key
    # added later is missing from it, and would be filled with today's default at every fold
    # unless the system names it in `rules_added` with the value 0.2 played by.
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    body = {k: v for k, v in line.items() if k not in events.ENVELOPE_KEYS}
    ruleset = systems.ruleset(body["system"])
    rules = core.played_by(ruleset, versions.upcast("encounter.opened", body)["rules"])
    missing = sorted(set(ruleset.rules.model_fields) - set(rules))
    assert missing == [], (
        f"{ruleset.key} house rules {missing} are not pinned in files 0.2 wrote: name each in "
        "the ruleset's rules_added with the value 0.2 played by"
    )


@pytest.mark.parametrize("system", ["fates-edge", "ironsworn", "ssss", "l5r"])
def test_an_opening_stores_the_whole_house_rule_table_in_force(db: Path, system: str) -> None:
    with Ledger(db) as book:
        book.open("x", system)
        book.import_lines([json.dumps({"type": "encounter.opened", "system": system})], into="y")
        stored = [book.records(name)[0].event for name in ("x", "y")]
    table = systems.ruleset(system).rules().model_dump(mode="json")
    assert [getattr(e, "rules", None) for e in stored] == [table, table]


def test_every_type_past_version_1_has_an_upcaster_from_each_version_before() -> None:
    assert versions.check_table() == []


def test_the_schema_names_each_event_types_version() -> None:
    definitions = reference.schema("ssss")["$defs"]
    kinds = {
        d["properties"]["type"]["const"]: d for d in definitions.values() if "x-event-version" in d
    }
    assert set(kinds) == set(systems.vocabulary("ssss").types)
    assert all(d["x-event-version"] == versions.current(k) for k, d in kinds.items())


def opened_with_a_newer_note(db: Path) -> None:
    with Ledger(db) as book:
        book.open("crypt", "ssss")
    raw = sqlite3.connect(db)
    seq1 = raw.execute("SELECT hash FROM events WHERE encounter = 'crypt' AND seq = 1").fetchone()
    body = chain.CANONICAL.encode({"text": "from the future", "event_version": 7})
    at = "2030-01-01T00:00:00.000000Z"
    digest = chain.hash_text("crypt", 2, "id-from-a-newer-build", "note", at, body, seq1[0])
    raw.execute(
        "INSERT INTO events (encounter, seq, id, type, recorded_at, body, prev_hash, hash) "
        "VALUES (?,?,?,?,?,?,?,?)",
        ("crypt", 2, "id-from-a-newer-build", "note", at, body, seq1[0], digest),
    )
    raw.execute("UPDATE heads SET seq = 2, hash = ?, updated_at = ?", (digest, at))
    raw.commit()
    raw.close()


def test_a_stored_event_of_a_newer_version_is_refused_as_such_not_as_a_broken_chain(
    db: Path,
) -> None:
    opened_with_a_newer_note(db)
    with Ledger(db) as book:
        with pytest.raises(UnknownVersion) as raised:
            book.tracks("crypt")
        assert not isinstance(raised.value, BrokenChain)
        assert str(raised.value) == (
            "encounter 'crypt' seq 2: note event is of version 7, written by a newer build: "
            "this one knows note up to version 1; upgrade encounter-ledger to read it"
        )
        (report,) = book.verify("crypt")
        assert report.ok  # the chain is intact: a newer build wrote it
        assert report.unread == (
            "seq 2: note event is of version 7, written by a newer build: this one knows note "
            "up to version 1; upgrade encounter-ledger to read it"
        )


def test_verify_passes_a_chain_it_cannot_read_and_says_which_event(db: Path) -> None:
    opened_with_a_newer_note(db)
    result = runner.invoke(app, ["--db", str(db), "verify", "crypt"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("crypt: 2 events, chain ok, head ")
    assert lines[1] == (
        "crypt: NOT READABLE BY THIS BUILD: seq 2: note event is of version 7, written by a "
        "newer build: this one knows note up to version 1; upgrade encounter-ledger to read it"
    )
    assert len(lines) == 2


def test_the_cli_names_the_newer_version_with_its_own_error_code(db: Path) -> None:
    opened_with_a_newer_note(db)
    result = runner.invoke(app, ["--db", str(db), "tracks", "crypt", "--json"])
    assert result.exit_code == 2
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "unknown-event-version"
    assert "note event is of version 7" in error["message"]


def test_an_imported_line_of_an_unknown_version_is_refused_and_nothing_is_appended(
    db: Path,
) -> None:
    lines = [
        '{"type": "encounter.opened", "system": "ssss"}',
        '{"type": "note", "text": "x", "event_version": 1}',
    ]
    with Ledger(db) as book:
        with pytest.raises(UnknownVersion, match=r"^input line 2: note event has event_version 1"):
            book.import_lines(lines, into="crypt")
        assert book.store.head("crypt") is None


@pytest.fixture
def opened_v2(monkeypatch: pytest.MonkeyPatch) -> None:
    """A later build's table: `encounter.opened` at version 2, whose ssss rules gained
    `max_per_tier` (taken here as added later), which version 1 played as 2 slots a tier."""

    def add_max_per_tier(body: dict[str, Any]) -> dict[str, Any]:
        if body.get("system") == "ssss":
            body = {**body, "rules": {"max_per_tier": 2, **body.get("rules", {})}}
        return body

    monkeypatch.setitem(versions.CURRENT, "encounter.opened", 2)
    monkeypatch.setitem(versions.UPCASTERS, ("encounter.opened", 1), add_max_per_tier)


GUARD = '{"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 2}}'


@pytest.mark.usefixtures("opened_v2")
def test_an_older_body_is_upcast_to_the_old_behaviour_not_todays_default(db: Path) -> None:
    with Ledger(db) as book:
        book.import_lines(['{"type": "encounter.opened", "system": "ssss"}', GUARD], into="v1")
        book.import_lines(
            ['{"type": "encounter.opened", "system": "ssss", "event_version": 2}', GUARD],
            into="v2",
        )
        slots = {n: book.tracks(n).view()["combatants"]["Guard"]["slots"] for n in ("v1", "v2")}
        stored = book.records("v1")[0]
    assert {tier["capacity"] for tier in slots["v1"].values()} == {2}
    assert {tier["capacity"] for tier in slots["v2"].values()} == {3}
    assert stored.exchange()["event_version"] == 2  # stored at the version it was read as


@pytest.mark.usefixtures("opened_v2")
def test_a_body_of_a_version_past_the_tables_is_still_refused(db: Path) -> None:
    with pytest.raises(UnknownVersion, match=r"knows encounter\.opened up to version 2"):
        systems.parse({"type": "encounter.opened", "system": "ssss", "event_version": 3}, None)


def written_before_max_per_tier() -> list[str]:
    """An export by a build that predates `max_per_tier`: its rules table lacks the key, and
    its hashes cover the bytes it wrote."""
    bodies: list[tuple[str, dict[str, Any]]] = [
        (
            "encounter.opened",
            {
                "system": "ssss",
                "title": "The old ford",
                "rules": {
                    "pc_lethal_harm_level": 4,
                    "penalty_stacking": "per_distinct_tier",
                    "top_tier_exhaustion_defeats_on_any_harm": False,
                },
            },
        ),
        ("combatant.joined", {"name": "Guard", "side": "adversary", "stats": {"level": 2}}),
    ]
    lines, prev = [], chain.GENESIS
    for seq, (kind, body) in enumerate(bodies, start=1):
        id_, at = f"0000000{seq}-0000-4000-8000-000000000000", f"2026-01-0{seq}T00:00:00.000000Z"
        digest = chain.chain_hash("old", seq, id_, kind, at, body, prev)
        envelope = {"encounter": "old", "seq": seq, "id": id_, "recorded_at": at}
        line = {"type": kind, **body, **envelope, "prev_hash": prev, "hash": digest}
        lines.append(json.dumps(line, ensure_ascii=False))
        prev = digest
    return lines


@pytest.mark.usefixtures("opened_v2")
def test_an_older_export_imports_with_its_hashes_folds_as_played_and_exports_as_it_was(
    db: Path,
) -> None:
    lines = written_before_max_per_tier()
    with Ledger(db) as book:
        book.import_lines(lines)
        slots = book.tracks("old").view()["combatants"]["Guard"]["slots"]
        assert {tier["capacity"] for tier in slots.values()} == {2}
        assert list(book.export("old")) == lines
        (report,) = book.verify("old")
        assert report.ok
        # The next write goes on from the stored bytes; a new encounter is of version 2.
        assert book.record("old", {"type": "note", "text": "later"}).records[0].seq == 3
        book.open("new", "ssss")
        assert json.loads(next(iter(book.export("new"))))["event_version"] == 2
    with Ledger(db) as again:  # read back from the file: upcast at every read
        slots = again.tracks("old").view()["combatants"]["Guard"]["slots"]
        assert {tier["capacity"] for tier in slots.values()} == {2}
        assert list(again.export("old"))[:2] == lines
