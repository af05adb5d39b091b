// node --test: reassembly of the host's `chunk` frames (chunks.js, docs/internals/protocol.md `chunk`).
import assert from "node:assert/strict";
import test from "node:test";

import { ChunkGroups, MAX_CHUNKS } from "../service_worker/chunks.js";

/** @param {string} of @param {number} index @param {number} count @param {string} data */
const chunk = (of, index, count, data) => ({ type: "chunk", of, index, count, data });

/** Run `fn` with console.warn recorded instead of printed. @param {() => void} fn @returns {string[]} */
function warnings(fn) {
  const seen = [];
  const warn = console.warn;
  console.warn = (...args) => void seen.push(String(args[0]));
  try {
    fn();
  } finally {
    console.warn = warn;
  }
  return seen;
}

test("a group's parts, in any order, make the whole message once the last arrives", () => {
  const groups = new ChunkGroups();
  const text = JSON.stringify({ type: "current", id: "h-1" });
  assert.equal(groups.add(chunk("g", 1, 2, text.slice(10))), null);
  assert.deepEqual(groups.add(chunk("g", 0, 2, text.slice(0, 10))), { whole: { type: "current", id: "h-1" } });
  groups.clear();
});

test("malformed and inconsistent chunks are dropped; the group keeps what it had", () => {
  const groups = new ChunkGroups();
  const seen = warnings(() => {
    assert.equal(groups.add(chunk("g", 0, MAX_CHUNKS + 1, "x")), null);
    assert.equal(groups.add(chunk("g", 2, 2, "x")), null);
    assert.equal(groups.add(chunk("g", 0, 2, '{"type":')), null);
    assert.equal(groups.add(chunk("g", 0, 2, "again")), null); // the same index twice
    assert.equal(groups.add(chunk("g", 1, 3, "x")), null); // another count
  });
  assert.deepEqual(seen, [
    "webctx: dropped a malformed chunk",
    "webctx: dropped a malformed chunk",
    "webctx: dropped an inconsistent chunk of group %s",
    "webctx: dropped an inconsistent chunk of group %s",
  ]);
  assert.deepEqual(groups.add(chunk("g", 1, 2, '"ping"}')), { whole: { type: "ping" } });
  groups.clear();
});

test("a completed group that is not JSON, or is a chunk itself, is dropped", () => {
  const groups = new ChunkGroups();
  const seen = warnings(() => {
    assert.equal(groups.add(chunk("a", 0, 1, "{not json")), null);
    assert.equal(groups.add(chunk("b", 0, 1, JSON.stringify(chunk("c", 0, 1, "{}")))), null);
  });
  assert.deepEqual(seen, ["webctx: dropped chunk group %s: not JSON", "webctx: dropped chunk group %s: chunks inside chunks"]);
});
