// node --test: every content-script listener on the document or its window goes through
// `ns.listen` (content/namespace.js), which puts it back after `document.open()` erased it (issue
// 17: editor frames written with document.open/write stopped reporting). A direct
// addEventListener there would go deaf in such a frame, so none is allowed outside namespace.js
// and errors_port.js (a one-shot hand-over at document_start, before any page script runs).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import test from "node:test";

const folder = new URL("../content/", import.meta.url);
const EXEMPT = new Set(["namespace.js", "errors_port.js"]);

test("content scripts add document and window listeners only through ns.listen", () => {
  const direct = [];
  for (const name of readdirSync(folder).filter((n) => n.endsWith(".js") && !EXEMPT.has(n))) {
    const lines = readFileSync(new URL(name, folder), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/\b(document|window)\.(add|remove)EventListener\(/.test(line)) direct.push(`${name}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(direct, []);
});

test("every content script starts at document_start", () => {
  // A document_end or document_idle injection holds back the page's load event while Chromium
  // lays out and paints a big page first (docs/internals/extension.md "When the content scripts start").
  const manifest = JSON.parse(readFileSync(new URL("../manifest.json", import.meta.url), "utf8"));
  const late = manifest.content_scripts.filter((/** @type {{run_at?: string}} */ entry) => entry.run_at !== "document_start");
  assert.deepEqual(late, []);
});
