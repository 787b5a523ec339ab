"""Iron Vault journals (#25): the fixture journal (tests/fixtures/iron-vault: three notes, two
characters, classic and Starforged) imports as the story its blocks tell, every event with its
note and line, audits with the journal's disagreements, and re-imports to nothing new."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import Ledger, events
from ledger.errors import BadInput
from ledger.ironvault import notes
from projections.findings import Finding
from projections.journal import Node
from tests import paths

FIXTURE = paths.FIXTURES / "iron-vault"
JOURNALS = FIXTURE / "Journals"
SHEET = FIXTURE / "Characters" / "Kira.md"


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A copy of the fixture journal, to grow and edit."""
    copy = tmp_path / "Journals"
    shutil.copytree(JOURNALS, copy)
    return copy


def imported(ledger: Ledger, *paths: Path, **options: object) -> list[events.Recorded]:
    ledger.import_iron_vault(list(paths), into="saga", character="Kira", **options)  # type: ignore[arg-type]
    return ledger.records("saga")


def test_the_notes_are_read_in_natural_order_of_their_names() -> None:
    found = [name for name, _ in notes.note_files([JOURNALS])]
    assert found == ["Session 1.md", "Session 2.md", "Session 10.md"]


def test_a_journal_imports_as_the_story_its_blocks_tell(db: Path) -> None:
    with Ledger(db) as ledger:
        records = imported(ledger, JOURNALS)
        view = ledger.tracks("saga").view()
    kinds = [r.type for r in records]
    assert kinds[:4] == ["encounter.opened", "note", "combatant.joined", "roll.made"]
    assert kinds.count("harm.suffered") == 6
    assert kinds.count("momentum.burned") == 2
    choices = [events.body_of(r.event)["option"] for r in records if r.type == "choice.made"]
    assert choices == ["shake_it_off", "embrace_the_pain", "embrace_the_pain"]
    kira, ash = view["combatants"]["Kira"], view["combatants"]["Ash"]
    assert (kira["health"], kira["momentum"], kira["debilities"]) == (0, 3, [])
    assert (ash["health"], ash["momentum"]) == (0, -1)
    assert ash["debilities"] == ["wounded", "permanently_harmed"]
    assert ash["conditions"] == ["reeling"]


def test_every_imported_event_carries_its_note_and_line(db: Path) -> None:
    with Ledger(db) as ledger:
        records = imported(ledger, JOURNALS)
    told = {r.seq: events.origin(r.event) for r in records}
    assert told[1] is None  # the opening is the import's own
    assert all(told[seq] for seq in told if seq > 1)
    harm = next(r for r in records if r.type == "harm.suffered")
    assert events.origin(harm.event) == "Session 1.md:20"
    lines = (JOURNALS / "Session 1.md").read_text(encoding="utf-8").splitlines()
    assert lines[20 - 1].strip() == 'meter "Health" from=5 to=3'


def test_the_audit_shows_the_journal_s_disagreements_with_their_file_and_line(db: Path) -> None:
    with Ledger(db) as ledger:
        imported(ledger, JOURNALS)
        found = ledger.audit("saga")
    assert [(f.rule, f.seq) for f in found] == [
        ("journal-start", (3,)),
        ("endure-harm-stat", (25,)),
        ("shake-it-off-allowed", (25, 27)),
        ("journal-disagrees", (36,)),
        ("journal-start", (43,)),
        ("journal-disagrees", (49,)),
        ("momentum-burn-allowed", (50, 52)),
    ]
    disagree = [f.message for f in found if f.rule == "journal-disagrees"]
    assert disagree == [
        "Session 2.md:22 says 'Kira' health is 3 here; the ledger has 1 (seq 36)",
        "Session 10.md:21 says 'Ash' momentum is 5 here; the ledger has 2 (seq 49)",
    ]
    assert "weak hit" in next(f.message for f in found if f.rule == "shake-it-off-allowed")


def test_without_a_sheet_the_journal_s_first_values_start_each_character(db: Path) -> None:
    with Ledger(db) as ledger:
        records = imported(ledger, JOURNALS)
    joins = {r.event.name: r for r in records if isinstance(r.event, events.CombatantJoined)}
    assert events.body_of(joins["Kira"].event)["stats"] == {
        "edge": 2,
        "health": 5,
        "iron": 3,
        "momentum": 2,
        "wits": 2,
    }
    assert events.body_of(joins["Ash"].event)["stats"] == {
        "edge": 2,
        "health": 1,
        "iron": 1,
        "momentum": 3,
    }
    assert events.origin(joins["Ash"].event) == "Session 10.md:8"


def test_a_sheet_gives_the_character_s_starting_values(db: Path) -> None:
    with Ledger(db) as ledger:
        records = imported(ledger, JOURNALS, sheet=SHEET)
        found = ledger.audit("saga")
    kira = next(r for r in records if getattr(r.event, "name", None) == "Kira")
    assert events.body_of(kira.event)["stats"] == {
        "edge": 2,
        "heart": 1,
        "iron": 3,
        "shadow": 1,
        "wits": 2,
        "health": 5,
        "spirit": 5,
        "supply": 5,
        "momentum": 2,
    }
    assert events.origin(kira.event) == "Kira.md:1"
    assert "with what Kira.md:1 gives" in found[0].message


def test_importing_the_same_notes_again_appends_nothing(db: Path) -> None:
    with Ledger(db) as ledger:
        first = ledger.import_iron_vault([JOURNALS], into="saga", character="Kira")
        again = ledger.import_iron_vault([JOURNALS], into="saga", character="Kira")
        head = ledger.store.require("saga").seq
    assert (first.appended, first.already_stored) == (63, 0)
    assert (again.appended, again.already_stored, again.head) == (0, 63, head)


def test_a_journal_that_grew_appends_only_its_new_nodes(db: Path, journal: Path) -> None:
    later = journal / "Session 10.md"
    text = later.read_text(encoding="utf-8")
    later.unlink()
    with Ledger(db) as ledger:
        before = ledger.import_iron_vault([journal], into="saga", character="Kira")
        later.write_text(text, encoding="utf-8")
        grown = ledger.import_iron_vault([journal], into="saga", character="Kira")
        with (journal / "Session 10.md").open("a", encoding="utf-8") as note:
            note.write("\n```iron-vault-mechanics\nxp from=4 to=6\n```\n")
        more = ledger.import_iron_vault([journal], into="saga", character="Kira")
        records = ledger.records("saga")
    assert (before.appended, grown.appended, more.appended) == (42, 21, 1)
    assert [r.type for r in records[42:44]] == ["combatant.joined", "tracks.noted"]
    assert events.origin(records[-1].event) == f"Session 10.md:{len(text.splitlines()) + 3}"
    assert records[-1].event == events.Note(text="xp from=4 to=6", source=records[-1].event.source)


def test_a_node_changed_where_it_was_imported_is_refused_and_nothing_appended(
    db: Path, journal: Path
) -> None:
    note = journal / "Session 1.md"
    with Ledger(db) as ledger:
        ledger.import_iron_vault([journal], into="saga", character="Kira")
        note.write_text(
            note.read_text(encoding="utf-8").replace("from=5 to=3", "from=5 to=2"),
            encoding="utf-8",
        )
        with (journal / "Session 10.md").open("a", encoding="utf-8") as more:
            more.write("\n```iron-vault-mechanics\nxp from=4 to=6\n```\n")
        with pytest.raises(BadInput) as refused:
            ledger.import_iron_vault([journal], into="saga", character="Kira")
        head = ledger.store.require("saga").seq
    assert str(refused.value) == (
        'Session 1.md:20: the journal changed where it was imported: `meter "Health" from=5 '
        "to=2` contradicts seq 8 (harm.suffered, imported from Session 1.md:20); nothing was "
        "imported: amend seq 8 to match it, or import into a new encounter"
    )
    assert head == 63


def test_an_amendment_to_what_the_journal_now_says_lets_it_import_again(
    db: Path, journal: Path
) -> None:
    note = journal / "Session 1.md"
    with Ledger(db) as ledger:
        ledger.import_iron_vault([journal], into="saga", character="Kira")
        note.write_text(
            note.read_text(encoding="utf-8").replace("from=4 to=6", "from=4 to=7"),
            encoding="utf-8",
        )
        changed = next(
            r
            for r in ledger.records("saga")
            if r.type == "meter.changed" and events.body_of(r.event)["amount"] == 2 and r.seq > 18
        )
        ledger.amend("saga", changed.seq, {"amount": 3}, reason="the journal says +3")
        again = ledger.import_iron_vault([journal], into="saga", character="Kira")
    assert again.appended == 0


def test_a_note_that_grew_before_a_note_already_imported_is_refused(
    db: Path, journal: Path
) -> None:
    with Ledger(db) as ledger:
        ledger.import_iron_vault([journal], into="saga", character="Kira")
        with (journal / "Session 2.md").open("a", encoding="utf-8") as note:
            note.write("\n```iron-vault-mechanics\nxp from=4 to=6\n```\n")
        with pytest.raises(BadInput, match=r"^Session 2\.md:\d+ is new, but Session 10\.md"):
            ledger.import_iron_vault([journal], into="saga", character="Kira")


def test_the_same_journal_imports_into_two_encounters(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.import_iron_vault([JOURNALS], into="saga", character="Kira")
        other = ledger.import_iron_vault([JOURNALS], into="again", character="Kira")
    assert other.appended == 63


def test_a_dry_run_appends_nothing_and_says_what_it_would(db: Path) -> None:
    with Ledger(db) as ledger:
        dry = ledger.import_iron_vault([JOURNALS], into="saga", character="Kira", dry_run=True)
        assert ledger.encounters() == []
    assert (dry.appended, dry.dry_run) == (63, True)
    assert dry.folds[7][1].type == "harm.suffered"


def test_a_block_with_no_character_is_bad_input_naming_its_file_and_line(db: Path) -> None:
    with Ledger(db) as ledger, pytest.raises(BadInput) as refused:
        ledger.import_iron_vault([JOURNALS], into="saga")
        assert ledger.encounters() == []
    assert str(refused.value) == (
        "Session 1.md:8: this mechanics block names no character (no actor node): give "
        "--character NAME"
    )


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            'move "Face Danger" {\n    roll "edge" action=3 stat=2\n}',
            "Session 9.md:5: the roll is missing its vs1, vs2",
        ),
        (
            'meter "Health" from=3',
            "Session 9.md:4: meter 'Health' needs from= and to=",
        ),
        (
            'move "Endure Harm" {\n    meter "Health" from=3 to=2\n',
            "Session 9.md:3: the mechanics block is not valid KDL (",
        ),
        (
            'impact "Wounded" "maybe"',
            "Session 9.md:4: impact 'Wounded' is marked (true) or unmarked (false), not 'maybe'",
        ),
        (
            'move "Endure Harm" {\n    roll "iron" action=9 stat=2 vs1=1 vs2=2\n}',
            "Session 9.md:5: roll.made event field 'action_die'",
        ),
    ],
    ids=["roll-without-dice", "meter-without-to", "not-kdl", "impact-status", "die-of-9"],
)
def test_a_broken_node_is_one_line_of_bad_input_and_nothing_is_appended(
    db: Path, tmp_path: Path, block: str, message: str
) -> None:
    note = tmp_path / "Session 9.md"
    note.write_text(f"# 9\n\n```iron-vault-mechanics\n{block}\n```\n", encoding="utf-8")
    with Ledger(db) as ledger:
        with pytest.raises(BadInput) as refused:
            ledger.import_iron_vault([note], into="saga", character="Kira")
        assert ledger.encounters() == []
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_an_encounter_of_another_system_is_refused(db: Path) -> None:
    with Ledger(db) as ledger:
        ledger.open("saga", "ssss")
        with pytest.raises(
            BadInput,
            match="is an ssss encounter; an Iron Vault journal imports into an ironsworn one",
        ):
            ledger.import_iron_vault([JOURNALS], into="saga", character="Kira")


def test_without_the_kdl_parser_the_error_names_the_extra(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ckdl", None)
    with Ledger(db) as ledger, pytest.raises(BadInput) as refused:
        ledger.import_iron_vault([JOURNALS], into="saga", character="Kira")
    assert str(refused.value) == (
        "reading Iron Vault journals needs the KDL parser: "
        "pip install 'encounter-ledger[ironvault]'"
    )


def test_a_roll_s_outcome_node_is_the_claim_the_audit_checks(db: Path, tmp_path: Path) -> None:
    note = tmp_path / "S.md"
    note.write_text(
        "```iron-vault-mechanics\n"
        'move "Face Danger" {\n    roll "edge" action=3 stat=2 vs1=9 vs2=9\n'
        '    outcome "strong hit"\n}\n```\n',
        encoding="utf-8",
    )
    with Ledger(db) as ledger:
        ledger.import_iron_vault([note], into="saga", character="Kira")
        found = [(f.rule, f.seq) for f in ledger.audit("saga")]
    assert ("outcome-claim", (3,)) in found


@pytest.mark.parametrize("first", [1, 2])
def test_a_journal_imported_note_by_note_is_the_journal_imported_at_once(
    tmp_path: Path, first: int
) -> None:
    names = [name for name, _ in notes.note_files([JOURNALS])]
    with Ledger(tmp_path / "once.db") as once, Ledger(tmp_path / "parts.db") as parts:
        once.import_iron_vault([JOURNALS], into="saga", character="Kira")
        parts.import_iron_vault(
            [JOURNALS / n for n in names[:first]], into="saga", character="Kira"
        )
        parts.import_iron_vault([JOURNALS / n for n in names], into="saga", character="Kira")
        whole = [(r.id, r.type, events.body_of(r.event)) for r in once.records("saga")]
        pieced = [(r.id, r.type, events.body_of(r.event)) for r in parts.records("saga")]
    assert pieced == whole


# Journals as Iron Vault writes them (its docs/Blocks/Mechanics Blocks.md, its node writers and
# its commands), each spelling read into the event it means, or kept as a counted note.

ENDURE = "[Endure Harm](datasworn:move:classic/suffer/endure_harm)"


def note_of(tmp_path: Path, *blocks: str, name: str = "Session 1.md") -> Path:
    """A journal note holding each of `blocks` in an iron-vault-mechanics fence."""
    fenced = "".join(f"Text.\n\n```iron-vault-mechanics\n{b}\n```\n\n" for b in blocks)
    note = tmp_path / name
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(f"# {note.stem}\n\n{fenced}", encoding="utf-8")
    return note


def story(ledger: Ledger, *paths: Path) -> list[tuple[str, str | None, dict[str, object]]]:
    """Import `paths` for Kira; each event after the opening as (type, note:line, body)."""
    ledger.import_iron_vault(list(paths), into="saga", character="Kira")
    told = []
    for record in ledger.records("saga")[1:]:
        body = {k: v for k, v in events.body_of(record.event).items() if k != "source"}
        told.append((record.type, events.origin(record.event), body))
    return told


def block_read(
    db: Path, tmp_path: Path, block: str
) -> tuple[list[tuple[str, str | None, dict[str, object]]], list[Finding], dict[str, Any]]:
    """A journal note of one block imported for Kira: the story (`story`), the audit's
    findings and Kira's tracks."""
    with Ledger(db) as ledger:
        told = story(ledger, note_of(tmp_path, block))
        return told, ledger.audit("saga"), ledger.tracks("saga").view()["combatants"]["Kira"]


def kinds(told: list[tuple[str, str | None, dict[str, object]]]) -> list[str]:
    return [kind for kind, _, _ in told]


def test_node_names_are_read_in_any_case_as_iron_vault_reads_them(db: Path, tmp_path: Path) -> None:
    block = (
        f'Move "{ENDURE}" {{\n    Meter "Health" from=5 to=3\n'
        '    ROLL "Iron" action=5 adds=0 stat=3 vs1=2 vs2=6\n    Meter "Momentum" from=3 to=2\n}'
    )
    told, _, _ = block_read(db, tmp_path, block)
    assert kinds(told) == [
        "combatant.joined",
        "tracks.noted",
        "harm.suffered",
        "roll.made",
        "tracks.noted",
        "choice.made",
    ]
    assert [where for _, where, _ in told][1:] == [
        "Session 1.md:7",
        "Session 1.md:7",
        "Session 1.md:8",
        "Session 1.md:9",
        "Session 1.md:9",
    ]


@pytest.mark.parametrize(
    ("value", "stat"),
    [(2, "health"), (3, "iron")],
    ids=["the-health-after-the-harm", "another-value"],
)
def test_an_endure_harm_roll_with_no_stat_name_is_health_or_iron_by_its_value(
    db: Path, tmp_path: Path, value: int, stat: str
) -> None:
    """Iron Vault's own example writes `roll action=3 stat=4 ...` with no stat name: Endure
    Harm rolls +health or +iron, and the journal's health after the harm tells which."""
    block = (
        f'move "Endure Harm" {{\n    meter "health" from=4 to=2\n'
        f"    roll action=6 stat={value} adds=0 vs1=3 vs2=5\n}}"
    )
    told, audited, _ = block_read(db, tmp_path, block)
    found = {f.rule for f in audited}
    rolls = [body for kind, _, body in told if kind == "roll.made"]
    assert [(r["move"], r["stat"], r["action_die"]) for r in rolls] == [("endure_harm", stat, 6)]
    joined = told[0][2]["stats"]
    assert joined == {"health": 4, **({"iron": value} if stat == "iron" else {})}
    assert "journal-disagrees" not in found


def test_a_roll_with_no_stat_name_outside_endure_harm_is_kept_as_a_counted_note(
    db: Path, tmp_path: Path
) -> None:
    block = 'move "Face Danger" {\n    roll action=6 stat=3 adds=0 vs1=8 vs2=9\n    - "ouch"\n}'
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
        texts = [events.body_of(r.event)["text"] for r in ledger.records("saga")[1:]]
    assert dict(result.kept) == {"roll": 1, "-": 1}
    # No roll carries the move: each note kept from it names it.
    assert texts == [
        'move "Face Danger" { roll action=6 stat=3 adds=0 vs1=8 vs2=9 }',
        'move "Face Danger" { - "ouch" }',
    ]


def test_a_kept_node_longer_than_a_note_holds_is_cut_to_it_marked(db: Path, tmp_path: Path) -> None:
    """A note holds 2,000 characters: a longer node, alone or named by its move, is cut to
    that with `...`, never refused."""
    long = "x" * 2500
    block = f'- "{long}"\nmove "Begin a Session" {{\n    - "{long}"\n}}'
    with Ledger(db) as ledger:
        ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
        texts = [events.body_of(r.event)["text"] for r in ledger.records("saga")[1:]]
    assert [len(t) for t in texts] == [events.TEXT_MAX, events.TEXT_MAX]
    assert texts[0].startswith('- "xxx') and texts[0].endswith("x...")
    assert texts[1].startswith('move "Begin a Session" { - "xxx') and texts[1].endswith("x...")


def test_harm_that_takes_health_to_0_and_spills_into_momentum_is_one_harm(
    db: Path, tmp_path: Path
) -> None:
    """Starforged's Endure Harm at 0 health: the rest of the harm is -momentum, which Iron
    Vault writes as a second meter node before the roll."""
    block = (
        'move "[Endure Harm](datasworn:move:starforged/suffer/endure_harm)" {\n'
        '    meter "Health" from=1 to=0\n    meter "Momentum" from=4 to=3\n'
        '    roll "iron" action=6 adds=0 stat=2 vs1=1 vs2=2\n}'
    )
    told, audited, kira = block_read(db, tmp_path, block)
    found = [f.rule for f in audited]
    assert [(kind, body) for kind, _, body in told[1:4]] == [
        ("tracks.noted", {"target": "Kira", "values": {"health": 1}}),
        ("tracks.noted", {"target": "Kira", "values": {"momentum": 4}}),
        ("harm.suffered", {"target": "Kira", "amount": 2}),
    ]
    assert (kira["health"], kira["momentum"]) == (0, 3)
    assert found == ["journal-start", "obligation-open"]  # the strong hit's choice


def test_harm_suffered_on_its_own_right_before_endure_harm_is_the_move_s_harm(
    db: Path, tmp_path: Path
) -> None:
    """`Suffer on a meter` and then `Make a move` write the health meter on its own, before
    the move (inside the same actor node when there is one)."""
    block = (
        'actor name="[[Characters/Kira.md|Kira]]" {\n    meter "Health" from=5 to=3\n'
        f'    move "{ENDURE}" {{\n        roll "iron" action=5 adds=0 stat=3 vs1=2 vs2=6\n'
        '        meter "Momentum" from=3 to=2\n    }\n}'
    )
    told, audited, _ = block_read(db, tmp_path, block)
    found = [f.rule for f in audited]
    assert [(kind, where) for kind, where, _ in told[1:5]] == [
        ("tracks.noted", "Session 1.md:7"),
        ("harm.suffered", "Session 1.md:7"),
        ("roll.made", "Session 1.md:9"),
        ("tracks.noted", "Session 1.md:10"),
    ]
    assert told[2][2]["amount"] == 2
    assert kinds(told)[-1] == "choice.made"
    assert found == ["journal-start"]


def test_a_health_loss_on_its_own_before_another_move_stays_a_meter_change(
    db: Path, tmp_path: Path
) -> None:
    block = (
        'meter "Health" from=5 to=3\n'
        'move "Face Danger" {\n    roll "edge" action=5 adds=0 stat=3 vs1=2 vs2=6\n}'
    )
    told, _, _ = block_read(db, tmp_path, block)
    assert kinds(told)[1:] == ["tracks.noted", "meter.changed", "roll.made"]


def test_a_reroll_is_the_roll_the_move_was_resolved_with(db: Path, tmp_path: Path) -> None:
    """Iron Vault's reroll command writes the new die as a string (`reroll action="6"`) and
    the move's outcome follows it: here a miss rerolled into a strong hit, then Shake it off."""
    block = (
        f'move "{ENDURE}" {{\n    meter "Health" from=5 to=3\n'
        '    roll "iron" action=1 adds=0 stat=3 vs1=5 vs2=6\n    reroll action="6"\n'
        '    meter "Health" from=3 to=4\n    meter "Momentum" from=3 to=2\n}'
    )
    with Ledger(db) as ledger:
        told = story(ledger, note_of(tmp_path, block))
        found = [f.rule for f in ledger.audit("saga")]
        result = ledger.import_iron_vault(
            [tmp_path / "Session 1.md"], into="saga", character="Kira", dry_run=True
        )
    roll = next(body for kind, _, body in told if kind == "roll.made")
    assert (roll["action_die"], roll["challenge"], roll["outcome"]) == (6, [5, 6], "strong_hit")
    assert ("note", "Session 1.md:9", {"text": 'reroll action="6"'}) in told
    assert [body.get("option") for kind, _, body in told if kind == "choice.made"] == [
        "shake_it_off"
    ]
    assert found == ["journal-start"]
    assert dict(result.kept) == {}


FACE_DANGER = (
    'move "Face Danger" {{\n    roll "edge" action={} adds=0 stat={} vs1={} vs2={}\n    {}\n}}'
)


def test_a_reroll_of_a_challenge_die_changes_that_die(db: Path, tmp_path: Path) -> None:
    block = FACE_DANGER.format(4, 2, 9, 3, "reroll vs1=2")
    told, _, _ = block_read(db, tmp_path, block)
    roll = next(body for kind, _, body in told if kind == "roll.made")
    assert (roll["action_die"], roll["challenge"], roll["outcome"]) == (4, [2, 3], "strong_hit")


@pytest.mark.parametrize(
    "block",
    [
        FACE_DANGER.format(1, 3, 5, 6, 'reroll vs1="0"'),
        'move "Face Danger" {\n    reroll action=5\n}',
    ],
    ids=["a-cancelled-die", "no-roll-before-it"],
)
def test_a_reroll_the_ledger_cannot_apply_is_kept_as_a_counted_note(
    db: Path, tmp_path: Path, block: str
) -> None:
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
        rolls = [r for r in ledger.records("saga") if r.type == "roll.made"]
    assert dict(result.kept) == {"reroll": 1}
    assert all(events.body_of(r.event)["challenge"] == [5, 6] for r in rolls)


def test_a_reroll_that_is_not_a_number_is_one_line_of_bad_input(db: Path, tmp_path: Path) -> None:
    block = FACE_DANGER.format(1, 3, 5, 6, 'reroll action="six"')
    with Ledger(db) as ledger, pytest.raises(BadInput) as refused:
        ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
    assert str(refused.value) == (
        "Session 1.md:8: reroll needs a whole number for action, not 'six'"
    )


# Journals as people keep them.

HARM = (
    f'move "{ENDURE}" {{',
    '    meter "Health" from=5 to=3',
    '    roll "Iron" action=5 adds=0 stat=3 vs1=2 vs2=6',
    "}",
)


def fenced(prefix: str, body: tuple[str, ...] = HARM) -> list[str]:
    return [prefix + line for line in ("```iron-vault-mechanics", *body, "```")]


@pytest.mark.parametrize(
    ("lines", "harm_line"),
    [
        (["> [!danger] The wight", "> It lunges.", *fenced("> "), "", "After."], 5),
        (["> [!note]", "> > [!danger]", *fenced("> > "), "> Still quoted."], 5),
        ([">[!danger]", *fenced(">")], 4),
    ],
    ids=["callout", "callout-in-callout", "no-space-after-the-marker"],
)
def test_a_block_inside_a_callout_is_read(
    db: Path, tmp_path: Path, lines: list[str], harm_line: int
) -> None:
    note = tmp_path / "Session 1.md"
    note.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Ledger(db) as ledger:
        told = story(ledger, note)
    harm = next((where, body) for kind, where, body in told if kind == "harm.suffered")
    assert harm == (f"Session 1.md:{harm_line}", {"target": "Kira", "amount": 2})
    assert kinds(told)[-1] == "roll.made"


def test_a_callout_that_ends_ends_its_block(db: Path, tmp_path: Path) -> None:
    """Markdown closes a fence left open in a quote when the quote ends: what follows the
    quote is prose, not KDL."""
    lines = ["> [!note]", *fenced("> ")[:-1], "", "Prose { not KDL", *fenced("")]
    note = tmp_path / "Session 1.md"
    note.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Ledger(db) as ledger:
        told = story(ledger, note)
    assert kinds(told).count("harm.suffered") == 2


@pytest.mark.parametrize(
    ("text", "harm_line"),
    [
        ("\ufeff---\r\ntags: [session]\r\n---\r\n# 1\r\n" + "\r\n".join(fenced("")) + "\r\n", 7),
        ("- Kira falls\n" + "\n".join(fenced("    ")) + "\n- then\n", 4),
        ("1. Kira falls\n" + "\n".join(fenced("\t")).replace("    ", "\t") + "\n", 4),
        ("A\n\n~~~iron-vault-mechanics\n" + "\n".join(HARM) + "\n~~~\n", 5),
        ("A\n\n````mechanics\n" + "\n".join(HARM) + "\n````\n", 5),
        ("- " + "\n".join(fenced("  "))[2:] + "\n", 3),
        ("3) " + "\n".join(fenced("   "))[3:] + "\n", 3),
        ("> - " + "\n".join(fenced(">   "))[4:] + "\n", 3),
    ],
    ids=[
        "bom-crlf-front-matter",
        "in-a-list",
        "tabs",
        "tilde-fence",
        "old-fence-name",
        "on-the-bullet-s-line",
        "on-a-number-s-line",
        "on-a-bullet-s-line-in-a-callout",
    ],
)
def test_a_note_as_people_keep_it_is_read_with_the_right_lines(
    db: Path, tmp_path: Path, text: str, harm_line: int
) -> None:
    note = tmp_path / "Journals" / "Arc 1" / "Session 1.md"
    note.parent.mkdir(parents=True)
    note.write_bytes(text.encode("utf-8"))
    with Ledger(db) as ledger:
        told = story(ledger, tmp_path / "Journals")
    harm = next(where for kind, where, _ in told if kind == "harm.suffered")
    assert harm == f"Arc 1/Session 1.md:{harm_line}"


def test_notes_in_sub_folders_are_read_in_natural_order_of_their_paths(tmp_path: Path) -> None:
    for name in ("Arc 2/Session 10.md", "Arc 2/Session 9.md", "Arc 10/Session 1.md", "Z.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    found = [name for name, _ in notes.note_files([tmp_path])]
    assert found == ["Arc 2/Session 9.md", "Arc 2/Session 10.md", "Arc 10/Session 1.md", "Z.md"]


@pytest.mark.parametrize(
    ("move", "meter"),
    [
        ('move "Endure Harm"', "health"),
        ('move "[Endure Harm](move:EndureHarm)"', "Health"),
        ('move "[Endure Harm](datasworn:move:classic\\/suffer\\/endure_harm)"', "Health"),
        ('move "[Endure Harm](datasworn:move:starforged\\/suffer\\/endure_harm)"', "Health"),
        ('move "[Endure Harm](id:starforged/moves/suffer/endure_harm)"', "health"),
        ('move id="move:starforged/suffer/endure_harm"', "HEALTH"),
        ('move id="ironsworn/moves/suffer/endure_harm"', "health"),
        ('move name="Endure Harm"', "Health"),
        (
            'move "[Endure Stress](move:starforged/suffer/endure_stress)" '
            'id="move:starforged/suffer/endure_harm"',
            "health",
        ),
    ],
    ids=[
        "name",
        "old-move-link",
        "classic-datasworn-link",
        "starforged-datasworn-link",
        "datasworn-1-id-link",
        "id-property",
        "datasworn-1-id",
        "name-property",
        "the-id-wins-over-the-label",
    ],
)
def test_endure_harm_is_read_in_every_spelling_of_its_move_and_meter(
    db: Path, tmp_path: Path, move: str, meter: str
) -> None:
    block = (
        f'{move} {{\n    meter "{meter}" from=5 to=3\n'
        '    roll "iron" 6 3 0 1 2 // <stat-name> <action> <stat> <adds> <vs1> <vs2>\n'
        f'    meter "{meter}" 3 4\n}}'
    )
    told, _, kira = block_read(db, tmp_path, block)
    assert kinds(told) == [
        "combatant.joined",
        "tracks.noted",
        "harm.suffered",
        "roll.made",
        "tracks.noted",
        "choice.made",
    ]
    assert told[3][2]["move"] == "endure_harm"
    assert kira["health"] == 4


#: Every node Iron Vault documents or writes that the ledger does not model, as it writes them.
KEPT_NODES = (
    ('progress "[[Progress/Vow.md|Vow]]" from=8 rank="dangerous" steps=1', "progress"),
    ('progress-roll name="[[Progress/Vow.md|Vow]]" score=5 vs1=6 vs2=7', "progress-roll"),
    ('track "[[Progress/Vow.md|Vow]]" status="added"', "track"),
    ('track "Vow" from-boxes=3 from-ticks=2 to-boxes=4 to-ticks=1', "track"),
    ('clock "[[Clocks/Doom.md|Doom]]" from=3 to=5 out-of=6', "clock"),
    ('clock "[[Clocks/Doom.md|Doom]]" status="resolved"', "clock"),
    ("xp from=3 to=5", "xp"),
    ('asset "[Empath](asset:Empath)" status="upgraded" ability=1', "asset"),
    ('initiative "has initiative" "no initiative"', "initiative"),
    ('position from="in a bad spot" to="out of combat"', "position"),
    (
        'oracle "[Action](datasworn:oracle_rollable:starforged\\/core\\/action)" roll=34 '
        'result="Bolster" cursed=3 replaced=true',
        "oracle",
    ),
    (
        'oracle-group name="Character Name" { oracle "Given Name" roll=30 result="Eren" }',
        "oracle-group",
    ),
    ('- "A prompt" { oracle "Given Name" roll=30 result="Eren" }', "-"),
    ('add 2 "Bond with [[Ash]]"', "add"),
    ('dice-expr expr="1d6 + 1" result=5 { rolls 4 dice="1d6" }', "dice-expr"),
    ('die-roll "Cursed die" 7', "die-roll"),
    ('roll "heart" action=3 stat=2 adds=1 score=6 vs1=3 vs2=7', "roll"),
    ("burn from=5 to=2", "burn"),
    ("reroll action=5", "reroll"),
    ('meter "Kindred / Health" from=3 to=2', "meter"),
    ('meter "Integrity" from=5 to=4', "meter"),
    ('impact "Overheated" true', "impact"),
    ('something-new 1 "two" three=3', "something-new"),
)


def test_every_node_the_ledger_does_not_model_is_kept_as_a_counted_note_with_its_line(
    db: Path, tmp_path: Path
) -> None:
    block = "\n".join(node for node, _ in KEPT_NODES)
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
        records = ledger.records("saga")[1:]
    assert [r.type for r in records] == ["note"] * len(KEPT_NODES)
    assert [events.origin(r.event) for r in records] == [
        f"Session 1.md:{6 + n}" for n in range(len(KEPT_NODES))
    ]
    texts = [events.body_of(r.event)["text"] for r in records]
    assert (
        texts[11]
        == 'oracle-group name="Character Name" { oracle "Given Name" roll=30 result="Eren" }'
    )
    assert texts[-1] == 'something-new 1 "two" three=3'
    counted: dict[str, int] = {}
    for _, kind in KEPT_NODES:
        counted[kind] = counted.get(kind, 0) + 1
    assert dict(result.kept) == counted


NODE_NAMES = (
    "move",
    "actor",
    "roll",
    "meter",
    "burn",
    "reroll",
    "impact",
    "oracle",
    "outcome",
    "progress-roll",
    "progress",
    "track",
    "clock",
    "xp",
    "add",
    "-",
    "asset",
    "initiative",
)
VALUES = st.one_of(
    st.integers(-12, 120),
    st.sampled_from(
        ["health", "Iron", "momentum", "Endure Harm", "marked", "unmarked", "6", "0", "", "x"]
    ),
    st.booleans(),
    st.none(),
)
PROPS = ("name", "stat-name", "action", "stat", "adds", "vs1", "vs2", "from", "to", "roll")


def kdl(value: object) -> str:
    return "null" if value is None else json.dumps(value)


@st.composite
def nodes(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(st.sampled_from(NODE_NAMES))
    args = [kdl(v) for v in draw(st.lists(VALUES, max_size=6))]
    props = draw(st.dictionaries(st.sampled_from(PROPS), VALUES, max_size=4))
    text = " ".join([name, *args, *(f"{k}={kdl(v)}" for k, v in props.items())])
    if depth < 2 and name in ("move", "actor") and draw(st.booleans()):
        children = draw(st.lists(nodes(depth + 1), min_size=1, max_size=5))
        text += " {\n" + "\n".join(children) + "\n}"
    return text


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(nodes(), min_size=1, max_size=6))
def test_any_block_of_iron_vault_s_nodes_imports_or_is_one_line_of_bad_input(
    block: list[str],
) -> None:
    """Whatever values a journal's nodes hold: the events they mean, or one line naming the
    note and line; never a traceback."""
    with tempfile.TemporaryDirectory() as folder:
        note = note_of(Path(folder), "\n".join(block))
        with Ledger(Path(folder) / "ledger.db") as ledger:
            try:
                ledger.import_iron_vault([note], into="saga", character="Kira")
            except BadInput as refused:
                assert str(refused).startswith(("Session 1.md:", "the mechanics blocks"))
                assert "\n" not in str(refused)
                assert ledger.encounters() == []


def test_a_move_made_with_skip_roll_and_nothing_under_it_is_kept_as_a_note(
    db: Path, tmp_path: Path
) -> None:
    """`Make a move` with "Skip roll" writes the move alone; an actor may hold nothing."""
    block = f'move "{ENDURE}"\nactor name="[[Characters/Ash.md|Ash]]"'
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault([note_of(tmp_path, block)], into="saga", character="Kira")
        texts = [events.body_of(r.event)["text"] for r in ledger.records("saga")[1:]]
    assert dict(result.kept) == {"move": 1, "actor": 1}
    assert texts == [f'move "{ENDURE}"', 'actor name="[[Characters/Ash.md|Ash]]"']


def test_a_journal_whose_blocks_are_empty_is_one_line_of_bad_input(
    db: Path, tmp_path: Path
) -> None:
    with Ledger(db) as ledger, pytest.raises(BadInput) as refused:
        ledger.import_iron_vault([note_of(tmp_path, "")], into="saga", character="Kira")
    assert str(refused.value) == "the mechanics blocks hold no node to import: nothing to import"


# Inline mechanics (Iron Vault's "Use inline mechanics" setting): `iv-...` code spans in prose.


def inline_note(tmp_path: Path, text: str) -> Path:
    note = tmp_path / "Session 1.md"
    note.write_text(text, encoding="utf-8")
    return note


def test_inline_endure_harm_is_read_like_its_block(db: Path, tmp_path: Path) -> None:
    text = (
        "# Session 1\n\n"
        "The wight strikes `iv-meter:Health|5|3` and Kira braces.\n"
        "`iv-move:Endure Harm|iron|5|3|0|2|6|move:classic/suffer/endure_harm` She shrugs it off\n"
        "`iv-meter:Health|3|4` `iv-meter:Momentum|3|2` and stands.\n"
    )
    with Ledger(db) as ledger:
        told = story(ledger, inline_note(tmp_path, text))
        found = [f.rule for f in ledger.audit("saga")]
    assert [(kind, where) for kind, where, _ in told] == [
        ("combatant.joined", "Session 1.md:3"),
        ("tracks.noted", "Session 1.md:3"),
        ("harm.suffered", "Session 1.md:3"),
        ("roll.made", "Session 1.md:4"),
        ("tracks.noted", "Session 1.md:5"),
        ("tracks.noted", "Session 1.md:5"),
        ("choice.made", "Session 1.md:5"),
    ]
    roll = told[3][2]
    assert (roll["move"], roll["stat"], roll["action_die"], roll["challenge"]) == (
        "endure_harm",
        "iron",
        5,
        [2, 6],
    )
    assert found == ["journal-start"]


def test_an_inline_move_s_burn_and_reroll_are_read(db: Path, tmp_path: Path) -> None:
    text = (
        "`iv-move:Face Danger|edge|1|2|0|5|9|move:starforged/adventure/face_danger|burn=8:2`\n"
        "`iv-move:Clash|iron|1|2|1|3|7|move:starforged/combat/clash|adds=1(Asset)`"
        " `iv-reroll:action|1|6|iron|2|1|3|7|6`\n"
    )
    with Ledger(db) as ledger:
        told = story(ledger, inline_note(tmp_path, text))
    assert kinds(told)[1:] == [
        "tracks.noted",
        "roll.made",
        "momentum.burned",
        "tracks.noted",
        "roll.made",
        "note",
    ]
    clash = told[5][2]
    assert (clash["action_die"], clash["adds"], clash["outcome"]) == (6, 1, "strong_hit")


def test_inline_mechanics_the_ledger_does_not_model_are_kept_as_counted_notes(
    db: Path, tmp_path: Path
) -> None:
    spans = [
        "iv-progress:Fulfill Your Vow|My Vow|7|3|9|Progress/My Vow.md",
        "iv-noroll:Begin a Session|move:starforged/session/begin_a_session",
        "iv-oracle:Action|45|Bolster|oracle:starforged/core/action",
        "iv-track-create:My Vow|Progress/My Vow.md",
        "iv-track-advance:My Vow|Progress/My Vow.md|4|8|dangerous|2",
        "iv-clock-advance:Doom|Clocks/Doom.md|2|4|2|6|odds=Likely:45:Yes",
        "iv-initiative:Position|in control|in a bad spot",
        "iv-entity-create:NPC|Kira Vex|Entities/Kira Vex.md",
        "iv-dice:2d6+1|8",
        "iv-action-roll:iron|4|2|1|3|7",
        "iv-ooc:Need to look up the rules",
        "iv-move:Strike|iron|four|2|1|3|7",
        "iv-meter:Kindred / Health|3|2",
    ]
    text = (
        "Prose " + " and ".join(f"`{s}`" for s in spans) + ".\n\nMore `code` and ``iv-x`` prose.\n"
    )
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault(
            [inline_note(tmp_path, text)], into="saga", character="Kira"
        )
        texts = [events.body_of(r.event)["text"] for r in ledger.records("saga")[1:]]
    assert texts == spans
    assert dict(result.kept) == {
        "iv-progress": 1,
        "iv-noroll": 1,
        "oracle": 1,
        "iv-track-create": 1,
        "iv-track-advance": 1,
        "iv-clock-advance": 1,
        "iv-initiative": 1,
        "iv-entity-create": 1,
        "iv-dice": 1,
        "roll": 1,
        "iv-ooc": 1,
        "iv-move": 1,
        "meter": 1,
    }


def test_inline_mechanics_and_blocks_of_one_note_are_read_in_the_order_written(
    db: Path, tmp_path: Path
) -> None:
    text = (
        "`iv-meter:Health|5|4`\n\n```iron-vault-mechanics\n"
        'meter "Health" from=4 to=3\n```\n\n`iv-meter:Health|3|2` and `iv-meter:Spirit|5|4`\n'
        "```mechanics\nfoo\n```\n"
        "> [!note]\n> `iv-meter:Supply|5|4`\n"
        "```text\n`iv-meter:Supply|4|3` is code, not a mechanic\n```\n"
    )
    with Ledger(db) as ledger:
        told = story(ledger, inline_note(tmp_path, text))
    changes = [(where, body.get("meter")) for kind, where, body in told if kind == "meter.changed"]
    assert changes == [
        ("Session 1.md:1", "health"),
        ("Session 1.md:4", "health"),
        ("Session 1.md:7", "health"),
        ("Session 1.md:7", "spirit"),
        ("Session 1.md:12", "supply"),
    ]
    assert kinds(told).count("note") == 1  # foo


INLINE_KINDS = (
    "iv-move",
    "iv-action-roll",
    "iv-meter",
    "iv-burn",
    "iv-reroll",
    "iv-oracle",
    "iv-ooc",
)
PARTS = st.one_of(
    st.integers(-12, 120).map(str),
    st.sampled_from(["Endure Harm", "health", "Health", "iron", "action", "vs1", "burn=8:2", ""]),
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(INLINE_KINDS), st.lists(PARTS, max_size=9)),
        min_size=1,
        max_size=6,
    )
)
def test_any_run_of_inline_mechanics_imports_or_is_one_line_of_bad_input(
    found: list[tuple[str, list[str]]],
) -> None:
    text = " ".join(f"`{kind}:{'|'.join(parts)}`" for kind, parts in found)
    with tempfile.TemporaryDirectory() as folder:
        note = inline_note(Path(folder), f"Prose {text}\n")
        with Ledger(Path(folder) / "ledger.db") as ledger:
            try:
                ledger.import_iron_vault([note], into="saga", character="Kira")
            except BadInput as refused:
                assert str(refused).startswith("Session 1.md:1: ")
                assert ledger.encounters() == []


def test_a_vault_s_hidden_folders_are_not_read_and_ties_of_natural_order_are_broken_by_name(
    tmp_path: Path,
) -> None:
    """Obsidian keeps deleted notes in `.trash` and its settings in `.obsidian`, and reads no
    dot-folder: neither does the import. `Session 02` and `Session 2` sort alike by number:
    their names decide, so the order is the same on every file system."""
    for name in (".trash/Session 3.md", ".obsidian/x.md", "Session 2.md", "Session 02.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x", encoding="utf-8")
    found = [name for name, _ in notes.note_files([tmp_path])]
    assert found == ["Session 02.md", "Session 2.md"]


#: The example at the top of Iron Vault's "Mechanics Blocks" page, as it is written there.
DOCS_EXAMPLE = """\
move id="move:starforged/adventure/face_danger" {
\tadd 1 "because I'm cool [[Ash Barlowe]]"
\troll "shadow" 1 3 1 9 9 // <statname> <action-die> <stat> <adds> <vs1> <vs2>
}
- "Oh nooo. This is gonna hurt. Time to [Endure Harm](move:EndureHarm)."
move "Endure Harm" {
    meter "health" from=3 to=2
    roll "health" action=3 stat=4 adds=0 vs1=3 vs2=8
    meter "momentum" from=7 to=6
    meter "health" from=2 to=3
}
move "Undertake an Expedition" {
    roll action=3 stat=1 adds=0 vs1=3 vs2=5
    reroll action=1 vs1=6
    burn from=10 to=2
}"""


def test_iron_vault_s_own_example_is_read_and_its_inconsistencies_found(
    db: Path, tmp_path: Path
) -> None:
    """The example rolls +health 4 right after health went to 2, then shakes it off after a
    weak hit: the audit says both, with their lines."""
    with Ledger(db) as ledger:
        result = ledger.import_iron_vault(
            [note_of(tmp_path, DOCS_EXAMPLE)], into="saga", character="Kira"
        )
        records = ledger.records("saga")
        found = {f.rule: f.message for f in ledger.audit("saga")}
    told = [(r.type, events.origin(r.event)) for r in records[1:]]
    assert told == [
        ("note", "Session 1.md:7"),
        ("combatant.joined", "Session 1.md:8"),
        ("roll.made", "Session 1.md:8"),
        ("note", "Session 1.md:10"),
        ("tracks.noted", "Session 1.md:12"),
        ("harm.suffered", "Session 1.md:12"),
        ("tracks.noted", "Session 1.md:13"),
        ("roll.made", "Session 1.md:13"),
        ("tracks.noted", "Session 1.md:14"),
        ("tracks.noted", "Session 1.md:15"),
        ("choice.made", "Session 1.md:14"),
        ("note", "Session 1.md:18"),
        ("note", "Session 1.md:19"),
        ("note", "Session 1.md:20"),
    ]
    assert dict(result.kept) == {"add": 1, "-": 1, "roll": 1, "reroll": 1, "burn": 1}
    assert found["journal-disagrees"] == (
        "Session 1.md:13 says 'Kira' health is 4 here; the ledger has 2 (seq 8)"
    )
    assert "follows a weak hit" in found["shake-it-off-allowed"]


def test_an_inline_move_holds_the_spans_after_it_in_its_paragraph_only(
    db: Path, tmp_path: Path
) -> None:
    """A momentum loss a paragraph after an inline Endure Harm's strong hit is a change of
    its own, not the move's Shake it off."""
    text = (
        "`iv-meter:Health|5|3` `iv-move:Endure Harm|iron|5|3|0|2|6|move:classic/suffer/endure_harm`"
        "\n\nLater, Kira pays for it `iv-meter:Momentum|2|1`\n"
    )
    with Ledger(db) as ledger:
        told = story(ledger, inline_note(tmp_path, text))
    assert [(kind, where) for kind, where, _ in told[-3:]] == [
        ("roll.made", "Session 1.md:1"),
        ("tracks.noted", "Session 1.md:3"),
        ("meter.changed", "Session 1.md:3"),
    ]


LINE_PARTS = st.sampled_from(
    [
        "",
        "> ",
        ">",
        "> > ",
        "    ",
        "\t",
        "- ",
        "```iron-vault-mechanics",
        "```mechanics",
        "````iron-vault-mechanics",
        "```",
        "````",
        "~~~iron-vault-mechanics",
        "~~~",
        "```text",
        'meter "health" from=5 to=3',
        "xp 1 2",
        'oracle "A" 3 "b" { oracle "C" 1 "d" }',
        "Prose `iv-meter:Spirit|5|4` and `iv-ooc:hi`.",
        "`iv-move:Strike|iron|4|2|1|3|7`",
        "1. ",
        "```code``` ",
    ]
)


@settings(max_examples=300)
@given(st.lists(st.lists(LINE_PARTS, min_size=1, max_size=3).map("".join), max_size=14))
def test_every_node_read_from_any_note_is_on_the_line_it_names(lines: list[str]) -> None:
    """Whatever a note's callouts, lists and fences: its nodes are read with lines that hold
    them (or the note is one line of bad input), never a traceback."""
    text = "\n".join(lines) + "\n"
    try:
        read = list(notes.blocks("N.md", text))
    except BadInput as refused:
        assert str(refused).startswith("N.md:")
        return
    written = text.splitlines()

    def check(node: Node, parent: str = "") -> None:
        held = written[node.line - 1]
        if node.text.startswith("iv-"):
            assert node.text in held
        elif parent.startswith("iv-"):  # an inline move's roll or burn: on the move's line
            assert parent in held
        else:
            assert node.name in held.lower()
        for child in node.children:
            check(child, node.text)

    for block in read:
        for node in block.nodes:
            check(node)


@pytest.mark.parametrize("prose", ["```inline code``` in prose", "- ```code``` in a list"])
def test_inline_code_in_triple_backticks_opens_no_fence(
    db: Path, tmp_path: Path, prose: str
) -> None:
    """A backtick fence's info string holds no backtick (CommonMark): such a line is inline
    code, and the block after it is read."""
    note = tmp_path / "Session 1.md"
    note.write_text(prose + "\n\n" + "\n".join(fenced("")) + "\n", encoding="utf-8")
    with Ledger(db) as ledger:
        told = story(ledger, note)
    assert ("harm.suffered", "Session 1.md:5") in [(kind, where) for kind, where, _ in told]


def test_a_health_loss_written_after_the_endure_harm_roll_is_its_harm_before_it(
    db: Path, tmp_path: Path
) -> None:
    """*Make a move* rolls at once; *Suffer on a meter* afterwards appends the health loss
    under the roll. The rules suffer the harm first: it is the move's harm, before its roll,
    with the journal's line."""
    block = (
        'move "[Endure Harm](datasworn:move:starforged/suffer/endure_harm)" {\n'
        '    roll "iron" action=5 adds=0 stat=3 vs1=2 vs2=6\n    meter "Health" from=5 to=3\n'
        '    meter "Momentum" from=3 to=4\n}'
    )
    told, audited, _ = block_read(db, tmp_path, block)
    found = [f.rule for f in audited]
    assert [(kind, where) for kind, where, _ in told[1:]] == [
        ("tracks.noted", "Session 1.md:8"),
        ("harm.suffered", "Session 1.md:8"),
        ("roll.made", "Session 1.md:7"),
        ("tracks.noted", "Session 1.md:9"),
        ("choice.made", "Session 1.md:9"),
    ]
    assert found == ["journal-start"]


def test_a_health_roll_made_before_the_harm_it_follows_is_found(db: Path, tmp_path: Path) -> None:
    """Rolled +health 5 and then suffered 2 harm: the roll should have been +health 3."""
    block = (
        f'move "{ENDURE}" {{\n    roll "health" action=1 adds=0 stat=5 vs1=5 vs2=6\n'
        '    meter "Health" from=5 to=3\n}'
    )
    told, audited, _ = block_read(db, tmp_path, block)
    found = {f.rule: f.message for f in audited}
    assert kinds(told)[1:] == ["tracks.noted", "harm.suffered", "tracks.noted", "roll.made"]
    assert found["journal-disagrees"] == (
        "Session 1.md:7 says 'Kira' health is 5 here; the ledger has 3 (seq 5)"
    )


def test_after_a_missed_roll_the_momentum_loss_after_the_harm_is_the_miss_s(
    db: Path, tmp_path: Path
) -> None:
    block = (
        f'move "{ENDURE}" {{\n    roll "iron" action=1 adds=0 stat=1 vs1=5 vs2=6\n'
        '    meter "Health" from=1 to=0\n    meter "Momentum" from=3 to=2\n}'
    )
    told, _, kira = block_read(db, tmp_path, block)
    harm = next(body for kind, _, body in told if kind == "harm.suffered")
    assert harm["amount"] == 1
    assert (kira["health"], kira["momentum"]) == (0, 2)
    assert "meter.changed" not in kinds(told)


def test_a_health_loss_closing_the_move_before_endure_harm_is_its_harm(
    db: Path, tmp_path: Path
) -> None:
    """*Suffer on a meter* appends to the last move of the block: the harm of a Face Danger
    miss lands under Face Danger, and Endure Harm follows it."""
    block = (
        'move "[Face Danger](datasworn:move:classic/adventure/face_danger)" {\n'
        '    roll "edge" action=1 adds=0 stat=2 vs1=5 vs2=6\n    meter "Health" from=5 to=3\n}\n'
        f'move "{ENDURE}" {{\n    roll "iron" action=5 adds=0 stat=3 vs1=2 vs2=6\n}}'
    )
    told, audited, _ = block_read(db, tmp_path, block)
    found = [f.rule for f in audited]
    assert [(kind, where) for kind, where, _ in told[1:]] == [
        ("roll.made", "Session 1.md:7"),
        ("tracks.noted", "Session 1.md:8"),
        ("harm.suffered", "Session 1.md:8"),
        ("roll.made", "Session 1.md:11"),
    ]
    assert found == ["journal-start", "obligation-open"]  # the strong hit's choice


def test_a_health_loss_under_a_move_not_followed_by_endure_harm_stays_a_change(
    db: Path, tmp_path: Path
) -> None:
    block = (
        'move "Face Danger" {\n    roll "edge" action=1 adds=0 stat=2 vs1=5 vs2=6\n'
        '    meter "Health" from=5 to=3\n}\nmove "Face Danger" {\n'
        '    roll "edge" action=1 adds=0 stat=2 vs1=5 vs2=6\n}'
    )
    told, _, _ = block_read(db, tmp_path, block)
    assert "harm.suffered" not in kinds(told)
    assert kinds(told).count("meter.changed") == 1


def test_a_harm_added_under_an_endure_harm_roll_already_imported_is_refused(
    db: Path, tmp_path: Path
) -> None:
    roll = f'move "{ENDURE}" {{\n    roll "iron" action=5 adds=0 stat=3 vs1=2 vs2=6\n'
    with Ledger(db) as ledger:
        story(ledger, note_of(tmp_path, roll + "}"))
        before = ledger.records("saga")
        grown = note_of(tmp_path, roll + '    meter "Health" from=5 to=3\n}')
        with pytest.raises(BadInput, match=r"^Session 1\.md:8: the journal changed where"):
            ledger.import_iron_vault([grown], into="saga", character="Kira")
        assert ledger.records("saga") == before


@pytest.mark.parametrize(
    "lines",
    [
        ["%%", *fenced(""), "%%"],
        ["Kira falls. %% the GM took this back:", *fenced(""), "%% and on we go."],
        ["> [!danger] The wight", "> %%", *fenced("> "), "> %%"],
        ["%% `iv-meter:Health|5|3` %% She ducks."],
    ],
    ids=["comment-around-a-block", "comment-opened-in-prose", "in-a-callout", "inline"],
)
def test_what_an_obsidian_comment_hides_is_not_read(
    db: Path, tmp_path: Path, lines: list[str]
) -> None:
    """Obsidian shows nothing between `%%` and `%%`, and Iron Vault renders none of it: a
    player comments a block out to take it back."""
    note = tmp_path / "Session 1.md"
    note.write_text("\n".join([*lines, "", *fenced("")]) + "\n", encoding="utf-8")
    with Ledger(db) as ledger:
        told = story(ledger, note)
    # Only the block after the comment is read: one harm, and every event from its lines.
    assert kinds(told).count("harm.suffered") == 1
    after = len(lines) + 2  # the fence of the block after the comment
    assert all(int(str(where).rsplit(":", 1)[1]) > after for _, where, _ in told[1:])


def test_a_double_percent_inside_a_block_is_its_text_not_a_comment() -> None:
    lines = ["```iron-vault-mechanics", 'oracle name="100%% sure" result="Yes" roll=7', "```"]
    assert notes.uncommented([*lines, "after %% hidden %% shown"]) == [*lines, "after  shown"]
