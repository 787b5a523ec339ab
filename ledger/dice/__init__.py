"""Dice anyone can verify: a secret seed, committed by its SHA-256 before the first die it rolls,
kept outside the ledger file until it is revealed.

`encounter dice commit` draws 32 random bytes (`secrets`), keeps them as hex in the user's state
directory (`$XDG_STATE_HOME/encounter-ledger/dice/DIGEST.seed`, readable by the user alone;
never in the file or an export), and appends `dice.committed {digest}`. A roll verb's `--roll`
then lets the ledger roll: die number `index` (0, 1, ... over the fields the event's
`ledger_rolled` names, sorted by name, each field's faces in order; a single number is one die)
of the event at `seq` is

    draw k = HMAC-SHA256(key = the seed's bytes, message = UTF-8 JSON [name, seq, index, k]),
             read as a 256-bit big-endian integer, for k = 0, 1, 2, ...
    face   = draw mod sides + 1, for the first draw below 2^256 - (2^256 mod sides)

(rejection sampling: every face is exactly as likely; a draw is refused once in 2^250 or so).
`name` is the commitment's `encounter_name` (the encounter's name when it was committed), the
JSON has no spaces (`["ford",12,0,0]`). `dice.revealed {seed}` lets anyone recompute every die:
`encounter verify` does, naming the first that does not match, and so does docs/verify.js.
"""

from __future__ import annotations

from ledger.dice.check import Checks, Commitment, DiceReport, bodies, check, open_commitment
from ledger.dice.derive import (
    SEED_BYTES,
    Throw,
    dice_of,
    die,
    digest_of,
    draws,
    face,
    kept_seed,
    new_seed,
    roll,
    seed_file,
    seed_folder,
)

__all__ = [
    "SEED_BYTES",
    "Checks",
    "Commitment",
    "DiceReport",
    "Throw",
    "bodies",
    "check",
    "dice_of",
    "die",
    "digest_of",
    "draws",
    "face",
    "kept_seed",
    "new_seed",
    "open_commitment",
    "roll",
    "seed_file",
    "seed_folder",
]
