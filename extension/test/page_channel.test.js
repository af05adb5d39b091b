// node --test: requests over long-lived ports to a document's content script (page_channel.js).
import assert from "node:assert/strict";
import test from "node:test";

import { PAGE_CHANNEL_NAME, PageChannels } from "../service_worker/page_channel.js";

/** A fake browser: ports whose other end answers `{id, reply: message.n * 2}` unless told not to. */
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
          if (record.closed) throw new Error("closed");
          record.posted.push(m);
          if (answer) queueMicrotask(() => listeners.onMessage({ id: m.id, reply: m.message.n * 2 }));
        },
        disconnect: () => (record.closed = true),
      };
    },
    sendOnce: async (/** @type {number} */ tabId, /** @type {string | null} */ documentId, /** @type {any} */ message) => {
      sentOnce.push({ tabId, documentId, message });
      return "once";
    },
  };
  return { deps, opened, sentOnce };
}

test("one port per document, reused; replies go to their own request", async () => {
  const { deps, opened } = fakeBrowser();
  const channels = new PageChannels(deps);
  const replies = await Promise.all([channels.request(1, "doc-a", { n: 1 }), channels.request(1, "doc-a", { n: 2 })]);
  assert.deepEqual(replies, [2, 4]);
  assert.equal(await channels.request(1, null, { n: 5 }), 10);
  assert.equal(opened.length, 2);
  assert.deepEqual(opened.map((o) => [o.tabId, o.documentId, o.name]), [[1, "doc-a", PAGE_CHANNEL_NAME], [1, null, PAGE_CHANNEL_NAME]]);
});

test("a port that closes rejects what waits on it, and the next request opens a new one", async () => {
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const waiting = channels.request(2, "doc-b", { n: 1 });
  opened[0].listeners.onDisconnect();
  await assert.rejects(waiting, /went away/);
  void channels.request(2, "doc-b", { n: 1 }).catch(() => {});
  assert.equal(opened.length, 2);
});

test("where no port can be opened (Firefox), one message is sent instead", async () => {
  const { deps, sentOnce } = fakeBrowser({ refuse: true });
  const channels = new PageChannels(deps);
  assert.equal(await channels.request(3, "doc-c", { n: 1 }), "once");
  assert.deepEqual(sentOnce, [{ tabId: 3, documentId: "doc-c", message: { n: 1 } }]);
});

test("at most 32 ports stay open: the least recently used one closes, rejecting its waiters", async () => {
  const { deps, opened } = fakeBrowser({ answer: false });
  const channels = new PageChannels(deps);
  const first = channels.request(1, "doc-0", { n: 0 });
  for (let i = 1; i <= 32; i++) void channels.request(1, `doc-${i}`, { n: i }).catch(() => {});
  await assert.rejects(first, /closed/);
  assert.equal(opened[0].closed, true);
  assert.equal(opened.filter((o) => !o.closed).length, 32);
});
