"""A game master's first encounter of each system, from `--help` and `encounter events` alone
(#24): four encounters, one per system, each with a mistake undone and one amended, played
through the command line.

Every name the GM types is one the ledger printed first: each command is listed by
`encounter --help`, each `--option` by that command's `--help`, each `--stat KEY` by
`add --help`, each `record TYPE KEY=VALUE` by `encounter events SYSTEM [TYPE]`, and each field
an `amend` names by the help of the verb that recorded it or by `encounter events`. The numbers
at the end are the rules texts' (docs/first-encounter.md tells the same four encounters).
"""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import cli
from tests import paths

runner = CliRunner()
_WIDE = {"COLUMNS": "200", "NO_COLOR": "1"}


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = runner.invoke(cli.app, args, env=_WIDE)
    return result.exit_code, result.stdout, result.stderr


@cache
def shown(*command: str) -> str:
    """What the ledger prints for a help or reference command (`encounter lock --help`,
    `encounter events ssss grit.used`)."""
    code, out, err = _invoke(list(command))
    assert (code, err) == (0, ""), err
    return out


def _options(text: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z0-9-]*", text))


class Table:
    """A GM at the table with a fresh ledger file, who types only what help has shown."""

    def __init__(self, db: Path, system: str) -> None:
        self.db = db
        self.system = system
        #: seq -> event type, from what the ledger said it recorded.
        self.types: dict[int, str] = {}
        #: seq -> the command that recorded it.
        self.verbs: dict[int, str] = {}

    def check(self, words: list[str]) -> None:
        """Fail when a name in `words` was never shown by help or `encounter events`."""
        command, rest = words[0], words[1:]
        assert re.search(rf"^│ {re.escape(command)} ", shown("--help"), re.M), command
        helped = shown(command, "--help")
        for word in rest:
            if word.startswith("--") and command != "amend":  # amend: see below
                assert word.split("=")[0] in _options(helped), f"{command} {word}"
        stats = [rest[i + 1] for i, w in enumerate(rest) if w == "--stat"]
        flat = " ".join(helped.split())  # the listing wraps where the terminal ends
        for pair in stats:
            assert f" {pair.split('=')[0]} (" in flat, f"add --stat {pair}"
        pairs = [w for w in rest if "=" in w and not w.startswith("--") and w not in stats]
        if command == "record":
            kind = rest[1]
            assert f"\n{kind}: " in "\n" + shown("events", self.system), kind
            for pair in pairs:
                assert f"  {pair.split('=')[0]} (" in shown("events", self.system, kind), pair
        if command == "amend":
            seq = int(rest[1])
            known = shown("events", self.system, self.types[seq])
            verb = self.verbs[seq]
            helped_verb = shown(verb, "--help") if verb != "record" else ""
            for pair in pairs:
                key = pair.split("=")[0]
                in_events = f"  {key} (" in known
                assert in_events or f"--{key}" in _options(helped_verb), f"amend {pair}"
            for word in rest:
                if word.startswith("--"):
                    option = word.split("=")[0]
                    mine = option in _options(helped)
                    assert mine or option in _options(helped_verb), f"amend {word} ({verb})"

    def __call__(self, line: str, code: int = 0) -> str:
        """Type one command line (after `encounter`); its output, once its exit code is
        `code`."""
        words = shlex.split(line)
        self.check(words)
        done, out, err = _invoke(["--db", str(self.db), *words])
        assert done == code, f"{line}\n{out}{err}"
        for seq, kind in re.findall(r"^Recorded seq (\d+): ([a-z.]+)", out, re.M):
            self.types[int(seq)] = kind
            self.verbs[int(seq)] = words[0]
        return out + err

    def last(self) -> int:
        """The seq of the last event recorded."""
        return max(self.types)

    def tracks(self, name: str) -> dict[str, Any]:
        """The tracks of one combatant now."""
        combatants: dict[str, Any] = json.loads(self("tracks " + name + " --json"))["combatants"]
        return combatants

    def findings(self, name: str) -> list[tuple[str, list[int]]]:
        """(rule, seqs) of every audit finding."""
        code, out, _ = _invoke(["--db", str(self.db), "audit", name, "--json"])
        assert code in (0, 1)
        return [(f["rule"], f["seq"]) for f in json.loads(out)["findings"]]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "table.db"


def test_a_first_fates_edge_encounter_from_help_alone(db: Path) -> None:
    gm = Table(db, "fates-edge")
    gm('new reeds --system fates-edge --title "Ambush in the reeds"')
    gm("add reeds Ash --side player --stat armor=light --stat body=3")
    gm("add reeds Brin --side player --stat armor=medium --stat body=2")
    hag = '--stat phases=[6] --stat \'moves=[{"name": "Drowning Grasp", "cost": 2}]\''
    gm(f"add reeds Hag --side adversary --stat resilience=4 --stat fatigue_capacity=3 "
       f"--stat harm=2 {hag}")  # fmt: skip
    gm("add reeds Cutthroat --side adversary --stat resilience=3 --stat fatigue_capacity=2 "
       "--stat armor=medium --stat harm=1")  # fmt: skip
    gm('add reeds "Ferryman\'s Riddle" --side adversary --stat resilience=null '
       '--stat "resolution=answer the toll riddle"')  # fmt: skip
    gm("round reeds 1")
    gm('lock reeds spear --actor Ash --against Cutthroat --harm 2 --partial-harm 1 '
       '--intent "spear him before he closes"')  # fmt: skip
    gm("roll reeds spear --dice 6,1,3,4")  # 1 success vs DV 3: a Partial, 1 SB
    gm("hit reeds Cutthroat 1 --stake spear")  # the lesser Harm: medium armor makes it Fatigue
    assert gm("roll reeds spaer --dice 6,6,6", code=2).startswith(
        "Error: stake 'spaer' was never locked in encounter 'reeds' (did you mean 'spear'?)"
    )
    gm("spend reeds 1 --for attack --stake stab")
    gm("lock reeds stab --actor Brin --against Cutthroat --kind defense --origin sb_attack "
       '--consequence-harm 1 --consequence "a knife in the ribs"')  # fmt: skip
    gm("roll reeds stab --dice 2,3,1")  # a miss: the knife lands
    wrong = gm("suffer reeds Ash 1 --stake stab")
    assert "error [consequence-on-actor]" in wrong
    gm('undo reeds --reason "the knife was in Brin\'s ribs"')
    gm("suffer reeds Brin 1 --stake stab")  # medium armor: 0 Harm + 1 Fatigue
    gm("round reeds 2")
    gm("lock reeds axe --actor Brin --against Hag --harm 3 --dv 4")
    axe = gm.last()
    gm("roll reeds axe --dice 10,9,2")  # 3 successes: a Partial against DV 4
    gm(f'amend reeds {axe} --dv 3 --reason "ordinary opposition is DV 3"')
    gm("hit reeds Hag 3 --stake axe")  # now a success: Resilience 4 -> 1
    gm("spend reeds 1 --for shape")
    gm("lock reeds lunge --actor Ash --against Hag --harm 2")
    gm("roll reeds lunge --dice 8,7,6")
    gm("hit reeds Hag 2 --stake lunge")  # phase 1 ends; phase 2 at Resilience 6
    gm('fatigue reeds Hag 3 --cause "the bog drags at her"')  # overflow: -1 Resilience
    gm("round reeds 3")
    gm("lock reeds chop --actor Brin --against Hag --harm 3")
    gm("roll reeds chop --dice 10,10,4")
    gm("hit reeds Hag 3 --stake chop")
    gm("lock reeds finish --actor Ash --against Hag --harm 2")
    gm("roll reeds finish --dice 9,9,9")
    gm("hit reeds Hag 2 --stake finish")  # Resilience 0: defeated
    gm('leave reeds Hag --note "she sinks into the bog"')
    gm('leave reeds Cutthroat --manner surrendered --note "throws down his knife"')
    gm('leave reeds "Ferryman\'s Riddle" --manner resolved --note "the river"')
    gm("end-scene reeds")
    assert gm.last() >= 35
    tracks = gm.tracks("reeds")
    assert (tracks["Ash"]["harm"], tracks["Ash"]["fatigue"]) == (0, 0)
    assert (tracks["Brin"]["harm"], tracks["Brin"]["fatigue"]) == (0, 1)
    assert (tracks["Hag"]["status"], tracks["Hag"]["phase"], tracks["Hag"]["resilience"]) == (
        "defeated",
        2,
        0,
    )
    assert (tracks["Cutthroat"]["status"], tracks["Cutthroat"]["fatigue"]) == ("surrendered", 1)
    assert {rule for rule, _ in gm.findings("reeds")} == {"ruling-reversed"}


def test_a_first_ironsworn_encounter_from_help_alone(db: Path) -> None:
    gm = Table(db, "ironsworn")
    gm('new ford --system ironsworn --title "Ambush at the ford"')
    gm("add ford Kira --side player --stat iron=3 --stat heart=2 --stat health=4 "
       "--stat momentum=4")  # fmt: skip
    gm("add ford Raider --side adversary --stat rank=dangerous")
    gm("add ford Chief --side adversary --stat rank=extreme")
    gm("round ford 1")
    gm("endure-harm ford Kira --foe Raider")  # dangerous: 2 harm, health 4 -> 2
    gm("action-roll ford Kira --using iron --die 6 --challenge 3,8")  # 9 vs 3, 8: strong hit
    gm("choose ford Kira shake_it_off")  # -1 momentum, +1 health
    gm("round ford 2")
    gm("endure-harm ford Kira --foe Chief")  # extreme: 4 harm, health 3 -> 0, 1 off momentum
    gm("action-roll ford Kira --using health --die 1 --challenge 9,10")
    roll = gm.last()
    amended = gm(f'amend ford {roll} --using iron --reason "roll the higher of health and iron"')
    assert f"corrects seq {roll}: stat=iron" in amended
    burned = gm("burn ford Kira")  # the last roll of Kira: the one just amended
    assert f"burns momentum 2 on the roll at seq {roll}" in burned
    gm('undo ford --reason "momentum 2 cancels neither die: no burn"')
    gm("oracle ford Kira --roll 55")  # the miss at 0 health: the oracle, battered
    gm("mark-debility ford Kira shaken")
    gm('meter ford Kira spirit --amount -1 --cause "dread"')
    gm("meter ford Kira supply --amount -1")
    gm("leave ford Chief --manner fled")
    gm('leave ford Raider --note "cut down at the water\'s edge"')
    gm("end-scene ford")
    assert gm.last() >= 20
    kira = gm.tracks("ford")["Kira"]
    assert (kira["health"], kira["spirit"], kira["supply"], kira["momentum"]) == (0, 4, 4, 1)
    assert (kira["debilities"], kira["conditions"], kira["max_momentum"]) == (
        ["shaken"],
        ["battered"],
        9,
    )
    assert {rule for rule, _ in gm.findings("ford")} == {"ruling-reversed"}


def test_a_first_ssss_encounter_from_help_alone(db: Path) -> None:
    gm = Table(db, "ssss")
    gm('new road --system ssss --title "Ambush on the Yorelle road"')
    gm("add road Ash --side player --stat stones=1 --stat swords=2 --stat grit=2")
    gm("add road Wren --side player --stat sorcery=2 --stat scrolls=1")
    slots = '--stat \'slots={"1": 1, "2": 2}\''
    chief = gm(f'add road "Bandit Chief" --side adversary --stat level=2 {slots} '
               "--stat swords=2 --stat 'tags=[\"leader\"]'")  # fmt: skip
    assert "swords +2" in chief  # an Attribute on the sheet: kept and shown
    gm('add road "Bandit Thug" --side adversary --stat level=1 --stat stones=1')
    gm("add road Cutpurse --side adversary --stat level=0")
    gm("round road 1")
    gm('throw road Ash swords --outcome "a clean cut" --harm-level 1')
    throw = gm.last()
    gm(f'harm road "Bandit Thug" 1 --throw {throw}')
    gm('throw road "Bandit Chief" swords --outcome "a deep cut" --harm-level 2')
    cut = gm.last()
    gm(f"harm road Ash 2 --throw {cut}")
    gm("grit road Ash --from 2 --to 1")  # Grit lessens the injury
    gm("round road 2")
    gm('throw road Wren sorcery --outcome "the Word of Binding holds" --harm-level 2')
    bind = gm.last()
    gm(f'harm road "Bandit Thug" 2 --throw {bind}')
    gm(f"harm road Cutpurse 2 --throw {bind}")  # the wrong enemy: undone
    gm('undo road --reason "the binding was on the Thug alone"')
    gm('throw road Ash stones --outcome "shoulder-charge" --harm-level 2')
    charge = gm.last()
    gm(f'harm road "Bandit Thug" 2 --throw {charge}')  # tier 2 has no slot: defeated
    gm(f'amend road {charge} harm_level=1 --reason "a weak hit: level 1"')
    gm("round road 3")
    gm('throw road Wren scrolls --outcome "outflanked" --harm-level 1')
    flank = gm.last()
    gm(f'harm road "Bandit Chief" 1 --throw {flank}')
    gm('harm road "Bandit Chief" 1')  # tier 1 full: it rises to tier 2
    gm('leave road "Bandit Thug" --note "knocked cold"')
    gm('leave road "Bandit Chief" --manner surrendered')
    gm("leave road Cutpurse --manner fled")
    gm("end-scene road")
    assert gm.last() >= 25
    tracks = gm.tracks("road")
    assert tracks["Ash"]["harm"] == [1]
    assert tracks["Bandit Chief"]["slots"] == {
        "1": {"filled": 1, "capacity": 1},
        "2": {"filled": 1, "capacity": 2},
    }
    assert (tracks["Bandit Thug"]["status"], tracks["Cutpurse"]["status"]) == ("defeated", "fled")
    # The amended Throw gave level 1 while its harm stayed level 2: the audit says so, with seqs.
    assert ("slot-placement", [charge, charge + 1]) in gm.findings("road")


def test_a_first_l5r_encounter_from_help_alone(db: Path) -> None:
    gm = Table(db, "l5r")
    gm('new bridge --system l5r --title "Duel on the Shika bridge"')
    rings = '--stat \'rings={"air": 2, "earth": 3, "fire": 2, "water": 2, "void": 2}\''
    gm(f"add bridge Akodo --side player {rings} --stat 'resistance={{\"physical\": 3}}'")
    gm(f"add bridge Bayushi --side adversary {rings} --stat 'resistance={{\"physical\": 1}}'")
    gm("round bridge 1")
    gm("damage bridge Bayushi 6 --deadliness 5 --weapon katana")  # 6 - 1 = 5 fatigue
    gm("damage bridge Akodo 4 --increase 2 --deadliness 5 --weapon wakizashi")
    hit = gm.last()
    gm(f'amend bridge {hit} increase=3 --reason "the Strike raised it by 3"')  # 7 - 3 = 4
    gm("round bridge 2")
    gm("damage bridge Bayushi 8 --deadliness 5")  # 7 more: 12 > endurance 10, Incapacitated
    gm("damage bridge Bayushi 3 --deadliness 6")  # Incapacitated: a critical strike at 6
    gm("critical bridge Bayushi 4 --fitness 2")
    gm("spend-void bridge Akodo")
    gm("damage bridge Akodo 2 --deadliness 3 --void-critical")  # wrong: no Void point left
    gm('undo bridge --reason "Akodo has no Void point left: he defends"')
    gm("gain-void bridge Akodo")
    gm('leave bridge Bayushi --manner surrendered --note "yields at the rail"')
    gm("end-scene bridge")  # fatigue down to half endurance
    gm("rest bridge Akodo")
    gm('recover bridge Bayushi 2 --cause "Medicine"')
    assert gm.last() >= 18
    tracks = gm.tracks("bridge")
    akodo, bayushi = tracks["Akodo"], tracks["Bayushi"]
    assert (akodo["fatigue"], akodo["void_points"], akodo["criticals"]) == (0, 1, [])
    assert (bayushi["fatigue"], bayushi["incapacitated"], bayushi["status"]) == (
        3,
        False,
        "surrendered",
    )
    assert [(c["severity"], c["resolved"] is not None) for c in bayushi["criticals"]] == [(4, True)]
    assert {rule for rule, _ in gm.findings("bridge")} == {"ruling-reversed"}


def test_the_check_refuses_a_name_help_never_showed(db: Path) -> None:
    gm = Table(db, "ssss")
    gm("new road --system ssss")
    with pytest.raises(AssertionError, match="add --stat lvl=1"):
        gm("add road Thug --side adversary --stat lvl=1")
    with pytest.raises(AssertionError, match="grit --level"):
        gm("grit road Ash --level 2")
    with pytest.raises(AssertionError, match="levl=1"):
        gm("record road harm.inflicted target=Thug levl=1")


def test_the_first_encounter_page_runs_as_written_typing_only_what_help_shows(
    tmp_path: Path,
) -> None:
    page = (paths.ROOT / "docs" / "first-encounter.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n(.*?)```", page, re.S)
    assert len(blocks) == 4
    for block in blocks:
        lines = [line.removeprefix("$ encounter ") for line in block.splitlines()]
        system = re.search(r"--system (\S+)", lines[0])
        assert system is not None
        gm = Table(tmp_path / f"{system.group(1)}.db", system.group(1))
        for line in lines:
            gm(line)
        # Every mistake of the page is undone or amended by its end.
        name = lines[0].split()[1]
        assert [f for f in gm.findings(name) if f[0] != "ruling-reversed"] == []
