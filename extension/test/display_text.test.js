// node --test: page strings and client names as the extension's pages show them
// (service_worker/display_text.js), and the popup's lines built from them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { displayText, partsText } from "../service_worker/display_text.js";
import { describeRead, readParts } from "../popup/activity.js";
import { sharedRows } from "../popup/shared_now.js";

test("controls, bidi, zero-width and tag characters are removed; breaks become a space", () => {
  assert.equal(displayText("Evil\u001b[2J\nClaude"), "Evil[2J Claude");
  assert.equal(displayText("a\u0000b\u0007c\u009bd"), "abcd");
  assert.equal(displayText("Shop \u202egnp.exe\u202c"), "Shop gnp.exe");
  for (const mark of ["\u200e", "\u200f", "\u202a", "\u202b", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u061c"]) {
    assert.equal(displayText(`x${mark}y`), "xy", `U+${mark.codePointAt(0)?.toString(16)}`);
  }
  assert.equal(displayText("a\u200bb\u200dc\ufeffd\u2060e"), "abcde");
  assert.equal(displayText("tag\u{e0041}\u{e0062}\u{e007f}s"), "tags");
  assert.equal(displayText("one\u2028two\u2029three\u0085four\r\nfive"), "one two three four five");
  assert.equal(displayText("שלום — Hello 😀"), "שלום — Hello 😀"); // letters of any direction stay
  assert.equal(displayText(undefined), "");
});

test("Who read it: a client name with ESC, a newline and RLO is one clean line", () => {
  const entry = {
    at: 0, tool: "current", ok: true,
    client: { name: "Evil\u001b[2J\nClaude\u202e\u2028Code\u200b", version: "1\u0007" },
    elements: [{ kind: "page", id: "tab-1", page: "tab-1", title: "T\u202eitle" }, { kind: "selection", id: "s", page: "tab-1" }],
  };
  assert.equal(describeRead(/** @type {any} */ (entry), 0), "Evil[2J Claude Code 1 read the selection in 'Title' just now");
  const pages = readParts(/** @type {any} */ (entry), 0).filter((p) => typeof p !== "string");
  assert.equal(pages.length, 2); // the name and the title, each isolated when rendered
  assert.equal(partsText(pages), "Evil[2J Claude Code 1'Title'");
});

test("Shared now: the page's title is a page string, stripped, apart from the site", () => {
  const root = {
    role: "Application", children: [{
      role: "Window", id: "win-1", focused: true,
      children: [{ role: "Page", id: "tab-1", url: "https://real.example/x", title: "Bank \u202elapyap\u202c" }],
    }],
  };
  const [page] = sharedRows(/** @type {any} */ (root), "win-1");
  assert.equal(page.text, "Bank lapyap — real.example");
  assert.deepEqual(page.parts, [{ page: "Bank \u202elapyap\u202c" }, " — real.example"]);
});
