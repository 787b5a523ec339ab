"""What a game master finds from the command line alone (#24): the event types and their
fields, each system's stat keys, a verb for every common move, one name for one field, the
names the table types checked, hypotheticals that say so, help that fits, and the examples."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ledger
from ledger import cli, events
from ledger.cli import reference as reference_cli
from tests import paths

runner = CliRunner()


def run(*args: str, columns: int = 100) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, list(args), env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str) -> str:
    code, out, err = run(*args)
    assert code == 0, err
    return out


def events_of(db: Path, name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in ok("--db", str(db), "export", name).splitlines()]


# `encounter events SYSTEM [TYPE]`: the same texts as docs/events.md.


def test_events_lists_a_type_with_its_verb_and_each_field_s_kind_and_meaning() -> None:
    assert ok("events", "ssss", "grit.used") == (
        "grit.used: A player lessens (or, with `to_level` 0, resists) an injury with Grit.\n"
        "  recorded by: encounter grit\n"
        "  target (text; required): Whom it affects: a combatant's name.\n"
        "  from_level (integer 1..10; required): The level of the injury Grit lowers.\n"
        "  to_level (integer 0..10; required): The level it becomes (0: resisted entirely).\n"
        "  scene (integer or text): Game time: the scene this happened in.\n"
        "  round (integer): Game time: the combat round this happened in.\n"
        "  by (text): Who recorded it (a player, the GM, a bot).\n"
        "  source (object {file, line}): Where an imported event came from: a note and its "
        "line (an Iron Vault journal).\n"
        "  entered_by (text): The GM who entered it in the name of `by` (--as gm --by ana).\n"
    )


def test_events_of_a_system_lists_every_type_it_accepts() -> None:
    out = ok("events", "fates-edge")
    types = re.findall(r"^([a-z.]+): ", out, re.M)
    assert types == sorted(ledger.systems.vocabulary("fates-edge").types)
    assert out.endswith("\nOne type: encounter events fates-edge TYPE\n")
    assert "  recorded by: encounter lock\n" in out


def test_events_of_combatant_joined_lists_the_stats_of_each_side() -> None:
    out = ok("events", "ironsworn", "combatant.joined")
    assert "  stats of a player: edge (integer 0..5; default 1), heart (" in out
    assert "  stats of an adversary: rank (troublesome|dangerous|formidable|extreme|epic; " in out


def test_events_as_json_holds_the_fields_and_the_verbs() -> None:
    document = json.loads(ok("events", "l5r", "void.spent", "--json"))
    (event,) = document["events"]
    assert (document["system"], event["type"], event["verbs"]) == (
        "l5r",
        "void.spent",
        ["spend-void"],
    )
    assert event["fields"][1] == {
        "name": "amount",
        "kind": "integer",
        "required": True,
        "default": None,
        "meaning": "Void points spent.",
    }


def test_events_as_json_holds_the_stats_of_each_side_as_the_text_does() -> None:
    document = json.loads(ok("events", "ironsworn", "combatant.joined", "--json"))
    (event,) = document["events"]
    player, adversary = event["stats"]["player"], event["stats"]["adversary"]
    assert player["keys"][0] == {
        "key": "edge",
        "kind": "integer 0..5",
        "required": False,
        "default": "1",
    }
    assert [stat["key"] for stat in adversary["keys"]] == ["rank"]
    assert (player["other_keys"], adversary["other_keys"]) == (False, False)
    ssss = json.loads(ok("events", "ssss", "combatant.joined", "--json"))["events"][0]["stats"]
    assert ssss["player"]["other_keys"] is True  # any other key, kept as given
    assert ssss["adversary"]["keys"][0] == {
        "key": "level",
        "kind": "integer 0..5",
        "required": True,
        "default": None,
    }


def test_an_unknown_type_is_refused_with_the_nearest_and_the_known_ones() -> None:
    code, out, err = run("events", "ssss", "grit.usd")
    assert (code, out) == (2, "")
    assert err.startswith(
        "Error: ssss has no event type 'grit.usd' (did you mean 'grit.used'?) (types: "
    )


def test_record_help_points_to_events_and_amend_help_to_the_verb_s_names() -> None:
    assert "encounter events SYSTEM [TYPE]" in " ".join(ok("record", "--help").split())
    assert "using=heart for --using" in " ".join(ok("amend", "--help").split())


# Stat keys: `add --help` and the error for a stat block that does not validate.


def test_add_help_lists_every_system_s_stats_by_side_with_kinds_and_defaults() -> None:
    # Choices are spaced in the help (`none | light`) so that a long list wraps between them.
    text = " ".join(ok("add", "--help").split()).replace(" | ", "|")
    for line in (
        "fates-edge player: armor (none|light|medium|heavy; default none), body (integer)",
        "fates-edge adversary: resilience (integer or null; required), fatigue_capacity "
        "(integer or text), armor (none|light|medium|heavy; default none), harm (integer), "
        "phases (list of integer), moves (list of object {name, cost, trigger, free, "
        "unavoidable}), pool (integer)",
        "ironsworn adversary: rank (troublesome|dangerous|formidable|extreme|epic; default "
        "dangerous)",
        "ssss player: stones (integer -10..10), scrolls (integer -10..10), swords (integer "
        "-10..10), sorcery (integer -10..10), grit (integer 0..10), and any other key",
        "l5r player: rings (object {air, earth, fire, water, void}; required), endurance",
    ):
        assert line in text, line


def test_a_missing_stat_names_every_stat_of_the_side(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    ok("--db", db, "new", "reeds", "--system", "fates-edge")
    code, _, err = run("--db", db, "add", "reeds", "Hag", "--side", "adversary")
    assert code == 2
    assert err.startswith(
        "Error: stats of 'Hag' is missing stat 'resilience'; a fates-edge adversary's stats: "
        "resilience (integer or null; required), fatigue_capacity (integer or text), armor "
    )
    code, _, err = run("--db", db, "add", "reeds", "Hag", "--side", "adversary", "--stat",
                       "resilience=4")  # fmt: skip
    assert err.startswith(
        "Error: stats of 'Hag': an adversary with resilience needs 'fatigue_capacity'; a "
        "fates-edge adversary's stats: resilience ("
    )
    assert len(events_of(tmp_path / "e.db", "reeds")) == 1


def test_the_attributes_of_an_ssss_sheet_are_stats_kept_and_shown(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    ok("--db", db, "new", "road", "--system", "ssss")
    chief = ok("--db", db, "add", "road", "Chief", "--side", "adversary", "--stat", "level=2",
               "--stat", "swords=2", "--stat", "stones=-1")  # fmt: skip
    assert "Chief joins as an adversary: a level-2 enemy, slots T1 0/3, T2 0/3, stones -1, " in (
        chief
    )
    assert "swords +2" in chief
    ash = ok("--db", db, "add", "road", "Ash", "--side", "player", "--stat", "sorcery=3",
             "--stat", "grit=2")  # fmt: skip
    assert "Ash joins as a player: sorcery 3, grit 2" in ash
    code, _, err = run("--db", db, "add", "road", "Wren", "--side", "player", "--stat",
                       "swords=eleven")  # fmt: skip
    assert (code, err.split(":")[0]) == (2, "Error")


# A verb for every common move.


@pytest.fixture
def ford(tmp_path: Path) -> Path:
    """Kira at 1 health, holding momentum 7, suffers 3 harm (momentum 5) and misses Endure Harm
    at seq 5 (momentum 4)."""
    db = tmp_path / "e.db"
    ok("--db", str(db), "new", "ford", "--system", "ironsworn")
    ok("--db", str(db), "add", "ford", "Kira", "--side", "player", "--stat", "iron=1",
       "--stat", "health=1", "--stat", "momentum=7")  # fmt: skip
    ok("--db", str(db), "add", "ford", "Chief", "--side", "adversary", "--stat", "rank=extreme")
    ok("--db", str(db), "endure-harm", "ford", "Kira", "--amount", "3")
    ok("--db", str(db), "action-roll", "ford", "Kira", "--using", "iron", "--die", "1",
       "--challenge", "3,9")  # fmt: skip
    return db


def test_burn_takes_the_character_s_last_roll_and_says_its_seq(ford: Path) -> None:
    out = ok("--db", str(ford), "burn", "ford", "Kira")
    assert out.splitlines()[:2] == [
        "Recorded seq 6: momentum.burned",
        "  Kira burns momentum 5 on the roll at seq 5: miss -> weak hit: momentum 4 -> 2",
    ]
    assert events_of(ford, "ford")[-1]["roll"] == 5


def test_burn_takes_a_roll_seq_and_refuses_a_character_who_never_rolled(ford: Path) -> None:
    ok("--db", str(ford), "burn", "ford", "Kira", "--roll-seq", "5")
    code, _, err = run("--db", str(ford), "burn", "ford", "Chief")
    assert (code, err) == (2, "Error: 'Chief' has made no roll in encounter 'ford'\n")
    assert len(events_of(ford, "ford")) == 6


@pytest.mark.parametrize(
    ("args", "event"),
    [
        (["choose", "ford", "Kira", "embrace_the_pain"],
         {"type": "choice.made", "target": "Kira", "option": "embrace_the_pain"}),
        (["mark-debility", "ford", "Kira", "wounded"],
         {"type": "debility.marked", "target": "Kira", "debility": "wounded"}),
        (["clear-debility", "ford", "Kira", "shaken"],
         {"type": "debility.cleared", "target": "Kira", "debility": "shaken"}),
        (["meter", "ford", "Kira", "spirit", "--amount", "-1", "--cause", "dread"],
         {"type": "meter.changed", "target": "Kira", "meter": "spirit", "amount": -1,
          "cause": "dread"}),
        (["oracle", "ford", "Kira", "--roll", "42"],
         {"type": "oracle.rolled", "target": "Kira", "table": "endure_harm", "roll": 42}),
        (["end-scene", "ford"], {"type": "scene.ended"}),
        (["leave", "ford", "Chief", "--manner", "fled"],
         {"type": "combatant.left", "name": "Chief", "manner": "fled"}),
        (["note", "ford", "the ford floods"], {"type": "note", "text": "the ford floods"}),
    ],
)  # fmt: skip
def test_each_ironsworn_and_common_verb_records_its_event(
    ford: Path, args: list[str], event: dict[str, object]
) -> None:
    ok("--db", str(ford), *args)
    stored = events_of(ford, "ford")[-1]
    assert {k: stored[k] for k in event} == event


def test_the_ssss_and_l5r_verbs_record_their_events(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    ok("--db", db, "new", "road", "--system", "ssss")
    ok("--db", db, "add", "road", "Ash", "--side", "player")
    ok("--db", db, "throw", "road", "Ash", "swords", "--outcome", "a cut", "--harm-level", "2",
       "--draw-break", "a second cut")  # fmt: skip
    ok("--db", db, "harm", "road", "Ash", "2", "--throw", "3")
    ok("--db", db, "grit", "road", "Ash", "--from", "2", "--to", "0")
    road = events_of(tmp_path / "e.db", "road")
    assert [e["type"] for e in road[2:]] == ["throw.made", "harm.inflicted", "grit.used"]
    assert (road[2]["harm_level"], road[2]["draw_break"], road[4]["to_level"]) == (
        2,
        "a second cut",
        0,
    )
    ok("--db", db, "new", "duel", "--system", "l5r")
    rings = '{"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 3}'
    ok("--db", db, "add", "duel", "Akodo", "--side", "player", "--stat", f"rings={rings}")
    ok("--db", db, "damage", "duel", "Akodo", "20", "--deadliness", "5")
    for args in (
        ["damage", "duel", "Akodo", "2", "--deadliness", "6"],
        ["critical", "duel", "Akodo", "4", "--fitness", "2", "--damage-seq", "4"],
        ["spend-void", "duel", "Akodo"],
        ["gain-void", "duel", "Akodo", "2"],
        ["rest", "duel", "Akodo"],
        ["recover", "duel", "Akodo", "3", "--cause", "Medicine"],
    ):
        ok("--db", db, *args)
    duel = events_of(tmp_path / "e.db", "duel")
    assert [e["type"] for e in duel[4:]] == [
        "critical.resolved",
        "void.spent",
        "void.gained",
        "rest.taken",
        "fatigue.removed",
    ]
    assert (duel[4]["fitness_successes"], duel[4]["damage"], duel[5]["amount"]) == (2, 4, 1)


def test_every_verb_s_help_has_an_example_of_itself() -> None:
    names = re.findall(r"^│ ([a-z][a-z-]+) ", ok("--help"), re.M)
    for name in names:
        out = ok(name, "--help")
        assert "Examples:" in out, name
        assert f"encounter {name} " in out.split("Examples:")[1], name


# One name for one field: amend takes a verb's option names.


def test_amend_takes_the_verb_s_option_names_as_well_as_the_stored_ones(ford: Path) -> None:
    db = str(ford)
    out = ok("--db", db, "amend", "ford", "5", "--using", "heart", "--reason", "it was heart")
    assert out.startswith("Recorded seq 6: event.corrected (corrects seq 5: stat=heart)\n")
    ok("--db", db, "amend", "ford", "5", "using=iron", "--reason", "no, iron")
    ok("--db", db, "amend", "ford", "5", "--challenge=4,9", "die=2", "--reason", "misread")
    ok("--db", db, "amend", "ford", "5", "stat=heart", "--reason", "heart after all")
    fields = [e["fields"] for e in events_of(ford, "ford")[5:]]
    assert fields == [
        {"stat": "heart"},
        {"stat": "iron"},
        {"challenge": [4, 9], "action_die": 2},
        {"stat": "heart"},
    ]


def test_amend_names_the_event_s_fields_and_the_nearest_for_an_unknown_one(ford: Path) -> None:
    code, _, err = run("--db", str(ford), "amend", "ford", "5", "stt=heart", "--reason", "x")
    assert code == 2
    assert err == (
        "Error: the corrected seq 5 (roll.made) has unknown field 'stt' (did you mean 'stat'?) "
        "(valid: scene, round, by, source, entered_by, actor, move, stat, action_die, challenge, "
        "adds, stake, outcome, using, die)\n"
    )


def test_amend_takes_the_lock_and_damage_option_names(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    ok("--db", db, "new", "duel", "--system", "fates-edge")
    ok("--db", db, "add", "duel", "Ash", "--side", "player")
    ok("--db", db, "add", "duel", "Ogre", "--side", "adversary", "--stat", "resilience=4",
       "--stat", "fatigue_capacity=2")  # fmt: skip
    ok("--db", db, "add", "duel", "Troll", "--side", "adversary", "--stat", "resilience=4",
       "--stat", "fatigue_capacity=2")  # fmt: skip
    ok("--db", db, "lock", "duel", "cut", "--actor", "Ash", "--against", "Ogre")
    ok("--db", db, "amend", "duel", "5", "--against", "Troll", "consequence-harm=2",
       "--partial-harm", "1", "--reason", "it was the Troll")  # fmt: skip
    assert events_of(tmp_path / "e.db", "duel")[-1]["fields"] == {
        "opposing": "Troll",
        "consequence_harm": 2,
        "partial": {"harm": 1},
    }
    ok("--db", db, "new", "bridge", "--system", "l5r")
    rings = '{"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 3}'
    ok("--db", db, "add", "bridge", "Akodo", "--side", "player", "--stat", f"rings={rings}")
    ok("--db", db, "damage", "bridge", "Akodo", "4", "--increase", "2")
    ok("--db", db, "amend", "bridge", "3", "increase=3", "--type", "supernatural",
       "--reason", "x")  # fmt: skip
    assert events_of(tmp_path / "e.db", "bridge")[-1]["fields"] == {
        "increases": [3],
        "damage_type": "supernatural",
    }


def test_the_library_amend_takes_the_same_names(tmp_path: Path) -> None:
    with ledger.Ledger(tmp_path / "e.db") as book:
        book.open("ford", "ironsworn")
        book.join("ford", "Kira", "player", {"iron": 2})
        book.record("ford", {"type": "harm.suffered", "target": "Kira", "amount": 1})
        book.record(
            "ford",
            {"type": "roll.made", "actor": "Kira", "stat": "health", "action_die": 3,
             "challenge": [2, 9]},
        )  # fmt: skip
        done = book.amend("ford", 4, {"using": "iron", "challenge": "2,4"}, reason="misread")
        correction = done.records[-1].event
        assert isinstance(correction, events.EventCorrected)
        assert correction.fields == {"stat": "iron", "challenge": [2, 4]}


# Names the table types: a stake never locked.


@pytest.fixture
def duel(tmp_path: Path) -> Path:
    db = tmp_path / "e.db"
    ok("--db", str(db), "new", "duel", "--system", "fates-edge")
    ok("--db", str(db), "add", "duel", "Ash", "--side", "player")
    ok("--db", str(db), "add", "duel", "Ogre", "--side", "adversary", "--stat", "resilience=4",
       "--stat", "fatigue_capacity=2")  # fmt: skip
    ok("--db", str(db), "lock", "duel", "cut", "--actor", "Ash", "--against", "Ogre")
    return db


def test_roll_refuses_a_stake_never_locked_with_the_nearest(duel: Path) -> None:
    code, out, err = run("--db", str(duel), "roll", "duel", "cutt", "--dice", "6,7,8")
    assert (code, out) == (2, "")
    assert err == (
        "Error: stake 'cutt' was never locked in encounter 'duel' (did you mean 'cut'?) "
        "(locked: cut); lock it first, or record the roll as played with --as-played (the audit "
        "flags it)\n"
    )
    assert len(events_of(duel, "duel")) == 4
    code, out, err = run("--db", str(duel), "roll", "duel", "cutt", "--dice", "6,7,8", "--json")
    assert json.loads(err)["error"]["code"] == "unknown-name"


def test_a_stake_never_locked_is_recorded_as_played_and_flagged(duel: Path) -> None:
    played = ok("--db", str(duel), "roll", "duel", "cutt", "--dice", "6,7,8", "--as-played")
    assert "error [stakes-before-roll] seq 5: roll at seq 5 names stake 'cutt'" in played
    recorded = ok("--db", str(duel), "record", "duel", "roll.made", "stake=feint", "dice=[9]")
    assert "error [stakes-before-roll] seq 6" in recorded


def test_a_second_lock_says_at_once_that_the_first_stands(duel: Path) -> None:
    out = ok("--db", str(duel), "lock", "duel", "cut", "--actor", "Ash", "--harm", "3")
    assert out.splitlines()[1] == (
        "  Ash locks 'cut' again: the first lock, at seq 4, stands (a stake id names one test "
        "of the encounter: lock a new test under a new id)"
    )


# Hypotheticals look hypothetical.


def test_tracks_and_replay_without_a_seq_say_what_if_it_had_not_happened(ford: Path) -> None:
    db = str(ford)
    assert ok("--db", db, "tracks", "ford", "--without", "4").startswith(
        "What if seq 4 had not happened:\nford (ironsworn) at seq 5\n"
    )
    assert ok("--db", db, "replay", "ford", "--without", "4", "--without", "5").startswith(
        "What if seqs 4 and 5 had not happened:\nseq 1: "
    )
    what_if = {"without": [4], "text": "what if seq 4 had not happened"}
    assert json.loads(ok("--db", db, "tracks", "ford", "--without", "4", "--json"))["what_if"] == (
        what_if
    )
    lines = ok("--db", db, "replay", "ford", "--without", "4", "--json").splitlines()
    assert all(json.loads(line)["what_if"] == what_if for line in lines)
    assert "what_if" not in json.loads(ok("--db", db, "tracks", "ford", "--json"))
    assert not ok("--db", db, "tracks", "ford").startswith("What if")


# Help that fits.


def every_choice() -> set[str]:
    """Every choice an option offers, across the systems (a wrapped piece must be one)."""
    fields = {
        word
        for line in (ok("events", key) for key in ledger.systems.known())
        for cell in re.findall(r"\(([a-z_][a-z_|-]*\|[a-z_|-]+)", line)
        for word in cell.split("|")
    }
    kinds = {"player", "adversary", "copy", "jsonl", "md", "iron-vault", "discord", "text"}
    return fields | kinds | set(ledger.systems.known())


@pytest.mark.slow  # every command's help, rendered at 80 columns
def test_choice_lists_in_help_break_after_a_bar_never_inside_a_word_at_80_columns() -> None:
    names = re.findall(r"^│ ([a-z][a-z-]+) ", ok("--help"), re.M)
    choices = every_choice()
    for name in names:
        _, out, _ = run(name, "--help", columns=80)
        assert max(len(line) for line in out.splitlines()) <= 80, name
        for line in out.splitlines():
            for cell in re.findall(r"(?<=\s)([a-z_][a-z_-]*\|[a-z_|-]*)(?=\s)", line):
                pieces = [p for p in cell.split("|") if p]
                # A piece split mid-word would not be a choice of any enum the ledger has.
                assert all(piece in choices for piece in pieces), (name, line)


# Examples found after `pipx install`.


def test_examples_lists_the_shipped_examples_and_where_they_are() -> None:
    out = ok("examples")
    assert out.splitlines()[0] == f"Examples in {paths.EXAMPLES}:"
    for path in paths.EXAMPLES.glob("*.jsonl"):
        assert path.name in out
    listed = json.loads(ok("examples", "--json"))
    assert listed["folder"] == str(paths.EXAMPLES)
    assert {e["file"]: e["system"] for e in listed["examples"]}["l5r-duel.jsonl"] == "l5r"


def test_examples_copy_copies_them_and_refuses_to_overwrite_another_file(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    out = ok("examples", "copy", str(target))
    shipped = [p for p in paths.EXAMPLES.rglob("*") if p.is_file()]
    assert out.startswith(f"Copied {len(shipped)} files from ")
    assert (target / "ssss-bandits.jsonl").read_bytes() == (
        paths.EXAMPLES / "ssss-bandits.jsonl"
    ).read_bytes()
    ok("examples", "copy", str(target))  # the same files again: nothing to refuse
    (target / "l5r-duel.jsonl").write_text("mine\n")
    code, _, err = run("examples", "copy", str(target))
    assert (code, (target / "l5r-duel.jsonl").read_text()) == (2, "mine\n")
    assert err.startswith(f"Error: {target / 'l5r-duel.jsonl'} exists and differs")


def test_examples_copy_into_a_folder_that_cannot_be_made_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "a file").write_text("mine\n")
    code, out, err = run("examples", "copy", str(tmp_path / "a file" / "sub"))
    assert (code, out) == (2, "")
    assert err == f"Error: cannot write {tmp_path / 'a file' / 'sub'}: Not a directory\n"
    code, out, err = run("examples", "copy", str(tmp_path / "a file" / "sub"), "--json")
    assert json.loads(err)["error"]["code"] == "bad-input"
    assert (tmp_path / "a file").read_text() == "mine\n"


def test_the_examples_are_found_under_the_installed_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "share" / "encounter-ledger" / "examples"
    shared.mkdir(parents=True)
    (shared / "one.jsonl").write_text('{"type": "encounter.opened", "system": "ssss"}\n')
    monkeypatch.setattr(reference_cli, "_checkout", lambda: tmp_path / "no-checkout")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert reference_cli.shipped_examples() == shared
