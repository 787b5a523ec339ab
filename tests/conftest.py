"""Shared fixtures and the `--update-golden` option."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from ledger import Ledger

# No per-example deadline: a loaded CI machine must not turn a slow example into a failure.
settings.register_profile("ledger", deadline=None, print_blob=True)
settings.load_profile("ledger")


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


@pytest.fixture
def ledger(db: Path) -> Iterator[Ledger]:
    """A fresh ledger on disk."""
    with Ledger(db) as opened:
        yield opened
