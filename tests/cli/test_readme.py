"""The README's command blocks run as written, in a fresh directory."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli
from tests import paths

README = paths.ROOT / "README.md"
runner = CliRunner()


def blocks() -> list[list[str]]:
    """Every fenced block of `encounter` commands that starts by opening an encounter."""
    fences = re.findall(r"^```(\w*)\n(.*?)^```$", README.read_text(encoding="utf-8"), re.S | re.M)
    return [b.splitlines() for _, b in fences if b.startswith("encounter new ")]


def commands(block: list[str]) -> list[list[str]]:
    out = []
    for line in block:
        for part in line.split("#")[0].split("&&"):
            words = shlex.split(part)
            if words:
                assert words[0] == "encounter"
                out.append(words[1:])
    return out


def test_the_readme_has_runnable_blocks() -> None:
    assert len(blocks()) >= 2


@pytest.mark.parametrize("block", blocks(), ids=lambda b: b[0])
def test_a_readme_block_runs_without_error(
    block: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ENCOUNTER_DB", raising=False)
    for args in commands(block):
        result = runner.invoke(cli.app, args)
        assert result.exit_code == 0, (args, result.stdout, result.stderr)
    assert (tmp_path / "encounters.db").exists()


def test_the_readme_library_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fences = re.findall(r"^```(\w*)\n(.*?)^```$", README.read_text(encoding="utf-8"), re.S | re.M)
    code, bot = [body for lang, body in fences if lang == "python"]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("3 [('Bandit', 'slots', {'1': {'filled': 1, 'capacity': 3}})")
    assert (tmp_path / "encounters.db").exists()
    # The asyncio bot, on the encounter the first example left.
    exec(compile(bot, "README.md", "exec"), {})
    assert capsys.readouterr().out.startswith("seq ")
