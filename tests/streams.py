"""Test helpers: build stored-looking event streams in memory, and fold or audit them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from ledger import events, systems
from ledger.errors import BadInput
from ledger.store.chain import GENESIS, chain_hash
from projections import audit as audit_module
from projections import core
from projections.findings import Finding

Fields = Mapping[str, Any]


def stream(system: str, *items: Fields, rules: Fields | None = None) -> list[events.Recorded]:
    """An encounter of `system`: `encounter.opened` at seq 1, then `items` (dicts with `type`)."""
    opened: dict[str, Any] = {"type": "encounter.opened", "system": system}
    if rules is not None:
        opened["rules"] = dict(rules)
    out: list[events.Recorded] = []
    prev = GENESIS
    for seq, item in enumerate([opened, *items], start=1):
        event = systems.parse(item, system)
        kind = events.type_of(event)
        body = events.body_of(event)
        stamp = f"2026-01-01T00:00:{seq % 60:02d}.000000Z"
        digest = chain_hash("test", seq, f"id-{seq}", kind, stamp, body, prev)
        out.append(
            events.Recorded(
                encounter="test",
                seq=seq,
                id=f"id-{seq}",
                recorded_at=stamp,
                prev_hash=prev,
                hash=digest,
                event=event,
            )
        )
        prev = digest
    return out


def override(target: str, track: str, value: object, reason: str = "GM") -> dict[str, Any]:
    """A GM override of one track (`track.adjusted`)."""
    return {
        "type": "track.adjusted",
        "target": target,
        "track": track,
        "value": value,
        "reason": reason,
    }


def ruleset_of(records: Sequence[events.Recorded]) -> core.AnyRuleset:
    """The ruleset of a stream's system (its `encounter.opened` names it)."""
    opened = records[0].event
    assert isinstance(opened, events.EncounterOpened)
    return systems.ruleset(opened.system)


class _Rulesets(Mapping[str, core.AnyRuleset]):
    """Every built-in system's ruleset by key (for tests that loop over them)."""

    def __getitem__(self, key: str) -> core.AnyRuleset:
        return systems.ruleset(key)

    def __iter__(self) -> Iterator[str]:
        return iter(systems.known())

    def __len__(self) -> int:
        return len(systems.known())


#: The rulesets by system key.
RULESETS = _Rulesets()


def fold(records: list[events.Recorded], **kwargs: Any) -> core.State:
    """The folded state of a stream."""
    return core.fold(ruleset_of(records), records, **kwargs)


def tracks(records: list[events.Recorded], **kwargs: Any) -> dict[str, Any]:
    """The `tracks --json` document of a stream."""
    return fold(records, **kwargs).view()


def audit(records: list[events.Recorded]) -> list[Finding]:
    """All findings of a stream."""
    return audit_module.audit(ruleset_of(records), records)


def rules_hit(records: list[events.Recorded]) -> list[tuple[str, tuple[int, ...]]]:
    """(rule, seqs) of every finding that is not informational."""
    return [(f.rule, f.seq) for f in audit(records) if f.severity != "info"]


def refusal(system: str, *items: Fields, rules: Fields | None = None) -> str:
    """The bad-input message of the last item, folding strictly as the service does."""
    records = stream(system, *items, rules=rules)
    folder = core.RunningFold(systems.ruleset(system))
    for record in records[:-1]:
        folder.add(record, strict=True)
    with pytest.raises(BadInput) as caught:
        folder.add(records[-1], strict=True)
    return str(caught.value)


#: Tracks the fold added since the stored streams of `tests/fixtures/` were written (l5r's
#: `unconscious`): each pinned document is today's without them.
ADDED = ("unconscious",)


def without_added(document: Any) -> Any:
    """`document` (tracks or a replay step) without the tracks added since, in the same order."""
    if isinstance(document, dict):
        return {k: without_added(v) for k, v in document.items() if k not in ADDED}
    if isinstance(document, list):
        return [without_added(v) for v in document]
    return document
