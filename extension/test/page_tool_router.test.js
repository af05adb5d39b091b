// node --test: page-tool calls routed by document key where the browser gives no documentId
// (Firefox): the page channel's port keyed by its `{hello: token}`, the report by its token, and
// the fallback by frame id + documentToken (docs/internals/extension.md "Page tools in Firefox").
import assert from "node:assert/strict";
import test from "node:test";

/** @type {{tabId: number, message: any, options: any}[]} */
const sent = [];
/** A chrome.* stub: every event has addListener, tabs.sendMessage is recorded. */
const noop = () => {};
const event = { addListener: noop, removeListener: noop };
/** @type {any} */ (globalThis).chrome = {
  runtime: { getURL: (/** @type {string} */ path) => `chrome-extension://x/${path}`, onConnect: event, onMessage: event },
  windows: { onRemoved: event, onFocusChanged: event, onBoundsChanged: event, onCreated: event },
  tabs: {
    onRemoved: event,
    onUpdated: event,
    sendMessage: async (/** @type {number} */ tabId, /** @type {any} */ message, /** @type {any} */ options) => {
      sent.push({ tabId, message, options });
      return { ok: true, text: "by frame" };
    },
  },
};

const { PageToolRouter } = await import("../service_worker/page_tool_router.js");
const { IdRegistry } = await import("../service_worker/ids.js");
const { PageChannels } = await import("../service_worker/page_channel.js");

const TOKEN = "0123456789abcdef0123456789abcdef";
const SENDER = { tabId: 7, frameId: 0, documentId: undefined, url: "http://127.0.0.1:8000/tools.html" };
const REPORT = { type: "tools.report", tools: [{ name: "add", description: "Add." }], omitted: 0, token: TOKEN };

function makeRouter() {
  const ids = new IdRegistry("inst");
  const channels = new PageChannels();
  const router = new PageToolRouter({ port: /** @type {any} */ (() => ({ connected: false })), ids, ready: Promise.resolve(), channels });
  return { router, channels, pageId: ids.tabId(7) };
}

/** A fake ContentPort: `posted` collects what the worker sent, `deliver` plays the content script. */
function fakePort(sender = SENDER) {
  /** @type {((message: unknown) => void)[]} */
  const handlers = [];
  /** @type {(() => void)[]} */
  const closers = [];
  /** @type {any[]} */
  const posted = [];
  return {
    posted,
    deliver: (/** @type {unknown} */ message) => handlers.forEach((h) => h(message)),
    close: () => closers.forEach((c) => c()),
    port: {
      sender: { ...sender, fromOwnPage: false, incognito: false },
      post: (/** @type {unknown} */ message) => (posted.push(message), true),
      disconnect: () => {},
      onMessage: (/** @type {(message: unknown) => void} */ h) => handlers.push(h),
      onDisconnect: (/** @type {() => void} */ h) => closers.push(h),
    },
  };
}

test("a report without documentId is keyed ff-0-<token>; one without a valid token is dropped", () => {
  const { router } = makeRouter();
  router.report(SENDER, { ...REPORT, token: "not-a-token" });
  assert.equal(router.store.get(7), undefined);
  router.report(SENDER, REPORT);
  assert.equal(router.store.get(7)?.documentId, `ff-0-${TOKEN}`);
  router.report({ ...SENDER, documentId: "DOC" }, REPORT); // Chromium: the documentId wins
  assert.equal(router.store.get(7)?.documentId, "DOC");
});

test("without a port, a call goes to frame 0 with the document's token", async () => {
  sent.length = 0;
  const { router, pageId } = makeRouter();
  router.report(SENDER, REPORT);
  const reply = await router.call({ type: "tools.call", id: "c1", pageId, name: "add", input: { a: 1 } });
  assert.deepEqual(reply, { ok: true, text: "by frame" });
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].options, { frameId: 0 });
  assert.equal(sent[0].message.documentToken, TOKEN);
  assert.equal(sent[0].message.type, "tools.run");
});

test("a port keyed by its hello carries the call; its reply answers; disconnect is page gone", async () => {
  sent.length = 0;
  const { router, channels, pageId } = makeRouter();
  const fake = fakePort();
  channels.adopt(/** @type {any} */ (fake.port));
  fake.deliver({ id: 1, reply: {} }); // before hello: ignored
  fake.deliver({ hello: TOKEN });
  router.report(SENDER, REPORT);
  const call = router.call({ type: "tools.call", id: "c2", pageId, name: "add", input: {} });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(sent.length, 0, "went down the port, not tabs.sendMessage");
  assert.deepEqual(fake.posted.map((m) => [m.message.type, m.message.callId]), [["tools.run", "c2"]]);
  fake.deliver({ id: fake.posted[0].id, reply: { ok: true, text: "5" } });
  assert.deepEqual(await call, { ok: true, text: "5" });

  const pending = router.call({ type: "tools.call", id: "c3", pageId, name: "add", input: {} });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(await router.cancel({ type: "tools.cancel", id: "x", callId: "c3" }), { cancelled: true });
  assert.deepEqual(fake.posted.at(-1), { message: { type: "tools.abort", callId: "c3" } });
  fake.close();
  await assert.rejects(pending, (/** @type {any} */ error) => error.code === "page_gone");
});

test("another document's port (a different token) cannot answer the call", async () => {
  const { router, channels, pageId } = makeRouter();
  const ours = fakePort();
  const theirs = fakePort();
  channels.adopt(/** @type {any} */ (ours.port));
  channels.adopt(/** @type {any} */ (theirs.port));
  ours.deliver({ hello: TOKEN });
  theirs.deliver({ hello: "f".repeat(32) });
  router.report(SENDER, REPORT);
  const call = router.call({ type: "tools.call", id: "c4", pageId, name: "add", input: {} });
  await new Promise((resolve) => setTimeout(resolve, 0));
  const id = ours.posted[0].id;
  theirs.deliver({ id, reply: { ok: true, text: "forged" } });
  ours.deliver({ id, reply: { ok: true, text: "real" } });
  assert.deepEqual(await call, { ok: true, text: "real" });
});
