"""Who dealt a blow whose `source` names a weapon, not a combatant: whoever the event says
struck (its `by`, or the one combatant that user plays), else the weapon by name; never lost
from `stats` and `recap`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ledger import Ledger
from tests.cli.invoke import ok

RINGS = {"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 2}


def duel(db: Path, **blow: Any) -> None:
    """l5r `duel`: Kaeru (played by `mio`) and Toshiro (played by `ren`); in round 1 a blow
    of 4 from `Kaeru's katana` lands on Toshiro, with `blow`'s fields."""
    with Ledger(db) as ledger:
        ledger.open("duel", "l5r", title="Duel")
        stats = {"rings": RINGS, "resistance": {"physical": 1, "supernatural": 0}}
        ledger.join("duel", "Toshiro", "player", stats, player="ren")
        ledger.join("duel", "Kaeru", "adversary", stats, player="mio")
        ledger.record("duel", {"type": "round.started", "round": 1})
        damage = {
            "type": "damage.dealt",
            "target": "Toshiro",
            "amount": 4,
            "source": "Kaeru's katana",
            "deadliness": 5,
        }
        ledger.record("duel", {**damage, **blow})


def test_a_weapon_that_names_no_combatant_is_credited_by_name(db: Path) -> None:
    duel(db)
    document = json.loads(ok(db, "stats", "duel", "--json"))
    assert document["combatants"]["Toshiro"]["taken"] == {"fatigue": 3}
    assert document["sources"] == {
        "Kaeru's katana": {
            "dealt": {"fatigue": 3},
            "dealt_by_round": [{"round": 1, "tracks": {"fatigue": 3}}],
        }
    }
    assert "- Kaeru's katana (source): dealt fatigue 3\n" in ok(db, "recap", "duel")
    table = ok(db, "stats", "duel")
    assert "Dealt by a source that is no combatant (a weapon, a trap):" in table
    assert "| Kaeru's katana | fatigue 3 |" in table


def test_the_combatant_the_event_says_struck_is_credited(db: Path) -> None:
    # `by` is mio, who plays Kaeru: Kaeru struck with the katana.
    duel(db, by="mio")
    document = json.loads(ok(db, "stats", "duel", "--json"))
    assert document["combatants"]["Kaeru"]["dealt"] == {"fatigue": 3}
    assert document["sources"] == {}
    assert "- Kaeru: dealt fatigue 3\n" in ok(db, "recap", "duel")


def test_a_blow_recorded_by_the_player_of_its_target_credits_the_weapon(db: Path) -> None:
    # ren plays Toshiro, who took the blow: he did not strike himself.
    duel(db, by="ren")
    document = json.loads(ok(db, "stats", "duel", "--json"))
    assert document["combatants"]["Toshiro"]["dealt"] == {}
    assert list(document["sources"]) == ["Kaeru's katana"]


def test_a_by_naming_a_combatant_credits_that_combatant(db: Path) -> None:
    duel(db, by="Kaeru")
    document = json.loads(ok(db, "stats", "duel", "--json"))
    assert document["combatants"]["Kaeru"]["dealt"] == {"fatigue": 3}


def test_a_source_naming_a_combatant_outranks_the_event_s_by(db: Path) -> None:
    # The source says who struck; `by` says who typed it. mio (Kaeru's player) records that
    # Hida's blow lands on Toshiro: Hida is credited, not Kaeru.
    with Ledger(db) as ledger:
        ledger.open("duel", "l5r")
        for name, side, player in (("Toshiro", "player", "ren"), ("Kaeru", "adversary", "mio")):
            ledger.join("duel", name, side, {"rings": RINGS}, player=player)
        ledger.join("duel", "Hida", "adversary", {"rings": RINGS})
        blow = {"type": "damage.dealt", "target": "Toshiro", "amount": 3, "source": "Hida"}
        ledger.record("duel", {**blow, "by": "mio"})
    document = json.loads(ok(db, "stats", "duel", "--json"))
    assert document["combatants"]["Hida"]["dealt"] == {"fatigue": 3}
    assert document["combatants"]["Kaeru"]["dealt"] == {}
    assert document["sources"] == {}
