"""Every audit rule id of DESIGN.md section 6, as an acceptance suite types it: a stream of
`encounter record` commands (the DESIGN 4 vocabulary, no friendly verb) that breaks the rule and
one that keeps it, read back through `audit --json` (its shape, the finding's severity and seqs,
exit 1 exactly when a finding is an error) and refused whole by `--strict` where it is an error."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.cli.invoke import ok, run

FATES_EDGE = (
    "add t Ash --side player --stat body=3",
    "add t Blade --side adversary --stat resilience=8 --stat fatigue_capacity=3 --stat armor=light"
    ' --stat harm=2 --stat \'moves=[{"name": "Poisoned Cut", "cost": 1, "trigger": '
    '"after a hit"}, {"name": "Feint", "cost": 2}]\'',
)
IRONSWORN = (
    "add t Kira --side player --stat iron=2 --stat momentum=6",
    "add t Troll --side adversary --stat rank=dangerous",
)
SSSS = ("add t Bandit --side adversary --stat level=1", "add t Ash --side player")
#: Kaeru's endurance is (earth 1 + fire 1) x 2 = 4.
L5R = (
    "add t Kaeru --side player --stat rings.air=2 --stat rings.earth=1 --stat rings.fire=1"
    " --stat rings.water=2 --stat rings.void=2",
)


def lock(stake: str, *extra: str) -> str:
    """Ash's attack on the Blade, framed by the book: controlled, DV 3, Harm 2."""
    return (
        f"record t stakes.locked stake={stake} actor=Ash kind=action opposing=Blade target=Blade "
        "position=controlled dv=3 effect=standard harm=2 source=player " + " ".join(extra)
    )


def defend(stake: str, source: str, *extra: str) -> str:
    """Ash's response to the Blade's threat."""
    return (
        f"record t stakes.locked stake={stake} actor=Ash kind=defense opposing=Blade "
        f"position=controlled dv=3 effect=standard source={source} " + " ".join(extra)
    )


def roll(stake: str, dice: str = "[6,7,8]", *extra: str) -> str:
    return f"record t roll.made stake={stake} 'dice={dice}' " + " ".join(extra)


def hit(stake: str, harm: int = 2) -> str:
    return f"record t hit.resolved target=Blade stake={stake} harm={harm}"


def suffer(stake: str, harm: int) -> str:
    return f"record t harm.suffered target=Ash stake={stake} harm={harm}"


def endure(die: int, challenge: str) -> str:
    """Kira's Endure Harm +health (health 3 after a dangerous foe's 2 harm beats iron 2)."""
    return (
        "record t roll.made actor=Kira move=endure_harm stat=health "
        f"action_die={die} 'challenge={challenge}'"
    )


def damage(amount: int, *extra: str) -> str:
    return (
        f"record t damage.dealt target=Kaeru amount={amount} damage_type=physical deadliness=3 "
        + " ".join(extra)
    )


#: Two SB in the GM's pool (the two 1s of a successful cut, charged once): seqs 4 to 6.
TWO_SB = (lock("g"), roll("g", "[1,1,6,7,8]"), hit("g"))
TROLL_HITS = "record t harm.suffered target=Kira foe=Troll"
#: A miss with no health left to roll: +iron 2 (plus a die of 1) against 9 and 9.
AT_ZERO_HEALTH = endure(1, "[9,9]").replace("stat=health", "stat=iron")


class Case(NamedTuple):
    system: str
    cast: tuple[str, ...]
    keeps: tuple[str, ...]
    breaks: tuple[str, ...]
    severity: str
    seqs: list[int]


CASES = {
    "stakes-before-roll": Case(
        "fates-edge", FATES_EDGE, (lock("a"), roll("a")), (roll("a"),), "error", [4]
    ),
    "stakes-locked-once": Case(
        "fates-edge", FATES_EDGE, (lock("a"), lock("b")), (lock("a"), lock("a")), "error", [4, 5]
    ),
    "consequence-charged-once": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a"), hit("a")),
        (lock("a"), roll("a"), hit("a"), hit("a")),
        "error",
        [6, 7],
    ),
    "hit-without-success": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a"), hit("a")),
        (lock("a"), roll("a", "[2,3,4]"), hit("a")),
        "error",
        [4, 5, 6],
    ),
    "sb-not-retroactive": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a", "[1,6,7]"), "record t sb.spent amount=1 purpose=complication"),
        (lock("a"), roll("a", "[1,6,7]"), "record t sb.spent amount=1 purpose=shape stake=a"),
        "error",
        [4, 5, 6],
    ),
    "sb-overspent": Case(
        "fates-edge",
        FATES_EDGE,
        (*TWO_SB, "record t sb.spent amount=2 purpose=complication"),
        (*TWO_SB, "record t sb.spent amount=3 purpose=complication"),
        "error",
        [7],
    ),
    "event-after-defeat": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a"), hit("a")),
        ("record t combatant.left name=Blade manner=fled", lock("a"), roll("a"), hit("a")),
        "error",
        [6],
    ),
    "outcome-claim": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a", "[6,7,8]", "outcome=success")),
        (lock("a"), roll("a", "[6,7,8]", "outcome=miss")),
        "error",
        [5],
    ),
    "tracks-diverged": Case(
        "fates-edge",
        FATES_EDGE,
        ("record t tracks.noted target=Blade 'values={\"resilience\": 8}'",),
        ("record t tracks.noted target=Blade 'values={\"resilience\": 5}'",),
        "warning",
        [4],
    ),
    "manual-adjustment": Case(
        "fates-edge",
        FATES_EDGE,
        ("record t note text=hi",),
        ("record t track.adjusted target=Blade track=resilience value=5 reason=ruling",),
        "info",
        [4],
    ),
    "ruling-reversed": Case(
        "fates-edge",
        FATES_EDGE,
        ("record t note text=hi",),
        ("record t note text=hi", "record t event.retracted target=4 reason=oops"),
        "info",
        [5, 4],
    ),
    "effect-declared-before-roll": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), roll("a"), hit("a", 2)),
        (lock("a"), roll("a"), hit("a", 3)),
        "error",
        [4, 5, 6],
    ),
    "partial-is-lesser": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a", "'partial={\"harm\": 1}'"), roll("a", "[6,7,2]"), hit("a", 1)),
        (lock("a", "'partial={\"harm\": 1}'"), roll("a", "[6,7,2]"), hit("a", 2)),
        "error",
        [4, 5, 6],
    ),
    "npc-attack-needs-sb": Case(
        "fates-edge",
        FATES_EDGE,
        (
            *TWO_SB,
            "record t sb.spent amount=1 purpose=attack",
            defend("d", "sb_attack"),
            roll("d"),
        ),
        (defend("d", "sb_attack"), roll("d")),
        "error",
        [4, 5],
    ),
    "move-cost": Case(
        "fates-edge",
        FATES_EDGE,
        (*TWO_SB, "record t sb.spent amount=2 purpose=move move=Feint"),
        (*TWO_SB, "record t sb.spent amount=1 purpose=move move=Feint"),
        "error",
        [7],
    ),
    "move-trigger": Case(
        "fates-edge",
        FATES_EDGE,
        (*TWO_SB, "record t sb.spent amount=1 purpose=complication"),
        (*TWO_SB, defend("d", "sb_move", "move='\"Poisoned Cut\"'")),
        "error",
        [7],
    ),
    "defense-avoids-hit": Case(
        "fates-edge",
        FATES_EDGE,
        (defend("d", "consequence"), roll("d", "[2,3,4]"), suffer("d", 2)),
        (defend("d", "consequence"), roll("d", "[6,7,8]"), suffer("d", 2)),
        "error",
        [4, 5, 6],
    ),
    "no-retaliation": Case(
        "fates-edge",
        FATES_EDGE,
        (defend("d", "consequence"), roll("d")),
        (defend("d", "consequence"), roll("d"), hit("d")),
        "error",
        [4, 5, 6],
    ),
    "fatigue-no-outgoing-harm": Case(
        "fates-edge",
        FATES_EDGE,
        (
            *TWO_SB[:2],
            hit("g", 1),
            defend("d", "consequence"),
            roll("d", "[2,3,4]"),
            suffer("d", 2),
        ),
        (
            *TWO_SB[:2],
            hit("g", 1),
            defend("d", "consequence"),
            roll("d", "[2,3,4]"),
            suffer("d", 3),
        ),
        "error",
        [7, 8, 9],
    ),
    "dv-default": Case(
        "fates-edge",
        FATES_EDGE,
        (lock("a"), lock("b").replace("dv=3", "dv=4")),
        (lock("a").replace("dv=3", "dv=6"),),
        "warning",
        [4],
    ),
    "harm-before-roll": Case(
        "ironsworn",
        IRONSWORN,
        (TROLL_HITS, endure(4, "[3,5]")),
        (endure(4, "[3,5]"),),
        "error",
        [4],
    ),
    "endure-harm-stat": Case(
        "ironsworn",
        IRONSWORN,
        (TROLL_HITS, endure(4, "[3,5]")),
        (TROLL_HITS, endure(4, "[3,5]").replace("stat=health", "stat=iron")),
        "error",
        [5],
    ),
    "shake-it-off-allowed": Case(
        "ironsworn",
        IRONSWORN,
        (TROLL_HITS, endure(6, "[3,5]"), "record t choice.made target=Kira option=shake_it_off"),
        (TROLL_HITS, endure(1, "[3,5]"), "record t choice.made target=Kira option=shake_it_off"),
        "error",
        [5, 6],
    ),
    "miss-at-zero-health": Case(
        "ironsworn",
        IRONSWORN,
        (
            "record t harm.suffered target=Kira amount=5",
            AT_ZERO_HEALTH,
            "record t debility.marked target=Kira debility=wounded",
        ),
        (
            "record t harm.suffered target=Kira amount=5",
            AT_ZERO_HEALTH,
            "record t harm.suffered target=Kira amount=1",
        ),
        "error",
        [5, 6],
    ),
    "momentum-burn-allowed": Case(
        "ironsworn",
        IRONSWORN,
        (TROLL_HITS, endure(1, "[5,9]"), "record t momentum.burned target=Kira roll=5"),
        (TROLL_HITS, endure(1, "[7,9]"), "record t momentum.burned target=Kira roll=5"),
        "warning",
        [5, 6],
    ),
    "slot-placement": Case(
        "ssss",
        SSSS,
        (
            "record t throw.made actor=Ash attribute=swords outcome=won harm_level=1",
            "record t harm.inflicted target=Bandit level=1 throw=4",
        ),
        (
            "record t throw.made actor=Ash attribute=swords outcome=won harm_level=2",
            "record t harm.inflicted target=Bandit level=1 throw=4",
        ),
        "error",
        [4, 5],
    ),
    "grit-raises-harm": Case(
        "ssss",
        SSSS,
        (
            "record t harm.inflicted target=Ash level=2",
            "record t grit.used target=Ash from_level=2 to_level=1",
        ),
        (
            "record t harm.inflicted target=Ash level=1",
            "record t grit.used target=Ash from_level=1 to_level=2",
        ),
        "error",
        [5],
    ),
    "defend-while-incapacitated": Case(
        "l5r",
        L5R,
        (damage(5), damage(2), "record t critical.resolved target=Kaeru severity=3", damage(1)),
        (damage(5), damage(2), damage(1)),
        "error",
        [4, 5],
    ),
    "void-critical-not-allowed": Case(
        "l5r",
        L5R,
        (damage(2, "voluntary_critical=true"),),
        (damage(5), damage(2, "voluntary_critical=true")),
        "error",
        [4],
    ),
}
RULES = list(CASES)


def play(db: Path, case: Case, steps: tuple[str, ...]) -> None:
    ok(db, "new", "t", "--system", case.system)
    for step in (*case.cast, *steps):
        ok(db, *shlex.split(step))


def audit(db: Path) -> tuple[int, list[dict[str, object]]]:
    """`audit --json`: its exit code and findings, the document checked against DESIGN 6."""
    code, out, err = run(db, "audit", "t", "--json")
    doc = json.loads(out)
    assert (list(doc), doc["encounter"], err) == (["encounter", "findings"], "t", "")
    for finding in doc["findings"]:
        assert list(finding) == ["rule", "severity", "seq", "message"]
        assert finding["severity"] in ("error", "warning", "info")
        assert all(type(seq) is int for seq in finding["seq"]) and finding["seq"]
        assert isinstance(finding["rule"], str) and isinstance(finding["message"], str)
    errors = any(f["severity"] == "error" for f in doc["findings"])
    assert code == (1 if errors else 0)
    return code, doc["findings"]


def test_the_cases_cover_every_rule_id_design_names() -> None:
    design = (
        "stakes-before-roll stakes-locked-once consequence-charged-once hit-without-success "
        "sb-not-retroactive sb-overspent event-after-defeat outcome-claim tracks-diverged "
        "manual-adjustment ruling-reversed effect-declared-before-roll partial-is-lesser "
        "npc-attack-needs-sb move-cost move-trigger defense-avoids-hit no-retaliation "
        "fatigue-no-outgoing-harm dv-default harm-before-roll endure-harm-stat "
        "shake-it-off-allowed miss-at-zero-health momentum-burn-allowed slot-placement "
        "grit-raises-harm defend-while-incapacitated void-critical-not-allowed"
    )
    assert sorted(design.split()) == sorted(RULES)


@pytest.mark.parametrize("rule", RULES)
def test_a_stream_recorded_by_the_book_keeps_the_rule(db: Path, rule: str) -> None:
    play(db, CASES[rule], CASES[rule].keeps)
    code, findings = audit(db)
    assert [f for f in findings if f["rule"] == rule] == []
    assert code == 0, findings


@pytest.mark.parametrize("rule", RULES)
def test_a_stream_that_breaks_the_rule_is_recorded_and_the_audit_names_it(
    db: Path, rule: str
) -> None:
    case = CASES[rule]
    play(db, case, case.breaks)
    _, findings = audit(db)
    first = next(f for f in findings if f["rule"] == rule)
    assert (first["severity"], first["seq"]) == (case.severity, case.seqs), first["message"]


@pytest.mark.parametrize("rule", [r for r in RULES if CASES[r].severity == "error"])
def test_strict_refuses_the_event_that_breaks_the_rule_and_appends_nothing(
    db: Path, rule: str
) -> None:
    case = CASES[rule]
    *before, last = case.breaks
    play(db, case, tuple(before))
    head = ok(db, "log", "t", "--json")
    code, out, err = run(db, *shlex.split(last), "--strict")
    assert (code, out) == (2, "")
    assert err.startswith("Error: refused (--strict): ") and err.count("\n") == 1, err
    assert f"[{rule}]" in err
    assert ok(db, "log", "t", "--json") == head


# DESIGN 7: the keys `tracks --json` and `replay --json` promise, with the kinds of their values,
# for each system (a golden holds the whole document; this holds the contract, whatever a golden
# is regenerated to).

INT, STR, BOOL, LIST, OBJ = int, str, bool, list, dict
#: Per system: the cast and a roll, then the DESIGN keys of a player, of an adversary, of a roll
#: and of the pools.
Kinds = dict[str, type]
SHAPES: dict[str, tuple[tuple[str, ...], Kinds, Kinds, Kinds, Kinds]] = {
    "fates-edge": (
        (
            *FATES_EDGE,
            lock("a"),
            roll("a", "[1,6,7,8]"),
            hit("a"),
        ),
        {"harm": INT, "fatigue": INT},
        {
            "resilience": INT,
            "fatigue": INT,
            "fatigue_capacity": INT,
            "armor": STR,
            "phase": INT,
        },
        {"successes": INT, "sb": INT, "effective_position": STR},
        {"sb": INT},
    ),
    "ironsworn": (
        (*IRONSWORN, TROLL_HITS, endure(4, "[3,5]")),
        {
            "health": INT,
            "spirit": INT,
            "supply": INT,
            "momentum": INT,
            "max_momentum": INT,
            "momentum_reset": INT,
            "debilities": LIST,
            "conditions": LIST,
        },
        {},
        {"score": INT, "match": BOOL},
        {},
    ),
    "ssss": (
        (
            *SSSS,
            "record t throw.made actor=Ash attribute=swords outcome=won harm_level=1",
            "record t harm.inflicted target=Bandit level=1 throw=4",
        ),
        {},
        {"slots": OBJ, "penalties": INT},
        {},
        {},
    ),
    "l5r": (
        (
            *L5R,
            "add t Oni --side adversary --stat rings.air=2 --stat rings.earth=2 --stat rings.fire=2"
            " --stat rings.water=2 --stat rings.void=1",
            damage(5),
            damage(2),
        ),
        {
            "fatigue": INT,
            "endurance": INT,
            "incapacitated": BOOL,
            "void_points": INT,
            "criticals": LIST,
        },
        {
            "fatigue": INT,
            "endurance": INT,
            "incapacitated": BOOL,
            "void_points": INT,
            "criticals": LIST,
        },
        {},
        {},
    ),
}


def kinds(document: dict[str, object], keys: Kinds) -> Kinds:
    """The kind of each of `keys` in `document` (a bool is no int here, as in JSON)."""
    return {key: type(document[key]) for key in keys if key in document}


@pytest.mark.parametrize("system", list(SHAPES))
def test_tracks_json_has_the_keys_and_kinds_design_names_for_each_system(
    db: Path, system: str
) -> None:
    steps, player, adversary, rolled, pools = SHAPES[system]
    ok(db, "new", "t", "--system", system)
    for step in steps:
        ok(db, *shlex.split(step))
    doc = json.loads(ok(db, "tracks", "t", "--json"))
    top: Kinds = {"encounter": STR, "system": STR, "seq": INT, "combatants": OBJ, "pools": OBJ}
    assert kinds(doc, {**top, "rolls": LIST}) == {**top, "rolls": LIST}
    assert (doc["encounter"], doc["system"], doc["seq"]) == ("t", system, len(steps) + 1)
    for combatant in doc["combatants"].values():
        assert combatant["side"] in ("player", "adversary")
        assert combatant["status"] == "active"
        keys = player if combatant["side"] == "player" else adversary
        assert kinds(combatant, keys) == keys
    assert kinds(doc["pools"], pools) == pools
    for made in doc["rolls"]:
        assert type(made["seq"]) is int and "stake" in made and type(made["outcome"]) is str
        assert kinds(made, rolled) == rolled
    for line in ok(db, "replay", "t", "--json").splitlines():
        step = json.loads(line)
        assert list(step)[:5] == ["seq", "type", "event", "combatants", "pools"]
    if system == "ssss":
        (bandit,) = [c for c in doc["combatants"].values() if c["side"] == "adversary"]
        assert bandit["slots"] == {"1": {"filled": 1, "capacity": 3}}
    if system == "l5r":
        (kaeru,) = [c for c in doc["combatants"].values() if c["side"] == "player"]
        assert [(c["seq"], c["severity"]) for c in kaeru["criticals"]] == [(5, 3)]


def test_undo_dry_run_json_gains_the_downstream_design_names_and_appends_nothing(
    db: Path,
) -> None:
    play(db, CASES["hit-without-success"], CASES["hit-without-success"].keeps)
    before = ok(db, "log", "t", "--json")
    doc = json.loads(ok(db, "undo", "t", "5", "--reason", "misread", "--dry-run", "--json"))
    downstream = doc["downstream"]
    # The hit at seq 6 stays applied as played: no track changes, one finding more.
    assert (downstream["first_divergence"], downstream["changes"]) == (5, [])
    assert downstream["findings_removed"] == []
    assert [(f["rule"], f["seq"]) for f in downstream["findings_added"]] == [
        ("hit-without-success", [4, 6])
    ]
    assert ok(db, "log", "t", "--json") == before
    doc = json.loads(ok(db, "undo", "t", "6", "--reason", "it missed", "--dry-run", "--json"))
    assert doc["downstream"]["changes"] == [
        {"combatant": "Blade", "track": "resilience", "before": 7, "after": 8},
        {"combatant": "Blade", "track": "fatigue", "before": 1, "after": 0},
    ]


# adversary-resolution.txt, "Worked hits", typed as DESIGN 4's events (the verbs' own test is
# tests/cli/test_worked_example_cli.py): the Silken Blade, Resilience 8, Fatigue capacity 3,
# Light Armor; each hit a success on its own locked stakes.

WORKED_HITS = {
    "a Harm 2 hit becomes 1 Harm and 1 Fatigue": ([(2, "")], (7, 1)),
    "a later unconverted wound clears the old Fatigue before adding its own": (
        [(2, ""), (2, "")],
        (6, 1),
    ),
    "three Harm 1 hits fill the track, clear it and remove 1 Resilience": (
        [(1, ""), (1, ""), (1, "")],
        (7, 0),
    ),
    "a Harm 3 Backstab ignores Light Armor, removes 3 and clears Fatigue": (
        [(1, ""), (1, ""), (3, "ignore_armor=1")],
        (5, 0),
    ),
}


@pytest.mark.parametrize("example", list(WORKED_HITS))
def test_the_worked_hits_recorded_as_events_give_the_texts_tracks(db: Path, example: str) -> None:
    hits, expected = WORKED_HITS[example]
    ok(db, "new", "t", "--system", "fates-edge")
    for step in FATES_EDGE:
        ok(db, *shlex.split(step.replace("Blade", "'Silken Blade'")))
    for n, (harm, extra) in enumerate(hits):
        for step in (
            lock(f"cut{n}").replace("harm=2", f"harm={harm}"),
            roll(f"cut{n}", "[6,7,9]"),
            f"{hit(f'cut{n}', harm)} {extra}",
        ):
            ok(db, *shlex.split(step.replace("Blade", "'Silken Blade'")))
    blade = json.loads(ok(db, "tracks", "t", "--json"))["combatants"]["Silken Blade"]
    assert (blade["resilience"], blade["fatigue"]) == expected
    assert audit(db) == (0, [])
