"""What the envelope and the fields every system shares mean: the JSON Schema's descriptions,
`encounter rules` and docs/events.md are made from these texts and each system's own
(`System.fields` and `System.rules`), by `ledger.reference`.

A field's text is looked up as `TYPE.FIELD` first, then `FIELD`, in its system's texts and
then here; a test fails when an event model has a field with no text.
"""

from __future__ import annotations

from typing import Final

#: The envelope keys, optional on every line of an events file.
ENVELOPE: Final[dict[str, str]] = {
    "encounter": "The encounter's name (assigned on import when absent).",
    "seq": "The event's position in its encounter: 1, 2, ... with no gaps.",
    "id": "A UUID naming the event everywhere; importing it again is a no-op.",
    "recorded_at": "When it was recorded (ISO 8601, UTC).",
    "prev_hash": "The previous event's hash (64 zeros for seq 1).",
    "hash": "SHA-256 of the sorted, compact JSON of the envelope with the body (DESIGN 3).",
    "retracted_by": "An annotation of `log --json`: the seq that retracts this event.",
    "corrected_by": "An annotation of `log --json`: the seq of the correction in force on it.",
    "rewound_by": "An annotation of `log --json`: the seq of the rewind that set it aside.",
}

FIELDS: Final[dict[str, str]] = {
    # Common to every event.
    "type": "The event type (required): names the event and the model of its fields.",
    "round": "Game time: the combat round this happened in.",
    "scene": "Game time: the scene this happened in.",
    "by": "Who recorded it (a player, the GM, a bot).",
    "entered_by": "The GM who entered it in the name of `by` (--as gm --by ana).",
    "source": "Where an imported event came from: a note and its line (an Iron Vault journal).",
    "Source.file": "The note's path, relative to the folder or file the import was given.",
    "Source.line": "The line of the note the event came from (1 is the first).",
    # Common events.
    "system": "The rule system's key.",
    "title": "A title for people.",
    "rules": "The full house-rule table in force, pinned so later defaults never rewrite it.",
    "name": "The combatant's name, unique in the encounter.",
    "side": "Which side the combatant is on.",
    "stats": "The combatant's stat block; its keys are the system's (see its stats).",
    "manner": "How the combatant stopped opposing.",
    "note": "Free text about it.",
    "stake": "The id naming a test (its `stakes.locked`) in the encounter.",
    "actor": "Who acts or rolls.",
    "intent": "What the actor attempts.",
    "consequence": "What a failure costs, as announced.",
    "target": "Whom it affects: a combatant's name.",
    "event.retracted.target": "The seq it retracts (a retraction's seq: a redo).",
    "event.corrected.target": "The seq it corrects.",
    "event.retracted.kind": "undo, redo (a retraction of a retraction) or amend (0.2 streams).",
    "reason": "Why, in words (kept with the ruling).",
    "fields": "The corrected fields (null removes a key; nested keys merge).",
    "encounter.rewound.round": "The game round whose end the encounter goes back to.",
    "encounter.rewound.after": "The seq of that round's last event of play (filled in when "
    "recorded): every effective event of play after it is set aside.",
    "digest": "The hex SHA-256 of the seed's 32 bytes (its 64 hex digits decoded), which stay "
    "outside the file until revealed.",
    "encounter_name": "The name the dice are derived under (the encounter's when committed).",
    "seed": "The revealed seed (64 hex digits): the SHA-256 of its 32 bytes (not of the hex "
    "text) is the commitment's digest.",
    "ledger_rolled": "The fields whose dice the ledger rolled from the committed seed, each "
    "with its dice's sides (`dice: 10`); absent: the faces were typed in.",
    "track": "The track's key (as `tracks --json` names it).",
    "value": "The value the GM sets, applied as given.",
    "values": "The table's sheet, track by track (compared by the audit, not applied).",
    "text": "The note.",
    "outcome": "The table's claimed outcome; the ledger computes its own and the audit compares.",
    "move": "The move named (an adversary's, or an Ironsworn move).",
    "amount": "How much.",
    "cause": "What caused it, in words.",
    # The live table: roles, proposals and rulings (docs/live-table.md).
    "policy": "Who may record what: the GMs, what a player records, what only the GMs see.",
    "player": "The user who plays the combatant (they record its rolls where the policy lets).",
    "event": "The proposed event: its fields, `type` included; it changes nothing until accepted.",
    "proposal.accepted.target": "The seq of the proposal it accepts.",
    "proposal.accepted.fields": "The GM's changes to the proposed fields (merged as a correction).",
    "proposal.rejected.target": "The seq of the proposal it rejects.",
}
