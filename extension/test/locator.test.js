// Locator: the window's state from the fast poll; a subframe's measurement and its parent frames' <iframe> boxes asked at once, and the
// climb by postMessage where that cannot be done (extension/service_worker/locator.js).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Locator } from "../service_worker/locator.js";

const METRICS = { innerWidth: 800, innerHeight: 600, screenX: 0, screenY: 0, outerWidth: 800, outerHeight: 687, visible: true };
const VIEWPORT = { x: 0, y: 0, w: 800, h: 600 };
/** The leaf's text at (10, 30) in its own frame, two frames deep. */
const LEAF = { status: "ok", rects: [{ x: 10, y: 30, w: 100, h: 19 }], clip: { x: 0, y: 0, w: 400, h: 150 }, depth: 2 };
/** The middle frame holds the leaf's <iframe> at (20, 10); the top holds the middle's at (300, 200). */
const MID_OFFSET = { depth: 1, dx: 20, dy: 10, content: { x: 20, y: 10, w: 400, h: 150 }, viewport: { x: 0, y: 0, w: 500, h: 300 } };
const TOP_OFFSET = { depth: 0, dx: 300, dy: 200, content: { x: 300, y: 200, w: 500, h: 300 }, viewport: VIEWPORT, metrics: METRICS };
/** Where the leaf's text lands, points: x 10 + 20 + 300, y 30 + 10 + 200 + the 87-pt toolbar (METRICS). */
const PLACED = [{ x: 330, y: 327, w: 100, h: 19 }];
/** The leaf's parents, nearest first (selections.js `lineage`). */
const LINEAGE = [
  { childToken: "c".repeat(32), parentKey: "mid" },
  { childToken: "b".repeat(32), parentKey: "top" },
];

/**
 * A Locator over fakes: one selection id in document "leaf" of tab 1, whose page channel answers
 * with `answer(key, message)`; every request is recorded in `sent`.
 * @param {(key: string | null, message: any) => unknown} answer
 * @param {any} lineage
 * @param {(windowId: number) => string | undefined} [polledWindowState]
 */
function locatorWith(answer, lineage, polledWindowState) {
  /** @type {{key: string | null, message: any}[]} */
  const sent = [];
  const ids = /** @type {any} */ ({ resolve: () => ({ kind: "selection", tabId: 1, documentId: "leaf", key: 1 }) });
  const tabs = /** @type {any} */ ({ zoom: () => 1, noteZoom() {}, tab: () => ({ id: 1, windowId: 9, active: true }) });
  const channels = /** @type {any} */ ({
    request: async (/** @type {number} */ _tabId, /** @type {string | null} */ key, /** @type {any} */ message) => {
      sent.push({ key, message });
      return answer(key, message);
    },
  });
  const locator = new Locator(ids, tabs, async () => {}, channels, () => lineage, polledWindowState);
  return { locator, sent };
}

test("a subframe: the measurement and every parent frame's <iframe> box are asked at once", async () => {
  const { locator, sent } = locatorWith((key, message) => {
    if (message.type === "location.get") return { measured: LEAF };
    return { offset: key === "mid" ? MID_OFFSET : TOP_OFFSET };
  }, LINEAGE);
  const reply = await locator.locate("sel-abc");
  assert.deepEqual(
    sent.map(({ key, message }) => [key, message.type, message.child ?? message.climb]),
    [
      ["mid", "location.frame", "c".repeat(32)],
      ["top", "location.frame", "b".repeat(32)],
      ["leaf", "location.get", false],
    ],
  );
  assert.deepEqual(reply.location.rects, PLACED);
  assert.equal(reply.location.state, "visible");
});

test("a parent that cannot place the frame (the tree moved): the subframe climbs instead", async () => {
  /** @type {Locator} */
  let locator;
  const made = locatorWith((key, message) => {
    if (message.type === "location.frame") return { offset: key === "mid" ? MID_OFFSET : null };
    if (message.climb === false) return { measured: LEAF };
    // The climb: each parent frame sends `location.offset` with the request's token.
    setTimeout(() => {
      locator.onOffset({ tabId: 1 }, { token: message.token, offset: TOP_OFFSET });
      locator.onOffset({ tabId: 1 }, { token: message.token, offset: MID_OFFSET });
    }, 1);
    return { measured: LEAF };
  }, LINEAGE);
  locator = made.locator;
  const reply = await locator.locate("sel-abc");
  const gets = made.sent.filter(({ message }) => message.type === "location.get");
  assert.deepEqual(gets.map(({ message }) => message.climb), [false, undefined]);
  assert.deepEqual(reply.location.rects, PLACED);
});

test("an unknown frame tree: the subframe climbs, no parent is asked", async () => {
  /** @type {Locator} */
  let locator;
  const made = locatorWith((_key, message) => {
    setTimeout(() => {
      locator.onOffset({ tabId: 1 }, { token: message.token, offset: MID_OFFSET });
      locator.onOffset({ tabId: 1 }, { token: message.token, offset: TOP_OFFSET });
    }, 1);
    return { measured: LEAF };
  }, null);
  locator = made.locator;
  const reply = await locator.locate("sel-abc");
  assert.deepEqual(made.sent.map(({ message }) => message.type), ["location.get"]);
  assert.deepEqual(reply.location.rects, PLACED);
});

test("a parent that cannot be reached (no content script): unplaced, offscreen, without a climb", async () => {
  const { locator, sent } = locatorWith((key, message) => {
    if (message.type === "location.get") return { measured: LEAF };
    if (key === "top") throw new Error("the document went away");
    return { offset: MID_OFFSET };
  }, LINEAGE);
  const reply = await locator.locate("sel-abc");
  assert.equal(sent.filter(({ message }) => message.type === "location.get").length, 1);
  assert.deepEqual(reply.location, { state: "offscreen", rects: [] });
});

test("the window's state comes from the fast poll where it runs: minimized is offscreen", async () => {
  const TOP = { ...LEAF, depth: 0, clip: VIEWPORT, metrics: METRICS };
  /** @type {number[]} */
  const asked = [];
  const state = { now: "minimized" };
  const polled = (/** @type {number} */ windowId) => (asked.push(windowId), state.now);
  const { locator } = locatorWith(() => ({ measured: TOP }), null, polled);
  assert.equal((await locator.locate("sel-abc")).location.state, "offscreen");
  state.now = "normal";
  const shown = await locator.locate("sel-abc");
  assert.equal(shown.location.state, "visible");
  assert.deepEqual(shown.location.rects, [{ x: 10, y: 117, w: 100, h: 19 }]);
  assert.deepEqual(asked, [9, 9]);
});

test("a top document: one request, no token to climb with; one that turns out a subframe climbs", async () => {
  const TOP = { ...LEAF, depth: 0, clip: VIEWPORT, metrics: METRICS };
  const top = locatorWith(() => ({ measured: TOP }), []);
  const reply = await top.locator.locate("sel-abc");
  assert.deepEqual(top.sent.map(({ key, message }) => [key, message.type, message.token, message.climb]), [
    ["leaf", "location.get", "", false],
  ]);
  assert.deepEqual(reply.location.rects, [{ x: 10, y: 117, w: 100, h: 19 }]);
  // The tree said "top", the document is two frames deep: asked again, climbing.
  const moved = locatorWith((_key, message) => {
    if (message.climb !== false) {
      queueMicrotask(() => {
        moved.locator.onOffset({ tabId: 1 }, { token: message.token, offset: MID_OFFSET });
        moved.locator.onOffset({ tabId: 1 }, { token: message.token, offset: TOP_OFFSET });
      });
    }
    return { measured: LEAF };
  }, []);
  const placed = await moved.locator.locate("sel-abc");
  assert.deepEqual(moved.sent.map(({ message }) => message.climb), [false, undefined]);
  assert.match(moved.sent[1].message.token, /^[0-9a-f-]{36}$/);
  assert.deepEqual(placed.location.rects, PLACED);
});
