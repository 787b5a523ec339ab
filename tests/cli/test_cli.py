"""The `encounter` command: exit codes and exact output of every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time
from typer.testing import CliRunner

from ledger import cli

runner = CliRunner()


def run(db: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, ["--db", str(db), *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path, *args: str) -> str:
    code, out, err = run(db, *args)
    assert (code, err) == (0, ""), out
    return out


@pytest.fixture
def skirmish(db: Path) -> Path:
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "ssss", "--title", "Bandits at the ford")
        ok(db, "add", "ford", "Bandit", "--side", "adversary", "--stat", "level=2")
        ok(db, "add", "ford", "Ash", "--side", "player")
        ok(db, "record", "ford", "harm.inflicted", "target=Bandit", "level=2")
        ok(db, "record", "ford", "harm.inflicted", "target=Bandit", "level=1")
    return db


def test_new_opens_an_encounter_at_seq_1(db: Path) -> None:
    assert ok(db, "new", "ford", "--system", "ssss") == "Opened 'ford' (ssss) at seq 1.\n"


def test_new_refuses_an_existing_name(skirmish: Path) -> None:
    code, out, err = run(skirmish, "new", "ford", "--system", "ssss")
    assert (code, out) == (2, "")
    assert err == f"Error: encounter 'ford' already exists in {skirmish}\n"


def test_new_refuses_an_unknown_system_in_one_line(db: Path) -> None:
    code, out, err = run(db, "new", "ford", "--system", "gurps")
    assert (code, out) == (2, "")
    assert err == (
        "Error: Invalid value for '--system': 'gurps' is not one of 'fates-edge', "
        "'ironsworn', 'ssss', 'l5r'. (see --help)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["new"], "Missing argument 'NAME'."),
        (["bogus"], "No such command 'bogus'."),
        (["tracks", "ford", "--colour"], "No such option: --colour"),
        (["add", "ford", "Ash"], "Missing option '--side'. Choose from: player, adversary"),
    ],
)
def test_a_usage_mistake_is_one_line_and_exit_2(db: Path, args: list[str], message: str) -> None:
    code, out, err = run(db, *args)
    assert (code, out, err) == (2, "", f"Error: {message} (see --help)\n")


def test_a_negative_number_read_as_an_option_says_to_put_two_dashes_before_it(db: Path) -> None:
    code, out, err = run(db, "harm", "ford", "Bandit", "-1")
    assert (code, out) == (2, "")
    assert err == (
        "Error: No such option: -1 (a negative number reads as an option: put -- before it)\n"
    )


def test_new_pins_house_rule_overrides_from_a_file(db: Path, tmp_path: Path) -> None:
    rules = tmp_path / "house.json"
    rules.write_text('{"penalty_stacking": "highest_only"}')
    ok(db, "new", "ford", "--system", "ssss", "--rules", str(rules))
    opened = json.loads(ok(db, "log", "ford", "--json").splitlines()[0])
    assert opened["rules"] == {
        "max_per_tier": 3,
        "top_tier_exhaustion_defeats_on_any_harm": False,
        "penalty_stacking": "highest_only",
        "pc_lethal_harm_level": 4,
    }


def test_an_unknown_house_rule_is_bad_input(db: Path, tmp_path: Path) -> None:
    rules = tmp_path / "house.json"
    rules.write_text('{"penalty_stack": "highest_only"}')
    code, _, err = run(db, "new", "ford", "--system", "ssss", "--rules", str(rules))
    assert (code, err) == (
        2,
        "Error: ssss rules has unknown field 'penalty_stack' (did you mean 'penalty_stacking'?) "
        "(valid: max_per_tier, top_tier_exhaustion_defeats_on_any_harm, penalty_stacking, "
        "pc_lethal_harm_level)\n",
    )
    assert ok(db, "list") == f"No encounters in {db}.\n"


def test_add_prints_the_seq_and_the_new_combatant(db: Path) -> None:
    ok(db, "new", "ford", "--system", "ssss")
    out = ok(db, "add", "ford", "Bandit", "--side", "adversary", "--stat", "level=1")
    assert out == (
        "Recorded seq 2: combatant.joined\n"
        "  Bandit joins as an adversary: a level-1 enemy, slots T1 0/3\n"
        "  Bandit status: - -> active\n"
    )


def test_add_reads_a_stat_block_file(db: Path, tmp_path: Path) -> None:
    block = tmp_path / "ogre.json"
    block.write_text('{"level": 3, "tags": ["giant"]}')
    ok(db, "new", "ford", "--system", "ssss")
    ok(db, "add", "ford", "Ogre", "--side", "adversary", "--from", str(block))
    ogre = json.loads(ok(db, "tracks", "ford", "--json"))["combatants"]["Ogre"]
    assert (ogre["level"], ogre["tags"]) == (3, ["giant"])


def test_record_prints_the_tracks_it_changed_and_the_findings(skirmish: Path) -> None:
    out = ok(skirmish, "record", "ford", "harm.inflicted", "target=Bandit", "level=1")
    assert out == (
        "Recorded seq 6: harm.inflicted\n"
        "  Bandit takes level-1 harm in a level-1 slot (2/3 filled)\n"
        "  Bandit slots: T1:1/3 T2:1/3 -> T1:2/3 T2:1/3\n"
    )
    ok(skirmish, "record", "ford", "harm.inflicted", "target=Ash", "level=1")
    out = ok(skirmish, "record", "ford", "grit.used", "target=Ash", "from_level=1", "to_level=2")
    assert out == (
        "Recorded seq 8: grit.used\n"
        "  Ash uses Grit: turns level-1 harm into level 2: harm 1 -> 2\n"
        "  Ash harm: 1 -> 2\n"
        "error [grit-raises-harm] seq 8: grit at seq 8 takes harm from level 1 to 2; "
        "Grit may only lessen or resist an injury: by the rules the injury stays at level 1 "
        "(harm 1); recorded as played: harm 1 -> 2\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["record", "ford", "harm.inflicted", "target=Nobody", "level=1"],
            "target 'Nobody' is not in encounter 'ford' (known: Bandit, Ash)",
        ),
        (
            ["record", "ford", "harm.inflicted", "target=Bandit", "level=-1"],
            "harm.inflicted event field 'level': input should be greater than or equal to 1 (got -1)",
        ),
        (
            ["record", "ford", "harm.inflicted", "target=Bandit", "level=two"],
            "harm.inflicted event field 'level': input should be a valid integer (got \"two\")",
        ),
        (
            ["record", "ford", "harm.inflicted", "target=Bandit", "level"],
            "field 'level' is not KEY=VALUE",
        ),
        (
            ["record", "ford", "hit.resolved", "target=Bandit", "harm=1"],
            "'hit.resolved' is a fates-edge event; 'ford' is an ssss encounter",
        ),
        (
            ["record", "ford", "blow.landed", "target=Bandit", "harm=1"],
            "unknown event type 'blow.landed' for ssss (known: combatant.joined, combatant.left, "
            "dice.committed, dice.revealed, encounter.opened, encounter.rewound, "
            "event.corrected, event.retracted, grit.used, harm.inflicted, note, "
            "policy.changed, proposal.accepted, proposal.made, proposal.rejected, roll.made, "
            "round.started, scene.ended, stakes.locked, throw.made, track.adjusted, tracks.noted)",
        ),
        (
            ["record", "ford", "harm.inflicted", "target=Bandit", "level=1", "colour=red"],
            "harm.inflicted event has unknown field 'colour'",
        ),
        (
            ["record", "ford", "encounter.opened", "system=ssss"],
            "encounter 'ford' is already open (ssss); encounter.opened comes once, at seq 1",
        ),
        (["record", "moor", "note", "text=hi"], "encounter 'moor' is not in {db} (known: ford)"),
        (["undo", "ford", "1", "--reason", "x"], "seq 1 (encounter.opened) cannot be retracted"),
        (["undo", "ford", "99", "--reason", "x"], "seq 99 is not in encounter 'ford' (seqs 1-5)"),
        (["undo", "ford"], "undo needs --reason TEXT (the ledger keeps why a ruling changed)"),
        (["redo", "ford"], "encounter 'ford' has nothing to redo"),
        (
            ["add", "ford", "Bandit", "--side", "player"],
            "combatant 'Bandit' already joined encounter 'ford'",
        ),
        (
            ["add", "ford", "Ogre", "--side", "adversary", "--stat", "level=9"],
            "stats of 'Ogre' field 'level': input should be less than or equal to 5 (got 9)",
        ),
        (
            ["add", "ford", "Bad\tName", "--side", "player"],
            "combatant.joined event field 'name': must not contain control or invisible "
            'format characters (it holds U+0009) (got "Bad\\tName")',
        ),
        (["tracks", "ford", "--at", "9"], "--at 9: the encounter has seqs 1-5"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_appends_nothing(
    skirmish: Path, args: list[str], message: str
) -> None:
    code, out, err = run(skirmish, *args)
    assert (code, out, err) == (2, "", f"Error: {message.format(db=skirmish)}\n")
    assert json.loads(ok(skirmish, "tracks", "ford", "--json"))["seq"] == 5


def test_a_stale_expect_is_a_conflict_with_exit_3(skirmish: Path) -> None:
    code, out, err = run(skirmish, "record", "ford", "note", "text=late", "--expect", "4")
    assert (code, out) == (3, "")
    assert err == (
        "Error: encounter 'ford' is at seq 5, not 4: another writer appended first; "
        "re-read and try again\n"
    )
    assert ok(skirmish, "record", "ford", "note", "text=ok", "--expect", "5") == (
        "Recorded seq 6: note\n  note: ok\n"
    )


def test_strict_refuses_an_event_that_breaks_a_rule(skirmish: Path) -> None:
    ok(skirmish, "record", "ford", "harm.inflicted", "target=Ash", "level=2")
    code, out, err = run(
        skirmish,
        "record",
        "ford",
        "grit.used",
        "target=Ash",
        "from_level=2",
        "to_level=3",
        "--strict",
    )
    assert (code, out) == (2, "")
    assert err == (
        "Error: refused (--strict): [grit-raises-harm] grit at seq 7 takes harm from level 2 "
        "to 3; Grit may only lessen or resist an injury: by the rules the injury stays at level 2 "
        "(harm 2); recorded as played: harm 2 -> 3\n"
    )
    assert json.loads(ok(skirmish, "tracks", "ford", "--json"))["seq"] == 6


def test_undo_retracts_the_last_event_and_prints_what_changed(skirmish: Path) -> None:
    out = ok(skirmish, "undo", "ford", "--reason", "that hit was on Ash")
    assert out == (
        "Recorded seq 6: event.retracted (undid seq 5)\n"
        "  seq 5 undone: that hit was on Ash\n"
        "Downstream: the encounter changes from seq 5 on.\n"
        "Tracks changed:\n"
        "  Bandit slots: T1:1/3 T2:1/3 -> T1:0/3 T2:1/3\n"
        "  Bandit penalties: 2 -> 1\n"
    )


def test_redo_takes_the_retraction_or_the_undone_seq(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "4", "--reason", "misread the throw")
    out = ok(skirmish, "redo", "ford", "4")
    assert out == (
        "Recorded seq 7: event.retracted (redid seq 6)\n"
        "  the undo at seq 6 is reversed: what it undid counts again\n"
        "Downstream: the encounter changes from seq 4 on.\n"
        "Tracks changed:\n"
        "  Bandit slots: T1:1/3 T2:0/3 -> T1:1/3 T2:1/3\n"
        "  Bandit penalties: 1 -> 2\n"
    )
    code, _, err = run(skirmish, "undo", "ford", "7", "--reason", "again")
    assert code == 0, err
    code, _, err = run(skirmish, "undo", "ford", "7", "--reason", "twice")
    assert (code, err) == (
        2,
        "Error: seq 7 is an undo that seq 8 already reversed\n",
    )


def test_tracks_piped_prints_tab_separated_rows_for_each_side(skirmish: Path) -> None:
    # Not a terminal (tests/test_terminal.py draws the tables under a real one).
    assert ok(skirmish, "tracks", "ford") == (
        "ford (ssss) at seq 5\n"
        "player\tstatus\tharm\trecord\n"
        "Ash\tactive\t-\t-\n"
        "adversary\tstatus\tlevel\tslots\tpenalties\ttags\n"
        "Bandit\tactive\t2\tT1:1/3 T2:1/3\t2\t-\n"
    )


def test_tracks_json_has_the_contract_keys(skirmish: Path) -> None:
    doc = json.loads(ok(skirmish, "tracks", "ford", "--json"))
    assert list(doc) == ["encounter", "system", "seq", "combatants", "pools", "rolls"]
    assert doc["combatants"]["Bandit"] == {
        "side": "adversary",
        "status": "active",
        "level": 2,
        "slots": {"1": {"filled": 1, "capacity": 3}, "2": {"filled": 1, "capacity": 3}},
        "penalties": 2,
        "tags": [],
    }


def test_tracks_at_and_without(skirmish: Path) -> None:
    at = json.loads(ok(skirmish, "tracks", "ford", "--at", "4", "--json"))
    without = json.loads(ok(skirmish, "tracks", "ford", "--without", "5", "--json"))
    assert at["combatants"] == without["combatants"]
    assert at["combatants"]["Bandit"]["penalties"] == 1


def test_log_marks_retracted_events(skirmish: Path) -> None:
    with freeze_time("2026-11-29 20:05:00"):
        ok(skirmish, "undo", "ford", "--reason", "wrong")
    out = ok(skirmish, "log", "ford")
    assert (
        "5\t2026-11-29T20:00:00.000000Z\tharm.inflicted\t(retracted by seq 6) target=Bandit level=1\n"
        in out
    )
    assert (
        "6\t2026-11-29T20:05:00.000000Z\tevent.retracted\ttarget=5 reason=wrong kind=undo\n" in out
    )


def test_log_json_marks_retracted_events_with_the_seq_that_retracts_them(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "--reason", "wrong")
    ok(skirmish, "undo", "ford", "6", "--reason", "the undo was wrong")
    lines = [json.loads(line) for line in ok(skirmish, "log", "ford", "--json").splitlines()]
    assert [(line["seq"], line.get("retracted_by")) for line in lines[4:]] == [
        (5, None),
        (6, 7),
        (7, None),
    ]


def test_a_saved_log_json_reads_back_like_an_export(skirmish: Path, tmp_path: Path) -> None:
    ok(skirmish, "undo", "ford", "--reason", "wrong")
    saved = tmp_path / "session.jsonl"
    saved.write_text(ok(skirmish, "log", "ford", "--json"))
    assert ok(skirmish, "verify", str(saved)).startswith("ford: 6 events, chain ok")
    assert ok(skirmish, "tracks", str(saved), "--json") == ok(skirmish, "tracks", "ford", "--json")


def test_a_file_of_two_encounters_verifies_each_and_is_read_one_at_a_time(
    skirmish: Path, tmp_path: Path
) -> None:
    ok(skirmish, "new", "moor", "--system", "ssss")
    both = tmp_path / "both.jsonl"
    both.write_text(ok(skirmish, "export", "ford") + ok(skirmish, "export", "moor"))
    *lines, digest = ok(skirmish, "verify", str(both)).splitlines()
    assert [line.split(":")[0] for line in lines] == ["ford", "moor"]
    assert all("chain ok" in line for line in lines)
    assert digest.startswith("all encounters (2): digest ")
    assert run(skirmish, "tracks", str(both))[::2] == (
        2,
        f"Error: {both} holds several encounters (ford, moor); read them one at a time\n",
    )


def test_log_json_is_the_export_format(skirmish: Path) -> None:
    lines = ok(skirmish, "log", "ford", "--json").splitlines()
    assert lines == ok(skirmish, "export", "ford").splitlines()
    assert json.loads(lines[3]) == {
        "type": "harm.inflicted",
        "target": "Bandit",
        "level": 2,
        "encounter": "ford",
        "seq": 4,
        "id": json.loads(lines[3])["id"],
        "recorded_at": "2026-11-29T20:00:00.000000Z",
        "prev_hash": json.loads(lines[2])["hash"],
        "hash": json.loads(lines[3])["hash"],
    }


def test_replay_shows_each_step_and_its_changes(skirmish: Path) -> None:
    out = ok(skirmish, "replay", "ford", "--from", "4")
    assert out == (
        "seq 4: Bandit takes level-2 harm in a level-2 slot (1/3 filled); penalties 0 -> 1\n"
        "  Bandit slots: T1:0/3 T2:0/3 -> T1:0/3 T2:1/3\n"
        "  Bandit penalties: 0 -> 1\n"
        "seq 5: Bandit takes level-1 harm in a level-1 slot (1/3 filled); penalties 1 -> 2\n"
        "  Bandit slots: T1:0/3 T2:1/3 -> T1:1/3 T2:1/3\n"
        "  Bandit penalties: 1 -> 2\n"
    )


def test_replay_without_an_event_shows_how_it_would_have_gone(skirmish: Path) -> None:
    assert ok(skirmish, "replay", "ford", "--from", "4", "--without", "4") == (
        "What if seq 4 had not happened:\n"
        "seq 5: Bandit takes level-1 harm in a level-1 slot (1/3 filled); penalties 0 -> 1\n"
        "  Bandit slots: T1:0/3 T2:0/3 -> T1:1/3 T2:0/3\n"
        "  Bandit penalties: 0 -> 1\n"
    )
    assert ok(skirmish, "replay", "ford", "--from", "5", "--without", "2") == (
        "What if seq 2 had not happened:\n"
        "seq 5: harm inflicted: no longer applies (target 'Bandit' is not in encounter 'ford' "
        "(known: Ash))\n"
    )
    [line] = ok(skirmish, "replay", "ford", "--from", "5", "--without", "2", "--json").splitlines()
    assert json.loads(line)["skipped"] == "target 'Bandit' is not in encounter 'ford' (known: Ash)"
    assert run(skirmish, "replay", "ford", "--without", "1")[2] == (
        "Error: --without 1: encounter.opened cannot be left out\n"
    )


def test_replay_json_is_one_line_per_effective_event(skirmish: Path) -> None:
    lines = [
        json.loads(x) for x in ok(skirmish, "replay", "ford", "--json", "--to", "4").splitlines()
    ]
    assert [x["seq"] for x in lines] == [1, 2, 3, 4]
    assert list(lines[3]) == [
        "seq",
        "type",
        "event",
        "combatants",
        "pools",
        "round",
        "scene",
        "text",
    ]
    assert lines[3]["event"] == {"target": "Bandit", "level": 2}
    assert lines[3]["combatants"]["Bandit"]["penalties"] == 1


def test_audit_with_no_findings_exits_0(skirmish: Path) -> None:
    assert ok(skirmish, "audit", "ford") == "ford: no findings.\n"


def test_audit_with_an_error_exits_1_and_points_at_the_seqs(skirmish: Path) -> None:
    ok(skirmish, "record", "ford", "stakes.locked", "stake=ambush", "actor=Ash")
    ok(skirmish, "record", "ford", "stakes.locked", "stake=ambush", "actor=Bandit")
    code, out, _ = run(skirmish, "audit", "ford", "--json")
    assert code == 1
    assert json.loads(out) == {
        "encounter": "ford",
        "findings": [
            {
                "rule": "stakes-locked-once",
                "severity": "error",
                "seq": [6, 7],
                "message": "seq 7 locks stake 'ambush' again; it was locked at seq 6 and that "
                "first lock stands",
            },
        ],
    }
    code, out, _ = run(skirmish, "audit", "ford")
    assert code == 1
    assert out.endswith("1 error, 0 warnings, 0 notes.\n")


def test_list_shows_every_encounter(skirmish: Path) -> None:
    doc = json.loads(ok(skirmish, "list", "--json"))
    assert [(h["encounter"], h["system"], h["title"], h["seq"]) for h in doc] == [
        ("ford", "ssss", "Bandits at the ford", 5)
    ]
    assert "ford\tssss\tBandits at the ford\t5\t" in ok(skirmish, "list")


def test_export_import_verify_round_trip_into_another_file(skirmish: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "ford.jsonl"
    code, out, err = run(skirmish, "export", "ford", "--out", str(out_file))
    assert (code, out, err) == (0, "", f"Exported 5 events of 'ford' to {out_file}.\n")
    other = tmp_path / "other.db"
    assert ok(other, "import", str(out_file)) == (
        "Imported 5 events into 'ford' (0 already stored); head seq 5.\n"
    )
    assert ok(other, "import", str(out_file)) == (
        "Imported 0 events into 'ford' (5 already stored); head seq 5.\n"
    )
    head = json.loads(out_file.read_text().splitlines()[-1])["hash"]
    assert ok(other, "verify").startswith(f"ford: 5 events, chain ok, head {head}\n")
    assert ok(other, "import", str(out_file), "--into", "rematch", "--new-ids").startswith(
        "Imported 5 events into 'rematch'"
    )


def test_an_import_with_one_bad_line_appends_nothing(skirmish: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "note", "text": "fine"}\n{"type": "note", "text": 3}\n')
    code, out, err = run(skirmish, "import", str(bad), "--into", "ford")
    assert (code, out) == (2, "")
    assert err == (
        f"Error: {bad} line 2: note event field 'text': input should be a valid string (got 3)\n"
    )
    bad.write_text('{"type": "note", "text": "fine"}\n[1, 2]\n')
    assert run(skirmish, "import", str(bad), "--into", "ford")[2] == (
        f"Error: {bad} line 2: expected a JSON object, got an array\n"
    )
    bad.write_text('{"type": "note", "text": "fine"}\n{"type": \n')
    assert run(skirmish, "import", str(bad), "--into", "ford")[2].startswith(
        f"Error: {bad} line 2: malformed JSON: "
    )
    assert json.loads(ok(skirmish, "tracks", "ford", "--json"))["seq"] == 5


def backdate_seq_4(db: Path) -> None:
    """Edit seq 4's time behind the triggers, as someone with the file could, and put the
    trigger back."""
    import sqlite3

    raw = sqlite3.connect(db)
    (trigger,) = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'")
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute("UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 4")
    raw.execute(trigger[0])
    raw.commit()
    raw.close()


def test_verify_exits_1_and_names_the_first_bad_seq(skirmish: Path) -> None:
    backdate_seq_4(skirmish)
    code, out, _ = run(skirmish, "verify", "ford")
    assert (code, out) == (1, "ford: BROKEN at seq 4: hash does not match the event's contents\n")


def test_audit_of_an_edited_file_exits_1_with_the_broken_chain_first(skirmish: Path) -> None:
    backdate_seq_4(skirmish)
    code, out, _ = run(skirmish, "audit", "ford", "--json")
    assert code == 1
    assert json.loads(out)["findings"] == [
        {
            "rule": "chain-broken",
            "severity": "error",
            "seq": [4],
            "message": "the stored events do not verify at seq 4 (hash does not match the "
            "event's contents): the file was changed after they were written; see "
            "`encounter verify`",
        }
    ]


def test_verify_recomputes_the_chain_of_an_export_and_reads_refuse_a_broken_one(
    skirmish: Path, tmp_path: Path
) -> None:
    export = tmp_path / "ford.jsonl"
    export.write_text(ok(skirmish, "export", "ford"))
    assert ok(skirmish, "verify", str(export)).startswith("ford: 5 events, chain ok, head ")
    edited = tmp_path / "edited.jsonl"
    lines = export.read_text().splitlines()
    lines[3] = lines[3].replace('"level": 2', '"level": 1')
    edited.write_text("\n".join(lines) + "\n")
    code, out, _ = run(skirmish, "verify", str(edited))
    assert (code, out) == (1, "ford: BROKEN at seq 4: hash does not match the event's contents\n")
    for command in ("tracks", "audit", "log"):
        code, out, err = run(skirmish, command, str(edited))
        assert (code, out) == (1, "")
        assert err == (
            f"Error: {edited}: the chain is broken at seq 4: hash does not match the event's "
            "contents\n"
        )
    hand_written = tmp_path / "notes.jsonl"
    hand_written.write_text('{"type": "encounter.opened", "system": "ssss"}\n')
    code, _, err = run(skirmish, "verify", str(hand_written))
    assert (code, err) == (
        2,
        f"Error: {hand_written} carries no hashes to verify (export a ledger to get them)\n",
    )


def test_read_commands_accept_a_jsonl_file_and_write_nothing(
    skirmish: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "session.jsonl"
    shared.write_text(ok(skirmish, "export", "ford"))
    elsewhere = tmp_path / "untouched.db"
    doc = json.loads(ok(elsewhere, "tracks", str(shared), "--json"))
    assert doc["combatants"]["Bandit"]["penalties"] == 2
    assert ok(elsewhere, "audit", str(shared)) == "ford: no findings.\n"
    assert len(ok(elsewhere, "replay", str(shared), "--json").splitlines()) == 5
    assert ok(elsewhere, "list") == f"No encounters in {elsewhere}.\n"


def test_a_missing_jsonl_file_is_bad_input(db: Path) -> None:
    code, _, err = run(db, "tracks", "nowhere.jsonl")
    assert (code, err) == (2, "Error: no such file: nowhere.jsonl\n")


def test_the_db_can_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "env.db"
    monkeypatch.setenv("ENCOUNTER_DB", str(target))
    result = runner.invoke(cli.app, ["new", "ford", "--system", "ssss"])
    assert result.exit_code == 0
    assert target.exists()


def test_every_command_has_help() -> None:
    import typer.main

    group = typer.main.get_command(cli.app)
    assert isinstance(group, cli.OneLineErrors)
    group.list_commands(typer.Context(group))
    for name, command in group.commands.items():
        assert command.help, name
        result = runner.invoke(cli.app, [name, "--help"])
        assert result.exit_code == 0, name
        assert "Usage:" in result.stdout


def test_no_arguments_shows_help() -> None:
    result = runner.invoke(cli.app, [])
    assert result.exit_code in (0, 2)
    assert "Record, audit, undo and replay" in result.stdout


def test_replay_summarises_the_pinned_rules_table(skirmish: Path) -> None:
    out = ok(skirmish, "replay", "ford", "--to", "1")
    assert out == (
        "seq 1: encounter 'ford' opens: Bandits at the ford (ssss, 4 house rules pinned)\n"
    )


def test_record_shows_a_rolls_computed_outcome(db: Path) -> None:
    ok(db, "new", "duel", "--system", "fates-edge")
    ok(db, "add", "duel", "Ash", "--side", "player")
    ok(
        db,
        "add",
        "duel",
        "Blade",
        "--side",
        "adversary",
        "--stat",
        "resilience=8",
        "--stat",
        "fatigue_capacity=3",
    )
    ok(db, "record", "duel", "stakes.locked", "stake=cut", "actor=Ash", "opposing=Blade")
    out = ok(db, "record", "duel", "roll.made", "stake=cut", "dice=[6,10,1]")
    assert out == (
        "Recorded seq 5: roll.made\n"
        "  Ash rolls 6, 10, 1 for 'cut': 3 successes vs DV 3: success, 1 SB (Position "
        "controlled); SB 0 -> 1\n"
        "  pools sb: 0 -> 1\n"
    )


def test_import_strict_refuses_a_file_that_breaks_a_rule(skirmish: Path, tmp_path: Path) -> None:
    lines = tmp_path / "more.jsonl"
    lines.write_text(
        '{"type": "harm.inflicted", "target": "Ash", "level": 2}\n'
        '{"type": "grit.used", "target": "Ash", "from_level": 2, "to_level": 3}\n'
    )
    code, out, err = run(skirmish, "import", str(lines), "--into", "ford", "--strict")
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: {lines} line 2: refused (--strict): [grit-raises-harm]")
    assert json.loads(ok(skirmish, "tracks", "ford", "--json"))["seq"] == 5
    assert ok(skirmish, "import", str(lines), "--into", "ford").startswith("Imported 2 events")


def test_importing_a_file_without_ids_twice_says_to_use_another_name(
    db: Path, tmp_path: Path
) -> None:
    lines = tmp_path / "bandits.jsonl"
    lines.write_text('{"type": "encounter.opened", "system": "ssss"}\n')
    assert ok(db, "import", str(lines)).startswith("Imported 1 event")
    code, _, err = run(db, "import", str(lines))
    assert (code, err) == (
        2,
        f"Error: {lines} line 1: encounter 'bandits' is already open (ssss), and this line has "
        "no id to match it with what is stored: import into a new name (--into NAME)\n",
    )


def test_import_with_a_stale_expect_is_a_conflict(skirmish: Path, tmp_path: Path) -> None:
    lines = tmp_path / "more.jsonl"
    lines.write_text('{"type": "note", "text": "later"}\n')
    code, _, err = run(skirmish, "import", str(lines), "--into", "ford", "--expect", "3")
    assert (code, err) == (
        3,
        "Error: encounter 'ford' is at seq 5, not 3: another writer appended first; "
        "re-read and try again\n",
    )
    assert ok(skirmish, "import", str(lines), "--into", "ford", "--expect", "5").startswith(
        "Imported 1 event into"
    )


# Found by trying the tool as a game master would.


def test_a_read_only_ledger_refuses_a_write_in_one_line(skirmish: Path) -> None:
    from ledger import Ledger, StoreError
    from ledger.store.sqlite import SqliteDatabase

    with Ledger(skirmish) as book:
        assert isinstance(book.store.db, SqliteDatabase)
        book.store.db.conn.execute("PRAGMA query_only=ON")
        with pytest.raises(StoreError, match=r"is read-only; nothing was appended"):
            book.record("ford", {"type": "note", "text": "hi"})
        book.store.db.conn.execute("PRAGMA query_only=OFF")
        assert book.store.require("ford").seq == 5


def test_a_second_redo_has_nothing_to_redo(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "--reason", "wrong blow")
    ok(skirmish, "redo", "ford")
    code, out, err = run(skirmish, "redo", "ford")
    assert (code, out, err) == (2, "", "Error: encounter 'ford' has nothing to redo\n")
    doc = json.loads(ok(skirmish, "tracks", "ford", "--json"))
    assert doc["combatants"]["Bandit"]["penalties"] == 2


def test_amend_corrects_an_event_where_it_happened_and_shows_the_downstream_diff(
    skirmish: Path,
) -> None:
    out = ok(skirmish, "amend", "ford", "4", "level=1", "--reason", "a glancing blow")
    assert out == (
        "Recorded seq 6: event.corrected (corrects seq 4: level=1)\n"
        "  seq 4 corrected to level 1: a glancing blow\n"
        "Downstream: the encounter changes from seq 4 on.\n"
        "Tracks changed:\n"
        "  Bandit slots: T1:1/3 T2:1/3 -> T1:2/3 T2:0/3\n"
        "  Bandit penalties: 2 -> 1\n"
    )
    assert run(skirmish, "amend", "ford", "4", "level=1")[2] == (
        "Error: amend needs --reason TEXT (the ledger keeps why a ruling changed)\n"
    )
    assert run(skirmish, "amend", "ford", "4", "level=1", "--reason", "again")[2] == (
        "Error: seq 4 already has level=1: nothing to amend\n"
    )
    assert run(skirmish, "amend", "ford", "6", "level=2", "--reason", "x")[2] == (
        "Error: seq 6 is event.corrected: correct the event it corrects (seq 4) instead\n"
    )
    assert run(skirmish, "amend", "ford", "1", "title=x", "--reason", "x")[2] == (
        "Error: seq 1 is encounter.opened: amend corrects a table fact (house rules are fixed "
        "when the encounter opens)\n"
    )
    assert run(skirmish, "redo", "ford", "6")[2] == (
        "Error: seq 6 is neither an undone event nor an undo in effect; nothing to redo there\n"
    )


def test_a_dry_run_prints_the_same_diff_and_appends_nothing(skirmish: Path) -> None:
    out = ok(skirmish, "amend", "ford", "4", "level=3", "--reason", "a heavy one", "--dry-run")
    assert out == (
        "Dry run: amend would record seq 6: event.corrected (corrects seq 4: level=3)\n"
        "  seq 4 corrected to level 3: a heavy one\n"
        "Downstream: the encounter changes from seq 4 on.\n"
        "Tracks changed:\n"
        "  Bandit is now defeated (status active -> defeated)\n"
        "  Bandit slots: T1:1/3 T2:1/3 -> T1:1/3 T2:0/3\n"
        "  Bandit penalties: 2 -> 1\n"
        "Findings added:\n"
        "  info [slot-placement] seq 4: harm 3 on 'Bandit' finds no free slot at tier 3 or "
        "above: defeated\n"
        "  info [obligation-open] seq 4: 'Bandit' is defeated by the rules at seq 4, and the "
        "manner is not recorded yet: record combatant.left for 'Bandit' with the manner the "
        "fiction gives (defeated, fled, surrendered...)\n"
        "  error [event-after-defeat] seq 5: seq 5 (harm.inflicted) involves 'Bandit', who is "
        "defeated and no longer in the fight: by the rules it would not happen; recorded as "
        "played: Bandit slots T1:0/3 T2:0/3 -> T1:1/3 T2:0/3, Bandit penalties 0 -> 1\n"
        "Nothing was appended (--dry-run).\n"
    )
    assert json.loads(ok(skirmish, "tracks", "ford", "--json"))["seq"] == 5
    undo = ok(skirmish, "undo", "ford", "5", "--reason", "x", "--dry-run")
    assert undo.splitlines()[0] == (
        "Dry run: undo would record seq 6: event.retracted (undoes seq 5)"
    )
    assert len(ok(skirmish, "export", "ford").splitlines()) == 5
    ok(skirmish, "undo", "ford", "5", "--reason", "x")
    redo = json.loads(ok(skirmish, "redo", "ford", "--dry-run", "--json"))
    assert (redo["dry_run"], redo["seq"], redo["downstream"]["first_divergence"]) == (True, 7, 5)
    assert len(ok(skirmish, "export", "ford").splitlines()) == 6


def test_history_answers_what_happened_to_one_combatants_track(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "--reason", "that blow was on Ash")
    assert ok(skirmish, "history", "ford", "Bandit", "--track", "penalties") == (
        "seq 4: Bandit takes level-2 harm in a level-2 slot (1/3 filled); penalties 0 -> 1\n"
        "  Bandit penalties: 0 -> 1\n"
    )
    assert ok(skirmish, "history", "ford", "Ash") == (
        "seq 3: Ash joins as a player\n  Ash status: - -> active\n"
    )
    assert (
        ok(skirmish, "history", "ford", "Ash", "--track", "harm")
        == "No event touched Ash's harm.\n"
    )
    [line] = ok(skirmish, "history", "ford", "Bandit", "--track", "slots", "--json").splitlines()
    assert json.loads(line)["changes"] == [
        {
            "combatant": "Bandit",
            "track": "slots",
            "before": {"1": {"filled": 0, "capacity": 3}, "2": {"filled": 0, "capacity": 3}},
            "after": {"1": {"filled": 0, "capacity": 3}, "2": {"filled": 1, "capacity": 3}},
        }
    ]
    assert run(skirmish, "history", "ford", "Bandit", "--track", "fatigue")[2] == (
        "Error: 'Bandit' has no track 'fatigue' (tracks: status, level, slots, penalties, tags)\n"
    )


def test_write_commands_answer_in_json_for_tools(skirmish: Path, tmp_path: Path) -> None:
    doc = json.loads(
        ok(skirmish, "record", "ford", "harm.inflicted", "target=Ash", "level=1", "--json")
    )
    assert (doc["seq"], doc["records"][0]["type"], doc["records"][0]["seq"]) == (
        6,
        "harm.inflicted",
        6,
    )
    assert doc["changes"] == [{"combatant": "Ash", "track": "harm", "before": [], "after": [1]}]
    assert (doc["rolls"], doc["findings"]) == ([], [])
    undone = json.loads(ok(skirmish, "undo", "ford", "--reason", "wrong", "--json"))
    assert [(r["type"], r["target"]) for r in undone["records"]] == [("event.retracted", 6)]
    assert [f["rule"] for f in undone["findings"]] == ["ruling-reversed"]
    amended = json.loads(
        ok(skirmish, "amend", "ford", "5", "level=2", "--reason", "harder", "--json")
    )
    assert [r["seq"] for r in amended["records"]] == [8]
    added = json.loads(ok(skirmish, "add", "ford", "Wren", "--side", "player", "--json"))
    assert added["changes"] == [
        {"combatant": "Wren", "track": "status", "before": None, "after": "active"}
    ]
    export = tmp_path / "ford.jsonl"
    export.write_text(ok(skirmish, "export", "ford"))
    assert json.loads(ok(skirmish, "import", str(export), "--json")) == {
        "encounter": "ford",
        "appended": 0,
        "already_stored": 9,
        "head": 9,
    }
    opened = json.loads(ok(skirmish, "new", "moor", "--system", "ssss", "--json"))
    assert (opened["encounter"], opened["seq"], opened["records"][0]["system"]) == (
        "moor",
        1,
        "ssss",
    )


def test_two_undos_then_two_redos_restore_both(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "--reason", "one")
    ok(skirmish, "undo", "ford", "--reason", "two")
    ok(skirmish, "redo", "ford")
    ok(skirmish, "redo", "ford")
    doc = json.loads(ok(skirmish, "tracks", "ford", "--json"))
    assert doc["combatants"]["Bandit"]["slots"]["1"]["filled"] == 1
    assert doc["combatants"]["Bandit"]["slots"]["2"]["filled"] == 1


def test_an_undo_names_each_event_it_orphans(skirmish: Path) -> None:
    out = ok(skirmish, "undo", "ford", "2", "--reason", "no bandit after all")
    assert out.splitlines()[:6] == [
        "Recorded seq 6: event.retracted (undid seq 2)",
        "  seq 2 undone: no bandit after all",
        "Downstream: the encounter changes from seq 2 on.",
        "Tracks changed:",
        "  Bandit: no longer in the encounter (was active)",
        "Findings added:",
    ]
    assert [line.split(":")[0].strip() for line in out.splitlines()[6:]] == [
        "error [event-orphaned] seq 4",
        "error [event-orphaned] seq 5",
    ]


def test_a_key_given_twice_is_bad_input(skirmish: Path) -> None:
    code, _, err = run(
        skirmish, "record", "ford", "harm.inflicted", "target=Bandit", "level=1", "level=2"
    )
    assert (code, err) == (2, "Error: field 'level' is given twice\n")


def test_an_encounter_name_ending_in_jsonl_is_refused(db: Path) -> None:
    code, _, err = run(db, "new", "ford.jsonl", "--system", "ssss")
    assert (code, err) == (
        2,
        "Error: encounter name 'ford.jsonl': must not end in .jsonl (that names a file)\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "99"], "--from 99: the encounter has seqs 1-5"),
        (["--to", "0"], "--to 0: the encounter has seqs 1-5"),
        (["--from", "5", "--to", "3"], "--from 5 is after --to 3"),
    ],
)
def test_replay_refuses_a_range_outside_the_encounter(
    skirmish: Path, args: list[str], message: str
) -> None:
    code, out, err = run(skirmish, "replay", "ford", *args)
    assert (code, out, err) == (2, "", f"Error: {message}\n")


def test_tracks_without_the_opening_event_is_refused(skirmish: Path) -> None:
    code, _, err = run(skirmish, "tracks", "ford", "--without", "1")
    assert (code, err) == (2, "Error: --without 1: encounter.opened cannot be left out\n")


@pytest.mark.parametrize("expect", ["99", "-1"])
def test_an_impossible_expect_is_bad_input_not_a_conflict(skirmish: Path, expect: str) -> None:
    code, _, err = run(skirmish, "record", "ford", "note", "text=x", "--expect", expect)
    assert (code, err) == (
        2,
        f"Error: --expect {expect}: encounter 'ford' is at seq 5, so the seq you last saw "
        "is between 0 and 5\n",
    )


def test_importing_an_export_under_another_name_explains_the_hash(
    skirmish: Path, tmp_path: Path
) -> None:
    exported = tmp_path / "ford.jsonl"
    exported.write_text(ok(skirmish, "export", "ford"))
    code, _, err = run(tmp_path / "other.db", "import", str(exported), "--into", "copy")
    assert (code, err) == (
        2,
        f"Error: {exported} line 1: 'hash' was computed for encounter 'ford', and the "
        "chain includes the name: use --new-ids to copy it as 'copy'\n",
    )


def test_read_commands_do_not_create_a_ledger_file(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    assert ok(missing, "list") == f"No encounters in {missing}.\n"
    for args in (["tracks", "ford"], ["log", "ford"], ["audit", "ford"], ["verify"]):
        code, _, err = run(missing, *args)
        assert (code, err) == (
            2,
            f"Error: no ledger at {missing}: no such file (start one with `encounter new`)\n",
        ), args
    assert not missing.exists()


def test_no_arguments_prints_the_help_once() -> None:
    result = runner.invoke(cli.app, [])
    assert result.stdout.count("Usage:") == 1


def test_redo_reverses_the_last_undo_even_when_it_undid_an_undo(skirmish: Path) -> None:
    ok(skirmish, "undo", "ford", "5", "--reason", "that blow missed")  # seq 6
    ok(skirmish, "undo", "ford", "6", "--reason", "no, it landed")  # seq 7: 5 counts again
    assert (
        json.loads(ok(skirmish, "tracks", "ford", "--json"))["combatants"]["Bandit"]["penalties"]
        == 2
    )
    assert ok(skirmish, "redo", "ford").startswith("Recorded seq 8: event.retracted (redid seq 7)")
    assert (
        json.loads(ok(skirmish, "tracks", "ford", "--json"))["combatants"]["Bandit"]["penalties"]
        == 1
    )
    assert json.loads(ok(skirmish, "log", "ford", "--json").splitlines()[-1])["kind"] == "redo"


def test_a_roll_names_who_rolls(skirmish: Path) -> None:
    code, _, err = run(skirmish, "record", "ford", "roll.made", "outcome=hit")
    assert (code, err) == (
        2,
        "Error: roll.made event: a roll names its actor (or the stake it resolves)\n",
    )


def test_critical_strikes_read_as_seq_severity_and_state() -> None:
    from ledger.cli import render
    from ledger.systems import readings

    crits = [
        {"seq": 12, "severity": 4, "cause": "incapacitated", "resolved": 13},
        {"seq": 14, "severity": 5, "cause": "void", "resolved": None},
    ]
    criticals = readings("l5r")["criticals"]
    assert render.value(crits, criticals) == "@12: 4 (resolved @13), @14: 5 (due)"


def test_list_prints_one_row_per_encounter_with_its_head(skirmish: Path) -> None:
    head = json.loads(ok(skirmish, "list", "--json"))[0]["hash"]
    assert ok(skirmish, "list") == (
        "encounter\tsystem\ttitle\tevents\thead\tupdated\n"
        f"ford\tssss\tBandits at the ford\t5\t{head}\t2026-11-29T20:00:00.000000Z\n"
    )


def test_verify_of_a_one_event_file_counts_one_event(tmp_path: Path) -> None:
    db = tmp_path / "one.db"
    ok(db, "new", "x", "--system", "ssss")
    export = tmp_path / "one.jsonl"
    assert run(db, "export", "x", "--out", str(export))[0] == 0
    out = ok(db, "verify", str(export))
    assert out.startswith("x: 1 event, chain ok, head ")


def test_a_file_saved_with_a_byte_order_mark_reads_as_the_same_events(
    skirmish: Path, tmp_path: Path
) -> None:
    export = tmp_path / "plain.jsonl"
    assert run(skirmish, "export", "ford", "--out", str(export))[0] == 0
    marked = tmp_path / "notepad.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + export.read_bytes())
    assert ok(skirmish, "verify", str(marked)) == ok(skirmish, "verify", str(export))
    assert ok(skirmish, "tracks", str(marked)) == ok(skirmish, "tracks", str(export))
    copy = tmp_path / "copy.db"
    assert run(copy, "import", str(marked))[0] == 0
    assert ok(copy, "tracks", "ford") == ok(skirmish, "tracks", "ford")


def test_a_sheet_noted_with_no_track_is_bad_input_and_nothing_is_appended(
    skirmish: Path,
) -> None:
    """`tracks.noted` says what the sheet shows; with no track it says nothing, and the log
    once read "the sheet shows Ash at  (the ledger agrees)"."""
    before = ok(skirmish, "log", "ford", "--json")
    code, out, err = run(skirmish, "record", "ford", "tracks.noted", "target=Ash", "values={}")
    assert (code, out) == (2, "")
    assert err.startswith("Error: tracks.noted for 'Ash' names no track: give what the sheet says")
    assert err.count("\n") == 1
    assert ok(skirmish, "log", "ford", "--json") == before
