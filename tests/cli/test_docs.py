"""The manual in `docs/` says what the code does, and keeps saying it:

- the generated parts (the CLI reference `docs/cli.md`, and the verbs, events and house rules
  of each system page) are what `docs/generate.py` makes from the code now;
- every block that opens an encounter (its text starts `encounter new `) runs as written, each
  in a fresh folder, every command exiting 0, and what the page shows one of its commands print
  (`$ encounter ...` in a `text` block) is what it printed;
- every fence whose info string is `python` runs: a page's fences in order, in one fresh
  folder, each in a fresh namespace (mark a fence that must not run ```` ```python notest ````);
- each excerpt of the plugin example on the plugins page (a fence whose first line is
  `# tests/systems/...`) is a slice of the file it names;
- every test the guarantees page names exists, and every page is in the index.

The site itself is built by `.ci/run` (`sphinx-build -W`), which fails on any broken link.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path
from typing import Final

import pytest
from typer.testing import CliRunner

import ledger
from ledger import cli
from ledger.store import sqlite_schema
from tests import paths
from tests.cli import fences

DOCS = fences.DOCS
runner = CliRunner()
REGENERATE = ".venv/bin/python docs/generate.py"


@functools.cache
def _generated() -> dict[Path, str]:
    """What `docs/generate.py` (loaded from its file: the folder is no package) makes now, made
    once, when a test first asks (not while the suite is collected)."""
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: dict[Path, str] = module.pages()
    return made


#: The pages the generator writes or fills in.
GENERATED = [DOCS / "cli.md", *sorted((DOCS / "systems").glob("*.md"))]


def test_the_generator_makes_exactly_these_pages() -> None:
    assert sorted(_generated()) == sorted(GENERATED)


@pytest.mark.parametrize("page", GENERATED, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_generated_page_is_what_the_code_makes_now(page: Path) -> None:
    assert page.exists(), f"{page} is missing: run {REGENERATE}"
    stale = page.read_text(encoding="utf-8") != _generated()[page]
    assert not stale, f"{page.relative_to(paths.ROOT)} is stale: run {REGENERATE}"


def test_every_system_page_has_its_verbs_events_and_house_rules() -> None:
    for page in sorted((DOCS / "systems").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for part in ("verbs", "events", "rules"):
            assert f"<!-- generated: {part} -->" in text, (page.name, part)


SESSIONS = [(page, block) for page in fences.doc_pages() for block in fences.sessions(page)]


@pytest.mark.parametrize(("page", "block"), SESSIONS, ids=[fences.label(p, b) for p, b in SESSIONS])
def test_a_session_of_the_manual_runs_as_written(
    page: Path, block: fences.Fence, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ENCOUNTER_DB", raising=False)
    printed: dict[tuple[str, ...], list[str]] = {}
    for args in fences.commands(block.text):
        result = runner.invoke(cli.app, args)
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
        printed.setdefault(tuple(args), []).append(result.stdout + result.stderr)
    # What the page shows a command of this session print is what it printed.
    stale = [
        f"{page.relative_to(paths.ROOT)}:{shown.line}: {' '.join(shown.args)}"
        for shown in fences.shown(page)
        if shown.args in printed
        and not any(_as_shown(shown.printed, out) for out in printed[shown.args])
    ]
    assert stale == []


#: The first characters of the lines of a table drawn for a terminal (rich's box).
BOX: Final = frozenset("┏┃┡│└")


def _as_shown(shown: tuple[str, ...], printed: str) -> bool:
    """Whether `printed` is what a page shows: its lines, where a line `...` stands for any
    lines and a line ending in `...` for the rest of one. A table the page draws as a terminal
    shows it is printed tab-separated here, in a pipe: then each line around it is printed."""
    if any(line[:1] in BOX for line in shown):
        return {line for line in shown if line[:1] not in BOX} <= set(printed.splitlines())
    parts = []
    for line in shown:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        elif line.endswith("..."):
            parts.append(re.escape(line.removesuffix("...")) + r"[^\n]*\n")
        else:
            parts.append(re.escape(line) + r"\n")
    return re.fullmatch("".join(parts), printed) is not None


def test_every_system_page_and_the_tour_have_a_session() -> None:
    pages = {p.relative_to(DOCS).as_posix() for p, _ in SESSIONS}
    expected = {"tour.md", *(f"systems/{p.name}" for p in (DOCS / "systems").glob("*.md"))}
    assert expected <= pages


PYTHON = [
    page for page in fences.doc_pages() if any(f.info == "python" for f in fences.fences(page))
]


@pytest.mark.parametrize("page", PYTHON, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_page_s_python_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ENCOUNTER_DB", raising=False)
    for fence in fences.fences(page):
        if fence.info == "python":
            code = compile(fence.text, fences.label(page, fence), "exec")
            exec(code, {"__name__": "__main__"})


def test_the_library_page_has_runnable_python() -> None:
    assert DOCS / "library.md" in PYTHON


def test_each_excerpt_of_the_plugins_page_is_a_slice_of_the_file_it_names() -> None:
    page = DOCS / "plugins.md"
    excerpts = [f for f in fences.fences(page) if f.text.startswith("# tests/systems/")]
    assert len(excerpts) >= 4
    for fence in excerpts:
        first, _, body = fence.text.partition("\n")
        source = (paths.ROOT / first.removeprefix("# ")).read_text(encoding="utf-8")
        assert body.strip("\n") in source, fences.label(page, fence)


def test_every_test_the_guarantees_page_names_exists() -> None:
    text = (DOCS / "guarantees.md").read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert len(named) >= 20
    missing = [
        f"{file}::{test}"
        for file, test in named
        if not (paths.ROOT / file).exists()
        or not re.search(rf"^(?:async )?def {test}\(", (paths.ROOT / file).read_text(), re.M)
    ]
    assert missing == []


def test_every_page_is_in_the_index() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^([\w/-]+)$", index, re.M))
    pages = {p.relative_to(DOCS).with_suffix("").as_posix() for p in fences.doc_pages()}
    assert sorted(pages - listed - {"index"}) == []


def test_every_published_digest_the_manual_checks_is_long_enough_for_verify_to_take() -> None:
    # `verify --head` refuses fewer than 16 hex digits (a shorter prefix can be forged); a
    # page that shows 12 would teach a reader a command that fails.
    shown = {
        f"{page.name}: {m[1]}"
        for page in [*fences.doc_pages(), fences.README]
        for m in re.finditer(r"--head ([0-9a-f]+)\b", page.read_text(encoding="utf-8"))
        if len(m[1]) < 16
    }
    assert shown == set()
    for page in [*fences.doc_pages(), fences.README]:
        assert "12 hex digits" not in page.read_text(encoding="utf-8"), page.name


def test_the_library_page_names_every_error_class_the_package_exports() -> None:
    exported = {
        name
        for name in ledger.__all__
        if isinstance(getattr(ledger, name), type)
        and issubclass(getattr(ledger, name), ledger.LedgerError)
        and name != "LedgerError"
    }
    told = (DOCS / "library.md").read_text(encoding="utf-8").split("## Errors", 1)[1]
    told = told.split("```", 1)[0]
    assert {name for name in exported if f"`{name}`" not in told} == set()


def _rules_the_audit_reports() -> set[str]:
    """Every rule id the ledger's own code gives a finding (`error("rule-id", ...)`, `warning`,
    `info`, or `Finding(rule=...)`; the id written there, or a module's constant that holds it),
    read from its source."""
    constants: dict[str, str] = {}
    given: list[ast.expr] = []
    modules = [*paths.ROOT.glob("ledger/**/*.py"), *paths.ROOT.glob("projections/**/*.py")]
    for module in sorted(modules):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for statement in tree.body:
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                constants[statement.target.id] = statement.value.value
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                given += [k.value for k in node.keywords if k.arg == "rule"]
                if called in ("error", "warning", "info") and node.args:
                    given.append(node.args[0])
    found = set()
    for expr in given:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            found.add(expr.value)
        name = expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", None)
        if name in constants:
            found.add(constants[name])
    return found


def test_the_rulings_page_names_every_rule_the_audit_reports() -> None:
    # The tour promises that "every rule of every system" is on this page.
    rules = _rules_the_audit_reports()
    assert {"slot-placement", "ruling-reversed", "obligation-open", "loss-accepted"} <= rules
    text = (DOCS / "rulings.md").read_text(encoding="utf-8")
    assert sorted(rule for rule in rules if f"`{rule}`" not in text) == []


def test_every_rule_the_audit_reports_is_asserted_by_a_test_of_its_own() -> None:
    # guarantees.md: "Every audit rule has a stream that breaks it and one that keeps it". A
    # rule added without a test that names its id (as a finding's rule, or `[rule-id]` in a
    # command's output) fails here.
    texts = [
        path.read_text(encoding="utf-8")
        for path in (paths.ROOT / "tests").rglob("test_*.py")
        if path.name != "test_docs.py"
    ]
    named = {
        rule
        for rule in _rules_the_audit_reports()
        if any(f'"{rule}"' in t or f"'{rule}'" in t or f"[{rule}]" in t for t in texts)
    }
    assert sorted(_rules_the_audit_reports() - named) == []


def test_the_data_file_page_names_the_format_a_new_file_is_written_in() -> None:
    text = (DOCS / "store.md").read_text(encoding="utf-8")
    told = re.search(r"`PRAGMA user_version` its format, now (\d+)", text)
    assert told is not None
    assert int(told[1]) == sqlite_schema.USER_VERSION
