"""`encounter dice commit|reveal`, a roll verb's `--roll`, and what `verify` says of the dice:
exact output, exit codes, `--json`, and a file checked by `encounter verify FILE.jsonl`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ledger import dice
from tests.cli.invoke import run


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert (code, err) == (0, ""), out + err
    return out


@pytest.fixture
def ford(db: Path) -> Path:
    """fates-edge `ford`: Ash locks s1 and s2 against the Ogre (seqs 4 and 5)."""
    ok(db, "new", "ford", "--system", "fates-edge")
    ok(db, "add", "ford", "Ash", "--side", "player", "--stat", "armor=light")
    ok(db, "add", "ford", "Ogre", "--side", "adversary", "--stat", "resilience=6",
       "--stat", "fatigue_capacity=3")  # fmt: skip
    ok(db, "lock", "ford", "s1", "--actor", "Ash", "--against", "Ogre", "--harm", "2")
    ok(db, "lock", "ford", "s2", "--actor", "Ash", "--against", "Ogre", "--harm", "2")
    return db


def seed_of(db: Path) -> str:
    """The seed of the commitment at seq 6."""
    line = json.loads(ok(db, "log", "ford", "--json").splitlines()[5])
    seed = dice.kept_seed(line["digest"])
    assert seed is not None
    return seed


def test_dice_commit_records_the_digest_and_says_where_the_seed_stays(ford: Path) -> None:
    out = ok(ford, "dice", "commit", "ford")
    digest = json.loads(ok(ford, "log", "ford", "--json").splitlines()[5])["digest"]
    assert out == (
        "Recorded seq 6: dice.committed\n"
        f"  dice committed (seed digest {digest[:12]}): the dice the ledger rolls from here can "
        "be checked once the seed is revealed\n"
        f"The seed stays in {dice.seed_file(digest)} (readable by you alone) until "
        "`encounter dice reveal ford`.\n"
    )


def test_roll_with_roll_lets_the_ledger_roll_the_pool(ford: Path) -> None:
    ok(ford, "dice", "commit", "ford")
    seed = seed_of(ford)
    faces = [dice.die(seed, "ford", 7, i, 10) for i in range(3)]
    document = json.loads(ok(ford, "roll", "ford", "s1", "--pool", "3", "--roll", "--json"))
    [record] = document["records"]
    assert (record["dice"], record["ledger_rolled"]) == (faces, {"dice": 10})
    out = ok(ford, "export", "ford", "--format", "md")
    assert "- seq 7: Ash rolls " in out and "(dice rolled by the ledger)\n" in out


def test_the_oracle_lets_the_ledger_roll_with_ledger_roll(db: Path) -> None:
    ok(db, "new", "i", "--system", "ironsworn")
    ok(db, "add", "i", "Kira", "--side", "player", "--stat", "iron=3")
    ok(db, "dice", "commit", "i")
    line = json.loads(ok(db, "oracle", "i", "Kira", "--ledger-roll", "--json"))["records"][0]
    assert line["ledger_rolled"] == {"roll": 100} and 1 <= line["roll"] <= 100
    line = json.loads(ok(db, "action-roll", "i", "Kira", "--using", "iron", "--roll", "--json"))
    assert line["records"][0]["ledger_rolled"] == {"action_die": 6, "challenge": 10}


@pytest.mark.parametrize(
    "args", [["roll", "ford", "s1", "--pool", "3", "--roll"], ["dice", "reveal", "ford"]]
)
def test_without_a_commitment_the_ledger_neither_rolls_nor_reveals(
    ford: Path, args: list[str]
) -> None:
    assert run(ford, *args) == (
        2,
        "",
        "Error: encounter 'ford' has no open dice commitment: `encounter dice commit ford` first\n",
    )
    code, _, err = run(ford, *args, "--json")
    assert code == 2 and json.loads(err)["error"]["code"] == "no-commitment"


def test_roll_refuses_faces_beside_roll_and_a_roll_without_its_pool(ford: Path) -> None:
    ok(ford, "dice", "commit", "ford")
    assert run(ford, "roll", "ford", "s1", "--dice", "6,7", "--roll") == (
        2,
        "",
        "Error: --roll lets the ledger roll the dice: leave out --dice\n",
    )
    assert run(ford, "roll", "ford", "s1", "--roll") == (
        2,
        "",
        "Error: roll needs --dice FACES (e.g. 6,7,1) or --pool N to roll N d10s\n",
    )
    code, _, err = run(ford, "roll", "ford", "s1", "--roll", "--pool", "2", "--json")
    assert code == 0, err
    code, _, err = run(ford, "roll", "ford", "s1", "--roll", "--pool", "2", "--json", "--strict")
    assert code == 2  # the second roll of s1 breaks a rule: refused, like any other


def test_verify_says_how_many_rolls_await_the_reveal_then_checks_every_die(ford: Path) -> None:
    ok(ford, "dice", "commit", "ford")
    ok(ford, "roll", "ford", "s1", "--pool", "3", "--roll")
    ok(ford, "roll", "ford", "s2", "--dice", "6,6")
    out = ok(ford, "verify", "ford")
    assert out.splitlines()[1] == (
        "ford: dice: awaiting the reveal of the seed committed at seq 6: 1 roll by the ledger"
    )
    assert ok(ford, "dice", "reveal", "ford").splitlines()[0] == "Recorded seq 9: dice.revealed"
    assert ok(ford, "verify", "ford").splitlines()[1] == (
        "ford: dice ok: 3 dice the ledger rolled (1 roll), each as the revealed seed gives it"
    )
    document = json.loads(ok(ford, "verify", "ford", "--json"))
    assert document["encounters"][0]["dice"] == {
        "rolls": 1,
        "dice": 3,
        "checked": 3,
        "awaiting": 0,
        "committed_at": None,
        "revealed": 1,
        "unrevealed": 0,
        "bad_seq": None,
        "problem": None,
        "ok": True,
    }
    md = ok(ford, "export", "ford", "--format", "md")
    assert "- seq 8: Ash rolls 6, 6 for 's2'" in md and "(dice typed)\n" in md


def test_verify_says_a_seed_was_revealed_when_the_ledger_rolled_no_die_under_it(
    ford: Path,
) -> None:
    ok(ford, "dice", "commit", "ford")
    assert ok(ford, "verify", "ford").splitlines()[1] == (
        "ford: dice: committed; no die rolled by the ledger yet"
    )
    ok(ford, "dice", "reveal", "ford")
    assert ok(ford, "verify", "ford").splitlines()[1] == (
        "ford: dice: 1 seed revealed, each matching its commitment; no die was rolled by the ledger"
    )
    dice = json.loads(ok(ford, "verify", "ford", "--json"))["encounters"][0]["dice"]
    assert (dice["revealed"], dice["unrevealed"], dice["rolls"]) == (1, 0, 0)


def test_an_export_carries_commitment_and_reveal_and_a_changed_die_fails_verify(
    ford: Path, tmp_path: Path
) -> None:
    ok(ford, "dice", "commit", "ford")
    ok(ford, "roll", "ford", "s1", "--pool", "3", "--roll")
    ok(ford, "dice", "reveal", "ford")
    export = tmp_path / "ford.jsonl"
    assert run(ford, "export", "ford", "--out", str(export))[0] == 0
    assert ok(ford, "verify", str(export)) == ok(ford, "verify", "ford")
    lines = [json.loads(line) for line in export.read_text("utf-8").splitlines()]
    assert [line["type"] for line in lines][5:] == ["dice.committed", "roll.made", "dice.revealed"]
    first = lines[6]["dice"][0]
    lines[6]["dice"][0] = first % 10 + 1
    for (
        line
    ) in lines:  # a hand-written file (--unchained): no chain to break, only the dice to tell
        line.pop("hash", None)
        line.pop("prev_hash", None)
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    copy = tmp_path / "copy.db"
    ok(copy, "import", str(export), "--unchained")
    code, out, _ = run(copy, "verify", "ford")
    assert code == 1
    assert out.splitlines()[1] == (
        f"ford: DICE DO NOT MATCH at seq 7: die 0 of seq 7 (dice, d10) is {first % 10 + 1}; "
        f"the seed revealed at seq 8 gives {first}"
    )


def test_the_digest_is_the_sha256_of_the_seeds_bytes_as_encounter_events_says(
    ford: Path, tmp_path: Path
) -> None:
    # DESIGN 4: dice.committed is the SHA-256 of the seed; the seed is written as 64 hex digits,
    # so which bytes are hashed must be said, or a player hashes the hex text and cries foul.
    ok(ford, "dice", "commit", "ford")
    ok(ford, "dice", "reveal", "ford")
    lines = [json.loads(line) for line in ok(ford, "export", "ford").splitlines()]
    committed, revealed = lines[5], lines[6]
    seed = bytes.fromhex(revealed["seed"])
    assert committed["digest"] == hashlib.sha256(seed).hexdigest()
    assert committed["digest"] != hashlib.sha256(revealed["seed"].encode()).hexdigest()
    told = ok(ford, "events", "fates-edge", "dice.committed")
    assert "digest (text; required): The hex SHA-256 of the seed's 32 bytes (its 64 hex" in told
    told = ok(ford, "events", "fates-edge", "dice.revealed")
    assert "the SHA-256 of its 32 bytes (not of the hex text)" in told
