"""Reading: tracks, replay, history, audit, export and verify, over a store's rows.

Reads stream the stored rows through one fold (a long encounter is never held as a list); the
tracks fold from the newest sealed snapshot that still holds. Nothing here writes.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from ledger import dice as dice_checks
from ledger import events, systems
from ledger.errors import (
    BadInput,
    BrokenChain,
    Conflict,
    UnknownName,
    UnknownVersion,
    did_you_mean,
)
from ledger.events.portable import normalized
from ledger.store import Head
from ledger.store import snapshots as sealed
from ledger.store.chain import ChainReport
from ledger.store.sql import SqlStore
from ledger.write import Folded, fold_on, from_snapshot
from projections import audit as audit_rules
from projections import core, gametime
from projections import replay as steps
from projections import statistics as tallies
from projections.findings import Finding, error, warning
from projections.revisions import Standing, standing

#: How long a read given `at_least` waits for a replica to catch up, and how often it looks.
AT_LEAST_S: Final = 2.0
_CATCH_UP_S: Final = 0.01
#: The text that opens the note an `import --unchained` appends; the audit reports it.
UNCHAINED_NOTE: Final = "imported unverified (import --unchained)"
#: The text that opens the note `encounter repair --accept-loss` appends; the audit reports it.
LOSS_NOTE: Final = "events lost (encounter repair --accept-loss)"


#: How many encounters a `Ledger` keeps folded as its last write or read of their head left
#: them (a bot at many tables keeps its busiest; the others fold from their snapshots, as a
#: new process does).
KEPT_FOLDS: Final = 64


class Reader:
    """What a ledger answers without writing, over its store (`ledger.api.Ledger` has one)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store
        #: The encounters as this ledger's last writes or reads of their heads left them,
        #: newest last (`Folded`): used again only for the very head it was folded to, with
        #: every row through it checked (`SqlStore.vouched`).
        self._folded: OrderedDict[str, Folded] = OrderedDict()
        self._folding = threading.Lock()

    def _kept(self, encounter: str) -> Folded | None:
        """What the last write or read of the encounter's head left, taken out."""
        with self._folding:
            return self._folded.pop(encounter, None)

    def _keep(self, encounter: str, folded: Folded) -> None:
        with self._folding:
            self._folded.pop(encounter, None)
            self._folded[encounter] = folded
            while len(self._folded) > KEPT_FOLDS:
                self._folded.popitem(last=False)

    def encounters(self) -> list[Head]:
        """Every encounter in the ledger."""
        return self.store.heads()

    def iter_records(
        self,
        encounter: str,
        after: int = 0,
        upto: int | None = None,
        *,
        at_least: int | None = None,
    ) -> Iterator[events.Recorded]:
        """The encounter's events in seq order, parsed as they are read (`at_least`: once the
        ledger holds that position, see `wait_for`)."""
        self._caught_up(at_least)
        head = self.store.readable(encounter)
        top = head.seq if upto is None else upto
        rows = self.store.rows(encounter, after, top)
        return (systems.from_row(row, head.system) for row in rows)

    def records(self, encounter: str, *, at_least: int | None = None) -> list[events.Recorded]:
        """The encounter's whole stream, retractions and retracted events included."""
        return list(self.iter_records(encounter, at_least=at_least))

    def _caught_up(self, position: int | None, timeout: float = AT_LEAST_S) -> None:
        """Return once the store holds the tenant's event at `position` (a replica that caught
        up with a write to its primary); `Conflict` (`behind`) after `timeout` seconds."""
        if position is None:
            return
        if not isinstance(position, int) or isinstance(position, bool) or position < 1:
            raise BadInput(f"at_least is a position (a whole number from 1), not {position!r}")
        # NaN compares false with every deadline: it would wait forever.
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or not timeout >= 0:
            raise BadInput(f"wait_for waits 0 or more seconds, not {timeout!r}")
        deadline = time.monotonic() + timeout
        while not self.store.holds(position):
            if time.monotonic() >= deadline:
                raise Conflict(
                    f"{self.store.name} does not hold position {position} of tenant "
                    f"{self.store.tenant!r} after {timeout:g} s: it is a replica behind its "
                    "primary; read the primary",
                    code="behind",
                )
            time.sleep(_CATCH_UP_S)

    def revisions(self, head: Head, upto: int | None = None) -> list[events.Recorded]:
        """The encounter's retractions and corrections up to `upto`, parsed."""
        rows = self.store.revisions(head.encounter, upto)
        return [systems.from_row(row, head.system) for row in rows]

    def _stream(
        self,
        encounter: str,
        at: int | None = None,
        without: Iterable[int] = (),
        corrected: bool = True,
    ) -> tuple[Head, Standing, Iterator[events.Recorded]]:
        """The head, the standing (at `at` as the table knew it then, or with `corrected` as
        today's retractions and corrections have it), and the rows up to `at`."""
        head = self.store.readable(encounter)
        top = head.seq if at is None else at
        known = head.seq if corrected else top
        revisions = self.revisions(head, known)
        return head, standing(revisions, without), self.iter_records(encounter, 0, top)

    def tracks(
        self,
        encounter: str,
        at: int | None = None,
        without: Iterable[int] = (),
        corrected: bool = False,
        *,
        at_least: int | None = None,
    ) -> core.State:
        """The tracks now, at a past seq, or as they would be without some events.

        At a past seq they are as the table knew them then: retractions and corrections
        recorded later are not applied, unless `corrected` (every one in force today).
        `at_least`: once the ledger holds that position (a write's, read on a replica).
        """
        self._caught_up(at_least)
        mark = self.store.mark(encounter)
        head = self.store.readable(encounter)
        _check_seqs(head.seq, [at] if at is not None else [], "--at")
        without = _left_out(head.seq, without)
        top = head.seq if at is None else at
        now_at_head = top == head.seq and not without
        vouched = self.store.vouched(head, mark)
        kept = self._kept(encounter) if now_at_head else None
        if kept is not None and (kept.seq, kept.hash) == (head.seq, head.hash) and vouched:
            # The very head this ledger folded last, every row through it checked by this
            # connection and no other connection's commit since: the same rows, the same fold.
            self._keep(encounter, kept)
            return kept.state
        known = head.seq if corrected else top
        revisions = self.revisions(head, known)
        now = standing(revisions, without)
        # Only the events after the newest snapshot that still holds are folded; without the
        # append-only triggers rows may have changed behind it: every row is folded and checked.
        found = [] if self.store.problems() else self.store.snapshots(encounter, top, _key())
        ruleset = systems.ruleset(head.system)
        snapshot = from_snapshot(ruleset, found, now, encounter)
        start, state = snapshot if snapshot is not None else (0, None)
        if start and not vouched:
            # The rows behind the snapshot are not folded, but their chain is checked (a read
            # warns of a row changed there): hashing costs a fraction of folding.
            for _ in self.store.rows(encounter, 0, start):
                pass
        state = fold_on(ruleset, self.iter_records(encounter, start, top), now, state)
        if state is None:
            raise BadInput("the stream has no encounter.opened")
        # The seq the tracks are at (the head, or --at), even when the events left out with
        # --without come last: it is the seq a writer passes to --expect.
        state = state if state.seq == top else core.replace(state, seq=top)
        if now_at_head:
            # Every row through the head was checked (behind the snapshot, or vouched for).
            self.store.vouch(head, mark)
            held = Folded(head.seq, head.hash, head.system, state, tuple(revisions), now)
            self._keep(encounter, held)
        return state

    def refold(self, encounter: str) -> core.State:
        """The tracks at the head folded from the stored events alone (no cache of any kind):
        what the audit compares the cache with, and the benchmark's full fold."""
        head, now, rows = self._stream(encounter)
        state = fold_on(systems.ruleset(head.system), rows, now, None)
        if state is None:
            raise BadInput("the stream has no encounter.opened")
        return state

    def round_tracks(self, encounter: str, round: int, scene: gametime.Scene = None) -> core.State:
        """The tracks at the end of game round `round` (of `scene`, when given): after the last
        effective event of play in it (undos, corrections and rewinds end no round), with every
        undo and correction in force today applied, as `replay` tells it."""
        return steps.round_end(encounter, self.replay(encounter), round, scene).state

    def replay(
        self,
        encounter: str,
        start: int | None = None,
        end: int | None = None,
        without: Iterable[int] = (),
        as_played: bool = False,
    ) -> Iterator[steps.Step]:
        """One step per effective table event, with the tracks after it (as if `without` never
        happened: events that then no longer apply are steps that say so).

        The story is told as corrected: each event as today's corrections have it, at its
        own seq, so `replay --to N` ends where `tracks --at N --corrected` is; an undo and an
        amend are told alike, neither as a step (the undone event is left out, the amended
        one told as amended). With
        `as_played` it is told as it happened at the table: every stored event is a step,
        each retraction and correction changing the tracks where it was recorded, so
        `replay --as-played --to N` ends where `tracks --at N` is.
        """
        head = self.store.readable(encounter)
        _check_seqs(head.seq, [start] if start is not None else [], "--from")
        _check_seqs(head.seq, [end] if end is not None else [], "--to")
        without = _left_out(head.seq, without)
        if start is not None and end is not None and start > end:
            raise BadInput(f"--from {start} is after --to {end}")
        if as_played:
            if without:
                raise BadInput("--as-played tells the story as recorded; it takes no --without")
            top = end or head.seq
            rows = self.iter_records(encounter, 0, top)

            def reread(after: int, upto: int) -> Iterator[events.Recorded]:
                return self.iter_records(encounter, after, upto)

            return steps.as_played(systems.ruleset(head.system), rows, reread, start, end)
        _, now, rows = self._stream(encounter, None, without)
        ruleset = systems.ruleset(head.system)
        return steps.replay_stream(ruleset, rows, now.gone, start, end, now.fixes)

    def history(
        self, encounter: str, combatant: str, track: str | None = None
    ) -> Iterator[steps.Step]:
        """The steps of the story as corrected that touched one combatant (or one of its
        tracks), each with only its changes, those that end where they started included (a
        track filled and cleared): "what happened to the ogre's Fatigue?"."""
        combatant = normalized(combatant)  # as the events store it: composed (NFC)
        known = self.tracks(encounter).combatant(combatant)
        if track is not None and track not in known.view():
            tracks = ", ".join(k for k in known.view() if k != "side")
            raise UnknownName(
                f"{combatant!r} has no track {track!r}{did_you_mean(track, known.view())} "
                f"(tracks: {tracks})",
                code="unknown-track",
            )
        for step in self.replay(encounter):
            mine = steps.touched(step.ruleset, step, combatant, track)
            if mine is not None:
                yield step.only(mine)

    def audit(
        self, encounter: str, *, at_least: int | None = None, chain: ChainReport | None = None
    ) -> list[Finding]:
        """Every finding of the encounter, in seq order (the audit driver, streaming;
        `at_least`: once the ledger holds that position; `chain`: the encounter's chain as
        `store.verify` found it in this same read, which is then not checked twice).

        A chain that does not verify (the file was edited or damaged after the events were
        written) comes first, as `chain-broken` at the first bad seq: the rest of the audit
        then judges events that may not be the ones the table recorded.
        """
        self._caught_up(at_least)
        with self.store.reading():
            report = chain if chain is not None else self.store.verify(encounter)
            unread = ""
            unverified: list[Finding] = []
            try:
                head = self.store.readable(encounter)
                revisions = self.revisions(head)
                now = standing(revisions)
                targets = {
                    r.event.target
                    for r in revisions
                    if isinstance(r.event, events.EventRetracted | events.EventCorrected)
                }
                rows = _noting_unverified(self.iter_records(encounter, 0, head.seq), unverified)
                found = audit_rules.audit_stream(
                    systems.ruleset(head.system), rows, now.gone, targets, None, now.fixes
                )
                found = _in_seq_order(found, unverified)
            except BrokenChain as exc:
                if report.ok:
                    raise
                found, unread = [], f"; no rule was checked, because {exc}"
        if report.bad_seq is not None:
            broken = error(
                "chain-broken",
                (report.bad_seq,),
                f"the stored events do not verify at seq {report.bad_seq} ({report.problem}): "
                f"the file was changed after they were written; see `encounter verify`{unread}",
            )
            found.insert(0, broken)
        return found

    def acts(self, encounter: str) -> list[dict[str, object]] | None:
        """Who recorded each act, `{"seq", "by", "type"}` (with `entered_by`: the GM who entered
        it in `by`'s name) in seq order, retractions and the acts they undid included, for an
        encounter with roles (None: it has none, so nobody is held to a name)."""
        found: list[dict[str, object]] = []
        roles = False
        for record in self.iter_records(encounter):
            event = record.event
            roles = roles or getattr(event, "policy", None) is not None
            act: dict[str, object] = {"seq": record.seq, "by": event.by}
            if event.entered_by is not None:
                act["entered_by"] = event.entered_by
            act["type"] = record.type
            found.append(act)
        return found if roles else None

    def export(self, encounter: str) -> Iterator[str]:
        """The encounter as JSON Lines (one event a line, envelope included)."""
        for record in self.iter_records(encounter):
            yield json.dumps(record.exchange(), ensure_ascii=False)

    def verify(self, encounter: str | None = None) -> list[ChainReport]:
        """Recompute the hash chain of one encounter, or of every encounter in the file, and
        name the first effective event of each that the ledger never accepted."""
        with self.store.reading():
            if encounter is not None:
                if encounter not in self.store.names():
                    self.store.require(encounter)
                return [self._verified(encounter)]
            return [self._verified(name) for name in self.store.names()]

    def _verified(self, encounter: str) -> ChainReport:
        """One encounter's chain report, with the first effective event its system refuses."""
        report = self.store.verify(encounter)
        if not report.ok or not report.events or report.erased:
            return report
        head = self.store.head(encounter)
        if head is None or head.system not in systems.known():
            return report
        vocabulary = systems.vocabulary(head.system)
        gone = standing(self.revisions(head)).gone
        for row in self.store.raw_rows(encounter):
            if row.seq > head.seq:
                break
            if row.seq in gone:
                continue
            try:
                events.read_stored(row.type, row.body, vocabulary)
            except UnknownVersion:
                continue
            except BadInput as exc:
                return report.but(invalid=f"seq {row.seq} ({row.type}): {exc}")
        return report

    def stats(self, encounter: str) -> tallies.Stats:
        """The encounter's statistics (`projections.statistics`): damage dealt and taken by
        combatant, track and round, rolls per actor beside the chances their dice gave, the
        GM's pools, defeats by round, rulings and findings; from the replay as corrected."""
        head = self.store.readable(encounter)
        # The replay read once; the rulings need only the retractions, corrections and rewinds.
        return tallies.tally_encounter(
            systems.ruleset(head.system),
            self.replay(encounter),
            self.revisions(head),
            self.audit(encounter),
        )

    def dice(self, encounter: str) -> dice_checks.DiceReport | None:
        """Every die the ledger rolled in the encounter, recomputed from its revealed seed (the
        first that does not match named); how many rolls await a reveal. None: the encounter
        has no dice commitment and no ledger-rolled die."""
        with self.store.reading():
            return dice_checks.check(encounter, dice_checks.bodies(self.iter_records(encounter)))

    def problems(self) -> list[str]:
        """What is wrong with the file as a whole: append-only triggers missing or altered."""
        return self.store.problems()


def _key() -> bytes | None:
    """The seal key snapshots are read with (none: every read folds from seq 1)."""
    return sealed.key()


def _noting_unverified(
    rows: Iterator[events.Recorded], found: list[Finding]
) -> Iterator[events.Recorded]:
    """`rows`, passed on; the note an `import --unchained` left becomes a warning in `found`."""
    for record in rows:
        event = record.event
        if isinstance(event, events.Note) and event.text.startswith(UNCHAINED_NOTE):
            found.append(
                warning(
                    "imported-unverified",
                    (record.seq,),
                    f"{event.text}: these events are as the imported file had them, which no "
                    "hash chain vouches for",
                )
            )
        elif isinstance(event, events.Note) and event.text.startswith(LOSS_NOTE):
            found.append(
                warning(
                    "loss-accepted",
                    (record.seq,),
                    f"{event.text}: events the ledger acknowledged are gone, and the chain "
                    "goes on without them",
                )
            )
        yield record


def _in_seq_order(found: list[Finding], more: list[Finding]) -> list[Finding]:
    """`found` with each of `more` inserted before the first finding of a later seq (the
    audit's own order is kept as it is)."""
    out = list(found)
    for finding in more:
        at = next((i for i, f in enumerate(out) if f.seq and f.seq[0] > finding.seq[0]), len(out))
        out.insert(at, finding)
    return out


def _left_out(top: int, without: Iterable[int]) -> list[int]:
    """The seqs `--without` leaves out, checked: seqs of the encounter, never seq 1."""
    if isinstance(without, str | bytes) or not isinstance(without, Iterable):
        raise BadInput(f"--without takes a list of seqs, not {without!r}")
    seqs = list(without)
    _check_seqs(top, seqs, "--without")
    if 1 in seqs:
        raise BadInput("--without 1: encounter.opened cannot be left out")
    return seqs


def _check_seqs(top: int, seqs: Sequence[int], option: str) -> None:
    for seq in seqs:
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise BadInput(f"{option} takes seqs (whole numbers), not {seq!r}")
        if not 1 <= seq <= top:
            raise UnknownName(f"{option} {seq}: the encounter has seqs 1-{top}", code="unknown-seq")
