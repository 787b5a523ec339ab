"""Shared building blocks of the event vocabulary: the frozen base model and constrained types."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
)

from ledger.errors import BadInput, did_you_mean

#: A rule system's key (`ledger.systems`: which keys exist is known at run time).
SystemKey = str
Side = Literal["player", "adversary"]

#: The largest amount any event may carry; bigger numbers are typos, not table facts.
MAX_AMOUNT = 1_000_000


def _clean_name(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or blank")
    if value != value.strip():
        raise ValueError("must not start or end with spaces")
    # isprintable() is the fast answer for almost every name; the slow check allows spaces
    # such as U+00A0 (which isprintable() refuses) while refusing control characters.
    if not value.isprintable():
        hidden = next((ch for ch in value if unicodedata.category(ch).startswith("C")), None)
        if hidden is not None:
            # Named, as the terminal would not show it: a joiner inside an emoji is one.
            named = f"U+{ord(hidden):04X} {unicodedata.name(hidden, '')}".rstrip()
            raise ValueError(
                f"must not contain control or invisible format characters (it holds {named})"
            )
    return value


#: A combatant, encounter or stake name: 1-80 printable characters, no edge spaces.
Name = Annotated[str, Field(min_length=1, max_length=80), AfterValidator(_clean_name)]


@cache
def name_adapter() -> TypeAdapter[str]:
    """A validator of names alone (an encounter's, before any event names it)."""
    return TypeAdapter(Name)


#: The most characters of free text (reasons, notes).
TEXT_MAX: Final = 2000
#: Free text (reasons, notes): up to `TEXT_MAX` characters.
Text = Annotated[str, Field(max_length=TEXT_MAX)]
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
Positive = Annotated[int, Field(ge=1, le=MAX_AMOUNT)]
SignedAmount = Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Seq = Annotated[int, Field(ge=1, le=2**62)]


_MEMBER_TAGS: Final = frozenset({"int", "str", "bool", "float", "none", "dict", "list", "tuple"})


def describe(
    exc: ValidationError,
    what: str = "event",
    known: Iterable[str] | None = None,
    listing: str | None = None,
) -> str:
    """One line naming the first thing wrong in a validation error, with the offending value.

    An unknown key comes first (a typo also shows as the missing key it meant), with the
    nearest known key as a hint: `known` (when given, also listed) or the missing keys beside
    it. An unknown key of a stat block is called a stat (`what` says it is one). `listing`
    (every key with its kind and default) ends the line when a key is missing, unknown with no
    hint of what was meant, or the block as a whole is wrong."""
    # An unknown key first; then, of the members of a union a value failed, the one of the
    # value's own kind (`scene: ""` is too short a name, not a bad whole number).
    errors = sorted(exc.errors(), key=lambda e: (e["type"] != "extra_forbidden", not _own_kind(e)))
    err = errors[0]
    # An unknown field is the last place named, whatever its spelling (`a-b`).
    last = str(err["loc"][-1]) if err["type"] == "extra_forbidden" and err["loc"] else None
    loc = _path(err["loc"][:-1] if last is not None else err["loc"])
    if last is not None:
        loc.append(last)
    where = ".".join(loc)
    msg = err["msg"]
    noun = "field"
    if err["type"] in ("extra_forbidden", "missing") and what.startswith("stats of"):
        noun = "stat"  # a stat block's key that is not there, or should not be
    explained = 0
    if err["type"] == "extra_forbidden":
        missing = [e for e in errors if e["type"] == "missing" and _path(e["loc"])[:-1] == loc[:-1]]
        candidates = [_path(e["loc"])[-1] for e in missing if _path(e["loc"])]
        hint = did_you_mean(loc[-1] if loc else where, [*candidates, *(known or ())])
        explained = sum(1 for e in missing if hint and repr(_path(e["loc"])[-1]) in hint)
        text = f"{what} has unknown {noun} {where!r}{hint}"
        # A stat's typo says what it meant; only a stat the system has no likeness of needs
        # the whole list (a house rule's table always shows it).
        if hint and noun == "stat":
            listing = None
        elif known is not None and listing is None:
            text += f" (valid: {', '.join(known)})"
    elif err["type"] == "missing":
        text = f"{what} is missing {noun} {where!r}"
    else:
        value = json.dumps(err.get("input"), default=str)
        if len(value) > 60:
            value = value[:57] + "..."
        field = f"{noun} {where!r}" if where else what
        msg = msg.removeprefix("Value error, ")
        text = f"{what} {field}: {msg[0].lower()}{msg[1:]} (got {value})"
        if not where:
            text = f"{what}: {msg[0].lower()}{msg[1:]}"
        else:
            listing = None  # a known key's value: what it should be says enough
    # The members of a union a value failed are one problem: its place is named once.
    more = len({tuple(_path(e["loc"])) for e in errors}) - 1 - explained
    text += f" (and {more} more problem{'s' * (more > 1)})" if more else ""
    return text + (f"; {listing}" if listing else "")


def code_of(exc: ValidationError, unknown: str) -> str:
    """The error code of a validation error: `unknown` when a key is unknown (a typo)."""
    return unknown if any(e["type"] == "extra_forbidden" for e in exc.errors()) else "bad-input"


def _own_kind(err: Any) -> bool:
    """Whether a validation error is about the kind of value given: a text's length or pattern
    for text, a number's bounds for a number."""
    given, kind = err.get("input"), str(err["type"])
    if isinstance(given, str):
        return kind.startswith("string_")
    if isinstance(given, int) and not isinstance(given, bool):
        return kind.startswith(("int_", "greater_than", "less_than", "multiple_of"))
    return False


def _path(location: Iterable[Any]) -> list[str]:
    # pydantic names the member of a union it tried (`constrained-int`, `literal['all']`):
    # that is not a field, so leave it out of the path.
    return [p for p in map(str, location) if not ("[" in p or "-" in p or p in _MEMBER_TAGS)]


class Model(BaseModel, frozen=True, extra="forbid", strict=True, defer_build=True):
    """A frozen, closed value object nested inside events (stats, partial outcomes)."""


class Source(Model, frozen=True):
    """Where an imported event came from: a note (its path as the import was given it) and the
    line in it (`Session 3.md:41`)."""

    file: Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_clean_name)]
    line: Annotated[int, Field(ge=1, le=MAX_AMOUNT)]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def own_source_in_place(
    event: BaseModel, handler: SerializerFunctionWrapHandler, after: str
) -> dict[str, Any]:
    """The dump of an event whose own `source` field predates the envelope's (DESIGN 4), with
    `source` where the event always had it (right after the field `after`), not where the
    envelope's would put it: its stored bodies and exports keep their bytes."""
    dumped: dict[str, Any] = handler(event)
    if "source" not in dumped:
        return dumped
    names = [n for n in type(event).model_fields if n != "source"]
    names.insert(names.index(after) + 1, "source")
    return {n: dumped[n] for n in names if n in dumped}


class EventBase(BaseModel, frozen=True, extra="forbid", strict=True, defer_build=True):
    """Fields every event may carry: game time (`scene`, `round`), who recorded it (`by`, and
    `entered_by` when a GM entered it in their name) and where it was imported from (`source`)."""

    scene: Annotated[int, Field(ge=0)] | Name | None = None
    round: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    by: Name | None = None
    source: Source | None = None
    #: The user who entered the event in the name of `by` (a GM at the table, `--as gm --by
    #: ana`): the policy judges their right to, not `by`'s. None: `by` entered it.
    entered_by: Name | None = None

    if not TYPE_CHECKING:  # mypy keeps the pydantic plugin's typed signature of each event

        def __init__(self, **data: Any) -> None:
            """Build an event from its fields; bad values are the ledger's `BadInput`."""
            try:
                super().__init__(**data)
            except ValidationError as exc:
                kind = type(self).model_fields["type"].default
                raise BadInput(describe(exc, f"{kind} event")) from exc

        # Validation (`validate_json`, the read path) builds instances without calling this
        # `__init__`, as it does for BaseModel's own (pydantic's RootModel marks its `__init__`
        # the same way): only a model built by hand goes through it.
        __init__.__pydantic_base_init__ = True
