"""A rule system's verbs, as data: the friendly commands (`lock`, `hit`, `endure-harm`,
`damage`...) that record one event each, on top of `encounter record`.

A verb names its event type, its arguments and options (each the event field it fills, its
type and help), the fields it always sets, and the dice the ledger rolls when the table gives
none. `ledger.cli.verbs` turns each into a command; a system imports nothing of the command line.
What data cannot say (two options that fill one nested field, an option that spells an old one)
a verb says with `build`, a pure function of the values given. A param may read its value off
the encounter when none is given (`infer`: a burn's roll is the character's last), or name a
locked stake (`stake`: the command line refuses one never locked). The option names are also
the names `amend` takes for the fields they fill (`stored_fields`): one name for one field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal, get_args, get_origin

from ledger.errors import did_you_mean
from projections.state import State

#: What a verb's values become: the event's fields (`type` included).
Build = Callable[[Mapping[str, Any]], dict[str, Any]]
#: A param's value when the command line gives none, from the values given and the encounter
#: as it stands (the last roll of the character named); ValueError says why there is none.
Infer = Callable[[Mapping[str, Any], State], Any]


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
    `field` the event field it fills (a dotted path fills a nested object), which `amend`
    also takes the param's option name for (None: only `build` reads it); `parse` turns the
    value given into the field's, raising ValueError with the one-line message for a bad one.
    """

    name: str
    type: Any
    help: str = ""
    flags: tuple[str, ...] = ()
    default: Any = REQUIRED
    field: str | None = None
    parse: Callable[[Any], Any] | None = None
    hidden: bool = False
    #: The value when none is given, read from the encounter (`default` must then be None).
    infer: Infer | None = None
    #: It names stakes locked earlier: the command line refuses an id never locked (with the
    #: nearest one), unless told `--as-played` (the event is then recorded and flagged).
    stake: bool = False
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
    #: The most dice a count may name (the event field's own limit), refused naming its option.
    most: int | None = None


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

    def inferred(self, values: Mapping[str, Any], state: State) -> dict[str, Any]:
        """`values` with each param left out that the encounter can tell (`Param.infer`)."""
        out = dict(values)
        for param in self.params:
            if param.infer is not None and out.get(param.name) is None:
                out[param.name] = param.infer(out, state)
        return out

    def unlocked(self, values: Mapping[str, Any], state: State) -> str | None:
        """Why a stake id given is not one the encounter has locked, or None."""
        for param in self.params:
            given = values.get(param.name)
            if param.stake and isinstance(given, str) and given not in state.stakes:
                known = ", ".join(state.stakes) or "none yet"
                return (
                    f"stake {given!r} was never locked in encounter {state.encounter!r}"
                    f"{did_you_mean(given, state.stakes)} (locked: {known}); lock it first, "
                    "or record the roll as played with --as-played (the audit flags it)"
                )
        return None


def last_roll(of: str) -> Infer:
    """An `infer` giving the seq of the last effective roll whose actor is the value of the
    param `of` (the roll a momentum burn is for)."""

    def infer(values: Mapping[str, Any], state: State) -> int:
        who = values.get(of)
        seq = next((r.seq for r in reversed(state.rolls) if r.actor == who), None)
        if seq is None:
            raise ValueError(f"{who!r} has made no roll in encounter {state.encounter!r}")
        return seq

    return infer


def stored_fields(
    verbs: Iterable[Verb], event_type: str, fields: Mapping[str, Any], stored: Iterable[str]
) -> dict[str, Any]:
    """`fields` of an event of `event_type` with each option name of its verbs (`using`,
    `--against`, `consequence-harm`, `increase`) turned into the field it fills (`stat`,
    `opposing`, `consequence_harm`, `increases`), its value read as the option reads it (its
    `parse`; a repeated option's single value as a list). The event's `stored` field names
    pass as they are (a stored name always means its field), their text values read as the
    option that fills them reads them (`challenge` `3,8`)."""
    known = frozenset(stored)
    names: dict[str, Param] = {}
    for verb in verbs:
        if verb.event != event_type:
            continue
        for each in verb.params:
            if each.field is None or each.hidden:
                continue
            for spelling in _spellings(each):
                names.setdefault(spelling, each)
    by_field = {p.field: p for p in names.values() if p.parse is not None}
    out: dict[str, Any] = {}
    for key, value in fields.items():
        bare = key.removeprefix("--")
        param: Param | None = by_field.get(bare) if bare in known else names.get(bare)
        if param is None or param.field is None:
            out[bare] = value
            continue
        if param.parse is not None and isinstance(value, str):
            value = param.parse(value)
        if _repeated(param.type) and value is not None and not isinstance(value, list):
            value = [value]
        node = out
        *parents, leaf = param.field.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def option_names(verbs: Iterable[Verb], event_type: str) -> dict[str, str]:
    """The option names of the verbs of `event_type`, each with the field it fills."""
    return {
        spelling: param.field
        for verb in verbs
        if verb.event == event_type
        for param in verb.params
        if param.field is not None and not param.hidden
        for spelling in _spellings(param)
    }


def _spellings(param: Param) -> list[str]:
    """Every way a param may be named in place of its field: its flags without the dashes
    (`consequence-harm`), the same with underscores, and its own name."""
    found = [flag.removeprefix("--") for flag in param.flags if flag.startswith("--")]
    found += [name.replace("-", "_") for name in found]
    found.append(param.name)
    return list(dict.fromkeys(found))


def _repeated(kind: Any) -> bool:
    """Whether a param's type is a list (a repeated option), optional or not."""
    return any(get_origin(k) is list for k in (kind, *get_args(kind)))


def set_given(fields: dict[str, Any], **values: Any) -> dict[str, Any]:
    """`fields` with the values that were given (None means left out)."""
    return {**fields, **{k: v for k, v in values.items() if v is not None}}
