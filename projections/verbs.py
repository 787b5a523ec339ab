"""A rule system's verbs, as data: the friendly commands (`lock`, `hit`, `endure-harm`,
`damage`...) that record one event each, on top of `encounter record`.

A verb names its event type, its arguments and options (each the event field it fills, its
type and help), the fields it always sets, and the dice the ledger rolls when the table gives
none. `ledger.cli.verbs` turns each into a command; a system imports nothing of the command line.
What data cannot say (two options that fill one nested field, an option that spells an old one)
a verb says with `build`, a pure function of the values given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

#: What a verb's values become: the event's fields (`type` included).
Build = Callable[[Mapping[str, Any]], dict[str, Any]]


class _Required:
    """The default of a param the command line must give."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "REQUIRED"


#: A param with no default: the command line must give it.
REQUIRED: Final = _Required()


@dataclass(frozen=True, slots=True)
class Param:
    """One argument (no `flags`) or option of a verb, and the event field it fills.

    `type` is the Python type the command line reads (`int`, `str | None`, a `Literal` of the
    choices, `list[int] | None`); `default` its value when not given (`REQUIRED`: it must be);
    `field` the event field it fills (a dotted path fills a nested object; None: only `build`
    reads it); `parse` turns the value given into the field's, raising ValueError with the
    one-line message for a bad one.
    """

    name: str
    type: Any
    help: str = ""
    flags: tuple[str, ...] = ()
    default: Any = REQUIRED
    field: str | None = None
    parse: Callable[[Any], Any] | None = None
    hidden: bool = False
    #: Completion of the names in the ledger file: the encounter's combatants.
    complete: Literal["combatants"] | None = None


@dataclass(frozen=True, slots=True)
class Dice:
    """Dice the ledger rolls for a field when the table gives none: `count` dice (or as many
    as the param `count` names) of `sides` faces; `single`: one number, not a list."""

    field: str
    sides: int
    count: int | str = 1
    single: bool = False
    #: The one-line error when neither the faces nor a count are given.
    missing: str | None = None


@dataclass(frozen=True, slots=True)
class Verb:
    """One friendly command of a system: it records one event of type `event`."""

    name: str
    event: str
    help: str
    params: tuple[Param, ...] = ()
    #: Fields every event of this verb carries.
    fixed: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    dice: tuple[Dice, ...] = ()
    #: The event's fields from the values given, where the params' fields do not say it all.
    build: Build | None = None

    def fields(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The event (its fields, `type` first) from the values of the params (by name; the
        dice the ledger rolled are the values of the params that fill their fields)."""
        if self.build is not None:
            return self.build(values)
        out: dict[str, Any] = {"type": self.event, **self.fixed}
        for param in self.params:
            value = values.get(param.name)
            if param.field is None or value is None:
                continue
            node = out
            *parents, leaf = param.field.split(".")
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = value
        return out

    def param_of(self, field_name: str) -> Param | None:
        """The param that fills `field_name`, if any."""
        return next((p for p in self.params if p.field == field_name), None)


def set_given(fields: dict[str, Any], **values: Any) -> dict[str, Any]:
    """`fields` with the values that were given (None means left out)."""
    return {**fields, **{k: v for k, v in values.items() if v is not None}}
