"""Proposals and rulings in the fold: a proposal changes nothing until a GM accepts it; the
acceptance applies it with the GM's changes at its own position; undoing it un-applies it."""

from __future__ import annotations

from typing import Any

from ledger import events
from projections import audit, core, replay
from tests import streams

ASH = {
    "type": "combatant.joined",
    "name": "Ash",
    "side": "player",
    "stats": {"armor": "light"},
    "player": "ana",
    "by": "gm",
}
BRIN = {
    "type": "combatant.joined",
    "name": "Brin",
    "side": "player",
    "stats": {"armor": "light"},
    "player": "ben",
    "by": "gm",
}
OGRE = {
    "type": "combatant.joined",
    "name": "Ogre",
    "side": "adversary",
    "stats": {"resilience": 6, "fatigue_capacity": 3, "armor": "none", "harm": 2},
    "by": "gm",
}
POLICY = {"gms": ["gm"], "players_own": ["roll.made"], "players_any": ["proposal.made"]}


def opened(**more: Any) -> dict[str, Any]:
    return {"type": "encounter.opened", "system": "fates-edge", "by": "gm", **more}


def propose(harm: int = 2, target: str = "Ogre", by: str = "ana") -> dict[str, Any]:
    event = {"type": "hit.resolved", "target": target, "harm": harm}
    return {"type": "proposal.made", "by": by, "event": event}


def accept(target: int, by: str = "gm", **fields: Any) -> dict[str, Any]:
    accepted: dict[str, Any] = {"type": "proposal.accepted", "target": target, "by": by}
    if fields:
        accepted["fields"] = fields
    return accepted


def reject(target: int, by: str = "gm") -> dict[str, Any]:
    return {"type": "proposal.rejected", "target": target, "reason": "too much", "by": by}


def undo(target: int) -> dict[str, Any]:
    return {"type": "event.retracted", "target": target, "reason": "wrong call", "by": "gm"}


def table(*later: dict[str, Any], policy: bool = True) -> list[events.Recorded]:
    """Ash (ana) and Brin (ben) against an Ogre of Resilience 6 (seqs 2-4), then `later`."""
    records = streams.stream("fates-edge", ASH, BRIN, OGRE, *later)
    if not policy:
        return records
    first = streams.stream("fates-edge")[0]
    event = first.event
    assert isinstance(event, events.EncounterOpened)
    with_policy = event.model_copy(update={"by": "gm", "policy": POLICY})
    return [events.Recorded(**{**_fields(first), "event": with_policy}), *records[1:]]


def _fields(record: events.Recorded) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def resilience(records: list[events.Recorded], at: int | None = None) -> int:
    state = core.fold(streams.ruleset_of(records), records, at=at)
    view = state.view()
    tracks: int = view["combatants"]["Ogre"]["resilience"]
    return tracks


def told(records: list[events.Recorded]) -> list[str]:
    ruleset = streams.ruleset_of(records)
    return [s.text for s in replay.replay_stream(ruleset, iter(records), frozenset(), None, None)]


def test_a_proposal_changes_nothing_and_is_listed_as_open() -> None:
    records = table(propose())
    state = core.fold(streams.ruleset_of(records), records)
    assert resilience(records) == 6
    assert state.view()["proposals"] == [
        {"seq": 5, "by": "ana", "event": {"type": "hit.resolved", "target": "Ogre", "harm": 2}}
    ]


def test_tracks_json_has_no_proposals_key_while_none_is_open() -> None:
    records = table(propose(), reject(5))
    assert "proposals" not in core.fold(streams.ruleset_of(records), records).view()


def test_an_acceptance_applies_the_proposal_with_the_gms_changes_at_its_own_seq() -> None:
    records = table(propose(harm=2), accept(5, harm=1))
    assert resilience(records, at=5) == 6
    assert resilience(records) == 5  # Harm 1 (the GM halved it), not 2
    assert "proposals" not in core.fold(streams.ruleset_of(records), records).view()


def test_an_acceptance_without_changes_applies_the_proposal_as_proposed() -> None:
    assert resilience(table(propose(harm=2), accept(5))) == 4


def test_undoing_an_acceptance_un_applies_it_and_opens_the_proposal_again() -> None:
    records = table(propose(harm=2), accept(5, harm=1), undo(6))
    assert resilience(records) == 6
    state = core.fold(streams.ruleset_of(records), records)
    assert [p["seq"] for p in state.view()["proposals"]] == [5]


def test_a_rejected_proposal_never_applies_and_cannot_be_accepted_after() -> None:
    records = table(propose(), reject(5), accept(5))
    state = core.fold(streams.ruleset_of(records), records)
    assert resilience(records) == 6
    assert [(s.seq, s.type) for s in state.skipped] == [(7, "proposal.accepted")]
    assert "not an open proposal" in state.skipped[0].reason


def test_an_acceptance_is_judged_by_the_rules_as_the_event_it_applies() -> None:
    # A hit with no stake is a warning wherever it is recorded: here, at the acceptance.
    records = table(propose(), accept(5, harm=1))
    found = audit.audit(streams.ruleset_of(records), records)
    assert [(f.rule, f.seq) for f in found] == [("hit-without-success", (6,))]


def test_the_audit_reminds_of_a_proposal_never_ruled_on() -> None:
    records = table(propose(), propose(harm=1), reject(6))
    found = audit.audit(streams.ruleset_of(records), records)
    assert [(f.rule, f.severity, f.seq) for f in found] == [("obligation-open", "info", (5,))]
    assert "awaits a ruling" in found[0].message
    # The commands to rule on it, ready to paste: the encounter named, quoted for a shell.
    assert found[0].message.endswith(
        "a GM accepts it (encounter accept test 5) or rejects it (encounter reject test 5)"
    )


def test_an_acceptance_by_a_player_is_an_error_and_applied_as_recorded() -> None:
    records = table(propose(), accept(5, by="ben"))
    found = audit.audit(streams.ruleset_of(records), records)
    assert ("proposal-ruled-by-gm", "error", (5, 6)) in [(f.rule, f.severity, f.seq) for f in found]
    assert resilience(records) == 4


def test_an_act_the_policy_refuses_is_an_error_in_the_audit() -> None:
    hit = {"type": "hit.resolved", "target": "Brin", "harm": 2, "by": "ana"}
    records = table(hit)
    found = audit.audit(streams.ruleset_of(records), records)
    refused = [f for f in found if f.rule == "policy-allows-act"]
    assert [f.seq for f in refused] == [(5,)]
    assert "'ana' may not record hit.resolved on 'Brin'" in refused[0].message


def test_without_a_policy_nobody_is_judged() -> None:
    hit = {"type": "hit.resolved", "target": "Brin", "harm": 2, "by": "ana"}
    records = table(hit, propose(), accept(6, by="ana"), policy=False)
    found = audit.audit(streams.ruleset_of(records), records)
    assert not [f for f in found if f.rule in ("policy-allows-act", "proposal-ruled-by-gm")]


def test_proposals_and_rulings_in_words() -> None:
    records = table(propose(harm=2), accept(5, harm=1), propose(harm=3), reject(7))
    assert told(records)[4:] == [
        "ana proposes: Ogre is hit for Harm 2: no armor: all 2 stays Harm; Resilience 6 -> 4 "
        "(seq 5)",
        "the GM accepts ana's proposal at seq 5 with harm 1 (half): Ogre is hit for Harm 1: no "
        "armor: all 1 stays Harm; Resilience 6 -> 5",
        "ana proposes: Ogre is hit for Harm 3: no armor: all 3 stays Harm; Resilience 5 -> 2 "
        "(seq 7)",
        "the GM rejects ana's proposal at seq 7: too much",
    ]


def test_a_player_names_the_player_who_plays_it() -> None:
    assert told(table())[1] == "Ash joins as a player: light armor (played by ana)"


def test_a_gm_change_other_than_halving_says_what_was_proposed() -> None:
    records = table(propose(harm=2), accept(5, harm=3))
    assert told(records)[5].startswith(
        "the GM accepts ana's proposal at seq 5 with harm 3 (proposed 2): "
    )


def test_a_snapshot_keeps_the_open_proposals_the_players_and_the_policy() -> None:
    records = table(propose(harm=2), accept(5, harm=1), propose(harm=1))
    ruleset = streams.ruleset_of(records)
    state = core.fold(ruleset, records)
    text = core.state_to_json(state)
    assert text is not None
    again = core.state_from_json(text, ruleset)
    assert again == state
    assert again is not None and again.policy is not None and again.policy.gms == ("gm",)
    assert dict(again.players) == {"Ash": "ana", "Brin": "ben"}
    assert list(again.proposals) == [7]
