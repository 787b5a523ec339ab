"""`encounter stats` and `encounter recap`: exact output, `--json`, the three recap forms, a
Discord message that fits, and names from the table that cannot mark up or ping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger import Ledger
from ledger.report import recap as recaps
from tests import paths
from tests.cli.invoke import run


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert (code, err) == (0, ""), out + err
    return out


@pytest.fixture
def ford(db: Path) -> Path:
    """ironsworn `ford`: the Raider harms Kira in round 1, she rolls a strong hit, it flees."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "ironsworn", "--title", "Ford")
        ok(db, "add", "ford", "Kira", "--side", "player", "--stat", "iron=3")
        ok(db, "add", "ford", "Raider", "--side", "adversary", "--stat", "rank=dangerous")
        ok(db, "round", "ford", "1")
        ok(db, "endure-harm", "ford", "Kira", "--foe", "Raider")
        ok(db, "action-roll", "ford", "Kira", "--using", "iron", "--die", "5", "--challenge", "2,7")
        ok(db, "round", "ford", "2")
        ok(db, "record", "ford", "combatant.left", "name=Raider", "manner=fled")
    return db


STATS = """\
Damage:

| combatant | side      | status | taken    | recovered | dealt    |
| --------- | --------- | ------ | -------- | --------- | -------- |
| Kira      | player    | active | health 2 | -         | -        |
| Raider    | adversary | fled   | -        | -         | health 2 |

Damage by round:

| round | combatant | taken    | dealt    |
| ----- | --------- | -------- | -------- |
| 1     | Kira      | health 2 | -        |
| 1     | Raider    | -        | health 2 |

Rolls: outcomes as the dice gave them (expected):

| actor | rolls | strong hit | weak hit | miss    |
| ----- | ----- | ---------- | -------- | ------- |
| Kira  | 1     | 1 (0.3)    | 0 (0.4)  | 0 (0.2) |

Rolls by dice (expected):

| actor | dice | rolls | strong hit | weak hit | miss    |
| ----- | ---- | ----- | ---------- | -------- | ------- |
| Kira  | d6+3 | 1     | 1 (0.3)    | 0 (0.4)  | 0 (0.2) |

- Out of the fight: Raider fled (round 2, seq 8).
- Rulings: none.
- Findings: 1 info.
- Dice: 1 roll typed, 0 rolled by the ledger (verifiable).
"""


def test_stats_prints_damage_rolls_and_who_fell(ford: Path) -> None:
    assert ok(ford, "stats", "ford") == STATS


def test_stats_json_holds_the_same_figures_with_exact_odds_rounded(ford: Path) -> None:
    document = json.loads(ok(ford, "stats", "ford", "--json"))
    assert document["combatants"]["Kira"]["taken"] == {"health": 2}
    assert document["combatants"]["Raider"]["dealt_by_round"] == [
        {"round": 1, "tracks": {"health": 2}}
    ]
    # d6 + 3 against two d10s: 199 of the 600 outcomes beat both dice.
    assert document["rolls"]["Kira"]["expected"]["strong_hit"] == round(199 / 600, 4)
    assert document["defeats"] == [{"seq": 8, "round": 2, "combatant": "Raider", "status": "fled"}]
    assert document["dice"] == {"ledger": 0, "typed": 1}


def test_stats_of_an_unknown_encounter_is_one_line_exit_2(ford: Path) -> None:
    code, out, err = run(ford, "stats", "frod")
    assert (code, out) == (2, "")
    assert err.startswith("Error: encounter 'frod' is not in")


RECAP = """\
# Ford
ironsworn · 2 rounds · 8 events · head {head}

Kira against Raider.

**Moments**
- round 1, seq 5: Kira endures 2 harm from Raider (dangerous): health 5 -> 3
- round 2, seq 8: Raider flees

**Out of the fight**: Raider (fled, round 2).

**Numbers**
- Kira: took health 2
- Raider: dealt health 2
- Kira rolled 1: strong hit 1 (0.3 expected), weak hit 0 (0.4 expected), miss 0 (0.2 expected)

Rulings: none. Findings: 1 info.
"""


def test_recap_tells_who_fought_whom_the_moments_who_fell_and_the_numbers(ford: Path) -> None:
    head = json.loads(ok(ford, "verify", "ford", "--json"))["encounters"][0]["head"][:16]
    assert ok(ford, "recap", "ford") == RECAP.format(head=head)
    text = ok(ford, "recap", "ford", "--format", "text")
    assert text.splitlines()[0] == "Ford" and "**" not in text
    discord = ok(ford, "recap", "ford", "--format", "discord")
    assert discord.splitlines()[0] == "**Ford**"


def test_recap_of_an_exported_file_has_the_same_facts(ford: Path, tmp_path: Path) -> None:
    export = tmp_path / "ford.jsonl"
    assert run(ford, "export", "ford", "--out", str(export))[0] == 0
    assert ok(ford, "recap", str(export)) == ok(ford, "recap", "ford")


def test_a_discord_recap_of_a_long_fight_fits_in_one_message(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("melee", "ssss", title="The long melee")
        ledger.join("melee", "Ash", "player", {})
        foes = [
            f"Bandit number {n} of the very long roll of the Yorelle road gang" for n in range(40)
        ]
        for name in foes:
            ledger.join("melee", name, "adversary", {"level": 1})
        for n, name in enumerate(foes):
            ledger.record("melee", {"type": "round.started", "round": n + 1})
            for _ in range(4):
                ledger.record("melee", {"type": "harm.inflicted", "target": name, "level": 1})
    full = ok(db, "recap", "melee")
    assert len(full) > recaps.DISCORD_LIMIT
    post = ok(db, "recap", "melee", "--format", "discord")
    assert len(post.rstrip("\n")) <= recaps.DISCORD_LIMIT
    lines = post.splitlines()
    assert lines[0] == "**The long melee**"
    assert lines[-1] == "- (more in the full report: `encounter report`)"
    assert "Rulings: none. Findings:" in post


def test_names_from_the_table_neither_mark_up_nor_ping(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss", title="**Loud** @everyone")
        ledger.join("ford", "<@123> *Ash*", "player", {})
        ledger.join("ford", "Bandit", "adversary", {"level": 1})
        ledger.record("ford", {"type": "harm.inflicted", "target": "Bandit", "level": 3})
    discord = ok(db, "recap", "ford", "--format", "discord")
    assert discord.splitlines()[0] == "**\\*\\*Loud\\*\\* @\u200beveryone**"
    assert "\\<@\u200b123> \\*Ash\\* against Bandit." in discord
    md = ok(db, "recap", "ford")
    assert md.splitlines()[0] == "# \\*\\*Loud\\*\\* @everyone"


@pytest.mark.parametrize(
    ("joined", "said"),
    [
        ([("Kira", "player")], "Kira in the fight; no foe joined."),
        (
            [("Ogre", "adversary"), ("Imp", "adversary")],
            "Ogre and Imp in the fight; no player joined.",
        ),
        ([], "Nobody has joined the fight yet."),
    ],
)
def test_a_recap_of_a_one_sided_fight_says_which_side_is_missing(
    db: Path, joined: list[tuple[str, str]], said: str
) -> None:
    with Ledger(db) as ledger:
        ledger.open("lone", "ssss")
        for name, side in joined:
            ledger.join("lone", name, side, {} if side == "player" else {"level": 1})
    assert said in ok(db, "recap", "lone").splitlines()


def test_an_undo_is_counted_once_among_the_rulings_not_again_among_the_findings(
    ford: Path,
) -> None:
    """The undo's `ruling-reversed` note is the ruling itself: stats, the recap and the
    session log count it under the rulings, and their findings agree with the log's header."""
    ok(ford, "note", "ford", "the raider drops a coin")
    ok(ford, "undo", "ford", "--reason", "no coin")
    assert "- Rulings: 1 undo.\n- Findings: 1 info.\n" in ok(ford, "stats", "ford")
    assert ok(ford, "recap", "ford").endswith("Rulings: 1 undo. Findings: 1 info.\n")
    md = ok(ford, "export", "ford", "--format", "md")
    assert "1 ruling reversed or corrected, 1 finding (1 info)." in md
    assert "- Rulings: 1 undo.\n- Findings: 1 info.\n" in md
    document = json.loads(ok(ford, "stats", "ford", "--json"))
    assert document["findings"]["by_rule"]["ruling-reversed"] == 1


def test_an_encounter_nobody_has_joined_says_so_instead_of_an_empty_table(db: Path) -> None:
    """No combatant yet (only the opening, or only retracted events): stats, the session log
    and the HTML report say nobody has joined; none shows a table with no row."""
    ok(db, "new", "crypt", "--system", "fates-edge")
    ok(db, "note", "crypt", "the door creaks")
    ok(db, "undo", "crypt", "--reason", "no door")
    assert ok(db, "stats", "crypt") == (
        "- Nobody has joined the fight yet.\n"
        "- GM's pool sb: 0 gained, 0 lowered.\n"
        "- Out of the fight: nobody.\n"
        "- Rulings: 1 undo.\n"
        "- Findings: none.\n"
    )
    md = ok(db, "export", "crypt", "--format", "md")
    assert "Tracks at the end: nobody has joined the fight yet.\n\nGM's pools: sb 0\n" in md
    assert "| combatant |" not in md
    page = ok(db, "report", "crypt", "--html", "-")
    assert "<table" not in page
    assert page.count("Nobody has joined the fight yet.") == 3  # charts, statistics, tracks


def test_a_long_moment_is_cut_between_words(tmp_path: Path) -> None:
    """A moment past the recap's length ends at a whole word ("of enduran..." read as a typo)."""
    out = ok(tmp_path / "x.db", "recap", str(paths.EXAMPLES / "l5r-duel.jsonl"))
    cut = [line for line in out.splitlines() if line.endswith("...")]
    assert cut and "enduran..." not in out
    assert "Akodo Toshiro defends with 3 fatigue (fatigue 3 -> 6 of..." in out
    for line in cut:
        stem = line.removesuffix("...").split(": ", 1)[1]
        assert len(stem) <= recaps.MOMENT_TEXT


def test_the_gm_s_pool_says_which_events_lowered_it_as_the_gm_records_them(db: Path) -> None:
    """Spends and a scene's end both lower Fate's Edge's SB: each named by its event type."""
    ok(db, "new", "reeds", "--system", "fates-edge")
    ok(db, "add", "reeds", "Ash", "--side", "player", "--stat", "body=3")
    ok(db, "add", "reeds", "Hag", "--side", "adversary", "--stat", "resilience=6",
       "--stat", "fatigue_capacity=3")  # fmt: skip
    for stake in ("a", "b"):  # each roll's three 1s give the GM 3 SB
        ok(db, "record", "reeds", "stakes.locked", f"stake={stake}", "actor=Ash", "opposing=Hag",
           "kind=action", "intent=hit", "position=controlled", "dv=3")  # fmt: skip
        ok(db, "record", "reeds", "roll.made", f"stake={stake}", "dice=[1,1,1,6]")
    ok(db, "record", "reeds", "sb.spent", "amount=1", "purpose=shape")
    assert "- GM's pool sb: 6 gained, 1 lowered, all by sb.spent.\n" in ok(db, "stats", "reeds")
    ok(db, "record", "reeds", "scene.ended")  # 5 SB; up to 4 carry over
    assert "- GM's pool sb: 6 gained, 2 lowered (1 by sb.spent, 1 by scene.ended).\n" in ok(
        db, "stats", "reeds"
    )
