// SelectionStore: which tabs are pulled at `current` (extension/service_worker/selections.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { PUSH_SETTLED_MS, SelectionStore } from "../service_worker/selections.js";

const top = (tabId) => ({ tabId, frameId: 0, documentId: `doc-${tabId}` });
const selection = { key: 1, text: "words", before: "", after: "", length: 5 };

test("a tab that never pushed is pulled", () => {
  const store = new SelectionStore(() => 1000);
  assert.equal(store.needsPull(7), true);
});

test("a tab that pushed moments ago is pulled: its selection may still be moving", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), selection);
  now += PUSH_SETTLED_MS - 1;
  assert.equal(store.needsPull(7), true);
});

test("a tab quiet since its last push is answered from the push, without a round trip", async () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), selection);
  now += PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), false);
  const collected = await store.collect([7]);
  assert.deepEqual(collected.get(7), { documentId: "doc-7", selection });
});

test("forgetting a tab (closed, navigated) makes it pulled again", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), selection);
  now += 10 * PUSH_SETTLED_MS;
  store.forget(7);
  assert.equal(store.needsPull(7), true);
});

test("pushes from subframes are ignored in this slice", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push({ tabId: 7, frameId: 3, documentId: "sub" }, selection);
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), true);
});
