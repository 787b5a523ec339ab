"""L5R 5e Unconscious (NOTES.md 4.2 and 5.4, house defaults): a critical strike on an
Incapacitated character leaves it Unconscious; a critical strike on an Unconscious one is 10
more severe (`unconscious_severity`); Unconscious ends with Incapacitated, or only by the GM
(`unconscious_ends`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ledger import systems
from projections import core
from tests.cli.invoke import ok, run
from tests.streams import audit, override, rules_hit, stream
from tests.systems.l5r.test_fold import crit, damage, joined, of


def knocked_out(*more: dict[str, Any], rules: dict[str, Any] | None = None) -> Any:
    """Akodo (endurance 8) defends to fatigue 9 (seq 3), then takes a critical strike while
    Incapacitated (seq 4, deadliness 5) resolved at 3 (seq 5): Unconscious from seq 4."""
    return stream("l5r", joined(), damage(9), damage(2, deadliness=5), crit(3), *more, rules=rules)


def adjusted(track: str, value: Any) -> dict[str, Any]:
    """A GM override of one of Akodo's tracks."""
    return override("Akodo", track, value)


# The fold.


def test_a_critical_strike_on_an_incapacitated_character_leaves_it_unconscious() -> None:
    records = stream("l5r", joined(), damage(9), damage(2, deadliness=5))
    view = of(records)
    assert (view["incapacitated"], view["unconscious"]) == (True, True)
    assert view["criticals"] == [
        {"seq": 4, "severity": 5, "cause": "incapacitated", "resolved": None}
    ]


def test_the_hit_that_incapacitates_and_a_standing_characters_critical_leave_it_awake() -> None:
    assert of(stream("l5r", joined(), damage(9)))["unconscious"] is False
    chosen = stream("l5r", joined(), damage(3, deadliness=5, voluntary_critical=True))
    unaware = stream("l5r", joined(), damage(3, deadliness=5, can_defend=False))
    assert of(chosen)["unconscious"] is False
    assert of(unaware)["unconscious"] is False


def test_a_direct_critical_strike_on_an_incapacitated_character_leaves_it_unconscious() -> None:
    records = stream("l5r", joined(), damage(9), crit(4))
    assert of(records)["unconscious"] is True
    assert of(stream("l5r", joined(), crit(4)))["unconscious"] is False


def test_unconscious_ends_with_incapacitated_by_default() -> None:
    recovered = knocked_out({"type": "fatigue.removed", "target": "Akodo", "amount": 1})
    assert (of(recovered)["incapacitated"], of(recovered)["unconscious"]) == (False, False)
    partly = knocked_out({"type": "fatigue.removed", "target": "Akodo", "amount": 0})
    assert of(partly)["unconscious"] is True
    assert of(knocked_out({"type": "scene.ended"}))["unconscious"] is False
    assert of(knocked_out({"type": "rest.taken", "target": "Akodo"}))["unconscious"] is False
    assert of(knocked_out(adjusted("fatigue", 2)))["unconscious"] is False


def test_the_house_rule_can_leave_ending_unconscious_to_the_gm() -> None:
    gm = {"unconscious_ends": "gm"}
    rested = knocked_out({"type": "scene.ended"}, rules=gm)
    assert (of(rested)["incapacitated"], of(rested)["unconscious"]) == (False, True)
    woken = knocked_out({"type": "scene.ended"}, adjusted("unconscious", False), rules=gm)
    assert of(woken)["unconscious"] is False


def test_a_gm_override_can_knock_a_character_out_or_wake_it() -> None:
    assert of(stream("l5r", joined(), adjusted("unconscious", True)))["unconscious"] is True
    assert of(knocked_out(adjusted("unconscious", False)))["unconscious"] is False


def test_a_gm_knock_out_of_a_standing_character_lasts_until_the_gm_wakes_it() -> None:
    # Unconscious ends with Incapacitated: it cannot end with an Incapacitated that never
    # began. A character the GM knocked out at fatigue 0 stays out through recovery, rest
    # and the scene's end, and comes round at the GM's word.
    out = stream(
        "l5r",
        joined(),
        adjusted("unconscious", True),
        {"type": "fatigue.removed", "target": "Akodo", "amount": 1},
        {"type": "rest.taken", "target": "Akodo"},
        {"type": "scene.ended"},
        adjusted("fatigue", 2),
    )
    assert (of(out)["fatigue"], of(out)["unconscious"]) == (2, True)
    woken = stream("l5r", joined(), adjusted("unconscious", True), adjusted("unconscious", False))
    assert of(woken)["unconscious"] is False


def test_an_unconscious_character_no_longer_incapacitated_still_cannot_defend() -> None:
    # Under `unconscious_ends = gm` a scene's end leaves Akodo Unconscious at fatigue 4 (not
    # Incapacitated); a GM's override can knock out a standing one. Either way they cannot
    # defend: damage is a critical strike at the deadliness, and no fatigue is suffered.
    gm = {"unconscious_ends": "gm"}
    rested = of(knocked_out({"type": "scene.ended"}, damage(2, deadliness=15), rules=gm))
    assert (rested["fatigue"], rested["incapacitated"], rested["unconscious"]) == (4, False, True)
    assert rested["criticals"][-1] == {
        "seq": 7,
        "severity": 15,
        "cause": "unconscious",
        "resolved": None,
    }
    out = of(stream("l5r", joined(), adjusted("unconscious", True), damage(3, deadliness=5)))
    assert (out["fatigue"], out["criticals"][-1]["cause"]) == (0, "unconscious")


def test_an_unconscious_character_cannot_choose_a_critical_nor_skip_its_resolution() -> None:
    out = joined(), adjusted("unconscious", True)
    chosen = audit(stream("l5r", *out, damage(3, deadliness=15, voluntary_critical=True)))
    (refused,) = [f for f in chosen if f.rule == "void-critical-not-allowed"]
    assert refused.seq == (4,)
    assert "chose a voluntary critical strike at seq 4 while Unconscious" in refused.message
    assert "an Unconscious character cannot defend) and no Void point is spent" in (refused.message)
    skipped = audit(stream("l5r", *out, damage(3, deadliness=15), damage(1, deadliness=15)))
    (left,) = [f for f in skipped if f.rule == "defend-while-incapacitated"]
    assert (left.severity, left.seq) == ("error", (4, 5))
    assert "it hit 'Akodo' while Unconscious, so it was a critical strike at severity 15" in (
        left.message
    )


# The audit: `critical-unconscious`.


def test_a_critical_on_an_unconscious_target_without_the_10_is_a_warning() -> None:
    records = knocked_out(damage(2, deadliness=5), crit(4, damage=6))
    (finding,) = audit(records)
    assert (finding.rule, finding.severity, finding.seq) == (
        "critical-unconscious",
        "warning",
        (4, 6),
    )
    assert finding.message == (
        "damage at seq 6 is a critical strike on 'Akodo', Unconscious since seq 4, at severity 5 "
        "(the recorded deadliness); a critical strike on an Unconscious character is 10 more "
        "severe (house rule unconscious_severity), so the rules give severity 15 before the "
        "Fitness check: recorded as played: severity 5 (record deadliness=15)"
    )


def test_a_critical_on_an_unconscious_target_with_the_10_keeps_the_rule() -> None:
    records = knocked_out(damage(2, deadliness=15), crit(13, fitness_successes=2))
    assert rules_hit(records) == []


def test_the_critical_that_knocks_a_character_out_needs_no_10() -> None:
    assert rules_hit(knocked_out()) == []


def test_a_house_modifier_of_0_asks_for_nothing_and_another_for_its_own_amount() -> None:
    assert rules_hit(knocked_out(damage(2, deadliness=5), rules={"unconscious_severity": 0})) == []
    five = {"unconscious_severity": 5}
    assert rules_hit(knocked_out(damage(2, deadliness=5), rules=five)) == []
    (finding,) = [
        f for f in audit(knocked_out(damage(2, deadliness=3), rules=five)) if f.severity != "info"
    ]
    assert (finding.rule, finding.seq) == ("critical-unconscious", (4, 6))
    assert "5 more severe" in finding.message
    assert "the rules give severity 8" in finding.message


def test_a_direct_critical_on_an_unconscious_target_its_fitness_does_not_explain() -> None:
    (finding,) = [
        f
        for f in audit(knocked_out(crit(3, fitness_successes=2)))
        if f.rule != "critical-without-damage"
    ]
    assert (finding.rule, finding.severity, finding.seq) == (
        "critical-unconscious",
        "warning",
        (4, 6),
    )
    assert finding.message == (
        "seq 6 resolves a direct critical strike on 'Akodo', Unconscious since seq 4, at "
        "severity 3 after 2 Fitness successes; a critical strike on an Unconscious character is "
        "10 more severe (house rule unconscious_severity), so it begins at 10 or more and 2 "
        "Fitness successes leave at least 8: recorded as played: severity 3"
    )
    # Without the successes, a low severity may be a good Fitness check: nothing to say.
    assert rules_hit(knocked_out(crit(3))) == []
    assert rules_hit(knocked_out(crit(9, fitness_successes=2))) == []


def test_an_opening_written_before_unconscious_pins_no_10() -> None:
    # Version 0.2 tracked no Unconscious and asked for no +10: its tables keep playing so.
    old = {"incapacitation_comparison": ">", "void_points_start": "half_rounded_up"}
    read = core.played_by(systems.ruleset("l5r"), old)
    assert read == {**old, "unconscious_severity": 0, "unconscious_ends": "incapacitated"}
    records = knocked_out(damage(2, deadliness=5), rules=old)
    assert rules_hit(records) == []
    assert of(records)["unconscious"] is True


# The command line.


RINGS = 'rings={"air": 2, "earth": 2, "fire": 2, "water": 3, "void": 3}'


def duel(db: Path, *rules: str) -> Path:
    ok(db, "new", "duel", "--system", "l5r", *rules)
    ok(db, "add", "duel", "Akodo", "--side", "player", "--stat", RINGS)
    ok(db, "damage", "duel", "Akodo", "9")
    return db


def housed(tmp_path: Path, rules: str) -> Path:
    """A duel opened with the house rules `rules` (JSON), Akodo knocked out at seq 4 (a
    critical strike while Incapacitated), resolved at severity 3 (seq 5)."""
    house = tmp_path / "house.json"
    house.write_text(rules, encoding="utf-8")
    db = duel(tmp_path / "e.db", "--rules", str(house))
    ok(db, "damage", "duel", "Akodo", "2", "--deadliness", "5")
    ok(db, "critical", "duel", "Akodo", "3")
    return db


def test_a_whole_stream_through_the_command_line(tmp_path: Path) -> None:
    db = duel(tmp_path / "e.db")
    out = ok(db, "damage", "duel", "Akodo", "2", "--deadliness", "5", "--weapon", "katana")
    assert out == (
        "Recorded seq 4: damage.dealt\n"
        "  Akodo takes 2 physical damage from katana; Akodo is Incapacitated and cannot defend: "
        "a critical strike at severity 5 (the deadliness), to be resolved; Akodo falls "
        "Unconscious\n"
        "  Akodo unconscious: no -> yes\n"
        "  Akodo criticals: - -> @4: 5 (due)\n"
        "info [obligation-open] seq 4: the critical strike on 'Akodo' from the damage at seq 4 "
        "(deadliness 5) is still due: record the severity it ends at (critical.resolved "
        "target=Akodo severity=N damage=4)\n"
    )
    ok(db, "critical", "duel", "Akodo", "3", "--fitness", "2")
    out = ok(db, "damage", "duel", "Akodo", "2", "--deadliness", "5")
    assert "Akodo is Unconscious and cannot defend" in out
    assert "severity 5 (the deadliness; Unconscious adds 10: the rules give 15)" in out
    view = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]
    assert (view["incapacitated"], view["unconscious"]) == (True, True)
    table = ok(db, "tracks", "duel")
    assert "unconscious" in table
    code, out, _ = run(db, "audit", "duel", "--json")
    assert code == 0  # warnings only
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["seq"]) for f in findings if f["severity"] == "warning"] == [
        ("critical-unconscious", [4, 6])
    ]
    ok(db, "critical", "duel", "Akodo", "5", "--damage-seq", "6")
    out = ok(db, "record", "duel", "scene.ended")
    assert "no longer Unconscious" in out
    view = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]
    assert (view["incapacitated"], view["unconscious"]) == (False, False)
    told = ok(db, "replay", "duel")
    assert "to be resolved; Akodo falls Unconscious" in told
    assert "no longer Incapacitated, no longer Unconscious" in told


def test_an_unconscious_character_cannot_defend_through_the_command_line(tmp_path: Path) -> None:
    db = housed(tmp_path, '{"unconscious_ends": "gm"}')
    ok(db, "end-scene", "duel")
    out = ok(db, "damage", "duel", "Akodo", "2", "--deadliness", "15")
    assert "Akodo is Unconscious and cannot defend: a critical strike at severity 15" in out
    view = json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]
    assert (view["fatigue"], view["incapacitated"], view["unconscious"]) == (4, False, True)


def test_the_rules_override_is_pinned_in_the_opening_and_followed(tmp_path: Path) -> None:
    db = housed(tmp_path, '{"unconscious_severity": 0, "unconscious_ends": "gm"}')
    ok(db, "damage", "duel", "Akodo", "2", "--deadliness", "5")
    ok(db, "critical", "duel", "Akodo", "4")
    ok(db, "record", "duel", "scene.ended")
    opened = json.loads(ok(db, "log", "duel", "--json").splitlines()[0])
    assert (opened["rules"]["unconscious_severity"], opened["rules"]["unconscious_ends"]) == (
        0,
        "gm",
    )
    code, out, _ = run(db, "audit", "duel", "--json")
    assert code == 0
    assert [f for f in json.loads(out)["findings"] if f["severity"] != "info"] == []
    assert json.loads(ok(db, "tracks", "duel", "--json"))["combatants"]["Akodo"]["unconscious"]


def test_a_bad_house_rule_is_refused_naming_it(tmp_path: Path) -> None:
    house = tmp_path / "house.json"
    house.write_text('{"unconscious_severity": -1}', encoding="utf-8")
    code, out, err = run(tmp_path / "e.db", "new", "duel", "--system", "l5r", "--rules", str(house))
    assert (code, out) == (2, "")
    assert "unconscious_severity" in err
    assert "Traceback" not in err


def test_a_new_table_missing_the_rules_takes_todays_defaults_and_a_stored_one_its_own(
    tmp_path: Path,
) -> None:
    """DESIGN 4: keys missing when an opening is imported are filled from the system's
    defaults; only a copy of a stored opening (its hash given) reads as it was played."""
    db = tmp_path / "e.db"
    partial = tmp_path / "partial.jsonl"
    line = {
        "type": "encounter.opened",
        "system": "l5r",
        "rules": {"incapacitation_comparison": ">"},
    }
    partial.write_text(json.dumps(line) + "\n", encoding="utf-8")
    ok(db, "import", str(partial), "--into", "fresh")
    house = tmp_path / "house.json"
    house.write_text('{"incapacitation_comparison": ">="}', encoding="utf-8")
    ok(db, "new", "given", "--system", "l5r", "--rules", str(house))
    for name in ("fresh", "given"):
        stored = json.loads(ok(db, "export", name).splitlines()[0])["rules"]
        assert (stored["unconscious_severity"], stored["unconscious_ends"]) == (10, "incapacitated")
