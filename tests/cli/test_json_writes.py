"""Every recording command answers `--json` with one document and nothing else (for bots)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger import cli

runner = CliRunner()

#: Per system: the set-up commands, then the recording commands checked with --json.
SESSIONS = {
    "ironsworn": (
        [
            "new i --system ironsworn",
            "add i Kira --side player --stat iron=3",
            "add i Chief --side adversary --stat rank=formidable",
        ],
        [
            "endure-harm i Kira --foe Chief",
            "action-roll i Kira --stat iron --die 1 --challenge 5,9",
            "oracle i Kira --roll 42",
        ],
    ),
    "l5r": (
        [
            "new l --system l5r",
            "add l T --side player --stat rings.earth=3 --stat rings.fire=2 "
            "--stat rings.air=2 --stat rings.water=2 --stat rings.void=2",
        ],
        ["damage l T 4"],
    ),
    "ssss": (["new s --system ssss", "add s B --side adversary --stat level=1"], ["harm s B 1"]),
    "fates-edge": (
        [
            "new f --system fates-edge",
            "add f Ash --side player --stat armor=none --stat body=3",
            "add f B --side adversary --stat resilience=5 --stat fatigue_capacity=3 "
            "--stat armor=none",
        ],
        [
            "lock f s1 --actor Ash --against B --target B --harm 2",
            "roll f s1 --dice 7,7,7",
            "hit f B 2 --stake s1",
            "fatigue f B 1",
            "spend f 1 --for complication",
            "suffer f Ash 1 --stake s1",
        ],
    ),
}


@pytest.mark.parametrize("system", list(SESSIONS))
def test_each_verb_with_json_prints_one_document_for_the_event_it_appended(
    system: str, tmp_path: Path
) -> None:
    db = ["--db", str(tmp_path / "j.db")]
    setup, verbs = SESSIONS[system]
    for line in setup:
        assert runner.invoke(cli.app, [*db, *shlex.split(line)]).exit_code == 0
    for seq, line in enumerate(verbs, start=len(setup) + 1):
        result = runner.invoke(cli.app, [*db, *shlex.split(line), "--json"])
        assert (result.exit_code, result.stderr) == (0, ""), line
        doc = json.loads(result.stdout)
        assert list(doc) == [
            "encounter",
            "seq",
            "position",
            "records",
            "rolls",
            "changes",
            "findings",
            "words",
        ]
        assert (doc["seq"], [r["seq"] for r in doc["records"]]) == (seq, [seq]), line
