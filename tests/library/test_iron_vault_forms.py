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


# Every form the Iron Vault projects' docs, test vault and tests write, as the importer reads it:
# (id, where it comes from, the note, the events after the opening and the joins, the nodes kept
# as notes by name).

FORMS: list[tuple[str, str, str, list[str], dict[str, int]]] = [
    (
        "move-id-add-positional-roll",
        f"{PLUGIN} test-vault/Campaign 1/Journals/Chapter 01.md",
        fenced(
            """move id="move:starforged/adventure/face_danger" {
	add 1 "because I'm cool [[Ash Barlowe]]"
	roll "shadow" 1 3 1 9 9 // <statname> <action-die> <stat> <adds> <vs1> <vs2>
	clock "[[Test Clock]]" status="added"
}"""
        ),
        ["note", "roll face_danger +shadow 1 vs 9,9 adds 1: miss", "note"],
        {"add": 1, "clock": 1},
    ),
    (
        "endure-harm-harm-roll-shake-it-off",
        f"{PLUGIN} docs/Blocks/Mechanics Blocks.md",
        fenced(
            """move "Endure Harm" {
    meter "health" from=3 to=2
    roll "health" action=3 stat=4 adds=0 vs1=3 vs2=8
    meter "momentum" from=7 to=6
    meter "health" from=2 to=3
}"""
        ),
        [
            "claim health=3",
            "harm 1",
            "claim health=4",
            "roll endure_harm +health 3 vs 3,8 adds 0: weak_hit",
            "claim momentum=7",
            "claim health=2",
            "choice shake_it_off",
        ],
        {},
    ),
    (
        "unnamed-roll-rerolls-burns-outside-endure-harm",
        f"{PLUGIN} test-vault/Campaign 1/Journals/Chapter 01.md",
        fenced(
            """move "Undertake an Expedition" {
    - "testing"
    roll action=3 stat=1 adds=0 vs1=3 vs2=5
    reroll action=1 vs1=6
    reroll vs2=7 vs1=8
    burn from=10 to=2
    burn 10 2 // <from> <to>
    unknown "hahahah"
}"""
        ),
        ["note"] * 7,
        {"-": 1, "roll": 1, "reroll": 2, "burn": 2, "unknown": 1},
    ),
    (
        "rerolls-written-as-text",
        f"{PLUGIN} test-vault/Campaign 1/Journals/Chapter 02.md",
        fenced(
            """move "[Face Danger](move:starforged\\/adventure\\/face_danger)" {
    roll "iron" action=6 adds=0 stat=3 vs1=4 vs2=10
    reroll action="1"
    reroll vs2="7"
    reroll vs1="5"
    reroll action="5"
    reroll action="3"
}
move "[Ask the Oracle](datasworn:move:starforged\\/fate\\/ask_the_oracle)"
"""
        ),
        ["roll face_danger +iron 3 vs 5,7 adds 0: weak_hit", *["note"] * 6],
        {"move": 1},
    ),
    (
        "named-roll-reroll-numbers-positional-burn",
        f"{PLUGIN} docs/Blocks/Mechanics Blocks.md (reroll, burn) with a stat name",
        fenced(
            """move "Face Danger" {
    roll "edge" action=3 stat=2 adds=1 vs1=3 vs2=7
    reroll action=1 vs1=6
    burn 9 2
    - "that's better..."
}"""
        ),
        [
            "claim momentum=9",
            "roll face_danger +edge 1 vs 6,7 adds 1: miss",
            "note",
            "burn",
            "claim momentum=2",
            "note",
        ],
        {"-": 1},
    ),
    (
        "starforged-endure-harm-with-add-no-harm",
        f"{PLUGIN} test-vault/Campaign 1/Journals/Chapter 01.md",
        fenced(
            """burn from=6 to=2

move "[Strike](move:starforged\\/combat\\/strike)" {
    roll "iron" action=2 adds=0 stat=3 vs1=10 vs2=10
}


move "[Endure Harm](move:starforged\\/suffer\\/endure_harm)" {
    add 1
    roll "health" action=3 adds=1 stat=5 vs1=2 vs2=2
}
"""
        ),
        [
            "note",
            "roll strike +iron 2 vs 10,10 adds 0: miss",
            "note",
            "claim health=5",
            "roll endure_harm +health 3 vs 2,2 adds 1: strong_hit",
        ],
        {"burn": 1, "add": 1},
    ),
    (
        "classic-endure-harm-oracle",
        f"{PLUGIN} docs/Blocks/Mechanics Blocks.md (oracle), classic Endure Harm",
        fenced(
            """move "[Endure Harm](datasworn:move:classic\\/suffer\\/endure_harm)" {
    meter "health" from=1 to=0
    roll "health" action=1 adds=0 stat=0 vs1=5 vs2=9
    meter "momentum" from=2 to=1
    oracle "[Endure Harm](datasworn:oracle_rollable:classic\\/moves\\/endure_harm)" """
            """roll=55 result="You are dying"
}"""
        ),
        [
            "claim health=1",
            "harm 1",
            "claim health=0",
            "claim momentum=2",
            "roll endure_harm +health 1 vs 5,9 adds 0: miss",
            "oracle endure_harm 55",
        ],
        {},
    ),
    (
        "nodes-the-ledger-does-not-model",
        f"{PLUGIN} test-vault/Campaign 1/Journals/Chapter 01.md, 02.md",
        fenced(
            """asset "[Empath](asset:Empath)" status="upgraded" ability=1
impact "Permanently Harmed" false
impact "Wounded" true
impact "some random something" true
move "Finish an Expedition" {
    progress-roll "Deep into the Vault" score=2 vs1=1 vs2=3
    progress-roll "Deep into the Vault" 2 1 3 // <name> <score> <vs1> <vs2>
}
move "[[Chapter 02]]" {
  - "**bold text** *italic* [[README]]"
}
progress "[[Defeat]] the enemiez" from-boxes=2 from-ticks=1 level="dangerous" steps=2
track "Qu*es*ts" from=12 to=18
xp 1 2
clock "[[Test Clock]]" from=1 to=2 out-of=4
oracle "[Character Name > Given Name](oracle:GivenName)" roll=34 result="Esana" {
  oracle "Something else" 2 "foo"
}
oracle-group "Character Name" /* No need to link */ {
  oracle "[Given Name](oracle:starforged/oracles/character/character_name/given_name)" """
            """roll=30 result="Eren"
}
initiative "has-initiative" "in a bad spot"
position from="in a bad spot" to="out of combat"
dice-expr expr="3d6 - 1d4 - 1d6 + 3" result=2 {
    rolls 1 2 3 dice="3d6"
    rolls 1 dice="1d4"
    rolls 6 dice="1d6"
}"""
        ),
        ["note", "cleared permanently_harmed", "marked wounded", *["note"] * 13],
        {
            "asset": 1,
            "impact": 1,
            "progress-roll": 2,
            "-": 1,
            "progress": 1,
            "track": 1,
            "xp": 1,
            "clock": 1,
            "oracle": 1,
            "oracle-group": 1,
            "initiative": 1,
            "position": 1,
            "dice-expr": 1,
        },
    ),
    (
        "multiline-and-escaped-comments",
        f"{PLUGIN} test-vault Chapter 01.md; {MDPARSER} tests/test_node_parsers.py",
        fenced(
            """- "multiline
string"
move "Do the Thing" {
  - "
### H3

This is part of

a single multiline string.
"
  oracle "foo" roll=40 result="anything?"
}
- "comment with \\"quoted\\" text"
oracle-group name="Character: Curtis \\"Centurion\\" Shelton" {
    oracle name="[Character Oracles \\/ Character Name \\/ Given Name]"""
            """(oracle_rollable:starforged\\/character\\/name\\/given_name)" result="Curtis" roll=64
}"""
        ),
        ["note"] * 5,
        {"-": 3, "oracle": 1, "oracle-group": 1},
    ),
    (
        "meters-by-name",
        f"{MDPARSER} tests/test_node_parsers.py (meter)",
        fenced(
            """meter "Momentum" from=5 to=6
meter "Momentum" from=6 to=6
meter "Multi-word meter \\/ name" from=6 to=5
meter "[[Linked meter|Meter with Link]]" from=5 to=6
meter "Starship \\/ Integrity" from=2 to=3
meter "Health" from=4 to=3"""
        ),
        [
            "claim momentum=5",
            "momentum +1",
            "claim momentum=6",
            "momentum +0",
            "note",
            "note",
            "note",
            "claim health=4",
            "health -1",
        ],
        {"meter": 3},
    ),
    (
        "moves-linked-as-the-mdparser-tests-write-them",
        f"{MDPARSER} tests/test_mechanics_blockproc.py",
        fenced(
            """track name="[[Link|Name]]" status="added"
move "[Compel](link)" {
    add 2
}
progress from=0 name="[[Link|Name]]" rank="dangerous" steps=2
move "[Face Danger](link)" {
    roll "Heart" action=4 adds=2 stat=1 vs1=7 vs2=4
}
- "Comment\""""
        ),
        ["note", "note", "note", "roll face_danger +heart 4 vs 7,4 adds 2: weak_hit", "note"],
        {"track": 1, "add": 1, "progress": 1, "-": 1},
    ),
    (
        "oracle-with-cursed-die-in-a-prompt",
        f"{PLUGIN} packages/obsidian/src/mechanics/node-builders/index.ts; {MDPARSER} tests",
        fenced(
            """- "Will the bridge hold?" {
    oracle cursed=1 name="something" replaced=true result="Pyramid architecture" roll=74
}
oracle name="[Core Oracles \\/ Theme](datasworn:path)" result="Warning" roll=96
reroll action="0\""""
        ),
        ["note"] * 3,
        {"-": 1, "oracle": 1, "reroll": 1},
    ),
    (
        "inline-mechanics",
        f"{PLUGIN} packages/obsidian/src/inline/syntax.test.ts",
        "I strike. `iv-move:Strike|Iron|4|2|3|3|7|move:starforged/combat/strike|burn=8:2"
        "|adds=2(Asset),1`\n\n"
        "`iv-oracle:Action|45|Bolster|oracle:starforged/oracles/core/action|cursed=7` "
        "`iv-noroll:Begin a Session|move:starforged/session/begin_a_session` "
        "`iv-progress:Fulfill Your Vow|My Vow|7|3|9|Campaign/Progress/My Vow.md"
        "|move:starforged/quest/fulfill_your_vow`\n\n"
        "`iv-track-advance:My Vow|Progress/My Vow.md|4|8|dangerous|2` "
        "`iv-clock-advance:Danger|Clocks/Danger.md|2|4|2|6|odds=Likely:45:Yes` "
        "`iv-initiative:Initiative|in control|bad spot` `iv-meter:Health|5|3`\n",
        [
            "claim momentum=8",
            "roll strike +iron 4 vs 3,7 adds 3: strong_hit",
            "burn",
            "claim momentum=2",
            *["note"] * 6,
            "claim health=5",
            "health -2",
        ],
        {
            "oracle": 1,
            "iv-noroll": 1,
            "iv-progress": 1,
            "iv-track-advance": 1,
            "iv-clock-advance": 1,
            "iv-initiative": 1,
        },
    ),
    (
        "crlf-bom-front-matter-empty-and-unclosed-blocks",
        f"{MDPARSER} tests/test_mechanics_preproc.py, tests/test_mechanics_blockproc.py",
        "\ufeff---\r\ntags: journal\r\n---\r\n```iron-vault-mechanics\r\n```\r\nbefore\r\n"
        '```iron-vault-mechanics\r\n\r\nmeter "health" from=5 to=4\r\n\r\n```\r\nafter\r\n'
        '```iron-vault-mechanics\r\nmeter "health" from=4 to=3\r\n',
        ["claim health=5", "health -1", "claim health=4", "health -1"],
        {},
    ),
]


@pytest.mark.parametrize(
    ("note", "told", "kept"),
    [pytest.param(note, told, kept, id=name) for name, _, note, told, kept in FORMS],
)
def test_each_form_iron_vault_writes_is_read_as_what_it_means(
    db: Path, tmp_path: Path, note: str, told: list[str], kept: dict[str, int]
) -> None:
    """Each of the FORMS imports as its events, in order, or as counted notes; never a
    traceback or a track changed by what the node does not say."""
    result, events_ = imported(db, tmp_path, note)
    assert events_ == told
    assert dict(result.kept) == kept


def test_a_note_kept_from_a_move_that_rolled_nothing_names_its_move(
    db: Path, tmp_path: Path
) -> None:
    """A move that makes no roll the ledger scores (a progress move, a move with no roll, an
    action roll with no stat name) is in no event of its own: each note kept from it carries
    the move, so that the move's name is not dropped. A move that rolled is in its roll."""
    # PLUGIN test-vault/Campaign 1/Journals/Chapter 01.md and 02.md
    block = """move "Finish an Expedition" {
    progress-roll "Deep into the Vault" score=2 vs1=1 vs2=3
}
move "Begin a Session" {
  - "+1 momentum"
}
move "Face Danger" {
    roll "iron" action=6 adds=0 stat=3 vs1=4 vs2=10
    - "ouch"
}"""
    folder = tmp_path / "Journals"
    folder.mkdir()
    (folder / "Session 1.md").write_text(fenced(block), encoding="utf-8")
    with Ledger(db) as ledger:
        ledger.import_iron_vault([folder], into="saga", character="Kira")
        notes = [
            (events.origin(r.event), events.body_of(r.event)["text"])
            for r in ledger.records("saga")
            if r.type == "note"
        ]
    assert notes == [
        (
            "Session 1.md:5",
            'move "Finish an Expedition" { progress-roll "Deep into the Vault" score=2 vs1=1 '
            "vs2=3 }",
        ),
        ("Session 1.md:8", 'move "Begin a Session" { - "+1 momentum" }'),
        ("Session 1.md:12", '- "ouch"'),
    ]
