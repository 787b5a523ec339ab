"""The live table through the library: roles and policy, proposals and rulings, every act
attributed; a refused act appends nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger import BadInput, Ledger, NotAllowed
from ledger.events import EncounterOpened

OGRE = {"resilience": 6, "fatigue_capacity": 3, "armor": "none", "harm": 2}


@pytest.fixture
def duel(db: Path) -> Iterator[Path]:
    """An encounter opened by the GM `gm`: Ash played by ana, Brin by ben, and an Ogre."""
    with Ledger(db, user="gm") as gm:
        gm.open("duel", "fates-edge")
        gm.join("duel", "Ash", "player", {"armor": "light"}, player="ana")
        gm.join("duel", "Brin", "player", {"armor": "light"}, player="ben")
        gm.join("duel", "Ogre", "adversary", OGRE)
    yield db


def head(db: Path) -> int:
    with Ledger(db) as book:
        return book.tracks("duel").seq


def test_the_opener_is_the_gm_and_the_default_policy_is_pinned(duel: Path) -> None:
    with Ledger(duel) as book:
        first = book.records("duel")[0].event
    assert isinstance(first, EncounterOpened) and first.by == "gm"
    assert first.policy == {
        "gms": ["gm"],
        "players_own": ["roll.made"],
        "players_any": ["proposal.made"],
        "hidden": {},
    }


def test_every_act_names_the_user_who_recorded_it(duel: Path) -> None:
    with Ledger(duel) as book:
        assert [r.event.by for r in book.records("duel")] == ["gm"] * 4


def test_a_player_may_not_hit_another_players_character_and_nothing_is_appended(
    duel: Path,
) -> None:
    with Ledger(duel, user="ana") as ana, pytest.raises(NotAllowed) as refused:
        ana.record("duel", {"type": "hit.resolved", "target": "Brin", "harm": 2})
    assert str(refused.value) == (
        "'ana' may not record hit.resolved on 'Brin': a player records roll.made for a "
        "combatant they play and proposal.made (policy: players_own, players_any); propose it "
        "instead: encounter propose"
    )
    assert refused.value.exit_code == 2 and refused.value.code == "not-allowed"
    assert head(duel) == 4


def test_a_player_rolls_for_their_own_character_only(duel: Path) -> None:
    with Ledger(duel, user="gm") as gm:
        gm.record(
            "duel",
            {
                "type": "stakes.locked",
                "stake": "axe",
                "actor": "Brin",
                "opposing": "Ogre",
                "kind": "action",
                "position": "controlled",
                "dv": 2,
                "effect": "standard",
                "source": "player",
            },
        )
    with Ledger(duel, user="ana") as ana, pytest.raises(NotAllowed) as refused:
        ana.record("duel", {"type": "roll.made", "stake": "axe", "dice": [7, 8]})
    assert "for 'Brin', played by 'ben'" in str(refused.value)
    with Ledger(duel, user="ben") as ben:
        rolled = ben.record("duel", {"type": "roll.made", "stake": "axe", "dice": [7, 8]})
    assert rolled.records[0].event.by == "ben"


def test_nobody_named_may_record_in_an_encounter_with_roles(duel: Path) -> None:
    with (
        Ledger(duel) as anonymous,
        pytest.raises(NotAllowed, match="nobody named may record") as told,
    ):
        anonymous.record("duel", {"type": "note", "text": "who wrote this?"})
    assert head(duel) == 4
    # A library caller is told its own way to name the user, beside the command line's.
    assert str(told.value).endswith("(the library: Ledger(..., user=USER))")


def test_an_event_naming_its_by_acts_for_that_user_without_a_user_given(duel: Path) -> None:
    with Ledger(duel) as book:
        book.record("duel", {"type": "note", "text": "the GM's note", "by": "gm"})
        with pytest.raises(NotAllowed, match="'ana' may not record note"):
            book.record("duel", {"type": "note", "text": "mine", "by": "ana"})


def test_only_a_gm_records_in_another_users_name(duel: Path) -> None:
    with Ledger(duel, user="ben") as ben, pytest.raises(NotAllowed, match="in the name of 'ana'"):
        ben.propose(
            "duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2}, stamp={"by": "ana"}
        )
    with Ledger(duel, user="gm") as gm:
        done = gm.record("duel", {"type": "note", "text": "Ana says hi", "by": "ana"})
    assert done.records[0].event.by == "ana"


def test_a_proposal_accepted_with_changes_applies_them_and_undo_un_applies(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana:
        proposal = ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
    assert proposal.words == (
        "ana proposes: Ogre is hit for Harm 2: no armor: all 2 stays Harm; Resilience 6 -> 4 "
        "(seq 5)",
    )
    assert [f.rule for f in proposal.findings] == ["obligation-open"]
    with Ledger(duel, user="gm") as gm:
        accepted = gm.accept("duel", 5, {"harm": 1})
        assert gm.tracks("duel").combatants["Ogre"].view()["resilience"] == 5
        gm.undo("duel", reason="the parry held")
        state = gm.tracks("duel")
    assert accepted.words[0].startswith("the GM accepts ana's proposal at seq 5 with harm 1 (half)")
    assert state.combatants["Ogre"].view()["resilience"] == 6
    assert list(state.proposals) == [5]


def test_undoing_an_acceptance_reports_the_reopened_proposal_once(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana:
        ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
    with Ledger(duel, user="gm") as gm:
        gm.accept("duel", 5)
        undone = gm.undo("duel", reason="not yet")
    reopened = [f.seq for f in undone.findings if f.rule == "obligation-open"]
    assert reopened == [(5,)]
    assert [f["seq"] for f in undone.document()["findings"]] == [[5], [7, 6]]


def test_a_player_may_not_rule_on_a_proposal(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana:
        ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
        with pytest.raises(NotAllowed, match="only a GM rules on proposals"):
            ana.accept("duel", 5)
        with pytest.raises(NotAllowed, match="only a GM rules on proposals"):
            ana.reject("duel", 5, reason="never mind")


def test_a_rejection_closes_the_proposal(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana:
        ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
    with Ledger(duel, user="gm") as gm:
        done = gm.reject("duel", 5, reason="the Ogre ducked")
        assert done.words == ("the GM rejects ana's proposal at seq 5: the Ogre ducked",)
        with pytest.raises(BadInput, match="seq 5, which is not an open proposal"):
            gm.accept("duel", 5)
    assert head(duel) == 6


def test_a_proposal_that_would_not_apply_is_bad_input(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana:
        with pytest.raises(BadInput, match="'Nobody' is not in encounter"):
            ana.propose("duel", {"type": "hit.resolved", "target": "Nobody", "harm": 2})
        with pytest.raises(BadInput, match="cannot be proposed"):
            ana.propose("duel", {"type": "event.retracted", "target": 2, "reason": "x"})
        # Named as the event proposed now, not by a seq that is never written.
        with pytest.raises(BadInput, match=r"^the proposed event: unknown event type 'bogus'"):
            ana.propose("duel", {"type": "bogus"})
    assert head(duel) == 4


def test_a_gm_added_rules_and_a_player_cannot_add_one(duel: Path) -> None:
    with Ledger(duel, user="ana") as ana, pytest.raises(NotAllowed):
        ana.add_gm("duel", "ana")
    with Ledger(duel, user="gm") as gm:
        added = gm.add_gm("duel", "cat")
    assert added.words == ("the GM makes cat a GM",)
    with Ledger(duel, user="ana") as ana:
        ana.propose("duel", {"type": "hit.resolved", "target": "Ogre", "harm": 2})
    with Ledger(duel, user="cat") as cat:
        cat.accept("duel", 6)
        assert cat.tracks("duel").combatants["Ogre"].view()["resilience"] == 4


def test_a_policy_change_is_checked_and_pinned_whole(duel: Path) -> None:
    with Ledger(duel, user="gm") as gm:
        with pytest.raises(BadInput, match="no event type of fates-edge"):
            gm.set_policy("duel", {"gms": ["gm"], "players_own": ["roll.maed"]})
        with pytest.raises(BadInput, match="has no track 'resilence'"):
            gm.set_policy("duel", {"gms": ["gm"], "hidden": {"adversary": ["resilence"]}})
        with pytest.raises(BadInput, match="at least one GM"):
            gm.set_policy("duel", {"gms": []})
        gm.set_policy("duel", {"gms": ["gm"], "players_any": ["proposal.made", "note"]})
        policy = gm.tracks("duel").policy
    assert policy is not None and policy.players_own == ("roll.made",)
    with Ledger(duel, user="ana") as ana:
        ana.record("duel", {"type": "note", "text": "Ash shouts"})


def test_a_policy_change_that_leaves_out_the_gms_is_refused_not_given_the_opener(
    duel: Path,
) -> None:
    # docs/live-table.md: a key the table leaves out takes its default, save `gms`.
    with Ledger(duel, user="gm") as gm:
        with pytest.raises(BadInput, match="names at least one GM"):
            gm.set_policy("duel", {"hidden": {"adversary": ["resilience"]}})
        gm.set_policy("duel", {"gms": ["gm"], "hidden": {"adversary": ["resilience"]}})
        policy = gm.tracks("duel").policy
    assert policy is not None
    assert (policy.gms, policy.players_any) == (("gm",), ("proposal.made",))


def test_a_players_roll_that_names_no_combatant_is_refused_saying_so(duel: Path) -> None:
    # A roll on a stake never locked names no actor: no combatant of ana's, and no 'None'.
    roll = {"type": "roll.made", "stake": "wild", "dice": [6]}
    with Ledger(duel, user="ana") as ana, pytest.raises(NotAllowed) as refused:
        ana.record("duel", roll)
    assert str(refused.value) == (
        "'ana' may not record roll.made for no combatant: a player records it only for a "
        "combatant they play (Ash) (policy: players_own); propose it instead"
    )


def test_an_encounter_opened_by_nobody_named_has_no_roles(db: Path) -> None:
    with Ledger(db) as book:
        book.open("notebook", "fates-edge")
        book.record("notebook", {"type": "note", "text": "anyone writes", "by": "ana"})
        assert book.tracks("notebook").policy is None
        with pytest.raises(BadInput, match="has no roles"):
            book.add_gm("notebook", "gm")


def test_a_user_name_is_checked(db: Path) -> None:
    with pytest.raises(BadInput, match="user name ' ana'"):
        Ledger(db, user=" ana")


def test_a_named_user_imports_into_an_encounter_with_roles_only_as_its_gm(duel: Path) -> None:
    with Ledger(duel) as book:
        lines = list(book.export("duel"))
    note = '{"type": "note", "text": "slipped in", "by": "ana"}'
    with Ledger(duel, user="ana") as ana, pytest.raises(NotAllowed, match="only a GM adds"):
        ana.import_lines([*lines, note], into="duel", unchained=True)
    with Ledger(duel, user="gm") as gm:
        done = gm.import_lines([*lines, note], into="duel", unchained=True)
    assert done.already_stored == 4 and done.appended >= 1


def test_a_gm_recording_in_a_players_name_is_no_policy_finding(duel: Path) -> None:
    # The GM locks Brin's stakes for ben at the table: a GM may record anything, in anyone's
    # name, so the act is the GM's to answer for, not a player's overstepping.
    with Ledger(duel, user="gm") as gm:
        done = gm.record(
            "duel", {"type": "stakes.locked", "stake": "axe", "actor": "Brin", "by": "ben"}
        )
        findings = gm.audit("duel")
        acts = gm.acts("duel")
    event = done.records[0].event
    assert (event.by, event.entered_by) == ("ben", "gm")
    assert not [f for f in done.findings if f.rule == "policy-allows-act"]
    assert not [f for f in findings if f.rule == "policy-allows-act"]
    assert acts is not None
    assert acts[-1] == {"seq": 5, "by": "ben", "entered_by": "gm", "type": "stakes.locked"}


def test_an_act_entered_in_anothers_name_by_no_gm_is_still_a_finding(duel: Path) -> None:
    # A line written around the ledger claims a player entered it for another: the audit
    # judges the one who entered it.
    forged = {"type": "note", "text": "ben did it", "by": "ben", "entered_by": "ana"}
    with Ledger(duel) as book:
        book.import_lines([json.dumps(forged)], into="duel")
        findings = [f for f in book.audit("duel") if f.rule == "policy-allows-act"]
    assert [f.seq for f in findings] == [(5,)]
    assert "'ana' may not record note in the name of 'ben'" in findings[0].message


def test_a_gm_recording_in_the_name_of_nobody_at_the_table_is_bad_input(duel: Path) -> None:
    with (
        Ledger(duel, user="gm") as gm,
        pytest.raises(BadInput, match="'anna' is nobody of encounter 'duel'") as told,
    ):
        gm.record("duel", {"type": "note", "text": "I hold the rope", "by": "anna"})
    assert "(did you mean 'ana'?)" in str(told.value)
    assert "(users: gm, ana, ben)" in str(told.value)
    assert head(duel) == 4


def test_the_users_a_refusal_lists_name_a_player_of_two_combatants_once(duel: Path) -> None:
    with Ledger(duel, user="gm") as gm:
        gm.join("duel", "Cat", "player", {"armor": "light"}, player="ana")
        with pytest.raises(BadInput) as told:
            gm.record("duel", {"type": "note", "text": "I hold the rope", "by": "anna"})
    assert str(told.value).endswith("(users: gm, ana, ben)")
