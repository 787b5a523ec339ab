"""One principle for events the rules forbid: applied as the table played it, and the finding
says, with numbers, what the rules would have given instead (issue #10).

The exceptions: where the rules text makes the effect itself conditional (shake it off "if your
health is greater than 0", no rise while wounded) or DESIGN says the first stands (a second lock
or roll of one stake).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.invoke import run
from tests.streams import audit, refusal, stream, tracks
from tests.systems.fates_edge.test_fold import adversary, attack, fe, player, spend
from tests.systems.fates_edge.test_fold import roll as fe_roll
from tests.systems.ironsworn.test_fold import burn, choice, harm, kira, roll


def only(system: str, *items: dict[str, Any]) -> tuple[str, str]:
    """(rule, message) of the one error or warning of a stream."""
    (finding,) = [f for f in audit(stream(system, *items)) if f.severity != "info"]
    return finding.rule, finding.message


def kira_tracks(*items: dict[str, Any]) -> dict[str, Any]:
    """Kira's tracks after the stream."""
    sheet: dict[str, Any] = tracks(stream("ironsworn", *items))["combatants"]["Kira"]
    return sheet


# Ironsworn.


def test_endure_harm_on_the_lower_stat_is_scored_as_played_and_says_what_the_higher_gives() -> None:
    items = (kira(iron=3), harm(amount=4), roll(2, (4, 7), stat="health"))
    assert only("ironsworn", *items) == (
        "endure-harm-stat",
        "Endure Harm roll at seq 4 uses +health (1); +health after the harm is 1 and +iron is 3: "
        "roll the higher; by the rules +iron 3: score 5 vs 4, 7, weak hit; recorded as played: "
        "+health 1, score 3, miss",
    )
    assert tracks(stream("ironsworn", *items))["rolls"][0]["outcome"] == "miss"


def test_a_choice_on_a_weak_hit_is_applied_and_says_the_rules_change_nothing() -> None:
    items = (
        kira(iron=2, momentum=3),
        harm(),
        roll(3, (4, 9), stat="health"),
        choice("embrace_the_pain"),
    )
    rule, message = only("ironsworn", *items)
    assert rule == "shake-it-off-allowed"
    assert message.endswith(
        "only a strong hit gives a choice: by the rules health stays 3 and momentum 3; recorded "
        "as played: momentum 3 -> 4"
    )
    assert kira_tracks(*items)["momentum"] == 4


def test_shake_it_off_at_zero_health_changes_nothing_because_the_text_makes_it_conditional() -> (
    None
):
    items = (kira(iron=4, health=2, momentum=4), harm(amount=2), roll(6, (1, 2)))
    rule, message = only("ironsworn", *items, choice("shake_it_off"))
    assert rule == "shake-it-off-allowed"
    assert message.endswith(
        "(the text makes the exchange conditional, so the ledger changes neither: health stays "
        "0, momentum 4)"
    )
    assert (kira_tracks(*items)["health"], kira_tracks(*items)["momentum"]) == (0, 4)


def test_a_burn_with_no_momentum_is_applied_and_says_the_roll_and_momentum_stay() -> None:
    items = (kira(iron=1, momentum=-1), harm(amount=1), roll(2, (1, 9), stat="health"), burn(4))
    findings = [f for f in audit(stream("ironsworn", *items)) if f.severity == "error"]
    assert [f.rule for f in findings] == ["momentum-burn-allowed"]
    assert findings[0].message.endswith(
        "only positive momentum can be burned: by the rules the roll stays a weak hit and "
        "momentum stays -1; recorded as played: the roll weak hit -> weak hit, momentum -1 -> 2"
    )
    assert kira_tracks(*items)["momentum"] == 2


# Stones, Scrolls, Swords and Sorcery.


def ssss_player(name: str = "Ash") -> dict[str, Any]:
    """A player joins."""
    return {"type": "combatant.joined", "name": name, "side": "player", "stats": {}}


def test_grit_that_raises_harm_is_applied_and_says_the_injury_stays() -> None:
    items = (
        ssss_player(),
        {"type": "harm.inflicted", "target": "Ash", "level": 2},
        {"type": "grit.used", "target": "Ash", "from_level": 2, "to_level": 4},
    )
    assert only("ssss", *items) == (
        "grit-raises-harm",
        "grit at seq 4 takes harm from level 2 to 4; Grit may only lessen or resist an injury: "
        "by the rules the injury stays at level 2 (harm 2); recorded as played: status active "
        "-> defeated, harm 2 -> 4",
    )
    assert tracks(stream("ssss", *items))["combatants"]["Ash"]["status"] == "defeated"


def test_harm_after_defeat_is_applied_as_played_and_the_finding_says_so() -> None:
    chief = {"type": "combatant.joined", "name": "Chief", "side": "adversary"}
    items = (
        {**chief, "stats": {"level": 2}},
        {"type": "harm.inflicted", "target": "Chief", "level": 3},
        {"type": "harm.inflicted", "target": "Chief", "level": 1},
    )
    assert only("ssss", *items) == (
        "event-after-defeat",
        "seq 4 (harm.inflicted) involves 'Chief', who is defeated and no longer in the fight: by "
        "the rules it would not happen; recorded as played: Chief slots T1:0/3 T2:0/3 -> T1:1/3 "
        "T2:0/3, Chief penalties 0 -> 1",
    )
    chief_now = tracks(stream("ssss", *items))["combatants"]["Chief"]
    assert (chief_now["status"], chief_now["slots"]["1"]["filled"]) == ("defeated", 1)


# A GM stands a defeated combatant back up with track.adjusted track=status.


def ghoul(*more: dict[str, Any]) -> list[Any]:
    """A level-0 ghoul, defeated by harm 2 at seq 3, then `more`."""
    joined = {"type": "combatant.joined", "name": "Ghoul", "side": "adversary"}
    struck = {"type": "harm.inflicted", "target": "Ghoul", "level": 2}
    return stream("ssss", {**joined, "stats": {"level": 0}}, struck, *more)


def up(value: Any) -> dict[str, Any]:
    """The GM sets the ghoul's status."""
    fields = {"target": "Ghoul", "track": "status", "value": value, "reason": "it rises"}
    return {"type": "track.adjusted", **fields}


def test_a_gm_stands_a_defeated_ghoul_back_up_and_it_can_be_hit_again() -> None:
    records = ghoul(up("active"), {"type": "harm.inflicted", "target": "Ghoul", "level": 1})
    ghoul_now = tracks(records)["combatants"]["Ghoul"]
    assert (ghoul_now["status"], ghoul_now["slots"]["1"]["filled"]) == ("active", 1)
    assert [
        (f.rule, f.seq, f.message) for f in audit(records) if f.rule == "manual-adjustment"
    ] == [
        (
            "manual-adjustment",
            (4,),
            "seq 4 sets 'Ghoul' status to active (the rules gave defeated): it rises",
        )
    ]


def test_a_status_that_is_neither_active_defeated_nor_a_manner_is_bad_input() -> None:
    joined = {"type": "combatant.joined", "name": "Ghoul", "side": "adversary"}
    assert refusal("ssss", {**joined, "stats": {"level": 0}}, up("asleep")) == (
        "track 'status' of 'Ghoul' takes one of active, defeated, fled, surrendered, bargained, "
        'escaped, resolved, other (got "asleep")'
    )


@pytest.fixture
def defeated(tmp_path: Path) -> Path:
    db = tmp_path / "e.db"
    run(db, "new", "crypt", "--system", "ssss")
    run(db, "add", "crypt", "Ghoul", "--side", "adversary", "--stat", "level=0")
    run(db, "record", "crypt", "harm.inflicted", "target=Ghoul", "level=2")
    return db


def test_the_cli_stands_a_ghoul_up_and_tracks_and_history_agree(defeated: Path) -> None:
    args = ("track.adjusted", "target=Ghoul", "track=status", "value=active", "reason=it rises")
    assert run(defeated, "record", "crypt", *args) == (
        0,
        "Recorded seq 4: track.adjusted\n"
        "  the GM sets Ghoul's status to active (was defeated): it rises\n"
        "  Ghoul status: defeated -> active\n"
        "info [manual-adjustment] seq 4: seq 4 sets 'Ghoul' status to active (the rules gave "
        "defeated): it rises\n",
        "",
    )
    code, out, _ = run(defeated, "history", "crypt", "Ghoul", "--track", "status")
    assert code == 0 and out.endswith("  Ghoul status: defeated -> active\n")
    code, out, _ = run(defeated, "tracks", "crypt", "--json")
    assert '"status": "active"' in out


def test_the_side_of_a_combatant_cannot_be_adjusted_and_the_error_says_how(defeated: Path) -> None:
    args = ("track.adjusted", "target=Ghoul", "track=side", "value=player", "reason=x")
    assert run(defeated, "record", "crypt", *args) == (
        2,
        "",
        "Error: track 'side' of 'Ghoul' is fixed when it joins: undo its combatant.joined and "
        "add it again on the other side\n",
    )


def test_a_fates_edge_adversary_stands_up_only_with_resilience_back() -> None:
    cutthroat = {
        "type": "combatant.joined",
        "name": "Cutthroat",
        "side": "adversary",
        "stats": {"resilience": 2, "fatigue_capacity": 2, "armor": "none"},
    }
    felled = {"type": "hit.resolved", "target": "Cutthroat", "harm": 2}

    def adjusted(track: str, value: Any) -> dict[str, Any]:
        fields = {"target": "Cutthroat", "track": track, "value": value, "reason": "second wind"}
        return {"type": "track.adjusted", **fields}

    assert refusal("fates-edge", cutthroat, felled, adjusted("status", "active")) == (
        "'Cutthroat' has Resilience 0 and would be defeated again: set its resilience first "
        "(track.adjusted track=resilience), then its status"
    )
    records = stream(
        "fates-edge", cutthroat, felled, adjusted("resilience", 1), adjusted("status", "active")
    )
    back = tracks(records)["combatants"]["Cutthroat"]
    assert (back["status"], back["resilience"]) == ("active", 1)


def test_a_move_bought_at_the_wrong_cost_says_what_its_printed_cost_leaves_in_the_pool() -> None:
    grasp = adversary("Hag", moves=[{"name": "Drowning Grasp", "cost": 2}])
    items = [
        grasp,
        attack("a", 2, "Hag"),
        fe_roll("a", 1, 1, 1, 6),
        spend(1, "move", move="Drowning Grasp"),
    ]
    errors = [f for f in audit(fe(player(), adversary(), *items)) if f.severity == "error"]
    assert [f.message for f in errors] == [
        "seq 7 pays 1 SB for 'Hag''s 'Drowning Grasp', whose printed cost is 2 SB: by the rules "
        "SB pool 3 -> 1; recorded as played: SB pool 3 -> 2"
    ]


def test_clearing_a_permanent_bane_is_applied_and_says_it_stays_marked_by_the_rules() -> None:
    items = (
        kira(debilities=["maimed"]),
        {"type": "debility.cleared", "target": "Kira", "debility": "maimed"},
    )
    rule, message = only("ironsworn", *items)
    assert rule == "permanent-debility-cleared"
    assert message.endswith(
        "maimed is a permanent bane: by the rules it stays marked; recorded as played: "
        "max momentum 9 -> 10, momentum reset 1 -> 2, debilities maimed -> -"
    )
