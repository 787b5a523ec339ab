"""The functional core stays pure: projections/ imports no I/O, clock, randomness or logging."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from pydantic import BaseModel

from ledger import Ledger
from projections import core
from projections.values import Value, field_names
from tests import paths
from tests.streams import ruleset_of

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
MODULES = sorted(paths.ROOT.joinpath("projections").rglob("*.py"))


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


def _id(path: Path) -> str:
    return str(path.relative_to(paths.ROOT / "projections"))


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_a_projection_module_imports_no_io_clock_or_randomness(path: Path) -> None:
    bad = [n for n in _imports(path) if n.split(".")[0] in FORBIDDEN]
    assert bad == []


@pytest.mark.parametrize("path", MODULES, ids=_id)
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
    names = {_id(p) for p in MODULES}
    assert {"core.py", "audit.py", "fates_edge/fold.py", "ironsworn/fold.py"} <= names
    assert {"ssss/fold.py", "l5r/fold.py", "fates_edge/verbs.py"} <= names


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_a_projection_module_writes_no_private_attributes(path: Path) -> None:
    # State is immutable for real: no `object.__setattr__` around a frozen class, and no
    # reaching into pydantic's private attributes or an instance's `__dict__`.
    bad = [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Attribute)
        and (
            node.attr.startswith("__pydantic_")
            or node.attr == "__dict__"
            or (node.attr == "__setattr__" and ast.unparse(node.value) == "object")
        )
    ]
    assert bad == []


MUTABLE_CALLS = {"dict", "list", "set", "bytearray", "defaultdict", "OrderedDict", "Counter"}


def _mutable(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        name = ast.unparse(value.func).rsplit(".", 1)[-1]
        return name in MUTABLE_CALLS
    return False


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_a_projection_module_holds_no_mutable_container_at_module_level(path: Path) -> None:
    # A fold must not be able to leave anything behind for the next one (tuples, frozensets
    # and types.MappingProxyType instead).
    bad = [
        f"line {node.lineno}: {ast.unparse(node)[:60]}"
        for node in _tree(path).body
        if isinstance(node, ast.Assign | ast.AnnAssign) and _mutable(node.value)
    ]
    assert bad == []


def test_the_purity_check_sees_a_mutable_global_and_a_private_write() -> None:
    tree = ast.parse(
        "CACHE: dict[str, int] = {}\nobject.__setattr__(m, '__pydantic_extra__', None)"
    )
    assert _mutable(tree.body[0].value if isinstance(tree.body[0], ast.AnnAssign) else None)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert any(n.attr == "__setattr__" and ast.unparse(n.value) == "object" for n in calls)


EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


def _values(value: object) -> Iterator[object]:
    """Every value a state holds, itself included (the frozen ones the fold builds)."""
    yield value
    if isinstance(value, Value):
        for name in field_names(type(value)):
            yield from _values(getattr(value, name))
    elif isinstance(value, BaseModel):  # the house rules, the events, a stat block
        for name in type(value).model_fields:
            yield from _values(getattr(value, name))
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _values(item)
    elif isinstance(value, tuple):
        for item in value:
            yield from _values(item)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_folded_state_cannot_be_changed_anywhere(example: Path) -> None:
    with Ledger(":memory:") as ledger:
        imported = ledger.import_lines(example.read_text(encoding="utf-8").splitlines())
        records = ledger.records(imported.encounter)
        state = core.fold(ruleset_of(records), records)
    held = list(_values(state))
    assert any(isinstance(v, core.Combatant) for v in held)
    for value in held:
        # Tuples and read-only mappings only (an event's own containers are read-only
        # subclasses of dict and list).
        assert type(value) not in (dict, list, set, bytearray)
        if isinstance(value, Value):
            first = field_names(type(value))[0]
            with pytest.raises(AttributeError):  # frozen
                setattr(value, first, None)
            assert not hasattr(value, "__dict__")  # slotted: nothing to write behind its back
        if isinstance(value, Mapping):
            with pytest.raises(TypeError):
                value["x"] = None  # type: ignore[index]
    name = next(iter(state.combatants))
    with pytest.raises(TypeError):
        state.combatants[name] = state.combatants[name]  # type: ignore[index]
    with pytest.raises(TypeError):
        state.rules["x"] = 1  # type: ignore[index]
