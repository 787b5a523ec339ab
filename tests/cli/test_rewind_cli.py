"""`encounter rewind`: the exact output, the downstream diff, `--dry-run`, `--json`, exit codes,
and how `log`, `replay --as-played` and the session log show a rewind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from tests.cli.invoke import ok, run


@pytest.fixture
def bridge(db: Path) -> Path:
    """ssss `ford`: round 1 is seqs 3-4, round 2 seqs 5-6, round 3 seqs 7-8."""
    with freeze_time("2026-11-29 20:00:00"):
        ok(db, "new", "ford", "--system", "ssss")
        ok(db, "add", "ford", "Bandit", "--side", "adversary", "--stat", "level=3")
        ok(db, "round", "ford", "1")
        ok(db, "harm", "ford", "Bandit", "1")
        ok(db, "round", "ford", "2")
        ok(db, "harm", "ford", "Bandit", "2")
        ok(db, "round", "ford", "3")
        ok(db, "harm", "ford", "Bandit", "3")
    return db


def test_rewind_prints_what_it_set_aside_and_the_downstream_diff(bridge: Path) -> None:
    out = ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    assert out == (
        "Recorded seq 9: encounter.rewound (back to the end of round 1, seq 4: 4 events set "
        "aside)\n"
        "  back to the end of round 1 (seq 4): what was played after it is set aside: the "
        "bridge held\n"
        "Downstream: the encounter changes from seq 6 on.\n"
        "Tracks changed:\n"
        "  Bandit slots: T1:1/3 T2:1/3 T3:1/3 -> T1:1/3 T2:0/3 T3:0/3\n"
        "  Bandit penalties: 3 -> 1\n"
    )
    assert ok(bridge, "tracks", "ford", "--json") == ok(
        bridge, "tracks", "ford", "--round", "1", "--json"
    ).replace('"seq": 4', '"seq": 9')


def test_rewind_to_round_0_goes_back_to_the_set_up(bridge: Path) -> None:
    out = ok(bridge, "rewind", "ford", "--round", "0", "--reason", "start again")
    assert out.splitlines()[:2] == [
        "Recorded seq 9: encounter.rewound (back to the set-up, seq 2: 6 events set aside)",
        "  back to the set-up (seq 2): what was played after it is set aside: start again",
    ]
    assert (
        json.loads(ok(bridge, "tracks", "ford", "--json"))["combatants"]
        == json.loads(ok(bridge, "tracks", "ford", "--round", "0", "--json"))["combatants"]
    )
    assert "Bandit\tactive\t3\tT1:0/3 T2:0/3 T3:0/3\t0\t-" in ok(bridge, "tracks", "ford")


def test_a_dry_run_prints_the_same_and_appends_nothing(bridge: Path) -> None:
    out = ok(bridge, "rewind", "ford", "--round", "2", "--reason", "what if", "--dry-run")
    assert out.splitlines()[0] == (
        "Dry run: rewind would record seq 9: encounter.rewound (back to the end of round 2, "
        "seq 6: 2 events set aside)"
    )
    assert out.endswith("Nothing was appended (--dry-run).\n")
    assert json.loads(ok(bridge, "tracks", "ford", "--json"))["seq"] == 8


def test_the_json_document_names_the_seqs_set_aside_and_the_downstream(bridge: Path) -> None:
    document = json.loads(ok(bridge, "rewind", "ford", "--round", "2", "--reason", "x", "--json"))
    assert document["set_aside"] == [7, 8]
    assert document["records"][0]["after"] == 6
    assert document["downstream"]["first_divergence"] == 8
    assert [c["track"] for c in document["downstream"]["changes"]] == ["slots", "penalties"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--round", "9", "--reason", "x"],
            "no effective event of encounter 'ford' is in round 9 (rounds: 1, 2, 3; 0 is the "
            "set-up)",
        ),
        (
            ["--round", "3", "--reason", "x"],
            "nothing to rewind: nothing was played after the end of round 3 (seq 8)",
        ),
        (
            ["--round", "1"],
            "rewind needs --reason TEXT (the ledger keeps why a ruling changed)",
        ),
        (
            ["--round", "1", "--reason", "x", "--scene", "tower"],
            "no effective event of encounter 'ford' is in round 1 of scene tower (rounds: none: "
            "record `encounter round`)",
        ),
    ],
)
def test_a_rewind_that_cannot_be_made_is_one_line_exit_2_and_appends_nothing(
    bridge: Path, args: list[str], message: str
) -> None:
    assert run(bridge, "rewind", "ford", *args) == (2, "", f"Error: {message}\n")
    assert json.loads(ok(bridge, "tracks", "ford", "--json"))["seq"] == 8


def test_undo_right_after_a_rewind_brings_everything_back(bridge: Path) -> None:
    ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    out = ok(bridge, "undo", "ford", "--reason", "no, it fell")
    assert out.splitlines()[:2] == [
        "Recorded seq 10: event.retracted (undid seq 9)",
        "  seq 9 undone: no, it fell",
    ]
    assert "Bandit penalties: 1 -> 3" in out


def test_the_log_marks_what_a_rewind_set_aside_in_the_round_it_was_played(bridge: Path) -> None:
    ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    ok(bridge, "harm", "ford", "Bandit", "2")
    rows = [line.split("\t") for line in ok(bridge, "log", "ford").splitlines()[1:]]
    assert [(r[0], r[2], r[-1][:38]) for r in rows[4:]] == [
        ("5", "2", "(set aside by the rewind at seq 9) rou"),
        ("6", "2", "(set aside by the rewind at seq 9) tar"),
        ("7", "3", "(set aside by the rewind at seq 9) rou"),
        ("8", "3", "(set aside by the rewind at seq 9) tar"),
        ("9", "1", "round=1 reason=the bridge held after=4"),
        ("10", "1", "target=Bandit level=2"),
    ]
    lines = [json.loads(line) for line in ok(bridge, "log", "ford", "--json").splitlines()]
    assert [line.get("rewound_by") for line in lines] == [None] * 4 + [9] * 4 + [None] * 2


def test_the_as_played_replay_shows_the_rewind_as_one_step(bridge: Path) -> None:
    ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    out = ok(bridge, "replay", "ford", "--as-played", "--from", "9")
    assert out == (
        "seq 9 (round 1): back to the end of round 1 (seq 4): what was played after it is set "
        "aside: the bridge held\n"
        "  Bandit slots: T1:1/3 T2:1/3 T3:1/3 -> T1:1/3 T2:0/3 T3:0/3\n"
        "  Bandit penalties: 3 -> 1\n"
    )


def test_the_session_log_lists_the_rewind_under_the_rulings(bridge: Path) -> None:
    ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    md = ok(bridge, "export", "ford", "--format", "md")
    rulings = md[md.index("## Undone and corrected rulings") : md.index("## Audit findings")]
    assert rulings == (
        "## Undone and corrected rulings\n\n"
        "- seq 9 rewound to the end of round 1 at seq 4 (sets aside seqs 5-8, 4 events): the "
        "bridge held\n"
        "  - seq 4, the last event it keeps: Bandit takes level-1 harm in a level-1 slot "
        "(1/3 filled); penalties 0 -> 1\n\n"
    )


def test_the_session_log_tells_the_event_a_rewind_keeps_as_corrected(bridge: Path) -> None:
    """The end of the round a rewind goes back to is kept, not reversed: the session log tells
    it as the story has it (a correction applied), never as first played."""
    ok(bridge, "amend", "ford", "4", "level=2", "--reason", "a deeper cut")
    ok(bridge, "rewind", "ford", "--round", "1", "--reason", "the bridge held")
    md = ok(bridge, "export", "ford", "--format", "md")
    rulings = md[md.index("## Undone and corrected rulings") : md.index("## Audit findings")]
    assert rulings.strip().splitlines()[-2:] == [
        "- seq 10 rewound to the end of round 1 at seq 4 (sets aside seqs 5-8, 4 events): the "
        "bridge held",
        "  - seq 4, the last event it keeps: Bandit takes level-2 harm in a level-2 slot "
        "(1/3 filled); penalties 0 -> 1",
    ]
