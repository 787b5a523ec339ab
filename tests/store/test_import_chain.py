"""An import of lines that carry a hash chain carries it on every line from the first that
does; `import --unchained` takes such lines unverified, and the audit says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger
from tests.cli.invoke import run


@pytest.fixture
def tampered(tmp_path: Path) -> Path:
    """An export whose line 4 was changed and whose lines 4-6 lost their hash and prev_hash."""
    source = tmp_path / "source.db"
    with Ledger(source) as ledger:
        ledger.open("crypt", "ssss")
        ledger.join("crypt", "Ash", "player")
        ledger.join("crypt", "Ghoul", "adversary", {"level": 2})
        ledger.record("crypt", {"type": "harm.inflicted", "target": "Ghoul", "level": 1})
        ledger.record("crypt", {"type": "note", "text": "the ghoul howls"})
        ledger.record("crypt", {"type": "note", "text": "Ash steps back"})
        lines = [json.loads(line) for line in ledger.export("crypt")]
    lines[3]["level"] = 3
    for line in lines[3:6]:
        del line["hash"], line["prev_hash"]
    path = tmp_path / "crypt.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_an_import_of_a_chain_with_lines_that_lost_their_hash_is_refused(
    db: Path, tampered: Path
) -> None:
    code, out, err = run(db, "import", str(tampered))
    assert (code, out) == (2, "")
    assert err == (
        f"Error: {tampered} line 4: no 'hash', but the lines carry a hash chain from line 1: a "
        "line without its hash may have been edited (import --unchained takes the lines "
        "unverified)\n"
    )
    assert not db.exists()


def test_verify_and_tracks_of_the_file_refuse_it_too(db: Path, tampered: Path) -> None:
    code, out, _ = run(db, "verify", str(tampered))
    assert code == 1 and "BROKEN at seq 4" in out
    assert run(db, "tracks", str(tampered))[0] == 1


def test_import_unchained_takes_the_lines_and_the_audit_says_they_are_unverified(
    db: Path, tampered: Path
) -> None:
    code, out, err = run(db, "import", str(tampered), "--unchained")
    assert (code, err) == (0, "")
    assert out == (
        "Imported 6 events into 'crypt' (0 already stored) and a note that they are "
        "unverified; head seq 7.\n"
    )
    code, out, _ = run(db, "audit", "crypt", "--json")
    *_, last = json.loads(out)["findings"]
    assert (last["rule"], last["seq"], last["severity"]) == ("imported-unverified", [7], "warning")
    assert last["message"] == (
        f"imported unverified (import --unchained): seqs 1-6 from {tampered}; their hash chain "
        "was not checked: these events are as the imported file had them, which no hash chain "
        "vouches for"
    )
    assert run(db, "verify")[0] == 0


def test_a_copy_with_new_ids_checks_the_chain_the_lines_carry(db: Path, tmp_path: Path) -> None:
    with Ledger(tmp_path / "source.db") as ledger:
        ledger.open("crypt", "ssss")
        ledger.join("crypt", "Ash", "player")
        lines = [json.loads(line) for line in ledger.export("crypt")]
    lines[1]["name"] = "Ashe"
    path = tmp_path / "crypt.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, _, err = run(db, "import", str(path), "--new-ids", "--into", "copy")
    assert code == 2
    assert err == (
        f"Error: {path} line 2: 'hash' does not match the line's contents: it was edited\n"
    )
