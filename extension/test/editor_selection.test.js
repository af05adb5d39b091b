// node --test: the checks on what the page's world answers for a code editor
// (content/editor_selection.js `parseAnswer`) and the cut of a drawn selection element to the
// editor's box (`clip`). The content script is a classic script; its pure functions are lifted out
// of the source text.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const source = readFileSync(new URL("../content/editor_selection.js", import.meta.url), "utf8");
// firstChars and lastChars are text_clean.js's, shared with selection.js.
const cleanSource = readFileSync(new URL("../content/text_clean.js", import.meta.url), "utf8");
/** @param {string} name */
const lift = (name) => {
  const found = new RegExp(`\\n  function ${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n  \\}\\n`).exec(source) ??
    new RegExp(`\\n  function ${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n  \\}\\n`).exec(cleanSource);
  assert.ok(found, `${name} not found in editor_selection.js or text_clean.js`);
  return found[0];
};
/** @param {string} name */
const constant = (name) => {
  const found = new RegExp(`\\n  const ${name} = [^;]*;`).exec(source);
  assert.ok(found, `${name} not found`);
  return found[0];
};
const names = ["MAX_TEXT_CHARS", "CONTEXT_CHARS", "MAX_ANSWER_CHARS", "NAME", "MAX_SELECTOR_CHARS"];
/** @type {{parseAnswer: (raw: unknown) => any, clip: (r: object, box: object) => any}} */
const lifted = new Function(
  `${names.map(constant).join("\n")}\n${["parseAnswer", "clip", "firstChars", "lastChars"].map(lift).join("\n")}; return {parseAnswer, clip};`,
)();
const { parseAnswer, clip } = lifted;

const good = { editor: "codemirror", root: ".cm-editor", layer: ".cm-selectionBackground", reading: { text: "ab", start: 3, length: 90000, before: "x", after: "y" } };

test("a well-formed answer is taken, its long text cut to the selection cap with the whole length kept", () => {
  assert.deepEqual(parseAnswer(JSON.stringify(good)), good);
  const long = { ...good, reading: { ...good.reading, text: "a".repeat(70000) } };
  const parsed = parseAnswer(JSON.stringify(long));
  assert.equal(parsed.reading.text.length, 65536);
  assert.equal(parsed.reading.length, 90000);
});

test("an editor whose model is out of reach answers 'unknown'; a collapsed selection null", () => {
  assert.deepEqual(parseAnswer(JSON.stringify({ ...good, reading: "unknown" })).reading, "unknown");
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: null })).reading, null);
});

test("anything else from the page is dropped: not a string, too long, bad JSON, wrong types, odd names", () => {
  assert.equal(parseAnswer(good), null, "an object, not the JSON text");
  assert.equal(parseAnswer("{"), null);
  assert.equal(parseAnswer("x".repeat(500000)), null, "over the answer cap: not parsed");
  assert.equal(parseAnswer(JSON.stringify({ ...good, editor: "Monaco Editor!" })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, editor: "m".repeat(40) })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, root: "" })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, layer: "x".repeat(300) })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: { ...good.reading, length: 1 } })), null, "shorter than its text");
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: { ...good.reading, start: -1 } })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: { ...good.reading, start: 1.5 } })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: { ...good.reading, text: 5 } })), null);
  assert.equal(parseAnswer(JSON.stringify({ ...good, reading: "all" })), null);
});

test("a drawn selection element is cut to the editor's box; one wholly outside it is dropped", () => {
  const box = { left: 40, top: 60, right: 740, bottom: 460 };
  assert.deepEqual(clip({ left: 96, top: 80, right: 738, bottom: 701 }, box), { x: 96, y: 80, w: 642, h: 380 });
  assert.equal(clip({ left: 96, top: 470, right: 738, bottom: 485 }, box), null);
});

// main_world/editor_adapters.js: what the page's world sends, cut before it is sliced.
const adapters = readFileSync(new URL("../main_world/editor_adapters.js", import.meta.url), "utf8");
/** @param {string} name */
const liftFrom = (name) => {
  const found = new RegExp(`\\n  function ${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n  \\}\\n`).exec(adapters);
  assert.ok(found, `${name} not found in editor_adapters.js`);
  return found[0];
};
/** @type {{reading: (model: object) => any, documentStart: (model: object) => any}} */
const shared = new Function(
  `const MAX_TEXT_CHARS = 65536; const CONTEXT_CHARS = 200; const isSafe = Number.isSafeInteger;\n${liftFrom("reading")}\n${liftFrom("documentStart")}; return {reading, documentStart};`,
)();

/** A 10 MB document whose slices are recorded. */
function bigModel(from, to) {
  const calls = [];
  const length = 10_000_000;
  return { calls, model: { from, to, length, slice: (a, b) => (calls.push(b - a), "x".repeat(b - a)) } };
}

test("an adapter's reading slices at most the cap and the context, whatever the selection's size", () => {
  const { calls, model } = bigModel(1000, 9_000_000);
  const read = shared.reading(model);
  assert.equal(read.text.length, 65536);
  assert.equal(read.length, 8_999_000);
  assert.equal(read.start, 1000);
  assert.equal(read.before.length, 200);
  assert.equal(read.after.length, 200);
  assert.ok(Math.max(...calls) <= 65536, `sliced ${Math.max(...calls)}`);
  const start = shared.documentStart(model);
  assert.deepEqual([start.text.length, start.length], [65536, 10_000_000]);
});

test("a collapsed selection reads as null; a malformed model as undefined (the DOM read stands)", () => {
  assert.equal(shared.reading(bigModel(5, 5).model), null);
  assert.equal(shared.reading(bigModel(-1, 5).model), undefined);
  assert.equal(shared.reading(bigModel(5, 20_000_000).model), undefined, "past the document's end");
  assert.equal(shared.reading(bigModel(0.5, 5).model), undefined);
  assert.equal(shared.documentStart({ length: "many", slice: () => "" }), undefined);
});
