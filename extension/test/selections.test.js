// SelectionStore: which tabs are pulled at `current`, and what a frame may report
// (extension/service_worker/selections.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { PUSH_SETTLED_MS, SelectionStore, documentKey, parseDocumentKey, parseReport } from "../service_worker/selections.js";

const top = (tabId) => ({ tabId, frameId: 0, documentId: `doc-${tabId}` });
const words = { key: 1, text: "words", before: "", after: "", length: 5 };
const selection = { isTop: true, hasFocus: true, url: "http://127.0.0.1/", selection: words, selectionAt: 5, focus: null, hover: null };

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
  assert.deepEqual(collected.get(7), [{ frameId: 0, documentId: "doc-7", report: selection }]);
});

test("forgetting a tab (closed, navigated) makes it pulled again", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), selection);
  now += 10 * PUSH_SETTLED_MS;
  store.forget(7);
  assert.equal(store.needsPull(7), true);
});

test("a tab whose top frame never pushed is pulled, even when a subframe did", async () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push({ tabId: 7, frameId: 3, documentId: "sub" }, { ...selection, isTop: false });
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), true);
  store.push(top(7), selection);
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), false);
  assert.deepEqual((await store.collect([7])).get(7)?.map((f) => f.frameId), [3, 0]);
});

test("a null report (the frame's pagehide) drops that frame's report, not a newer document's", async () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), selection);
  store.push({ tabId: 7, frameId: 3, documentId: "sub" }, { ...selection, isTop: false });
  store.push({ tabId: 7, frameId: 3, documentId: "older" }, null);
  now += 10 * PUSH_SETTLED_MS;
  assert.deepEqual((await store.collect([7])).get(7)?.map((f) => f.frameId), [0, 3]);
  store.push({ tabId: 7, frameId: 3, documentId: "sub" }, null);
  now += 10 * PUSH_SETTLED_MS;
  assert.deepEqual((await store.collect([7])).get(7)?.map((f) => f.frameId), [0]);
});

test("parseReport keeps the known shape and drops the rest (the page is not trusted)", () => {
  const report = parseReport({
    isTop: false,
    hasFocus: "yes",
    url: "u".repeat(10_000),
    lang: "de",
    selection: { key: 2, text: "x", field: { key: 4, kind: "textarea", extra: 1 } },
    selectionAt: "soon",
    focus: { key: 4, kind: "textarea", title: "Notes", content: "abc", length: 3, sensitive: false, junk: true },
    hover: { key: 9, role: "Button", url: "x", title: "y", at: 1 },
    evil: "<script>",
  });
  assert.deepEqual(report, {
    isTop: false,
    hasFocus: false,
    url: "u".repeat(4096),
    lang: "de",
    selection: { key: 2, text: "x", before: "", after: "", length: 1, field: { key: 4, kind: "textarea" } },
    selectionAt: 0,
    focus: { key: 4, kind: "textarea", title: "Notes", content: "abc", length: 3 },
    hover: null,
  });
  const sensitive = parseReport({ focus: { key: 1, kind: "input", sensitive: true, content: "hunter2" } });
  assert.deepEqual(sensitive?.focus, { key: 1, kind: "input", sensitive: true });
  assert.equal(parseReport("nope"), null);
});

const T1 = "0123456789abcdef0123456789abcdef";
const T2 = "fedcba9876543210fedcba9876543210";

test("without a documentId (Firefox) a document is keyed by frame id and its token", async () => {
  assert.equal(documentKey(3, "CHROMIUM-DOC", T1), "CHROMIUM-DOC");
  assert.equal(documentKey(3, undefined, T1), `ff-3-${T1}`);
  assert.equal(documentKey(3, undefined, "not-a-token"), undefined);
  assert.deepEqual(parseDocumentKey(`ff-3-${T1}`), { frameId: 3, token: T1 });
  assert.equal(parseDocumentKey("E3B0C44298FC1C149AFBF4C8996FB924"), null);
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push({ tabId: 7, frameId: 0 }, { ...selection, token: T1 });
  store.push({ tabId: 7, frameId: 0 }, { ...selection, token: T2 }); // the frame navigated
  store.push({ tabId: 7, frameId: 0 }, { gone: true, token: T1 }); // the old document's late pagehide
  now += 10 * PUSH_SETTLED_MS;
  assert.deepEqual((await store.collect([7])).get(7)?.map((f) => f.documentId), [`ff-0-${T2}`]);
  store.push({ tabId: 7, frameId: 0 }, { gone: true, token: T2 });
  assert.equal((await store.collect([7])).get(7), undefined);
});

test("a pending focus keeps the field's last text and keeps the tab pulled until the text follows", async () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  const field = { key: 4, kind: "textarea", content: "long text", length: 9 };
  store.push(top(7), { ...selection, focus: field });
  store.push(top(7), { ...selection, focus: { key: 4, kind: "textarea", pending: true } });
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), true);
  store.push(top(7), { ...selection, focus: { ...field, content: "long text!", length: 10 } });
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), false);
  const [frame] = /** @type {any[]} */ ((await store.collect([7])).get(7));
  assert.equal(frame.report.focus.content, "long text!");
});

test("a pending focus in another field carries no text over", () => {
  const store = new SelectionStore(() => 1000);
  store.push(top(7), { ...selection, focus: { key: 4, kind: "textarea", content: "a", length: 1 } });
  store.push(top(7), { ...selection, focus: { key: 5, kind: "textarea", pending: true } });
  return store.collect([]).then((all) => assert.equal(all.get(7)?.[0].report.focus?.content, undefined));
});

test("a pulled report still typing (pending, with its text) keeps the tab pulled", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  store.push(top(7), { ...selection, focus: { key: 4, kind: "textarea", content: "abc", length: 3, pending: true } });
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), true);
  assert.equal(parseReport({ ...selection, focus: { key: 4, kind: "textarea", content: "abc", length: 3, pending: true } })?.focus?.content, "abc");
});

test("pushedComplete: settled pushes are complete; a settling one names when it will be", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  assert.deepEqual(store.pushedComplete([7]), { complete: false }); // never heard from: no retry time
  store.push(top(7), selection);
  now += 100;
  assert.deepEqual(store.pushedComplete([7]), { complete: false, retryInMs: PUSH_SETTLED_MS - 100 + 1 });
  now += PUSH_SETTLED_MS;
  assert.deepEqual(store.pushedComplete([7]), { complete: true });
  assert.deepEqual(store.pushedComplete([]), { complete: true });
  store.push(top(7), { ...selection, focus: { key: 3, kind: "textarea", pending: true } });
  now += PUSH_SETTLED_MS;
  assert.deepEqual(store.pushedComplete([7]), { complete: false }); // pending text: the host pulls
  assert.equal(store.pushed().get(7)?.length, 1);
});

test("a dropped push (excluded site, incognito) drops what that frame reported and makes the tab pulled", () => {
  let now = 1000;
  const store = new SelectionStore(() => now);
  const sub = { tabId: 7, frameId: 3, documentId: "sub" };
  store.push(top(7), selection);
  store.push(sub, { ...selection, isTop: false });
  now += 10 * PUSH_SETTLED_MS;
  assert.equal(store.needsPull(7), false);
  store.dropped(sub); // a subframe on an excluded site: its report goes, the top frame's stays
  assert.equal(store.needsPull(7), true);
  assert.deepEqual(store.pushed().get(7)?.map((f) => f.frameId), [0]);
  store.dropped(top(7)); // the page itself: nothing of it is kept
  assert.equal(store.pushed().get(7), undefined);
  assert.equal(store.needsPull(7), true);
});

test("a push keeps the origin the browser gave, and the tab's top document names its site", () => {
  const store = new SelectionStore(() => 1000);
  const blank = { ...selection, url: "about:blank" };
  store.push({ ...top(7), origin: "http://localhost:9000" }, blank);
  store.push({ tabId: 7, frameId: 2, documentId: "doc-7-2" }, { ...blank, isTop: false });
  const frames = store.pushed().get(7) ?? [];
  assert.deepEqual(frames.map((f) => f.origin), ["http://localhost:9000", undefined]);
  assert.deepEqual(store.topSite(7), { url: "about:blank", origin: "http://localhost:9000" });
  assert.equal(store.topSite(8), undefined);
});
