"""Event schema versions: each type's version, and the upcasters that read older bodies.

Version 1 is implicit: a body carries `"event_version": N` only from version 2 on, so every body
written before versions existed, every hash over it and every export stays byte-identical. A
type's version goes up when a field must change (a new meaning is a new type instead), with an
upcaster from the version before: a body is upcast one version at a time to its type's current
version before its model validates it, so the fold only ever sees today's shape, while the
stored bytes stay as written (the hash covers them: exports carry them, and an imported line of
an older version that carries its hash is stored as it is). A body of a version this build
does not know (written by a newer build) is `UnknownVersion`, not tampering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ledger.errors import UnknownVersion

#: The body key that holds an event's version, from version 2 on.
KEY: Final = "event_version"

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

#: Each event type's current version, where it is above 1 (every other type is at 1).
CURRENT: Final[dict[str, int]] = {}

#: (type, version) -> the upcaster from a body at that version to one at the next.
UPCASTERS: Final[dict[tuple[str, int], Upcaster]] = {}


def current(kind: str) -> int:
    """The version this build writes events of type `kind` at."""
    return CURRENT.get(kind, 1)


def known() -> dict[str, int]:
    """Every type whose version is above 1, with its version (for `encounter schema`)."""
    return dict(sorted(CURRENT.items()))


def version_of(kind: str, data: Mapping[str, Any]) -> int:
    """The version a body was written at (1 when it carries none), or `UnknownVersion`."""
    if KEY not in data:
        return 1
    version = data[KEY]
    now = current(kind)
    if type(version) is not int or version < 2:
        raise UnknownVersion(
            f"{kind} event has {KEY} {version!r}: a version is a whole number from 2 up "
            f"(version 1 is written without it); this build knows {kind} up to version {now}"
        )
    if version > now:
        raise UnknownVersion(
            f"{kind} event is of version {version}, written by a newer build: this one knows "
            f"{kind} up to version {now}; upgrade encounter-ledger to read it"
        )
    return version


def upcast(kind: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A body (or an exchanged line) at its type's current version, without the version key:
    `data` itself when it is already current (the common case, no copy)."""
    if KEY not in data and kind not in CURRENT:  # version 1 of a type that has no other
        return data
    version = version_of(kind, data)
    now = current(kind)
    if version == now and KEY not in data:
        return data
    body = {k: v for k, v in data.items() if k != KEY}
    for step in range(version, now):
        body = UPCASTERS[(kind, step)](body)
    return body


def stamped(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """A body as stored: with the version key when the type is past version 1."""
    now = current(kind)
    if now > 1:
        body[KEY] = now
    return body


def may_need_upcast(kind: str) -> bool:
    """Whether a stored body of this type may be of an older version (then it is parsed and
    upcast; any other body is parsed straight into its model, and one that carries a version
    key fails that and is parsed again, which says what is wrong)."""
    return kind in CURRENT


def check_table() -> list[str]:
    """What is missing from the upcaster table: a step from each version below the current."""
    return [
        f"{kind}: no upcaster from version {step}"
        for kind, now in CURRENT.items()
        for step in range(1, now)
        if (kind, step) not in UPCASTERS
    ]
