"""Fate's Edge data: the pinned house-rule table, the armor arithmetic, combatants and state.

The fold (`projections.fates_edge`) and the audit (`projections.fates_edge.audit`) share these
models; the arithmetic here is the order the rules text gives for a damaging hit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Annotated, Any, Final

from pydantic import AfterValidator, BaseModel, Field, model_validator

from ledger.errors import BadInput
from projections import core
from projections.fates_edge import events as vocab
from projections.values import EMPTY, Hidden

#: Armor categories from none to heavy; ignoring a point of Armor steps one to the left.
ARMOR_ORDER: Final[tuple[vocab.Armor, ...]] = ("none", "light", "medium", "heavy")
_CELL: Final = re.compile(r"^(?:H(?P<h>\d+))?\+?(?:F(?P<f>\d+))?$")


def _cell(text: str) -> str:
    match = _CELL.match(text)
    if not text or match is None:
        raise ValueError(f"an armor cell reads like 'F1', 'H1+F1' or 'H2' (got {text!r})")
    return text


#: One cell of the Armor Conversion Table: remaining Harm and converted Fatigue, e.g. "H1+F1".
Cell = Annotated[str, AfterValidator(_cell)]
Column = tuple[Cell, Cell, Cell]


def cell_values(text: str) -> tuple[int, int]:
    """(remaining Harm, converted Fatigue) of a table cell such as "H2+F1"."""
    match = _CELL.match(text)
    assert match is not None  # validated when the rules table was read
    return int(match["h"] or 0), int(match["f"] or 0)


class ArmorTable(BaseModel, frozen=True, extra="forbid"):
    """Harm 1, 2, 3 per armored category (None converts nothing: the rules text says so)."""

    light: Column = ("F1", "H1+F1", "H2+F1")
    medium: Column = ("F1", "F1", "H2+F1")
    heavy: Column = ("F1", "F1", "F2")


class Rules(BaseModel, frozen=True, extra="forbid"):
    """House rules where adversary-resolution.txt is silent (NOTES.md 1.7 and 5.1)."""

    armor_table: ArmorTable = ArmorTable()
    armor_table_source: str = (
        "Fate's Edge SRD 2026-07-10; Light H1 and H2 pinned by the rules text; "
        "Medium H3 and Light H1 contested in public sources"
    )
    min_fatigue_per_armored_hit: int = Field(default=1, ge=0)
    position_ladder: tuple[vocab.Position, ...] = ("desperate", "controlled", "dominant")
    dv_default: int = Field(default=3, ge=1)
    dv_hard: int = Field(default=4, ge=1)
    ordinary_attack_sb_cost: int = Field(default=1, ge=0)
    phase_excess_carries: bool = False
    player_overflow_may_loop: bool = False
    player_dead_above_harm: int = Field(default=3, ge=0)
    sb_carry_over_max: int | None = Field(default=4, ge=0)

    @model_validator(mode="after")
    def _ladder(self) -> Rules:
        if sorted(self.position_ladder) != sorted(("desperate", "controlled", "dominant")):
            raise ValueError("position_ladder orders desperate, controlled and dominant, once each")
        return self

    def column(self, armor: vocab.Armor) -> Column:
        """The conversion column of an armored category."""
        column: Column = getattr(self.armor_table, armor)
        return column


def lowered(armor: vocab.Armor, ignore: int | str) -> vocab.Armor:
    """The armor category after ignoring `ignore` points (each one category lower; `all`: none)."""
    if ignore == "all":
        return "none"
    assert isinstance(ignore, int)
    return ARMOR_ORDER[max(0, ARMOR_ORDER.index(armor) - ignore)]


def convert(rules: Rules, armor: vocab.Armor, harm: int) -> tuple[int, int]:
    """(remaining Harm, converted Fatigue): the first 3 by the column, the excess stays Harm."""
    if harm <= 0:
        return 0, 0
    if armor == "none":
        return harm, 0
    left, fatigue = cell_values(rules.column(armor)[min(harm, 3) - 1])
    return left + max(0, harm - 3), max(fatigue, rules.min_fatigue_per_armored_hit)


def stepped(rules: Rules, position: vocab.Position, steps: int) -> vocab.Position:
    """`position` moved `steps` rungs up the ladder, capped at the top (excess is lost)."""
    ladder = rules.position_ladder
    return ladder[min(len(ladder) - 1, ladder.index(position) + steps)]


@core.value
class Adversary(core.Combatant):
    """An adversary: Resilience and Fatigue (no Boons, no Harm-level track), armor, phase."""

    resilience: Annotated[int | None, Field(ge=0)]
    fatigue: Annotated[int, Field(ge=0)] = 0
    fatigue_capacity: int | None = None
    armor: vocab.Armor = "none"
    phase: Annotated[int, Field(ge=1)] = 1
    stats: Hidden[vocab.AdversaryStats]

    def check(self) -> None:
        """Fatigue below capacity, and a phase it has."""
        # Fatigue overflows at capacity, so the fold never holds that much; this refuses a GM
        # override (track.adjusted) that would.
        cap = self.fatigue_capacity
        if cap is not None and self.fatigue >= cap:
            raise ValueError(
                f"fatigue {self.fatigue} is not below fatigue_capacity {cap} "
                "(Fatigue overflows at capacity)"
            )
        phases = 1 + len(self.stats.phases)
        if self.phase > phases:
            raise ValueError(f"phase {self.phase} is past its last phase ({phases})")

    @property
    def puzzle(self) -> bool:
        """No Resilience: only its stated Resolution ends it."""
        return self.resilience is None


@core.value
class Player(core.Combatant):
    """A player character: Harm level, Fatigue (tracked when `body` is given), armor."""

    harm: Annotated[int, Field(ge=0)] = 0
    fatigue: Annotated[int | None, Field(ge=0)] = None
    armor: vocab.Armor = "none"
    body: int | None = None

    def check(self) -> None:
        """Fatigue below Body, and only where Body gives a Fatigue track."""
        if self.body is None and self.fatigue is not None:
            # As fatigue.marked is refused: a GM override cannot make up a track either.
            raise ValueError("a player has a Fatigue track only with a body: set body first")
        # As for adversaries: Fatigue overflows at Body, so only a GM override could hold more.
        if self.body is not None and self.fatigue is not None and self.fatigue >= self.body:
            raise ValueError(
                f"fatigue {self.fatigue} is not below body {self.body} (Fatigue overflows at Body)"
            )


@core.value
class FERoll(core.Roll):
    """A roll's computed numbers: successes, SB generated, the DV and effective Position."""

    successes: int
    sb: int
    dv: int
    effective_position: vocab.Position | None = None

    def describe(self) -> str:
        """`3 successes vs DV 3: success, 1 SB (Position controlled)`."""
        plural = "es" * (self.successes != 1)
        where = f" (Position {self.effective_position})" if self.effective_position else ""
        return (
            f"{self.successes} success{plural} vs DV {self.dv}: {self.outcome}, {self.sb} SB{where}"
        )


@core.value
class Hit(core.Value):
    """Every intermediate value of one hit (or Fatigue event) on a combatant."""

    seq: int
    target: str
    incoming: int
    armor: vocab.Armor = "none"
    remaining: int = 0
    converted: int = 0
    before: tuple[int | None, int | None]
    after: tuple[int | None, int | None]
    cleared: bool = False
    overflow: int = 0
    phase: tuple[int, int] = (1, 1)
    defeated: bool = False


@core.value
class FELock(core.Lock):
    """The terms of a Fate's Edge test as the fold and the audit read them after its lock: the
    fields of `FEStakesLocked` of the same names (its free text, the intent and the
    consequence, stays in the log)."""

    kind: vocab.StakeKind = "action"
    opposing: str | None = None
    position: vocab.Position = "controlled"
    dv: int | None = None
    effect: vocab.Effect = "standard"
    harm: int | None = None
    effect_harm: int | None = None
    consequence_harm: int | None = None
    partial: vocab.Partial | None = None
    source: vocab.StakeSource = "player"
    move: str | None = None


#: A lock's terms: as recorded (the event) or as the state keeps them.
Terms = FELock | vocab.FEStakesLocked


@core.value
class FEStake(core.Stake):
    """Locked stakes of a Fate's Edge test."""

    lock: FELock


@core.value
class Books(core.Value):
    """What the audit must remember of a fight beyond its tracks, stakes and rolls (charges,
    SB provenance, the latest hit): a record of its own, since most events change none of it,
    and a state is copied whole on every event."""

    #: stake -> Fatigue marked on its opposing adversary when the stakes were locked (none: 0)
    lock_fatigue: Mapping[str, int] = EMPTY
    #: stake -> seq of the hit on an adversary / harm on a player that charged it
    hit_charged: Mapping[str, int] = EMPTY
    harm_charged: Mapping[str, int] = EMPTY
    #: stake -> the Harm its failed response lets in, while no harm is charged for it (the
    #: consequences the audit reminds of: a few at a time, however long the fight)
    due: Mapping[str, int] = EMPTY
    #: spend seq -> the spend; stake -> spends paying for it; spends not yet claimed by a stake
    #: (a stake's leave when it is rolled: no rule reads what paid for a resolved stake)
    spends: Mapping[int, vocab.SBSpent] = EMPTY
    paid: Mapping[str, tuple[int, ...]] = EMPTY
    credits: tuple[int, ...] = ()
    #: the arithmetic of the latest hit or Fatigue event
    last_hit: Hit | None = None
    #: adversary -> seq of the last harm it landed on a player; and the one an after-hit move used
    last_hit_by: Mapping[str, int] = EMPTY
    triggered: Mapping[str, int] = EMPTY
    #: stake -> its lock seq, for an attack still owing its SB before its roll
    unpaid: Mapping[str, int] = EMPTY
    #: puzzle adversary -> seqs of the hits on it (they change no track: it needs its Resolution)
    puzzle_hits: Mapping[str, tuple[int, ...]] = EMPTY


#: The fields of `Books`, which a state answers by the same names.
BOOKS: Final = frozenset(core.fields_of(Books()))


@core.value
class FatesEdgeState(core.State):
    """The encounter plus what the audit must remember: snapshots, charges, SB provenance
    (`books`, read by their own names: `state.unpaid` is `state.books.unpaid`)."""

    combatants: Mapping[str, Adversary | Player] = EMPTY
    stakes: Mapping[str, FEStake] = EMPTY
    rolls: Sequence[FERoll] = ()
    house: Rules = field(default_factory=Rules)
    #: stake -> the seq of the roll that resolved it (its first effective one; later ones are
    #: not folded): the roll, with the SB it generated, is in `rolls`
    rolled: Mapping[str, int] = EMPTY
    books: Books = field(default_factory=Books)

    @property
    def lock_fatigue(self) -> Mapping[str, int]:
        """`Books.lock_fatigue`."""
        return self.books.lock_fatigue

    @property
    def hit_charged(self) -> Mapping[str, int]:
        """`Books.hit_charged`."""
        return self.books.hit_charged

    @property
    def harm_charged(self) -> Mapping[str, int]:
        """`Books.harm_charged`."""
        return self.books.harm_charged

    @property
    def due(self) -> Mapping[str, int]:
        """`Books.due`."""
        return self.books.due

    @property
    def spends(self) -> Mapping[int, vocab.SBSpent]:
        """`Books.spends`."""
        return self.books.spends

    @property
    def paid(self) -> Mapping[str, tuple[int, ...]]:
        """`Books.paid`."""
        return self.books.paid

    @property
    def credits(self) -> tuple[int, ...]:
        """`Books.credits`."""
        return self.books.credits

    @property
    def last_hit(self) -> Hit | None:
        """`Books.last_hit`."""
        return self.books.last_hit

    @property
    def last_hit_by(self) -> Mapping[str, int]:
        """`Books.last_hit_by`."""
        return self.books.last_hit_by

    @property
    def triggered(self) -> Mapping[str, int]:
        """`Books.triggered`."""
        return self.books.triggered

    @property
    def unpaid(self) -> Mapping[str, int]:
        """`Books.unpaid`."""
        return self.books.unpaid

    @property
    def puzzle_hits(self) -> Mapping[str, tuple[int, ...]]:
        """`Books.puzzle_hits`."""
        return self.books.puzzle_hits

    def roll_of(self, stake: str) -> FERoll | None:
        """The roll that resolved a stake, if it was rolled."""
        seq = self.rolled.get(stake)
        found = self.roll_at(seq) if seq is not None else None
        assert found is None or isinstance(found, FERoll)
        return found

    def lock(self, stake: str | None) -> FELock | None:
        """The terms of the stakes locked under an id (the first lock), if any."""
        found = self.stakes.get(stake) if stake is not None else None
        return found.lock if found is not None else None

    def adversary(self, name: str | None) -> Adversary | None:
        """The named combatant when it is an adversary."""
        found = self.combatants.get(name) if name is not None else None
        return found if isinstance(found, Adversary) else None

    def opposing(self, lock: Terms) -> Adversary | None:
        """The adversary a test is against: `opposing`, else an adversary `target` or actor."""
        for name in (lock.opposing, lock.target, lock.actor):
            found = self.adversary(name)
            if found is not None:
                return found
        return None

    def paid_for(self, stake: str) -> int:
        """SB spent to introduce the attack a stake frames."""
        return sum(self.spends[s].amount for s in self.paid.get(stake, ()))


def renewed(state: FatesEdgeState, **changes: Any) -> FatesEdgeState:
    """`state` with some fields changed, those of its books (`BOOKS`) by their own names: the
    books are copied only when one of theirs changes."""
    kept = [name for name in changes if name in BOOKS]
    if kept:
        books = {name: changes.pop(name) for name in kept}
        changes["books"] = core.replace(state.books, **books)
    return core.replace(state, **changes)


def move_of(adversary: Adversary | None, name: str | None) -> vocab.Move | None:
    """An adversary's named move, if it lists one by that name."""
    if adversary is None or name is None:
        return None
    return next((m for m in adversary.stats.moves if m.name == name), None)


def after_a_hit(move: vocab.Move | None) -> bool:
    """The move's trigger is a hit (e.g. Poisoned Cut): it buys an effect, not an attack."""
    trigger = (move.trigger or "").lower() if move is not None else ""
    return "after a hit" in trigger or "on a hit" in trigger


def attack_cost(state: FatesEdgeState, lock: Terms) -> int:
    """The SB a test's attack must have been bought with: 0 for a consequence or an expressly
    free opportunity attack."""
    if lock.source == "opportunity":
        move = move_of(state.opposing(lock), lock.move)
        return 0 if move is not None and move.free else state.house.ordinary_attack_sb_cost
    if lock.source == "sb_move":
        move = move_of(state.opposing(lock), lock.move)
        return move.cost if move is not None else state.house.ordinary_attack_sb_cost
    if lock.source == "sb_attack" or (lock.source == "player" and lock.kind == "defense"):
        return state.house.ordinary_attack_sb_cost
    return 0


def unpaid_after(
    state: FatesEdgeState, stake: str, lock: FELock | None, paid: int
) -> Mapping[str, int]:
    """`state.unpaid` with `stake` in it exactly when its attack still owes SB before its roll,
    `paid` SB having been spent for it (the mapping itself when that does not change it)."""
    owes = lock is not None and paid < attack_cost(state, lock) and stake not in state.rolled
    if owes == (stake in state.unpaid):
        return state.unpaid
    if owes:
        return core.with_entry(state.unpaid, stake, state.stakes[stake].seq)
    return core.without(state.unpaid, stake)


def spend_owner(state: FatesEdgeState, event: vocab.SBSpent) -> Adversary | None:
    """The adversary whose move (or attack) an SB spend buys."""
    lock = state.lock(event.stake)
    opposing = state.opposing(lock) if lock is not None else None
    if event.move is None or move_of(opposing, event.move) is not None:
        return opposing
    for c in state.combatants.values():
        if isinstance(c, Adversary) and c.active and move_of(c, event.move) is not None:
            return c
    return opposing


# The arithmetic of a damaging hit, in the order the rules text gives it.


def wound(
    adv: Adversary,
    seq: int,
    incoming: int,
    armor: vocab.Armor,
    remaining: int,
    converted: int,
    carry: bool,
) -> tuple[Adversary, Hit]:
    """Remaining Harm off Resilience (clearing Fatigue), then Fatigue, one overflow, phases."""
    before = (adv.resilience, adv.fatigue)
    if adv.resilience is None:  # a puzzle: attrition does not touch it
        hit = Hit(
            seq=seq, target=adv.name, incoming=incoming, armor=armor, before=before, after=before
        )
        return adv, hit
    cap = adv.fatigue_capacity or 1
    listed = (adv.stats.resilience or 0, *adv.stats.phases)
    res, fat, phase, overflow = adv.resilience - remaining, adv.fatigue, adv.phase, 0
    cleared = remaining > 0 and fat > 0
    fat = 0 if remaining > 0 else fat
    pending = converted
    while True:
        if res > 0:
            fat, pending = fat + pending, 0
            if fat >= cap and not overflow:  # once per hit: excess Fatigue is discarded
                res, fat, overflow = res - 1, 0, 1
        if res > 0 or phase >= len(listed):
            break
        excess = -res
        phase += 1
        res, fat = listed[phase - 1] - (excess if carry else 0), 0
        pending = pending if carry else 0
    res = max(res, 0)
    status = "defeated" if res == 0 and adv.active else adv.status
    after = core.replace(adv, resilience=res, fatigue=fat, phase=phase, status=status)
    hit = Hit(
        seq=seq,
        target=adv.name,
        incoming=incoming,
        armor=armor,
        remaining=remaining,
        converted=converted,
        before=before,
        after=(res, fat),
        cleared=cleared,
        overflow=overflow,
        phase=(adv.phase, phase),
        defeated=res == 0,
    )
    return after, hit


def hurt(
    player: Player,
    rules: Rules,
    seq: int,
    incoming: int,
    armor: vocab.Armor,
    remaining: int,
    converted: int,
) -> tuple[Player, Hit]:
    """The SRD player procedure: Harm clears Fatigue and raises the Harm level; then overflow."""
    harm, fat, overflow = player.harm + remaining, player.fatigue, 0
    cleared = remaining > 0 and bool(fat)
    if fat is not None and player.body is not None:
        fat = (0 if remaining > 0 else fat) + converted
        while fat >= player.body and (overflow == 0 or rules.player_overflow_may_loop):
            harm, overflow = harm + 1, overflow + 1
            fat = fat - player.body if rules.player_overflow_may_loop else 0
    dead = harm > rules.player_dead_above_harm
    status = "defeated" if dead and player.active else player.status
    after = core.replace(player, harm=harm, fatigue=fat, status=status)
    hit = Hit(
        seq=seq,
        target=player.name,
        incoming=incoming,
        armor=armor,
        remaining=remaining,
        converted=converted,
        before=(player.harm, player.fatigue),
        after=(harm, fat),
        cleared=cleared,
        overflow=overflow,
        defeated=dead,
    )
    return after, hit


def carries(state: FatesEdgeState, adv: Adversary) -> bool:
    """Whether excess damage crosses phases: the adversary's own rules, else the encounter's."""
    own = adv.stats.carry_excess
    return state.house.phase_excess_carries if own is None else own


def landed(state: FatesEdgeState, who: core.Combatant, hit: Hit) -> FatesEdgeState:
    """The state with `who` as the hit left it, and `hit` as the latest hit."""
    combatants = core.with_entry(state.combatants, who.name, who)
    return renewed(state, last_hit=hit, combatants=combatants)


def struck(
    state: FatesEdgeState, seq: int, target: core.Combatant, harm: int, ignore: Any
) -> tuple[Adversary | Player, Hit]:
    """The target after Harm through its armor (an adversary's, or the player procedure), and
    the hit's arithmetic."""
    if not isinstance(target, Adversary | Player):
        raise BadInput(f"{target.name!r} has no Fate's Edge tracks")
    armor = lowered(target.armor, ignore)
    remaining, converted = convert(state.house, armor, harm)
    if isinstance(target, Player):
        return hurt(target, state.house, seq, harm, armor, remaining, converted)
    return wound(target, seq, harm, armor, remaining, converted, carries(state, target))


def damage(
    state: FatesEdgeState, seq: int, target: core.Combatant, harm: int, ignore: Any
) -> FatesEdgeState:
    """Harm through armor onto an adversary (or a player, by the player procedure)."""
    return landed(state, *struck(state, seq, target, harm, ignore))
