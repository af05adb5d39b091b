// node --test: the page channel (page_channel.js): one port per document, whichever end opened it.
import assert from "node:assert/strict";
import test from "node:test";

import { MAX_PORTS, PAGE_CHANNEL_NAME, PageChannels } from "../service_worker/page_channel.js";

const TOKEN = "0123456789abcdef0123456789abcdef";

/** A fake browser: worker-opened ports whose other end answers `{id, reply: message.n * 2}` unless told not to. */
function fakeBrowser({ answer = true, refuse = false } = {}) {
  /** @type {{tabId: number, documentId: string | null, name: string, listeners: any, posted: any[], closed: boolean}[]} */
  const opened = [];
  /** @type {any[]} */
  const sentOnce = [];
  const deps = {
    connect: (/** @type {number} */ tabId, /** @type {string | null} */ documentId, /** @type {string} */ name, /** @type {any} */ listeners) => {
      if (refuse) return null;
      const record = { tabId, documentId, name, listeners, posted: /** @type {any[]} */ ([]), closed: false };
      opened.push(record);
      return {
        post: (/** @type {any} */ m) => {
          if (record.closed) return false;
          record.posted.push(m);
          if (answer && m.id !== undefined) queueMicrotask(() => listeners.onMessage({ id: m.id, reply: m.message.n * 2 }));
          return true;
        },
        disconnect: () => (record.closed = true),
      };
    },
    sendOnce: async (/** @type {number} */ tabId, /** @type {string | null} */ key, /** @type {any} */ message) => {
      sentOnce.push({ tabId, key, message });
      return "once";
    },
  };
  return { deps, opened, sentOnce };
}

/** A fake port a content script opened (browser_api.js ContentPort): `deliver` plays the page's side. */
function contentPort(sender = { tabId: 7, frameId: 0, documentId: /** @type {string | undefined} */ ("doc-t") }) {
  /** @type {((message: unknown) => void)[]} */
  const handlers = [];
  /** @type {(() => void)[]} */
  const closers = [];
  /** @type {any[]} */
  const posted = [];
  const state = { closed: false };
  return {
    posted,
    state,
    deliver: (/** @type {unknown} */ message) => handlers.forEach((h) => h(message)),
    close: () => closers.forEach((c) => c()),
    port: /** @type {any} */ ({
      sender: { ...sender, url: "http://127.0.0.1/", fromOwnPage: false, incognito: false },
      post: (/** @type {unknown} */ message) => (state.closed ? false : (posted.push(message), true)),
      disconnect: () => (state.closed = true),
      onMessage: (/** @type {(message: unknown) => void} */ h) => handlers.push(h),
      onDisconnect: (/** @type {() => void} */ h) => closers.push(h),
    }),
  };
}

test("one port per document, reused; replies go to their own request", async () => {
  const { deps, opened } = fakeBrowser();
  const channels = new PageChannels(deps);
  const replies = await Promise.all([channels.request(1, "doc-a", { type: "t", n: 1 }), channels.request(1, "doc-a", { type: "t", n: 2 })]);
  assert.deepEqual(replies, [2, 4]);
  assert.equal(await channels.request(1, null, { type: "t", n: 5 }), 10);
  assert.equal(opened.length, 2);
  assert.deepEqual(opened.map((o) => [o.tabId, o.documentId, o.name]), [[1, "doc-a", PAGE_CHANNEL_NAME], [1, null, PAGE_CHANNEL_NAME]]);
});

test("a port that closes rejects what waits on it, and the next request opens a new one", async () => {
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const waiting = [channels.request(2, "doc-b", { type: "t" }), channels.request(2, "doc-b", { type: "t" })];
  opened[0].listeners.onDisconnect();
  for (const w of waiting) await assert.rejects(w, /went away/);
  void channels.request(2, "doc-b", { type: "t" }).catch(() => {});
  assert.equal(opened.length, 2);
});

test("a cancelled request rejects at once and its late reply is dropped; the port stays", async () => {
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const controller = new AbortController();
  const waiting = channels.request(3, "doc-c", { type: "t" }, { signal: controller.signal });
  controller.abort(new Error("timed out"));
  await assert.rejects(waiting, /timed out/);
  opened[0].listeners.onMessage({ id: opened[0].posted[0].id, reply: "late" }); // ignored
  const next = channels.request(3, "doc-c", { type: "t" });
  opened[0].listeners.onMessage({ id: opened[0].posted[1].id, reply: "fresh" });
  assert.equal(await next, "fresh");
  assert.equal(opened.length, 1);
  await assert.rejects(channels.request(3, "doc-c", { type: "t" }, { signal: AbortSignal.abort() }));
});

test("timeoutMs: no reply in time rejects and drops the late reply; a reply in time clears the timer", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const slow = channels.request(3, "doc-c", { type: "t" }, { timeoutMs: 1000 });
  t.mock.timers.tick(999);
  const fast = channels.request(3, "doc-c", { type: "t" }, { timeoutMs: 1000 });
  t.mock.timers.tick(1);
  await assert.rejects(slow, /no answer within 1000 ms/);
  opened[0].listeners.onMessage({ id: opened[0].posted[0].id, reply: "late" }); // ignored
  opened[0].listeners.onMessage({ id: opened[0].posted[1].id, reply: "in time" });
  assert.equal(await fast, "in time");
  t.mock.timers.tick(5000); // the answered request's timer was cleared: nothing rejects later
  assert.equal(opened.length, 1);
  const { deps: once } = fakeBrowser({ refuse: true });
  assert.equal(await new PageChannels(once).request(3, null, { type: "t" }, { timeoutMs: 1000 }), "once");
});

test("post sends without an id and waits for nothing", async () => {
  const { deps, opened } = fakeBrowser();
  const channels = new PageChannels(deps);
  await channels.post(4, "doc-d", { type: "tools.abort", callId: "c1" });
  assert.deepEqual(opened[0].posted, [{ message: { type: "tools.abort", callId: "c1" } }]);
});

test("where no port can be opened (Firefox), one message is sent instead; a Firefox key never connects", async () => {
  const { deps, sentOnce } = fakeBrowser({ refuse: true });
  const channels = new PageChannels(deps);
  assert.equal(await channels.request(3, "doc-c", { type: "t" }), "once");
  await channels.post(3, "doc-c", { type: "tools.abort" });
  assert.deepEqual(sentOnce.map((s) => [s.tabId, s.key, s.message.type]), [[3, "doc-c", "t"], [3, "doc-c", "tools.abort"]]);

  const chromium = fakeBrowser();
  const other = new PageChannels(chromium.deps);
  assert.equal(await other.request(3, `ff-2-${TOKEN}`, { type: "t" }), "once");
  assert.equal(chromium.opened.length, 0);
});

test(`at most ${MAX_PORTS} ports stay open: the least recently used one closes, rejecting its waiters`, async () => {
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const first = channels.request(1, "doc-0", { type: "t" });
  const second = channels.request(1, "doc-1", { type: "t" });
  void channels.request(1, "doc-0", { type: "t" }).catch(() => {}); // doc-0 used again: doc-1 is the oldest
  for (let i = 2; i <= MAX_PORTS; i++) void channels.request(1, `doc-${i}`, { type: "t" }).catch(() => {});
  await assert.rejects(second, /closed/);
  assert.equal(opened[1].closed, true);
  assert.equal(opened[0].closed, false);
  assert.equal(opened.filter((o) => !o.closed).length, MAX_PORTS);
  void first.catch(() => {});
});

test("a content script's port serves its document: requests go down it, events come up", async () => {
  const { deps, opened } = fakeBrowser();
  const channels = new PageChannels(deps);
  /** @type {any[]} */
  const events = [];
  channels.onEvent("tools.visibility", (source) => events.push(source));
  const fake = contentPort();
  channels.adopt(fake.port);
  const call = channels.request(7, "doc-t", { type: "tools.run", callId: "c1" });
  assert.equal(opened.length, 0, "no port opened by the worker");
  assert.deepEqual(fake.posted[0].message, { type: "tools.run", callId: "c1" });
  fake.deliver({ id: fake.posted[0].id, reply: { ok: true, text: "5" } });
  assert.deepEqual(await call, { ok: true, text: "5" });
  fake.deliver({ event: { type: "tools.visibility" } });
  fake.deliver({ event: { type: "unknown" } });
  assert.deepEqual(events, [{ tabId: 7, key: "doc-t" }]);
  const pending = channels.request(7, "doc-t", { type: "tools.run", callId: "c2" });
  fake.close();
  await assert.rejects(pending, /went away/);
});

test("a reply is taken only from the port the request went down", async () => {
  const { deps } = fakeBrowser();
  const channels = new PageChannels(deps);
  const ours = contentPort({ tabId: 7, frameId: 0, documentId: "doc-ours" });
  const theirs = contentPort({ tabId: 7, frameId: 0, documentId: "doc-theirs" });
  channels.adopt(ours.port);
  channels.adopt(theirs.port);
  const call = channels.request(7, "doc-ours", { type: "tools.run" });
  const id = ours.posted[0].id;
  theirs.deliver({ id, reply: "forged" });
  ours.deliver({ id, reply: "real" });
  assert.equal(await call, "real");
});

test("Firefox: a content port counts only after its hello names the document by frame and token", async () => {
  const { deps, sentOnce } = fakeBrowser({ refuse: true });
  const channels = new PageChannels(deps);
  const fake = contentPort({ tabId: 8, frameId: 0, documentId: undefined });
  channels.adopt(fake.port);
  fake.deliver({ event: { type: "tools.visibility" } }); // before hello: ignored
  assert.equal(await channels.request(8, `ff-0-${TOKEN}`, { type: "t" }), "once"); // no port yet
  fake.deliver({ hello: "not a token" });
  fake.deliver({ hello: TOKEN });
  const call = channels.request(8, `ff-0-${TOKEN}`, { type: "t" });
  fake.deliver({ id: fake.posted[0].id, reply: "by port" });
  assert.equal(await call, "by port");
  assert.equal(sentOnce.length, 1);
  // Another frame's port cannot claim frame 0's document: its key carries its own frame id.
  const sub = contentPort({ tabId: 8, frameId: 3, documentId: undefined });
  channels.adopt(sub.port);
  sub.deliver({ hello: TOKEN });
  void channels.request(8, `ff-0-${TOKEN}`, { type: "t" });
  assert.equal(sub.posted.length, 0);
});

test("a newer port of the same document replaces an idle older one", async () => {
  const { deps, opened } = fakeBrowser();
  const channels = new PageChannels(deps);
  assert.equal(await channels.request(7, "doc-t", { type: "t", n: 1 }), 2);
  const fake = contentPort();
  channels.adopt(fake.port);
  assert.equal(opened[0].closed, true);
  void channels.request(7, "doc-t", { type: "t" });
  assert.equal(fake.posted.length, 1);
});
