"""L5R 5e audit rules, the duel example, and invariants of the fold over random streams."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger import events
from projections import core
from projections import replay as steps
from projections.l5r import events as l5r_events
from tests import paths
from tests.streams import RULESETS, audit, fold, rules_hit, stream, tracks
from tests.systems.l5r.test_fold import RINGS, crit, damage, joined, of

EXAMPLES = paths.EXAMPLES


def load(name: str) -> list[events.Recorded]:
    """An example encounter as a stored stream."""
    lines = [json.loads(line) for line in (EXAMPLES / name).read_text().splitlines() if line]
    opened = lines[0]
    assert opened["type"] == "encounter.opened"
    return stream(opened["system"], *lines[1:], rules=opened.get("rules"))


# defend-while-incapacitated: a critical strike from a hit on an Incapacitated character must be
# resolved before the next damage to them (or the scene end); otherwise play treated it as defended.


def test_the_next_damage_before_a_due_critical_is_resolved_is_flagged() -> None:
    records = stream("l5r", joined(), damage(9), damage(2, deadliness=5), damage(2, deadliness=5))
    # Seq 4 knocked Akodo out: seq 5's deadliness misses the house +10 (`critical-unconscious`).
    assert rules_hit(records) == [
        ("defend-while-incapacitated", (4, 5)),
        ("critical-unconscious", (4, 5)),
    ]
    finding, _, reminder = audit(records)
    # The critical strike of seq 5 is the one still due now (#24); seq 4's is the error's.
    assert (reminder.rule, reminder.seq) == ("obligation-open", (5,))
    assert finding.severity == "error"
    assert "damage at seq 4: it hit 'Akodo' while Incapacitated" in finding.message
    assert finding.message.endswith("(record its critical.resolved with damage=4)")
    assert "critical strike at severity 5" in finding.message


def test_a_critical_on_one_who_cannot_defend_left_unresolved_is_flagged_like_a_due_one() -> None:
    records = stream(
        "l5r", joined(), damage(3, deadliness=5, can_defend=False), damage(2, deadliness=5)
    )
    assert rules_hit(records) == [("defend-while-incapacitated", (3, 4))]
    assert "it hit 'Akodo', who could not defend, so it was a critical strike at severity 5" in (
        audit(records)[0].message
    )


def test_resolving_the_critical_before_the_next_damage_keeps_the_rule() -> None:
    records = stream(
        "l5r", joined(), damage(9), damage(2, deadliness=5), crit(3), damage(2, deadliness=15)
    )
    assert rules_hit(records) == []


def test_a_scene_ending_before_a_due_critical_is_resolved_is_flagged() -> None:
    records = stream("l5r", joined(), damage(9), damage(2, deadliness=5), {"type": "scene.ended"})
    assert rules_hit(records) == [("defend-while-incapacitated", (4, 5))]


def test_each_unresolved_critical_is_flagged_once() -> None:
    records = stream(
        "l5r",
        joined(),
        damage(9),
        damage(2, deadliness=5),
        damage(2, deadliness=5),
        damage(2, deadliness=5),
    )
    assert rules_hit(records) == [
        ("defend-while-incapacitated", (4, 5)),
        ("critical-unconscious", (4, 5)),
        ("defend-while-incapacitated", (5, 6)),
        ("critical-unconscious", (4, 6)),
    ]


def test_damage_to_someone_else_does_not_need_the_critical_resolved_first() -> None:
    records = stream(
        "l5r",
        joined(),
        joined("Bayushi", "adversary"),
        damage(9),
        damage(2, deadliness=5),
        damage(3, target="Bayushi"),
        crit(2),
    )
    assert rules_hit(records) == []


def test_a_voluntary_critical_left_unresolved_through_more_damage_is_flagged_like_a_due_one() -> (
    None
):
    voluntary = damage(3, deadliness=5, voluntary_critical=True)
    records = stream("l5r", joined(), voluntary, damage(2), {"type": "scene.ended"})
    assert rules_hit(records) == [("defend-while-incapacitated", (3, 4))]
    assert audit(records)[0].message == (
        "damage at seq 3: 'Akodo' chose to take it as a voluntary critical strike at severity 5 "
        "instead of defending, but the next damage at seq 4 came before any critical.resolved "
        "for it: play went on as if it was defended (record its critical.resolved with damage=3)"
    )


def test_a_voluntary_critical_left_unresolved_at_the_scene_end_is_flagged() -> None:
    voluntary = damage(3, deadliness=5, voluntary_critical=True)
    records = stream("l5r", joined(), voluntary, {"type": "scene.ended"})
    assert rules_hit(records) == [("defend-while-incapacitated", (3, 4))]


def test_a_voluntary_critical_resolved_before_more_damage_keeps_the_rule() -> None:
    voluntary = damage(3, deadliness=5, voluntary_critical=True)
    records = stream("l5r", joined(), voluntary, crit(4), damage(2), {"type": "scene.ended"})
    assert rules_hit(records) == []


# void-critical-not-allowed.


def test_a_voluntary_critical_while_incapacitated_is_flagged_and_spends_the_point_as_played() -> (
    None
):
    records = stream(
        "l5r", joined(), damage(9), damage(2, deadliness=5, voluntary_critical=True), crit(5)
    )
    assert rules_hit(records) == [("void-critical-not-allowed", (4,))]
    view = of(records)
    assert view["void_points"] == 1
    assert [c["cause"] for c in view["criticals"]] == ["incapacitated"]
    (finding,) = audit(records)
    assert finding.message == (
        "'Akodo' chose a voluntary critical strike at seq 4 while Incapacitated: fatigue 9 over "
        "endurance 8; only a character who is not Incapacitated may spend 1 Void point to take "
        "one: by the rules it is a critical strike anyway (an Incapacitated character cannot "
        "defend) and no Void point is spent: Void points stay 2; recorded as played: a critical "
        "strike at severity 5, Void points 2 -> 1"
    )


def test_a_voluntary_critical_with_no_void_points_is_flagged_and_void_stays_at_zero() -> None:
    records = stream("l5r", joined(void_points=0), damage(4, deadliness=5, voluntary_critical=True))
    assert rules_hit(records) == [("void-critical-not-allowed", (3,))]
    view = of(records)
    assert (view["void_points"], view["fatigue"]) == (0, 0)
    assert view["criticals"] == [{"seq": 3, "severity": 5, "cause": "void", "resolved": None}]
    assert "at seq 3 holding 0 Void points;" in audit(records)[0].message


def test_a_voluntary_critical_with_no_void_point_says_the_defence_the_rules_give() -> None:
    records = stream(
        "l5r",
        joined(void_points=0),
        damage(2),
        damage(7, deadliness=5, voluntary_critical=True),
    )
    finding, reminder = audit(records)
    assert (reminder.rule, reminder.seq) == ("obligation-open", (4,))
    assert finding.message.endswith(
        "by the rules they defend: fatigue 2 -> 9, and they are Incapacitated: fatigue 9 over "
        "endurance 8; recorded as played: a critical strike at severity 5"
    )
    assert (of(records)["fatigue"], of(records)["incapacitated"]) == (2, False)


def test_a_voluntary_critical_with_a_void_point_while_standing_keeps_the_rule() -> None:
    records = stream("l5r", joined(void_points=1), damage(4, deadliness=5, voluntary_critical=True))
    assert rules_hit(records) == []
    assert of(records)["void_points"] == 0


# The ruleset's other findings.


def test_spending_more_void_points_than_held_is_flagged() -> None:
    spend = {"type": "void.spent", "target": "Akodo", "amount": 3}
    records = stream("l5r", joined(), spend)
    assert rules_hit(records) == [("void-overspent", (3,))]
    assert of(records)["void_points"] == 0


def test_spending_void_points_that_are_held_keeps_the_rule() -> None:
    spend = {"type": "void.spent", "target": "Akodo", "amount": 2}
    assert rules_hit(stream("l5r", joined(), spend)) == []


def test_a_critical_resolved_with_none_pending_is_an_informational_finding() -> None:
    (finding,) = audit(stream("l5r", joined(), crit(6)))
    assert (finding.rule, finding.severity) == ("critical-without-damage", "info")
    assert finding.seq == (3,)


# critical-severity-raised: severity is based on the damage source (its deadliness); a Fitness
# check lowers it. Resolving the wrong pending critical is how a raise usually happens.

TWO_PENDING = [joined(), damage(9), damage(2, deadliness=6), damage(2, deadliness=4)]


def test_resolving_a_critical_above_its_deadliness_is_a_warning() -> None:
    records = stream("l5r", *TWO_PENDING, crit(6), crit(6))
    assert rules_hit(records) == [
        ("defend-while-incapacitated", (4, 5)),
        ("critical-unconscious", (4, 5)),
        ("critical-severity-raised", (5, 7)),
    ]
    raised = [f for f in audit(records) if f.rule == "critical-severity-raised"]
    assert [(f.severity, f.message) for f in raised] == [
        (
            "warning",
            "seq 7 resolves the critical strike from damage seq 5 on 'Akodo' at severity 6, "
            "above the source's deadliness 4; severity is based on the damage source and a "
            "Fitness check lowers it (name the damage it resolves with damage=SEQ)",
        )
    ]


def test_resolving_the_named_critical_above_its_deadliness_warns_without_the_damage_hint() -> None:
    records = stream("l5r", *TWO_PENDING, crit(6, damage=5))
    assert rules_hit(records) == [
        ("defend-while-incapacitated", (4, 5)),
        ("critical-unconscious", (4, 5)),
        ("critical-severity-raised", (5, 6)),
    ]
    raised = [f for f in audit(records) if f.rule == "critical-severity-raised"]
    assert [(f.severity, f.message) for f in raised] == [
        (
            "warning",
            "seq 6 resolves the critical strike from damage seq 5 on 'Akodo' at severity 6, "
            "above the source's deadliness 4; severity is based on the damage source and a "
            "Fitness check lowers it",
        )
    ]


def test_resolving_the_named_critical_at_or_below_its_deadliness_keeps_the_rule() -> None:
    records = stream("l5r", *TWO_PENDING, crit(4, damage=5), crit(3, damage=4))
    assert rules_hit(records) == [
        ("defend-while-incapacitated", (4, 5)),
        ("critical-unconscious", (4, 5)),
    ]


# critical-fitness: the Fitness check (TN 1) lowers the severity by its successes, to a
# minimum of 0; a recorded `fitness_successes` that does not account for the severity recorded
# with it is a sheet that contradicts itself.


def test_a_severity_the_fitness_successes_do_not_account_for_is_a_warning() -> None:
    records = stream(
        "l5r",
        joined(),
        damage(3, deadliness=5, voluntary_critical=True),
        crit(5, fitness_successes=2),
    )
    assert rules_hit(records) == [("critical-fitness", (3, 4))]
    (finding,) = [f for f in audit(records) if f.rule == "critical-fitness"]
    assert (finding.severity, finding.message) == (
        "warning",
        "seq 4 resolves the critical strike from damage seq 3 on 'Akodo' at severity 5 after "
        "2 Fitness successes; the Fitness check lowers the source's deadliness 5 by its "
        "successes, to severity 3: recorded as played: severity 5",
    )


def test_a_severity_lowered_past_the_fitness_successes_is_a_warning() -> None:
    records = stream(
        "l5r",
        joined(),
        damage(3, deadliness=5, voluntary_critical=True),
        crit(1, fitness_successes=1),
    )
    assert rules_hit(records) == [("critical-fitness", (3, 4))]


@pytest.mark.parametrize(("deadliness", "successes", "severity"), [(5, 2, 3), (5, 0, 5), (2, 3, 0)])
def test_a_severity_the_fitness_successes_account_for_keeps_the_rule(
    deadliness: int, successes: int, severity: int
) -> None:
    records = stream(
        "l5r",
        joined(),
        damage(3, deadliness=deadliness, voluntary_critical=True),
        crit(severity, fitness_successes=successes),
    )
    assert rules_hit(records) == []


def test_a_direct_critical_has_no_deadliness_to_exceed() -> None:
    assert rules_hit(stream("l5r", joined(), crit(12))) == []


def test_damage_after_a_character_left_is_flagged_by_the_common_rule() -> None:
    left = {"type": "combatant.left", "name": "Akodo", "manner": "fled"}
    assert rules_hit(stream("l5r", joined(), left, damage(2))) == [("event-after-defeat", (4,))]


def test_a_sheet_that_took_fatigue_for_a_critical_diverges_from_the_ledger() -> None:
    sheet = {"type": "tracks.noted", "target": "Akodo", "values": {"fatigue": 11}}
    records = stream("l5r", joined(), damage(9), damage(2, deadliness=5), sheet)
    assert rules_hit(records) == [("tracks-diverged", (5,))]


# The example duel.


def test_the_duel_example_folds_to_the_expected_tracks() -> None:
    records = load("l5r-duel.jsonl")
    view = tracks(records)["combatants"]
    toshiro, kaeru = view["Akodo Toshiro"], view["Bayushi Kaeru"]
    # Toshiro: 3 + 3 + 5 fatigue defended (11 > 10: Incapacitated), two criticals while down,
    # then the scene end (to 5) and a night's rest (-4).
    assert (toshiro["fatigue"], toshiro["endurance"], toshiro["incapacitated"]) == (1, 10, False)
    assert toshiro["status"] == "surrendered"
    assert toshiro["criticals"] == [
        {"seq": 12, "severity": 4, "cause": "incapacitated", "resolved": 13},
        {"seq": 14, "severity": 5, "cause": "incapacitated", "resolved": None},
    ]
    # Kaeru: 4 + 6 fatigue reaches endurance 10 without exceeding it; a Void critical instead
    # of defending the third blow; the scene end brings him to 5.
    assert (kaeru["fatigue"], kaeru["incapacitated"], kaeru["void_points"]) == (5, False, 1)
    assert kaeru["criticals"] == [{"seq": 9, "severity": 2, "cause": "void", "resolved": 10}]


def test_the_duel_example_reaches_endurance_without_incapacitating_then_exceeds_it() -> None:
    records = load("l5r-duel.jsonl")
    assert of(records[:8], "Bayushi Kaeru")["fatigue"] == 10
    assert of(records[:8], "Bayushi Kaeru")["incapacitated"] is False
    assert of(records[:11], "Akodo Toshiro")["fatigue"] == 11
    assert of(records[:11], "Akodo Toshiro")["incapacitated"] is True


def test_the_duel_example_leaves_a_critical_due_and_misses_the_unconscious_10() -> None:
    # Its opening pins no house rules, so today's defaults apply: the critical strike at seq 12
    # knocked Toshiro out, and Kaeru's katana at seq 14 is recorded at deadliness 5, not 15.
    assert rules_hit(load("l5r-duel.jsonl")) == [
        ("critical-unconscious", (12, 14)),
        ("defend-while-incapacitated", (14, 16)),
    ]


# Invariants over random streams.

HIT_KINDS = ["damage", "damage", "damage", "crit", "remove", "rest", "spend", "gain", "scene"]


@st.composite
def l5r_items(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A random stream for one character: every critical strike carries a deadliness."""
    endurance = draw(st.integers(1, 12))
    items: list[dict[str, Any]] = [joined(endurance=endurance, resistance={"physical": 1})]
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(HIT_KINDS))
        amount = draw(st.integers(0, 8))
        if kind == "damage":
            items.append(
                damage(
                    amount,
                    deadliness=draw(st.integers(0, 9)),
                    increases=draw(st.lists(st.integers(0, 3), max_size=2)),
                    reductions=draw(st.lists(st.integers(0, 3), max_size=2)),
                    voluntary_critical=draw(st.booleans()),
                )
            )
        elif kind == "crit":
            items.append(crit(amount))
        elif kind == "remove":
            items.append({"type": "fatigue.removed", "target": "Akodo", "amount": amount})
        elif kind == "rest":
            items.append({"type": "rest.taken", "target": "Akodo"})
        elif kind == "spend":
            items.append({"type": "void.spent", "target": "Akodo", "amount": amount + 1})
        elif kind == "gain":
            items.append({"type": "void.gained", "target": "Akodo", "amount": amount + 1})
        else:
            items.append({"type": "scene.ended"})
    return items


@given(l5r_items())
def test_fatigue_void_and_incapacitated_stay_consistent_after_every_event(
    items: list[dict[str, Any]],
) -> None:
    for step in steps.replay(RULESETS["l5r"], stream("l5r", *items)):
        akodo = step.state.view()["combatants"].get("Akodo")
        if akodo is None:
            continue
        assert akodo["fatigue"] >= 0
        assert akodo["incapacitated"] == (akodo["fatigue"] > akodo["endurance"])
        assert 0 <= akodo["void_points"] <= RINGS["void"]
        resolved = [c["resolved"] for c in akodo["criticals"] if c["resolved"] is not None]
        assert resolved == sorted(resolved)


@given(l5r_items())
def test_each_damage_adds_its_final_damage_as_fatigue_or_one_critical_never_both(
    items: list[dict[str, Any]],
) -> None:
    previous = None
    for step in steps.replay(RULESETS["l5r"], stream("l5r", *items)):
        now = step.state.view()["combatants"].get("Akodo")
        if step.record.type == "damage.dealt" and previous is not None and now is not None:
            event = step.record.event
            assert isinstance(event, l5r_events.DamageDealt)
            final = max(0, event.amount + sum(event.increases) - sum(event.reductions) - 1)
            took = now["fatigue"] - previous["fatigue"]
            crits = len(now["criticals"]) - len(previous["criticals"])
            if final == 0:
                assert (took, crits) == (0, 0)
            elif previous["incapacitated"]:
                assert (took, crits) == (0, 1)
            else:
                assert (took, crits) in ((final, 0), (0, 1))
        previous = now


@given(l5r_items(), st.data())
def test_folding_a_prefix_then_continuing_equals_folding_the_whole_stream(
    items: list[dict[str, Any]], data: st.DataObject
) -> None:
    records = stream("l5r", *items)
    cut = data.draw(st.integers(1, len(records)))
    folder = core.RunningFold(RULESETS["l5r"], fold(records, at=cut))
    for record in records[cut:]:
        folder.add(record)
    assert folder.state == fold(records)
