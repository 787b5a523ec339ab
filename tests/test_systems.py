"""A rule system is named in one place: its description, found through `encounter.systems`."""

from __future__ import annotations

import json
import re
import tomllib
import warnings
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from ledger import events, systems
from ledger.errors import BadInput, LedgerWarning
from ledger.systems import discovery
from projections import audit, charts
from projections.registry import RULESETS

ROOT = Path(__file__).resolve().parent.parent
BUILT_IN = ("fates-edge", "ironsworn", "ssss", "l5r")


def _module(key: str) -> str:
    return key.replace("-", "_")


def _own(path: Path, key: str) -> bool:
    """Whether `path` is one of the modules of the system `key`: its events, verbs,
    description, or a projections module named after it."""
    relative = path.relative_to(ROOT).as_posix()
    mine = _module(key)
    return relative in {
        f"ledger/events/{mine}.py",
        f"ledger/verbs/{mine}.py",
        f"ledger/systems/{mine}.py",
    } or bool(re.fullmatch(rf"projections/{mine}(_[a-z_]+)?\.py", relative))


@pytest.mark.parametrize("key", BUILT_IN)
def test_no_generic_module_names_a_built_in_system(key: str) -> None:
    spellings = "|".join(map(re.escape, dict.fromkeys([key, _module(key)])))
    named = re.compile(rf"(?<![A-Za-z0-9])({spellings})(?![A-Za-z0-9])")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("ledger", "projections")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and path.suffix in {".py", ".j2", ".js", ".css"} and not _own(path, key)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if named.search(line)
    ]
    assert found == []


def test_the_grep_sees_the_modules_of_every_built_in_system() -> None:
    for key in BUILT_IN:
        assert any(_own(p, key) for p in (ROOT / "projections").glob("*.py")), key
        assert _own(ROOT / "ledger" / "systems" / f"{_module(key)}.py", key)


def test_the_project_declares_each_built_in_description_as_an_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"]["entry-points"][discovery.GROUP]
    modules = sorted(p.stem for p in (ROOT / "ledger" / "systems").glob("*.py"))
    described = [m for m in modules if m not in ("__init__", "discovery")]
    assert declared == {
        systems.load(f"ledger.systems.{m}:SYSTEM").key: f"ledger.systems.{m}:SYSTEM"
        for m in described
    }
    assert sorted(declared) == sorted(BUILT_IN)
    assert "ledger.systems" in project["tool"]["setuptools"]["packages"]


def test_the_systems_are_listed_as_the_design_lists_them() -> None:
    assert systems.known() == BUILT_IN
    assert events.SYSTEMS == BUILT_IN
    assert list(RULESETS) == list(BUILT_IN)


@pytest.mark.parametrize("key", BUILT_IN)
def test_every_part_a_description_names_loads_and_agrees(key: str) -> None:
    system = systems.get(key)
    assert system.key == key
    assert RULESETS[key] is system.load_ruleset()
    assert system.events_module().__name__ == system.events
    verbs = system.load_verbs()
    assert verbs is not None and system.verb_names
    assert charts.measures(key) is system.load_charts()
    own_types = set(events.event_types(key))
    assert system.attrition <= own_types
    for name in system.examples:
        assert all(line.startswith("encounter ") for line in system.examples[name])


def test_attrition_is_the_common_roll_and_each_system_s_own_blows() -> None:
    assert audit.attrition("ssss") == {"roll.made", "harm.inflicted", "throw.made"}
    assert audit.attrition("l5r") == {"roll.made", "damage.dealt", "critical.resolved"}


def test_a_description_loads_nothing_but_itself() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, json; import ledger.systems.fates_edge; print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    loaded = set(json.loads(out))
    assert loaded.isdisjoint({"typer", "rich", "pydantic", "ledger.events", "projections"})


def test_an_unknown_system_is_bad_input_naming_the_known_ones() -> None:
    with pytest.raises(BadInput) as unknown:
        systems.get("gurps")
    assert str(unknown.value) == (
        "unknown system 'gurps' (known: fates-edge, ironsworn, ssss, l5r)"
    )
    assert unknown.value.code == "unknown-system"


def test_an_opening_with_an_unknown_system_is_not_read_as_another_one() -> None:
    with pytest.raises(BadInput, match="unknown system 'gurps'"):
        events.parse({"type": "encounter.opened", "system": "gurps", "rules": {}}, None)
    with pytest.raises(BadInput, match="needs 'system'"):
        events.parse({"type": "encounter.opened", "rules": {}}, None)


def test_an_event_type_of_another_system_says_whose_it_is() -> None:
    with pytest.raises(BadInput) as other:
        events.parse({"type": "damage.dealt", "target": "X", "amount": 1}, "ssss")
    assert str(other.value).startswith(
        "unknown event type 'damage.dealt' for ssss: it is an l5r event (known: "
    )


# Discovery and its cache.


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache directory of this test; what the process found is forgotten before and after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    discovery.forget()
    yield tmp_path / "cache"
    discovery.forget()


def test_a_scan_writes_the_cache_and_the_next_process_reads_it(cache: Path) -> None:
    assert discovery.found().cached is False
    written = json.loads(discovery.cache_file().read_text(encoding="utf-8"))
    assert [e["key"] for e in written["entries"]] == list(BUILT_IN)
    assert written["entries"][0]["verbs"] == list(systems.get("fates-edge").verb_names)
    discovery.forget()
    assert discovery.found().cached is True
    assert systems.known() == BUILT_IN


def test_a_process_that_reads_a_current_cache_never_reads_installed_metadata(cache: Path) -> None:
    import os
    import subprocess
    import sys

    discovery.found()  # writes this environment's cache file
    probe = (
        "import sys, json\nfrom ledger import systems\nsystems.get('ssss').load_shown()\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert "importlib.metadata" not in json.loads(out)


def test_a_cache_of_another_environment_state_is_not_trusted(cache: Path) -> None:
    discovery.found()
    path = discovery.cache_file()
    document = json.loads(path.read_text(encoding="utf-8"))
    document["stamp"][-1].append(["/somewhere/new", 1])
    document["entries"] = document["entries"][:1]
    path.write_text(json.dumps(document), encoding="utf-8")
    discovery.forget()
    assert discovery.found().cached is False
    assert systems.known() == BUILT_IN


def test_a_system_missing_from_a_current_cache_rescans(cache: Path) -> None:
    discovery.found()
    path = discovery.cache_file()
    document = json.loads(path.read_text(encoding="utf-8"))
    document["entries"] = [e for e in document["entries"] if e["key"] != "l5r"]
    path.write_text(json.dumps(document), encoding="utf-8")
    discovery.forget()
    assert "l5r" not in systems.known()
    assert systems.get("l5r").key == "l5r"
    assert systems.known() == BUILT_IN


def test_an_unreadable_cache_scans(cache: Path) -> None:
    discovery.cache_file().parent.mkdir(parents=True)
    discovery.cache_file().write_text("{not json", encoding="utf-8")
    assert discovery.found().cached is False


def test_a_source_tree_without_entry_points_finds_the_built_in_systems(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metadata, "entry_points", lambda group: [])
    found = discovery.found()
    assert list(found.entries) == list(BUILT_IN)
    assert {e.origin for e in found.entries.values()} == {"built in"}
    assert found.verbs["endure-harm"] == "ironsworn"


def test_a_broken_entry_point_is_one_warning_and_the_others_work(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = metadata.entry_points
    broken = metadata.EntryPoint("broken", "encounter_nowhere.system:SYSTEM", discovery.GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [*real(group=group), broken])
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert systems.known() == (*BUILT_IN, "broken")
        assert systems.get("ssss").key == "ssss"
        assert [s.key for s in systems.every()] == list(BUILT_IN)
    assert [str(w.message) for w in said if w.category is LedgerWarning] == [
        "rule system 'broken' (from an unnamed distribution, encounter_nowhere.system:SYSTEM) "
        "does not load (ModuleNotFoundError: No module named 'encounter_nowhere'); "
        "the other systems work"
    ]
    with pytest.raises(BadInput, match=r"system 'broken' .* does not load"):
        systems.get("broken")
    discovery.forget()
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        assert systems.get("l5r").key == "l5r"
    assert later == []


def test_a_description_whose_verbs_disagree_is_refused() -> None:
    system = systems.get("ssss")
    from dataclasses import replace

    wrong = replace(system, verb_names=("harm", "throw"))
    with pytest.raises(TypeError, match="has the verbs harm; the description of 'ssss' names"):
        wrong.load_verbs()


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("fates-edge", "a fates-edge"),
        ("ironsworn", "an ironsworn"),
        ("ssss", "an ssss"),
        ("l5r", "an l5r"),
        ("blades", "a blades"),
        ("gurps", "a gurps"),
    ],
)
def test_a_system_key_reads_with_its_article(key: str, words: str) -> None:
    assert systems.article(key) == words
