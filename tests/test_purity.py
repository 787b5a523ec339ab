"""The functional core stays pure: projections/ imports no I/O, clock, randomness or logging."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

FORBIDDEN = {
    "os",
    "sys",
    "io",
    "time",
    "datetime",
    "random",
    "secrets",
    "uuid",
    "logging",
    "sqlite3",
    "sqlite_utils",
    "pathlib",
    "shutil",
    "subprocess",
    "socket",
    "threading",
    "multiprocessing",
    "tempfile",
    "glob",
    "requests",
    "urllib",
    "http",
    "asyncio",
    "typer",
    "rich",
}
ALLOWED_LEDGER = {"ledger.events", "ledger.errors"}
MODULES = sorted(Path(__file__).parent.parent.joinpath("projections").glob("*.py"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_projection_module_imports_no_io_clock_or_randomness(path: Path) -> None:
    bad = [n for n in _imports(path) if n.split(".")[0] in FORBIDDEN]
    assert bad == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_projection_module_imports_only_the_vocabulary_from_ledger(path: Path) -> None:
    from_ledger = [n for n in _imports(path) if n.split(".")[0] == "ledger"]
    allowed = [
        n
        for n in from_ledger
        if n == "ledger"
        or any(n == a or n.startswith(a + ".") for a in ALLOWED_LEDGER)
        or n in {"ledger.events", "ledger.errors"}
    ]
    # `from ledger import events` shows up as "ledger" and "ledger.events".
    assert sorted(set(from_ledger) - set(allowed)) == []


def test_the_purity_check_sees_every_projection_module() -> None:
    names = {p.stem for p in MODULES}
    assert {"core", "audit", "fates_edge", "ironsworn", "ssss", "l5r"} <= names
