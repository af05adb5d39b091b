// SelectionStore.lineage: a document's parent frames from the frames' reports, for `location`
// (extension/service_worker/selections.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { SelectionStore } from "../service_worker/selections.js";

const top = (tabId) => ({ tabId, frameId: 0, documentId: `doc-${tabId}` });
const words = { key: 1, text: "words", before: "", after: "", length: 5 };
const selection = { isTop: true, hasFocus: true, url: "http://127.0.0.1/", selection: words, selectionAt: 5, focus: null, hover: null };

test("lineage: each parent frame's document and the token of the child it holds, up to the top", () => {
  const store = new SelectionStore(() => 1000);
  const tok = (c) => c.repeat(32);
  store.push(top(7), { ...selection, token: tok("a") });
  store.push({ tabId: 7, frameId: 3, documentId: "mid" }, { ...selection, isTop: false, token: tok("b"), parentToken: tok("a") });
  store.push({ tabId: 7, frameId: 5, documentId: "leaf" }, { ...selection, isTop: false, token: tok("c"), parentToken: tok("b") });
  assert.deepEqual(store.lineage(7, "doc-7"), []);
  assert.deepEqual(store.lineage(7, "leaf"), [
    { childToken: "c".repeat(32), parentKey: "mid" },
    { childToken: "b".repeat(32), parentKey: "doc-7" },
  ]);
});

test("lineage is unknown for a document not reported, or a level not linked to its parent", () => {
  const store = new SelectionStore(() => 1000);
  const tok = (c) => c.repeat(32);
  assert.equal(store.lineage(7, "leaf"), null);
  store.push(top(7), { ...selection, token: tok("a") });
  store.push({ tabId: 7, frameId: 3, documentId: "mid" }, { ...selection, isTop: false, token: tok("b") });
  assert.equal(store.lineage(7, "mid"), null);
  store.push({ tabId: 7, frameId: 5, documentId: "leaf" }, { ...selection, isTop: false, token: tok("c"), parentToken: tok("d") });
  assert.equal(store.lineage(7, "leaf"), null);
  // A loop of tokens (a page posting a forged one) ends, unknown.
  store.push({ tabId: 7, frameId: 3, documentId: "mid" }, { ...selection, isTop: false, token: tok("b"), parentToken: tok("c") });
  store.push({ tabId: 7, frameId: 5, documentId: "leaf" }, { ...selection, isTop: false, token: tok("c"), parentToken: tok("b") });
  assert.equal(store.lineage(7, "leaf"), null);
});
