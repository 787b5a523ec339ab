"""Corrections (`event.corrected`): the fold reads the target corrected, at its own seq."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import BadInput, Ledger, RuleRefused, cli
from tests import streams

ASH = {"type": "combatant.joined", "name": "Ash", "side": "player", "stats": {"armor": "light"}}
OGRE_STATS = {"resilience": 4, "fatigue_capacity": 3, "armor": "light", "harm": 2}
OGRE = {"type": "combatant.joined", "name": "Ogre", "side": "adversary", "stats": OGRE_STATS}


def lock(stake: str = "s", **fields: Any) -> dict[str, Any]:
    return {
        "type": "stakes.locked",
        "stake": stake,
        "actor": "Ash",
        "opposing": "Ogre",
        "target": "Ogre",
        "kind": "action",
        "position": "controlled",
        "dv": 3,
        "effect": "standard",
        "harm": 2,
        "source": "player",
        **fields,
    }


def roll(dice: list[int], stake: str = "s") -> dict[str, Any]:
    return {"type": "roll.made", "stake": stake, "dice": dice}


def hit(harm: int, stake: str = "s") -> dict[str, Any]:
    return {"type": "hit.resolved", "target": "Ogre", "stake": stake, "harm": harm}


def fix(target: int, /, **fields: Any) -> dict[str, Any]:
    return {"type": "event.corrected", "target": target, "reason": "misread", "fields": fields}


def undo(target: int) -> dict[str, Any]:
    return {"type": "event.retracted", "target": target, "reason": "undo"}


def fight(*later: dict[str, Any]) -> list[Any]:
    """Ash locks `s` on the Ogre (seq 4), rolls 10, 7, 1 (seq 5: success) and hits (seq 6)."""
    return streams.stream("fates-edge", ASH, OGRE, lock(), roll([10, 7, 1]), hit(2), *later)


def seen(records: list[Any], **kwargs: Any) -> dict[str, Any]:
    """What people see of the folded stream (its seq aside)."""
    view = streams.tracks(records, **kwargs)
    return {k: view[k] for k in ("combatants", "pools", "rolls")}


def fight_rules(records: list[Any]) -> list[tuple[str, tuple[int, ...]]]:
    return streams.rules_hit(records)


def test_a_corrected_roll_is_judged_where_it_was_rolled() -> None:
    missed = streams.stream("fates-edge", ASH, OGRE, lock(), roll([1, 2, 3]), hit(2))
    assert ("hit-without-success", (4, 5, 6)) in streams.rules_hit(missed)
    corrected = streams.stream(
        "fates-edge", ASH, OGRE, lock(), roll([1, 2, 3]), hit(2), fix(5, dice=[10, 7, 2])
    )
    in_place = streams.stream("fates-edge", ASH, OGRE, lock(), roll([10, 7, 2]), hit(2))
    assert seen(corrected) == seen(in_place)
    assert streams.rules_hit(corrected) == []
    assert [(f.rule, f.seq) for f in streams.audit(corrected)] == [("ruling-reversed", (7, 5))]
    assert streams.fold(corrected).roll_at(5) == streams.fold(in_place).roll_at(5)


def test_several_corrections_of_one_event_apply_in_seq_order() -> None:
    twice = fight(fix(5, dice=[1, 1, 1]), fix(5, dice=[10, 10, 7]), fix(3, stats={"harm": 3}))
    in_place = streams.stream(
        "fates-edge",
        ASH,
        {**OGRE, "stats": {**OGRE_STATS, "harm": 3}},
        lock(),
        roll([10, 10, 7]),
        hit(2),
    )
    assert seen(twice) == seen(in_place)
    roll_at_5 = streams.fold(twice).roll_at(5)
    assert roll_at_5 is not None and roll_at_5.outcome == "success"


def test_an_undone_correction_restores_what_it_replaced_and_a_redo_brings_it_back() -> None:
    original = fight()
    undone = fight(fix(5, dice=[1, 1, 1]), undo(7))
    assert seen(undone) == seen(original)
    assert fight_rules(undone) == fight_rules(original)
    redone = fight(fix(5, dice=[1, 1, 1]), undo(7), undo(8))
    assert seen(redone) == seen(fight(fix(5, dice=[1, 1, 1])))
    assert ("hit-without-success", (4, 5, 6)) in fight_rules(redone)


def test_a_correction_of_an_event_later_events_depend_on_changes_them_all() -> None:
    # A DV of 4 turns the 3-success roll at seq 5 into a Partial: the full hit is now too much.
    harder = fight(fix(4, dv=4))
    in_place = streams.stream("fates-edge", ASH, OGRE, lock(dv=4), roll([10, 7, 1]), hit(2))
    assert seen(harder) == seen(in_place)
    roll_at_5 = streams.fold(harder).roll_at(5)
    assert roll_at_5 is not None and roll_at_5.outcome == "partial"
    assert fight_rules(harder) == fight_rules(in_place)


def test_tracks_at_a_seq_are_as_the_table_knew_them_unless_corrected() -> None:
    records = fight(fix(5, dice=[1, 1, 1]))
    as_known = streams.fold(records, at=6).roll_at(5)
    as_corrected = streams.fold(records, at=6, corrected_today=True).roll_at(5)
    assert as_known is not None and as_known.outcome == "success"
    assert as_corrected is not None and as_corrected.outcome == "miss"


def defeated_early(ledger: Ledger) -> None:
    """`a`: the Ogre (Resilience 2) takes a 1-Harm hit at seq 6 and falls to a 3-Harm hit at
    seq 9; the first hit should have been 2 Harm."""
    ledger.open("a", "fates-edge")
    ledger.record("a", ASH)
    ledger.record("a", {**OGRE, "stats": {**OGRE_STATS, "resilience": 2}})
    for stake, harm in (("s1", 1), ("s2", 3)):
        ledger.record("a", lock(stake, harm=harm))
        ledger.record("a", roll([10, 7, 6], stake))
        ledger.record("a", hit(harm, stake))


def test_amending_an_early_hit_after_the_adversary_fell_keeps_the_fight_legal(
    ledger: Ledger,
) -> None:
    defeated_early(ledger)
    assert ledger.tracks("a").combatants["Ogre"].status == "defeated"
    amended = ledger.amend("a", 4, {"harm": 2}, reason="the bonus die", strict=True)
    ledger.amend("a", 6, {"harm": 2}, reason="the bonus die", strict=True)
    assert [f.rule for f in amended.findings] == ["ruling-reversed"]
    assert [f.rule for f in ledger.audit("a") if f.severity != "info"] == []
    ogre = ledger.tracks("a").view()["combatants"]["Ogre"]
    assert (ogre["status"], ogre["resilience"]) == ("defeated", 0)


@pytest.mark.parametrize(
    ("fix_", "message"),
    [
        (fix(1, title="x"), "seq 1 is encounter.opened"),
        (fix(2, type="note"), "a correction keeps the event's type"),
        (fix(2, side="ally"), "the corrected seq 2 (combatant.joined) field 'side'"),
        (fix(9, harm=1), "seq 9 is not in encounter 'a' (seqs 1-"),
        (fix(5, dice=[10, 7, 1]), "seq 5 already has dice=[10, 7, 1]: nothing to amend"),
        (fix(6, target="Nobody"), "the corrected seq 6 no longer applies where it was"),
    ],
)
def test_a_correction_that_leaves_no_valid_event_is_refused_and_appends_nothing(
    ledger: Ledger, fix_: dict[str, Any], message: str
) -> None:
    ledger.open("a", "fates-edge")
    for item in (ASH, OGRE, lock(), roll([10, 7, 1]), hit(2)):
        ledger.record("a", item)
    with pytest.raises(BadInput, match=re.escape(message)):
        ledger.record("a", fix_)
    assert ledger.store.require("a").seq == 6


def test_a_correction_cannot_target_a_retraction_or_a_correction(ledger: Ledger) -> None:
    ledger.open("a", "fates-edge")
    for item in (ASH, OGRE, lock(), roll([10, 7, 1]), hit(2), fix(5, dice=[10, 7, 2])):
        ledger.record("a", item)
    ledger.undo("a", 6, reason="no hit")
    with pytest.raises(BadInput, match=r"seq 7 is event\.corrected: correct the event it corrects"):
        ledger.amend("a", 7, {"reason": "x"}, reason="x")
    with pytest.raises(BadInput, match=r"seq 8 is event\.retracted: a retraction is reversed"):
        ledger.amend("a", 8, {"reason": "x"}, reason="x")
    with pytest.raises(BadInput, match="seq 6 is retracted; redo it"):
        ledger.amend("a", 6, {"harm": 1}, reason="x")


def test_a_strict_correction_that_breaks_a_rule_is_refused(ledger: Ledger) -> None:
    ledger.open("a", "fates-edge")
    for item in (ASH, OGRE, lock(), roll([10, 7, 1]), hit(2)):
        ledger.record("a", item)
    with pytest.raises(RuleRefused, match=r"\[hit-without-success\]"):
        ledger.amend("a", 5, {"dice": [1, 2, 3]}, reason="x", strict=True)
    assert ledger.store.require("a").seq == 6


def test_the_hash_chain_is_untouched_by_corrections(ledger: Ledger, db: Path) -> None:
    ledger.open("a", "fates-edge")
    for item in (ASH, OGRE, lock(), roll([10, 7, 1]), hit(2)):
        ledger.record("a", item)
    before = ledger.records("a")
    ledger.amend("a", 5, {"dice": [10, 7, 2]}, reason="misread a die")
    assert ledger.records("a")[:6] == before
    assert ledger.verify("a")[0].ok


def encounter(db: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli.app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_misread_die_is_amended_and_the_session_audits_clean(db: Path) -> None:
    for line in (
        "new a --system fates-edge",
        "add a Ash --side player",
        "add a Ogre --side adversary --stat resilience=4 --stat fatigue_capacity=3 --stat "
        "armor=light",
        "lock a s --actor Ash --against Ogre --target Ogre --harm 2",
        "roll a s --dice 10,7,1",
        "hit a Ogre 2 --stake s",
    ):
        assert encounter(db, *line.split())[0] == 0
    code, out, err = encounter(
        db, "amend", "a", "5", "dice=[10,7,2]", "--reason", "misread a die", "--strict"
    )
    assert (code, err) == (0, "")
    assert out == (
        "Recorded seq 7: event.corrected (corrects seq 5: dice=[10,7,2])\n"
        "  seq 5 corrected to dice 10, 7, 2: misread a die; its roll is now 3 successes vs DV 3: "
        "success, 0 SB (Position controlled)\n"
        "Downstream: the encounter changes from seq 5 on.\n"
        "Tracks changed:\n"
        "  pools sb: 1 -> 0\n"
        "Rolls changed:\n"
        "  seq 5 (Ash, 's'): 3 successes vs DV 3: success, 1 SB (Position controlled) -> "
        "3 successes vs DV 3: success, 0 SB (Position controlled)\n"
    )
    code, out, _ = encounter(db, "audit", "a")
    assert code == 0
    assert out.splitlines()[-1] == "0 errors, 0 warnings, 1 note."
    assert "seq 7 corrects seq 5 (roll.made: dice=[10, 7, 2]): misread a die" in out
    logged = [json.loads(line) for line in encounter(db, "log", "a", "--json")[1].splitlines()]
    assert (logged[4]["dice"], logged[4]["corrected_by"]) == ([10, 7, 1], [7])


def test_history_lists_every_event_that_touched_a_track_even_with_no_net_change(
    db: Path,
) -> None:
    for line in (
        "new a --system fates-edge",
        "add a Ogre --side adversary --stat resilience=6 --stat fatigue_capacity=3 --stat "
        "armor=light",
        "fatigue a Ogre 1",
        "hit a Ogre 2",
        "fatigue a Ogre 2",
        "fatigue a Ogre 3",
    ):
        assert encounter(db, *line.split())[0] == 0
    code, out, err = encounter(db, "history", "a", "Ogre", "--track", "fatigue")
    assert (code, err) == (0, "")
    assert out == (
        "seq 3: Ogre marks 1 Fatigue; Fatigue 0 -> 1\n"
        "  Ogre fatigue: 0 -> 1 (1 marked)\n"
        "seq 4: Ogre is hit for Harm 2: light armor converts it to 1 Harm + 1 Fatigue, the Harm "
        "clears the old Fatigue, then the new 1 marks it again (Fatigue 1 -> 0 -> 1); "
        "Resilience 6 -> 5\n"
        "  Ogre fatigue: 1 -> 1 (cleared by the Harm, then 1 marked)\n"
        "seq 5: Ogre marks 2 Fatigue: Fatigue overflows (capacity 3): -1 Resilience; Resilience "
        "5 -> 4, Fatigue 1 -> 0\n"
        "  Ogre fatigue: 1 -> 0 (2 marked, then filled the track (capacity 3) and cleared)\n"
        "seq 6: Ogre marks 3 Fatigue: Fatigue overflows (capacity 3): -1 Resilience; Resilience "
        "4 -> 3\n"
        "  Ogre fatigue: 0 -> 0 (3 marked, then filled the track (capacity 3) and cleared)\n"
    )
    code, out, _ = encounter(db, "history", "a", "Ogre", "--track", "resilience")
    assert out.splitlines()[-1] == "  Ogre resilience: 4 -> 3 (1 for the Fatigue overflow)"
    code, out, _ = encounter(db, "history", "a", "Ogre", "--track", "fatigue", "--json")
    last = json.loads(out.splitlines()[-1])
    assert (last["seq"], last["changes"], last["what"]["fatigue"]) == (
        6,
        [{"combatant": "Ogre", "track": "fatigue", "before": 0, "after": 0}],
        "3 marked, then filled the track (capacity 3) and cleared",
    )


def test_history_follows_the_story_as_corrected(db: Path) -> None:
    for line in (
        "new a --system fates-edge",
        "add a Ogre --side adversary --stat resilience=6 --stat fatigue_capacity=3 --stat "
        "armor=light",
        "fatigue a Ogre 1",
    ):
        assert encounter(db, *line.split())[0] == 0
    assert encounter(db, "amend", "a", "3", "amount=2", "--reason", "two marks")[0] == 0
    _, out, _ = encounter(db, "history", "a", "Ogre", "--track", "fatigue")
    assert out == "seq 3: Ogre marks 2 Fatigue; Fatigue 0 -> 2\n  Ogre fatigue: 0 -> 2 (2 marked)\n"


def test_tracks_at_and_replay_tell_the_two_times_and_agree(db: Path) -> None:
    for line in (
        "new a --system fates-edge",
        "add a Ogre --side adversary --stat resilience=6 --stat fatigue_capacity=4 --stat "
        "armor=light",
        "fatigue a Ogre 1",
        "fatigue a Ogre 1",
    ):
        assert encounter(db, *line.split())[0] == 0
    assert encounter(db, "amend", "a", "3", "amount=2", "--reason", "two marks")[0] == 0

    def fatigue(*args: str) -> int:
        doc = json.loads(encounter(db, "tracks", "a", "--json", *args)[1])
        value: int = doc["combatants"]["Ogre"]["fatigue"]
        return value

    def replayed(*args: str) -> int:
        last = json.loads(encounter(db, "replay", "a", "--json", *args)[1].splitlines()[-1])
        value: int = last["combatants"]["Ogre"]["fatigue"]
        return value

    assert fatigue("--at", "4") == replayed("--as-played", "--to", "4") == 2
    assert fatigue("--at", "4", "--corrected") == replayed("--to", "4") == 3
    assert fatigue() == replayed() == 3
    _, out, _ = encounter(db, "replay", "a", "--as-played", "--from", "4")
    assert out.splitlines() == [
        "seq 4: Ogre marks 1 Fatigue; Fatigue 1 -> 2",
        "  Ogre fatigue: 1 -> 2",
        "seq 5: seq 3 corrected to amount 2: two marks",
        "  Ogre fatigue: 2 -> 3",
    ]
    _, out, _ = encounter(db, "replay", "a", "--from", "3")
    assert out.splitlines() == [
        "seq 3: Ogre marks 2 Fatigue; Fatigue 0 -> 2",
        "  Ogre fatigue: 0 -> 2",
        "seq 4: Ogre marks 1 Fatigue; Fatigue 2 -> 3",
        "  Ogre fatigue: 2 -> 3",
    ]


def test_a_correction_behind_a_cached_snapshot_is_folded_in_a_new_process(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("long", "ssss")
        ledger.join("long", "Bandit", "adversary", {"level": 2})
        ledger.record("long", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
        for n in range(300):
            ledger.record("long", {"type": "note", "text": f"round {n}"})
    with Ledger(db) as ledger:  # a new process: only the file's snapshots to start from
        ledger.amend("long", 3, {"level": 2}, reason="a heavier blow")
    with Ledger(db) as ledger:
        records = ledger.records("long")
        assert ledger.tracks("long") == streams.fold(records)
        slots = ledger.tracks("long").view()["combatants"]["Bandit"]["slots"]
        assert slots["2"]["filled"] == 1
        assert ledger.tracks("long", at=300) == streams.fold(records, at=300)
        assert [f.rule for f in ledger.audit("long")] == ["ruling-reversed"]
