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
"use strict";

const crypto = require("crypto");
const fs = require("fs");

const ENVELOPE = ["encounter", "seq", "id", "recorded_at", "hash", "prev_hash"];
const ANNOTATIONS = ["retracted_by", "corrected_by"]; // added by `log --json`, not hashed
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

function hashOf(item, prevHash) {
  const body = {};
  for (const [key, value] of Object.entries(item)) {
    if (key !== "type" && !ENVELOPE.includes(key) && !ANNOTATIONS.includes(key)) {
      body[key] = value;
    }
  }
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

function verify(text) {
  const chains = new Map(); // encounter -> {events, expectedSeq, prev, bad}
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const item = JSON.parse(line);
    const name = String(item.encounter ?? "");
    if (!chains.has(name)) {
      chains.set(name, { events: 0, expectedSeq: 1, prev: GENESIS, bad: null });
    }
    const chain = chains.get(name);
    if (chain.bad) continue;
    chain.events += 1;
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
  let broken = false;
  for (const [name, chain] of verify(text)) {
    if (chain.bad) {
      broken = true;
      console.log(`${name}: BROKEN at seq ${chain.badSeq}: ${chain.bad}`);
    } else {
      console.log(`${name}: ${chain.events} events, chain ok, head ${chain.prev}`);
    }
  }
  process.exit(broken ? 1 : 0);
}

main();
