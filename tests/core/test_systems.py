"""A rule system is named in one place: its folder (`projections/<key>/`), described by its
`system` module, found through the `encounter.systems` entry points (`ledger.systems`)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
import tomllib
import warnings
from collections.abc import Iterator
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import pytest

from ledger import systems
from ledger.errors import BadInput, LedgerWarning
from projections import audit
from tests import paths
from tests.streams import RULESETS

ROOT = paths.ROOT
BUILT_IN = ("fates-edge", "ironsworn", "ssss", "l5r")


def _module(key: str) -> str:
    return key.replace("-", "_")


def _own(path: Path, key: str) -> bool:
    """Whether `path` is a module of the system `key`: anything in its folder."""
    relative = path.relative_to(ROOT).as_posix()
    return relative.startswith(f"projections/{_module(key)}/")


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
        folder = ROOT / "projections" / _module(key)
        assert {"system.py", "events.py", "fold.py", "words.py", "verbs.py"} <= {
            p.name for p in folder.glob("*.py")
        }, key
        assert all(_own(p, key) for p in folder.glob("*.py"))


def test_the_project_declares_each_built_in_description_as_an_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"]["entry-points"][systems.GROUP]
    assert declared == {key: f"projections.{_module(key)}.system:SYSTEM" for key in BUILT_IN}
    # The wheel takes every package its patterns match (each system's folder among them).
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert all(
        any(fnmatch.fnmatch(f"projections.{_module(key)}", p) for p in include) for key in BUILT_IN
    )


def test_the_systems_are_listed_as_the_design_lists_them() -> None:
    assert systems.known() == BUILT_IN
    assert list(RULESETS) == list(BUILT_IN)


@pytest.mark.parametrize("key", BUILT_IN)
def test_every_part_a_description_names_loads_and_agrees(key: str) -> None:
    system = systems.get(key)
    assert system.key == key
    ruleset = systems.ruleset(key)
    assert ruleset.key == key
    assert ruleset.state.__module__.startswith(f"projections.{_module(key)}.")
    verbs = systems.verbs(key)
    assert verbs and sorted(v.name for v in verbs) == sorted(system.verb_names)
    own_types = set(systems.vocabulary(key).types)
    assert ruleset.attrition <= own_types
    assert {v.event for v in verbs} <= own_types
    for name in system.examples:
        assert all(line.startswith("encounter ") for line in system.examples[name])


def test_attrition_is_the_common_roll_and_each_system_s_own_blows() -> None:
    assert audit.attrition(RULESETS["ssss"]) == {"roll.made", "harm.inflicted", "throw.made"}
    assert audit.attrition(RULESETS["l5r"]) == {"roll.made", "damage.dealt", "critical.resolved"}


def test_a_description_loads_nothing_but_itself_and_its_verbs() -> None:
    probe = (
        "import sys, json; import projections.fates_edge.system; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    loaded = set(json.loads(out))
    assert loaded.isdisjoint(
        {"typer", "rich", "ledger.cli", "ledger.api", "projections.fates_edge.fold"}
    )


def test_an_unknown_system_is_bad_input_naming_the_known_ones() -> None:
    with pytest.raises(BadInput) as unknown:
        systems.get("gurps")
    assert str(unknown.value) == (
        "unknown system 'gurps' (known: fates-edge, ironsworn, ssss, l5r)"
    )
    assert unknown.value.code == "unknown-system"


def test_an_opening_with_an_unknown_system_is_not_read_as_another_one() -> None:
    with pytest.raises(BadInput, match="unknown system 'gurps'"):
        systems.parse({"type": "encounter.opened", "system": "gurps", "rules": {}}, None)
    with pytest.raises(BadInput, match="needs 'system'"):
        systems.parse({"type": "encounter.opened", "rules": {}}, None)


def test_an_event_type_of_another_system_says_whose_it_is() -> None:
    with pytest.raises(BadInput) as other:
        systems.parse({"type": "damage.dealt", "target": "X", "amount": 1}, "ssss")
    assert str(other.value).startswith(
        "unknown event type 'damage.dealt' for ssss: it is an l5r event (known: "
    )


# Discovery: the entry points, read at each start; nothing cached on disk.


@pytest.fixture
def fresh() -> Iterator[None]:
    """What this process found is forgotten before and after the test."""
    for known in (systems.found, systems.ruleset, systems.vocabulary, systems.verbs):
        known.cache_clear()
    yield
    for known in (systems.found, systems.ruleset, systems.vocabulary, systems.verbs):
        known.cache_clear()


def test_the_entry_points_read_are_importlib_metadata_s() -> None:
    declared = {key: found.reference for key, found in systems._declared().items()}
    official = {ep.name: ep.value for ep in metadata.entry_points(group=systems.GROUP)}
    assert declared == {**official, **{k: v for k, v in declared.items() if k not in official}}
    assert set(official) <= set(declared)


def test_finding_the_systems_writes_no_file_and_loads_one_ruleset(
    tmp_path: Path,
) -> None:
    probe = (
        "import sys, json\nfrom ledger import systems\nsystems.ruleset('ssss')\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env,
        cwd=ROOT,
    ).stdout  # fmt: skip
    loaded = set(json.loads(out))
    assert "projections.l5r.fold" not in loaded and "projections.ssss.fold" in loaded
    assert list(tmp_path.iterdir()) == []


def test_a_source_tree_without_entry_points_finds_the_built_in_systems(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(systems, "_group", lambda path: [])
    found = systems.found()
    assert systems.known() == BUILT_IN
    assert set(found.origins.values()) == {"built in"}
    assert systems.verb_owner("endure-harm") == "ironsworn"


def test_a_broken_entry_point_is_one_warning_and_the_others_work(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = systems._declared
    monkeypatch.setattr(
        systems,
        "_declared",
        lambda: {**real(), "broken": systems.Declared("encounter_nowhere.system:SYSTEM", "")},
    )
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


def test_a_verb_names_the_event_of_its_system() -> None:
    harm = next(v for v in systems.verbs("ssss") if v.name == "harm")
    assert harm.fields({"target": "Bandit", "level": 2, "throw": None}) == {
        "type": "harm.inflicted",
        "target": "Bandit",
        "level": 2,
    }


def test_a_description_whose_verbs_disagree_is_refused(fresh: None) -> None:
    system = systems.get("ssss")
    systems.found()._loaded["ssss"] = replace(system, verb_names=("harm", "rest"))
    with pytest.raises(TypeError, match="has the verbs throw, harm, grit; the description of"):
        systems.verbs("ssss")


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


def test_a_systems_version_is_read_from_its_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`name-version.dist-info` names it; an `.egg-info` folder's metadata says it."""
    wheel = tmp_path / "encounter_fake-1.2.3.dist-info"
    egg = tmp_path / "encounter_other.egg-info"
    for folder, key in ((wheel, "fake"), (egg, "other")):
        folder.mkdir()
        points = f"[{systems.GROUP}]\n{key} = encounter_{key}.system:SYSTEM\n"
        (folder / "entry_points.txt").write_text(points, encoding="utf-8")
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: x\nVersion: 0.4.0\n", "utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    declared = systems._declared()
    assert declared["fake"] == ("encounter_fake.system:SYSTEM", "encounter-fake", "1.2.3", False)
    # An `.egg-info` beside its sources is a source tree: its code changes under one version.
    assert declared["other"] == ("encounter_other.system:SYSTEM", "encounter-other", "0.4.0", True)
    assert systems._Found(declared).folders == {
        **{key: "built in" for key in declared if key not in ("fake", "other")},
        "fake": "encounter-fake 1.2.3",
        "other": "encounter-other 0.4.0",
    }


@pytest.mark.parametrize(
    ("direct_url", "editable"),
    [
        ('{"dir_info": {"editable": true}, "url": "file:///src"}', True),
        ('{"dir_info": {}, "url": "file:///src"}', False),
        ('{"url": "https://example.org/x.whl", "archive_info": {}}', False),
        ("not json at all", False),
        ("[1, 2]", False),
        (None, False),
    ],
)
def test_an_editable_install_is_told_by_its_direct_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct_url: str | None, editable: bool
) -> None:
    """PEP 610: `pip install -e` writes `"editable": true` in the dist-info's direct_url.json;
    anything else (a wheel, an archive, an unreadable file) is an install of one version."""
    wheel = tmp_path / "encounter_fake-1.2.3.dist-info"
    wheel.mkdir()
    points = f"[{systems.GROUP}]\nfake = encounter_fake.system:SYSTEM\n"
    (wheel / "entry_points.txt").write_text(points, encoding="utf-8")
    if direct_url is not None:
        (wheel / "direct_url.json").write_text(direct_url, encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    declared = systems._declared()
    assert declared["fake"].editable is editable
    assert ("fake" in systems._Found(declared).unversioned) is editable


def test_the_stamp_of_a_package_changes_with_any_edit_of_its_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What decides whether Python compiles a module again (size and modification time of each
    `.py` file, in every subfolder) decides the stamp; other files and bytecode do not."""
    package = tmp_path / "stamped_pkg"
    (package / "inner" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "inner" / "__init__.py").write_text("", encoding="utf-8")
    rule = package / "inner" / "fold.py"
    rule.write_text("LIMIT = 3\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = systems.stamp(["stamped_pkg"])
    assert systems.stamp(["stamped_pkg"]) == first
    (package / "inner" / "__pycache__" / "fold.cpython-311.pyc").write_bytes(b"x")
    (package / "notes.txt").write_text("not code", encoding="utf-8")
    assert systems.stamp(["stamped_pkg"]) == first
    rule.write_text("LIMIT = 4\n", encoding="utf-8")  # the same size: the time tells it
    os.utime(rule, ns=(rule.stat().st_atime_ns, rule.stat().st_mtime_ns + 1_000_000))
    edited = systems.stamp(["stamped_pkg"])
    assert edited != first
    (package / "inner" / "more.py").write_text("", encoding="utf-8")
    assert systems.stamp(["stamped_pkg"]) not in (first, edited)


def test_what_folds_an_editable_system_stamps_its_sources_and_a_wheels_does_not(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = systems._declared()["ssss"]
    monkeypatch.setattr(systems, "_declared", lambda: {"ssss": real._replace(editable=False)})
    assert systems.folded_by("ssss") == f"encounter-ledger {real.version}"
    systems.found.cache_clear()
    monkeypatch.setattr(systems, "_declared", lambda: {"ssss": real._replace(editable=True)})
    stamp = systems.stamp(["projections", "ledger.events"])
    assert systems.folded_by("ssss") == f"encounter-ledger {real.version} source {stamp}"
    systems.found.cache_clear()
    built_in = systems.Declared(real.reference, "built in")
    monkeypatch.setattr(systems, "_declared", lambda: {"ssss": built_in})
    assert systems.folded_by("ssss") == f"built in source {stamp}"
