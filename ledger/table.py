"""Play at the table: players propose, a GM rules; who is a GM and what a player may record.

The use cases of the live table, each one event appended through `Ledger.record` (so the
policy in force judges it like any other act): `propose` (a `proposal.made`, which changes
nothing), `accept` (a `proposal.accepted`, which applies the proposal with the GM's changes at
its own position), `reject`, `add_gm` and `set_policy` (a `policy.changed`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from ledger import events
from ledger.errors import BadInput
from ledger.write import Written, check_name, check_seq, game_time
from projections import core


class Table(ABC):
    """The live table's acts, on a ledger that records events and reads tracks."""

    #: Who writes through this ledger (`--as`, `Ledger(..., user=...)`); None: nobody named.
    user: str | None

    @abstractmethod
    def record(
        self,
        encounter: str,
        event: Mapping[str, Any] | events.EventBase,
        *,
        strict: bool = False,
        expect: int | None = None,
        verb: str | None = None,
        _opening: bool = False,
    ) -> Written:
        """Append one event after validating it."""

    @abstractmethod
    def tracks(self, encounter: str) -> core.State:
        """The encounter now."""

    def propose(
        self,
        encounter: str,
        event: Mapping[str, Any] | events.EventBase,
        *,
        strict: bool = False,
        expect: int | None = None,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Propose `event` (a dict with `type`, or an event model): one `proposal.made`, which
        changes nothing until a GM accepts it; bad input when it would not apply now."""
        if isinstance(event, events.EventBase):
            body: dict[str, Any] = {"type": events.type_of(event), **events.body_of(event)}
        elif isinstance(event, Mapping):
            body = dict(event)
        else:
            raise BadInput(f"a proposal proposes an event (a mapping with 'type'), not {event!r}")
        fields = {"type": "proposal.made", "event": body, **game_time(stamp)}
        return self.record(encounter, fields, strict=strict, expect=expect)

    def accept(
        self,
        encounter: str,
        seq: int,
        fields: Mapping[str, Any] | None = None,
        *,
        strict: bool = False,
        expect: int | None = None,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Accept the proposal at `seq`, with `fields` changed (`{"harm": 1}` halves a Harm 2;
        nested keys merge, null removes one): the proposed event applies here."""
        check_seq(seq)
        if fields is not None and not isinstance(fields, Mapping):
            raise BadInput(f"an acceptance changes fields given as a mapping, not {fields!r}")
        accepted: dict[str, Any] = {"type": "proposal.accepted", "target": seq}
        if fields:
            accepted["fields"] = dict(fields)
        return self.record(
            encounter, {**accepted, **game_time(stamp)}, strict=strict, expect=expect
        )

    def reject(
        self,
        encounter: str,
        seq: int,
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Reject the proposal at `seq`: it is closed, and never applies."""
        check_seq(seq)
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("reject needs a reason (the table hears why)")
        rejected = {"type": "proposal.rejected", "target": seq, "reason": reason}
        return self.record(
            encounter, {**rejected, **game_time(stamp)}, strict=strict, expect=expect
        )

    def add_gm(
        self,
        encounter: str,
        user: str,
        *,
        reason: str | None = None,
        expect: int | None = None,
        strict: bool = False,
    ) -> Written:
        """Make `user` a GM of the encounter: a `policy.changed` with them among the GMs."""
        check_name(user, "user")
        policy = self.tracks(encounter).policy
        if policy is None:
            raise BadInput(
                f"encounter {encounter!r} has no roles (it was opened by nobody named): anyone "
                "records anything; open one with --as USER to have GMs and players"
            )
        if user in policy.gms and policy.is_gm(self.user):
            # Only a GM is told so: anyone else is refused by the policy (`set_policy`).
            raise BadInput(f"{user!r} is a GM of {encounter!r} already")
        table = {**policy.table(), "gms": [*policy.gms, user]}
        return self.set_policy(encounter, table, reason=reason, expect=expect, strict=strict)

    def set_policy(
        self,
        encounter: str,
        table: Mapping[str, Any],
        *,
        reason: str | None = None,
        expect: int | None = None,
        strict: bool = False,
    ) -> Written:
        """Put `table` in force (its keys missing take the defaults): a `policy.changed`."""
        if not isinstance(table, Mapping):
            raise BadInput(f"a policy is a mapping of its keys, not {table!r}")
        changed: dict[str, Any] = {"type": "policy.changed", "policy": dict(table)}
        if reason is not None:
            changed["reason"] = reason
        return self.record(encounter, changed, strict=strict, expect=expect)
