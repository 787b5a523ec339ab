"""A rule system's stat blocks in words: each key of a side's stats with its kind and default,
read from the model the system's `join` validates them with (`Ruleset.stats`).

`encounter add --help`, the error for a stat block that does not validate, and the JSON
Schema's reference (`ledger.reference`) all read kinds with `kind`: one source.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from ledger import events
from ledger.errors import BadInput
from projections.system import article

#: Ranges wider than this read as a kind alone (`integer`, not `integer 0-1000000`).
_SMALL: Final = 1000


@dataclass(frozen=True, slots=True)
class Stat:
    """One key of a stat block: its kind, whether it must be given, and its default."""

    key: str
    kind: str
    required: bool
    #: The default as JSON text, or None (none, or an empty list or object).
    default: str | None

    def __str__(self) -> str:
        terms = [self.kind]
        if self.required:
            terms.append("required")
        elif self.default is not None:
            terms.append(f"default {self.default}")
        return f"{self.key} ({'; '.join(terms)})"


def stats(
    model: type[BaseModel], choices: Callable[[list[Any]], str] | None = None
) -> tuple[Stat, ...]:
    """The keys of a stat block model, in order (`choices` writes a list of choices: by
    default as the command line does)."""
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})
    required = set(schema.get("required", ()))
    return tuple(
        Stat(key, kind(prop, defs, choices or plain), key in required, default(prop))
        for key, prop in schema.get("properties", {}).items()
    )


def listing(model: type[BaseModel]) -> str:
    """`resilience (integer or null; required), armor (none|light|medium|heavy; default
    none), ...`, and a note when the block keeps other keys as given."""
    text = ", ".join(str(stat) for stat in stats(model))
    if model.model_config.get("extra") == "allow":
        text += ", and any other key (kept as given)"
    return text or "none"


def block(model: type[BaseModel]) -> dict[str, Any]:
    """A stat block as data (`encounter events --json`): each key with its kind, whether it
    must be given and its default, and whether the block keeps other keys as given."""
    keys = [
        {"key": s.key, "kind": s.kind, "required": s.required, "default": s.default}
        for s in stats(model)
    ]
    return {"keys": keys, "other_keys": model.model_config.get("extra") == "allow"}


def sides(blocks: Mapping[str, type[BaseModel]]) -> Iterator[tuple[str, str]]:
    """(side, listing) for each side a system names a stat block for."""
    for side, model in blocks.items():
        yield side, listing(model)


#: The schema key of a default that no value states: what the fold takes instead (a house
#: rule's), in words (`Field(json_schema_extra={DEFAULT_FROM: "house rule momentum_start"})`).
DEFAULT_FROM: Final = "x-default-from"


def default(prop: Mapping[str, Any]) -> str | None:
    """A property's default as JSON text (a text as it is), or what gives it (`DEFAULT_FROM`),
    or None: none, or empty."""
    if DEFAULT_FROM in prop:
        return str(prop[DEFAULT_FROM])
    if "default" not in prop:
        return None
    value = prop["default"]
    if value is None or value == [] or value == {}:
        return None
    return value if isinstance(value, str) else json.dumps(value)


def plain(values: list[Any]) -> str:
    """Choices as the command line writes them: `none|light|medium|heavy`."""
    return "|".join(str(v) for v in values)


def code(values: list[Any]) -> str:
    """Choices as Markdown writes them: `` `none` / `light` ``."""
    return " / ".join(f"`{v}`" for v in values)


def kind(
    prop: Mapping[str, Any], defs: Mapping[str, Any], choices: Callable[[list[Any]], str]
) -> str:
    """A short name for a JSON Schema property's kind (`choices` writes a list of choices)."""
    if "enum" in prop:
        return choices(list(prop["enum"]))
    if "const" in prop:
        return choices([prop["const"]])
    if "$ref" in prop:
        return kind(defs[prop["$ref"].rsplit("/", 1)[-1]], defs, choices)
    if "anyOf" in prop:
        kinds = [kind(p, defs, choices) for p in prop["anyOf"] if p.get("type") != "null"]
        named = " or ".join(dict.fromkeys(kinds)) or "null"
        nullable = any(p.get("type") == "null" for p in prop["anyOf"])
        return f"{named} or null" if nullable and "default" not in prop else named
    found = prop.get("type")
    if found == "array":
        items = prop.get("items") or (prop.get("prefixItems") or [{}])[0]
        return f"list of {kind(items, defs, choices)}"
    if found == "object":
        keys = list(prop.get("properties", {}))
        return "object {" + ", ".join(keys) + "}" if keys else "object"
    if found == "integer":
        low, high = prop.get("minimum"), prop.get("maximum")
        if low is not None and high is not None and high - low <= _SMALL:
            return f"integer {low}..{high}"
    if found == "string":
        return "text"
    return str(found or "any JSON value")


def refused(
    exc: ValidationError, name: str, side: str, model: type[BaseModel], key: str
) -> BadInput:
    """Bad input for the stat block of `name` (on `side`, in system `key`) that `model` did
    not validate: what is wrong, then every stat of that side with its kind and default."""
    what = f"stats of {name!r}"
    told = f"{article(key)} {side}'s stats: {listing(model)}"
    return BadInput(events.describe(exc, what, known=model.model_fields, listing=told))
