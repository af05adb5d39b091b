// node --test: content/page_text.js as the classic script the worker injects. Its extraction needs
// a page (tests/e2e/test_page_text_extraction.py runs it in Chromium); here: it defines only
// `webctxPageText`, can be injected twice, and names the files missing from an injection.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";

const source = readFileSync(new URL("../content/page_text.js", import.meta.url), "utf8");

test("page_text.js defines webctxPageText and nothing else, and survives a second injection", () => {
  /** @type {Record<string, unknown>} */
  const sandbox = {};
  vm.runInNewContext(source, sandbox, { filename: "page_text.js" });
  vm.runInNewContext(source, sandbox, { filename: "page_text.js" });
  assert.deepEqual(Object.keys(sandbox), ["webctxPageText"]);
  assert.equal(typeof sandbox.webctxPageText, "function");
});

test("a file missing from the injection is an error naming it, not a silent visible-text answer", () => {
  /** @type {Record<string, any>} */
  const sandbox = { Readability: function () {}, webctxUtf8: {} };
  vm.runInNewContext(source, sandbox, { filename: "page_text.js" });
  assert.throws(() => sandbox.webctxPageText({ maxBytes: 4096 }), /TurndownService, turndownPluginGfm, webctxSecret not injected/);
});
