"""Findings that clear when the obligation is met: a reminder while it is open, nothing after.

Issue #10: once the debility is marked, the oracle rolled or the miss burned away, nothing is
owed and nothing is reported; the same for every other owed or due finding of the four systems.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ledger import cli, systems
from projections import audit as audit_rules
from projections import core
from projections.findings import error
from tests.streams import audit, stream, tracks
from tests.systems.fates_edge.test_audit import ASH, BANK, BLADE
from tests.systems.fates_edge.test_fold import adversary, fe, lock, spend
from tests.systems.fates_edge.test_fold import roll as fe_roll
from tests.systems.ironsworn.test_fold import burn, debility, harm, kira, roll

runner = CliRunner()


def found(system: str, *items: dict[str, Any]) -> list[tuple[str, str, tuple[int, ...]]]:
    """(rule, severity, seqs) of every finding of a stream, info included."""
    return [(f.rule, f.severity, f.seq) for f in audit(stream(system, *items))]


def oracle(result: int) -> dict[str, Any]:
    """Kira rolls on the Endure Harm oracle."""
    return {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": result}


# Ironsworn: a miss at 0 health owes wounded, maimed or the oracle.


def test_a_miss_at_zero_health_is_reminded_while_nothing_is_marked_or_rolled() -> None:
    items = (kira(iron=1, health=1), harm(amount=3), roll(1, (5, 9)))
    (reminder,) = audit(stream("ironsworn", *items))
    assert (reminder.rule, reminder.severity, reminder.seq) == ("obligation-open", "info", (4,))
    assert reminder.message == (
        "Endure Harm miss at 0 health at seq 4: 'Kira' must mark wounded or maimed or roll the "
        "Endure Harm oracle"
    )


def test_the_oracle_rolled_with_both_debilities_marked_leaves_nothing_owed() -> None:
    marked = kira(iron=1, health=0, debilities=["wounded", "maimed"])
    items = (marked, harm(amount=1), roll(1, (5, 9)), oracle(15))
    assert found("ironsworn", *items) == []
    assert tracks(stream("ironsworn", *items))["combatants"]["Kira"]["conditions"] == ["dying"]


def test_wounded_marked_after_a_miss_at_zero_health_leaves_nothing_owed() -> None:
    items = (kira(iron=1, health=1, momentum=5), harm(amount=3), roll(1, (5, 9)))
    assert found("ironsworn", *items, debility("wounded")) == []
    kira_now = tracks(stream("ironsworn", *items, debility("wounded")))["combatants"]["Kira"]
    assert (kira_now["health"], kira_now["momentum"], kira_now["debilities"]) == (0, 2, ["wounded"])


def test_a_reminder_is_worded_as_the_end_state_has_it() -> None:
    items = (kira(iron=1, health=1, debilities=["wounded"]), harm(amount=3), roll(1, (5, 9)))
    (reminder,) = audit(stream("ironsworn", *items))
    assert "'Kira' must mark maimed or roll the Endure Harm oracle" in reminder.message
    # Shaken does not meet the miss; wounded cleared is free to mark again.
    later = (debility("shaken"), debility("wounded", "debility.cleared"))
    (reminder,) = audit(stream("ironsworn", *items, *later))
    assert (reminder.rule, reminder.seq) == ("obligation-open", (4,))
    assert "'Kira' must mark wounded or maimed or roll" in reminder.message


def burned_miss() -> tuple[dict[str, Any], ...]:
    """Kira at 0 health misses (score 2 vs 3, 9) holding momentum 5, then burns it at seq 5."""
    return (kira(iron=1, health=1, momentum=7), harm(amount=3), roll(1, (3, 9)), burn(4))


def test_a_miss_burned_into_a_weak_hit_owes_nothing_and_the_tracks_agree() -> None:
    records = stream("ironsworn", *burned_miss())
    assert found("ironsworn", *burned_miss()) == []
    view = tracks(records)
    assert [(r["seq"], r["outcome"], r["burned"]) for r in view["rolls"]] == [(4, "weak_hit", True)]
    assert view["combatants"]["Kira"]["momentum"] == 2


def test_the_oracle_after_a_burn_that_met_the_miss_is_only_not_owed() -> None:
    assert found("ironsworn", *burned_miss(), oracle(42)) == [("oracle-not-owed", "warning", (6,))]


def test_a_burn_that_leaves_the_miss_a_miss_still_owes_it() -> None:
    # Momentum 3 at the roll cancels no die of 5, 9: still a miss at 0 health.
    items = (kira(iron=1, health=1, momentum=5), harm(amount=3), roll(1, (5, 9)), burn(4))
    assert found("ironsworn", *items) == [
        ("obligation-open", "info", (4,)),
        ("momentum-burn-allowed", "warning", (4, 5)),
    ]
    assert found("ironsworn", *items, oracle(60)) == [("momentum-burn-allowed", "warning", (4, 5))]


def run(db: Path, *args: str) -> str:
    result = runner.invoke(cli.app, ["--db", str(db), *args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_the_burn_says_the_roll_is_now_a_weak_hit_and_replay_agrees(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    run(db, "new", "ford", "--system", "ironsworn")
    run(db, "add", "ford", "Kira", "--side", "player", "--stat", "iron=1", "--stat", "health=1")
    run(db, "record", "ford", "meter.changed", "target=Kira", "meter=momentum", "amount=5")
    run(db, "endure-harm", "ford", "Kira", "--amount", "3")
    run(db, "action-roll", "ford", "Kira", "--stat", "iron", "--die", "1", "--challenge", "3,9")
    line = "Kira burns momentum 5 on the roll at seq 5: miss -> weak hit: momentum 4 -> 2\n"
    assert run(db, "record", "ford", "momentum.burned", "target=Kira", "roll=5") == (
        f"Recorded seq 6: momentum.burned\n  {line}  Kira momentum: 4 -> 2\n"
    )
    replayed = run(db, "replay", "ford", "--from", "6")
    assert replayed == f"seq 6: {line}  Kira momentum: 4 -> 2\n"
    assert run(db, "audit", "ford") == "ford: no findings.\n"


# Fate's Edge: a new attack owes its SB before its roll; a puzzle owes its Resolution.


def test_an_attack_owing_its_sb_is_reminded_until_the_sb_is_spent() -> None:
    attack = lock("d", kind="defense", source="sb_attack", dv=3, consequence="a cut")
    (reminder,) = audit(fe(ASH, BLADE, *BANK, attack))
    assert (reminder.rule, reminder.severity, reminder.seq) == ("obligation-open", "info", (6,))
    assert reminder.message == (
        "the new attack by 'Silken Blade' that stakes 'd' (seq 6) defend against needs 1 SB "
        "spent for it before its roll (0 paid so far)"
    )
    paid = (*BANK, attack, spend(1, "attack", stake="d"))
    assert audit(fe(ASH, BLADE, *paid)) == []
    assert audit(fe(ASH, BLADE, *paid, fe_roll("d", 7, 8, 9))) == []


def test_an_attack_rolled_without_its_sb_is_an_error_and_no_longer_a_reminder() -> None:
    attack = lock("d", kind="defense", source="sb_attack", dv=3, consequence="a cut")
    findings = audit(fe(ASH, BLADE, *BANK, attack, fe_roll("d", 7, 8, 9)))
    assert [(f.rule, f.severity, f.seq) for f in findings] == [
        ("npc-attack-needs-sb", "error", (6, 7))
    ]


def test_a_hit_puzzle_is_reminded_of_its_resolution_until_it_is_resolved() -> None:
    riddle = adversary("Riddle", resilience=None, resolution="answer the riddle")
    struck = {"type": "hit.resolved", "target": "Riddle", "harm": 2}
    findings = audit(fe(ASH, BLADE, riddle, struck))
    assert [(f.rule, f.severity, f.seq) for f in findings] == [
        ("hit-without-success", "warning", (5,)),
        ("obligation-open", "info", (5,)),
    ]
    assert findings[1].message == (
        "the hit at seq 5 on puzzle adversary 'Riddle' changes no track; it still requires its "
        "stated Resolution: answer the riddle (record combatant.left with manner 'resolved' once "
        "it is met)"
    )
    resolved = {"type": "combatant.left", "name": "Riddle", "manner": "resolved"}
    assert [f.rule for f in audit(fe(ASH, BLADE, riddle, struck, resolved))] == [
        "hit-without-success"
    ]


def test_an_sb_spent_for_an_attack_naming_no_stake_pays_the_one_owing_it() -> None:
    attack = lock("d", kind="defense", source="sb_attack", dv=3, consequence="a cut")
    items = (*BANK, attack, spend(1, "attack"), fe_roll("d", 7, 8, 9))
    assert audit(fe(ASH, BLADE, *items)) == []


def test_a_player_defense_against_an_unpaid_attack_says_how_a_consequence_is_framed() -> None:
    parry = lock("p", kind="defense", dv=3, consequence="a cut")
    (reminder,) = audit(fe(ASH, BLADE, parry))
    assert reminder.message == (
        "the new attack by 'Silken Blade' that stakes 'p' (seq 4) defend against needs 1 SB "
        "spent for it before its roll (0 paid so far); if it is the consequence of a failed "
        "response, lock it with source consequence"
    )


def test_undoing_the_oracle_roll_that_met_a_miss_reminds_of_it_again(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    run(db, "new", "ford", "--system", "ironsworn")
    run(db, "add", "ford", "Kira", "--side", "player", "--stat", "iron=1", "--stat", "health=1")
    run(db, "endure-harm", "ford", "Kira", "--amount", "3")
    run(db, "action-roll", "ford", "Kira", "--stat", "iron", "--die", "1", "--challenge", "5,9")
    run(db, "oracle", "ford", "Kira", "--roll", "60")
    assert run(db, "audit", "ford") == "ford: no findings.\n"
    undone = run(db, "undo", "ford", "--reason", "the oracle was for someone else")
    assert (
        "info [obligation-open] seq 4: Endure Harm miss at 0 health at seq 4: 'Kira' must "
        "mark wounded or maimed or roll the Endure Harm oracle\n"
    ) in undone


# Every system's open obligations through one door (#24): `obligation-open` reminders.


def l5r(*items: dict[str, Any]) -> list[Any]:
    rings = {"air": 2, "earth": 2, "fire": 2, "water": 2, "void": 2}
    akodo = {
        "type": "combatant.joined",
        "name": "Akodo",
        "side": "player",
        "stats": {"rings": rings},
    }
    return stream("l5r", akodo, *items)


def dealt(amount: int, **fields: Any) -> dict[str, Any]:
    return {"type": "damage.dealt", "target": "Akodo", "amount": amount, **fields}


def test_an_l5r_critical_strike_still_due_at_the_end_is_reminded_until_resolved() -> None:
    due = (dealt(9), dealt(2, deadliness=5))  # fatigue 9 > endurance 8: then a critical
    (reminder,) = audit(l5r(*due))
    assert (reminder.rule, reminder.severity, reminder.seq) == ("obligation-open", "info", (4,))
    assert reminder.message == (
        "the critical strike on 'Akodo' from the damage at seq 4 (deadliness 5) is still due: "
        "record the severity it ends at (critical.resolved target=Akodo severity=N damage=4)"
    )
    resolved = {"type": "critical.resolved", "target": "Akodo", "severity": 5, "damage": 4}
    assert audit(l5r(*due, resolved)) == []
    # Play that went on without it is the error's to say, once: no reminder beside it.
    went_on = audit(l5r(*due, {"type": "scene.ended"}))
    assert [(f.rule, f.severity, f.seq) for f in went_on] == [
        ("defend-while-incapacitated", "error", (4, 5))
    ]


def test_a_fates_edge_consequence_never_charged_is_reminded_until_charged() -> None:
    parry = lock("p", kind="defense", source="consequence", dv=3, consequence_harm=2)
    items = (ASH, BLADE, parry, fe_roll("p", 2, 3))
    (reminder,) = audit(fe(*items))
    assert (reminder.rule, reminder.seq) == ("obligation-open", (4, 5))
    assert reminder.message == (
        "'Ash' missed 'p' at seq 5, and its announced consequence, Harm 2, is not charged yet: "
        "record it (harm.suffered target=Ash stake=p harm=2), or undo what was announced"
    )
    charged = {"type": "harm.suffered", "target": "Ash", "stake": "p", "harm": 2}
    assert audit(fe(*items, charged)) == []


def test_a_defeat_whose_manner_is_not_recorded_is_reminded_until_it_is() -> None:
    thug = {"type": "combatant.joined", "name": "Thug", "side": "adversary", "stats": {"level": 0}}
    struck = {"type": "harm.inflicted", "target": "Thug", "level": 2}
    assert found("ssss", thug, struck) == [
        ("slot-placement", "info", (3,)),
        ("obligation-open", "info", (3,)),
    ]
    left = {"type": "combatant.left", "name": "Thug", "manner": "fled"}
    assert found("ssss", thug, struck, left) == [("slot-placement", "info", (3,))]
    # The GM's own override says how it stands: nothing is owed.
    stood = {"type": "track.adjusted", "target": "Thug", "track": "status", "value": "active",
             "reason": "only winded"}  # fmt: skip
    assert ("obligation-open", "info", (3,)) not in found("ssss", thug, struck, stood)


def test_every_system_s_reminders_are_one_rule_read_off_the_end_state() -> None:
    states = {
        "ironsworn": (kira(iron=1, health=1), harm(amount=3), roll(1, (5, 9))),
        "fates-edge": (ASH, BLADE, lock("p", kind="defense", dv=3, consequence_harm=2)),
    }
    for system, items in states.items():
        records = stream(system, *items)
        reminders = [f for f in audit(records) if f.severity == "info"]
        assert reminders and {f.rule for f in reminders} == {"obligation-open"}
        end = core.fold(systems.ruleset(system), records)
        owed = [o.reminder() for o in audit_rules.owed(systems.ruleset(system), end)]
        assert owed == reminders


def test_one_mistake_is_one_finding_the_refining_rule_s_and_only_on_the_same_seqs() -> None:
    said = [error("hit-without-success", (1, 2), "a"), error("defense-avoids-hit", (1, 2), "b")]
    refines = {"defense-avoids-hit": frozenset({"hit-without-success"})}
    assert audit_rules.one_per_mistake(said, refines) == [said[1]]
    apart = [error("hit-without-success", (3,), "a"), said[1]]
    assert audit_rules.one_per_mistake(apart, refines) == apart
    assert audit_rules.one_per_mistake(said, {}) == said
