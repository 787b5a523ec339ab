"""Names that look alike are one name or none (issue #23): every text of a new event is stored
composed (NFC), so "Café" typed either way is one combatant; a combatant whose name looks like
one already in the encounter (Unicode's confusables, UTS #39) is refused, naming both."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from ledger import BadInput, Ledger
from ledger.events import lookalike
from ledger.store import chain
from tests.cli.invoke import run

COMPOSED = "Caf\u00e9"  # é as one code point
DECOMPOSED = "Cafe\u0301"  # e and a combining acute accent
LATIN = "Bandit"
CYRILLIC = "Band\u0456t"  # a Cyrillic і


@pytest.fixture
def ford(db: Path) -> Path:
    with Ledger(db) as ledger:
        ledger.open("ford", "ssss")
        ledger.join("ford", LATIN, "adversary", {"level": 2})
        ledger.join("ford", DECOMPOSED, "player")
    return db


def test_a_name_typed_decomposed_is_stored_composed_and_both_forms_are_one_combatant(
    ford: Path,
) -> None:
    with Ledger(ford, readonly=True) as ledger:
        assert list(ledger.tracks("ford").combatants) == [LATIN, COMPOSED]
    code, _, err = run(ford, "add", "ford", COMPOSED, "--side", "player")
    assert (code, err) == (2, f"Error: combatant {COMPOSED!r} already joined encounter 'ford'\n")
    code, out, _ = run(ford, "record", "ford", "harm.inflicted", f"target={DECOMPOSED}", "level=2")
    assert code == 0 and out.startswith("Recorded seq 4: harm.inflicted\n")
    with Ledger(ford, readonly=True) as ledger:
        assert ledger.tracks("ford").combatants[COMPOSED].view()["harm"]


def test_a_lookalike_of_a_combatant_is_refused_naming_both(ford: Path) -> None:
    code, out, err = run(ford, "add", "ford", CYRILLIC, "--side", "adversary", "--stat", "level=1")
    assert (code, out) == (2, "")
    assert err == (
        f"Error: combatant name {CYRILLIC!r} looks like 'Bandit', already in encounter 'ford' "
        "(U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I where 'Bandit' has U+0069 LATIN "
        "SMALL LETTER I): choose a name that does not\n"
    )
    with Ledger(ford) as ledger, pytest.raises(BadInput, match="looks like 'Bandit'"):
        ledger.join("ford", CYRILLIC, "adversary", {"level": 1})


def test_a_name_that_differs_from_a_combatant_only_in_case_is_refused_naming_both(
    ford: Path,
) -> None:
    """`bandit` beside `Bandit` is the same person to the table: a second combatant would take
    the harm meant for the first."""
    code, out, err = run(ford, "add", "ford", "BANDIT", "--side", "adversary", "--stat", "level=1")
    assert (code, out) == (2, "")
    assert err == (
        "Error: combatant name 'BANDIT' differs only in case from 'Bandit', already in "
        "encounter 'ford': name 'Bandit' to mean them, or choose a name that differs\n"
    )
    with Ledger(ford) as ledger:
        before = len(ledger.records("ford"))
        with pytest.raises(BadInput, match="differs only in case from 'Bandit'"):
            ledger.join("ford", "bandit", "adversary", {"level": 1})
        assert len(ledger.records("ford")) == before
        ledger.join("ford", "Bandit Chief", "adversary", {"level": 2})  # a name of its own


def test_a_hand_written_file_with_a_lookalike_is_refused_an_export_keeps_what_it_holds(
    ford: Path, tmp_path: Path
) -> None:
    joined = {"type": "combatant.joined", "name": CYRILLIC, "side": "player"}
    source = tmp_path / "more.jsonl"
    source.write_text(json.dumps(joined) + "\n", encoding="utf-8")
    code, _, err = run(ford, "import", str(source), "--into", "ford")
    assert code == 2 and "looks like 'Bandit'" in err
    # A chained export of a ledger that already held both (written before this check) is a
    # copy of what was stored, not a new name: it imports as it is.
    with Ledger(tmp_path / "old.db") as old:
        old.open("ford", "ssss")
        old.join("ford", LATIN, "adversary", {"level": 2})
        with old.store.begin("ford") as txn:
            body = {"name": CYRILLIC, "side": "player", "stats": {}}
            txn.append("combatant.joined", chain.canonical(body))
        exported = list(old.export("ford"))
    copy = tmp_path / "copy.jsonl"
    copy.write_text("\n".join(exported) + "\n", encoding="utf-8")
    assert run(tmp_path / "new.db", "import", str(copy))[0] == 0


def test_the_skeleton_makes_lookalikes_equal_and_different_names_different() -> None:
    assert lookalike.skeleton(LATIN) == lookalike.skeleton(CYRILLIC)
    assert lookalike.skeleton("paypal") == lookalike.skeleton("\u0440aypal")  # Cyrillic р
    assert lookalike.skeleton("Guard 0") == lookalike.skeleton("Guard O")
    assert lookalike.skeleton(COMPOSED) == lookalike.skeleton(DECOMPOSED)
    for a, b in (("Ash", "Ask"), ("Guard 1", "Guard 2"), ("Oni", "Ono"), ("Band1t", LATIN)):
        assert lookalike.skeleton(a) != lookalike.skeleton(b), (a, b)
    assert lookalike.lookalike(CYRILLIC, [COMPOSED, LATIN]) == LATIN
    assert lookalike.lookalike(LATIN, [LATIN, COMPOSED]) is None


def test_every_text_of_a_new_event_is_stored_composed(ford: Path) -> None:
    run(ford, "record", "ford", "note", f"text=un {DECOMPOSED} noir")
    with Ledger(ford, readonly=True) as ledger:
        text = ledger.records("ford")[-1].event.text  # type: ignore[attr-defined]
    assert text == f"un {COMPOSED} noir" == unicodedata.normalize("NFC", text)


def test_history_finds_a_combatant_named_either_way(ford: Path) -> None:
    run(ford, "record", "ford", "harm.inflicted", f"target={COMPOSED}", "level=1")
    code, out, _ = run(ford, "history", "ford", DECOMPOSED)
    assert code == 0 and f"{COMPOSED} takes level-1 harm" in out
