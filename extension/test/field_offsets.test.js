// node --test: how a field selection's offsets follow an edit (content/selection.js adjustOffsets).
// The content script is a classic script; its pure helper is lifted out of the source text here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const source = readFileSync(new URL("../content/selection.js", import.meta.url), "utf8");
/** @param {string} name @returns {string} the source of the content script's function `name` */
const lift = (name) => {
  const body = new RegExp(`\\n  function ${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n  \\}\\n`).exec(source);
  assert.ok(body, `${name} not found in selection.js`);
  return body[0];
};
/** @type {(sel: {start: number, end: number}, before: string, after: string, caret?: number) => {start: number, end: number} | null} */
const adjustOffsets = new Function(`${lift("adjustOffsets")}${lift("commonEnds")}${lift("editAt")}; return adjustOffsets;`)();

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

test("with the caret (typing), the edit is confirmed at the caret and gives the same offsets", () => {
  const sel = { start: 20, end: 30 };
  const base = "The quick brown fox jumps over the lazy dog, again and again.";
  for (let at = 0; at <= base.length; at++) {
    const inserted = base.slice(0, at) + "xy" + base.slice(at);
    const deleted = base.slice(0, at) + base.slice(at + 1);
    const caretInsert = at + 2;
    // An ambiguous edit (a letter next to the same letter) may be placed differently: compare
    // only where the slow path finds the same span.
    const slowI = adjustOffsets(sel, base, inserted);
    const fastI = adjustOffsets(sel, base, inserted, caretInsert);
    if (base[at] !== "x" && base[at - 1] !== "y") assert.deepEqual(fastI, slowI, `insert at ${at}`);
    if (at < base.length && base[at] !== base[at + 1] && base[at] !== base[at - 1]) {
      assert.deepEqual(adjustOffsets(sel, base, deleted, at), adjustOffsets(sel, base, deleted), `delete at ${at}`);
    }
  }
  // A caret that does not fit the edit falls back to the full comparison.
  assert.deepEqual(adjustOffsets(sel, base, "Mr " + base, 50), { start: 23, end: 33 });
});

test("a keystroke in a 1 MB value is confirmed without walking the value", () => {
  const before = "lorem ipsum ".repeat(83334);
  const after = before.slice(0, 500000) + "x" + before.slice(500000);
  const times = [];
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    assert.deepEqual(adjustOffsets({ start: 600000, end: 600010 }, before, after, 500001), { start: 600001, end: 600011 });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  assert.ok(times[10] < 5, `median ${times[10]} ms`);
});
