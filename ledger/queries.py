"""The read side of a ledger file: tracks, replay, history, audit, export and verify.

Reads stream the stored rows through one fold: a long encounter is never held as a list.
`ledger.service.Ledger` adds the writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence

from ledger import cache, events, headview
from ledger.chain import ChainReport
from ledger.errors import BadInput, BrokenChain, UnknownName, did_you_mean
from ledger.exchange import UNCHAINED_NOTE
from ledger.rows import Head
from ledger.session import AtHead, fold_on
from ledger.stores import EventStore
from projections import audit as audit_rules
from projections import core, gametime, steps
from projections.findings import Finding, error, warning
from projections.registry import RULESETS
from projections.revisions import Standing, standing


class Queries:
    """What a ledger answers without writing (the base of `ledger.service.Ledger`)."""

    store: EventStore
    _cache: dict[str, AtHead]

    def encounters(self) -> list[Head]:
        """Every encounter in the file."""
        return self.store.encounters()

    def records(self, encounter: str) -> list[events.Recorded]:
        """The encounter's whole stream, retractions and retracted events included."""
        return self.store.records(encounter)

    def _stream(
        self,
        encounter: str,
        at: int | None = None,
        without: Iterable[int] = (),
        corrected: bool = True,
    ) -> tuple[Head, Standing, Iterator[events.Recorded]]:
        """The head, the standing (at `at` as the table knew it then, or with `corrected` as
        today's retractions and corrections have it), and the rows up to `at`."""
        head = self.store.require(encounter)
        top = head.seq if at is None else at
        known = head.seq if corrected else top
        revisions = self.store.revisions(encounter, head.system, known)
        return (
            head,
            standing(revisions, without),
            self.store.load_rows(encounter, head.system, 0, top),
        )

    def tracks(
        self,
        encounter: str,
        at: int | None = None,
        without: Iterable[int] = (),
        corrected: bool = False,
    ) -> core.State:
        """The tracks now, at a past seq, or as they would be without some events.

        At a past seq they are as the table knew them then: retractions and corrections
        recorded later are not applied, unless `corrected` (every one in force today).
        """
        head = self.store.require(encounter)
        _check_seqs(head.seq, [at] if at is not None else [], "--at")
        without = _left_out(head.seq, without)
        cached = self._cache.get(encounter)
        if (
            at is None
            and not without
            and cached is not None
            and cached.state is not None
            and (cached.seq, cached.hash) == (head.seq, head.hash)
        ):
            return cached.state
        top = head.seq if at is None else at
        known = head.seq if corrected else top
        now = standing(self.store.revisions(encounter, head.system, known), without)
        # Only the events after the newest snapshot that still holds are folded; without the
        # append-only triggers rows may have changed behind it: every row is folded and checked.
        snapshot = (
            cache.load_snapshot(self.store.cache_db, encounter, now, top)
            if not self.store.problems()
            else None
        )
        start, state = snapshot if snapshot is not None else (0, None)
        rows = self.store.load_rows(encounter, head.system, start, top)
        state = fold_on(rows, now, state)
        if state is None:
            raise BadInput("the stream has no encounter.opened")
        # The seq the tracks are at (the head, or --at), even when the events left out with
        # --without come last: it is the seq a writer passes to --expect.
        return state if state.seq == top else core.replace(state, seq=top)

    def refold(self, encounter: str) -> core.State:
        """The tracks at the head folded from the stored events alone (no cache of any kind):
        what the audit compares the cache with, and the benchmark's full fold."""
        _, now, rows = self._stream(encounter)
        state = fold_on(rows, now, None)
        if state is None:
            raise BadInput("the stream has no encounter.opened")
        return state

    def round_tracks(self, encounter: str, round: int, scene: gametime.Scene = None) -> core.State:
        """The tracks at the end of game round `round` (of `scene`, when given): after the last
        effective event of play in it (undos and corrections end no round), with every undo and
        correction in force today applied, as `replay` tells it."""
        if not isinstance(round, int) or isinstance(round, bool) or round < 0:
            raise BadInput(f"a round is a whole number from 0, not {round!r}")
        found: core.State | None = None
        rounds: set[int] = set()
        for step in self.replay(encounter):
            if isinstance(step.record.event, events.EventRetracted | events.EventCorrected):
                continue  # an undo or a correction is not table play: it ends no round
            at, where = step.round, step.scene
            if at is not None and (scene is None or where == scene):
                rounds.add(at)
                if at == round:
                    found = step.state
        if found is None:
            where = f" of scene {scene}" if scene is not None else ""
            known = ", ".join(map(str, sorted(rounds))) or "none: record `encounter round`"
            raise UnknownName(
                f"no effective event of encounter {encounter!r} is in round {round}{where} "
                f"(rounds: {known})"
            )
        return found

    def replay(
        self,
        encounter: str,
        start: int | None = None,
        end: int | None = None,
        without: Iterable[int] = (),
        as_played: bool = False,
    ) -> Iterator[steps.Step]:
        """One step per effective event, with the tracks after it (as if `without` never
        happened: events that then no longer apply are steps that say so).

        The story is told as corrected: each event as today's corrections have it, at its
        own seq, so `replay --to N` ends where `tracks --at N --corrected` is. With
        `as_played` it is told as it happened at the table: every stored event is a step,
        each retraction and correction changing the tracks where it was recorded, so
        `replay --as-played --to N` ends where `tracks --at N` is.
        """
        head = self.store.require(encounter)
        _check_seqs(head.seq, [start] if start is not None else [], "--from")
        _check_seqs(head.seq, [end] if end is not None else [], "--to")
        without = _left_out(head.seq, without)
        if start is not None and end is not None and start > end:
            raise BadInput(f"--from {start} is after --to {end}")
        if as_played:
            if without:
                raise BadInput("--as-played tells the story as recorded; it takes no --without")
            top = end or head.seq
            rows = self.store.load_rows(encounter, head.system, 0, top)

            def reread(after: int, upto: int) -> Iterator[events.Recorded]:
                return self.store.load_rows(encounter, head.system, after, upto)

            return steps.as_played(RULESETS, rows, reread, start, end)
        _, now, rows = self._stream(encounter, None, without)
        return steps.replay_stream(RULESETS, rows, now.gone, start, end, now.fixes)

    def history(
        self, encounter: str, combatant: str, track: str | None = None
    ) -> Iterator[steps.Step]:
        """The steps of the story as corrected that touched one combatant (or one of its
        tracks), each with only its changes, those that end where they started included (a
        track filled and cleared): "what happened to the ogre's Fatigue?"."""
        known = self.tracks(encounter).combatant(combatant)
        if track is not None and track not in known.view():
            tracks = ", ".join(k for k in known.view() if k != "side")
            raise UnknownName(
                f"{combatant!r} has no track {track!r}{did_you_mean(track, known.view())} "
                f"(tracks: {tracks})",
                code="unknown-track",
            )
        for step in self.replay(encounter):
            mine = steps.touched(RULESETS[step.state.system], step, combatant, track)
            if mine is not None:
                yield step.model_copy(update={"changes": mine})

    def audit(self, encounter: str) -> list[Finding]:
        """Every finding of the encounter, in seq order (the audit driver, streaming).

        A chain that does not verify (the file was edited or damaged after the events were
        written) comes first, as `chain-broken` at the first bad seq: the rest of the audit
        then judges events that may not be the ones the table recorded.
        """
        with self.store.snapshot():
            report = self.store.verify(encounter)
            unread = ""
            unverified: list[Finding] = []
            try:
                head = self.store.require(encounter)
                revisions = self.store.revisions(encounter, head.system)
                now = standing(revisions)
                targets = {
                    r.event.target
                    for r in revisions
                    if isinstance(r.event, events.EventRetracted | events.EventCorrected)
                }
                rows = self.store.load_rows(encounter, head.system, 0, head.seq)
                rows = _noting_unverified(rows, unverified)
                check = _CacheCheck(self.store, head, now)
                found = audit_rules.audit_stream(
                    RULESETS, rows, now.gone, targets, check.observe, now.fixes
                )
                if report.ok:  # when the log itself was edited, chain-broken says it all
                    found = _in_seq_order(found, check.findings())
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

    def export(self, encounter: str) -> Iterator[str]:
        """The encounter as JSON Lines (one event a line, envelope included)."""
        for record in self.store.iter_records(encounter):
            yield json.dumps(record.exchange(), ensure_ascii=False)

    def verify(self, encounter: str | None = None) -> list[ChainReport]:
        """Recompute the hash chain of one encounter, or of every encounter in the file."""
        with self.store.snapshot():
            if encounter is not None:
                if encounter not in self.store.names():
                    self.store.require(encounter)
                return [self.store.verify(encounter)]
            return [self.store.verify(name) for name in self.store.names()]

    def problems(self) -> list[str]:
        """What is wrong with the file as a whole: append-only triggers missing or altered."""
        return self.store.problems()


class _CacheCheck:
    """The audit's check of the projection cache: each snapshot a read would use, and the head
    view, against the states the audit folds from the log."""

    def __init__(self, store: EventStore, head: Head, now: Standing) -> None:
        # One snapshot decoded at a time, when the fold reaches its seq: a long encounter's
        # snapshots each hold every roll, and the audit's memory must stay bounded.
        self._db, self._encounter, self._now = store.cache_db, head.encounter, now
        self._seqs = cache.snapshot_seqs(store.cache_db, head.encounter)
        self._view, self._damaged = headview.stored_view(
            store.cache_db, head.encounter, (head.seq, head.hash)
        )
        self._head = head.seq
        self._wrong: list[int] = []
        self._last: core.State | None = None

    def observe(self, state: core.State) -> None:
        self._last = state
        if state.seq not in self._seqs:
            return
        if not cache.agrees(self._db, self._encounter, self._now, state):
            self._wrong.append(state.seq)

    def findings(self) -> list[Finding]:
        found = [
            error(
                "cache-disagrees",
                (seq,),
                f"the projection cache's snapshot at seq {seq} disagrees with the events "
                "folded from the log: the file was changed outside the ledger, and tracks may "
                f"have shown it; {_CURE}",
            )
            for seq in self._wrong
        ]
        differ: list[str] = []
        if self._view is not None and self._last is not None and self._last.seq == self._head:
            differ = headview.diff_view(self._db, self._view, self._last)
        if differ or self._damaged:
            parts = f" ({', '.join(differ)})" if differ else ""
            found.append(
                error(
                    "cache-disagrees",
                    (self._head,),
                    f"the projection cache's head view{parts} disagrees with the events folded "
                    f"from the log{_unsealed(self._damaged)}: the file was changed outside the "
                    f"ledger, and reads fold instead; {_CURE}",
                )
            )
        return found


def _unsealed(names: list[str]) -> str:
    """The rows whose digest does not match their text, for the audit's message."""
    if not names:
        return ""
    rows = ", ".join("the head" if name == "" else repr(name) for name in names)
    return f" (rows whose digest does not match their text: {rows})"


_CURE = (
    f"drop the tables {', '.join(cache.TABLES[:-1])} and {cache.TABLES[-1]} (nothing is lost: "
    "they are a cache, rebuilt by the next writes)"
)


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
