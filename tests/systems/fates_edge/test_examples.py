"""The Fate's Edge examples: the Silken Blade's worked hits and the Reed Ford ambush."""

from __future__ import annotations

import json
from typing import Any

from ledger import events
from tests import paths
from tests.streams import audit, rules_hit, stream, tracks

EXAMPLES = paths.EXAMPLES


def example(name: str) -> list[events.Recorded]:
    """An example encounter as a stored stream."""
    lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    opened, *rest = (json.loads(line) for line in lines)
    assert opened["system"] == "fates-edge"
    return stream("fates-edge", *rest, rules=opened.get("rules"))


def rf(items: list[events.Recorded], name: str, at: int) -> tuple[Any, Any]:
    """(resilience, fatigue) of an adversary at a seq."""
    view = tracks(items, at=at)["combatants"][name]
    return view["resilience"], view["fatigue"]


BLADE = example("silken-blade")


def test_a_harm_2_hit_on_the_silken_blade_leaves_resilience_7_fatigue_1() -> None:
    assert rf(BLADE, "Silken Blade", 7) == (8, 0)
    assert rf(BLADE, "Silken Blade", 9) == (7, 1)


def test_a_later_unconverted_wound_clears_the_old_fatigue_before_adding_its_own() -> None:
    assert rf(BLADE, "Silken Blade", 14) == (6, 1)


def test_three_harm_1_hits_fill_her_track_clear_it_and_remove_1_resilience() -> None:
    name = "Silken Blade (three cuts)"
    assert [rf(BLADE, name, at) for at in (19, 23, 27)] == [(8, 1), (8, 2), (7, 0)]


def test_a_harm_3_backstab_ignores_light_armor_removes_3_and_clears_fatigue() -> None:
    name = "Silken Blade (backstab)"
    assert rf(BLADE, name, 30) == (8, 2)
    assert rf(BLADE, name, 34) == (5, 0)


def test_her_fatigue_improves_the_attackers_position_in_the_worked_example() -> None:
    positions = [r["effective_position"] for r in tracks(BLADE)["rolls"]]
    assert positions == ["controlled", "dominant", "controlled", "dominant", "dominant", "dominant"]


def test_the_worked_example_agrees_with_every_sheet_it_notes() -> None:
    assert [f for f in audit(BLADE) if f.severity != "info"] == []


AMBUSH = example("fates-edge-ambush")


def test_the_ambush_ends_with_these_tracks() -> None:
    view = tracks(AMBUSH)
    people = {n: (c["status"], c.get("harm"), c["fatigue"]) for n, c in view["combatants"].items()}
    assert people == {
        "Ash": ("active", 0, 1),
        "Brin": ("active", 1, 0),
        "Marsh Hag": ("defeated", None, 0),
        "Reed Cutthroat": ("surrendered", None, 1),
        "Ferryman's Riddle": ("resolved", None, 0),
    }
    assert (view["combatants"]["Marsh Hag"]["phase"], view["pools"]) == (2, {"sb": 2})


def test_the_hag_starts_her_second_phase_without_the_excess() -> None:
    assert rf(AMBUSH, "Marsh Hag", 18) == (1, 0)
    assert (
        tracks(AMBUSH, at=26)["combatants"]["Marsh Hag"]["phase"],
        *rf(AMBUSH, "Marsh Hag", 26),
    ) == (2, 6, 0)


def test_the_retracted_harm_on_brin_is_not_charged() -> None:
    assert tracks(AMBUSH, at=15)["combatants"]["Brin"]["fatigue"] == 0
    assert tracks(AMBUSH, without=[15])["combatants"]["Brin"]["fatigue"] == 1


def test_bog_rot_after_the_hit_overflows_brins_fatigue_into_harm() -> None:
    brin = [tracks(AMBUSH, at=at)["combatants"]["Brin"] for at in (23, 28)]
    assert [(b["harm"], b["fatigue"]) for b in brin] == [(0, 1), (1, 0)]


def test_the_audit_points_at_each_broken_rule_by_seq() -> None:
    assert rules_hit(AMBUSH) == [
        ("sb-not-retroactive", (16, 17, 19)),
        ("move-cost", (20, 21, 22)),
        ("dv-default", (24,)),
        ("effect-declared-before-roll", (29, 30, 31)),
        ("consequence-charged-once", (34, 35)),
        ("npc-attack-needs-sb", (39, 40)),
    ]


def test_without_the_undo_the_successful_defense_would_be_flagged() -> None:
    trimmed = [r for r in AMBUSH if r.seq != 15]
    assert ("defense-avoids-hit", (12, 13, 14)) in rules_hit(trimmed)
