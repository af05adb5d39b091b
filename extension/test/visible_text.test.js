// node --test: content/visible_text.js, the classic script the manifest loads before selection.js.
// The walk over a live Range and the hiding rules need a page (tests/e2e/test_selection_visible.py
// runs them in Chromium); here: it defines only `webctxVisibleText`, survives a second injection,
// and `joinPieces` builds a selection's text from the visible pieces.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";

const source = readFileSync(new URL("../content/visible_text.js", import.meta.url), "utf8");
/** @type {Record<string, any>} */
const sandbox = {};
vm.runInNewContext(source, sandbox, { filename: "visible_text.js" });
vm.runInNewContext(source, sandbox, { filename: "visible_text.js" });
const { joinPieces } = sandbox.webctxVisibleText;

test("visible_text.js defines webctxVisibleText and nothing else", () => {
  assert.deepEqual(Object.keys(sandbox), ["webctxVisibleText"]);
});

test("pieces of one block join with their white space collapsed, trimmed at the ends", () => {
  const p = {};
  assert.equal(joinPieces([{ text: "\n  Start ", block: p }, { text: "middle\n ", block: p }, { text: "end.", block: p }]), "Start middle end.");
  assert.equal(joinPieces([{ text: "a", block: p }, { text: "b", block: p }]), "ab"); // no space added inside a word
});

test("a change of block is one line break, without spaces around it", () => {
  const [p, q] = [{}, {}];
  assert.equal(joinPieces([{ text: "Click anywhere. ", block: p }, { text: "\n", block: null }, { text: " Next", block: q }]), "Click anywhere.\nNext");
});

test("white space alone neither starts a line nor ends up at the ends", () => {
  const [p, q] = [{}, {}];
  assert.equal(joinPieces([{ text: "  ", block: q }, { text: "one", block: p }, { text: " ", block: q }]), "one");
  assert.equal(joinPieces([]), "");
});

test("the manifest loads the shared rules before selection.js, which uses them", () => {
  const manifest = JSON.parse(readFileSync(new URL("../manifest.json", import.meta.url), "utf8"));
  const files = manifest.content_scripts.flatMap((/** @type {{js: string[]}} */ entry) => entry.js);
  const at = (/** @type {string} */ name) => files.indexOf(`content/${name}`);
  for (const name of ["text_clean.js", "hidden_text.js", "visible_text.js"]) {
    assert.ok(at(name) >= 0 && at(name) < at("selection.js"), name);
  }
});
