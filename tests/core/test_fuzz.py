"""Fuzzing every ruleset through the store: random event streams, valid and invalid.

Whatever arrives, the ledger answers with its own bad-input error or appends (never another
exception), appends nothing it refuses, keeps every track within its bounds, restores the state
on undo then redo, and its streaming reads equal the pure fold of the stored stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ledger import BadInput, Ledger, events
from projections import audit as audit_rules
from projections import core, revisions
from projections import replay as steps
from projections.findings import Finding
from tests.streams import ruleset_of

Event = dict[str, Any]
#: Mostly the cast (below), sometimes a combatant who may not have joined, rarely nobody known.
NAMES = st.sampled_from(["Ann", "Ann", "Bo", "Bo", "Cy", "Nobody"])
SIDES = st.sampled_from(["player", "adversary"])
SMALL = st.integers(-2, 12)
STAKES = st.sampled_from(["s1", "s2", "s3"])


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def event(type_: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Event]:
    """An event of type `type_`; fields drawn as None are left out."""
    return st.fixed_dictionaries(fields).map(
        lambda drawn: {"type": type_, **{k: v for k, v in drawn.items() if v is not None}}
    )


def common(stats: st.SearchStrategy[Any], tracks: list[str]) -> list[st.SearchStrategy[Event]]:
    manner = st.sampled_from(["defeated", "fled", "surrendered", "other", "vanished"])
    value: st.SearchStrategy[Any] = st.one_of(SMALL, st.just([]), st.text(max_size=2))
    return [
        event("combatant.joined", name=NAMES, side=SIDES, stats=stats),
        event("combatant.joined", name=NAMES, side=SIDES, stats=stats),
        event("combatant.left", name=NAMES, manner=manner),
        event("note", text=st.text(max_size=5)),
        event("event.retracted", target=st.integers(0, 30), reason=st.just("misread")),
        event(
            "event.corrected",
            target=st.integers(0, 30),
            reason=st.just("misread"),
            fields=st.dictionaries(
                st.sampled_from(["level", "amount", "harm", "target", "x", "type"]),
                st.one_of(SMALL, NAMES, st.none()),
                max_size=2,
            ),
        ),
        event(
            "track.adjusted",
            target=NAMES,
            track=st.sampled_from(tracks),
            value=value,
            reason=st.just("ruling"),
        ),
        event(
            "tracks.noted",
            target=NAMES,
            values=st.dictionaries(st.sampled_from(tracks), value, max_size=2),
        ),
        event("scene.ended"),
        st.dictionaries(
            st.sampled_from(["type", "target", "level", "amount", "name", "x"]),
            st.one_of(SMALL, st.text(max_size=3), st.none(), st.booleans()),
        ),
    ]


def ssss() -> st.SearchStrategy[Event]:
    level = st.integers(-1, 11)
    stats: st.SearchStrategy[Any] = st.one_of(
        st.fixed_dictionaries({"level": st.integers(-1, 6)}),
        st.fixed_dictionaries(
            {
                "level": st.integers(0, 5),
                "slots": st.dictionaries(st.sampled_from("12345"), st.integers(0, 4)),
            }
        ),
        st.just({}),
    )
    return st.one_of(
        *common(stats, ["penalties", "level", "harm", "slots"]),
        event(
            "throw.made",
            actor=NAMES,
            attribute=st.sampled_from(["swords", "stones", "x"]),
            outcome=st.just("hit"),
            harm_level=maybe(level),
        ),
        event("harm.inflicted", target=NAMES, level=level, throw=maybe(st.integers(0, 30))),
        event("harm.inflicted", target=NAMES, level=level),
        event("grit.used", target=NAMES, from_level=level, to_level=level),
    )


def ironsworn() -> st.SearchStrategy[Event]:
    meter = st.integers(-1, 6)
    stats: st.SearchStrategy[Any] = st.one_of(
        st.fixed_dictionaries(
            {"iron": st.integers(0, 4), "health": meter, "momentum": st.integers(-7, 11)}
        ),
        st.fixed_dictionaries({"rank": st.sampled_from(["troublesome", "epic", "huge"])}),
        st.just({}),
    )
    debility = st.sampled_from(["wounded", "shaken", "maimed", "hungry"])
    return st.one_of(
        *common(stats, ["health", "spirit", "momentum", "debilities"]),
        event(
            "harm.suffered",
            target=NAMES,
            amount=maybe(SMALL),
            rank=maybe(st.sampled_from(["troublesome", "epic"])),
            foe=maybe(NAMES),
        ),
        event(
            "roll.made",
            actor=NAMES,
            stat=st.sampled_from(["iron", "health", "luck"]),
            action_die=st.integers(0, 7),
            challenge=st.lists(st.integers(0, 11), min_size=2, max_size=2),
            move=maybe(st.sampled_from(["endure_harm", "face_danger"])),
        ),
        event("momentum.burned", target=NAMES, roll=st.integers(0, 30)),
        event(
            "choice.made",
            target=NAMES,
            option=st.sampled_from(["shake_it_off", "embrace_the_pain", "flee"]),
        ),
        event("debility.marked", target=NAMES, debility=debility),
        event("debility.cleared", target=NAMES, debility=debility),
        event("oracle.rolled", target=NAMES, roll=st.integers(0, 101)),
        event(
            "meter.changed",
            target=NAMES,
            meter=st.sampled_from(["health", "spirit", "supply", "momentum"]),
            amount=SMALL,
        ),
    )


def fates_edge() -> st.SearchStrategy[Event]:
    armor = st.sampled_from(["none", "light", "medium", "heavy"])
    stats: st.SearchStrategy[Any] = st.one_of(
        st.fixed_dictionaries(
            {
                "resilience": st.integers(-1, 10),
                "fatigue_capacity": st.integers(0, 4),
                "armor": armor,
                "phases": st.lists(st.integers(1, 5), max_size=2),
            }
        ),
        st.fixed_dictionaries({"armor": armor, "body": st.integers(0, 4)}),
        st.just({"resilience": None, "resolution": "talk it down"}),
        st.just({}),
    )
    return st.one_of(
        *common(stats, ["resilience", "fatigue", "harm", "phase"]),
        event(
            "stakes.locked",
            stake=STAKES,
            actor=NAMES,
            opposing=maybe(NAMES),
            kind=maybe(st.sampled_from(["action", "defense"])),
            position=maybe(st.sampled_from(["desperate", "controlled", "dominant"])),
            dv=maybe(st.integers(0, 6)),
            harm=maybe(st.integers(0, 6)),
            source=maybe(st.sampled_from(["player", "sb_attack", "opportunity"])),
        ),
        event("roll.made", stake=STAKES, dice=st.lists(st.integers(0, 11), max_size=6)),
        event(
            "hit.resolved",
            target=NAMES,
            harm=SMALL,
            stake=maybe(STAKES),
            ignore_armor=maybe(st.sampled_from([0, 1, "all"])),
        ),
        event("fatigue.marked", target=NAMES, amount=st.integers(0, 5)),
        event(
            "sb.spent",
            amount=st.integers(0, 3),
            purpose=st.sampled_from(["attack", "move", "shape", "bribe"]),
        ),
        event("harm.suffered", target=NAMES, stake=STAKES, harm=SMALL),
    )


def l5r() -> st.SearchStrategy[Event]:
    ring = st.integers(0, 6)
    rings = st.fixed_dictionaries(
        {"air": ring, "earth": ring, "fire": ring, "water": ring, "void": ring}
    )
    stats: st.SearchStrategy[Any] = st.one_of(
        st.fixed_dictionaries({"rings": rings}),
        st.fixed_dictionaries({"rings": rings, "endurance": st.integers(0, 9)}),
        st.just({}),
    )
    return st.one_of(
        *common(stats, ["fatigue", "endurance", "void_points", "incapacitated"]),
        event(
            "damage.dealt",
            target=NAMES,
            amount=SMALL,
            damage_type=maybe(st.sampled_from(["physical", "supernatural", "fire"])),
            deadliness=maybe(st.integers(0, 8)),
            voluntary_critical=maybe(st.booleans()),
        ),
        event("critical.resolved", target=NAMES, severity=st.integers(-1, 120)),
        event("fatigue.removed", target=NAMES, amount=SMALL),
        event("rest.taken", target=NAMES),
        event("void.spent", target=NAMES, amount=st.integers(0, 3)),
        event("void.gained", target=NAMES, amount=st.integers(0, 3)),
    )


def within_bounds(system: str, state: core.State, kind: str, target: Any) -> None:
    """Every track of every combatant within the bounds its system gives it."""
    for name, combatant in state.combatants.items():
        tracks = combatant.view()
        if system == "ssss" and "slots" in tracks:
            for slot in tracks["slots"].values():
                assert 0 <= slot["filled"] <= slot["capacity"], (name, tracks)
            assert tracks["penalties"] >= 0, (name, tracks)
        if system == "ironsworn" and "health" in tracks:
            assert 0 <= tracks["health"] <= 5, (name, tracks)
            assert -6 <= tracks["momentum"] <= tracks["max_momentum"], (name, tracks)
        if system == "fates-edge" and tracks.get("resilience") is not None:
            assert tracks["resilience"] >= 0, (name, tracks)
            capacity = tracks.get("fatigue_capacity")
            hit = kind in ("hit.resolved", "fatigue.marked") and name == target
            if hit and isinstance(capacity, int) and tracks["status"] == "active":
                assert 0 <= tracks["fatigue"] < capacity, (name, kind, tracks)
        if system == "l5r" and "fatigue" in tracks:
            assert tracks["fatigue"] >= 0 and tracks["void_points"] >= 0, (name, tracks)


RINGS = {"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 3}
#: Every stream starts with a valid cast, so that most random events have someone to act on.
CAST: dict[str, list[Event]] = {
    "ssss": [
        {"type": "combatant.joined", "name": "Ann", "side": "player", "stats": {}},
        {"type": "combatant.joined", "name": "Bo", "side": "adversary", "stats": {"level": 3}},
    ],
    "ironsworn": [
        {
            "type": "combatant.joined",
            "name": "Ann",
            "side": "player",
            "stats": {"iron": 2, "health": 5, "momentum": 2},
        },
        {
            "type": "combatant.joined",
            "name": "Bo",
            "side": "adversary",
            "stats": {"rank": "dangerous"},
        },
    ],
    "fates-edge": [
        {
            "type": "combatant.joined",
            "name": "Ann",
            "side": "player",
            "stats": {"armor": "light", "body": 3},
        },
        {
            "type": "combatant.joined",
            "name": "Bo",
            "side": "adversary",
            "stats": {"resilience": 6, "fatigue_capacity": 3, "armor": "medium", "phases": [4]},
        },
    ],
    "l5r": [
        {"type": "combatant.joined", "name": "Ann", "side": "player", "stats": {"rings": RINGS}},
        {
            "type": "combatant.joined",
            "name": "Bo",
            "side": "adversary",
            "stats": {"rings": RINGS, "endurance": 6},
        },
    ],
}

STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Event]]] = {
    "ssss": ssss,
    "ironsworn": ironsworn,
    "fates-edge": fates_edge,
    "l5r": l5r,
}
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)


def record_all(system: str, stream: list[Event]) -> Ledger:
    """An in-memory ledger with `stream` recorded one event at a time, checking each answer."""
    ledger = Ledger(":memory:")
    ledger.open("fuzz", system)
    for item in CAST[system]:
        ledger.record("fuzz", item)
    for item in stream:
        head = ledger.store.require("fuzz")
        try:
            result = ledger.record("fuzz", item)
        except BadInput:
            after = ledger.store.require("fuzz")
            assert (after.seq, after.hash) == (head.seq, head.hash)
            continue
        assert result.seq == head.seq + 1
        record = result.records[-1]
        within_bounds(system, result.state, record.type, getattr(record.event, "target", None))
    return ledger


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_random_streams_fold_within_bounds_and_refusals_append_nothing(system: str) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30))
    def check(stream: list[Event]) -> None:
        with record_all(system, stream) as ledger:
            assert ledger.verify("fuzz")[0].ok

    check()


def effective_view(state: core.State) -> dict[str, Any]:
    view = state.view()
    return {k: view[k] for k in ("combatants", "pools", "rolls")}


def undoable(records: list[events.Recorded], pick: int) -> int | None:
    """The seq of an event in force to undo, picked by `pick` (None: nothing to undo)."""
    gone = core.excluded(records)
    live = [r.seq for r in records if r.seq > 1 and r.seq not in gone]
    return live[pick % len(live)] if live else None


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_undo_then_redo_restores_the_state(system: str) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30), st.integers(0, 40))
    def check(stream: list[Event], pick: int) -> None:
        with record_all(system, stream) as ledger:
            target = undoable(ledger.records("fuzz"), pick)
            if target is None:
                return
            before = effective_view(ledger.tracks("fuzz"))
            try:
                ledger.undo("fuzz", target, reason="fuzz")
            except BadInput:
                return  # e.g. a retraction whose target is already back
            ledger.redo("fuzz")
            assert effective_view(ledger.tracks("fuzz")) == before

    check()


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_the_streaming_reads_equal_the_pure_fold_of_the_stored_stream(system: str) -> None:
    @FUZZ
    @given(
        st.lists(STRATEGIES[system](), min_size=6, max_size=30),
        st.integers(1, 40),
        st.lists(st.integers(2, 40), max_size=3),
    )
    def check(stream: list[Event], at: int, without: list[int]) -> None:
        with record_all(system, stream) as ledger:
            records = ledger.records("fuzz")
            top = len(records)
            at, without = min(at, top), [w for w in without if w <= top]
            fresh = Ledger(":memory:")  # no cache: every read folds from the rows
            fresh.import_lines(list(ledger.export("fuzz")))
            for reader in (ledger, fresh):
                assert reader.tracks("fuzz") == core.fold(ruleset_of(records), records)
                assert reader.tracks("fuzz", at=at, without=without) == core.fold(
                    ruleset_of(records), records, at=at, without=without
                )
                assert reader.audit("fuzz") == audit_rules.audit(ruleset_of(records), records)
                start = min(2, at)  # replay refuses --from after --to
                stored = [(s.record.seq, s.changes) for s in reader.replay("fuzz", start, at)]
                pure = steps.replay(ruleset_of(records), records, start, at)
                assert stored == [(s.record.seq, s.changes) for s in pure]
            fresh.close()

    check()


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_a_combatants_history_ends_at_its_tracks(system: str) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30))
    def check(stream: list[Event]) -> None:
        with record_all(system, stream) as ledger:
            state = ledger.tracks("fuzz")
            for name, combatant in state.combatants.items():
                last: dict[str, Any] = {}
                for step in ledger.history("fuzz", name):
                    assert all(c.combatant == name for c in step.changes)
                    last.update({c.track: c.after for c in step.changes})
                view = combatant.view()
                assert {k: view[k] for k in last} == last

    check()


def without_rulings(findings: list[Finding]) -> list[Finding]:
    """The findings about the fight, less the notes a retraction or correction adds itself."""
    return [f for f in findings if f.rule != "ruling-reversed"]


def new_values(data: st.DataObject, body: dict[str, Any]) -> dict[str, Any]:
    """Some of an event's fields changed: numbers to other small numbers, names to names."""
    fields: dict[str, Any] = {}
    for key, value in body.items():
        if isinstance(value, bool) or not data.draw(st.booleans(), label=f"change {key}"):
            continue
        if isinstance(value, int):
            fields[key] = data.draw(SMALL, label=key)
        elif isinstance(value, str) and key in ("target", "actor", "name", "opposing"):
            fields[key] = data.draw(NAMES, label=key)
    return fields


def correctable(system: str, records: list[events.Recorded]) -> list[events.Recorded]:
    """The events of a fuzzed stream an amend may correct: in force, after the cast joined."""
    now = revisions.standing(records)
    return [
        r
        for r in records
        if r.seq > 1 + len(CAST[system])
        and r.seq not in now.gone
        and r.type not in revisions.UNCORRECTABLE
    ]


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_a_correction_folds_as_the_corrected_event_written_in_place_from_the_start(
    system: str,
) -> None:
    @FUZZ
    @given(st.lists(STRATEGIES[system](), min_size=6, max_size=30), st.integers(0, 40), st.data())
    def check(stream: list[Event], pick: int, data: st.DataObject) -> None:
        with record_all(system, stream) as ledger:
            records = ledger.records("fuzz")
            facts = correctable(system, records)
            if not facts:
                return
            target = facts[pick % len(facts)]
            fields = new_values(data, events.body_of(target.event))
            before = (effective_view(ledger.tracks("fuzz")), ledger.audit("fuzz"))
            try:
                amended = ledger.amend("fuzz", target.seq, fields, reason="fuzz")
            except BadInput:
                return  # nothing changed, or the corrected event is not valid where it was
            (correction,) = amended.records
            written = revisions.corrected(target, [correction])
            in_place = [written if r.seq == target.seq else r for r in records]
            pure = core.fold(ruleset_of(in_place), in_place)
            assert effective_view(amended.state) == effective_view(pure)
            assert effective_view(ledger.tracks("fuzz")) == effective_view(pure)
            assert without_rulings(ledger.audit("fuzz")) == without_rulings(
                audit_rules.audit(ruleset_of(in_place), in_place)
            )
            ledger.undo("fuzz", correction.seq, reason="it was right")
            after = (effective_view(ledger.tracks("fuzz")), ledger.audit("fuzz"))
            assert after[0] == before[0]
            assert without_rulings(after[1]) == without_rulings(before[1])

    check()


def in_rounds(system: str) -> st.SearchStrategy[list[Event]]:
    """A random stream with `round.started` events among its events (rounds 1, 2, ...)."""
    items = st.lists(st.tuples(STRATEGIES[system](), st.booleans()), min_size=6, max_size=30)

    def numbered(drawn: list[tuple[Event, bool]]) -> list[Event]:
        out: list[Event] = [{"type": "round.started", "round": 1}]
        for item, starts in drawn:
            if starts:
                out.append({"type": "round.started", "round": out_rounds(out) + 1})
            out.append(item)
        return out

    return items.map(numbered)


def out_rounds(stream: list[Event]) -> int:
    return sum(1 for e in stream if e.get("type") == "round.started")


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_a_rewind_leaves_the_end_of_its_round_and_its_undo_restores_the_exact_tracks(
    system: str,
) -> None:
    @FUZZ
    @given(in_rounds(system), st.integers(1, 12))
    def check(stream: list[Event], pick: int) -> None:
        with record_all(system, stream) as ledger:
            played = sorted({s.round for s in ledger.replay("fuzz") if s.round is not None})
            assume(played)  # a stream whose round starts were all undone has no round
            number = played[pick % len(played)]
            before = ledger.tracks("fuzz")
            end = ledger.round_tracks("fuzz", number)
            try:
                ledger.rewind("fuzz", number, reason="fuzz")
            except BadInput as exc:
                assert str(exc).startswith("nothing to rewind"), exc
                assert number == played[-1] or end.view() == before.view()
                return
            rewound = ledger.tracks("fuzz")
            assert effective_view(rewound) == effective_view(end)
            records = ledger.records("fuzz")
            assert rewound == core.fold(ruleset_of(records), records)
            ledger.undo("fuzz", reason="fuzz")
            after = ledger.tracks("fuzz")
            assert effective_view(after) == effective_view(before)
            assert after.skipped == before.skipped
            ledger.redo("fuzz")
            assert effective_view(ledger.tracks("fuzz")) == effective_view(rewound)

    check()


def hurt_from_the_tracks(view: dict[str, Any]) -> dict[str, int]:
    """What each system counts as damage, read from a combatant's `tracks --json` alone (an
    adversary's Resilience in Fate's Edge spans its phases: the stats check it by its ruleset)."""
    if "criticals" in view:  # l5r
        return {"fatigue": view["fatigue"], "criticals": len(view["criticals"])}
    if "momentum" in view:  # an ironsworn character
        return {"health": -view["health"], "spirit": -view["spirit"]}
    if "slots" in view:  # an ssss enemy
        return {"slots": sum(slot["filled"] for slot in view["slots"].values())}
    if isinstance(view.get("harm"), list):  # an ssss player
        return {"harm": sum(view["harm"])}
    if "harm" in view:  # a fates-edge player
        return {"harm": view["harm"], "fatigue": view["fatigue"] or 0}
    if "phase" in view and view.get("resilience") is not None:  # a fates-edge adversary
        return {"fatigue": view["fatigue"]}
    return {}


@pytest.mark.parametrize("system", list(STRATEGIES))
def test_damage_taken_less_recovered_and_cleared_is_how_far_the_tracks_moved(system: str) -> None:
    @FUZZ
    @given(in_rounds(system))
    def check(stream: list[Event]) -> None:
        with record_all(system, stream) as ledger:
            stats = ledger.stats("fuzz")
            told = list(ledger.replay("fuzz"))
            ruleset = ruleset_of(ledger.records("fuzz"))
            final = told[-1].state
            at = {step.record.seq: step.state for step in told}
            for fighter in stats.fighters:
                now = final.combatants[fighter.name]
                joined = at[now.joined].combatants[fighter.name]
                moved = {
                    track: ruleset.hurt(now).get(track, 0) - ruleset.hurt(joined).get(track, 0)
                    for track in {*ruleset.hurt(now), *ruleset.hurt(joined)}
                }
                net = {
                    track: fighter.taken.get(track, 0)
                    - fighter.recovered.get(track, 0)
                    - fighter.cleared.get(track, 0)
                    for track in moved
                }
                assert net == moved, (fighter.name, net, moved)
                seen = hurt_from_the_tracks(now.view())
                was = hurt_from_the_tracks(joined.view())
                # A track the view did not count when they joined (a puzzle adversary given a
                # Resilience by a GM's track.adjusted) counts from nothing.
                assert {t: seen[t] - was.get(t, 0) for t in seen} == {
                    t: net.get(t, 0) for t in seen
                }
                by_round: dict[str, int] = {}
                for (_, track), amount in fighter.taken_by_round.items():
                    by_round[track] = by_round.get(track, 0) + amount
                assert by_round == dict(fighter.taken)
            dealt = sum(sum(f.dealt.values()) for f in stats.fighters)
            dealt += sum(sum(s.dealt.values()) for s in stats.sources)
            assert dealt == sum(b.amount for b in stats.blows if b.dealer is not None)

    if system == "fates-edge":  # a stream this test once found: it must keep holding
        check.hypothesis.inner_test(PUZZLE_GIVEN_RESILIENCE)  # type: ignore[attr-defined]
    check()


#: A puzzle adversary (no Resilience) that a GM's track.adjusted gives Resilience 0: its
#: Fatigue counts from nothing, as it did not when it joined.
PUZZLE_GIVEN_RESILIENCE: Final[list[Event]] = [
    {"type": "round.started", "round": 1},
    {
        "type": "combatant.joined",
        "name": "Cy",
        "side": "adversary",
        "stats": {"resilience": None, "resolution": "talk it down"},
    },
    {
        "type": "track.adjusted",
        "target": "Cy",
        "track": "resilience",
        "value": 0,
        "reason": "ruling",
    },
]
