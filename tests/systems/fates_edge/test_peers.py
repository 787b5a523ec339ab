"""Fate's Edge checked against other projects' own tests and rules code: each case is a situation
a peer project computes (named as repo@path beside it), written as an event stream and folded by
the ledger (or run through the command line). Where a peer agrees with adversary-resolution.txt
and NOTES.md's Fate's Edge sections (1.2-1.4, defaults in 5.1), the ledger gives the same
numbers; where it disagrees, the case pins our reading and names the peer's choice. Cases the
other modules of this folder already hold are not repeated here.

Chronophage-net/fates-edge-ai-gm-bot has tests for its dice (tests/modules/dice.test.js) and its
character tracks (tests/modules/characters.test.js), but none for its player Harm procedure
(modules/dice.js applyHarmAndFatigue), whose worked computations are used instead. Of
Chronophage-net/fates-edge-apps, the Python client's tests/test_rolls.py gave the roll cases; its
other tests (models, deck, store, CLI, REST) cover nothing our rules text does. The armor code of
its fates_edge_tool and of its web client's combat tracker agrees with the cells
test_fold.ARMOR_TABLE and ABOVE_THREE already hold, or takes the contested readings NOTES 1.3
lists (Medium H3 = H1+F1), which those cases pin; only its clamp of Harm above 5 is new here.
chronophage/kon-reh's reference (design/mechanics_breakdown.tex: the SRD armor table and 10 = 2
successes, already held; chapters/08_combat_conflict.tex: an older Position ladder) gave one case.
FatesEdge/Ashore and FatesEdge/InfoStrip are not about the game; Chronophage-net/fates-edge-dev
is its website, with no rules code or tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cli.invoke import run
from tests.streams import tracks
from tests.systems.fates_edge.test_fold import (
    Event,
    adversary,
    fe,
    hit,
    lock,
    player,
    rf,
    roll,
    rolls,
    suffer,
    tired,
    track,
)
from tests.systems.fates_edge.test_verbs import attack, duel


def harm_fatigue(*items: Event, name: str = "Ash") -> tuple[Any, Any]:
    """(Harm, Fatigue) of a player after a stream."""
    got = track(fe(*items), name)
    return got["harm"], got["fatigue"]


def failed_defense(harm: int) -> list[Event]:
    """Ash's defense against the Silken Blade fails (a miss) and its Harm lands on Ash."""
    return [lock("d", kind="defense", source="sb_attack"), roll("d", 2), suffer("d", harm)]


# The Outcome Matrix (NOTES 1.2): successes against DV; 1s are SB and change no outcome.


@pytest.mark.parametrize(
    ("dice", "successes", "sb", "outcome"),
    [
        # rollDice(3, [1, 6, 10]): 6 -> 1, 10 -> 2, the 1 an SB; at DV 3 a success with SB
        ((1, 6, 10), 3, 1, "success"),
        # determineOutcome(4, 3, 1): "Success with SB" is still a success
        ((10, 6, 7, 1), 4, 1, "success"),
        # determineOutcome(2, 3, 0): a Partial without SB
        ((6, 9, 2), 2, 0, "partial"),
        # determineOutcome(0, 3, 0): a Miss without SB
        ((2, 3, 5), 0, 0, "miss"),
        # determineOutcome(0, 3, 2): "Story Beat presence does not change ... Miss"
        ((1, 1, 4), 0, 2, "miss"),
    ],
)
def test_the_outcome_matrix_cells_the_gm_bot_tests_check(
    dice: tuple[int, ...], successes: int, sb: int, outcome: str
) -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@tests/modules/dice.test.js (rollDice with
    # existingDice; determineOutcome). The bot splits a success into "Clean Success" and
    # "Success with SB" by the SB; the ledger's outcome is the success and the SB go to the pool.
    items = fe(player(), adversary(), lock("a", dv=3), roll("a", *dice))
    got = rolls(items)[0]
    assert (got["successes"], got["sb"], got["outcome"]) == (successes, sb, outcome)
    assert tracks(items)["pools"] == {"sb": sb}


@settings(max_examples=40, deadline=None)
@given(
    dice=st.lists(st.integers(1, 10), min_size=1, max_size=12),
    dv=st.integers(1, 6),
)
def test_successes_sb_and_outcome_follow_the_faces_for_any_roll(dice: list[int], dv: int) -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@tests/modules/dice.test.js ("successes/story-beats
    # distribution properties hold over many rolls": successes = count(6-9) + 2 * count(10),
    # SB = count(1)) and Chronophage-net/fates-edge-apps@utilities/python/fates-edge-python-
    # client/tests/test_rolls.py (test_perform_roll_outcome_classification_is_internally_
    # consistent: success at DV or more, Partial between 0 and DV, Miss at 0), over any faces.
    items = fe(player(), adversary(), lock("a", dv=dv), roll("a", *dice))
    got = rolls(items)[0]
    hits = sum(1 for d in dice if 6 <= d <= 9) + 2 * dice.count(10)
    outcome = "success" if hits >= dv else "partial" if hits else "miss"
    assert (got["successes"], got["sb"], got["outcome"]) == (hits, dice.count(1), outcome)


def test_a_pool_of_no_dice_is_bad_input_naming_the_pool(tmp_path: Path) -> None:
    # Chronophage-net/fates-edge-apps@utilities/python/fates-edge-python-client/tests/
    # test_rolls.py (test_perform_roll_rejects_empty_pool: attr 0 + skill 0 raises "Pool must be
    # at least 1"). `roll --pool 0` is refused the same way (with or without --roll, the
    # ledger's committed dice), saying what is wrong with it, and records nothing.
    db = duel(tmp_path)
    attack(db)
    for pool, rolled in (("0", ()), ("-2", ()), ("0", ("--roll",))):
        code, out, err = run(db, "roll", "duel", "cut", "--pool", pool, *rolled)
        assert (code, out) == (2, "")
        assert err == f"Error: --pool must be at least 1 (got {pool})\n"
    assert run(db, "log", "duel", "--json")[1].count('"roll.made"') == 0


def test_a_pool_above_the_most_dice_a_roll_holds_is_bad_input_naming_the_pool(
    tmp_path: Path,
) -> None:
    # The other end of the same range: a roll holds at most 40 d10s (`roll.made`'s dice), and
    # `--pool 41` says so in the words of the option typed, not of the event field it fills.
    db = duel(tmp_path)
    attack(db)
    for rolled in ((), ("--roll",)):
        code, out, err = run(db, "roll", "duel", "cut", "--pool", "41", *rolled)
        assert (code, out, err) == (2, "", "Error: --pool must be at most 40 (got 41)\n")
    assert run(db, "log", "duel", "--json")[1].count('"roll.made"') == 0
    assert run(db, "roll", "duel", "cut", "--pool", "40")[0] == 0


# Armor: the first 3 Harm by the column, the excess stays Harm (adversary-resolution.txt).


def test_harm_above_five_is_not_clamped_the_excess_stays_harm() -> None:
    # Chronophage-net/fates-edge-apps@utilities/python/fates_edge_tool/Fates_Edge.py
    # (armor_conversion clamps incoming Harm to 5: a Harm 7 hit against Light becomes H4+F1).
    # Our rules text: "For incoming Harm above 3, convert the first 3 using that column and
    # leave the excess as Harm": Light H3 = H2+F1, plus 4 -> 6 Harm and 1 Fatigue off the
    # Silken Blade's Resilience 8.
    items = fe(
        player(),
        adversary(),
        lock("a", target="Silken Blade", harm=7, dv=3),
        roll("a", 10, 7),
        hit(7, "a"),
    )
    assert rf(items) == (2, 1)


# A player's Harm: the SRD procedure (NOTES 1.3), armor by the SRD table.


def test_heavy_armor_turns_a_players_harm_1_into_one_fatigue() -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@modules/dice.js (applyHarmAndFatigue: Heavy is armor
    # step 3, and Harm at or under the step marks step - 1 = 2 Fatigue). The ledger's table
    # (NOTES 1.3, the SRD's, pinned as armor_table) has Heavy H1 = F1.
    assert harm_fatigue(player(armor="heavy"), adversary(), *failed_defense(1)) == (0, 1)


def test_heavy_armor_converts_the_first_three_of_a_players_harm_4() -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@modules/dice.js (applyHarmAndFatigue: Harm above the
    # armor step marks 1 Fatigue and keeps Harm - 1, so Heavy H4 = H3+F1). The ledger converts
    # the first 3 by the Heavy column (F2) and keeps the excess: H1+F2, Body 3 not reached.
    assert harm_fatigue(player(armor="heavy"), adversary(), *failed_defense(4)) == (1, 2)


def test_a_players_wound_clears_old_fatigue_before_the_armor_fatigue_is_marked() -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@modules/dice.js (applyHarmAndFatigue adds the
    # armor's Fatigue first and clears all Fatigue afterwards when Harm remained, so Light H2
    # on Fatigue 2 ends at Harm 1, Fatigue 0). The SRD procedure (NOTES 1.3, steps 2-3, the
    # order the rules text gives for adversaries): clear the old Fatigue, then add the F1.
    items = (player(armor="light"), adversary(), tired(2, "Ash"), *failed_defense(2))
    assert harm_fatigue(*items) == (1, 1)


def test_a_players_fatigue_overflow_loses_the_excess() -> None:
    # Chronophage-net/fates-edge-ai-gm-bot@tests/modules/characters.test.js ("applyDelta
    # fatigue overflows into harm once fatigue reaches Body attribute value": Body 3 and 5
    # Fatigue -> Fatigue 2, Harm 1; its loop keeps the excess). NOTES 1.3 and 5.1
    # (player_overflow_may_loop = false, the SRD's worked example): one overflow, the excess
    # is lost -> Harm 1, Fatigue 0.
    assert harm_fatigue(player(body=3), adversary(), tired(5, "Ash")) == (1, 0)


def test_the_position_ladder_has_no_risky_rung(tmp_path: Path) -> None:
    # Chronophage-net/fates-edge-apps@utilities/python/fates-edge-python-client/fates_edge_client/
    # rolls.py (perform_roll takes "risky" as a Position without re-rolls) and chronophage/
    # kon-reh@ttrpg/reference/chapters/08_combat_conflict.tex (an older ladder: Controlled,
    # Risky, Desperate). NOTES 1.2 and 5.1 (position_ladder): Desperate, Controlled, Dominant;
    # `lock --position risky` is refused naming the rungs, and nothing is recorded.
    db = duel(tmp_path)
    args = ["lock", "duel", "cut", "--actor", "Ash", "--against", "Silken Blade"]
    code, out, err = run(db, *args, "--position", "risky")
    assert (code, out) == (2, "")
    assert "'risky' is not one of 'desperate', 'controlled', 'dominant'" in err
    assert run(db, "log", "duel", "--json")[1].count('"stakes.locked"') == 0
