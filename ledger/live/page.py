"""What the live page shows of an encounter, and nothing the players may not see.

The tracks (a table a side), the open proposals, the same charts as the report and the events
in words, built from the encounter as it stands. A track the policy hides from the players
(`hidden`: an adversary's Resilience, say) is left out here, before anything is rendered: its
column, its chart line, its changes; an event whose words would carry it (it changed a hidden
track, or gives a stat block of that side) is told in plain words without it. So a hidden
value is never sent to the page at all, not merely hidden by CSS.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ledger import events, systems
from ledger.api import Ledger
from ledger.report import Chart, charts_of
from ledger.report import svg as report_svg
from ledger.report.html import Table
from projections import core, shown, words
from projections.changes import POOLS, Change
from projections.replay import Step

#: Whether a track of a side is hidden from the players: (side, track) -> bool.
Hides = Callable[[str, str], bool]

#: How many of the last events the page tells.
LAST = 40

#: The page's script: it swaps in each new version of the page the server sends.
SCRIPT = """(() => {
  const main = document.getElementById("live");
  const status = document.getElementById("status");
  const source = new EventSource("events" + window.location.search);
  source.addEventListener("page", (message) => {
    const page = JSON.parse(message.data);
    main.innerHTML = page.html;
    status.textContent = "Live: seq " + page.seq;
  });
  source.addEventListener("error", () => {
    status.textContent = "Reconnecting...";
  });
})();
"""


def script_hash() -> str:
    """The CSP hash that lets the page's script (and nothing else) run."""
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


#: The page's Content-Security-Policy: its own script, inline style, charts, and the stream
#: (as the page's own meta element carries it; the server's header adds `frame-ancestors`).
CSP = (
    f"default-src 'none'; script-src '{script_hash()}'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)


@dataclass(frozen=True)
class Told:
    """One event as the page tells it."""

    seq: int
    by: str | None
    text: str


@dataclass(frozen=True)
class Page:
    """The live page's contents at one seq."""

    encounter: str
    title: str | None
    system: str
    seq: int
    when: str
    tables: tuple[Table, ...]
    pools: str | None
    proposals: tuple[str, ...]
    charts: tuple[tuple[Chart, report_svg.Drawing], ...]
    events: tuple[Told, ...]
    hidden: tuple[str, ...]


def hides(state: core.State) -> Hides:
    """What the policy in force hides from the players (nothing, without a policy)."""
    policy = state.policy
    if policy is None:
        return lambda side, track: False
    return policy.hides


def build(book: Ledger, encounter: str) -> Page:
    """The page of `encounter` as it stands."""
    # The state as it stands (its seq the head's: an undo is no step of the replay).
    state = book.tracks(encounter)
    hidden = hides(state)
    read = systems.readings(state.system)
    played = list(
        book.replay(
            encounter, start=max(1, book.store.require(encounter).seq - LAST + 1), as_played=True
        )
    )
    policy = state.policy
    return Page(
        encounter=state.encounter,
        title=state.title,
        system=state.system,
        seq=state.seq,
        when=shown.when(state.round, state.scene),
        tables=tuple(_tables(state, hidden, read)),
        pools=shown.pools_text(state.pools),
        proposals=tuple(_proposals(state, hidden)),
        charts=tuple((c, report_svg.draw(c)) for c in charts_of(book.replay(encounter), hidden)),
        events=tuple(_told(step, hidden) for step in islice(played, LAST)),
        hidden=tuple(
            f"{side} {', '.join(words.plain(t) for t in tracks)}"
            for side, tracks in (policy.hidden.items() if policy else ())
            if tracks
        ),
    )


def _tables(state: core.State, hidden: Hides, read: Mapping[str, shown.Reading]) -> list[Table]:
    """A table a side, its hidden tracks left out."""
    out = []
    view = state.view()["combatants"]
    for side in ("player", "adversary"):
        rows = {name: tracks for name, tracks in view.items() if tracks["side"] == side}
        if not rows:
            continue
        keys = list(dict.fromkeys(k for tracks in rows.values() for k in tracks))
        columns = [k for k in keys if k not in ("side", "status") and not hidden(side, k)]
        header = (side, "status", *(c.replace("_", " ") for c in columns))
        body = tuple(
            (
                name,
                str(tracks["status"]),
                *(shown.shown(tracks.get(c), read.get(c)) for c in columns),
            )
            for name, tracks in rows.items()
        )
        out.append(Table(header, body))
    return out


def _side(state: core.State | None, name: str) -> str | None:
    found = state.combatants.get(name) if state is not None else None
    return found.side if found is not None else None


def _visible(
    changes: Sequence[Change], state: core.State, before: core.State | None, hidden: Hides
) -> list[Change]:
    """The changes the players may see."""
    kept = []
    for change in changes:
        if change.combatant != POOLS and change.track != "status":
            side = _side(state, change.combatant) or _side(before, change.combatant)
            if side is not None and hidden(side, change.track):
                continue
        kept.append(change)
    return kept


def _hiding(side: str | None, hidden: Hides, state: core.State) -> bool:
    """Whether anything of a combatant of `side` is hidden."""
    if side is None:
        return False
    return any(hidden(side, track) for track in _tracks_of(state, side))


def _tracks_of(state: core.State, side: str) -> list[str]:
    return [t for c in state.combatants.values() if c.side == side for t in c.view()]


def _private(step: Step, hidden: Hides) -> bool:
    """Whether the words of a step could carry a hidden value."""
    state, before, event = step.state, step.before, step.record.event
    if len(_visible(step.changes, state, before, hidden)) != len(step.changes):
        return True
    names = [getattr(event, role, None) for role in ("name", "target", "actor", "opposing")]
    sides = {_side(state, n) or _side(before, n) for n in names if isinstance(n, str)}
    if isinstance(event, events.CombatantJoined | events.TrackAdjusted | events.TracksNoted):
        return any(_hiding(side, hidden, state) for side in sides)
    if isinstance(event, events.EventCorrected):
        # A correction may change a stat block: any hidden track at all keeps it plain.
        return any(_hiding(s, hidden, state) for s in ("player", "adversary"))
    if isinstance(event, events.ProposalMade | events.ProposalAccepted):
        return any(_hiding(side, hidden, state) for side in _sides_named(event, state))
    return False


def _sides_named(event: events.EventBase, state: core.State) -> set[str | None]:
    body = events.body_of(event)
    inner = body.get("event")
    more = inner.values() if isinstance(inner, dict) else ()
    names = [v for v in (*body.values(), *more) if isinstance(v, str)]
    return {_side(state, n) for n in names}


def _told(step: Step, hidden: Hides) -> Told:
    """An event in words, or in plain words without what the players may not see."""
    record = step.record
    if not _private(step, hidden):
        return Told(record.seq, record.event.by, step.text)
    return Told(record.seq, record.event.by, public(step, hidden))


#: Fields the page never tells of a private event: a stat block, a sheet, values set.
_WITHHELD = frozenset({"stats", "values", "value", "fields", "event", "policy", "rules", "by"})


def public(step: Step, hidden: Hides) -> str:
    """An event in plain words: its type, its fields but those that may hold a hidden value,
    and the changes the players may see."""
    event = step.record.event
    if isinstance(event, events.CombatantJoined):
        side = "a player" if event.side == "player" else "an adversary"
        played = f" (played by {event.player})" if event.player else ""
        return f"{event.name} joins as {side}{played}"
    body = events.body_of(event)
    fields = ", ".join(
        f"{words.plain(k)} {words.value(v)}"
        for k, v in body.items()
        if k not in _WITHHELD and k not in ("round", "scene")
    )
    head = words.plain(events.type_of(event))
    if isinstance(event, events.ProposalMade):
        kind = event.event.get("type", "an event")
        head = f"{event.by or 'someone'} proposes {words.plain(str(kind))}"
    if isinstance(event, events.ProposalAccepted):
        head = f"the GM accepts the proposal at seq {event.target}"
        fields = ""
    text = head + (f" ({fields})" if fields else "")
    kept = _visible(step.changes, step.state, step.before, hidden)
    told = words.tell(kept, type(step.state).readings)
    return f"{text}; {told}" if told else text


def _proposals(state: core.State, hidden: Hides) -> list[str]:
    """The open proposals in words (plain words where they would touch a hidden track)."""
    ruleset = systems.ruleset(state.system)
    lines = []
    for seq, proposal in state.proposals.items():
        body = dict(proposal.event)
        named = {_side(state, v) for v in body.values() if isinstance(v, str)}
        if any(_hiding(side, hidden, state) for side in named):
            fields = ", ".join(
                f"{words.plain(k)} {words.value(v)}"
                for k, v in body.items()
                if k not in ("type", "by")
            )
            kind = words.plain(str(body.get("type")))
            text = f"{proposal.by or 'someone'} proposes {kind} ({fields})"
        else:
            text = words.proposed_now(ruleset, state, proposal)
        lines.append(f"seq {seq}: {text}")
    return lines


def render(page: Page, *, whole: bool) -> str:
    """The page as HTML: `whole`, the document; else the part the script swaps in."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ledger.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Every text shown with its control characters escaped; the page's own script as it is.
        finalize=_visible_text,
    )
    template = env.get_template("live.html.j2" if whole else "live_main.html.j2")
    return template.render(page=page, script=SCRIPT, csp=CSP)


def _visible_text(value: Any) -> Any:
    """A text with its control characters escaped; markup (the page's script) as it is."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return shown.visible(value)
    return value


def document(page: Page) -> dict[str, Any]:
    """What the stream sends: the seq and the part of the page to swap in."""
    return {"seq": page.seq, "html": render(page, whole=False)}
