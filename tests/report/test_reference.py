"""The reference: `encounter schema` (JSON Schema from the event models) validates every line
of every example, describes every field and requires `type`; `encounter rules` and the
generated docs/events.md come from the same texts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from ledger import cli, reference, systems
from tests import paths

SYSTEMS = systems.known()
ROOT = paths.ROOT
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
runner = CliRunner()


def printed_schema(*args: str) -> dict[str, Any]:
    result = runner.invoke(cli.app, ["schema", *args])
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    Draft202012Validator.check_schema(document)
    return document


def lines_of(example: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in example.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_line_of_every_example_is_valid_against_its_systems_schema(example: Path) -> None:
    lines = lines_of(example)
    own = Draft202012Validator(printed_schema("--system", lines[0]["system"]))
    anyone = Draft202012Validator(printed_schema())
    for number, line in enumerate(lines, start=1):
        assert not list(own.iter_errors(line)), (number, line)
        assert anyone.is_valid(line), (number, line)


def test_an_export_with_its_envelope_is_valid_too(tmp_path: Path) -> None:
    from ledger import Ledger

    with Ledger(tmp_path / "e.db") as book:
        book.import_lines((ROOT / "examples" / "l5r-duel.jsonl").read_text().splitlines())
        exported = [json.loads(x) for x in book.export(book.encounters()[0].encounter)]
    validator = Draft202012Validator(printed_schema("--system", "l5r"))
    assert all(validator.is_valid(line) for line in exported)


@pytest.mark.parametrize(
    "line",
    [
        {"target": "Ogre", "level": 2},  # no type
        {"type": "harm.inflicted", "target": "Ogre", "level": 2, "colour": "red"},
        {"type": "harm.inflicted", "target": "Ogre", "level": "two"},
        {"type": "hit.resolved", "target": "Ogre", "harm": 2},  # not an ssss event
    ],
    ids=["no-type", "unknown-field", "wrong-kind", "other-system"],
)
def test_the_schema_refuses_what_the_ledger_refuses(line: dict[str, Any]) -> None:
    assert not Draft202012Validator(printed_schema("--system", "ssss")).is_valid(line)


@pytest.mark.parametrize("system", [None, *SYSTEMS])
def test_every_event_requires_type_and_describes_every_field(system: str | None) -> None:
    defs = reference.schema(system)["$defs"]
    events = {n: d for n, d in defs.items() if "const" in d.get("properties", {}).get("type", {})}
    assert events
    for name, definition in events.items():
        assert definition["required"][0] == "type", name
        assert definition.get("description"), name
        for field, prop in definition["properties"].items():
            assert prop.get("description"), f"{name}.{field}: add it to ledger/reference_texts.py"


def test_docs_events_md_is_fresh() -> None:
    page = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    assert page == reference.events_markdown(), (
        "docs/events.md is stale: python -m ledger.reference > docs/events.md"
    )


def test_the_readme_links_the_reference_and_points_inside_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/events.md)" in readme
    assert "../" not in readme


def test_rules_prints_each_house_rule_with_its_default_and_meaning() -> None:
    result = runner.invoke(cli.app, ["rules", "l5r"])
    assert (result.exit_code, result.stdout) == (
        0,
        "rule\tdefault\tmeaning\n"
        'incapacitation_comparison\t">"\t`>`: fatigue that exceeds endurance incapacitates '
        "(the text); `>=`: fatigue that reaches it.\n"
        'void_points_start\t"half_rounded_up"\tVoid points with no `void_points` stat: half '
        "the Void ring, rounded up or down.\n"
        "unconscious_severity\t10\tSeverity a critical strike on an Unconscious character adds "
        "(recorded in its deadliness; the audit warns when it is missing); 0: none.\n"
        'unconscious_ends\t"incapacitated"\t`incapacitated`: Unconscious ends when '
        "Incapacitated does (fatigue back to endurance or below: recovery, rest, the scene's "
        "end); `gm`: only a GM override (`track.adjusted` of `unconscious`).\n"
        "Override any of them with: encounter new NAME --system l5r --rules house.json\n",
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_house_rule_has_a_meaning(system: str) -> None:
    result = runner.invoke(cli.app, ["rules", system, "--json"])
    rules = json.loads(result.stdout)["rules"]
    assert rules and all(rule["meaning"] for rule in rules), rules
