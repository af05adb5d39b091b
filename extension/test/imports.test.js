// node --test: the service worker's modules import one another without cycles (issue 19: a leaf
// imports nothing back; e.g. tree.js → pointing.js → text_limits.js, never pointing.js → tree.js),
// and only browser_api.js (with its parts) touches chrome.*.
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
