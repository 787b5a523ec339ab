"""The live table on the command line: --as names who acts, a refused act is one line and exit
2 with nothing appended, proposals and rulings in words, tracks and audit say who did what."""

from __future__ import annotations

import ast
import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import Ledger, cli
from tests import paths

runner = CliRunner()
OGRE = ["--stat", "resilience=6", "--stat", "fatigue_capacity=3", "--stat", "armor=none"]


def run(db: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, ["--db", str(db), *args], env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def duel(db: Path) -> Path:
    assert run(db, "--as", "gm", "new", "duel", "--system", "fates-edge")[0] == 0
    assert (
        run(db, "add", "duel", "Ash", "--side", "player", "--player", "ana", "--as", "gm")[0] == 0
    )
    assert (
        run(db, "add", "duel", "Brin", "--side", "player", "--player", "ben", "--as", "gm")[0] == 0
    )
    assert run(db, "add", "duel", "Ogre", "--side", "adversary", *OGRE, "--as", "gm")[0] == 0
    return db


def head(db: Path) -> int:
    with Ledger(db) as book:
        return book.tracks("duel").seq


def test_a_refused_act_is_one_line_exit_2_and_nothing_appended(duel: Path) -> None:
    code, out, err = run(duel, "hit", "duel", "Brin", "2", "--as", "ana")
    assert (code, out) == (2, "")
    assert err == (
        "Error: 'ana' may not record hit.resolved on 'Brin': a player records roll.made for a "
        "combatant they play and proposal.made (policy: players_own, players_any); propose it "
        "instead: encounter propose\n"
    )
    assert head(duel) == 4


def test_a_refused_act_under_json_is_the_error_document(duel: Path) -> None:
    code, _, err = run(duel, "record", "duel", "note", "text=hi", "--as", "ana", "--json")
    assert code == 2
    assert json.loads(err)["error"]["code"] == "not-allowed"


def test_the_acting_user_comes_from_encounter_user(duel: Path) -> None:
    code, _, err = run(duel, "record", "duel", "note", "text=hi", env={"ENCOUNTER_USER": "ana"})
    assert code == 2 and "'ana' may not record note" in err
    code, _, _ = run(duel, "record", "duel", "note", "text=hi", env={"ENCOUNTER_USER": "gm"})
    assert code == 0


def test_nobody_named_is_refused_in_an_encounter_with_roles(duel: Path) -> None:
    code, _, err = run(duel, "record", "duel", "note", "text=hi")
    assert code == 2 and "nobody named may record note" in err


def test_propose_accept_with_changes_and_the_tracks_show_what_is_open(duel: Path) -> None:
    code, out, _ = run(
        duel, "propose", "duel", "hit.resolved", "target=Ogre", "harm=2", "--as", "ana"
    )
    assert code == 0
    assert out.splitlines()[:2] == [
        "Recorded seq 5: proposal.made",
        "  ana proposes: Ogre is hit for Harm 2: no armor: all 2 stays Harm; Resilience 6 -> 4 "
        "(seq 5)",
    ]
    code, out, _ = run(duel, "hit", "duel", "Ogre", "3", "--propose", "--as", "ana")
    assert code == 0 and out.startswith("Recorded seq 6: proposal.made")
    tracks = run(duel, "tracks", "duel")[1]
    assert tracks.splitlines()[-3:] == [
        "Open proposals (a GM accepts or rejects each):",
        "  seq 5: ana proposes: Ogre is hit for Harm 2: no armor: all 2 stays Harm; "
        "Resilience 6 -> 4",
        "  seq 6: ana proposes: Ogre is hit for Harm 3: no armor: all 3 stays Harm; "
        "Resilience 6 -> 3",
    ]
    listed = json.loads(run(duel, "tracks", "duel", "--json")[1])["proposals"]
    assert [p["seq"] for p in listed] == [5, 6]
    code, out, _ = run(duel, "accept", "duel", "5", "harm=1", "--as", "gm")
    assert code == 0
    assert out.splitlines()[1] == (
        "  the GM accepts ana's proposal at seq 5 with harm 1 (half): Ogre is hit for Harm 1: no "
        "armor: all 1 stays Harm; Resilience 6 -> 5"
    )
    code, out, _ = run(duel, "reject", "duel", "6", "--reason", "the Ogre ducked", "--as", "gm")
    assert code == 0 and "the GM rejects ana's proposal at seq 6: the Ogre ducked" in out
    assert "proposals" not in json.loads(run(duel, "tracks", "duel", "--json")[1])


def test_a_player_accepting_is_refused(duel: Path) -> None:
    run(duel, "propose", "duel", "hit.resolved", "target=Ogre", "harm=2", "--as", "ana")
    code, _, err = run(duel, "accept", "duel", "5", "--as", "ana")
    assert code == 2 and "only a GM rules on proposals" in err


def test_the_audit_lists_who_did_what_and_reminds_of_open_proposals(duel: Path) -> None:
    run(duel, "propose", "duel", "hit.resolved", "target=Ogre", "harm=2", "--as", "ana")
    code, out, _ = run(duel, "audit", "duel", "--json")
    document = json.loads(out)
    assert code == 0
    assert [(f["rule"], f["seq"]) for f in document["findings"]] == [("obligation-open", [5])]
    assert document["acts"] == [
        {"seq": 1, "by": "gm", "type": "encounter.opened"},
        {"seq": 2, "by": "gm", "type": "combatant.joined"},
        {"seq": 3, "by": "gm", "type": "combatant.joined"},
        {"seq": 4, "by": "gm", "type": "combatant.joined"},
        {"seq": 5, "by": "ana", "type": "proposal.made"},
    ]
    text = run(duel, "audit", "duel")[1]
    assert text.splitlines()[-7:] == [
        "Who did what:",
        "seq\tby\tact",
        "1\tgm\tencounter.opened",
        "2\tgm\tcombatant.joined",
        "3\tgm\tcombatant.joined",
        "4\tgm\tcombatant.joined",
        "5\tana\tproposal.made",
    ]


def test_an_audit_without_roles_has_no_acts(db: Path) -> None:
    run(db, "new", "ford", "--system", "ssss")
    assert "acts" not in json.loads(run(db, "audit", "ford", "--json")[1])


def test_gm_add_and_policy_show_who_may_record_what(duel: Path) -> None:
    code, out, _ = run(duel, "gm", "add", "duel", "ben", "--as", "gm")
    assert code == 0 and "the GM makes ben a GM" in out
    shown = json.loads(run(duel, "policy", "duel", "--json")[1])
    assert shown["policy"]["gms"] == ["gm", "ben"]
    assert shown["players"] == {"Ash": "ana", "Brin": "ben"}
    assert "Ash is played by ana" in run(duel, "policy", "duel")[1]


def test_gm_add_by_a_player_is_refused_by_the_policy_even_for_a_gm_already(duel: Path) -> None:
    """A player is told they may not make GMs, not whether someone is one already."""
    for who in ("gm", "ben"):
        code, out, err = run(duel, "gm", "add", "duel", who, "--as", "ana")
        assert (code, out) == (2, "")
        assert err == (
            "Error: 'ana' may not record policy.changed: only a GM rules on proposals and sets "
            "the policy (policy: gms gm)\n"
        )
    assert run(duel, "gm", "add", "duel", "gm", "--as", "gm")[2] == (
        "Error: 'gm' is a GM of 'duel' already\n"
    )


def test_rich_is_imported_only_by_the_terminal_and_the_watch_view() -> None:
    importing = set()
    for path in sorted((paths.ROOT / "ledger").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "rich" or n.startswith("rich.") for n in names):
                importing.add(path.relative_to(paths.ROOT).as_posix())
    assert importing == {"ledger/cli/terminal.py", "ledger/cli/watch.py"}


def test_the_web_stack_is_imported_only_inside_the_serve_functions() -> None:
    tree = ast.parse((paths.ROOT / "ledger/live/serve.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [getattr(n, "module", None) or n.names[0].name for n in top]
    assert not [n for n in names if n and n.split(".")[0] in ("starlette", "uvicorn")]


def test_serve_on_a_port_in_use_is_one_error_line_and_exit_2_not_a_conflict(duel: Path) -> None:
    # uvicorn ends a failed bind with exit 3, which the contract keeps for a write conflict.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(duel, "serve", "duel", "--port", str(port))
    assert (code, out) == (2, "")
    assert err == f"Error: cannot listen on 127.0.0.1 port {port}: Address already in use\n"


def test_serve_on_a_host_that_does_not_resolve_is_one_error_line(duel: Path) -> None:
    code, out, err = run(duel, "serve", "duel", "--host", "256.1.1.1")
    assert (code, out) == (2, "")
    assert err.startswith("Error: cannot listen on 256.1.1.1 port 8765: ")
    assert err.count("\n") == 1


def test_watch_refuses_when_not_on_a_terminal(duel: Path) -> None:
    code, _, err = run(duel, "watch", "duel")
    assert code == 2 and "watch draws on a terminal" in err


def test_a_gm_recording_for_a_player_passes_the_audit_and_says_who_entered_it(
    duel: Path,
) -> None:
    code, out, err = run(duel, "note", "duel", "Ana holds the rope", "--as", "gm", "--by", "ana")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Recorded seq 5: note (by ana, entered by gm)"
    assert "policy-allows-act" not in out
    code, out, _ = run(duel, "audit", "duel")
    assert code == 0
    assert "5\tana (entered by gm)\tnote" in out
    acts = json.loads(run(duel, "audit", "duel", "--json")[1])["acts"]
    assert acts[-1] == {"seq": 5, "by": "ana", "entered_by": "gm", "type": "note"}


def test_a_gm_recording_for_a_mistyped_user_is_one_line_exit_2(duel: Path) -> None:
    code, out, err = run(duel, "note", "duel", "hi", "--as", "gm", "--by", "anna")
    assert (code, out) == (2, "")
    assert err == (
        "Error: 'anna' is nobody of encounter 'duel': no GM and no player of a combatant "
        "(did you mean 'ana'?) (users: gm, ana, ben)\n"
    )
    assert head(duel) == 4
