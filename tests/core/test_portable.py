"""Hashes another language can reproduce: new events hold only values every language writes
alike, and `docs/verify.js` (node, no packages) recomputes the same chain as `verify`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ledger import BadInput, Ledger, cli, dice, events, systems
from ledger.events import portable
from ledger.store.chain import GENESIS, chain_hash
from tests import paths
from tests.conftest import missing

ROOT = paths.ROOT
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))
VERIFY_JS = ROOT / "docs" / "verify.js"
NODE = shutil.which("node")


@pytest.fixture
def node() -> str:
    """The path of node (the test is skipped without it, and fails under `.ci/run`)."""
    if NODE is None:
        missing("node is not installed (Debian's nodejs package; .ci/run installs it)")
    return NODE


runner = CliRunner()


def exported(example: Path, tmp_path: Path) -> Path:
    """The example imported into a fresh ledger and exported, envelope and hashes included."""
    out = tmp_path / f"{example.stem}.export.jsonl"
    with Ledger(tmp_path / "e.db") as book:
        book.import_lines(example.read_text(encoding="utf-8").splitlines())
        name = book.encounters()[0].encounter
        out.write_text("".join(line + "\n" for line in book.export(name)), encoding="utf-8")
    return out


def node_verify(path: Path) -> tuple[int, str]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(VERIFY_JS), str(path)], capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout


@pytest.mark.usefixtures("node")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_node_verifier_agrees_with_verify_on_every_example(
    example: Path, tmp_path: Path
) -> None:
    export = exported(example, tmp_path)
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 0
    assert node_verify(export) == (0, ours.stdout)


@pytest.mark.usefixtures("node")
def test_the_node_verifier_names_the_seq_an_edit_breaks(tmp_path: Path) -> None:
    export = exported(ROOT / "examples" / "ssss-bandits.jsonl", tmp_path)
    lines = export.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[5])
    edited["level"] = edited.get("level", 0) + 1
    lines[5] = json.dumps(edited)
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 1
    assert node_verify(export) == (1, ours.stdout)


@pytest.mark.usefixtures("node")
def test_text_in_any_script_hashes_alike_in_node(tmp_path: Path) -> None:
    names = ["Ωmega", "𝔊host 👻", "ｆｕｌｌ", 'quote " and \\ back', "Ⅻ ⅻ"]
    texts = ["tab\there", "\u2028line", "\x7f\x01\x1f", "𝔊 \ufffd"]
    with Ledger(tmp_path / "e.db") as book:
        book.open("ünïcode", "ssss", title="😀 ✓")
        for name in names:
            book.join(
                "ünïcode", name, "player", {"tags": texts, name: name, **dict.fromkeys(texts, 1)}
            )
        export = tmp_path / "u.jsonl"
        export.write_text("".join(f"{line}\n" for line in book.export("ünïcode")), "utf-8")
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 0
    assert node_verify(export) == (0, ours.stdout)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1e16, "field 'stats.reach': 1e+16 is beyond 2^53 - 1"),
        (2**60, f"field 'stats.reach': {2**60} is beyond 2^53 - 1"),
        (2.5, "field 'stats.reach': 2.5 is not a whole number"),
        ([1, 0.1], "field 'stats.reach[1]': 0.1 is not a whole number"),
    ],
)
def test_a_number_other_languages_would_hash_differently_is_refused(
    ledger: Ledger, value: object, expected: str
) -> None:
    ledger.open("ford", "ssss")
    with pytest.raises(BadInput, match=re.escape(expected)):
        ledger.join("ford", "Ash", "player", {"reach": value})
    assert ledger.tracks("ford").seq == 1


def test_a_whole_float_is_stored_as_the_integer_it_is(ledger: Ledger) -> None:
    ledger.open("ford", "ssss")
    ledger.join("ford", "Ash", "player", {"reach": 3.0})
    [line] = [json.loads(x) for x in ledger.export("ford")][1:]
    assert line["stats"]["reach"] == 3 and isinstance(line["stats"]["reach"], int)


@given(st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1))
def test_every_safe_integer_is_accepted_unchanged(number: int) -> None:
    from ledger.events.portable import portable_fields

    assert portable_fields({"n": number, "m": [number]}, "x") == {"n": number, "m": [number]}


@pytest.mark.usefixtures("node")
def test_the_node_verifier_reads_log_json_lines_with_their_annotations(tmp_path: Path) -> None:
    with Ledger(tmp_path / "e.db") as book:
        book.open("ford", "ssss")
        book.join("ford", "Ash", "player")
        book.record("ford", {"type": "note", "text": "first"})
        book.amend("ford", 3, {"text": "the first"}, reason="typo")
        book.undo("ford", 2, reason="no")
    logged = runner.invoke(cli.app, ["--db", str(tmp_path / "e.db"), "log", "ford", "--json"])
    assert "corrected_by" in logged.stdout and "retracted_by" in logged.stdout
    export = tmp_path / "log.jsonl"
    export.write_text(logged.stdout, encoding="utf-8")
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 0
    assert node_verify(export) == (0, ours.stdout)


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)))
def test_a_text_is_refused_exactly_when_it_holds_a_surrogate_code_point(text: str) -> None:
    holds = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    try:
        systems.parse({"type": "note", "text": text}, "ssss")
    except BadInput as exc:
        assert holds, str(exc)
        assert "lone surrogate" in str(exc)
    else:
        assert not holds


@given(
    st.dictionaries(
        st.text(max_size=5),
        st.recursive(
            st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=8,
        ),
        max_size=4,
    )
)
def test_a_stat_block_validates_the_same_by_orjson_as_by_the_stdlib(
    stats: dict[str, object],
) -> None:
    joined = {"type": "combatant.joined", "name": "Wren", "side": "player", "stats": stats}
    model = type(systems.parse({**joined, "stats": {}}, "ssss"))
    by_stdlib = model.model_validate_json(json.dumps(joined))
    assert systems.parse(joined, "ssss") == by_stdlib


def dice_fight(book: Ledger, reveal: bool) -> None:
    """fates-edge `ford` with dice the ledger rolled under a commitment, revealed or not (and
    a rewind, whose log lines carry `rewound_by`)."""
    book.open("ford", "fates-edge")
    book.join("ford", "Ash", "player", {"armor": "light"})
    book.join("ford", "Ogre", "adversary", {"resilience": 6, "fatigue_capacity": 3})
    book.record("ford", {"type": "round.started", "round": 1})
    book.commit_dice("ford")
    for stake in ("s1", "s2"):
        book.record("ford", {"type": "stakes.locked", "stake": stake, "actor": "Ash"})
        book.record("ford", {"type": "roll.made", "stake": stake}, roll=[dice.Throw("dice", 10, 4)])
    book.record("ford", {"type": "round.started", "round": 2})
    book.record("ford", {"type": "stakes.locked", "stake": "s3", "actor": "Ash"})
    book.rewind("ford", 1, reason="replay")
    if reveal:
        book.reveal_dice("ford")


@pytest.mark.usefixtures("node")
@pytest.mark.parametrize("reveal", [True, False], ids=["revealed", "awaiting"])
def test_the_node_verifier_checks_the_ledgers_dice_as_verify_does(
    tmp_path: Path, reveal: bool
) -> None:
    with Ledger(tmp_path / "e.db") as book:
        dice_fight(book, reveal)
    logged = runner.invoke(cli.app, ["--db", str(tmp_path / "e.db"), "log", "ford", "--json"])
    assert "rewound_by" in logged.stdout
    export = tmp_path / "ford.jsonl"
    export.write_text(logged.stdout, encoding="utf-8")
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 0
    assert ("dice ok: 8 dice" if reveal else "dice: awaiting") in ours.stdout
    assert node_verify(export) == (0, ours.stdout)


@pytest.mark.usefixtures("node")
def test_the_node_verifier_names_the_die_a_rechained_file_changed(tmp_path: Path) -> None:
    with Ledger(tmp_path / "e.db") as book:
        dice_fight(book, reveal=True)
        lines = [json.loads(line) for line in book.export("ford")]
    lines[8]["dice"][2] = lines[8]["dice"][2] % 10 + 1
    prev = GENESIS
    for line in lines:  # the whole chain made again: only the dice can tell
        body = {k: v for k, v in line.items() if k not in (*events.ENVELOPE_KEYS, "type")}
        where = (line["encounter"], line["seq"], line["id"], line["type"], line["recorded_at"])
        line["prev_hash"], line["hash"] = prev, chain_hash(*where, body, prev)
        prev = line["hash"]
    export = tmp_path / "forged.jsonl"
    export.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    ours = runner.invoke(cli.app, ["verify", str(export)])
    assert ours.exit_code == 1
    assert "ford: DICE DO NOT MATCH at seq 9: die 2 of seq 9 (dice, d10) is" in ours.stdout
    assert node_verify(export) == (1, ours.stdout)


def _composed(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {_composed(k): _composed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_composed(v) for v in value]
    return value


_TEXTS = st.text(alphabet=st.sampled_from("aeC\u0301\u00e9e\u0308\u00eb \u212b"), max_size=6)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXTS, inner, max_size=3),
    max_leaves=12,
)


@given(value=_JSON)
def test_every_text_of_a_value_keys_too_is_put_in_composed_form_and_nothing_else_changes(
    value: Any,
) -> None:
    assert portable.normalized(value) == _composed(value)
