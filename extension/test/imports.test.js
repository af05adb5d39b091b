// node --test: the service worker's modules import one another without cycles (a leaf
// imports nothing back; e.g. tree.js → pointing.js → text_limits.js, never pointing.js → tree.js),
// only browser_api.js (with its parts) touches chrome.*, and the pure modules never reach it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

const folder = new URL("../service_worker/", import.meta.url);
const folderPath = fileURLToPath(folder);

/** @returns {Map<string, string>} source text by path relative to service_worker/ */
function sources() {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    out.set(relative(folderPath, path).replaceAll("\\", "/"), readFileSync(path, "utf8"));
  }
  return out;
}

/**
 * The service-worker modules `source` imports at run time (JSDoc `import("…")` types do not count).
 * @param {string} path relative to service_worker/
 * @param {string} source
 * @returns {string[]} paths relative to service_worker/
 */
function importsOf(path, source) {
  const found = [];
  for (const match of source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)";/gms)) {
    const target = new URL(match[1], new URL(path, folder)).pathname;
    if (target.startsWith(folder.pathname)) found.push(target.slice(folder.pathname.length));
  }
  return found;
}

test("no import cycle among the service worker's modules", () => {
  const all = sources();
  const graph = new Map([...all].map(([path, source]) => [path, importsOf(path, source)]));
  /** @type {Map<string, "open" | "done">} */
  const state = new Map();
  /** @param {string} node @param {string[]} trail */
  const visit = (node, trail) => {
    if (state.get(node) === "done") return;
    assert.notEqual(state.get(node), "open", `import cycle: ${[...trail, node].join(" → ")}`);
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    state.set(node, "done");
  };
  for (const node of graph.keys()) visit(node, []);
});

test("text_limits.js is a leaf, and pointing.js does not import tree.js", () => {
  const all = sources();
  assert.deepEqual(importsOf("text_limits.js", /** @type {string} */ (all.get("text_limits.js"))), []);
  assert.ok(!importsOf("pointing.js", /** @type {string} */ (all.get("pointing.js"))).includes("tree.js"));
});

test("only browser_api.js and its parts call chrome.*", () => {
  for (const [path, source] of sources()) {
    if (path === "browser_api.js" || path.startsWith("browser_api/")) continue;
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    assert.ok(!/\bchrome\.[a-z]/.test(code), `${path} calls chrome.* (only browser_api.js may)`);
  }
});

/** Modules of pure logic (no chrome.*, node-tested), which must not reach browser_api.js at all. */
const PURE = [
  "browser_identity.js",
  "chunks.js",
  "confirm_gate.js",
  "ids.js",
  "location.js",
  "page_tools.js",
  "pointing.js",
  "screenshot.js",
  "settings.js",
  "tab_model.js",
  "text_limits.js",
  "tool_names.js",
  "tree.js",
  "tree_push.js",
];

test("the pure modules do not import browser_api.js, directly or through another module", () => {
  const all = sources();
  const graph = new Map([...all].map(([path, source]) => [path, importsOf(path, source)]));
  for (const start of PURE) {
    assert.ok(graph.has(start), `${start} is gone: update PURE`);
    const seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      const node = /** @type {string} */ (queue.shift());
      for (const next of graph.get(node) ?? []) {
        assert.ok(!next.startsWith("browser_api"), `${start} reaches ${next} through ${node}`);
        if (!seen.has(next)) queue.push(next), seen.add(next);
      }
    }
  }
});
