"""Iron Vault journals (Ironsworn and Starforged players' Obsidian notes): what each node of
their mechanics blocks becomes in an Ironsworn encounter, in the order the fold must see them,
each with the node it came from (docs/iron-vault.md has the table). Pure: `ledger.ironvault`
reads the notes and admits the plan.

Every `from` the journal writes is a claim about the sheet: a `tracks.noted` placed right before
the event that applies the change (a miss's -1 momentum and a burn are applied by the roll, so
their claims go before it), which the audit compares (`journal-disagrees`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, get_args

from ledger import events
from ledger.errors import BadInput
from projections.ironsworn import events as vocab
from projections.journal import Block, Node, Plan, Planned, Sheet

METERS: Final = ("health", "spirit", "supply", "momentum")
STATS: Final = ("edge", "heart", "iron", "shadow", "wits")
DEBILITIES: Final = frozenset(get_args(vocab.Debility))
OUTCOMES: Final = frozenset({"strong_hit", "weak_hit", "miss"})
_LINK: Final = re.compile(r"\[(?P<label>[^\]]*)\]\((?P<target>[^)]*)\)")
_WIKI: Final = re.compile(r"\[\[(?P<path>[^|\]]+)(?:\|(?P<label>[^\]]*))?\]\]")
#: A link target that is a Datasworn id: `datasworn:move:classic/suffer/endure_harm`,
#: `move:starforged/...`, `move:EndureHarm` (a kind, then a path), or a Datasworn 1 path
#: (`starforged/moves/suffer/endure_harm`). A web address, a note (`Moves/Face Danger.md`,
#: `./foo`) or a word (`link`) is not one: Iron Vault names such a move by its label.
_ID: Final = re.compile(r"[A-Za-z_][\w.]*:(?!//)\S.*|[A-Za-z_][\w-]*(?:/[\w.-]+)+")


def slug(text: str) -> str:
    """`Endure Harm`, `EndureHarm`, `endure-harm` -> `endure_harm`."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def label(text: str) -> str:
    """A Markdown or wiki link's label (`[[Characters/Kira.md|Kira]]` -> `Kira`); text as is."""
    wiki = _WIKI.fullmatch(text.strip())
    if wiki is not None:
        if wiki["label"]:
            return wiki["label"].strip()
        return wiki["path"].strip().rsplit("/", 1)[-1].removesuffix(".md")
    link = _LINK.fullmatch(text.strip())
    return link["label"].strip() if link is not None else text.strip()


def move_key(node: Node) -> str:
    """A move's key: its Datasworn id's last part (`classic/suffer/endure_harm`), from its `id`
    or its name's link to one, else its name."""
    ident = node.props.get("id")
    name = node.arg("name", 0)
    if ident is None and isinstance(name, str):
        link = _LINK.fullmatch(name.strip())
        target = link["target"].strip() if link is not None else ""
        if _ID.fullmatch(target) and not target.lower().endswith(".md"):
            ident = target
    if isinstance(ident, str) and ident.strip():
        return slug(re.split(r"[/:\\]", ident.strip())[-1]) or "move"
    return slug(label(name)) if isinstance(name, str) and slug(label(name)) else "move"


def outcome_of(score: int, challenge: tuple[int, int], momentum: int | None = None) -> str:
    """The outcome the journal shows: a strong hit beats both dice, a weak hit one (a burn
    compares momentum instead of the score)."""
    against = score if momentum is None else max(score, momentum)
    beaten = sum(1 for d in challenge if d < against)
    return ("miss", "weak_hit", "strong_hit")[beaten]


def _number(node: Node, value: Any, what: str) -> int:
    """A whole number, written as one or as text (`"6"`)."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return _int(node, value, what)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(node: Node, value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        shown = "nothing" if value is None else repr(value)
        raise BadInput(f"{node.where}: {node.name} needs a whole number for {what}, not {shown}")
    return value


@dataclass(slots=True)
class _Move:
    """What a move block has seen so far."""

    key: str
    roll: Planned | None = None
    #: The first event planned for the roll (the claim of a roll on a meter, else the roll).
    rolled: Planned | None = None
    #: The roll's stat value plus its adds (a reroll of the action die scores anew with them).
    base: int = 0
    score: int = 0
    challenge: tuple[int, int] = (0, 0)
    outcome: str | None = None
    #: The event that applies a miss's -1 momentum (the roll, or a burn after it).
    applies_miss: Planned | None = None
    chosen: bool = False
    missed: bool = False
    harmed: bool = False
    consumed: set[int] = field(default_factory=set)

    @property
    def endure(self) -> bool:
        return self.key == "endure_harm"


def plan(
    blocks: Sequence[Block],
    character: str | None,
    present: frozenset[str],
    sheets: Mapping[str, Sheet],
) -> Plan:
    """The events of an Iron Vault journal's blocks (`projections.journal.Planner`): a join
    before each character's first event unless they are `present`, with their sheet's values,
    else the journal's first `from` of each meter and `stat=` of each stat."""
    planner = Planner(character)
    planned = planner.read(blocks)
    made = Plan(kept=planner.kept, characters=tuple(planner.first))
    joined = set(present)
    for event in planned:
        who = planner.whose.get(id(event))
        if who is not None and who not in joined:
            joined.add(who)
            made.events.append(_join(who, event, planner.first.get(who, {}), sheets.get(who)))
        made.events.append(event)
    return made


def _join(who: str, first: Planned, seen: Mapping[str, int], sheet: Sheet | None) -> Planned:
    if sheet is not None:
        data = sheet.data
        stats: dict[str, Any] = {k: data[k] for k in (*STATS, *METERS) if data.get(k) is not None}
        marked = [k for k in sorted(DEBILITIES) if data.get(k) is True]
        if marked:
            stats["debilities"] = marked
        source = {"file": sheet.file, "line": 1}
    else:
        # A first value no sheet holds (spirit -2) starts the character at the nearest one
        # it holds: the journal's word stays a claim, which the audit reports.
        stats = {k: _held(k, v) for k, v in seen.items() if k in (*STATS, *METERS)}
        source = dict(first.fields["source"])
    fields = {"type": "combatant.joined", "name": who, "side": "player", "stats": stats}
    return Planned({**fields, "source": source}, first.node)


def _noted(text: str) -> str:
    """A journal's text as a note holds it: cut to the most a note takes, marked `...`."""
    return text if len(text) <= events.TEXT_MAX else text[: events.TEXT_MAX - 3] + "..."


def _held(key: str, value: int) -> int:
    """`value` as the sheet can hold it for `key` (a stat, a meter or momentum)."""
    low, high = (
        vocab.MOMENTUM_RANGE
        if key == "momentum"
        else vocab.METER_RANGE
        if key in METERS
        else vocab.STAT_RANGE
    )
    return max(low, min(high, value))


class Planner:
    """Walks the blocks of a journal and plans its events, in order."""

    def __init__(self, character: str | None) -> None:
        self.default = character
        self.plan: list[Planned] = []
        self.kept: Counter[str] = Counter()
        #: Each character's first value of each meter and stat, as the journal gives them.
        self.first: dict[str, dict[str, int]] = {}
        #: The character each planned event concerns (by the event's identity).
        self.whose: dict[int, str] = {}
        #: Each character's health as the journal gives it so far (while noticing).
        self.health: dict[str, int] = {}
        #: The stat of each Endure Harm roll written with no stat name, by (note, ordinal).
        self.unnamed: dict[tuple[str, int], str] = {}

    # Walking.

    def read(self, blocks: Sequence[Block]) -> list[Planned]:
        """Plan every block's events (a prescan finds each character's first values)."""
        for block in blocks:
            for node, who, move in self._nodes(block, block.nodes, None):
                self._notice(node, who, move)
        for block in blocks:
            self._level(block, block.nodes, None)
        return self.plan

    def _level(self, block: Block, nodes: Sequence[Node], who: str | None) -> None:
        """The nodes of a block, or of an actor in it, in order. A health loss right before
        an Endure Harm move that loses no health of its own is that move's harm: written on
        its own (`Suffer on a meter`, then `Make a move`), or closing the move before
        (`Suffer on a meter` appends to the last move: a Face Danger miss's harm)."""
        ahead: dict[int, _Move] = {}
        for index, node in enumerate(nodes):
            after = nodes[index + 1] if index + 1 < len(nodes) else None
            tail = node.children[-1] if node.name == "move" and node.children else None
            if tail is not None and move_key(node) == "endure_harm":
                tail = None  # an Endure Harm's own health loss is its own business
            if after is not None and _harm_before(node, after):
                move = ahead[after.ordinal] = _Move(move_key(after))
                self._step(block, node, self._who(block, who or self.default), move, nodes)
            elif tail is not None and after is not None and _harm_before(tail, after):
                own = ahead.pop(node.ordinal, None) or _Move(move_key(node))
                own.consumed.add(tail.ordinal)
                self._move(block, node, who or self.default, own)
                move = ahead[after.ordinal] = _Move(move_key(after))
                self._step(block, tail, self._who(block, who or self.default), move)
            elif node.name == "move" and node.ordinal in ahead:
                self._move(block, node, who or self.default, ahead.pop(node.ordinal))
            else:
                self._top(block, node, who)

    def _nodes(
        self, block: Block, nodes: Sequence[Node], who: str | None
    ) -> Iterator[tuple[Node, str | None, Node | None]]:
        """Each node with its character and the move it is in (a top node: none)."""
        for node in nodes:
            if node.name == "actor":
                yield from self._nodes(block, node.children, self._actor(node))
            else:
                yield node, who or self.default, None
                if node.name == "move":
                    yield from ((c, who or self.default, node) for c in node.children)

    def _actor(self, node: Node) -> str:
        name = node.arg("name", 0)
        if not isinstance(name, str) or not label(name):
            raise BadInput(f"{node.where}: an actor node names its character (name=...)")
        return label(name)

    def _notice(self, node: Node, who: str | None, move: Node | None) -> None:
        """Record a character's first value of each meter and stat, as the journal gives it,
        and follow their health (which tells the stat of an Endure Harm roll with no name)."""
        if who is None:
            return
        seen = self.first.setdefault(who, {})
        if node.name == "meter":
            meter = label(str(node.arg("name", 0))).lower()
            value, end = node.arg("from", 1), node.arg("to", 2)
            if meter in METERS and _whole(value):
                seen.setdefault(meter, value)
            if meter == "health" and _whole(end):
                self.health[who] = end
        elif node.name == "burn":
            value = node.arg("from", 0)
            if _whole(value):
                seen.setdefault("momentum", value)
        elif node.name == "roll":
            stat, value = node.arg("stat-name", 0), node.arg("stat", 2)
            if stat is None and move is not None and move_key(move) == "endure_harm":
                stat = self._unnamed(node, who, value)
            if isinstance(stat, str) and _whole(value):
                seen.setdefault(stat.lower(), value)
                if stat.lower() == "health":
                    self.health[who] = value

    def _unnamed(self, node: Node, who: str, value: Any) -> str:
        """The stat of an Endure Harm roll written with no stat name (as Iron Vault's own
        example does): +health when its value is the character's health the journal gives at
        that point, else +iron, the move's other stat."""
        stat = "health" if _whole(value) and self.health.get(who) == value else "iron"
        self.unnamed[(node.file, node.ordinal)] = stat
        return stat

    def _top(self, block: Block, node: Node, who: str | None) -> None:
        if node.name == "actor":
            name = self._actor(node)
            if not node.children:
                self.keep(node)  # an actor with nothing of theirs: nothing is dropped
            self._level(block, node.children, name)
            return
        who = who or self.default
        if node.name == "move":
            self._move(block, node, who)
        elif node.name in ("meter", "impact", "burn", "roll", "oracle", "outcome"):
            self._loose(block, node, who)
        else:
            self.keep(node)

    # Emitting.

    def keep(self, node: Node) -> Planned:
        """A node the ledger does not model: a note carrying its text (nothing dropped)."""
        self.kept[node.name] += 1
        return self.emit(node, None, {"type": "note", "text": _noted(node.whole())})

    def emit(
        self,
        node: Node,
        who: str | None,
        fields: dict[str, Any],
        before: Planned | None = None,
        names: tuple[str, Planned] | None = None,
    ) -> Planned:
        """Plan one event from `node` (before `before`, when given), its source the node's."""
        made = Planned({**fields, "source": {"file": node.file, "line": node.line}}, node, names)
        at = len(self.plan)
        if before is not None:
            at = next(n for n, p in enumerate(self.plan) if p is before)
        self.plan.insert(at, made)
        if who is not None:
            self.whose[id(made)] = who
        return made

    def claim(
        self, node: Node, who: str, meter: str, value: int, before: Planned | None = None
    ) -> Planned:
        """The journal's word on a meter at this point (`tracks.noted`, checked, not applied)."""
        fields = {"type": "tracks.noted", "target": who, "values": {meter: value}}
        return self.emit(node, who, fields, before)

    def _who(self, block: Block, who: str | None) -> str:
        if who is None:
            raise BadInput(
                f"{block.file}:{block.line}: this mechanics block names no character (no actor "
                "node): give --character NAME"
            )
        return who

    # Nodes.

    def _loose(self, block: Block, node: Node, who: str | None) -> None:
        """A node outside any move: a meter, an impact or an Endure Harm oracle roll is its
        event; a roll, burn or outcome with no move to belong to is kept as text."""
        if node.name in ("roll", "burn", "outcome") or (
            node.name == "oracle" and not _endure_oracle(node)
        ):
            self.keep(node)
        else:
            self._step(block, node, self._who(block, who), _Move("none"))

    def _move(self, block: Block, node: Node, who: str | None, move: _Move | None = None) -> None:
        move = move or _Move(move_key(node))
        if not node.children:
            # A move made with "Skip roll" and nothing recorded under it yet.
            self.keep(node)
            return
        start = len(self.plan)
        for child in node.children:
            if child.ordinal in move.consumed:
                continue
            if child.name in ("roll", "meter", "burn", "impact", "oracle", "outcome", "reroll"):
                self._step(block, child, self._who(block, who), move, node.children)
            else:
                self.keep(child)
        if move.roll is None:
            # No roll carries the move (a progress move, a move with no roll): each note kept
            # from it names it, so that nothing of the journal is dropped. (The note's id is its
            # node's, whatever the text: a journal imported before imports again as stored.)
            mine = {child.ordinal for child in node.children}
            for planned in self.plan[start:]:
                if planned.fields["type"] == "note" and planned.node.ordinal in mine:
                    planned.fields["text"] = _noted(f"{node.text} {{ {planned.fields['text']} }}")

    def _step(
        self, block: Block, node: Node, who: str, move: _Move, siblings: Sequence[Node] = ()
    ) -> None:
        match node.name:
            case "roll":
                self._roll(node, who, move)
            case "meter":
                self._meter(node, who, move, siblings)
            case "burn":
                self._burn(node, who, move)
            case "impact":
                self._impact(node, who)
            case "oracle":
                if move.endure or _endure_oracle(node):
                    roll = _int(node, node.arg("roll", 1), "roll")
                    fields = {"type": "oracle.rolled", "target": who, "roll": roll}
                    self.emit(node, who, {**fields, "table": "endure_harm"})
                else:
                    self.keep(node)
            case "outcome":
                self._outcome(node, move)
            case "reroll":
                self._reroll(node, move)

    def _roll(self, node: Node, who: str, move: _Move) -> None:
        stat = node.arg("stat-name", 0)
        if stat is None:
            stat = self.unnamed.get((node.file, node.ordinal))
        if not isinstance(stat, str) or stat.lower() not in (*STATS, *METERS[:3]):
            self.keep(node)  # a roll against no stat of the character's (an asset's meter)
            return
        stat = stat.lower()
        action_key = "action-die" if "action-die" in node.props else "action"
        dice = {
            "action": node.arg(action_key, 1),
            "stat": node.arg("stat", 2),
            "vs1": node.arg("vs1", 4),
            "vs2": node.arg("vs2", 5),
        }
        missing = [k for k, v in dice.items() if v is None]
        if missing:
            raise BadInput(f"{node.where}: the roll is missing its {', '.join(missing)}")
        action, value = _int(node, dice["action"], "action"), _int(node, dice["stat"], "stat")
        challenge = (_int(node, dice["vs1"], "vs1"), _int(node, dice["vs2"], "vs2"))
        adds = _int(node, node.arg("adds", 3) if node.arg("adds", 3) is not None else 0, "adds")
        move.base = value + adds
        move.score = min(10, action + move.base)
        move.challenge = challenge
        move.outcome = outcome_of(move.score, challenge)
        claimed = self.claim(node, who, stat, value) if stat in METERS else None
        fields = {
            "type": "roll.made",
            "actor": who,
            "move": move.key,
            "stat": stat,
            "action_die": action,
            "challenge": list(challenge),
            "adds": adds,
            "outcome": _claimed(node, node.props.get("outcome")) or move.outcome,
        }
        move.roll = move.applies_miss = self.emit(node, who, fields)
        move.rolled = claimed or move.roll

    def _reroll(self, node: Node, move: _Move) -> None:
        """Iron Vault's reroll (not BOA; its command writes the die as text, `action="6"`):
        the move's roll is scored with the new dice, as Iron Vault resolves the move, and the
        node is a note of what was rerolled. With no roll before it, or a die set to 0 (the
        command's "Cancel die", which no roll of the ledger holds), it is kept as a note."""
        dice = {
            k: _number(node, node.props[k], k) for k in ("action", "vs1", "vs2") if k in node.props
        }
        if move.roll is None or not dice or 0 in dice.values():
            self.keep(node)
            return
        fields = move.roll.fields
        action = dice.get("action", fields["action_die"])
        challenge = (
            dice.get("vs1", fields["challenge"][0]),
            dice.get("vs2", fields["challenge"][1]),
        )
        move.score = min(10, action + move.base)
        move.challenge = challenge
        move.outcome = outcome_of(move.score, challenge)
        fields.update(action_die=action, challenge=list(challenge), outcome=move.outcome)
        self.emit(node, None, {"type": "note", "text": node.whole()})

    def _outcome(self, node: Node, move: _Move) -> None:
        if move.roll is None:
            raise BadInput(f"{node.where}: an outcome node follows a roll in its move")
        move.roll.fields["outcome"] = _claimed(node, node.arg("outcome", 0))

    def _meter(self, node: Node, who: str, move: _Move, siblings: Sequence[Node]) -> None:
        meter, start, end = _meter_parts(node)
        if meter not in METERS:
            self.keep(node)  # a companion's or a vehicle's meter: not the character's
            return
        delta = end - start
        # The move's harm: a health loss before its roll, or after a roll that followed
        # no harm (Make a move rolls at once, Suffer on a meter appends the loss after the
        # roll; the rules suffer it first, so it goes before the roll).
        before = move.rolled if move.roll is not None else None
        untouched = not (move.harmed or move.chosen or move.missed)
        if move.endure and untouched and meter == "health" and delta < 0:
            move.harmed = True
            self.claim(node, who, meter, start, before)
            amount = -delta
            # (After the roll, a -momentum next may be a miss's -1 instead: not taken.)
            spill = end == 0 and move.roll is None
            spilled = _spilled(node, siblings, move) if spill else None
            if spilled is not None:
                # At 0 health the rest of the harm is -momentum (Starforged writes it as a
                # second meter): one harm, which the fold spills the same way.
                move.consumed.add(spilled.ordinal)
                _, was, now = _meter_parts(spilled)
                self.claim(spilled, who, "momentum", was, before)
                amount += was - now
            harm = {"type": "harm.suffered", "target": who, "amount": amount}
            self.emit(node, who, harm, before)
            return
        spill = move.endure and move.roll is None and (meter, delta < 0) == ("momentum", True)
        if spill and not move.harmed:
            # Harm at 0 health, which the journal writes as its spill into momentum alone:
            # the journal says health is 0 here.
            move.harmed = True
            self.claim(node, who, "health", 0)
            self.claim(node, who, meter, start)
            self.emit(node, who, {"type": "harm.suffered", "target": who, "amount": -delta})
            return
        rolled = move.endure and move.roll is not None
        shake = (meter, delta) == ("health", 1) or (
            (meter, delta) == ("momentum", -1) and move.outcome != "miss"
        )
        if rolled and not move.chosen and shake:
            self.claim(node, who, meter, start)
            partner = _partner(node, siblings, move, meter)
            if partner is not None:
                move.consumed.add(partner.ordinal)
                other, was, _ = _meter_parts(partner)
                self.claim(partner, who, other, was)
            move.chosen = True
            fields = {"type": "choice.made", "target": who, "option": "shake_it_off"}
            self.emit(node, who, fields)
            return
        if rolled and not move.chosen and (meter, delta) == ("momentum", 1):
            self.claim(node, who, meter, start)
            move.chosen = True
            fields = {"type": "choice.made", "target": who, "option": "embrace_the_pain"}
            self.emit(node, who, fields)
            return
        miss = rolled and move.outcome == "miss" and (meter, delta) == ("momentum", -1)
        if miss and not move.missed:
            # The miss's own -1, which the roll (or a burn that left it a miss) applies.
            move.missed = True
            self.claim(node, who, meter, start, before=move.applies_miss)
            return
        self.claim(node, who, meter, start)
        changed = {"type": "meter.changed", "target": who, "meter": meter, "amount": delta}
        self.emit(node, who, changed)

    def _burn(self, node: Node, who: str, move: _Move) -> None:
        if move.roll is None:
            self.keep(node)  # a burn with no roll before it in its move
            return
        start = _int(node, node.arg("from", 0), "from")
        end = _int(node, node.arg("to", 1), "to")
        # The momentum burned is the momentum held at the roll: the claim goes before it.
        self.claim(node, who, "momentum", start, before=move.roll)
        fields = {"type": "momentum.burned", "target": who}
        burned = self.emit(node, who, fields, names=("roll", move.roll))
        self.claim(node, who, "momentum", end)
        move.outcome = outcome_of(move.score, move.challenge, start)
        move.applies_miss = burned

    def _impact(self, node: Node, who: str) -> None:
        name = node.arg("name", 0)
        marked = node.arg("marked", 1)
        if not isinstance(name, str):
            raise BadInput(f"{node.where}: an impact node names its impact")
        key = slug(label(name))
        if key not in DEBILITIES:
            self.keep(node)
            return
        if marked in (True, "marked"):
            kind = "debility.marked"
        elif marked in (False, "unmarked"):
            kind = "debility.cleared"
        else:
            raise BadInput(
                f"{node.where}: impact {name!r} is marked (true) or unmarked (false), "
                f"not {marked!r}"
            )
        self.emit(node, who, {"type": kind, "target": who, "debility": key})


def _meter_parts(node: Node) -> tuple[str, int, int]:
    name = node.arg("name", 0)
    if not isinstance(name, str):
        raise BadInput(f"{node.where}: a meter node names its meter")
    start, end = node.arg("from", 1), node.arg("to", 2)
    if start is None or end is None:
        raise BadInput(f"{node.where}: meter {name!r} needs from= and to=")
    return label(name).lower(), _int(node, start, "from"), _int(node, end, "to")


def _partner(node: Node, siblings: Sequence[Node], move: _Move, meter: str) -> Node | None:
    """The other half of a shake-it-off written as two meter nodes (+1 health, -1 momentum)."""
    wanted = ("momentum", -1) if meter == "health" else ("health", 1)
    for other in siblings:
        if other.ordinal == node.ordinal or other.name != "meter":
            continue
        if other.ordinal in move.consumed:
            continue
        name, start, end = _meter_parts(other)
        if (name, end - start) == wanted:
            return other
    return None


def _harm_before(node: Node, move: Node) -> bool:
    """Whether `node` is a health loss written right before the Endure Harm `move`, whose own
    nodes lose no health."""
    if node.name != "meter" or move.name != "move" or move_key(move) != "endure_harm":
        return False
    return _health_loss(node) and not any(_health_loss(child) for child in move.children)


def _health_loss(node: Node) -> bool:
    if node.name != "meter":
        return False
    name, start, end = node.arg("name", 0), node.arg("from", 1), node.arg("to", 2)
    return (
        isinstance(name, str)
        and label(name).lower() == "health"
        and _whole(start)
        and _whole(end)
        and end < start
    )


def _spilled(node: Node, siblings: Sequence[Node], move: _Move) -> Node | None:
    """The -momentum right after a harm that took health to 0, before the roll: the harm's
    rest, spilled into momentum."""
    after = [s for s in siblings if s.ordinal > node.ordinal and s.ordinal not in move.consumed]
    if not after or after[0].name != "meter":
        return None
    name, start, end = _meter_parts(after[0])
    return after[0] if name == "momentum" and end < start else None


def _endure_oracle(node: Node) -> bool:
    name = node.arg("name", 0)
    return isinstance(name, str) and "endure_harm" in slug(name)


def _claimed(node: Node, value: Any) -> str | None:
    if value is None:
        return None
    claimed = slug(str(value))
    if claimed not in OUTCOMES:
        raise BadInput(f"{node.where}: outcome {value!r} is a strong hit, a weak hit or a miss")
    return claimed
