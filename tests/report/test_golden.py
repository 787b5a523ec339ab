"""Golden examples: each examples/<name>.jsonl with its expected tracks and audit beside it.

`pytest --update-golden` rewrites the expected files from the current code, for review in git.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ledger
from tests import paths

EXAMPLES = sorted(paths.EXAMPLES.glob("*.jsonl"))


def golden(path: Path, suffix: str, document: object, update: bool) -> None:
    expected_file = path.with_suffix(suffix)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if update:
        expected_file.write_text(text, encoding="utf-8")
    assert expected_file.exists(), f"run pytest --update-golden to create {expected_file.name}"
    assert text == expected_file.read_text(encoding="utf-8")


def test_there_is_an_example_for_every_system() -> None:
    systems = set()
    for path in EXAMPLES:
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        systems.add(first["system"])
    assert systems == {"fates-edge", "ironsworn", "ssss", "l5r"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_folds_to_its_golden_tracks(path: Path, update_golden: bool) -> None:
    book, name = ledger.load(path)
    with book:
        golden(path, ".tracks.json", book.tracks(name).view(), update_golden)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_audits_to_its_golden_findings(path: Path, update_golden: bool) -> None:
    book, name = ledger.load(path)
    with book:
        findings = [f.model_dump(mode="json") for f in book.audit(name)]
        golden(path, ".audit.json", {"encounter": name, "findings": findings}, update_golden)
