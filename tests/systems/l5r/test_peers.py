"""L5R 5e checked against other projects' own tests and rules code: each case is a situation a
peer project computes (named as repo@path beside it), written as an event stream and folded and
audited by the ledger. Where a peer agrees with l5r-damage.txt and NOTES.md section 4, the ledger
gives the same numbers; where it disagrees, the case pins our reading and names the peer's
choice. Cases the other modules of this folder already hold are not repeated here.

Yandalar/l5r5e-combat-helper has vitest tests (tests/**); DonHuberto/Nasze_L5R_FoundryVTT has
none, so its cases are the worked computations of its services.
"""

from __future__ import annotations

import pytest

from tests.streams import audit, refusal, rules_hit, stream
from tests.systems.l5r.test_fold import crit, damage, joined, of

# The Fitness check against a critical strike (TN 1): severity = deadliness - successes.


@pytest.mark.parametrize(("successes", "severity"), [(1, 4), (3, 2)])
def test_a_fitness_check_lowers_a_deadliness_5_critical_by_its_successes(
    successes: int, severity: int
) -> None:
    # Yandalar/l5r5e-combat-helper@tests/critical/critical-table.test.ts:
    # calculateCriticalSeverity(5, true, 0) is 4 and (5, true, 2) is 2: a success lowers it by
    # 1 plus the bonus successes, which at TN 1 is every success.
    records = stream(
        "l5r",
        joined(),
        damage(3, deadliness=5, voluntary_critical=True),
        crit(severity, fitness_successes=successes),
    )
    assert rules_hit(records) == []
    assert of(records)["criticals"][0]["severity"] == severity


def test_a_fitness_check_lowers_severity_to_0_not_to_1() -> None:
    # Yandalar/l5r5e-combat-helper@tests/critical/critical-table.test.ts: "never drops below
    # 1" (calculateCriticalSeverity(3, true, 10) is 1). NOTES 4.2 defaults the floor to 0, as
    # DonHuberto/Nasze_L5R_FoundryVTT@system/scripts/services/critical-service.js does
    # (Math.max(0, ...)): 11 successes take deadliness 3 to 0, and a severity of 1 recorded
    # with them is the peer's floor, which the audit warns about, naming 0.
    strike = damage(3, deadliness=3, voluntary_critical=True)
    assert rules_hit(stream("l5r", joined(), strike, crit(0, fitness_successes=11))) == []
    records = stream("l5r", joined(), strike, crit(1, fitness_successes=11))
    (finding,) = audit(records)
    assert (finding.rule, finding.severity, finding.seq) == ("critical-fitness", "warning", (3, 4))
    assert "to severity 0: recorded as played: severity 1" in finding.message


def test_a_deadliness_0_source_makes_a_severity_0_critical_on_either_path() -> None:
    # Yandalar/l5r5e-combat-helper@tests/critical/critical-table.test.ts:
    # calculateCriticalSeverity(0, false, 0) is 1; and
    # @tests/integration/combat-handler.test.ts ("BUG #7") has a deadliness-0 weapon give
    # severity 0 against an Incapacitated target but 5 on the Void path (a `|| 5` guard). The
    # rules text bases severity on the source: deadliness 0 waits at 0 whether the target was
    # Incapacitated (endurance 2, fatigue 5) or chose the critical with a Void point.
    down = stream("l5r", joined(endurance=2), damage(5), damage(3, deadliness=0))
    chosen = stream("l5r", joined(), damage(3, deadliness=0, voluntary_critical=True))
    assert [c["severity"] for c in of(down)["criticals"]] == [0]
    assert [c["severity"] for c in of(chosen)["criticals"]] == [0]
    raised = stream(
        "l5r", joined(), damage(3, deadliness=0, voluntary_critical=True), crit(1, damage=3)
    )
    assert rules_hit(raised) == [("critical-severity-raised", (3, 4))]


def test_severity_modifiers_ride_on_the_recorded_deadliness() -> None:
    # DonHuberto/Nasze_L5R_FoundryVTT@system/scripts/services/critical-service.js (prepare):
    # +10 against an Unconscious target, +2 for each Enraged side, before the Fitness check.
    # The table records the source's severity with them as `deadliness` (5 + 10 = 15), and 2
    # Fitness successes then leave 13. The ledger tracks Enraged not at all and Unconscious
    # from a critical strike on an Incapacitated character (resolve: `incapacitated` adds
    # `unconscious`): endurance 8, fatigue 9, a critical at seq 4, so seq 6 is on an
    # Unconscious target, and 15 is what the peer's prepare gives.
    records = stream(
        "l5r",
        joined(),
        damage(3, deadliness=15, voluntary_critical=True),
        crit(13, fitness_successes=2),
    )
    assert rules_hit(records) == []
    down = stream("l5r", joined(), damage(9), damage(2, deadliness=5), crit(3))
    assert of(down)["unconscious"] is True
    kept = stream(
        "l5r",
        joined(),
        damage(9),
        damage(2, deadliness=5),
        crit(3),
        damage(2, deadliness=15),
        crit(13, fitness_successes=2),
    )
    assert rules_hit(kept) == []
    missed = stream(
        "l5r",
        joined(),
        damage(9),
        damage(2, deadliness=5),
        crit(3),
        damage(2, deadliness=5),
        crit(3, fitness_successes=2),
    )
    assert rules_hit(missed) == [("critical-unconscious", (4, 6))]


# Resistance: "Resistance from armor and other effects ... is one way to reduce damage".


def test_supernatural_damage_meets_supernatural_resistance_not_physical() -> None:
    # Yandalar/l5r5e-combat-helper@tests/core/damage-calculator.test.ts: getArmorResistance
    # "ignores supernatural resistance" (armor physical 1, supernatural 9 reads as 1). The
    # rules text gives each instance a damage type; DonHuberto/Nasze_L5R_FoundryVTT@
    # system/scripts/services/damage-service.js picks `resistance[damageType]` as we do:
    # 5 supernatural damage against 9 glances off, 5 physical against 1 leaves 4 fatigue.
    armored = joined(resistance={"physical": 1, "supernatural": 9})
    assert of(stream("l5r", armored, damage(5, damage_type="supernatural")))["fatigue"] == 0
    assert of(stream("l5r", armored, damage(5)))["fatigue"] == 4


def test_a_negative_resistance_is_bad_input_and_an_increase_records_it() -> None:
    # Yandalar/l5r5e-combat-helper@tests/core/damage-calculator.test.ts ("PRE-EXISTING GAP"):
    # a resistance buff of -2 passes through and adds 2 damage. Resistance only reduces
    # damage; what raises it is an increase, applied before the reductions.
    assert "resistance.physical" in refusal("l5r", joined(resistance={"physical": -2}))
    records = stream("l5r", joined(resistance={"physical": 1}), damage(3, increases=[2]))
    assert of(records)["fatigue"] == 4


def test_endurance_is_twice_earth_plus_fire() -> None:
    # Yandalar/l5r5e-combat-helper@tests/core/actor-utils.test.ts ("KNOWN DIVERGENCE"): its
    # derived endurance is earth + fire, 5 for Earth 3, Fire 2; NOTES 4.2 and l5r5e give
    # (Earth + Fire) x 2 = 10.
    rings = {"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 2}
    assert of(stream("l5r", joined(rings=rings)))["endurance"] == 10


# Voluntary critical strikes: "a character who is not Incapacitated may spend 1 Void point to
# voluntarily suffer a critical strike instead of defending".


def test_a_voluntary_critical_on_damage_reduced_to_0_is_warned_and_costs_nothing() -> None:
    # Yandalar/l5r5e-combat-helper@src/reactions/void-defense.ts offers "Spend Void - Don't
    # Defend" on any unresolved attack, its final damage 0 included, and then spends the point
    # and posts a critical strike. The rules text: damage reduced to 0 needs no defence ("it
    # glances off harmlessly"), so there is nothing to take a critical strike instead of;
    # DonHuberto/Nasze_L5R_FoundryVTT@system/scripts/services/damage-service.js agrees
    # (voluntaryCritical needs afterResistance > 0). The ledger spends nothing and adds no
    # critical strike, and the audit says the choice was void.
    records = stream(
        "l5r", joined(resistance={"physical": 5}), damage(4, deadliness=5, voluntary_critical=True)
    )
    view = of(records)
    assert (view["void_points"], view["criticals"], view["fatigue"]) == (2, [], 0)
    (finding,) = audit(records)
    assert (finding.rule, finding.severity, finding.seq) == (
        "void-critical-not-allowed",
        "warning",
        (3,),
    )
    assert finding.message == (
        "'Akodo' chose a voluntary critical strike at seq 3 on damage reduced to 0 (4 damage, "
        "resistance 5); damage reduced to 0 glances off and needs no defence, so there is no "
        "critical strike to take instead: no Void point is spent (Void points stay 2) and no "
        "critical strike happens"
    )
