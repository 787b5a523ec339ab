"""Iron Vault journals as the Iron Vault projects write and test them: the block and node forms
of the plugin's docs, test vault and tests (iron-vault-plugin/iron-vault) and of the Python
parser's tests (sgreg/iron-vault-mdparser), each imported as what it means, or kept as a counted
note, or refused as one line of bad input. Each form is a short snippet of their text; the
source is named with each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger, events
from ledger.errors import BadInput

#: The plugin's repository and the Python parser's, as the sources of the snippets below.
PLUGIN = "iron-vault-plugin/iron-vault"
MDPARSER = "sgreg/iron-vault-mdparser"


def fenced(*blocks: str) -> str:
    """A journal note holding each of `blocks` in an iron-vault-mechanics fence."""
    return "# Session 1\n\n" + "".join(f"```iron-vault-mechanics\n{b}\n```\n\n" for b in blocks)


def shown(record: events.Recorded) -> str:
    """An imported event as one short line: its type and what it says."""
    body = events.body_of(record.event)
    match record.type:
        case "roll.made":
            dice = f"{body['action_die']} vs {body['challenge'][0]},{body['challenge'][1]}"
            rolled = f"{body['move']} +{body['stat']} {dice} adds {body['adds']}"
            return f"roll {rolled}: {body['outcome']}"
        case "tracks.noted":
            return "claim " + " ".join(f"{k}={v}" for k, v in body["values"].items())
        case "harm.suffered":
            return f"harm {body['amount']}"
        case "meter.changed":
            return f"{body['meter']} {body['amount']:+d}"
        case "choice.made":
            return f"choice {body['option']}"
        case "debility.marked" | "debility.cleared":
            return f"{record.type.split('.')[1]} {body['debility']}"
        case "oracle.rolled":
            return f"oracle {body['table']} {body['roll']}"
        case "momentum.burned":
            return "burn"
        case _:
            return record.type


def imported(db: Path, tmp_path: Path, note: str, **options: Any) -> tuple[Any, list[str]]:
    """`note` imported as `Session 1.md` (for Kira unless told): the import and each event
    after the opening and the joins, as `shown`."""
    folder = tmp_path / "Journals"
    folder.mkdir()
    (folder / "Session 1.md").write_bytes(note.encode("utf-8"))
    options.setdefault("character", "Kira")
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault([folder], into="saga", **options)
        records = ledger.records("saga")[1:]
    return result, [shown(r) for r in records if r.type != "combatant.joined"]


def audited(db: Path, tmp_path: Path, note: str) -> tuple[list[str], dict[str, Any], list[str]]:
    """`note` imported for Kira: the events (`shown`), Kira's tracks, and the audit's findings
    as `rule: message`."""
    _, told = imported(db, tmp_path, note)
    with Ledger(db) as ledger:
        kira = ledger.tracks("saga").view()["combatants"]["Kira"]
        found = [f"{f.rule}: {f.message}" for f in ledger.audit("saga")]
    return told, kira, found


# A move is known by its Datasworn id; a link to anything else names it by its label.


@pytest.mark.parametrize(
    "target",
    [
        "datasworn link",  # MDPARSER tests/test_mechanics_blockproc.py: `[Compel](datasworn link)`
        "link",  # MDPARSER tests/test_mechanics_blockproc.py: `[Face Danger](link)`
        "Move Link",  # MDPARSER tests/test_block_parsers.py: `[Move Name](Move Link)`
        "https://foo",  # PLUGIN .../datasworn/id.test.ts: `[Foo](https://foo)` holds no id
        "./foo",  # PLUGIN .../datasworn/id.test.ts: `./foo` is no Datasworn id
    ],
)
def test_a_move_linked_to_what_is_no_datasworn_id_is_known_by_its_label(
    db: Path, tmp_path: Path, target: str
) -> None:
    """Iron Vault takes a move's id from its link only when the link is a Datasworn id
    (`matchDataswornLink`); any other link is the move's name. So is it here: an Endure Harm
    linked to a web page or a note is Endure Harm, its health loss a harm."""
    block = f"""move "[Endure Harm]({target})" {{
    meter "health" from=5 to=3
    roll "health" action=4 adds=0 stat=3 vs1=2 vs2=9
}}"""
    _, told = imported(db, tmp_path, fenced(block))
    assert told == [
        "claim health=5",
        "harm 2",
        "claim health=3",
        "roll endure_harm +health 4 vs 2,9 adds 0: weak_hit",
    ]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("[Endure Harm](move:EndureHarm)", "endure_harm"),  # PLUGIN docs/Blocks/Mechanics Blocks.md
        ("[Strike](move:starforged\\/combat\\/strike)", "strike"),  # PLUGIN test-vault Chapter 01
        ("[Compel](datasworn:move:starforged\\/adventure\\/compel)", "compel"),  # MDPARSER
        ("[Face Danger](starforged/moves/adventure/face_danger)", "face_danger"),  # Datasworn 1
        ("[[Chapter 02]]", "chapter_02"),  # PLUGIN test-vault Chapter 01: a wiki link
    ],
)
def test_a_move_linked_to_its_datasworn_id_is_known_by_the_id(
    db: Path, tmp_path: Path, name: str, key: str
) -> None:
    block = f'move "{name}" {{\n    roll "iron" action=2 adds=0 stat=3 vs1=10 vs2=10\n}}'
    _, told = imported(db, tmp_path, fenced(block))
    assert told == [f"roll {key} +iron 2 vs 10,10 adds 0: miss"]


# A journal's first value that no sheet can hold: the character starts in range, the claim is
# the journal's, and the audit says so (as for any later value out of range).


@pytest.mark.parametrize(
    ("note", "claim", "start"),
    [
        # PLUGIN packages/obsidian/src/inline/syntax.test.ts: `iv-meter:Spirit|-2|-3`
        ("Spirit falls. `iv-meter:Spirit|-2|-3`\n", "spirit=-2", ("spirit", 0)),
        (fenced('meter "Spirit" from=-2 to=-3'), "spirit=-2", ("spirit", 0)),
        (fenced('meter "health" from=9 to=8'), "health=9", ("health", 4)),
        (fenced('meter "Momentum" from=12 to=11'), "momentum=12", ("momentum", 9)),
    ],
)
def test_a_first_value_out_of_the_sheet_s_range_starts_in_range_and_is_reported(
    db: Path, tmp_path: Path, note: str, claim: str, start: tuple[str, int]
) -> None:
    told, kira, found = audited(db, tmp_path, note)
    meter, value = start
    assert told[0] == f"claim {claim}"
    assert kira[meter] == value
    said = claim.split("=")[1]
    assert any(f"{meter} is {said} here" in f for f in found if f.startswith("journal-disagrees"))


def test_a_roll_s_stat_out_of_range_as_a_first_value_is_not_bad_input(
    db: Path, tmp_path: Path
) -> None:
    block = 'move "Face Danger" {\n    roll "iron" action=4 adds=0 stat=9 vs1=3 vs2=5\n}'
    told, _, _ = audited(db, tmp_path, fenced(block))
    assert told == ["roll face_danger +iron 4 vs 3,5 adds 0: strong_hit"]


def test_a_sheet_s_value_out_of_range_is_still_bad_input(db: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "Kira.md"
    sheet.write_text("---\nname: Kira\nspirit: 7\n---\n", encoding="utf-8")
    with pytest.raises(BadInput, match="spirit"):
        imported(db, tmp_path, fenced('meter "spirit" from=5 to=4'), sheet=[sheet])
