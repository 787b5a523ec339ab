"""Dice anyone can verify, through the library on both stores: a commitment keeps its seed
outside the file, the ledger rolls from it inside the write, the reveal lets `dice` (and
`verify`) recompute every die and name the first that does not match."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from ledger import BadInput, Ledger, dice, events
from ledger.store.chain import GENESIS, chain_hash


def ambush(ledger: Ledger) -> None:
    """fates-edge `ford`: Ash locks s1 against the Ogre (seq 4)."""
    ledger.open("ford", "fates-edge")
    ledger.join("ford", "Ash", "player", {"armor": "light", "body": 3})
    ledger.join(
        "ford", "Ogre", "adversary", {"resilience": 6, "fatigue_capacity": 3, "armor": "medium"}
    )
    lock = {"type": "stakes.locked", "stake": "s1", "actor": "Ash", "opposing": "Ogre"}
    ledger.record("ford", {**lock, "kind": "action", "harm": 2})


def roll(stake: str = "s1") -> dict[str, Any]:
    return {"type": "roll.made", "stake": stake}


POOL = [dice.Throw("dice", 10, 3)]


def committed(ledger: Ledger, name: str = "ford") -> str:
    """Commit (seq 5 of `ambush`); the seed kept for it."""
    event = ledger.commit_dice(name).records[0].event
    assert isinstance(event, events.DiceCommitted)
    seed = dice.kept_seed(event.digest)
    assert seed is not None
    return seed


def test_a_commitment_publishes_the_digest_and_keeps_the_seed_outside_the_file(
    ledger: Ledger,
) -> None:
    ambush(ledger)
    seed = committed(ledger)
    event = ledger.records("ford")[-1].event
    assert isinstance(event, events.DiceCommitted)
    assert event.digest == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert event.encounter_name == "ford"
    kept = dice.seed_file(event.digest)
    assert kept.parent == Path(os.environ["XDG_STATE_HOME"]) / "encounter-ledger" / "dice"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert seed not in "".join(ledger.export("ford"))


def test_the_ledger_rolls_each_die_from_the_seed_the_encounter_the_seq_and_its_index(
    ledger: Ledger,
) -> None:
    ambush(ledger)
    seed = committed(ledger)
    done = ledger.record("ford", roll(), roll=POOL)
    event = done.records[0].event
    assert isinstance(event, events.EventBase)
    body = events.body_of(event)
    assert body["ledger_rolled"] == {"dice": 10}
    assert body["dice"] == [by_hand(seed, "ford", 6, i, 10) for i in range(3)]
    assert done.state.rolls[-1].seq == 6


def by_hand(seed: str, name: str, seq: int, index: int, sides: int) -> int:
    """The docs' formula, written out: the first HMAC draw under the limit, mod sides, + 1."""
    limit = 2**256 - 2**256 % sides
    draw = 0
    while True:
        message = json.dumps([name, seq, index, draw], separators=(",", ":")).encode()
        value = int.from_bytes(hmac.new(bytes.fromhex(seed), message, "sha256").digest(), "big")
        if value < limit:
            return value % sides + 1
        draw += 1


def test_a_draw_at_or_above_the_last_whole_multiple_of_the_sides_is_drawn_again() -> None:
    # With 8 values and 6 sides, 6 and 7 would make faces 1 and 2 likelier: they are skipped.
    assert dice.face([7, 6, 3], 6, space=8) == 4
    assert dice.face([5], 6, space=8) == 6
    assert sorted(dice.face([v], 4, space=8) for v in range(8)) == [1, 1, 2, 2, 3, 3, 4, 4]


def test_the_ledger_rolls_an_ironsworn_action_roll_and_an_oracle(ledger: Ledger) -> None:
    ledger.open("ford", "ironsworn")
    ledger.join("ford", "Kira", "player", {"iron": 3})
    seed = committed(ledger)
    action = {"type": "roll.made", "actor": "Kira", "stat": "iron"}
    throws = [dice.Throw("action_die", 6, 1, single=True), dice.Throw("challenge", 10, 2)]
    body = events.body_of(ledger.record("ford", action, roll=throws).records[0].event)
    assert body["ledger_rolled"] == {"action_die": 6, "challenge": 10}
    assert body["action_die"] == by_hand(seed, "ford", 4, 0, 6)
    assert body["challenge"] == [by_hand(seed, "ford", 4, i, 10) for i in (1, 2)]
    oracle = {"type": "oracle.rolled", "target": "Kira"}
    rolled = ledger.record("ford", oracle, roll=[dice.Throw("roll", 100, 1, single=True)])
    assert events.body_of(rolled.records[0].event)["roll"] == by_hand(seed, "ford", 5, 0, 100)


def test_the_ledger_does_not_roll_without_an_open_commitment_or_over_given_faces(
    ledger: Ledger,
) -> None:
    ambush(ledger)
    with pytest.raises(BadInput) as refused:
        ledger.record("ford", roll(), roll=POOL)
    assert refused.value.code == "no-commitment"
    committed(ledger)
    with pytest.raises(BadInput, match="the ledger rolls dice: leave its faces out"):
        ledger.record("ford", {**roll(), "dice": [6, 6, 6]}, roll=POOL)
    with pytest.raises(BadInput, match="dice commitment at seq 5 is still open"):
        ledger.commit_dice("ford")
    ledger.reveal_dice("ford")
    with pytest.raises(BadInput, match="no open dice commitment"):
        ledger.record("ford", roll(), roll=POOL)
    assert ledger.tracks("ford").seq == 6


def test_dice_the_ledger_did_not_roll_cannot_claim_it_did(ledger: Ledger) -> None:
    ambush(ledger)
    claim = {**roll(), "dice": [6, 6, 6], "ledger_rolled": {"dice": 10}}
    with pytest.raises(BadInput, match="no open dice commitment for the ledger to roll"):
        ledger.record("ford", claim)
    committed(ledger)
    with pytest.raises(BadInput, match=r"names dice as d6, but the event's dice is \[6,6,7\]"):
        ledger.record("ford", {**roll(), "dice": [6, 6, 7], "ledger_rolled": {"dice": 6}})


def test_before_the_reveal_the_check_says_how_many_rolls_await_it(ledger: Ledger) -> None:
    ambush(ledger)
    committed(ledger)
    ledger.record("ford", roll(), roll=POOL)
    ledger.record("ford", {"type": "note", "text": "the Ogre swings"})
    report = ledger.dice("ford")
    assert report is not None
    assert (report.rolls, report.dice, report.checked, report.awaiting) == (1, 3, 0, 1)
    assert report.committed_at == 5 and report.ok
    assert report.lines() == [
        "dice: awaiting the reveal of the seed committed at seq 5: 1 roll by the ledger"
    ]


def test_a_revealed_seed_verifies_every_die(ledger: Ledger) -> None:
    ambush(ledger)
    seed = committed(ledger)
    ledger.record("ford", roll(), roll=POOL)
    revealed = ledger.reveal_dice("ford").records[0].event
    assert revealed == events.DiceRevealed(seed=seed)
    report = ledger.dice("ford")
    assert report is not None and report.ok
    assert (report.checked, report.awaiting) == (3, 0)
    assert report.lines() == [
        "dice ok: 3 dice the ledger rolled (1 roll), each as the revealed seed gives it"
    ]
    with Ledger(":memory:") as empty:
        empty.open("quiet", "ssss")
        assert empty.dice("quiet") is None


def rechained(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines with a fresh hash chain, as someone rewriting a file whole would make."""
    prev = GENESIS
    out = []
    for item in lines:
        body = {k: v for k, v in item.items() if k not in (*events.ENVELOPE_KEYS, "type")}
        digest = chain_hash(
            item["encounter"],
            item["seq"],
            item["id"],
            item["type"],
            item["recorded_at"],
            body,
            prev,
        )
        out.append({**item, "prev_hash": prev, "hash": digest})
        prev = digest
    return out


def test_one_changed_die_is_named_even_in_a_file_whose_chain_was_made_again(
    ledger: Ledger, tmp_path: Path
) -> None:
    ambush(ledger)
    committed(ledger)
    ledger.record("ford", roll(), roll=POOL)
    ledger.reveal_dice("ford")
    lines = [json.loads(line) for line in ledger.export("ford")]
    first = lines[5]["dice"][1]
    lines[5]["dice"][1] = first % 10 + 1
    with Ledger(tmp_path / "forged.db") as forged:
        forged.import_lines([json.dumps(line) for line in rechained(lines)])
        assert forged.verify("ford")[0].ok  # the chain holds: only the dice tell
        report = forged.dice("ford")
    assert report is not None and not report.ok
    assert report.bad_seq == 6
    assert report.problem == (
        f"die 1 of seq 6 (dice, d10) is {first % 10 + 1}; the seed revealed at seq 7 gives {first}"
    )


def test_a_commitment_and_its_reveal_stand_and_no_correction_changes_a_ledger_roll(
    ledger: Ledger,
) -> None:
    ambush(ledger)
    committed(ledger)
    ledger.record("ford", roll(), roll=POOL)
    with pytest.raises(BadInput, match=r"seq 5 is dice\.committed, which stands"):
        ledger.undo("ford", 5, reason="x")
    with pytest.raises(BadInput, match="seq 6's dice is the ledger's own roll"):
        ledger.amend("ford", 6, {"dice": [10, 10, 10]}, reason="x")
    with pytest.raises(BadInput, match=r"seq 5 is dice\.committed"):
        ledger.amend("ford", 5, {"digest": "00" * 32}, reason="x")
    ledger.reveal_dice("ford")
    undone = ledger.undo("ford", reason="the roll was for s2")
    assert undone.records[0].event.target == 6  # type: ignore[attr-defined]


def test_a_reveal_with_another_seed_is_refused(ledger: Ledger) -> None:
    ambush(ledger)
    committed(ledger)
    with pytest.raises(BadInput, match="this seed does not open the dice commitment at seq 5"):
        ledger.record("ford", {"type": "dice.revealed", "seed": "00" * 32})


def test_a_rewind_keeps_the_dice_commitment_in_force(ledger: Ledger) -> None:
    ambush(ledger)
    ledger.record("ford", {"type": "round.started", "round": 1})
    ledger.record("ford", {"type": "round.started", "round": 2})
    committed(ledger)  # seq 7, in round 2
    ledger.record("ford", roll(), roll=POOL)
    ledger.rewind("ford", 1, reason="replay round 2")
    assert ledger.tracks("ford").rolls == ()
    ledger.record("ford", roll(), roll=POOL)  # the commitment is still open
    ledger.reveal_dice("ford")
    report = ledger.dice("ford")
    assert report is not None and report.ok and report.checked == 6
