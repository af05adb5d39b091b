// node --test: the UTF-8 cap (content/utf8_cap.js), run as the classic script the page-text
// extraction injects (node:vm, a fresh global) and as the module text_limits.js re-exports.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import vm from "node:vm";
import { capUtf8 as workerCap } from "../service_worker/text_limits.js";

const source = readFileSync(new URL("../content/utf8_cap.js", import.meta.url), "utf8");
/** @type {{webctxUtf8?: {capUtf8: (t: string, n: number) => string, utf8Length: (t: string) => number}}} */
const sandbox = {};
vm.runInNewContext(source, sandbox, { filename: "utf8_cap.js" });
// Injected twice (a second read of the same page) is harmless.
vm.runInNewContext(source, sandbox, { filename: "utf8_cap.js" });
const { capUtf8, utf8Length } = /** @type {NonNullable<typeof sandbox.webctxUtf8>} */ (sandbox.webctxUtf8);
const encoded = (/** @type {string} */ text) => Buffer.byteLength(text.toWellFormed(), "utf8");

const SAMPLES = ["", "plain ascii", "é and ü", "€ — “quotes”", "emoji 😀 and 👍🏽 flags 🇫🇷", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "mixed a€😀é"];

test("utf8Length is the UTF-8 length of the well-formed text, lone surrogates as U+FFFD", () => {
  for (const text of [...SAMPLES, "lone \ud800 high", "lone \udc00 low", "end \ud83d", "\udc00\ud800"]) {
    assert.equal(utf8Length(text), encoded(text), JSON.stringify(text));
  }
});

test("capUtf8 cuts to at most maxBytes on a code-point boundary, keeping as much as fits", () => {
  for (const text of SAMPLES) {
    for (let max = 0; max <= encoded(text) + 2; max++) {
      const cut = capUtf8(text, max);
      assert.ok(text.startsWith(cut), `${JSON.stringify(text)} @${max}`);
      assert.ok(encoded(cut) <= max, `${JSON.stringify(text)} @${max}: ${encoded(cut)} bytes`);
      assert.equal(cut, cut.toWellFormed(), `${JSON.stringify(text)} @${max}: split a surrogate pair`);
      // Maximal: the next code point would not have fitted.
      const next = text.codePointAt(cut.length);
      if (next !== undefined) assert.ok(encoded(cut + String.fromCodePoint(next)) > max, `${JSON.stringify(text)} @${max}: cut short`);
    }
  }
});

test("a pair straddling the cap is left out whole, never half of it", () => {
  assert.equal(capUtf8("ab😀", 5), "ab");
  assert.equal(capUtf8("ab😀", 6), "ab😀");
  assert.equal(capUtf8("€", 2), "");
});

test("the service worker's capUtf8 (text_limits.js) is this same rule", () => {
  for (const text of SAMPLES) {
    for (const max of [0, 1, 3, 4, 7, 12]) assert.equal(workerCap(text, max), capUtf8(text, max));
  }
});

test("jsonTextOver measures the JSON string in UTF-8 bytes, escapes included", () => {
  const { jsonTextOver } = /** @type {any} */ (sandbox.webctxUtf8);
  assert.equal(jsonTextOver("abc", 5), false); // "abc" with its quotes
  assert.equal(jsonTextOver("abcd", 5), true);
  assert.equal(jsonTextOver("€€", 8), false); // 2 + 6
  assert.equal(jsonTextOver("€€", 7), true);
  assert.equal(jsonTextOver("\u0001", 8), false); // "\u0001"
  assert.equal(jsonTextOver("\u0001", 7), true);
  // 90 MiB of UTF-8 in 30 Mi code units, under a 48 Mi cap on code units: over 48 MiB of bytes.
  assert.equal(jsonTextOver("€".repeat(1024), 3 * 1024), true);
  assert.equal(jsonTextOver("€".repeat(1024), 3 * 1024 + 2), false);
});
