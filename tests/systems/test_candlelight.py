"""A fifth rule system, Candlelight, in a package of its own (`tests/systems/candlelight`):
installed beside the ledger, the `encounter` command finds it through its entry point and every
command works on its encounters, with no file of the ledger changed.

Installing is what pip does for the package: a `*.dist-info` with the entry points of its
`pyproject.toml`, on the path of the subprocesses (this session never imports the package).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import paths

ROOT = paths.ROOT
PACKAGE = ROOT / "tests" / "systems" / "candlelight"
KEY = "candlelight"

pytestmark = pytest.mark.slow


def _install(site: Path, project: dict[str, object]) -> None:
    """Write the dist-info of `project` (a pyproject's `[project]` table) into `site`."""
    name, version = str(project["name"]), str(project["version"])
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    points = project.get("entry-points", {})
    assert isinstance(points, dict)
    text = "".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in table.items())
        for group, table in points.items()
    )
    (info / "entry_points.txt").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory where Candlelight is installed."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    folder = tmp_path_factory.mktemp("site")
    _install(folder, project)
    return folder


def _command() -> list[str]:
    installed = Path(sys.executable).with_name("encounter")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "ledger"]


def encounter(
    db: Path, *args: str, path: tuple[Path, ...] = (), cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed `encounter` command with `path` (the sites installed) importable."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(map(str, (ROOT, *path))),
        "COLUMNS": "100",
        "XDG_CACHE_HOME": str(cache or db.parent / "cache"),
    }
    return subprocess.run(
        [*_command(), "--db", str(db), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=db.parent,
        timeout=120,
        check=False,
    )


def with_candlelight(site: Path, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`encounter ARGS` with Candlelight installed."""
    return encounter(db, *args, path=(PACKAGE, site))


def done(result: subprocess.CompletedProcess[str], said: str = "") -> str:
    """The output of a command that succeeded, saying `said` (nothing) on stderr."""
    assert (result.returncode, result.stderr) == (0, said), result.stdout
    return result.stdout


def export(site: Path, db: Path, out: Path) -> None:
    """Export `vigil` to the file `out`."""
    said = f"Exported 4 events of 'vigil' to {out}.\n"
    done(with_candlelight(site, db, "export", "vigil", "--out", str(out)), said)


#: The first events of `vigil`, as a file: Ada and Wisp hold candles, and Wisp loses one.
VIGIL = (
    {"type": "encounter.opened", "system": KEY, "rules": {}},
    {"type": "combatant.joined", "name": "Ada", "side": "player", "stats": {"candles": 3}},
    {"type": "combatant.joined", "name": "Wisp", "side": "adversary", "stats": {"candles": 2}},
    {"type": "candle.snuffed", "target": "Wisp"},
)


@pytest.fixture
def vigil(site: Path, db: Path) -> Path:
    """A ledger holding `vigil`, a Candlelight encounter at seq 4."""
    lines = db.parent / "vigil-start.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in VIGIL), encoding="utf-8")
    done(with_candlelight(site, db, "import", str(lines), "--into", "vigil"))
    return db


def test_its_verb_records_its_event_and_the_fold_puts_out_the_candles(
    site: Path, vigil: Path
) -> None:
    out = done(with_candlelight(site, vigil, "snuff", "vigil", "Wisp", "3", "--round", "2"))
    assert out == (
        "Recorded seq 5: candle.snuffed\n"
        "  candle snuffed (target Wisp, count 3); Wisp lit 1 candle -> dark: defeated\n"
        "  Wisp status: active -> defeated\n"
        "  Wisp lit: i -> dark\n"
        "warning [snuffed-in-the-dark] seq 5: seq 5 snuffs 3 candles of 'Wisp', who has 1 lit: "
        "2 snuffed in the dark\n"
        # The reminder every system gets, with no line of its own (#24).
        "info [obligation-open] seq 5: 'Wisp' is defeated by the rules at seq 5, and the manner "
        "is not recorded yet: record combatant.left for 'Wisp' with the manner the fiction gives "
        "(defeated, fled, surrendered...)\n"
    )
    tracks = json.loads(done(with_candlelight(site, vigil, "tracks", "vigil", "--json")))
    assert (tracks["system"], tracks["seq"]) == (KEY, 5)
    assert tracks["combatants"] == {
        "Ada": {"side": "player", "status": "active", "lit": 3, "candles": 3},
        "Wisp": {"side": "adversary", "status": "defeated", "lit": 0, "candles": 2},
    }
    at = json.loads(done(with_candlelight(site, vigil, "tracks", "vigil", "--at", "4", "--json")))
    assert at["combatants"]["Wisp"] == {
        "side": "adversary",
        "status": "active",
        "lit": 1,
        "candles": 2,
    }


def test_the_audit_judges_it_by_its_own_rule_and_the_common_ones(site: Path, vigil: Path) -> None:
    done(with_candlelight(site, vigil, "snuff", "vigil", "Wisp", "3"))
    blow = with_candlelight(site, vigil, "snuff", "vigil", "Wisp")
    assert blow.returncode == 0
    audit = with_candlelight(site, vigil, "audit", "vigil", "--json")
    assert audit.returncode == 1
    found = [(f["rule"], f["severity"], f["seq"]) for f in json.loads(audit.stdout)["findings"]]
    assert found == [
        ("snuffed-in-the-dark", "warning", [5]),
        ("obligation-open", "info", [5]),
        ("event-after-defeat", "error", [6]),
        ("snuffed-in-the-dark", "warning", [6]),
    ]
    undo = with_candlelight(site, vigil, "undo", "vigil", "--reason", "Wisp was already out")
    assert undo.returncode == 0, undo.stderr
    audit = with_candlelight(site, vigil, "audit", "vigil", "--json")
    assert audit.returncode == 0
    rules = [f["rule"] for f in json.loads(audit.stdout)["findings"]]
    assert rules == ["snuffed-in-the-dark", "obligation-open", "ruling-reversed"]


def test_its_encounter_replays_exports_imports_and_reports(
    site: Path, vigil: Path, tmp_path: Path
) -> None:
    steps = done(with_candlelight(site, vigil, "replay", "vigil", "--json")).splitlines()
    assert [json.loads(s)["type"] for s in steps] == [
        "encounter.opened",
        "combatant.joined",
        "combatant.joined",
        "candle.snuffed",
    ]
    assert json.loads(steps[-1])["combatants"]["Wisp"]["lit"] == 1
    exported = tmp_path / "vigil.jsonl"
    export(site, vigil, exported)
    copy = tmp_path / "copy.db"
    imported = done(with_candlelight(site, copy, "import", str(exported)))
    assert imported == "Imported 4 events into 'vigil' (0 already stored); head seq 4.\n"
    assert done(with_candlelight(site, copy, "tracks", "vigil", "--json")) == done(
        with_candlelight(site, vigil, "tracks", "vigil", "--json")
    )
    assert done(with_candlelight(site, copy, "verify", "vigil")).startswith(
        "vigil: 4 events, chain ok"
    )
    page = tmp_path / "vigil.html"
    wrote = f"Wrote the report of 'vigil' to {page} (4 events, 2 charts, 0 findings).\n"
    done(with_candlelight(site, vigil, "report", "vigil", "--html", str(page)), wrote)
    assert "Candles lit" in page.read_text(encoding="utf-8")


def test_its_own_reading_of_a_track_shows_in_tracks_history_and_report(
    site: Path, vigil: Path, tmp_path: Path
) -> None:
    done(with_candlelight(site, vigil, "snuff", "vigil", "Wisp"))
    # `tracks` from the stored head view (the fast path) and from the fold (`--at`).
    table = (
        "vigil (candlelight) at seq 5\n"
        "player\tstatus\tlit\tcandles\n"
        "Ada\tactive\tiii\t3\n"
        "adversary\tstatus\tlit\tcandles\n"
        "Wisp\tdefeated\tdark\t2\n"
    )
    assert done(with_candlelight(site, vigil, "tracks", "vigil")) == table
    assert done(with_candlelight(site, vigil, "tracks", "vigil", "--at", "5")) == table
    assert (
        json.loads(done(with_candlelight(site, vigil, "tracks", "vigil", "--json")))["combatants"][
            "Wisp"
        ]["lit"]
        == 0
    )
    history = done(with_candlelight(site, vigil, "history", "vigil", "Wisp"))
    assert history.splitlines() == [
        "seq 3: Wisp joins as an adversary: lit 2 candles, candles 2",
        "  Wisp status: - -> active",
        "seq 4: candle snuffed (target Wisp, count 1); Wisp lit 2 candles -> 1 candle",
        "  Wisp lit: ii -> i",
        "seq 5: candle snuffed (target Wisp, count 1); Wisp lit 1 candle -> dark: defeated",
        "  Wisp status: active -> defeated",
        "  Wisp lit: i -> dark",
    ]
    page = tmp_path / "vigil.html"
    wrote = f"Wrote the report of 'vigil' to {page} (5 events, 2 charts, 1 finding).\n"
    done(with_candlelight(site, vigil, "report", "vigil", "--html", str(page)), wrote)
    html = page.read_text(encoding="utf-8")
    assert "<td>dark</td>" in html
    assert "lit 1 candle -&gt; dark: defeated" in html
    log = done(with_candlelight(site, vigil, "export", "vigil", "--format", "md"))
    assert "| Wisp      | defeated | dark |" in log


def test_new_add_help_schema_and_rules_know_it(site: Path, db: Path) -> None:
    opened = done(with_candlelight(site, db, "new", "vigil", "--system", KEY))
    assert opened == "Opened 'vigil' (candlelight) at seq 1.\n"
    joined = done(
        with_candlelight(site, db, "add", "vigil", "Ada", "--side", "player", "--stat", "candles=3")
    )
    assert joined.splitlines()[:2] == [
        "Recorded seq 2: combatant.joined",
        "  Ada joins as a player: lit 3 candles, candles 3",
    ]
    shown = done(with_candlelight(site, db, "--help"))
    assert "Candlelight (candlelight)" in shown
    assert "snuff" in shown
    help_ = done(with_candlelight(site, db, "snuff", "--help"))
    assert "encounter snuff vigil Wisp 2" in help_
    schema = json.loads(done(with_candlelight(site, db, "schema", "--system", KEY)))
    events = [d for d in schema["$defs"].values() if "type" in d.get("properties", {})]
    kinds = {d["properties"]["type"]["const"] for d in events}
    assert {"candle.snuffed", "candle.lit", "encounter.opened"} <= kinds
    snuffed = next(d for d in events if d["properties"]["type"]["const"] == "candle.snuffed")
    assert snuffed["properties"]["count"]["description"] == "Candles snuffed by the blow."
    rules = json.loads(done(with_candlelight(site, db, "rules", KEY, "--json")))
    assert rules == {
        "system": KEY,
        "rules": [
            {
                "key": "dark_defeats",
                "default": True,
                "meaning": "Whether a combatant whose last candle goes out is defeated.",
            }
        ],
    }


def test_a_verb_or_event_of_another_system_says_whose_it_is(site: Path, vigil: Path) -> None:
    done(with_candlelight(site, vigil, "new", "ogre", "--system", "fates-edge"))
    cases = [
        (
            ("snuff", "ogre", "Ogre"),
            "`snuff` is a candlelight verb; 'ogre' is a fates-edge encounter",
        ),
        (
            ("endure-harm", "vigil", "Ada"),
            "`endure-harm` is an ironsworn verb; 'vigil' is a candlelight encounter",
        ),
        (
            ("record", "ogre", "candle.lit", "target=Ogre"),
            "'candle.lit' is a candlelight event; 'ogre' is a fates-edge encounter",
        ),
    ]
    for args, message in cases:
        refused = with_candlelight(site, vigil, *args)
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            2,
            "",
            f"Error: {message}\n",
        )
    heads = json.loads(done(with_candlelight(site, vigil, "list", "--json")))
    assert {h["encounter"]: h["seq"] for h in heads} == {"ogre": 1, "vigil": 4}


def test_without_it_installed_its_encounters_name_an_unknown_system(
    site: Path, vigil: Path, tmp_path: Path
) -> None:
    exported = tmp_path / "vigil.jsonl"
    export(site, vigil, exported)
    alone = encounter(tmp_path / "alone.db", "import", str(exported))
    assert alone.returncode == 2
    assert alone.stderr.startswith("Error: ")
    assert "unknown system 'candlelight'" in alone.stderr
    assert "Traceback" not in alone.stderr
    new = encounter(tmp_path / "alone.db", "new", "x", "--system", KEY)
    assert new.returncode == 2
    assert "'candlelight' is not one of 'fates-edge', 'ironsworn', 'ssss', 'l5r'" in new.stderr


def test_a_broken_system_is_one_warning_and_the_others_still_work(
    site: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    _install(
        broken,
        {
            "name": "encounter-broken",
            "version": "1.0",
            "entry-points": {"encounter.systems": {"broken": "encounter_nowhere:SYSTEM"}},
        },
    )
    db = tmp_path / "ford.db"
    first = encounter(db, "new", "ford", "--system", "ssss", path=(PACKAGE, site, broken))
    assert first.returncode == 0
    assert first.stderr == (
        "Warning: rule system 'broken' (from encounter-broken, encounter_nowhere:SYSTEM) does "
        "not load (ModuleNotFoundError: No module named 'encounter_nowhere'); the other "
        "systems work\n"
    )
    again = encounter(db, "snuff", "ford", "Bandit", path=(PACKAGE, site, broken))
    assert (again.returncode, again.stderr) == (
        2,
        "Error: `snuff` is a candlelight verb; 'ford' is an ssss encounter\n",
    )
    opened = encounter(db, "new", "x", "--system", "broken", path=(PACKAGE, site, broken))
    assert opened.returncode == 2
    assert opened.stderr.startswith("Error: system 'broken' (from encounter-broken) does not load")


def _project_files() -> list[Path]:
    """The files of the project: those git tracks or would (caches and builds are ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:  # not a checkout (an unpacked sdist): every file but caches
        skipped = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis"}
        return [
            p
            for p in ROOT.rglob("*")
            if p.is_file() and not skipped & set(p.relative_to(ROOT).parts)
        ]
    return [ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_file_of_the_ledger_names_it() -> None:
    # The manual's pages walk through it (docs/plugins.md) and name its tests.
    manual = set((ROOT / "docs").rglob("*.md"))
    documented = {ROOT / "README.md", ROOT / "CHANGELOG.md", Path(__file__), *manual}
    naming = [
        path.relative_to(ROOT).as_posix()
        for path in _project_files()
        if path.is_file()
        and PACKAGE not in path.parents
        and path not in documented
        and KEY in path.read_bytes().decode("utf-8", "replace").lower()
    ]
    assert naming == []
    assert sorted(p.name for p in PACKAGE.rglob("*.py")) == [
        "__init__.py",
        "events.py",
        "fold.py",
        "shown.py",
        "system.py",
        "verbs.py",
    ]


def test_a_gm_override_is_validated_by_its_combatants_own_constraints_and_check(
    site: Path, vigil: Path
) -> None:
    override = ("record", "vigil", "track.adjusted", "target=Ada", "reason=ruling")
    cases = [
        (
            "value=-1",
            "track 'lit' of 'Ada' field 'lit': input should be greater than or equal to 0 (got -1)",
        ),
        ("value=4", "track 'lit' of 'Ada': 4 lit is more than the 3 candles held"),
    ]
    for value, message in cases:
        refused = with_candlelight(site, vigil, *override, "track=lit", value)
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            2,
            "",
            f"Error: {message}\n",
        )
    done(with_candlelight(site, vigil, *override, "track=lit", "value=2"))
    tracks = json.loads(done(with_candlelight(site, vigil, "tracks", "vigil", "--json")))
    assert tracks["combatants"]["Ada"]["lit"] == 2
