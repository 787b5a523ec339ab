"""Proposals and rulings: a proposal changes nothing until a GM accepts it; the acceptance then
applies the proposed event, with the GM's changes merged in as a correction merges its fields,
at the acceptance's own position (so undoing the acceptance un-applies it, and the proposal is
open again). A rejection closes it. The policy in force is set here too (`policy.changed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from ledger import events
from ledger.errors import BadInput
from projections import policy as policies
from projections.revisions import merged
from projections.ruleset import AnyRuleset
from projections.state import Proposal, State
from projections.values import frozen_json, replace, with_entry, without


@cache
def vocabulary(ruleset: AnyRuleset) -> events.Vocabulary:
    """Every event type of a ruleset's system (the common ones and its own), as parsed."""
    return events.Vocabulary.of(ruleset.key, ruleset.own_events)


def proposed(
    ruleset: AnyRuleset, body: Mapping[str, Any], seq: int, *, stored: bool = True
) -> events.EventBase:
    """The event a proposal's body (its `type` included) is, in the encounter's system; bad
    input names the proposal by its seq when it is `stored`, else as the event proposed now."""
    kind = body.get("type")
    named = f"the proposal at seq {seq}" if stored else "the proposed event"
    if kind in events.common.UNPROPOSABLE:
        raise BadInput(f"{named}: {kind} cannot be proposed: only a table fact can")
    try:
        return events.parse(body, vocabulary(ruleset))
    except BadInput as exc:
        raise exc.reworded(f"{named}: {exc}") from exc


def open_proposal(state: State, target: int, verb: str) -> Proposal:
    """The open proposal at `target`, or bad input naming the open ones."""
    found = state.proposals.get(target)
    if found is None:
        open_ = ", ".join(map(str, state.proposals)) or "none"
        raise BadInput(
            f"{verb} seq {target}, which is not an open proposal (open: {open_})",
            code="unknown-seq",
        )
    return found


def applied(ruleset: AnyRuleset, state: State, event: events.ProposalAccepted) -> events.EventBase:
    """The event an acceptance applies: the proposal's, with the GM's `fields` merged in."""
    proposal = open_proposal(state, event.target, "an acceptance names")
    body = merged(thawed(proposal.event), event.fields or {})
    if body.get("by") is None and proposal.by is not None:
        body["by"] = proposal.by  # the act is the proposer's; the GM's is the acceptance
    return proposed(ruleset, body, event.target)


def thawed(data: Mapping[str, Any]) -> dict[str, Any]:
    """Read-only JSON as plain dicts and lists (what the merge and the parser take)."""
    return {k: thawed(v) if isinstance(v, Mapping) else _listed(v) for k, v in data.items()}


def _listed(value: Any) -> Any:
    if isinstance(value, tuple):
        return [thawed(v) if isinstance(v, Mapping) else _listed(v) for v in value]
    return value


def made(state: State, seq: int, event: events.ProposalMade) -> State:
    """The state with one more open proposal."""
    proposal = Proposal(seq=seq, by=event.by, event=frozen_json(dict(event.event)))
    return replace(state, proposals=with_entry(state.proposals, seq, proposal))


def closed(state: State, target: int) -> State:
    """The state with the proposal at `target` no longer open."""
    return replace(state, proposals=without(state.proposals, target))


def rejected(state: State, event: events.ProposalRejected) -> State:
    """The state with the rejected proposal closed."""
    open_proposal(state, event.target, "a rejection names")
    return closed(state, event.target)


def policy_set(state: State, table: Mapping[str, Any] | None) -> State:
    """The state with the policy `table` in force (None: no roles)."""
    return replace(state, policy=policies.parse(table) if table is not None else None)
