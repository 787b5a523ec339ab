"""The library API that bots and VTT bridges use (and the CLI is built on)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import ledger
from ledger import Conflict, Ledger, events, systems
from ledger.errors import BadInput, RuleRefused


def test_a_bot_records_an_encounter_and_reads_the_tracks(ledger: Ledger) -> None:
    ledger.open("ford", "ssss", title="Bandits at the ford")
    ledger.join("ford", "Bandit", "adversary", {"level": 1})
    result = ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    assert result.seq == 3
    assert [(c.combatant, c.track) for c in result.changes] == [
        ("Bandit", "slots"),
        ("Bandit", "penalties"),
    ]
    bandit = ledger.tracks("ford").view()["combatants"]["Bandit"]
    assert bandit["slots"] == {"1": {"filled": 1, "capacity": 3}}


def locked_and_rolled(ledger: Ledger) -> None:
    """ssss `ford`: Ash locks stake `ambush` (seq 3) and rolls it (seq 4)."""
    ledger.open("ford", "ssss")
    ledger.join("ford", "Ash", "player", {})
    ledger.record("ford", {"type": "stakes.locked", "stake": "ambush", "actor": "Ash"})
    ledger.record("ford", {"type": "roll.made", "stake": "ambush", "outcome": "success"})


def test_an_undo_reports_the_rule_it_breaks_at_a_later_seq(ledger: Ledger) -> None:
    locked_and_rolled(ledger)
    undone = ledger.undo("ford", 3, reason="the lock was a mistake")
    assert [(f.rule, f.seq) for f in undone.findings] == [
        ("stakes-before-roll", (4,)),
        ("ruling-reversed", (5, 3)),
    ]
    assert [(f.rule, f.seq) for f in ledger.audit("ford")] == [
        ("stakes-before-roll", (4,)),
        ("ruling-reversed", (5, 3)),
    ]


def test_a_strict_undo_that_would_break_a_rule_is_refused_and_appends_nothing(
    ledger: Ledger,
) -> None:
    locked_and_rolled(ledger)
    with pytest.raises(RuleRefused) as refused:
        ledger.undo("ford", 3, reason="the lock was a mistake", strict=True)
    assert str(refused.value) == (
        "refused (--strict): retracting seq 3 would add an audit error: [stakes-before-roll] "
        "roll at seq 4 names stake 'ambush', which was never locked; stakes must be locked "
        "before the roll"
    )
    assert ledger.tracks("ford").seq == 4
    assert [f.rule for f in ledger.audit("ford")] == []


def test_undo_and_redo_through_the_api_report_the_changes(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 0})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    assert ledger.tracks("ford").combatants["Bandit"].status == "defeated"
    undone = ledger.undo("ford", reason="the second blow missed")
    assert [(c.track, c.before, c.after) for c in undone.changes] == [
        ("status", "defeated", "active")
    ]
    redone = ledger.redo("ford")
    assert [(c.track, c.after) for c in redone.changes] == [("status", "defeated")]
    assert [r.type for r in ledger.records("ford")][-2:] == ["event.retracted"] * 2


def test_replay_audit_export_import_and_verify_through_the_api(
    ledger: Ledger, tmp_path: Path
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 2})
    assert [s.record.seq for s in ledger.replay("ford")] == [1, 2, 3]
    assert ledger.audit("ford") == []
    lines = list(ledger.export("ford"))
    with Ledger(tmp_path / "copy.db") as other:
        assert other.import_lines(lines).appended == 3
        assert other.verify("ford")[0].ok
    assert json.loads(lines[0])["rules"]["max_per_tier"] == 3


def test_every_error_is_a_ledger_error_with_an_exit_code(ledger: Ledger) -> None:
    with pytest.raises(ledger_errors()) as caught:
        ledger.record("nowhere", {"type": "note", "text": "hi"})
    assert isinstance(caught.value, ledger_errors())
    assert caught.value.exit_code == 2
    ledger.open("ford", "ssss")
    with pytest.raises(Conflict) as conflict:
        ledger.record("ford", {"type": "note", "text": "x"}, expect=0)
    assert conflict.value.exit_code == 3


def ledger_errors() -> type[ledger.LedgerError]:
    return ledger.LedgerError


def test_a_jsonl_file_loads_into_memory_without_writing(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(
        '{"type": "encounter.opened", "system": "ssss"}\n'
        '{"type": "combatant.joined", "name": "Bandit", "side": "adversary", '
        '"stats": {"level": 1}}\n'
    )
    book, name = ledger.load(path)
    with book:
        assert name == "session"
        assert list(book.tracks(name).combatants) == ["Bandit"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.jsonl"]


def test_tracks_without_the_last_events_stay_at_the_head_seq(ledger: Ledger) -> None:
    locked_and_rolled(ledger)
    assert ledger.tracks("ford", without=[4]).seq == 4
    assert ledger.tracks("ford", without=[3, 4]).rolls == ()
    assert ledger.tracks("ford", at=3, without=[3]).seq == 3


def test_an_event_that_is_not_a_mapping_is_bad_input(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    with pytest.raises(BadInput, match=r"an event is a mapping with a 'type'.*not str"):
        ledger.record("ford", "notadict")  # type: ignore[arg-type]
    assert ledger.tracks("ford").seq == 1


def test_amend_appends_one_correction_that_the_fold_reads_at_the_target(
    ledger: Ledger,
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 2})
    amended = ledger.amend("ford", 3, {"level": 1}, reason="a glancing blow")
    (correction,) = amended.records
    assert (correction.seq, correction.type) == (4, "event.corrected")
    assert events.body_of(correction.event) == {
        "target": 3,
        "reason": "a glancing blow",
        "fields": {"level": 1},
    }
    assert [(c.track, c.after) for c in amended.changes] == [
        ("slots", {"1": {"filled": 1, "capacity": 3}, "2": {"filled": 0, "capacity": 3}})
    ]
    assert amended.downstream is not None and amended.downstream.first_divergence == 3
    (step,) = [s for s in ledger.replay("ford") if s.record.seq == 3]
    assert step.record.event == systems.parse(
        {"type": "harm.inflicted", "target": "Bandit", "level": 1}, "ssss"
    )


@pytest.mark.parametrize(
    ("seq", "fields", "message"),
    [
        (1, {"title": "x"}, "seq 1 is encounter.opened: amend corrects a table fact"),
        (3, {"type": "note"}, "amend keeps the event's type"),
        (3, {"level": 0}, "the corrected seq 3 (harm.inflicted) field 'level'"),
        (9, {"level": 1}, "seq 9 is not in encounter 'ford' (seqs 1-3)"),
        (3, {"level": 2}, "seq 3 already has level=2: nothing to amend"),
    ],
)
def test_an_amend_that_cannot_be_made_appends_nothing(
    ledger: Ledger, seq: int, fields: dict[str, object], message: str
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 2})
    with pytest.raises(BadInput, match=re.escape(message)):
        ledger.amend("ford", seq, fields, reason="why")
    assert ledger.tracks("ford").seq == 3


def test_a_strict_amend_that_breaks_a_rule_is_refused(ledger: Ledger) -> None:
    locked_and_rolled(ledger)
    with pytest.raises(RuleRefused, match=r"\[stakes-before-roll\]"):
        ledger.amend("ford", 3, {"stake": "feint"}, reason="wrong id", strict=True)
    assert ledger.tracks("ford").seq == 4


def test_history_lists_the_steps_that_changed_one_combatant(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 0})
    ledger.join("ford", "Ash", "player", {})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    found = list(ledger.history("ford", "Bandit", "status"))
    assert [(s.record.seq, [(c.before, c.after) for c in s.changes]) for s in found] == [
        (2, [(None, "active")]),
        (5, [("active", "defeated")]),
    ]
    with pytest.raises(BadInput, match="combatant 'Nobody' is not in encounter 'ford'"):
        list(ledger.history("ford", "Nobody"))


def test_amend_changes_only_the_nested_fields_it_names(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2, "slots": {"1": 2, "2": 1}})
    ledger.amend("ford", 2, {"stats": {"level": 3}}, reason="a veteran")
    joined = next(ledger.replay("ford", 2, 2)).record.event
    assert isinstance(joined, events.CombatantJoined)
    assert dict(joined.stats) == {"level": 3, "slots": {"1": 2, "2": 1}}


def test_an_undone_correction_restores_what_it_replaced_and_a_redo_brings_it_back(
    ledger: Ledger,
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    ledger.amend("ford", 3, {"level": 2}, reason="heavier")
    with pytest.raises(BadInput, match="nothing to redo"):
        ledger.redo("ford")

    def slots() -> object:
        return ledger.tracks("ford").view()["combatants"]["Bandit"]["slots"]

    undone = ledger.undo("ford", reason="it was level 1")  # retracts the correction (seq 4)
    assert undone.records[0].event == events.EventRetracted(target=4, reason="it was level 1")
    assert slots() == {"1": {"filled": 1, "capacity": 3}, "2": {"filled": 0, "capacity": 3}}
    ledger.redo("ford")
    with pytest.raises(BadInput, match="nothing to redo"):
        ledger.redo("ford")
    assert slots() == {"1": {"filled": 0, "capacity": 3}, "2": {"filled": 1, "capacity": 3}}


@pytest.mark.parametrize(
    ("fields", "reason", "message"),
    [
        ({}, "why", "amend needs the fields to change"),
        ("level=2", "why", "amend needs the fields to change"),
        ({"level": 2}, " ", "amend needs a reason"),
    ],
)
def test_an_amend_without_fields_or_reason_is_bad_input(
    ledger: Ledger, fields: object, reason: str, message: str
) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    with pytest.raises(BadInput, match=message):
        ledger.amend("ford", 2, fields, reason=reason)  # type: ignore[arg-type]
    with pytest.raises(BadInput, match="undo needs a reason"):
        ledger.undo("ford", reason="")


def two_critical_strikes(ledger: Ledger) -> None:
    """L5R `duel`: T takes a critical strike at seq 3 (at 5) and another at seq 5 (at 7)."""
    ledger.open("duel", "l5r")
    rings = {"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 2}
    ledger.join("duel", "T", "player", {"rings": rings})
    hit = {"type": "damage.dealt", "target": "T", "amount": 8, "deadliness": 5}
    ledger.record("duel", {**hit, "voluntary_critical": True})  # seq 3: a crit at 5
    ledger.record("duel", {**hit, "amount": 20, "deadliness": 3})  # seq 4: defended
    ledger.record("duel", {**hit, "amount": 4, "deadliness": 7})  # seq 5: a crit at 7


def test_amending_a_critical_resolved_keeps_the_critical_strike_it_resolved(
    ledger: Ledger,
) -> None:
    two_critical_strikes(ledger)
    resolved = {"type": "critical.resolved", "target": "T"}
    ledger.record("duel", {**resolved, "severity": 2})  # seq 6 resolves @3
    ledger.record("duel", {**resolved, "severity": 6})  # seq 7 resolves @5
    # Read at its own seq, seq 6 still resolves the oldest strike (by order), and seq 7 the next.
    amended = ledger.amend("duel", 6, {"severity": 4}, reason="one more Fitness success")
    crits = amended.state.view()["combatants"]["T"]["criticals"]
    assert [(c["seq"], c["severity"], c["resolved"]) for c in crits] == [(3, 4, 6), (5, 6, 7)]
    assert [f.rule for f in amended.findings] == ["ruling-reversed"]


def test_amending_the_last_critical_resolved_resolves_the_same_strike(ledger: Ledger) -> None:
    two_critical_strikes(ledger)
    ledger.record("duel", {"type": "critical.resolved", "target": "T", "severity": 2})
    amended = ledger.amend("duel", 6, {"severity": 4}, reason="one more Fitness success")
    crits = amended.state.view()["combatants"]["T"]["criticals"]
    assert [(c["seq"], c["severity"], c["resolved"]) for c in crits] == [
        (3, 4, 6),
        (5, 7, None),
    ]


def test_changes_name_the_tracks_a_combatant_no_longer_has(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Wren", "adversary", {"level": 1})
    amended = ledger.amend("ford", 2, {"side": "player", "stats": {"level": None}}, reason="ally")
    assert [(c.track, c.before, c.after) for c in amended.changes] == [
        ("harm", None, []),
        ("record", None, {}),
        ("level", 1, None),
        ("slots", {"1": {"filled": 0, "capacity": 3}}, None),
        ("penalties", 0, None),
        ("tags", [], None),
    ]


def test_an_amend_to_the_values_it_has_is_refused(
    ledger: Ledger,
) -> None:
    two_critical_strikes(ledger)
    ledger.record("duel", {"type": "critical.resolved", "target": "T", "severity": 2})
    with pytest.raises(BadInput, match="seq 6 already has severity=2: nothing to amend"):
        ledger.amend("duel", 6, {"severity": 2}, reason="same")


def test_a_state_the_library_hands_out_cannot_be_edited(ledger: Ledger) -> None:
    ledger.open("duel", "fates-edge")
    ogre = {"resilience": 5, "fatigue_capacity": 3}
    result = ledger.join("duel", "Ogre", "adversary", ogre)
    for state in (result.state, ledger.tracks("duel")):
        with pytest.raises(TypeError):
            state.pools["sb"] = 9  # type: ignore[index]  # a bot "previewing" a spend
        with pytest.raises(AttributeError):
            state.combatants.pop("Ogre")  # type: ignore[attr-defined]
        with pytest.raises(TypeError):
            state.combatants["Ogre"] = state.combatants["Ogre"]  # type: ignore[index]
        with pytest.raises(TypeError):
            state.rules["dv_default"] = 9  # type: ignore[index]
        with pytest.raises(TypeError):
            state.rules["armor_table"]["light"] = ("F1",)
        with pytest.raises(AttributeError):
            state.seq = 9  # type: ignore[misc]
        with pytest.raises(AttributeError):
            state.combatants["Ogre"].status = "fled"  # type: ignore[misc]
    with pytest.raises(RuleRefused, match=r"\[sb-overspent\] seq 3 spends 3 SB with 0"):
        spend = {"type": "sb.spent", "amount": 3, "purpose": "complication"}
        ledger.record("duel", spend, strict=True)
    assert (ledger.tracks("duel").pools["sb"], list(ledger.tracks("duel").combatants)) == (
        0,
        ["Ogre"],
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: b.undo("ford", "3", reason="x"), "a seq is a whole number, not '3'"),
        (lambda b: b.undo("ford", reason=None), "undo needs a reason"),
        (lambda b: b.amend("ford", 3, {"level": 2}, reason=None), "amend needs a reason"),
        (lambda b: b.record("ford", {"type": "note", "text": "x"}, expect="3"), "expect must be"),
        (lambda b: b.tracks("ford", at="2"), "--at takes seqs (whole numbers), not '2'"),
        (lambda b: b.tracks("ford", without=2), "--without takes a list of seqs, not 2"),
        (lambda b: list(b.replay("ford", "2")), "--from takes seqs (whole numbers), not '2'"),
        (lambda b: b.import_lines('{"type": "note"}'), "import_lines takes the lines"),
        (
            lambda b: b.join("ford", "Ash", "player", [1]),
            "combatant.joined event field 'stats': input should be an object (got [1])",
        ),
        (  # pairs are not a stat block, though dict() would take them
            lambda b: b.join("ford", "Ogre", "adversary", [["level", 2]]),
            "field 'stats': input should be an object",
        ),
        (lambda b: b.wait_for(99, timeout="2"), "wait_for waits 0 or more seconds, not '2'"),
        (lambda b: b.wait_for(99, timeout=float("nan")), "seconds, not nan"),  # waited forever
        (lambda b: b.wait_for(99, timeout=-1), "seconds, not -1"),
        (
            lambda b: b.open("other", "ssss", rules=[["max_per_tier", 2]]),
            "encounter.opened event field 'rules': input should be an object",
        ),
    ],
)
def test_a_bots_type_slip_is_bad_input_not_a_crash(call: Any, message: str, ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Bandit", "adversary", {"level": 2})
    ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 1})
    with pytest.raises(BadInput, match=re.escape(message)):
        call(ledger)
    assert ledger.tracks("ford").seq == 3


def test_a_combatant_cannot_be_named_pools(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    with pytest.raises(BadInput, match="'pools' names the GM's pools in track changes"):
        ledger.join("ford", "pools", "adversary", {"level": 1})


def test_opening_an_encounter_another_writer_opened_first_is_a_conflict(ledger: Ledger) -> None:
    ledger.open("ford", "ssss", expect=0)
    with pytest.raises(Conflict, match="another writer opened it first"):
        ledger.open("ford", "ssss", expect=0)


def test_a_write_result_has_the_cli_json_document(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Ash", "player", {})
    throw = {"type": "throw.made", "actor": "Ash", "attribute": "swords", "outcome": "won"}
    doc = ledger.record("ford", throw).document()
    assert list(doc) == [
        "encounter",
        "seq",
        "position",
        "records",
        "rolls",
        "changes",
        "findings",
        "words",
    ]
    assert (doc["seq"], [r["seq"] for r in doc["records"]]) == (3, [3])
    assert [(r["seq"], r["outcome"]) for r in doc["rolls"]] == [(3, "won")]


def test_a_bot_s_event_nested_past_64_levels_is_bad_input_not_a_recursion_error(
    ledger: Ledger,
) -> None:
    ledger.open("deep", "ssss")
    value: Any = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(BadInput, match="nests more than 64 levels"):
        ledger.record("deep", {"type": "combatant.joined", "name": "Ash", "side": "player",
                               "stats": {"record": value}})  # fmt: skip
    assert ledger.store.require("deep").seq == 1


def test_an_amend_that_changes_what_the_rules_would_have_given_shows_the_finding_as_it_now_reads(
    ledger: Ledger,
) -> None:
    ledger.open("duel", "fates-edge")
    ledger.join("duel", "Ash", "player", {"body": 3})
    ledger.join("duel", "Ogre", "adversary", {"resilience": 6, "fatigue_capacity": 3})
    lock = {"type": "stakes.locked", "stake": "s1", "actor": "Ash", "opposing": "Ogre"}
    ledger.record("duel", {**lock, "dv": 3, "harm": 3, "partial": {"harm": 1}})
    ledger.record("duel", {"type": "roll.made", "stake": "s1", "dice": [6, 2, 2]})
    ledger.record("duel", {"type": "hit.resolved", "target": "Ogre", "stake": "s1", "harm": 3})
    amended = ledger.amend("duel", 4, {"partial": {"harm": 2}}, reason="the lock said 2")
    assert amended.downstream is not None
    [gone] = amended.downstream.findings_removed
    [added] = amended.downstream.findings_added
    assert (gone.rule, gone.seq, added.rule, added.seq) == (
        "partial-is-lesser",
        (4, 5, 6),
        "partial-is-lesser",
        (4, 5, 6),
    )
    assert "by the rules Harm 1: resilience 6 -> 5" in gone.message
    assert "by the rules Harm 2: resilience 6 -> 4" in added.message
    # What the write itself raises is judged by rule and seqs: the error is not new.
    assert [f.rule for f in amended.findings] == ["ruling-reversed"]
