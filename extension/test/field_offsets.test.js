// node --test: how a field selection's offsets follow an edit (content/selection.js adjustOffsets).
// The content script is a classic script; its pure helper is lifted out of the source text here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const source = readFileSync(new URL("../content/selection.js", import.meta.url), "utf8");
const body = /\n  function adjustOffsets\(sel, before, after\) \{\n[\s\S]*?\n  \}\n/.exec(source);
assert.ok(body, "adjustOffsets not found in selection.js");
/** @type {(sel: {start: number, end: number}, before: string, after: string) => {start: number, end: number} | null} */
const adjustOffsets = new Function(`${body[0]}; return adjustOffsets;`)();

const value = "Charles Babbage";
const babbage = { start: 8, end: 15 };

test("an edit before the passage moves it by the length change", () => {
  assert.deepEqual(adjustOffsets(babbage, value, "Mr " + value), { start: 11, end: 18 });
  assert.deepEqual(adjustOffsets(babbage, value, "Carl Babbage"), { start: 5, end: 12 });
});

test("an edit after the passage leaves it alone", () => {
  assert.deepEqual(adjustOffsets(babbage, value, value + ", engineer"), babbage);
  assert.deepEqual(adjustOffsets({ start: 0, end: 7 }, value, "Charles B."), { start: 0, end: 7 });
});

test("replacing the whole passage deletes it; an edit inside it stretches it", () => {
  assert.equal(adjustOffsets(babbage, value, "Charles "), null);
  assert.equal(adjustOffsets(babbage, value, "Mr Charles"), null);
  assert.deepEqual(adjustOffsets(babbage, value, "Charles Babbbbage"), { start: 8, end: 17 });
});
