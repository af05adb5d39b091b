// node --test: which shadow roots a selection's range spans (content/selection.js spannedHosts),
// the step that finds the roots to hand to getComposedRanges after a real gesture in a shadow root
//. The content script is a classic script; its pure helpers are lifted out of the source.
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
/** @type {(range: object, rootOf: (node: object) => object | null) => object[]} */
const spannedHosts = new Function(`${lift("spannedHosts")}${lift("childAt")}; return spannedHosts;`)();

/** A node with the fields spannedHosts reads: nodeType, childNodes, and (for hosts) a root. */
const text = (data) => ({ nodeType: 3, data, childNodes: [] });
const element = (children = [], root = null) => ({ nodeType: 1, childNodes: children, root });
const rootOf = (node) => node.root ?? null;

const openRoot = { name: "open" };
const closedRoot = { name: "closed" };
const host = element([], openRoot);
const closedHost = element([], closedRoot);
const body = element([text("\n"), element([text("Light")]), text("\n"), host, text("\n"), closedHost]);

test("a range collapsed before a host (Chromium after a double-click inside it) names its root", () => {
  const range = { startContainer: body, startOffset: 3, endContainer: body, endOffset: 3 };
  assert.deepEqual(spannedHosts(range, rootOf), [openRoot]);
});

test("a range around a host names its root once", () => {
  const range = { startContainer: body, startOffset: 3, endContainer: body, endOffset: 4 };
  assert.deepEqual(spannedHosts(range, rootOf), [openRoot]);
});

test("a drag from light text into a host names the host at the end boundary", () => {
  const light = body.childNodes[1].childNodes[0];
  const range = { startContainer: light, startOffset: 2, endContainer: body, endOffset: 4 };
  assert.deepEqual(spannedHosts(range, rootOf), [openRoot]);
});

test("a range from one host to another names both roots, in boundary order", () => {
  const range = { startContainer: body, startOffset: 3, endContainer: body, endOffset: 6 };
  assert.deepEqual(spannedHosts(range, rootOf), [openRoot, closedRoot]);
});

test("a range inside a shadow root (a DocumentFragment) spanning a nested host names it", () => {
  const innerRoot = { name: "inner" };
  const fragment = { nodeType: 11, childNodes: [element([], innerRoot)] };
  const range = { startContainer: fragment, startOffset: 0, endContainer: fragment, endOffset: 1 };
  assert.deepEqual(spannedHosts(range, rootOf), [innerRoot]);
});

test("Text boundaries and elements without a root name nothing", () => {
  const t = text("alpha bravo");
  assert.deepEqual(spannedHosts({ startContainer: t, startOffset: 0, endContainer: t, endOffset: 5 }, rootOf), []);
  const range = { startContainer: body, startOffset: 1, endContainer: body, endOffset: 2 };
  assert.deepEqual(spannedHosts(range, rootOf), []);
  const past = { startContainer: body, startOffset: 99, endContainer: body, endOffset: 0 };
  assert.deepEqual(spannedHosts(past, rootOf), []);
});
