"""The common audit rules: each with a stream that breaks it and one that keeps it."""

from __future__ import annotations

from typing import Any

from tests.streams import audit, rules_hit, stream

GUARD = {"type": "combatant.joined", "name": "Guard", "side": "adversary", "stats": {"level": 0}}
ASH = {"type": "combatant.joined", "name": "Ash", "side": "player"}


def lock(stake: str, actor: str = "Ash") -> dict[str, Any]:
    return {"type": "stakes.locked", "stake": stake, "actor": actor, "target": "Guard"}


def roll(stake: str | None = None, actor: str = "Ash") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "roll.made", "actor": actor, "outcome": "hit"}
    if stake:
        out["stake"] = stake
    return out


def harm(level: int = 1) -> dict[str, Any]:
    return {"type": "harm.inflicted", "target": "Guard", "level": level}


def findings(records: Any, rule: str) -> list[tuple[str, tuple[int, ...], str]]:
    return [(f.severity, f.seq, f.message) for f in audit(records) if f.rule == rule]


def test_a_roll_on_a_stake_never_locked_is_flagged() -> None:
    records = stream("ssss", GUARD, ASH, roll("ambush"))
    assert findings(records, "stakes-before-roll") == [
        (
            "error",
            (4,),
            "roll at seq 4 names stake 'ambush', which was never locked; "
            "stakes must be locked before the roll",
        )
    ]


def test_a_roll_after_its_stakes_were_locked_keeps_the_rule() -> None:
    records = stream("ssss", GUARD, ASH, lock("ambush"), roll("ambush"))
    assert rules_hit(records) == []


def test_a_stake_locked_after_its_roll_is_still_flagged_at_the_roll() -> None:
    records = stream("ssss", GUARD, ASH, roll("ambush"), lock("ambush"))
    assert [f[1] for f in findings(records, "stakes-before-roll")] == [(4,)]


def test_a_second_lock_of_a_stake_is_flagged_and_the_first_stands() -> None:
    records = stream("ssss", GUARD, ASH, lock("ambush"), lock("ambush", actor="Guard"))
    assert findings(records, "stakes-locked-once") == [
        (
            "error",
            (4, 5),
            "seq 5 locks stake 'ambush' again; it was locked at seq 4 and that first lock stands",
        )
    ]
    from tests.streams import fold

    assert fold(records).stakes["ambush"].lock.actor == "Ash"


def test_distinct_stakes_keep_the_lock_once_rule() -> None:
    records = stream("ssss", GUARD, ASH, lock("ambush"), lock("parley"))
    assert rules_hit(records) == []


def test_harm_on_a_defeated_enemy_is_an_event_after_defeat() -> None:
    records = stream("ssss", GUARD, ASH, harm(), harm(), harm())
    # Level 0: one slot; the second harm defeats, the third comes after defeat.
    assert findings(records, "event-after-defeat") == [
        (
            "error",
            (6,),
            "seq 6 (harm.inflicted) involves 'Guard', who is defeated and no longer in the fight: "
            "by the rules it would not happen; recorded as played: no track changes",
        )
    ]


def test_a_roll_by_someone_who_fled_is_an_event_after_defeat() -> None:
    fled = {"type": "combatant.left", "name": "Guard", "manner": "fled"}
    records = stream("ssss", GUARD, ASH, fled, roll(actor="Guard"))
    assert [f[1] for f in findings(records, "event-after-defeat")] == [(5,)]
    assert "who is fled" in findings(records, "event-after-defeat")[0][2]


def test_harm_while_still_standing_keeps_the_defeat_rule() -> None:
    records = stream("ssss", GUARD, ASH, harm())
    assert findings(records, "event-after-defeat") == []


def test_a_sheet_that_disagrees_with_the_ledger_is_flagged() -> None:
    noted = {"type": "tracks.noted", "target": "Guard", "values": {"penalties": 2}}
    records = stream("ssss", GUARD, ASH, harm(), noted)
    assert findings(records, "tracks-diverged") == [
        ("warning", (5,), "the sheet at seq 5 says 'Guard' penalties is 2; the ledger has 1")
    ]


def test_a_sheet_that_agrees_keeps_the_divergence_rule() -> None:
    noted = {"type": "tracks.noted", "target": "Guard", "values": {"penalties": 1}}
    records = stream("ssss", GUARD, ASH, harm(), noted)
    assert findings(records, "tracks-diverged") == []


def test_an_imported_note_that_disagrees_is_flagged_with_its_file_and_line() -> None:
    noted = {
        "type": "tracks.noted",
        "target": "Guard",
        "values": {"penalties": 2},
        "source": {"file": "Session 3.md", "line": 41},
    }
    records = stream("ssss", GUARD, ASH, harm(), noted)
    assert rules_hit(records) == [("journal-disagrees", (5,))]
    assert findings(records, "journal-disagrees") == [
        (
            "warning",
            (5,),
            "Session 3.md:41 says 'Guard' penalties is 2 here; the ledger has 1 (seq 5)",
        )
    ]


def test_an_imported_note_that_agrees_keeps_the_journal_rule() -> None:
    noted = {
        "type": "tracks.noted",
        "target": "Guard",
        "values": {"penalties": 1},
        "source": {"file": "Session 3.md", "line": 41},
    }
    records = stream("ssss", GUARD, ASH, harm(), noted)
    assert rules_hit(records) == []


def test_a_combatant_imported_from_a_note_says_where_its_stats_came_from() -> None:
    kira = {
        "type": "combatant.joined",
        "name": "Kira",
        "side": "player",
        "stats": {"health": 3, "iron": 2},
        "source": {"file": "Session 1.md", "line": 5},
    }
    records = stream("ironsworn", kira)
    assert findings(records, "journal-start") == [
        (
            "info",
            (2,),
            "'Kira' joins at seq 2 with what Session 1.md:5 gives (health 3, iron 2): taken "
            "from the imported notes, not entered at the table; every later claim of theirs is "
            "checked against it",
        )
    ]


def test_a_combatant_entered_at_the_table_keeps_the_journal_start_rule() -> None:
    records = stream("ironsworn", {**ASH, "stats": {"health": 3}})
    assert findings(records, "journal-start") == []


def test_a_manual_adjustment_is_listed_with_the_value_the_rules_gave() -> None:
    adjusted = {
        "type": "track.adjusted",
        "target": "Guard",
        "track": "penalties",
        "value": 0,
        "reason": "the healer's salve",
    }
    records = stream("ssss", GUARD, ASH, harm(), adjusted)
    assert findings(records, "manual-adjustment") == [
        ("info", (5,), "seq 5 sets 'Guard' penalties to 0 (the rules gave 1): the healer's salve")
    ]
    from tests.streams import tracks

    assert tracks(records)["combatants"]["Guard"]["penalties"] == 0


def test_no_adjustment_no_manual_adjustment_finding() -> None:
    assert findings(stream("ssss", GUARD, ASH, harm()), "manual-adjustment") == []


def test_an_undo_and_a_redo_are_listed_as_reversed_rulings() -> None:
    undo = {"type": "event.retracted", "target": 4, "reason": "wrong enemy"}
    redo = {"type": "event.retracted", "target": 5, "reason": "it was the right one"}
    records = stream("ssss", GUARD, ASH, harm(), undo)
    assert findings(records, "ruling-reversed") == [
        ("info", (5, 4), "seq 5 retracts seq 4 (harm.inflicted): wrong enemy")
    ]
    records = stream("ssss", GUARD, ASH, harm(), undo, redo)
    assert findings(records, "ruling-reversed") == [
        ("info", (6, 5), "seq 6 redoes: it retracts the retraction at seq 5: it was the right one")
    ]


def test_a_stream_without_retractions_reverses_no_ruling() -> None:
    assert findings(stream("ssss", GUARD, ASH, harm()), "ruling-reversed") == []


def test_a_claimed_outcome_that_the_dice_do_not_give_is_flagged() -> None:
    blade = {
        "type": "combatant.joined",
        "name": "Blade",
        "side": "adversary",
        "stats": {"resilience": 8, "fatigue_capacity": 3, "armor": "light"},
    }
    rook = {"type": "combatant.joined", "name": "Rook", "side": "player"}
    locked = {
        "type": "stakes.locked",
        "stake": "cut",
        "actor": "Rook",
        "target": "Blade",
        "position": "controlled",
        "dv": 3,
        "harm": 2,
    }
    claimed = {"type": "roll.made", "stake": "cut", "dice": [6, 7, 1], "outcome": "success"}
    records = stream("fates-edge", blade, rook, locked, claimed)
    assert findings(records, "outcome-claim") == [
        ("error", (5,), "roll at seq 5 was recorded as a success, but the rules give a partial")
    ]
    honest = {**claimed, "outcome": "partial"}
    assert findings(stream("fates-edge", blade, rook, locked, honest), "outcome-claim") == []
