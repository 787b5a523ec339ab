"""Importing an Iron Vault (Obsidian) journal into an encounter of the system that reads it,
inside one write transaction: every node's events with the note and line they came from
(`source`), ids derived from the encounter, the note, the node's place in it and its text, so
that the same notes import to nothing new and a journal that grew appends only its new nodes.

`notes` reads the journal (files, fences, KDL), the system's planner (`System.journals`, a
pure function) plans the events; this module checks them against what the encounter already
holds and admits the new ones (docs/iron-vault.md).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ledger import events, revise, systems
from ledger.errors import BadInput
from ledger.ironvault.notes import EXTRA, blocks, file_text, front_matter, note_files
from ledger.jsonl import read_text
from ledger.write import Given, Session
from projections import core
from projections.journal import Block, Planned, Sheet

#: The journal format this package reads.
FORMAT: Final = "iron-vault"

__all__ = ["EXTRA", "FORMAT", "Journal", "Sheet", "import_journal", "read_journal", "read_sheet"]

#: The namespace of the ids of imported journal events (uuid5 of what identifies each).
NAMESPACE: Final = uuid.UUID("5b0e7d2e-6f4e-5a53-9d8c-2a3c4e1f7b90")
_SETUP: Final = frozenset({"encounter.opened", "combatant.joined"})


@dataclass(frozen=True, slots=True)
class Journal:
    """What an import of a journal did (on a dry run: what it would have done)."""

    encounter: str
    notes: int
    appended: int
    already_stored: int
    head: int
    #: The nodes kept as notes, by node name (`progress`, `clock`, `-`...).
    kept: Mapping[str, int]
    #: Each appended event with the encounter before and after it.
    folds: tuple[tuple[core.State | None, events.Recorded, core.State], ...]
    dry_run: bool = False

    def document(self) -> dict[str, Any]:
        """The import as `import --from iron-vault --json` shows it."""
        return {
            "encounter": self.encounter,
            "notes": self.notes,
            "appended": self.appended,
            "already_stored": self.already_stored,
            "head": self.head,
            "kept_as_notes": dict(self.kept),
            "dry_run": self.dry_run,
        }


def read_journal(paths: Sequence[str | Path]) -> tuple[list[Block], int]:
    """Every mechanics block of the notes `paths` name (notes, or folders of notes), in
    order, and how many notes were read."""
    if not paths:
        raise BadInput("name at least one note or folder of an Iron Vault journal")
    found = note_files(paths)
    read: list[Block] = []
    for name, file in found:
        read.extend(blocks(name, read_text(file)))
    if not read:
        raise BadInput(
            "found no mechanics (```iron-vault-mechanics blocks, `iv-` inline) in "
            f"{len(found)} note{'s' * (len(found) != 1)}: nothing to import"
        )
    return read, len(found)


def read_sheet(path: str | Path, character: str | None) -> Sheet:
    """The character note at `path` (its front matter); the character is `character`, else
    the note's `name`, else its file name."""
    file = Path(path)
    data = front_matter(file)
    name = character or data.get("name") or file.stem
    return Sheet(str(name), data, file_text(file.name))


def import_journal(
    session: Session,
    read: Sequence[Block],
    *,
    character: str | None = None,
    sheets: Iterable[Sheet] = (),
) -> tuple[list[tuple[core.State | None, events.Recorded, core.State]], int, Counter[str]]:
    """Admit the events of a journal's blocks that the encounter does not hold yet, in order:
    (each appended event with the states around it, how many were stored already, the nodes
    kept as notes by name). A node changed where it was imported is bad input."""
    reader, planner = systems.journal(FORMAT)
    session.ready()
    system = session.system()
    if system is not None and system != reader.key:
        raise BadInput(
            f"encounter {session.encounter!r} is {systems.get(system).article()} encounter; "
            f"an Iron Vault journal imports into {reader.article()} one (choose another --into)"
        )
    state = session.state
    present = frozenset(state.combatants) if state is not None else frozenset()
    plan = planner(read, character, present, {s.name: s for s in sheets})
    events_ = plan.events
    if not events_:
        raise BadInput("the mechanics blocks hold no node to import: nothing to import")
    _name(session.encounter, events_)
    if system is None:
        opened = Planned({"type": "encounter.opened", "system": reader.key}, events_[0].node)
        opened.id = _id(session.encounter, "encounter.opened")
        events_.insert(0, opened)
    matched = _check_stored(session, events_)
    folds = []
    # The opening and the joins of an earlier import, when they are the journal's own.
    setup = [_id(session.encounter, "encounter.opened")] * (system is not None)
    setup += [_id(session.encounter, "combatant.joined", who) for who in plan.characters]
    planned_ids = {p.id for p in events_}
    already = sum(1 for i in setup if i not in planned_ids and session.known_row(i) is not None)
    for planned in events_:
        if planned.id in matched or session.known_row(planned.id) is not None:
            already += 1
            continue
        folds.append(_admit(session, planned))
    return folds, already, plan.kept


def _id(*parts: object) -> str:
    # A lone surrogate (a name from a command line that is not UTF-8) is escaped, so that
    # the event carrying it is refused as bad input rather than the id failing to hash.
    text = "\x1f".join(map(str, parts))
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return str(uuid.uuid5(NAMESPACE, text))


def _name(encounter: str, plan: Sequence[Planned]) -> None:
    """Each event's id: the encounter, the note, the node's place and text, and the event's
    index among the node's events (a join's: the encounter and the character)."""
    counts: Counter[tuple[str, int]] = Counter()
    for planned in plan:
        if planned.fields["type"] == "combatant.joined":
            planned.id = _id(encounter, "combatant.joined", planned.fields["name"])
            continue
        node = planned.node
        k = counts[(node.file, node.ordinal)]
        counts[(node.file, node.ordinal)] += 1
        planned.id = _id(encounter, node.file, node.ordinal, node.text, k)


def _check_stored(session: Session, plan: Sequence[Planned]) -> set[str]:
    """The ids of planned events that are stored already, as an amendment (a stored event
    whose correction made it what the journal now says); bad input when the journal changed
    where it was imported, or grew before a note already imported."""
    files = list(dict.fromkeys(p.node.file for p in plan))
    stored: dict[str, list[events.Recorded]] = {f: [] for f in files}
    for record in session.records():
        where = record.event.source if events.origin(record.event) else None
        if (
            isinstance(where, events.Source)
            and where.file in stored
            and record.type not in _SETUP
            and record.seq not in session.gone
        ):
            stored[where.file].append(record)
    planned: dict[str, list[Planned]] = {f: [] for f in files}
    for p in plan:
        if p.fields["type"] not in _SETUP:
            planned[p.node.file].append(p)
    matched: set[str] = set()
    for file in files:
        had, has = stored[file], planned[file]
        for index, record in enumerate(had):
            if index >= len(has):
                raise BadInput(
                    f"{file}: the journal no longer has the node that seq {record.seq} "
                    f"({record.type}) was imported from ({events.origin(record.event)}); "
                    "nothing was imported: import into a new encounter"
                )
            now = has[index]
            if now.id == record.id:
                continue
            if _same(session, record, now):
                matched.add(now.id)
                continue
            raise BadInput(
                f"{now.node.where}: the journal changed where it was imported: "
                f"`{now.node.text}` contradicts seq {record.seq} ({record.type}, imported from "
                f"{events.origin(record.event)}); nothing was imported: amend seq "
                f"{record.seq} to match it, or import into a new encounter"
            )
    _grew_in_order(files, stored, planned)
    return matched


def _same(session: Session, record: events.Recorded, now: Planned) -> bool:
    """Whether a stored event, as corrected, is what the planned one says (its line aside)."""
    read = session.as_read(record.seq)
    body = {k: v for k, v in events.body_of(read.event).items() if k != "source"}
    fields = _fields(session, now)
    wanted = {k: v for k, v in fields.items() if k not in ("type", "source")}
    try:
        parsed = events.body_of(systems.parse({"type": fields["type"], **wanted}, session.system()))
    except BadInput:
        return False
    return read.type == fields["type"] and body == parsed


def _grew_in_order(
    files: Sequence[str],
    stored: Mapping[str, list[events.Recorded]],
    planned: Mapping[str, list[Planned]],
) -> None:
    """A note may grow only while no note after it has been imported: the ledger appends."""
    for index, file in enumerate(files):
        new = planned[file][len(stored[file]) :]
        if not new:
            continue
        later = [f for f in files[index + 1 :] if stored[f]]
        if later:
            node = new[0].node
            first = stored[later[0]][0]
            raise BadInput(
                f"{node.where} is new, but {later[0]}, after it, was imported already (seq "
                f"{first.seq}): the ledger only appends; nothing was imported: import the "
                "journal into a new encounter"
            )


def _fields(session: Session, planned: Planned) -> dict[str, Any]:
    """The planned event's fields, the planned event it names (a burn's roll) as its seq."""
    fields = dict(planned.fields)
    if planned.names is not None:
        key, named = planned.names
        row = session.known_row(named.id)
        if row is None:
            raise BadInput(f"{planned.node.where}: the event it names was not imported")
        fields[key] = row.seq
    return fields


def _admit(
    session: Session, planned: Planned
) -> tuple[core.State | None, events.Recorded, core.State]:
    """Append one planned event; bad input names the note and line it came from (a
    character's joining from a character sheet: that note)."""
    source = planned.fields.get("source")
    where = planned.node.where
    if isinstance(source, dict) and {"file", "line"} <= source.keys():
        where = f"{source['file']}:{source['line']}"
    try:
        event = systems.parse(_fields(session, planned), session.system())
        before = session.state
        record, _ = revise.admit(session, event, strict=False, audit=False, given=Given(planned.id))
    except BadInput as exc:
        raise exc.reworded(f"{where}: {exc}") from exc
    after = session.state
    assert after is not None
    return before, record, after
