"""Starforged's impacts (an imported Starforged journal marks them, #25) are debilities: each
lowers max momentum and the reset, and the lasting ones are banes that stay marked."""

from __future__ import annotations

from tests.streams import rules_hit, stream, tracks

KAI = {"type": "combatant.joined", "name": "Kai", "side": "player", "stats": {}}


def mark(debility: str) -> dict[str, str]:
    return {"type": "debility.marked", "target": "Kai", "debility": debility}


def test_a_starforged_impact_lowers_max_momentum_and_reset_as_a_debility_does() -> None:
    kai = tracks(stream("ironsworn", KAI, mark("permanently_harmed"), mark("indebted")))
    kai = kai["combatants"]["Kai"]
    assert (kai["max_momentum"], kai["momentum_reset"]) == (8, 0)
    assert kai["debilities"] == ["permanently_harmed", "indebted"]


def test_clearing_a_lasting_impact_is_flagged_as_a_permanent_bane() -> None:
    clear = {"type": "debility.cleared", "target": "Kai", "debility": "traumatized"}
    records = stream("ironsworn", KAI, mark("traumatized"), clear)
    assert rules_hit(records) == [("permanent-debility-cleared", (4,))]


def test_clearing_a_passing_impact_keeps_the_bane_rule() -> None:
    clear = {"type": "debility.cleared", "target": "Kai", "debility": "doomed"}
    assert rules_hit(stream("ironsworn", KAI, mark("doomed"), clear)) == []
