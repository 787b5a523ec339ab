"""JSON Lines, the exchange format: parsing lines, and admitting one imported line to a write.

An imported line may carry the envelope (`encounter`, `seq`, `id`, `recorded_at`, `hash`,
`prev_hash`): a stored id is a no-op when identical and bad input when not, a supplied seq must be
the next one, a supplied time is kept, and a supplied hash must match the recomputed chain.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ledger import chain, events
from ledger.chain import ChainReport
from ledger.errors import BadInput
from ledger.session import Session
from projections import core
from projections.registry import ruleset


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is too large")
    return value


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON value")


def parse_lines(lines: Iterable[str], source: str = "input") -> list[dict[str, Any]]:
    """JSON Lines into objects; blank lines are skipped, anything else must be a JSON object."""
    out: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, parse_float=_finite, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{source} line {number}: malformed JSON: {exc.msg}") from exc
        except RecursionError as exc:
            raise BadInput(f"{source} line {number}: JSON nested too deeply") from exc
        except ValueError as exc:
            raise BadInput(f"{source} line {number}: {exc}") from exc
        if not isinstance(data, dict):
            raise BadInput(f"{source} line {number}: expected a JSON object, got {_kind(data)}")
        out.append(data)
    return out


def chain_of(items: Iterable[Mapping[str, Any]], source: str = "input") -> ChainReport | None:
    """The hash chain of exported lines, recomputed (None: the lines carry no hashes, as a
    hand-written file does). A line without its envelope breaks the chain at its seq."""
    items = list(items)
    if not any("hash" in item for item in items):
        return None
    names = list(dict.fromkeys(str(item.get("encounter", "")) for item in items))
    if len(names) > 1:
        raise BadInput(
            f"{source} holds several encounters ({', '.join(names)}); read them one at a time"
        )
    encounter = names[0] if names else ""
    rows = []
    for number, item in enumerate(items, start=1):
        body = {
            k: v
            for k, v in item.items()
            if k != "type" and k not in events.ENVELOPE_KEYS and k not in events.ANNOTATION_KEYS
        }
        try:
            text = chain.CANONICAL.encode(body)
        except ValueError as exc:
            raise BadInput(f"{source} line {number}: {exc}") from exc
        rows.append(
            (
                item.get("encounter"),
                item.get("seq", number),
                item.get("id"),
                item.get("type"),
                item.get("recorded_at"),
                text,
                item.get("prev_hash"),
                item.get("hash"),
            )
        )
    return chain.verify_rows(encounter, rows, None)


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), "null" if value is None else "a boolean"
    )


def check_time(value: Any) -> None:
    if not isinstance(value, str):
        raise BadInput(f"'recorded_at' must be an ISO 8601 string, got {value!r}")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise BadInput(f"'recorded_at' {value!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        raise BadInput(f"'recorded_at' {value!r} has no time zone (use UTC, ending in Z)")


def admit_line(
    session: Session, item: dict[str, Any], new_ids: bool, stored: set[str], strict: bool = False
) -> int:
    """Admit one imported line: 1 when appended, 0 when it was already stored."""
    envelope: dict[str, Any] = {k: item.pop(k) for k in events.ENVELOPE_KEYS if k in item}
    for key in events.ANNOTATION_KEYS:
        item.pop(key, None)
    if new_ids:
        for key in ("id", "seq", "hash", "prev_hash"):
            envelope.pop(key, None)
    event = events.parse(item, session.system())
    id_ = envelope.get("id")
    if id_ is None and isinstance(event, events.EncounterOpened) and session.system():
        raise BadInput(
            f"encounter {session.writer.encounter!r} is already open ({session.system()}), and "
            "this line has no id to match it with what is stored: import into a new name "
            "(--into NAME)"
        )
    if id_ is not None:
        if not isinstance(id_, str) or not id_.strip() or len(id_) > 100:
            raise BadInput("'id' must be a non-empty string of at most 100 characters")
        known = session.writer.appended_with(id_) or (
            session.writer.known_id(id_) if id_ in stored else None
        )
        if known is not None:
            return _same_as_stored(known, event, envelope, session)
    seq = envelope.get("seq")
    if seq is not None and seq != session.writer.seq + 1:
        raise BadInput(
            f"'seq' is {seq!r}, but the encounter's next seq is {session.writer.seq + 1}"
        )
    recorded_at = envelope.get("recorded_at")
    if recorded_at is not None:
        check_time(recorded_at)
    record, _ = session.admit(event, strict=strict, audit=strict, id=id_, recorded_at=recorded_at)
    for key in ("prev_hash", "hash"):
        if key in envelope and envelope[key] != getattr(record, key):
            named = envelope.get("encounter")
            if isinstance(named, str) and named != session.writer.encounter:
                raise BadInput(
                    f"{key!r} was computed for encounter {named!r}, and the chain includes the "
                    f"name: use --new-ids to copy it as {session.writer.encounter!r}"
                )
            raise BadInput(f"{key!r} does not match the recomputed chain at seq {record.seq}")
    return 1


def _same_as_stored(
    stored: events.Recorded, event: events.Event, envelope: Mapping[str, Any], session: Session
) -> int:
    if isinstance(event, events.EncounterOpened) and isinstance(
        stored.event, events.EncounterOpened
    ):
        rules = core.pinned_rules(ruleset(event.system), event.rules)
        event = event.model_copy(update={"rules": rules})
    if stored.encounter != session.writer.encounter:
        raise BadInput(
            f"event id {stored.id!r} is already stored in encounter {stored.encounter!r}; "
            "ids are global: use --new-ids to copy an encounter under another name"
        )
    same = (
        stored.type == events.type_of(event)
        and events.body_of(stored.event) == events.body_of(event)
        and all(
            envelope.get(k, getattr(stored, k)) == getattr(stored, k)
            for k in ("seq", "recorded_at", "hash", "prev_hash")
        )
    )
    if not same:
        raise BadInput(f"event id {stored.id!r} is already stored with different contents")
    return 0
