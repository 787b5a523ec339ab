"""Startup: a command loads what its encounter's system needs and nothing else (issue #4).

Every check runs in a new process: this test session has imported every module long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import Ledger
from tests.longstreams import ROOT, cli_env, lines, skirmish

#: What only the other systems' encounters need (their descriptions, `system`, are light: a
#: command reads every one to know the systems and whose a verb is).
OTHER_SYSTEMS = tuple(
    f"projections.{key}.{part}"
    for key in ("fates_edge", "ironsworn", "l5r")
    for part in ("events", "model", "fold", "audit", "words", "verbs")
)
SSSS = ("projections.ssss.events", "projections.ssss.fold")

#: Runs the command given as JSON in argv[2] in this process, then writes the exit code and
#: the loaded modules to the file named in argv[1]. With no command, only imports `ledger.cli`.
PROBE = """
import json, sys
out, args = sys.argv[1], json.loads(sys.argv[2])
from ledger import cli
code = None
if args:
    sys.argv = ["encounter", *args]
    try:
        cli.main()
    except SystemExit as exc:
        code = exc.code
with open(out, "w", encoding="utf-8") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""


def loaded(tmp_path: Path, *args: str) -> tuple[object, set[str]]:
    """The exit code of `encounter ARGS` in a new process, and the modules it loaded."""
    out = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(out), json.dumps(args)],
        env=cli_env(),
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=120,
    )
    found = json.loads(out.read_text(encoding="utf-8"))
    return found["code"], set(found["modules"])


@pytest.fixture
def duel(db: Path) -> Path:
    """A ledger file holding `duel`, a short ssss encounter."""
    with Ledger(db) as ledger:
        ledger.import_lines(lines(skirmish(40)), into="duel")
    return db


def test_importing_the_cli_loads_no_system_and_no_rich(tmp_path: Path) -> None:
    _, modules = loaded(tmp_path)
    assert "ledger.cli" in modules
    assert modules.isdisjoint({*OTHER_SYSTEMS, *SSSS, "rich", "rich.console"})


def test_tracks_of_an_ssss_encounter_loads_no_other_system(duel: Path) -> None:
    code, modules = loaded(duel.parent, "--db", str(duel), "tracks", "duel")
    assert code == 0
    assert set(SSSS) <= modules
    assert modules.isdisjoint(OTHER_SYSTEMS)


def test_tracks_as_json_loads_no_other_system_and_no_rich(duel: Path) -> None:
    code, modules = loaded(duel.parent, "--db", str(duel), "tracks", "duel", "--json")
    assert code == 0
    assert modules.isdisjoint({*OTHER_SYSTEMS, "rich", "rich.console"})


def test_a_sqlite_ledger_never_loads_the_postgresql_driver(duel: Path) -> None:
    code, modules = loaded(duel.parent, "--db", str(duel), "tracks", "duel")
    assert code == 0
    assert modules.isdisjoint({"psycopg", "psycopg_pool", "ledger.store.postgres"})


#: Asks `ledger.main` for the version, then writes the loaded modules to the file in argv[1].
VERSION_PROBE = """
import json, sys
out = sys.argv[1]
sys.argv = ["encounter", "--version"]
import ledger
ledger.main()
with open(out, "w", encoding="utf-8") as f:
    json.dump(sorted(sys.modules), f)
"""


def test_version_loads_neither_the_command_line_nor_the_library(tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", VERSION_PROBE, str(out)],
        env=cli_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.startswith("encounter ")
    modules = set(json.loads(out.read_text(encoding="utf-8")))
    assert "ledger" in modules
    assert modules.isdisjoint({"ledger.cli", "ledger.api", "ledger.events", "typer", "pydantic"})


def test_tracks_loads_no_writing_report_or_verifying_command(duel: Path) -> None:
    code, modules = loaded(duel.parent, "--db", str(duel), "tracks", "duel")
    assert code == 0
    assert modules.isdisjoint(
        {"ledger.cli.write", "ledger.cli.report", "ledger.cli.verify", "ledger.report", "jinja2"}
    )
