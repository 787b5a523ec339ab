"""The library's face: `Ledger`, one ledger file or PostgreSQL database, on which the
`encounter` command is built (bots and VTT bridges use it the same way).

    from ledger import Ledger
    with Ledger("encounters.db") as ledger:
        ledger.open("duel", system)       # a key of `ledger.systems.known()`
        ledger.join("duel", "Bandit", "adversary", stats)
        ledger.record("duel", {"type": ..., "target": "Bandit", ...})
        ledger.tracks("duel").view()

Writes are `ledger.write` (and `ledger.revise` for undo, redo and amend), reads
`ledger.read`, imports `ledger.jsonl`; this module opens the store and holds them together.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ledger import dice, events, ironvault, jsonl, revise, systems
from ledger.dice import admit as dice_admit
from ledger.errors import BadInput, BrokenChain, Conflict, NotAllowed, StoreError
from ledger.events.portable import normalized
from ledger.follow import Followed, follow, follow_positions
from ledger.read import LOSS_NOTE, Reader
from ledger.store import (
    DEFAULT_DB,
    DEFAULT_TENANT,
    SCRATCH,
    check_tenant,
    connections,
    is_postgres,
    now_utc,
)
from ledger.store import snapshots as sealed
from ledger.store.sql import SqlStore
from ledger.store.sqlite import open_sqlite
from ledger.table import Table
from ledger.write import Session, Written, check_name, check_seq, game_time

__all__ = [
    "DEFAULT_DB",
    "Copied",
    "Followed",
    "Imported",
    "Ledger",
    "Migrated",
    "Written",
    "copy_ledger",
    "load",
    "migrate",
]


def open_store(
    location: str | Path,
    clock: Callable[[], datetime] = now_utc,
    create: bool = True,
    readonly: bool = False,
    pool_size: int | None = None,
    tenant: str = DEFAULT_TENANT,
    notify: bool = False,
) -> SqlStore:
    """The store `location` names, for one tenant: a `postgresql://` URL, or else a SQLite
    file path."""
    check_tenant(tenant)
    size = connections(location, pool_size, notify)
    if is_postgres(location):
        # psycopg is an optional backend (`pip install 'encounter-ledger[postgres]'`).
        from ledger.store.postgres import open_postgres

        return open_postgres(
            str(location), clock, create=create and not readonly, readonly=readonly,
            pool_size=size, tenant=tenant, notify=notify,
        )  # fmt: skip
    return open_sqlite(location, clock, create=create, readonly=readonly, tenant=tenant)


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import did."""

    encounter: str
    appended: int
    already_stored: int
    head: int

    def document(self) -> dict[str, Any]:
        """The import as `import --json` shows it."""
        return {
            "encounter": self.encounter,
            "appended": self.appended,
            "already_stored": self.already_stored,
            "head": self.head,
        }


class Ledger(Reader, Table):
    """One ledger file: the library API that the CLI is built on (for bots and VTT bridges).

    `user` names who acts through it (a bot passes the user it authenticated): each event
    written names them as its `by`, and an encounter's policy judges what they may record.

    >>> with Ledger("duel.db") as ledger:                                  # doctest: +SKIP
    ...     ledger.open("duel", system)  # a key of `ledger.systems.known()`
    ...     ledger.record("duel", {"type": "combatant.joined", "name": "Guard",
    ...                            "side": "adversary", "stats": stats})
    ...     ledger.tracks("duel").view()["combatants"]["Guard"]
    """

    def __init__(
        self,
        path: str | Path = DEFAULT_DB,
        clock: Any = now_utc,
        create: bool = True,
        readonly: bool = False,
        *,
        pool_size: int | None = None,
        user: str | None = None,
        tenant: str = DEFAULT_TENANT,
        notify: bool = False,
    ) -> None:
        """Open (with `create`, or create) the ledger at `path`: a SQLite file, or a PostgreSQL
        database named by a `postgresql://` URL (`pool_size` connections at most, default 4);
        `readonly` only reads it (and creates or changes nothing); `user` acts in every write;
        `tenant` names whose encounters it reads and writes (default `default`); `notify`
        wakes PostgreSQL followers at each append (LISTEN/NOTIFY, a hint: they poll too)."""
        if user is not None:
            check_name(user, "user")
        #: Who acts through this ledger (None: each event's own `by`, if any).
        self.user = user
        store = open_store(
            path,
            clock=clock,
            create=create,
            readonly=readonly,
            pool_size=pool_size,
            tenant=tenant,
            notify=notify,
        )
        super().__init__(store)

    @property
    def tenant(self) -> str:
        """The tenant whose encounters this ledger reads and writes."""
        return self.store.tenant

    def close(self) -> None:
        """Close the file."""
        self.store.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Writes.

    def open(
        self,
        encounter: str,
        system: str,
        *,
        title: str | None = None,
        rules: Mapping[str, Any] | None = None,
        expect: int | None = None,
        policy: Mapping[str, Any] | None = None,
        strict: bool = False,
    ) -> Written:
        """Open a new encounter of `system`, pinning the house rules (defaults + `rules`);
        opened by a named `user` (or given a `policy`), it has roles: the opener is its GM,
        and the policy (defaults + `policy`) is pinned too (`projections.policy`). `strict`,
        as every write takes it: refuse the event should it add an audit error."""
        check_name(encounter, "encounter")
        systems.ruleset(system)
        head = self.store.head(encounter)
        if head is not None:
            if head.erased:
                self.store.readable(encounter)  # raises `Erased`: the name stays taken
            if expect is not None and expect != head.seq:
                # The writer expected it not to exist yet: another one opened it first.
                raise Conflict(
                    f"encounter {encounter!r} is at seq {head.seq}, not {expect}: another "
                    "writer opened it first; re-read and try again",
                    code="stale-expect",
                    expected=expect,
                    actual=head.seq,
                )
            raise BadInput(
                f"encounter {encounter!r} already exists in {self.store.name}",
                code="encounter-exists",
            )
        fields: dict[str, Any] = {"type": "encounter.opened", "system": system}
        if title is not None:
            fields["title"] = title
        fields["rules"] = as_given(rules)
        if policy is not None or self.user is not None:
            if policy is not None and not isinstance(policy, Mapping):
                raise BadInput(f"a policy is a mapping of its keys, not {policy!r}")
            fields["policy"] = dict(policy or {})
        return self.record(encounter, fields, strict=strict, expect=expect, _opening=True)

    def join(
        self,
        encounter: str,
        name: str,
        side: str,
        stats: Mapping[str, Any] | None = None,
        *,
        strict: bool = False,
        expect: int | None = None,
        player: str | None = None,
    ) -> Written:
        """Add a combatant with its stat block (`player`: the user who plays it)."""
        fields = {
            "type": "combatant.joined",
            "name": name,
            "side": side,
            "stats": as_given(stats),
        }
        if player is not None:
            fields["player"] = player
        return self.record(encounter, fields, strict=strict, expect=expect)

    def record(
        self,
        encounter: str,
        event: Mapping[str, Any] | events.EventBase,
        *,
        strict: bool = False,
        expect: int | None = None,
        verb: str | None = None,
        roll: Sequence[dice.Throw] = (),
        _opening: bool = False,
    ) -> Written:
        """Append one event (a dict with `type`, or an event model) after validating it.

        `verb` names the system verb it comes from (`endure-harm`): a verb, or an event type,
        of another system than the encounter's is bad input that says whose it is. `roll`
        lets the ledger roll dice into fields left out, from the seed of the encounter's open
        dice commitment (`commit_dice`), so that anyone can check them once it is revealed."""

        def build(session: Session) -> events.Event:
            system = session.system()
            if system is not None:
                kind = events.type_of(event) if isinstance(event, events.EventBase) else None
                if isinstance(event, Mapping):
                    kind = event.get("type")
                systems.refuse_other(encounter, system, verb, kind)
            if roll:
                if not isinstance(event, Mapping):
                    raise BadInput("roll= fills the fields of an event given as a mapping")
                return self._parse(dice_admit.rolled_into(session, event, roll), system)
            return self._parse(event, system)

        return self._write(encounter, build, strict=strict, expect=expect, opening=_opening)

    def undo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Retract `seq` (default: the last effective event that is not a retraction); with
        `dry_run`, say what it would do downstream and append nothing. `stamp` holds the
        optional game time of the ruling (`round`, `scene`, `by`)."""
        check_seq(seq)
        time = game_time(stamp)
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("undo needs a reason (the ledger keeps why a ruling changed)")

        def retraction(session: Session) -> events.Event:
            fields = {
                "type": "event.retracted",
                "target": revise.undo_target(session, seq),
                "reason": reason,
                **time,
            }
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect, dry_run=dry_run)

    def redo(
        self,
        encounter: str,
        seq: int | None = None,
        *,
        reason: str = "redo",
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Retract a retraction: `seq` is the retraction or the event it retracted (with
        `dry_run`, append nothing; `stamp` as for `undo`)."""
        check_seq(seq)
        time = game_time(stamp)
        if not isinstance(reason, str):
            raise BadInput(f"a reason is text, not {reason!r}")

        def retraction(session: Session) -> events.Event:
            target = revise.redo_target(session, seq)
            fields = {
                "type": "event.retracted",
                "target": target,
                "reason": reason,
                "kind": "redo",
                **time,
            }
            return self._parse(fields, session.system())

        return self._write(encounter, retraction, strict=strict, expect=expect, dry_run=dry_run)

    def amend(
        self,
        encounter: str,
        seq: int,
        fields: Mapping[str, Any],
        *,
        reason: str,
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        stamp: Mapping[str, Any] | None = None,
    ) -> Written:
        """Correct the event at `seq`: append one `event.corrected`, which the fold reads at
        `seq` itself, so everything after it is judged against the corrected event (with
        `dry_run`, say what it would do downstream and append nothing; `stamp` as for `undo`).

        `fields` names each field as the event stores it (`stat`, `opposing`, `increases`) or
        as the option of a verb that records the event (`using`, `against`, `increase`, with
        or without its dashes); an option's value is read as the verb reads it (`challenge`
        `"3,8"`, one `increase` as a list). The correction stores the field names."""
        check_seq(seq)
        time = game_time(stamp)
        if not isinstance(fields, Mapping) or not fields:
            raise BadInput("amend needs the fields to change, as a mapping (KEY=VALUE)")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("amend needs a reason (the ledger keeps why a ruling changed)")

        def correction(session: Session) -> events.Event:
            system = session.system()
            named = dict(fields)
            if system is not None:
                kind = session.stored_event(seq).type
                named = systems.stored_fields(system, kind, fields)
            if "type" in named:
                raise BadInput("amend keeps the event's type; undo it and record another instead")
            fix = {
                "type": "event.corrected",
                "target": seq,
                "reason": reason,
                "fields": named,
                **time,
            }
            return self._parse(fix, system)

        return self._write(encounter, correction, strict=strict, expect=expect, dry_run=dry_run)

    def repair(
        self,
        encounter: str,
        *,
        reason: str,
        accept_loss: bool = False,
        expect: int | None = None,
        strict: bool = False,
    ) -> Written:
        """Accept the loss of events the ledger acknowledged and no longer holds (removed from
        the end of the encounter, or replaced), so that writes go on: one note records what
        was lost and why, and the audit reports it (`loss-accepted`, a warning) for good.
        Nothing else is repaired: a chain broken in the middle is refused as before. `expect`
        and `strict` as for every write (`expect` is the seq the rows end at now)."""
        if accept_loss is not True:
            raise BadInput("repair accepts the loss of acknowledged events: say so (--accept-loss)")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("repair needs a reason (the ledger keeps why events were given up)")
        with self._transaction(encounter, expect, repair=True) as session:
            before = session.ready().state
            text = f"{LOSS_NOTE}: {session.txn.lost}; reason: {reason}"
            note = self._parse({"type": "note", "text": text}, session.system())
            record, found = revise.admit(session, note, strict=strict)
            after = session.state
            assert after is not None
        return Written([(before, record, after)], found)

    def rewind(
        self,
        encounter: str,
        round: int,
        *,
        reason: str,
        scene: int | str | None = None,
        strict: bool = False,
        expect: int | None = None,
        dry_run: bool = False,
        by: str | None = None,
    ) -> Written:
        """Back to the end of game round `round` (of `scene`): one `encounter.rewound`, which
        sets aside every effective event of play recorded after that round's last one, as one
        act (one `undo` of it brings them all back); later events build on the rewound state.
        Bad input for a round no effective event is in, or after whose end nothing was played;
        with `dry_run`, say what it would do downstream and append nothing."""
        if not isinstance(round, int) or isinstance(round, bool) or round < 0:
            raise BadInput(f"a round is a whole number from 0, not {round!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise BadInput("rewind needs a reason (the ledger keeps why a ruling changed)")
        time = game_time({"scene": scene, "by": by})

        def rewinding(session: Session) -> events.Event:
            fields = {"type": "encounter.rewound", "round": round, "reason": reason}
            fields.update((k, v) for k, v in time.items() if v is not None)
            return self._parse(fields, session.system())

        return self._write(encounter, rewinding, strict=strict, expect=expect, dry_run=dry_run)

    def commit_dice(
        self,
        encounter: str,
        *,
        strict: bool = False,
        expect: int | None = None,
        by: str | None = None,
    ) -> Written:
        """Draw a secret seed, keep it in the user's state directory (never in the file), and
        append `dice.committed` with its SHA-256: from here on `record(..., roll=...)` lets the
        ledger roll, verifiably once `reveal_dice` publishes the seed."""
        time = game_time({"by": by} if by is not None else {})

        def commitment(session: Session) -> events.Event:
            dice_admit.refuse_open(session)
            _, digest = dice.new_seed()
            fields = {"type": "dice.committed", "digest": digest, "encounter_name": encounter}
            return self._parse({**fields, **time}, session.system())

        return self._write(encounter, commitment, strict=strict, expect=expect)

    def reveal_dice(
        self,
        encounter: str,
        *,
        strict: bool = False,
        expect: int | None = None,
        by: str | None = None,
    ) -> Written:
        """Append `dice.revealed` with the seed of the open commitment (kept on this machine):
        `verify` then recomputes every die the ledger rolled under it."""
        time = game_time({"by": by} if by is not None else {})

        def reveal(session: Session) -> events.Event:
            _, seed = dice_admit.open_seed(session)
            return self._parse({"type": "dice.revealed", "seed": seed, **time}, session.system())

        return self._write(encounter, reveal, strict=strict, expect=expect)

    def erase(self, encounter: str, *, confirm: str) -> Erasure:
        """Erase one encounter on a data-deletion request: `confirm` repeats its name. Every
        event's body is deleted for good, with its snapshots, read-model rows and cached
        title; each row keeps its seq, id, type, time and hashes, so `verify` still checks
        the chain's links and the head digest is unchanged (the contents of the events can no
        longer be proven). Reads and writes of it then raise `Erased`. Erasing an erased
        encounter erases nothing more."""
        if not isinstance(encounter, str) or confirm != encounter:
            raise BadInput(
                f"erase deletes the contents of encounter {encounter!r} for good: confirm it "
                "by repeating its name (--confirm NAME); nothing was erased"
            )
        head = self.store.require(encounter)
        count = self.store.erase(encounter)
        return Erasure(self.store.tenant, ((encounter, count, head.hash),))

    def erase_tenant(self, *, confirm: str) -> Erasure:
        """Erase every encounter of this ledger's tenant, as `erase` erases one, all in one
        transaction (every encounter or none: a broken chain refuses the whole erasure);
        `confirm` repeats the tenant's name."""
        tenant = self.store.tenant
        if confirm != tenant:
            raise BadInput(
                f"erase --tenant-all deletes the contents of every encounter of tenant "
                f"{tenant!r} for good: confirm it by repeating the tenant's name "
                "(--confirm TENANT); nothing was erased"
            )
        done = self.store.erase_all()
        return Erasure(tenant, tuple((h.encounter, 0 if h.erased else h.seq, h.hash) for h in done))

    @contextmanager
    def _transaction(
        self,
        encounter: str,
        expect: int | None,
        *,
        opening: bool = False,
        bulk: bool = False,
        repair: bool = False,
    ) -> Iterator[Session]:
        """The one skeleton of every write: a store transaction (`SqlStore.begin`) and the
        encounter folded over it. A use case builds its events over the session inside the
        block; the snapshots the fold passed are stored with its rows (`Session.keep`), unless
        it was a dry run."""
        kept = self._kept(encounter)
        with self.store.begin(encounter, expect, bulk=bulk, repair=repair) as txn:
            if txn.system is None and not opening:
                self.store.require(encounter)
            # An import restores acts as they were recorded: the policy judged them then (and
            # the audit judges them again).
            session = Session(txn, sealed.key(), self.user, policed=not bulk, folded=kept)
            yield session
            if not txn.discarded:
                session.keep()
        folded = session.folded() if not txn.discarded else None
        if folded is not None:  # committed: the next write (or read of the head) starts from it
            self._keep(encounter, folded)

    def _write(
        self,
        encounter: str,
        build: Callable[[Session], events.Event],
        *,
        strict: bool,
        expect: int | None,
        opening: bool = False,
        dry_run: bool = False,
    ) -> Written:
        """One event, built from the session at the head, validated and appended atomically
        (with `dry_run`, the transaction is rolled back once the result is known)."""
        with self._transaction(encounter, expect, opening=opening) as session:
            parsed = build(session.ready())
            before = session.state
            gone = session.standing.gone
            record, found = revise.admit(session, parsed, strict=strict)
            after = session.state
            assert after is not None
            # What a rewind sets aside is what counted until it: not an event undone before it.
            rewound = session.standing.rewound
            aside = [s for s, by in rewound.items() if by == record.seq and s not in gone]
            result = Written(
                [(before, record, after)],
                found,
                session.downstream,
                dry_run,
                sorted(aside),
                positions=session.txn.positions,
            )
            if dry_run:
                session.txn.discard()
        return result

    def import_lines(
        self,
        lines: Iterable[str],
        *,
        into: str | None = None,
        new_ids: bool = False,
        source: str = "input",
        strict: bool = False,
        expect: int | None = None,
        unchained: bool = False,
    ) -> Imported:
        """Import JSON Lines atomically: all lines land or none; stored ids are no-ops.

        The lines are read, checked and appended one at a time (memory stays bounded, and a
        bad line is refused before the next is read); the transaction commits after the last.
        """
        if isinstance(lines, str | bytes):
            raise BadInput("import_lines takes the lines (text.splitlines()), not one text")
        numbered = jsonl.iter_lines(lines, source)
        first = next(numbered, None)
        if first is None:
            raise BadInput(f"{source} has no events")
        named = first[1].get("encounter")
        pinned = into is None
        if into is None:
            into = str(named) if named is not None else Path(source).stem
        check_name(into, "encounter")
        with self._transaction(into, expect, opening=True, bulk=True) as session:
            if new_ids and session.system() is not None:
                raise BadInput(
                    f"encounter {into!r} already exists; --new-ids copies into a new name",
                    code="encounter-exists",
                )
            # A named user imports into an encounter with roles only as its GM (an import
            # restores acts as recorded: the policy is not asked of each line).
            held = session.ready().state if self.user is not None else None
            if held is not None and held.policy is not None and not held.policy.is_gm(self.user):
                raise NotAllowed(
                    f"{self.user!r} may not import into {into!r}: only a GM adds events by "
                    f"the line (policy: gms {', '.join(held.policy.gms)})"
                )
            importer = jsonl.Importer(
                session, new_ids=new_ids, strict=strict, unchained=unchained, source=source
            )
            for number, item in itertools.chain([first], numbered):
                other = item.get("encounter")
                if pinned and other != named:
                    shown = ", ".join(str(n) for n in (named, other))
                    raise BadInput(
                        f"{source} holds several encounters ({shown}); import them one at a time"
                    )
                importer.admit(number, item)
            importer.finish()
        return Imported(
            encounter=into,
            appended=importer.appended,
            already_stored=importer.already,
            head=session.seq,
        )

    def import_iron_vault(
        self,
        paths: Sequence[str | Path],
        *,
        into: str,
        character: str | None = None,
        sheet: str | Path | Sequence[str | Path] = (),
        dry_run: bool = False,
        expect: int | None = None,
    ) -> ironvault.Journal:
        """Import Iron Vault journal notes (files, or folders of `*.md`) into the encounter
        `into` of the system that reads them, opened on the first import: all new events or
        none; the nodes imported before are no-ops (docs/iron-vault.md). `character` names
        who a block with no `actor` node is about; `sheet` (character notes) gives their
        starting values."""
        check_name(into, "encounter")
        if isinstance(paths, str | Path):
            paths = [paths]
        read, count = ironvault.read_journal(paths)
        sheets = [sheet] if isinstance(sheet, str | Path) else list(sheet)
        alone = character if len(sheets) == 1 else None
        found = [ironvault.read_sheet(s, alone) for s in sheets]
        with self._transaction(into, expect, opening=True, bulk=True) as session:
            folds, already, kept = ironvault.import_journal(
                session, read, character=character, sheets=found
            )
            head = session.seq
            if dry_run:
                session.txn.discard()
        return ironvault.Journal(
            into, count, len(folds), already, head, dict(kept), tuple(folds), dry_run
        )

    def follow(
        self,
        encounter: str | None = None,
        *,
        after: int = 0,
        tenant: str | None = None,
        encounters: Iterable[str] | None = None,
        poll: float = 0.2,
        stop: Callable[[], bool] | None = None,
    ) -> Iterator[Followed]:
        """Each event as it is appended by any writer or process, waiting for the next (waking
        every `poll` seconds, sooner when the ledger was opened with `notify`) until `stop()`
        says so.

        Of one `encounter`: its events after seq `after`, in seq order. Without one: every
        event of `tenant` (default: this ledger's) after position `after`, or of its
        `encounters` only, in position order, each once: `Followed.position` is where to go
        on from."""
        if encounter is not None:
            if tenant is not None or encounters is not None:
                raise BadInput("follow takes one encounter, or a tenant and its encounters")
            return follow(self.store, encounter, after=after, poll=poll, stop=stop)
        store = self.store if tenant is None else self.store.scoped(check_tenant(tenant))
        return follow_positions(store, after=after, encounters=encounters, poll=poll, stop=stop)

    def wait_for(self, position: int, timeout: float = 2.0) -> None:
        """Wait until this ledger holds the event at `position` of its tenant (a replica that
        has caught up with a write to the primary), or raise `Conflict` (`behind`) after
        `timeout` seconds: read the primary then."""
        self._caught_up(position, timeout)

    def rebuild_views(self) -> dict[str, int]:
        """(Re)create the SQL views and the `track_changes` read model (one row a changed
        track, as `replay` tells it) for sqlite-utils and Datasette users; its rows by
        encounter (an erased encounter has none to tell, and is left out)."""
        heads = [h for h in self.encounters() if not h.erased]
        counts = self.store.rebuild_views(self._changes(h.encounter, h.seq) for h in heads)
        return {h.encounter: counts.get(h.encounter, 0) for h in heads}

    def drop_views(self) -> bool:
        """Delete this tenant's read model, and the `track_changes` table and the views unless
        another tenant's read model is in them (then False: they stay for it). On PostgreSQL
        the owner drops every tenant's. The events lose nothing."""
        return self.store.drop_views()

    def _changes(self, encounter: str, top: int) -> Iterator[dict[str, Any]]:
        """One row a changed track (`before` and `after` as the fold has them)."""
        for step in self.replay(encounter):
            for change in step.changes:
                yield {
                    "tenant": self.store.tenant,
                    "encounter": encounter,
                    "seq": step.record.seq,
                    "round": step.round,
                    "combatant": change.combatant,
                    "track": change.track,
                    "before": change.before,
                    "after": change.after,
                    "built_to": top,
                }

    def _parse(
        self, event: Mapping[str, Any] | events.EventBase, system: str | None
    ) -> events.Event:
        # Every text of a new event in composed form (NFC): names that look the same are equal.
        if isinstance(event, events.EventBase):
            fields = {"type": events.type_of(event), **events.body_of(event)}
            return systems.parse(normalized(fields), system)
        if not isinstance(event, Mapping):
            raise BadInput(
                "an event is a mapping with a 'type' (or an event model), "
                f"not {type(event).__name__}"
            )
        return systems.parse(normalized(event), system)


@dataclass(frozen=True, slots=True)
class Copied:
    """What a copy did: one import result for each encounter of the source, and the erased
    encounters it left out (their contents are gone: there is nothing to copy)."""

    source: str
    target: str
    encounters: tuple[Imported, ...]
    erased: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        """The copy as `copy --json` shows it."""
        return {
            "source": self.source,
            "target": self.target,
            "encounters": [e.document() for e in self.encounters],
            "erased": list(self.erased),
        }

    @property
    def appended(self) -> int:
        """Events appended to the target, all encounters together."""
        return sum(e.appended for e in self.encounters)

    @property
    def already_stored(self) -> int:
        """Events the target already held (a copy run again appends nothing)."""
        return sum(e.already_stored for e in self.encounters)


def copy_ledger(source: str | Path, target: str | Path, *, tenant: str = DEFAULT_TENANT) -> Copied:
    """Copy every encounter of `source` into `target` (of `tenant`, default `default`, into the
    same tenant); events already there are skipped.

    Every source chain is verified first: a ledger that does not verify is not copied at all.
    Each encounter lands atomically (all its events or none); running the copy again after a
    failure completes it. An erased encounter is left out (and named in `Copied.erased`).
    """
    with Ledger(source, create=False, readonly=True, tenant=tenant) as origin:
        broken = [r for r in origin.verify() if not r.ok]
        if broken:
            first = broken[0]
            raise BrokenChain(
                f"{origin.store.name}: encounter {first.encounter!r} does not verify at seq "
                f"{first.bad_seq} ({first.problem}); nothing was copied"
            )
        heads = origin.encounters()
        names = [head.encounter for head in heads if not head.erased]
        erased = tuple(head.encounter for head in heads if head.erased)
        if not names:
            gone = f" (erased, so left out: {', '.join(erased)})" if erased else ""
            raise BadInput(f"{origin.store.name} holds no encounter to copy{gone}")
        with Ledger(target, tenant=origin.tenant) as destination:
            results = tuple(
                destination.import_lines(
                    list(origin.export(name)),
                    into=name,
                    source=f"{origin.store.name} encounter {name!r}",
                )
                for name in names
            )
        return Copied(
            source=origin.store.name,
            target=destination.store.name,
            encounters=results,
            erased=erased,
        )


@dataclass(frozen=True, slots=True)
class Erasure:
    """What an erasure did: the tenant, and each encounter's name, how many events it erased
    (0: erased before) and its head digest, which stays as it was."""

    tenant: str
    encounters: tuple[tuple[str, int, str], ...]

    @property
    def erased(self) -> int:
        """Events erased, all encounters together."""
        return sum(count for _, count, _ in self.encounters)

    def document(self) -> dict[str, Any]:
        """The erasure as `erase --json` shows it."""
        return {
            "tenant": self.tenant,
            "erased": self.erased,
            "encounters": [
                {"encounter": name, "erased": count, "head": head}
                for name, count, head in self.encounters
            ],
        }


@dataclass(frozen=True, slots=True)
class Migrated:
    """What `migrate` did: the ledger, and whether it was of an earlier format."""

    location: str
    migrated: bool

    def document(self) -> dict[str, Any]:
        """The migration as `migrate --json` shows it."""
        return {"ledger": self.location, "migrated": self.migrated}


def migrate(location: str | Path) -> Migrated:
    """Bring a ledger of the format before tenants up to this one in place, as its first write
    would: every event becomes the default tenant's and gets a position; no stored byte of the
    chain changes, so every published head digest still holds. On PostgreSQL only the
    tables' owner may."""
    with Ledger(location, create=False, readonly=True) as before:
        old = before.store.db.unscoped
    with Ledger(location, create=False) as after:
        if after.store.db.unscoped:
            raise StoreError(
                f"{after.store.name} has the schema before tenants, and this role may not "
                "change it: run `encounter migrate` as the tables' owner"
            )
        return Migrated(after.store.name, old)


def load(path: str | Path) -> tuple[Ledger, str]:
    """A JSON Lines file read into a scratch ledger (nothing written where the file is), and its
    encounter. The file is read as a stream into the ledger, whose rows SQLite keeps in a
    temporary file, so memory stays bounded; the import checks every hash it carries, and a
    file it refuses is read once more to say where its chain breaks, if it does."""
    file = Path(path)
    ledger = Ledger(SCRATCH)
    try:
        result = ledger.import_lines(jsonl.lines(file), source=str(file))
    except BadInput as refused:
        ledger.close()
        items = (item for _, item in jsonl.iter_lines(jsonl.lines(file), str(file)))
        report = jsonl.chain_of(items, str(file))
        if report is not None and not report.ok:
            raise BrokenChain(
                f"{file}: the chain is broken at seq {report.bad_seq}: {report.problem}"
            ) from refused
        raise
    except BaseException:
        ledger.close()
        raise
    return ledger, result.encounter


def as_given(block: Mapping[str, Any] | None) -> object:
    """A stat block or a rules table to validate: a copy of a mapping, `{}` for None, and
    anything else as it is, so that the event's validation names what is wrong with it (a
    list of pairs is not a block, though `dict()` would take it)."""
    if block is None:
        return {}
    return dict(block) if isinstance(block, Mapping) else block
