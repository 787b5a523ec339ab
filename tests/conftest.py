"""Shared fixtures and the `--update-golden` option."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import settings

from ledger import Ledger
from projections import core
from tests import pgcluster
from tests.stores import KINDS, Backend, open_backend

#: A PostgreSQL server the tests may use (`.ci/run` starts one and sets it); without it the
#: tests start a throwaway cluster of their own when the server binaries are installed.
TEST_PG = "ENCOUNTER_TEST_PG"

# The seal key of the snapshots (`ledger.store.snapshots`) is made in a state directory of this
# session, never the user's; subprocesses inherit it.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="encounter-state-")
os.environ.pop("ENCOUNTER_SEAL_KEY", None)

# The tests start `encounter` in a few thousand subprocesses. Where the environment asks Python
# not to write bytecode (PYTHONDONTWRITEBYTECODE, set on the CI machines), each of them compiled
# the ledger from source again: `tracks` took 0.73 s here against 0.48 s. They write it to a
# cache folder of the tests' own instead, outside the checkout, so the first one compiles.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault(
        "PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(), "encounter-tests-pycache")
    )

#: Set by `.ci/run`: there a test that cannot find what it needs (Chromium, node, PostgreSQL,
#: Datasette) fails instead of skipping, so CI never passes with part of the suite unrun.
IN_CI = os.environ.get("ENCOUNTER_CI") == "1"


def missing(reason: str) -> NoReturn:
    """Skip a test whose tool is not installed here, saying how to get it; fail under CI."""
    if IN_CI:
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


# No per-example deadline: a loaded CI machine must not turn a slow example into a failure.
settings.register_profile("ledger", deadline=None, print_blob=True)
settings.load_profile("ledger")


#: The test files whose tests take longest (seconds to a minute each, all slow tests): they
#: start first, so that the workers of `-n auto` do not wait at the end on one of them.
LONGEST = frozenset(
    {
        "tests/store/test_bounded_memory.py",
        "tests/store/test_concurrency.py",
        "tests/store/test_crash.py",
        "tests/store/test_load.py",
        "tests/cli/test_package.py",
        "tests/cli/test_table_session.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.nodeid.partition("::")[0] not in LONGEST)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite examples/*.tracks.json, *.audit.json and *.md from the current code.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether golden files are being rewritten."""
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh ledger file path."""
    return tmp_path / "encounters.db"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for the tests (skips, saying why, when none can run)."""
    try:
        import psycopg
    except ImportError:
        missing("PostgreSQL tests need psycopg: pip install -e '.[postgres]'")
    url = os.environ.get(TEST_PG)
    if url:
        try:
            psycopg.connect(url, connect_timeout=10).close()
        except psycopg.Error as exc:
            pytest.fail(f"{TEST_PG}={url} does not answer: {exc}")
        yield url
        return
    if pgcluster.binaries() is None:
        missing(f"no PostgreSQL server: set {TEST_PG} or install postgresql (initdb)")
    folder = Path(tempfile.mkdtemp(prefix="encounter-pg-"))
    try:
        url = pgcluster.start(folder)
    except Exception as exc:  # initdb or pg_ctl failed: say why and skip
        pgcluster.stop(folder)
        missing(f"could not start a PostgreSQL cluster: {exc}")
    try:
        yield url
    finally:
        pgcluster.stop(folder)


@pytest.fixture(params=KINDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """A fresh, empty store: SQLite always, PostgreSQL when a server can run."""
    store = open_backend(request, request.param, tmp_path)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def ledger(backend: Backend) -> Iterator[Ledger]:
    """A fresh ledger on each store (the contract tests run on both)."""
    with backend.ledger() as opened:
        yield opened


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seqs every fold adds from here on, in order (a read through the cache folds few)."""
    seqs: list[int] = []
    # Every event after seq 1 is folded through it: a RunningFold's, and a write's own event.
    advance = core.advance

    def counting(ruleset: Any, state: core.State, seq: int, event: Any) -> core.State:
        seqs.append(seq)
        return advance(ruleset, state, seq, event)

    monkeypatch.setattr(core, "advance", counting)
    return seqs
