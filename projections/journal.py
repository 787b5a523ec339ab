"""A journal's mechanics as data: the nodes of the mechanics blocks of players' notes (an Iron
Vault journal's KDL), where each is, and the events a rule system plans from them.

A system reads a journal format by naming a planner in its description (`System.journals`):
a pure function of the blocks (`Planner`); `ledger.ironvault` reads the notes and admits
what it plans.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Node:
    """One node of a mechanics block, where it is in its note, and its text."""

    name: str
    args: tuple[Any, ...]
    props: Mapping[str, Any]
    children: tuple[Node, ...]
    #: The note, as a path relative to the folder (or file) the import was given.
    file: str
    line: int
    #: Its place among the nodes of its note, in document order (children after their parent).
    ordinal: int
    #: The node as one line of KDL, its children left out (its identity, and a note's text).
    text: str

    @property
    def where(self) -> str:
        """`Session 3.md:41`."""
        return f"{self.file}:{self.line}"

    def arg(self, key: str, position: int) -> Any:
        """A value given as a property or by position (Iron Vault accepts either)."""
        if key in self.props:
            return self.props[key]
        return self.args[position] if position < len(self.args) else None

    def whole(self) -> str:
        """The node with its children, as KDL on one line (`oracle-group "x" { oracle ... }`)."""
        if not self.children:
            return self.text
        return self.text + " { " + "; ".join(c.whole() for c in self.children) + " }"


@dataclass(frozen=True, slots=True)
class Block:
    """One mechanics block: its nodes, and the line of its opening fence."""

    file: str
    line: int
    nodes: tuple[Node, ...]


@dataclass(slots=True)
class Planned:
    """One event to import: its fields (with its `source`), the node it comes from, and for an
    event that names another planned one by seq (a burn's roll) the field and that one."""

    fields: dict[str, Any]
    node: Node
    names: tuple[str, Planned] | None = None
    #: Its id, given by the importer (from the encounter, the note, the node and its text).
    id: str = ""


@dataclass(frozen=True, slots=True)
class Sheet:
    """A character note's front matter: the character's starting values as the note keeps
    them (the system reads what it knows of them)."""

    name: str
    data: Mapping[str, Any]
    file: str


@dataclass(slots=True)
class Plan:
    """What a planner made of a journal: the events in order (a character's join before their
    first), the nodes kept as notes by name, and the characters the journal names."""

    events: list[Planned] = field(default_factory=list)
    kept: Counter[str] = field(default_factory=Counter)
    characters: tuple[str, ...] = ()


class Planner(Protocol):
    """A system's reading of a journal format: the events of `blocks`, for an encounter whose
    combatants are `present`; `character` is whom a block with no actor is about, `sheets`
    the character notes given (by character)."""

    def __call__(
        self,
        blocks: Sequence[Block],
        character: str | None,
        present: frozenset[str],
        sheets: Mapping[str, Sheet],
    ) -> Plan: ...
