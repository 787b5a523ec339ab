"""The package as a user gets it: the wheel carries py.typed, so a bot's `mypy --strict`
checks its calls against the installed copy; the wheel and the sdist carry the examples."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path
from typing import Final

import pytest

from tests import paths

ROOT = paths.ROOT

BOT = """
import asyncio

from ledger import Conflict, Ledger, LedgerError
from projections.ssss.events import HarmInflicted


async def hit(book: Ledger, target: str, level: int, seen: int) -> str:
    try:
        result = await asyncio.to_thread(
            book.record, "ford", HarmInflicted(target=target, level=level), expect=seen
        )
    except Conflict as exc:
        return f"{exc.code}: at {exc.actual}, not {exc.expected}"
    except LedgerError as exc:
        return f"{exc.code} (exit {exc.exit_code}): {exc}"
    changed = [(c.combatant, c.track, c.after) for c in result.changes]
    return f"seq {result.seq}: {changed}"
"""

#: A slip that only the installed package's types can catch.
SLIP = """
from ledger import Ledger
from tests import paths

def head(book: Ledger) -> str:
    return book.tracks("ford").seq
"""


#: A folder holding this checkout's wheel and sdist, built once by `.ci/run` (which installs
#: the same wheel for its tour); without it each test builds its own.
DIST: Final = "ENCOUNTER_TEST_DIST"


def built(pattern: str, kind: str, out: Path) -> Path:
    """This checkout's `kind` ("wheel" or "sdist"): `.ci/run`'s, or else built into `out`."""
    given = os.environ.get(DIST)
    if not given:
        subprocess.run(
            [sys.executable, "-m", "build", f"--{kind}", "--no-isolation", "--outdir", str(out),
             str(ROOT)],
            check=True,
            capture_output=True,
        )  # fmt: skip
    [found] = Path(given or out).glob(pattern)
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("encounter_ledger-*.whl", "wheel", tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed (its dependencies seen from ours)."""
    venv = tmp_path_factory.mktemp("venv")
    # Without a pip of its own (our pip installs into it): 2.6 s where one took 8 s.
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return python


def strict_mypy(python: Path, source: str, where: Path) -> subprocess.CompletedProcess[str]:
    where.mkdir()
    (where / "bot.py").write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--python-executable", str(python), "bot.py"],
        cwd=where,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_bot_type_checks_with_mypy_strict_against_the_installed_wheel(
    installed: Path, tmp_path: Path
) -> None:
    located = subprocess.run(
        [str(installed), "-c", "import ledger; print(ledger.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "site-packages" in located.stdout  # the installed copy, not this checkout
    done = strict_mypy(installed, BOT, tmp_path / "bot")
    assert done.returncode == 0, done.stdout
    slipped = strict_mypy(installed, SLIP, tmp_path / "slip")
    assert slipped.returncode == 1
    assert 'Incompatible return value type (got "int", expected "str")' in slipped.stdout


@pytest.mark.slow
def test_the_wheel_carries_py_typed_the_license_and_the_examples(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "ledger/py.typed" in names and "projections/py.typed" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    shipped = {Path(n).name for n in names if "/share/encounter-ledger/examples/" in n}
    examples = ROOT / "examples"
    journal = [*examples.glob("iron-vault/*/*.md")]
    assert shipped == {
        p.name for p in [*examples.glob("*.jsonl"), *examples.glob("*.json"), *journal]
    }
    assert any(n.endswith("share/encounter-ledger/docs/verify.js") for n in names)


@pytest.mark.slow
def test_the_sdist_carries_what_the_tests_and_the_readme_use(tmp_path: Path) -> None:
    sdist = built("encounter_ledger-*.tar.gz", "sdist", tmp_path)
    with tarfile.open(sdist) as archive:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in archive.getnames()}
    tracked = subprocess.run(
        ["git", "ls-files", "examples", "tests", "docs", "LICENSE", "README.md", "CHANGELOG.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()  # one a line: a name may hold spaces ("Session 1.md")
    missing = [name for name in tracked if name not in names]
    assert missing == []


@pytest.mark.slow
def test_the_installed_command_finds_and_copies_the_examples_the_wheel_shipped(
    installed: Path, tmp_path: Path
) -> None:
    encounter = installed.parent / "encounter"
    # The wheel's own code, with its dependencies seen from ours (which hold no `ledger`: this
    # checkout is installed in editable mode, by a path file PYTHONPATH does not read).
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    listed = subprocess.run(
        [str(encounter), "examples"], cwd=tmp_path, capture_output=True, text=True, check=True,
        env=env,
    ).stdout  # fmt: skip
    shared = installed.parent.parent / "share" / "encounter-ledger" / "examples"
    assert listed.splitlines()[0] == f"Examples in {shared}:"
    assert "l5r-duel.jsonl" in listed
    copied = subprocess.run(
        [str(encounter), "examples", "copy", "mine"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    files = [p for p in shared.rglob("*") if p.is_file()]
    assert copied.startswith(f"Copied {len(files)} files from {shared} to mine.")
    assert (tmp_path / "mine" / "ssss-bandits.jsonl").read_bytes() == (
        ROOT / "examples" / "ssss-bandits.jsonl"
    ).read_bytes()
