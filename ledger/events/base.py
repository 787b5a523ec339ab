"""Shared building blocks of the event vocabulary: the frozen base model and constrained types."""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, TypeAdapter, ValidationError

from ledger.errors import BadInput

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
    if not value.isprintable() and any(unicodedata.category(ch).startswith("C") for ch in value):
        raise ValueError("must not contain control characters")
    return value


#: A combatant, encounter or stake name: 1-80 printable characters, no edge spaces.
Name = Annotated[str, Field(min_length=1, max_length=80), AfterValidator(_clean_name)]


@cache
def name_adapter() -> TypeAdapter[str]:
    """A validator of names alone (an encounter's, before any event names it)."""
    return TypeAdapter(Name)


#: Free text (reasons, notes): up to 2,000 characters.
Text = Annotated[str, Field(max_length=2000)]
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
Positive = Annotated[int, Field(ge=1, le=MAX_AMOUNT)]
SignedAmount = Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Seq = Annotated[int, Field(ge=1, le=2**62)]


if TYPE_CHECKING:
    #: The keys of every rule system found, in declared order (`ledger.systems.known()`).
    SYSTEMS: tuple[SystemKey, ...]
else:

    def __getattr__(name: str) -> Any:
        # Found on first use (PEP 562): the systems are the entry points, not a list here.
        if name == "SYSTEMS":
            from ledger import systems

            return systems.known()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class EventBase(BaseModel, frozen=True, extra="forbid", strict=True, defer_build=True):
    """Fields every event may carry: game time (`scene`, `round`) and who recorded it (`by`)."""

    scene: Annotated[int, Field(ge=0)] | Name | None = None
    round: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    by: Name | None = None

    if not TYPE_CHECKING:  # mypy keeps the pydantic plugin's typed signature of each event

        def __init__(self, **data: Any) -> None:
            """Build an event from its fields; bad values are the ledger's `BadInput`."""
            try:
                super().__init__(**data)
            except ValidationError as exc:
                from ledger.events import describe

                kind = type(self).model_fields["type"].default
                raise BadInput(describe(exc, f"{kind} event")) from exc

        # Validation (`validate_json`, the read path) builds instances without calling this
        # `__init__`, as it does for BaseModel's own (pydantic's RootModel marks its `__init__`
        # the same way): only a model built by hand goes through it.
        __init__.__pydantic_base_init__ = True


class Model(BaseModel, frozen=True, extra="forbid", strict=True, defer_build=True):
    """A frozen, closed value object nested inside events (stats, partial outcomes)."""
