// node --test: the per-instance id registry (design.md §2).
import assert from "node:assert/strict";
import test from "node:test";

import { IdRegistry } from "../service_worker/ids.js";

const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

test("the same browser window, tab or passage keeps its id", () => {
  const ids = new IdRegistry("inst-a");
  assert.equal(ids.windowId(11), "win-1");
  assert.equal(ids.tabId(501), "tab-1");
  assert.equal(ids.selectionId(501, "doc-A", 1), "sel-1");
  assert.equal(ids.windowId(11), "win-1");
  assert.equal(ids.tabId(501), "tab-1");
  assert.equal(ids.selectionId(501, "doc-A", 1), "sel-1");
});

test("counters are per kind and only grow: an id is never reused", () => {
  const ids = new IdRegistry("inst-a");
  const seen = new Set();
  for (let tab = 1000; tab < 1050; tab++) seen.add(ids.tabId(tab));
  for (let win = 1; win <= 5; win++) seen.add(ids.windowId(win));
  assert.equal(seen.size, 55);
  assert.equal(ids.tabId(1049), "tab-50");
  assert.equal(ids.windowId(5), "win-5");
  // Asking again for an old tab does not disturb the counter.
  ids.tabId(1000);
  assert.equal(ids.tabId(2000), "tab-51");
  for (const id of seen) assert.match(id, ID_PATTERN);
});

test("a reloaded page keeps its tab id, and its new selections get new ids", () => {
  const ids = new IdRegistry("inst-a");
  const tab = ids.tabId(7);
  const before = ids.selectionId(7, "doc-before-reload", 1);
  // A fresh content script after the reload counts its keys from 1 again; the document differs.
  const after = ids.selectionId(7, "doc-after-reload", 1);
  assert.equal(ids.tabId(7), tab);
  assert.notEqual(after, before);
  assert.equal(after, "sel-2");
});

test("a selection id keeps naming its passage after another passage is selected", () => {
  const ids = new IdRegistry("inst-a");
  const first = ids.selectionId(7, "doc", 1);
  const second = ids.selectionId(7, "doc", 2);
  assert.notEqual(first, second);
  assert.equal(ids.selectionId(7, "doc", 1), first);
  assert.deepEqual(ids.resolve(first), { kind: "selection", tabId: 7, documentId: "doc", key: 1 });
});

test("resolve names what an id was minted for, and nothing for foreign ids", () => {
  const ids = new IdRegistry("inst-a");
  assert.deepEqual(ids.resolve(ids.windowId(3)), { kind: "window", windowId: 3 });
  assert.deepEqual(ids.resolve(ids.tabId(9)), { kind: "tab", tabId: 9 });
  assert.equal(ids.resolve("tab-99"), undefined);
  assert.equal(ids.resolve("app"), undefined);
});

test("the first instance is adopted without losing ids minted for this port", () => {
  const ids = new IdRegistry();
  assert.equal(ids.windowId(1), "win-1");
  assert.equal(ids.useInstance("inst-a"), false);
  assert.equal(ids.instance, "inst-a");
  assert.equal(ids.windowId(1), "win-1");
  assert.equal(ids.useInstance("inst-a"), false);
  assert.equal(ids.windowId(2), "win-2");
});

test("a new instance starts new counters", () => {
  const ids = new IdRegistry("inst-a");
  ids.windowId(1);
  ids.windowId(2);
  ids.tabId(5);
  assert.equal(ids.useInstance("inst-b"), true);
  assert.equal(ids.instance, "inst-b");
  assert.equal(ids.resolve("win-2"), undefined);
  assert.equal(ids.windowId(2), "win-1");
  assert.equal(ids.tabId(6), "tab-1");
});

test("reset forgets everything, instance included", () => {
  const ids = new IdRegistry("inst-a");
  ids.tabId(5);
  ids.reset();
  assert.equal(ids.instance, null);
  assert.equal(ids.tabId(6), "tab-1");
});

test("ids stay valid for any browser or document id", () => {
  const ids = new IdRegistry("inst-a");
  const id = ids.selectionId(1, "BA5E\u0000 weird/doc:id", Number.MAX_SAFE_INTEGER);
  assert.match(id, ID_PATTERN);
  assert.match(ids.windowId(-1), ID_PATTERN);
});
