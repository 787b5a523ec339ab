"""The edges of the Ironsworn rules that no other test pinned: each test here kills a mutant of
`projections/ironsworn/` (a shifted bound, a dropped check) that every other test let through.
Quotes are from ironsworn-endure-harm.txt; invariants and house defaults from NOTES.md 5.2.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger, events
from ledger.errors import BadInput
from tests import streams
from tests.library.test_iron_vault_forms import fenced, imported
from tests.streams import stream, tracks
from tests.systems.ironsworn.test_audit import hits, severities, zero_miss
from tests.systems.ironsworn.test_fold import burn, kira, meter, roll

Event = dict[str, Any]


def override(track: str, value: object) -> Event:
    """A GM override of one of Kira's tracks."""
    return streams.override("Kira", track, value)


def sheet(*items: Event, rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Kira's tracks after the stream."""
    kira_tracks: dict[str, Any] = tracks(stream("ironsworn", *items, rules=rules))["combatants"][
        "Kira"
    ]
    return kira_tracks


def test_wounded_stops_health_rising_by_a_single_point() -> None:
    # NOTES.md 5.2: "While wounded: no event may increase health".
    raised = {"type": "meter.changed", "target": "Kira", "meter": "health", "amount": 1}
    assert sheet(kira(health=3, debilities=["wounded"]), raised)["health"] == 3


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ({"momentum": 10, "debilities": ["wounded"]}, "momentum 10 is outside -6..9 (1 debility)"),
        ({"momentum": 9, "debilities": ["wounded", "shaken"]}, "momentum 9 is outside -6..8"),
    ],
)
def test_a_sheet_with_momentum_above_its_debilities_max_is_bad_input(
    stats: dict[str, Any], message: str
) -> None:
    # NOTES.md 5.2: "-6 <= momentum <= max_momentum at all times", max_momentum = 10 - debilities.
    assert streams.refusal("ironsworn", kira(**stats)).startswith(f"stats of 'Kira': {message}")


def test_a_gm_override_may_set_health_to_0_but_not_below() -> None:
    # NOTES.md 5.2: "0 <= health <= 5".
    assert sheet(kira(), override("health", 0))["health"] == 0
    message = streams.refusal("ironsworn", kira(), override("health", -1))
    assert message == (
        "track 'health' of 'Kira' field 'health': input should be greater than or equal to 0 "
        "(got -1)"
    )


@pytest.mark.parametrize("value", [True, "9"])
def test_a_max_momentum_override_that_is_not_a_whole_number_is_bad_input(value: object) -> None:
    message = streams.refusal("ironsworn", kira(), override("max_momentum", value))
    assert message == "track 'max_momentum' of 'Kira' takes a whole number"


# House rules (NOTES.md 5.2 "Configurable defaults") at the edges of their ranges.


@pytest.mark.parametrize(
    "rules",
    [
        {"harm_default": 0},
        {"rank_harm": {"epic": 0}},
        {"score_cap": 1},
        {"momentum_min": 0},
        {"momentum_max": 0},
    ],
)
def test_house_rules_at_the_edge_of_their_range_are_taken(rules: dict[str, Any]) -> None:
    assert tracks(stream("ironsworn", rules=rules))["combatants"] == {}


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"harm_default": -1}, "'harm_default': input should be greater than or equal to 0"),
        (
            {"rank_harm": {"epic": -1}},
            "'rank_harm.epic': input should be greater than or equal to 0",
        ),
        ({"score_cap": 0}, "'score_cap': input should be greater than or equal to 1"),
        ({"momentum_min": 1}, "'momentum_min': input should be less than or equal to 0"),
        ({"momentum_max": -1}, "'momentum_max': input should be greater than or equal to 0"),
    ],
)
def test_house_rules_past_the_edge_of_their_range_are_bad_input(
    rules: dict[str, Any], message: str
) -> None:
    with pytest.raises(BadInput, match=re.escape(f"ironsworn rules field {message}")):
        streams.fold(stream("ironsworn", rules=rules))


# "Then, roll +health or +iron, whichever is higher": the audit says what the rules give, the
# score capped at 10 (NOTES.md 5.2 "score = min(10, die + value + adds)").


def endure_harm_stat(*items: Event) -> list[tuple[tuple[int, ...], str]]:
    """(seqs, message) of each endure-harm-stat finding."""
    found = streams.audit(stream("ironsworn", *items))
    return [(f.seq, f.message) for f in found if f.rule == "endure-harm-stat"]


def endure(die: int, challenge: tuple[int, int], stat: str, **fields: Any) -> Event:
    """Kira's Endure Harm roll."""
    return {
        "type": "roll.made",
        "actor": "Kira",
        "stat": stat,
        "action_die": die,
        "challenge": list(challenge),
        "move": "endure_harm",
        **fields,
    }


HARM = {"type": "harm.suffered", "target": "Kira"}


def test_the_lower_of_health_and_iron_is_flagged_with_both_scores() -> None:
    # Dangerous harm by default: health 5 -> 3; iron 4 is higher.
    assert endure_harm_stat(kira(iron=4), HARM, endure(4, (2, 7), "health")) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +health (3); +health after the harm is 3 and +iron "
            "is 4: roll the higher; by the rules +iron 4: score 8 vs 2, 7, strong hit; recorded "
            "as played: +health 3, score 7, weak hit",
        )
    ]


def test_another_stat_is_flagged_with_both_scores() -> None:
    assert endure_harm_stat(kira(), HARM, endure(4, (2, 5), "heart")) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +heart; it rolls +health (3) or +iron (2), whichever "
            "is higher: by the rules +health 3: score 7 vs 2, 5, strong hit; recorded as played: "
            "+heart 1, score 5, weak hit",
        )
    ]


def test_the_scores_of_the_finding_count_the_adds_and_a_cancelled_action_die() -> None:
    """Both scores are action scores: the adds count, and negative momentum equal to the
    action die cancels it, in the rules' score as in the played one."""
    assert endure_harm_stat(
        kira(iron=4, momentum=-2), HARM, endure(2, (3, 6), "health", adds=1)
    ) == [
        (
            (4,),
            "Endure Harm roll at seq 4 uses +health (3); +health after the harm is 3 and +iron "
            "is 4: roll the higher; by the rules +iron 4: score 5 vs 3, 6, weak hit; recorded "
            "as played: +health 3, score 4, weak hit",
        )
    ]


# NOTES.md 5.2: "max_momentum = 10 - n_debilities", "momentum_reset = {0: 2, 1: 1, >= 2: 0}";
# a GM override of either shows as given, whatever debilities are marked.


def test_a_max_momentum_override_with_a_debility_marked_shows_as_given() -> None:
    assert sheet(kira(debilities=["wounded"]), override("max_momentum", 8))["max_momentum"] == 8


@pytest.mark.parametrize("marked", [["wounded", "shaken"], ["wounded", "shaken", "maimed"]])
def test_a_momentum_reset_override_with_two_or_more_debilities_shows_as_given(
    marked: list[str],
) -> None:
    assert sheet(kira(debilities=marked), override("momentum_reset", 1))["momentum_reset"] == 1


# "On a miss ... If you are at 0 health, you must mark wounded or maimed (if currently unmarked)
# or roll on the following table": any of the character's events moves the story on past it.


def test_a_roll_straight_after_a_miss_at_zero_health_leaves_it_unmet() -> None:
    """The next roll, with no harm between, moves on as a harm would."""
    assert hits(*zero_miss(), roll(3, (1, 2), move="strike")) == [("miss-at-zero-health", (4, 5))]


# Momentum burn (NOTES.md 5.2): "only positive momentum can be burned"; a burn only helps when a
# challenge die is below the momentum burned.


def test_a_burn_of_one_momentum_is_allowed_but_never_helps() -> None:
    """Momentum 1 is positive: no error; no challenge die (1-10) is below 1: the warning."""
    items = (kira(momentum=1), HARM, endure(1, (5, 9), "health"), burn(4))
    assert severities(*items) == [("momentum-burn-allowed", "warning")]


def test_a_health_change_of_zero_while_wounded_is_no_recovery() -> None:
    """NOTES.md 5.2: "While wounded: no event may increase health"; +0 does not."""
    assert hits(kira(health=2, debilities=["wounded"]), meter("health", 0)) == []


# A character's sheet (DESIGN.md section 4, docs/events.md): stats integer 0..5 (default 1),
# health, spirit and supply 0..5 (default 5), momentum -6..10 (NOTES.md 5.2: "-6 <= momentum").

STATS = ("edge", "heart", "iron", "shadow", "wits")
RANGES = [(stat, 0, 5) for stat in STATS] + [
    ("health", 0, 5),
    ("spirit", 0, 5),
    ("supply", 0, 5),
    ("momentum", -6, 10),
]


@pytest.mark.parametrize(("field", "low", "high"), RANGES)
def test_a_sheet_takes_each_value_at_the_edges_of_its_range_and_none_past_them(
    field: str, low: int, high: int
) -> None:
    for value in (low, high):
        assert tracks(stream("ironsworn", kira(**{field: value})))["combatants"]["Kira"]
    assert streams.refusal("ironsworn", kira(**{field: low - 1})) == (
        f"stats of 'Kira' field {field!r}: input should be greater than or equal to {low} "
        f"(got {low - 1})"
    )
    assert streams.refusal("ironsworn", kira(**{field: high + 1})) == (
        f"stats of 'Kira' field {field!r}: input should be less than or equal to {high} "
        f"(got {high + 1})"
    )


def test_a_character_joined_with_no_stats_has_the_default_sheet() -> None:
    """Each stat 1 (a roll of 3 on it scores 4), the meters 5, momentum the start of 2."""
    joined = {"type": "combatant.joined", "name": "Kira", "side": "player", "stats": {}}
    rolls = [
        {
            "type": "roll.made",
            "actor": "Kira",
            "move": "face_danger",
            "stat": stat,
            "action_die": 3,
            "challenge": [9, 9],
        }
        for stat in STATS
    ]
    got = tracks(stream("ironsworn", joined, *rolls))
    kira_tracks = got["combatants"]["Kira"]
    assert [kira_tracks[k] for k in ("health", "spirit", "supply", "momentum")] == [5, 5, 5, 2]
    assert [r["score"] for r in got["rolls"]] == [4, 4, 4, 4, 4]


# The dice (docs/events.md): an action die d6, challenge dice d10, adds 0..10, the Endure Harm
# oracle "dice: 1d100"; a burn names a roll's seq. Past an edge is bad input, naming the field.


def rolled(**fields: Any) -> Event:
    """Kira's Face Danger roll, 1 vs 1, 1 unless told."""
    made = {"action_die": 1, "challenge": [1, 1], "adds": 0, **fields}
    return {"type": "roll.made", "actor": "Kira", "move": "face_danger", "stat": "iron", **made}


def the_oracle(result: int) -> Event:
    """Kira's roll on the Endure Harm oracle."""
    return {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": result}


@pytest.mark.parametrize(
    ("make", "field", "low", "high"),
    [
        (lambda v: rolled(action_die=v), "action_die", 1, 6),
        (lambda v: rolled(challenge=[v, 1]), "challenge.0", 1, 10),
        (lambda v: rolled(challenge=[1, v]), "challenge.1", 1, 10),
        (lambda v: rolled(adds=v), "adds", 0, 10),
        (the_oracle, "roll", 1, 100),
    ],
)
def test_each_die_is_taken_at_the_edges_of_its_range_and_refused_past_them(
    make: Any, field: str, low: int, high: int
) -> None:
    streams.fold(stream("ironsworn", kira(), make(low), make(high)))  # taken, folded
    kind = make(low)["type"]
    for past, bound in (
        (low - 1, f"greater than or equal to {low}"),
        (high + 1, f"less than or equal to {high}"),
    ):
        with pytest.raises(BadInput) as caught:
            stream("ironsworn", kira(), make(past))
        assert (
            str(caught.value)
            == f"{kind} event field {field!r}: input should be {bound} (got {past})"
        )


def test_a_burn_naming_seq_0_or_the_opening_is_bad_input() -> None:
    with pytest.raises(BadInput) as caught:
        stream("ironsworn", kira(), burn(0))
    assert str(caught.value) == (
        "momentum.burned event field 'roll': input should be greater than or equal to 1 (got 0)"
    )
    assert streams.refusal("ironsworn", kira(), burn(1)) == (
        "momentum.burned names seq 1, which is not an effective roll"
    )


# The Iron Vault journal mapping (projections/ironsworn/ironvault.py, docs/iron-vault.md): what a
# node becomes, and the one-line bad input for a node the importer cannot read.


def journal(db: Path, tmp_path: Path, *blocks: str) -> list[str]:
    """The events the blocks import as, for Kira (`tests.library.test_iron_vault_forms.shown`)."""
    return imported(db, tmp_path, fenced(*blocks))[1]


def test_a_wiki_link_s_label_names_the_actor_not_its_note(db: Path, tmp_path: Path) -> None:
    block = """actor name="[[Characters/Kira Vale.md|Kira]]" {
    meter "spirit" from=5 to=4
}"""
    imported(db, tmp_path, fenced(block), character=None)
    with Ledger(db) as ledger:
        assert list(ledger.tracks("saga").view()["combatants"]) == ["Kira"]


def test_a_momentum_loss_after_a_burn_made_the_strong_hit_is_shaking_it_off(
    db: Path, tmp_path: Path
) -> None:
    """A burn scores the roll with the momentum burned ("cancels challenge dice below it"): 1 + 1
    misses 5, 7; momentum 8 beats both. The -1 momentum then is no miss's: it is shake it off."""
    block = """move "Endure Harm" {
    meter "health" from=3 to=1
    roll "iron" action=1 stat=1 adds=0 vs1=5 vs2=7
    burn from=8 to=2
    meter "momentum" from=2 to=1
    meter "health" from=1 to=2
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=3",
        "harm 2",
        "claim momentum=8",
        "roll endure_harm +iron 1 vs 5,7 adds 0: miss",
        "burn",
        "claim momentum=2",
        "claim momentum=2",
        "claim health=1",
        "choice shake_it_off",
    ]


def test_a_burn_outside_a_move_with_a_from_that_is_no_number_is_kept(
    db: Path, tmp_path: Path
) -> None:
    """A loose burn is kept as a note; its `from` is no first value of momentum."""
    told = journal(db, tmp_path, 'burn from="six" to=2\nmeter "spirit" from=5 to=4')
    assert told == ["note", "claim spirit=5", "spirit -1"]
    with Ledger(db) as ledger:
        assert ledger.tracks("saga").view()["combatants"]["Kira"]["momentum"] == 2


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ('actor {\n    meter "spirit" from=5 to=4\n}', "an actor node names its character"),
        ('move "Face Danger" {\n    outcome "strong hit"\n}', "an outcome node follows a roll"),
        ("meter from=5 to=4", "a meter node names its meter"),
        (
            'move "Face Danger" {\n    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9\n'
            '    outcome "great success"\n}',
            "outcome 'great success' is a strong hit, a weak hit or a miss",
        ),
    ],
)
def test_a_node_the_importer_cannot_read_is_one_line_of_bad_input(
    db: Path, tmp_path: Path, block: str, message: str
) -> None:
    with pytest.raises(BadInput, match=re.escape(message)):
        journal(db, tmp_path, block)


def test_a_health_loss_before_an_endure_harm_with_its_own_is_no_second_harm(
    db: Path, tmp_path: Path
) -> None:
    block = """meter "health" from=5 to=4
move "Endure Harm" {
    meter "health" from=4 to=2
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=5",
        "health -1",
        "claim health=4",
        "harm 2",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_a_note_before_an_endure_harm_is_kept(db: Path, tmp_path: Path) -> None:
    block = """- "it bites"
move "Endure Harm" {
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "note",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_a_positional_roll_is_no_health_loss(db: Path, tmp_path: Path) -> None:
    """`roll "health" 4 3 0 2 9` (<statname> <action-die> <stat> <adds> <vs1> <vs2>): its
    4 and 3 are dice and a stat, not a meter's from and to, so the loss before is the harm."""
    block = """meter "health" from=5 to=3
move "Endure Harm" {
    roll "health" 4 3 0 2 9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=5",
        "harm 2",
        "claim health=3",
        "roll endure_harm +health 4 vs 2,9 adds 0: weak_hit",
    ]


def test_a_kept_node_of_the_most_a_note_holds_is_kept_whole(db: Path, tmp_path: Path) -> None:
    text = '- "' + "x" * (events.TEXT_MAX - 4) + '"'
    assert len(text) == events.TEXT_MAX
    imported(db, tmp_path, fenced(text))
    with Ledger(db) as ledger:
        notes = [r for r in ledger.records("saga") if r.type == "note"]
    assert [events.body_of(r.event)["text"] for r in notes] == [text]


def test_a_health_meter_that_does_not_move_in_an_endure_harm_leaves_the_harm_before_it(
    db: Path, tmp_path: Path
) -> None:
    """Health 3 to 3 is no loss: the loss written before the move is still its harm."""
    block = """meter "health" from=5 to=3
move "Endure Harm" {
    meter "health" from=3 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=5",
        "harm 2",
        "claim health=3",
        "health +0",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_only_a_momentum_loss_right_after_a_harm_to_0_health_is_its_spill(
    db: Path, tmp_path: Path
) -> None:
    """ "If your health is 0, suffer -momentum equal to any remaining -health": a spirit loss
    after the harm is its own event, not part of the harm."""
    block = """move "Endure Harm" {
    meter "health" from=2 to=0
    meter "spirit" from=4 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=2",
        "harm 2",
        "claim spirit=4",
        "spirit -1",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_an_endure_harm_oracle_roll_outside_a_move_named_positionally_is_the_oracle(
    db: Path, tmp_path: Path
) -> None:
    """`oracle <name> <roll> <result>`: the name is the first value."""
    block = """meter "health" from=1 to=0
oracle "[Endure Harm](datasworn:oracle_rollable:classic\\/moves\\/endure_harm)" 55 "dying\""""
    assert journal(db, tmp_path, block) == [
        "claim health=1",
        "health -1",
        "oracle endure_harm 55",
    ]


@pytest.mark.parametrize(
    ("actor", "name"),
    [
        # An actor named positionally is that character.
        ('actor "Ash" {\n    meter "spirit" from=5 to=4\n}', "Ash"),
        # A wiki link with no label names the note's file.
        ('actor "[[Characters/Kira.md]]" {\n    meter "spirit" 5 4\n}', "Kira"),
    ],
)
def test_an_actor_is_the_character_its_block_names(
    db: Path, tmp_path: Path, actor: str, name: str
) -> None:
    imported(db, tmp_path, fenced(actor))
    with Ledger(db) as ledger:
        assert list(ledger.tracks("saga").view()["combatants"]) == [name]


def test_an_unnamed_endure_harm_roll_follows_health_not_another_meter(
    db: Path, tmp_path: Path
) -> None:
    """An Endure Harm roll with no stat name is +health when its value is the health the journal
    gives at that point (2 here; spirit's 4 is not it), else +iron."""
    block = """meter "health" from=5 to=2
meter "spirit" from=5 to=4
move "Endure Harm" {
    roll action=3 stat=4 adds=0 vs1=2 vs2=9
}"""
    told = journal(db, tmp_path, block)
    assert told[-1] == "roll endure_harm +iron 3 vs 2,9 adds 0: weak_hit"


def test_the_journal_s_score_is_capped_at_10(db: Path, tmp_path: Path) -> None:
    """NOTES.md 5.2: "score = min(10, die + value + adds)"; ties go to the challenge dice. The
    reroll of an action die scores anew under the same cap."""
    blocks = (
        'move "Face Danger" {\n    roll "iron" action=6 stat=4 adds=1 vs1=10 vs2=10\n}',
        'move "Face Danger" {\n    roll "iron" action=6 stat=3 adds=1 vs1=9 vs2=9\n}',
        'move "Face Danger" {\n    roll "iron" action=1 stat=4 adds=1 vs1=10 vs2=10\n'
        "    reroll action=6\n}",
        'move "Face Danger" {\n    roll "iron" action=1 stat=3 adds=1 vs1=9 vs2=9\n'
        "    reroll action=6\n}",
    )
    rolls = [t for t in journal(db, tmp_path, *blocks) if t.startswith("roll")]
    assert [r.rsplit(": ", 1)[1] for r in rolls] == ["miss", "strong_hit", "miss", "strong_hit"]


def test_an_endure_harm_has_one_harm_and_one_choice(db: Path, tmp_path: Path) -> None:
    """Endure Harm: the harm, then the roll, then on a strong hit "choose one". A later health
    loss in the move is its own event; so is a later momentum gain after the choice."""
    block = """move "Endure Harm" {
    meter "health" from=5 to=3
    roll "iron" action=6 stat=2 adds=0 vs1=2 vs2=3
    meter "health" from=3 to=4
    meter "momentum" from=5 to=4
    meter "momentum" from=4 to=5
    meter "health" from=4 to=3
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=5",
        "harm 2",
        "roll endure_harm +iron 6 vs 2,3 adds 0: strong_hit",
        "claim health=3",
        "claim momentum=5",
        "choice shake_it_off",
        "claim momentum=4",
        "momentum +1",
        "claim health=4",
        "health -1",
    ]


def test_a_health_meter_that_does_not_move_is_no_harm(db: Path, tmp_path: Path) -> None:
    block = """move "Endure Harm" {
    meter "health" from=3 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block)[:2] == ["claim health=3", "health +0"]


def test_harm_at_0_health_written_as_momentum_is_one_harm(db: Path, tmp_path: Path) -> None:
    """At 0 health the journal writes the harm as its spill alone; a second momentum loss before
    the roll is its own event."""
    block = """move "Endure Harm" {
    meter "momentum" from=4 to=2
    meter "momentum" from=2 to=1
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block)[:6] == [
        "claim health=0",
        "claim momentum=4",
        "harm 2",
        "claim momentum=2",
        "momentum -1",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


@pytest.mark.parametrize(
    ("dice", "nodes", "last"),
    [
        # A weak hit, then a health loss: no second harm.
        ("vs1=2 vs2=9", ('meter "health" from=3 to=2',), ["claim health=3", "health -1"]),
        # Embrace the pain, then another +1 momentum: no second choice.
        (
            "vs1=2 vs2=3",
            ('meter "momentum" from=5 to=6', 'meter "momentum" from=6 to=7'),
            ["choice embrace_the_pain", "claim momentum=6", "momentum +1"],
        ),
        # A miss's -1 momentum ("also suffer -1 momentum"), then another -1: its own event.
        (
            "vs1=9 vs2=9",
            ('meter "momentum" from=5 to=4', 'meter "momentum" from=4 to=3'),
            ["claim momentum=4", "momentum -1"],
        ),
    ],
)
def test_after_an_endure_harm_s_harm_choice_or_miss_the_next_change_is_its_own_event(
    db: Path, tmp_path: Path, dice: str, nodes: tuple[str, ...], last: list[str]
) -> None:
    lines = "\n".join(f"    {n}" for n in nodes)
    block = f"""move "Endure Harm" {{
    meter "health" from=5 to=3
    roll "iron" action=6 stat=2 adds=0 {dice}
{lines}
}}"""
    assert journal(db, tmp_path, block)[-len(last) :] == last


def test_a_positional_health_loss_before_an_endure_harm_is_its_harm(
    db: Path, tmp_path: Path
) -> None:
    """`meter "health" 4 2` (<name> <from> <to>) is the same loss as from=4 to=2: Kira joins
    at 4, the loss is the harm, and the unnamed roll of 2 is +health (the health it left)."""
    block = """meter "health" 4 2
move "Endure Harm" {
    roll action=3 stat=2 adds=0 vs1=2 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=4",
        "harm 2",
        "claim health=2",
        "roll endure_harm +health 3 vs 2,9 adds 0: weak_hit",
    ]
    with Ledger(db) as ledger:
        assert ledger.tracks("saga").view()["combatants"]["Kira"]["health"] == 2


def test_a_momentum_meter_that_does_not_move_after_a_harm_to_0_is_no_spill(
    db: Path, tmp_path: Path
) -> None:
    block = """move "Endure Harm" {
    meter "health" from=2 to=0
    meter "momentum" from=2 to=2
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block)[:4] == [
        "claim health=2",
        "harm 2",
        "claim momentum=2",
        "momentum +0",
    ]


def test_a_health_loss_closing_an_endure_harm_is_not_the_next_one_s_harm(
    db: Path, tmp_path: Path
) -> None:
    """Only a loss that closes another move (a Face Danger miss's harm) is the harm of the
    Endure Harm after it; an Endure Harm's own last loss is its own business."""
    first = """move "Endure Harm" {
    meter "health" from=5 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
    meter "health" from=3 to=2
}"""
    second = """move "Endure Harm" {
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, first + "\n" + second) == [
        "claim health=5",
        "harm 2",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
        "claim health=3",
        "health -1",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_a_move_that_rolls_nothing_keeps_its_meters_as_events(db: Path, tmp_path: Path) -> None:
    """Only the notes kept from a roll-less move are named after it; its meters still apply."""
    block = 'move "Heal" {\n    - "a poultice"\n    meter "health" from=2 to=3\n}'
    assert journal(db, tmp_path, block) == ["note", "claim health=2", "health +1"]


def test_an_oracle_in_an_endure_harm_is_its_oracle_whatever_its_name(
    db: Path, tmp_path: Path
) -> None:
    block = """move "Endure Harm" {
    meter "health" from=1 to=0
    roll "iron" action=1 stat=1 adds=0 vs1=5 vs2=9
    oracle "[[Oracles/Harm.md|Harm]]" roll=55 result="reeling"
}"""
    assert journal(db, tmp_path, block)[-1] == "oracle endure_harm 55"


def test_a_roll_with_no_adds_adds_0(db: Path, tmp_path: Path) -> None:
    block = 'move "Face Danger" {\n    roll "iron" action=4 stat=2 vs1=5 vs2=9\n}'
    assert journal(db, tmp_path, block) == ["roll face_danger +iron 4 vs 5,9 adds 0: weak_hit"]


def test_an_outcome_node_with_no_value_claims_nothing(db: Path, tmp_path: Path) -> None:
    """The roll's outcome is then the fold's own: 4 + 2 beats 3, not 9."""
    block = 'move "Face Danger" {\n    roll "iron" action=4 stat=2 vs1=3 vs2=9\n    outcome\n}'
    (tmp_path / "Journals").mkdir()
    (tmp_path / "Journals" / "Session 1.md").write_text(fenced(block), encoding="utf-8")
    with Ledger(db) as ledger:
        ledger.import_iron_vault([tmp_path / "Journals"], into="saga", character="Kira")
        rolled = next(r for r in ledger.records("saga") if r.type == "roll.made")
        assert events.body_of(rolled.event).get("outcome") is None
        assert ledger.tracks("saga").view()["rolls"][0]["outcome"] == "weak_hit"


def test_a_positional_burn_s_from_is_the_first_momentum(db: Path, tmp_path: Path) -> None:
    """`burn 9 2` (<from> <to>): Kira joins with the 9 the burn spends."""
    block = (
        'move "Face Danger" {\n    roll "edge" action=1 stat=1 adds=0 vs1=6 vs2=7\n    burn 9 2\n}'
    )
    imported(db, tmp_path, fenced(block))
    with Ledger(db) as ledger:
        joined = next(r for r in ledger.records("saga") if r.type == "combatant.joined")
        assert events.body_of(joined.event)["stats"]["momentum"] == 9


def test_the_harm_before_an_endure_harm_is_found_after_other_nodes(
    db: Path, tmp_path: Path
) -> None:
    block = """- "it bites"
meter "health" from=5 to=3
move "Endure Harm" {
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "note",
        "claim health=5",
        "harm 2",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_a_momentum_loss_after_the_harm_before_an_endure_harm_is_no_second_harm(
    db: Path, tmp_path: Path
) -> None:
    block = """meter "health" from=5 to=3
move "Endure Harm" {
    meter "momentum" from=4 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block) == [
        "claim health=5",
        "harm 2",
        "claim momentum=4",
        "momentum -1",
        "roll endure_harm +iron 4 vs 3,9 adds 0: weak_hit",
    ]


def test_an_unnamed_endure_harm_roll_follows_the_health_a_health_roll_gave(
    db: Path, tmp_path: Path
) -> None:
    """A +health roll tells the health (3); a +iron roll (2) does not."""
    blocks = (
        'move "Endure Harm" {\n    roll "health" action=4 stat=3 adds=0 vs1=2 vs2=9\n}',
        'move "Face Danger" {\n    roll "iron" action=4 stat=2 adds=0 vs1=2 vs2=9\n}',
        'move "Endure Harm" {\n    roll action=4 stat=3 adds=0 vs1=2 vs2=9\n}',
    )
    assert (
        journal(db, tmp_path, *blocks)[-1] == "roll endure_harm +health 4 vs 2,9 adds 0: weak_hit"
    )


@pytest.mark.parametrize(("written", "adds"), [("4 2 1", 1), ("4 2", 0)])
def test_positional_dice_with_named_challenge_dice_read_their_adds(
    db: Path, tmp_path: Path, written: str, adds: int
) -> None:
    """`roll "iron" 4 2 1 vs1=3 vs2=9`: <action-die> <stat> <adds>, the adds 0 when left out."""
    block = f'move "Face Danger" {{\n    roll "iron" {written} vs1=3 vs2=9\n}}'
    assert journal(db, tmp_path, block) == [
        f"roll face_danger +iron 4 vs 3,9 adds {adds}: weak_hit"
    ]


def test_a_momentum_meter_that_does_not_move_in_an_endure_harm_is_no_harm(
    db: Path, tmp_path: Path
) -> None:
    block = """move "Endure Harm" {
    meter "momentum" from=2 to=2
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block)[:2] == ["claim momentum=2", "momentum +0"]


def test_a_positional_roll_s_stat_is_the_first_value_of_that_stat(db: Path, tmp_path: Path) -> None:
    """`roll "iron" 4 2 0 3 9`: Kira joins with iron 2, not the action die's 4."""
    imported(db, tmp_path, fenced('move "Face Danger" {\n    roll "iron" 4 2 0 3 9\n}'))
    with Ledger(db) as ledger:
        joined = next(r for r in ledger.records("saga") if r.type == "combatant.joined")
        assert events.body_of(joined.event)["stats"]["iron"] == 2


def test_a_roll_on_supply_is_a_roll_and_one_on_momentum_is_kept(db: Path, tmp_path: Path) -> None:
    """Health, spirit and supply are rolled as stats are ("roll +supply"); momentum never is."""
    blocks = (
        'move "Make Camp" {\n    roll "supply" action=4 stat=3 adds=0 vs1=2 vs2=9\n}',
        'move "Face Danger" {\n    roll "momentum" action=4 stat=3 adds=0 vs1=2 vs2=9\n}',
    )
    assert journal(db, tmp_path, *blocks) == [
        "claim supply=3",
        "roll make_camp +supply 4 vs 2,9 adds 0: weak_hit",
        "note",
    ]


def test_a_move_linked_to_its_note_is_known_by_its_label(db: Path, tmp_path: Path) -> None:
    """`Moves/Endure_Harm.md` reads like a Datasworn path but is a note: the label names it."""
    block = """move "[Endure Harm](Moves/Endure_Harm.md)" {
    meter "health" from=5 to=3
    roll "iron" action=4 stat=2 adds=0 vs1=3 vs2=9
}"""
    assert journal(db, tmp_path, block)[:2] == ["claim health=5", "harm 2"]
