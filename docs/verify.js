#!/usr/bin/env node
// Recompute the hash chain of an encounter ledger export (JSON Lines), with no npm packages.
//
//   node docs/verify.js ford.jsonl      (or: encounter export ford | node docs/verify.js -)
//
// Each line is one event: "type", its fields, and the envelope keys encounter, seq, id,
// recorded_at, prev_hash, hash. The hash of an event is the hex SHA-256 of the UTF-8 JSON,
// keys sorted by code point, no whitespace, of
//   {"body": <the fields>, "encounter", "id", "prev_hash", "recorded_at", "seq", "type"}
// and prev_hash of seq 1 is 64 zeros. The ledger refuses numbers in new events that two
// languages would write differently (fractions, and integers beyond 2^53), so this plain
// JSON.stringify of numbers gives the same text as the ledger's Python.
//
// Prints one line an encounter, as `encounter verify FILE.jsonl` does; exits 1 when a chain
// is broken.
//
// Dice the ledger rolled (an event with "ledger_rolled": {FIELD: SIDES}) are checked once the
// seed is revealed (`dice.revealed`): its SHA-256 must be the digest of the `dice.committed`
// before the roll, and die number `index` (the fields sorted by name, each field's faces in
// order) of the event at `seq` is the first draw k = 0, 1, ... of
//   HMAC-SHA256(key = seed bytes, message = JSON.stringify([name, seq, index, k]))
// read as a 256-bit integer below 2^256 - (2^256 mod sides), mod sides, plus 1 (`name` is the
// commitment's encounter_name, else the encounter's). Exits 1 when a die does not match.
"use strict";

const crypto = require("crypto");
const fs = require("fs");

const ENVELOPE = ["encounter", "seq", "id", "recorded_at", "hash", "prev_hash"];
// Added by `log --json`, not hashed.
const ANNOTATIONS = ["retracted_by", "corrected_by", "rewound_by"];
const GENESIS = "0".repeat(64);

function byCodePoint(a, b) {
  // Python sorts keys by code point; JavaScript's default sort compares UTF-16 units.
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value);
}

function bodyOf(item) {
  const body = {};
  for (const [key, value] of Object.entries(item)) {
    if (key !== "type" && !ENVELOPE.includes(key) && !ANNOTATIONS.includes(key)) {
      body[key] = value;
    }
  }
  return body;
}

function hashOf(item, prevHash) {
  const body = bodyOf(item);
  const envelope = {
    body,
    encounter: item.encounter,
    id: item.id,
    prev_hash: prevHash,
    recorded_at: item.recorded_at,
    seq: item.seq,
    type: item.type,
  };
  return crypto.createHash("sha256").update(canonical(envelope), "utf8").digest("hex");
}

// Dice: the same walk as ledger/dice.py.

const SPACE = 2n ** 256n;

function die(seed, name, seq, index, sides) {
  const key = Buffer.from(seed, "hex");
  const limit = SPACE - (SPACE % BigInt(sides));
  for (let draw = 0; ; draw++) {
    const message = JSON.stringify([name, seq, index, draw]);
    const hex = crypto.createHmac("sha256", key).update(message, "utf8").digest("hex");
    const value = BigInt("0x" + hex);
    if (value < limit) return Number(value % BigInt(sides)) + 1;
  }
}

function digestOf(seed) {
  return crypto.createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex");
}

class Mismatch extends Error {
  constructor(seq, problem) {
    super(problem);
    this.seq = seq;
    this.problem = problem;
  }
}

function diceOf(body, seq) {
  const spec = body.ledger_rolled;
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return [];
  const out = [];
  for (const name of Object.keys(spec).sort(byCodePoint)) {
    const sides = spec[name];
    const value = body[name];
    const faces = Array.isArray(value) ? value : [value];
    const ok = (f) => Number.isInteger(f) && f >= 1 && f <= sides;
    if (!Number.isInteger(sides) || faces.length === 0 || !faces.every(ok)) {
      const shown = value === undefined ? "null" : JSON.stringify(value);
      throw new Mismatch(
        seq,
        `ledger_rolled names ${name} as d${sides}, but the event's ${name} is ${shown}, ` +
          `not faces of d${sides}`,
      );
    }
    for (const face of faces) out.push([name, sides, face]);
  }
  return out;
}

function count(n, noun, many) {
  return `${n} ${n === 1 ? noun : many || noun + "s"}`;
}

function checkDice(encounter, items) {
  const walk = { current: null, pending: [], seen: false, rolls: 0, dice: 0, checked: 0 };
  let bad = null;
  try {
    for (const item of items) {
      const seq = item.seq;
      const body = bodyOf(item);
      if (item.type === "dice.committed") {
        walk.seen = true;
        const name = String(body.encounter_name || encounter);
        walk.current = { seq, digest: String(body.digest), name, rolls: [] };
        walk.pending.push(walk.current);
      } else if (item.type === "dice.revealed") {
        walk.seen = true;
        reveal(walk, seq, String(body.seed));
      } else if ("ledger_rolled" in body) {
        walk.seen = true;
        const found = diceOf(body, seq);
        walk.rolls += 1;
        walk.dice += found.length;
        if (walk.current === null) {
          throw new Mismatch(
            seq,
            `seq ${seq} says the ledger rolled its dice, but no dice commitment was open ` +
              "before it",
          );
        }
        walk.current.rolls.push([seq, body]);
      }
    }
  } catch (error) {
    if (!(error instanceof Mismatch)) throw error;
    bad = error;
  }
  if (bad === null && !walk.seen) return null;
  if (bad !== null) return [`DICE DO NOT MATCH at seq ${bad.seq}: ${bad.problem}`];
  const waiting = walk.pending.filter((c) => c.rolls.length > 0);
  const awaiting = waiting.reduce((n, c) => n + c.rolls.length, 0);
  const lines = [];
  if (walk.checked) {
    lines.push(
      `dice ok: ${count(walk.checked, "die", "dice")} the ledger rolled ` +
        `(${count(walk.rolls - awaiting, "roll")}), each as the revealed seed gives it`,
    );
  }
  if (awaiting) {
    lines.push(
      `dice: awaiting the reveal of the seed committed at seq ${waiting[0].seq}: ` +
        `${count(awaiting, "roll")} by the ledger`,
    );
  }
  if (lines.length === 0) lines.push("dice: committed; no die rolled by the ledger yet");
  return lines;
}

function reveal(walk, seq, seed) {
  if (!/^([0-9a-fA-F]{2})*$/.test(seed)) {
    throw new Mismatch(seq, `seq ${seq} reveals a seed that is not hex`);
  }
  const digest = digestOf(seed);
  const opened = walk.pending.find((c) => c.digest === digest);
  if (opened === undefined) {
    throw new Mismatch(seq, `seq ${seq} reveals a seed that opens no commitment before it`);
  }
  for (const [at, body] of opened.rolls) {
    diceOf(body, at).forEach(([name, sides, face], index) => {
      const expected = die(seed, opened.name, at, index, sides);
      if (face !== expected) {
        throw new Mismatch(
          at,
          `die ${index} of seq ${at} (${name}, d${sides}) is ${face}; the seed revealed at ` +
            `seq ${seq} gives ${expected}`,
        );
      }
      walk.checked += 1;
    });
  }
  walk.pending.splice(walk.pending.indexOf(opened), 1);
  if (walk.current === opened) walk.current = null;
}

function verify(text) {
  const chains = new Map(); // encounter -> {events, expectedSeq, prev, bad, items}
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const item = JSON.parse(line);
    const name = String(item.encounter ?? "");
    if (!chains.has(name)) {
      chains.set(name, { events: 0, expectedSeq: 1, prev: GENESIS, bad: null, items: [] });
    }
    const chain = chains.get(name);
    if (chain.bad) continue;
    chain.events += 1;
    chain.items.push(item);
    if (item.seq !== chain.expectedSeq) {
      chain.bad = `seq ${chain.expectedSeq} is missing (next stored is ${item.seq})`;
    } else if (item.prev_hash !== chain.prev) {
      chain.bad = "prev_hash does not match the previous event's hash";
    } else if (hashOf(item, chain.prev) !== item.hash) {
      chain.bad = "hash does not match the event's contents";
    }
    if (chain.bad) {
      chain.badSeq = chain.expectedSeq;
      continue;
    }
    chain.expectedSeq += 1;
    chain.prev = item.hash;
  }
  return chains;
}

function main() {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write("usage: node verify.js EXPORT.jsonl (or - for stdin)\n");
    process.exit(2);
  }
  const text = fs.readFileSync(path === "-" ? 0 : path, "utf8");
  const chains = verify(text);
  // The dice are checked when every chain holds (the events are then the ones written).
  const whole = [...chains.values()].every((chain) => !chain.bad);
  let broken = false;
  for (const [name, chain] of chains) {
    if (chain.bad) {
      broken = true;
      console.log(`${name}: BROKEN at seq ${chain.badSeq}: ${chain.bad}`);
    } else {
      console.log(`${name}: ${chain.events} events, chain ok, head ${chain.prev}`);
    }
    const dice = whole ? checkDice(name, chain.items) : null;
    for (const line of dice || []) {
      if (line.startsWith("DICE DO NOT MATCH")) broken = true;
      console.log(`${name}: ${line}`);
    }
  }
  process.exit(broken ? 1 : 0);
}

main();
