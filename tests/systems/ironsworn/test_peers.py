"""Ironsworn checked against other projects' own tests and rules code: each case is a situation
a peer project computes (named as repo@path beside it), written as an event stream and folded
and audited by the ledger. Where a peer agrees with ironsworn-endure-harm.txt and NOTES.md 2.2,
the ledger gives the same numbers; where it disagrees, the case pins our reading and names the
peer's choice. Cases the other modules of this folder already hold are not repeated here.

ben/foundry-ironsworn has no test files (none in its history either), so its cases are the
worked computations of its rules code; johnkord/juice-roll's Ironsworn tests
(test/ironsworn_test.dart) gave no case the fold and audit tests do not already hold.
"""

from __future__ import annotations

from typing import Any

from tests.streams import audit, rules_hit, stream, tracks
from tests.systems.ironsworn.test_fold import (
    Event,
    burn,
    choice,
    debility,
    harm,
    kira,
    meter,
    roll,
)


def kira_after(*items: Event) -> dict[str, Any]:
    """Kira's tracks after the stream."""
    got: dict[str, Any] = tracks(stream("ironsworn", *items))["combatants"]["Kira"]
    return got


def last_roll(*items: Event) -> dict[str, Any]:
    """The last roll of the stream as `tracks --json` shows it."""
    rolled: dict[str, Any] = tracks(stream("ironsworn", *items))["rolls"][-1]
    return rolled


def findings(*items: Event) -> list[tuple[str, str, tuple[int, ...]]]:
    """(rule, severity, seqs) of every finding of the stream."""
    return [(f.rule, f.severity, f.seq) for f in audit(stream("ironsworn", *items))]


# Negative momentum cancels the action die (NOTES 2.2), with the momentum held at the roll.


def test_negative_momentum_from_the_harms_spill_cancels_the_endure_harm_action_die() -> None:
    # ben/foundry-ironsworn@src/module/rolls/ironsworn-roll.ts: canceledByNegativeMomentum
    # compares the momentum the actor holds when rolling with -die, and the score's first term
    # becomes 0. Here that momentum comes from the harm itself: health 0, momentum 0, 3 harm
    # spill to -3, and the Endure Harm die of 3 is cancelled: score = iron 2, a miss against
    # 2 and 9, and the miss's -1 takes momentum to -4.
    items = (kira(iron=2, health=0, momentum=0), harm(amount=3), roll(3, (2, 9)))
    rolled = last_roll(*items)
    assert (rolled["score"], rolled["outcome"]) == (2, "miss")
    assert kira_after(*items)["momentum"] == -4


def test_momentum_at_its_minimum_cancels_an_action_die_of_six_and_the_adds_still_count() -> None:
    # ben/foundry-ironsworn@src/module/rolls/ironsworn-roll.ts: rawScore sums 0 (the cancelled
    # die), the stat and the adds. Momentum -6 cancels a 6: iron 2 + adds 1 = 3, which beats a
    # 2 but not a 9; uncancelled the 6 would have made 9.
    rolled = last_roll(kira(iron=2, momentum=-6), roll(6, (2, 9), move="strike", adds=1))
    assert (rolled["score"], rolled["outcome"]) == (3, "weak_hit")


# Endure Harm's strong hit at 0 health.


def test_a_strong_hit_at_0_health_embraces_the_pain_for_one_momentum() -> None:
    # aradix85/straightjacket, test_endure_harm_follows_each_rulebook ("classic", health 0,
    # STRONG_HIT -> health 0, momentum 3): "If your health is greater than 0" rules out shake
    # it off, so the strong hit takes +1 momentum. (Its health 3 cases, strong 4/1, weak 3/2
    # and miss 3/1, are test_fold's.)
    items = (kira(iron=3, health=1), harm(amount=1), roll(6, (1, 2)), choice("embrace_the_pain"))
    got = kira_after(*items)
    assert (got["health"], got["momentum"]) == (0, 3)
    assert findings(*items) == []


# Burning momentum: "cancel any challenge dice less than your momentum" (NOTES 2.2).


def test_a_burn_needs_only_positive_momentum_not_momentum_above_the_reset() -> None:
    # ben/foundry-ironsworn@src/module/actor/subtypes/character.ts: canBurnMomentum is
    # `momentum > momentumReset`, so at momentum 2 with no debilities (reset 2) its sheet
    # refuses the burn. Our rules text (NOTES 2.2, "allowed only when momentum is positive")
    # allows it: momentum 2 cancels the challenge die of 1 that tied a score of 1, the miss
    # becomes a weak hit, momentum resets to 2, and the audit has nothing to say.
    items = (kira(iron=0, momentum=2), roll(1, (1, 5), move="strike"), burn(3))
    rolled = last_roll(*items)
    assert (rolled["outcome"], rolled["burned"]) == ("weak_hit", True)
    assert kira_after(*items)["momentum"] == 2
    assert findings(*items) == []


def test_a_burn_below_the_action_score_keeps_the_hits_the_score_made() -> None:
    # ben/foundry-ironsworn@src/module/rolls/ironsworn-roll-message.ts: burnMomentum replaces
    # the outcome with computeRollOutcome(momentum, c1, c2), so momentum 3 against 6 and 9
    # would turn this weak hit (score 7 beats the 6) into a miss (its chat card only offers a
    # burn that upgrades). Our rules text cancels the dice below momentum and leaves the rest
    # to the score: it stays a weak hit, momentum still resets, and the audit warns that the
    # burn did nothing.
    items = (kira(iron=3, momentum=3), roll(4, (6, 9), move="strike"), burn(3))
    assert last_roll(*items)["outcome"] == "weak_hit"
    assert kira_after(*items)["momentum"] == 2
    assert findings(*items) == [("momentum-burn-allowed", "warning", (3, 4))]


def test_no_burn_beats_matched_tens() -> None:
    # ben/foundry-ironsworn@src/module/rolls/ironsworn-roll.ts (SCORE_MAX 10) and
    # ironsworn-roll-message.ts (computeRollOutcome: score > die): a score is capped at 10 and
    # momentum at 10, and neither beats a 10. Momentum 10 burned on a match of 10s leaves the
    # miss, resets momentum to 2 and is warned as changing nothing.
    items = (kira(iron=3, momentum=10), roll(6, (10, 10), move="strike", adds=2), burn(3))
    rolled = last_roll(*items)
    assert (rolled["score"], rolled["outcome"], rolled["match"]) == (10, "miss", True)
    assert kira_after(*items)["momentum"] == 2
    assert findings(*items) == [("momentum-burn-allowed", "warning", (3, 4))]


# Debilities as Datasworn's rules data has them (rsek/datasworn@source_data/classic/rules.yaml).


def test_encumbered_lowers_max_momentum_and_reset_but_blocks_no_meter() -> None:
    # rsek/datasworn@source_data/classic/rules.yaml: encumbered is one of the conditions ("As
    # with all debilities, conditions impact your max momentum and momentum reset") and,
    # unlike wounded, shaken and unprepared, has no `prevents_recovery`: supply still rises.
    items = (kira(supply=3), debility("encumbered"), meter("supply", 1))
    got = kira_after(*items)
    assert (got["max_momentum"], got["momentum_reset"], got["supply"]) == (9, 1, 4)
    assert rules_hit(stream("ironsworn", *items)) == []


def test_corrupted_is_a_permanent_bane_and_cursed_a_burden_the_quest_clears() -> None:
    # rsek/datasworn@source_data/classic/rules.yaml: banes.corrupted is `permanent: true`;
    # burdens.cursed "can only be cleared by completing the quest", so clearing it is play.
    marked = kira(debilities=["corrupted", "cursed"])
    corrupted = debility("corrupted", "debility.cleared")
    cursed = debility("cursed", "debility.cleared")
    assert rules_hit(stream("ironsworn", marked, corrupted)) == [
        ("permanent-debility-cleared", (3,))
    ]
    assert rules_hit(stream("ironsworn", marked, cursed)) == []
    assert kira_after(marked, cursed)["max_momentum"] == 9
