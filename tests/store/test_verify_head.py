"""`verify --head DIGEST`: the chain verifies and ends at the published digest; one digest over
a whole file's heads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from tests.cli.invoke import ok, run


@pytest.fixture
def two(db: Path) -> Path:
    """Two encounters in one file: ford (4 events) and moor (1 event)."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "ssss")
        ok(db, "add", "ford", "Bandit", "--side", "adversary", "--stat", "level=2")
        ok(db, "harm", "ford", "Bandit", "1")
        ok(db, "harm", "ford", "Bandit", "2")
        ok(db, "new", "moor", "--system", "ironsworn")
    return db


def head_of(db: Path, name: str) -> str:
    line = ok(db, "verify", name)
    return line.split("head ")[1].strip()


def test_verify_name_with_its_head_exits_0_and_says_it_matches(two: Path) -> None:
    head = head_of(two, "ford")
    assert ok(two, "verify", "ford", "--head", head) == (
        f"ford: 4 events, chain ok, head {head}\nhead matches the published digest {head}\n"
    )
    # The first 16 hex digits will do, in either case.
    assert run(two, "verify", "ford", "--head", head[:16].upper())[0] == 0


def test_verify_with_another_head_exits_1_and_says_where_the_chain_ends(two: Path) -> None:
    head = head_of(two, "ford")
    code, out, _ = run(two, "verify", "ford", "--head", "ab" * 32)
    assert code == 1
    assert out.splitlines()[1] == (
        f"head does NOT match the published digest {'ab' * 32}: this chain ends at seq 4 with "
        f"head {head} (events cut off, added or changed since it was published)"
    )


def test_a_file_cut_short_verifies_as_a_chain_but_not_against_its_published_head(
    two: Path, tmp_path: Path
) -> None:
    export = tmp_path / "ford.jsonl"
    export.write_text(ok(two, "export", "ford"))
    published = head_of(two, "ford")
    assert run(two, "verify", str(export), "--head", published)[0] == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(export.read_text().splitlines(keepends=True)[:3]))
    assert ok(two, "verify", str(cut)).startswith("ford: 3 events, chain ok")
    code, out, _ = run(two, "verify", str(cut), "--head", published)
    assert code == 1
    assert "this chain ends at seq 3 with head" in out.splitlines()[1]


def test_under_json_a_head_that_does_not_match_is_not_ok_though_each_chain_is(
    two: Path, tmp_path: Path
) -> None:
    # A tool reads "ok" as the exit code does: a file cut short of its published head fails.
    published = head_of(two, "ford")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(ok(two, "export", "ford").splitlines(keepends=True)[:3]))
    code, out, _ = run(two, "verify", str(cut), "--head", published, "--json")
    document = json.loads(out)
    assert code == 1
    assert (document["ok"], document["head_matches"]) == (False, False)
    assert [e["ok"] for e in document["encounters"]] == [True]
    code, out, _ = run(two, "verify", "ford", "--head", published, "--json")
    assert code == 0 and json.loads(out)["ok"] is True


def test_verify_without_a_name_prints_one_digest_over_every_head(two: Path) -> None:
    heads = {name: head_of(two, name) for name in ("ford", "moor")}
    text = json.dumps(heads, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()
    lines = ok(two, "verify").splitlines()
    assert lines[-1] == f"all encounters (2): digest {digest}"
    assert run(two, "verify", "--head", digest)[0] == 0
    assert run(two, "verify", "--head", heads["ford"])[0] == 1
    doc = json.loads(ok(two, "verify", "--head", digest, "--json"))
    assert (doc["digest"], doc["head_matches"]) == (digest, True)
    assert [e["encounter"] for e in doc["encounters"]] == ["ford", "moor"]


def test_a_head_that_is_not_a_digest_is_bad_input(two: Path) -> None:
    for bad in ("", "z" * 64, "a" * 65, "abc xyz"):
        assert run(two, "verify", "ford", "--head", bad)[::2] == (
            2,
            f"Error: --head {bad!r} is not a digest (64 hex digits, or the first 16+)\n",
        )


def test_a_published_prefix_shorter_than_16_hex_digits_is_refused_saying_so(two: Path) -> None:
    head = head_of(two, "ford")
    for short in (head[:12], head[:15], "abc"):
        assert run(two, "verify", "ford", "--head", short)[::2] == (
            2,
            f"Error: --head {short!r} is {len(short)} hex digits: give at least the first 16 of "
            "the published digest (a shorter prefix can be forged)\n",
        )
    assert run(two, "verify", "ford", "--head", head[:16])[0] == 0


def test_list_prints_the_whole_head_digest_that_verify_head_takes(two: Path) -> None:
    head = head_of(two, "ford")
    listed = ok(two, "list").splitlines()[1].split("\t")
    assert listed[:5] == ["ford", "ssss", "-", "4", head]
    assert run(two, "verify", "ford", "--head", listed[4])[0] == 0
