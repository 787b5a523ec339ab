"""Read-only JSON containers for event fields that hold objects and arrays (`stats`, `rules`,
a correction's `fields`, an override's `value`, a sheet's `values`).

A frozen event must not be changed through its fields (`event.stats["iron"] = 9`), so these
fields hold `FrozenDict` and `FrozenList`, all the way down. They are `dict` and `list`
subclasses on purpose: they compare equal to the plain values a fold's view holds (a sheet's
`[1]` is the ledger's `[1]`), pass strict validation where the folds read a stat block,
serialize as JSON objects and arrays by every encoder (pydantic, the stdlib), so no
stored body, hash or export changes; only every method that would change them raises. A copy
(`dict(event.stats)`, `.copy()`) is a plain one, to edit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, NoReturn

from pydantic import AfterValidator, JsonValue


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"a {type(self).__name__} of an event is read-only: edit a copy")


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot be changed (a dict for every reader)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def copy(self) -> dict[str, Any]:
        """A plain, editable copy."""
        return dict(self)

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        # Built from a plain dict: the default protocol would call the refused __setitem__.
        return FrozenDict, (dict(self),)


class FrozenList(list[Any]):
    """A JSON array that cannot be changed (a list for every reader)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def copy(self) -> list[Any]:
        """A plain, editable copy."""
        return list(self)

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)


#: What `frozen` makes read-only (a read-only one is built again: it may hold a plain one).
_CONTAINERS: Final = frozenset({dict, list, FrozenDict, FrozenList})


def frozen(value: Any) -> Any:
    """`value` with every dict and list in it read-only (a new container only where needed)."""
    kind = type(value)
    if kind is dict or kind is FrozenDict:
        return frozen_object(value)
    if kind is list or kind is FrozenList:
        return FrozenList([frozen(v) if type(v) in _CONTAINERS else v for v in value])
    return value


def frozen_object(value: Mapping[str, Any]) -> FrozenDict:
    """A JSON object field, read-only all the way down."""
    # `frozen` is called only for what it changes: most values of a stat block are scalars.
    return FrozenDict({k: frozen(v) if type(v) in _CONTAINERS else v for k, v in value.items()})


#: A JSON object field of an event, read-only (`stats`, `rules`, `fields`, `values`).
JsonObject = Annotated[Mapping[str, JsonValue], AfterValidator(frozen_object)]
#: Any JSON value field of an event, read-only when it is an object or an array (`value`).
Json = Annotated[JsonValue, AfterValidator(frozen)]

__all__ = ["FrozenDict", "FrozenList", "Json", "JsonObject", "frozen", "frozen_object"]
