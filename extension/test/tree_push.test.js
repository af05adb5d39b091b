// TreePusher: a change schedules one coalesced build; `tree` goes out only when it differs
// (extension/service_worker/tree_push.js). Fake timers: the test runs them by hand.
import { test } from "node:test";
import assert from "node:assert/strict";

import { TreePusher } from "../service_worker/tree_push.js";

/** Timers the test fires by hand: `run()` fires every due one (in order of creation). */
function fakeTimers() {
  /** @type {{fn: () => void, ms: number, id: number}[]} */
  let queue = [];
  let next = 1;
  return {
    setTimer: (fn, ms) => {
      const id = next++;
      queue.push({ fn, ms, id });
      return id;
    },
    clearTimer: (id) => {
      queue = queue.filter((t) => t.id !== id);
    },
    pending: () => queue.length,
    delays: () => queue.map((t) => t.ms),
    async run() {
      const due = queue;
      queue = [];
      for (const t of due) t.fn();
      await new Promise((resolve) => setImmediate(resolve)); // let the builds settle
    },
  };
}

const root = (title) => ({ id: "a", role: "Application", title });

function pusher(builds, timers) {
  /** @type {Record<string, unknown>[]} */
  const sent = [];
  let i = 0;
  const p = new TreePusher({
    build: async () => builds[Math.min(i++, builds.length - 1)],
    send: (body) => (sent.push(body), true),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  return { p, sent };
}

test("a burst of changes is one build and one tree", async () => {
  const timers = fakeTimers();
  const { p, sent } = pusher([{ complete: true, root: root("x"), windowFocused: true }], timers);
  p.schedule();
  p.schedule();
  p.schedule();
  assert.equal(timers.pending(), 1);
  await timers.run();
  assert.equal(p.builds, 1);
  assert.deepEqual(sent, [{ complete: true, root: root("x"), windowFocused: true }]);
});

test("a tree equal to the last one sent is not sent again", async () => {
  const timers = fakeTimers();
  const same = { complete: true, root: root("x"), windowFocused: false };
  const { p, sent } = pusher([same, same, { ...same, root: root("y") }], timers);
  p.schedule();
  await timers.run();
  p.schedule();
  await timers.run();
  assert.equal(p.builds, 2);
  assert.equal(sent.length, 1);
  p.schedule();
  await timers.run();
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1].root, root("y"));
});

test("an incomplete tree is sent once as {complete: false}, without a root", async () => {
  const timers = fakeTimers();
  const { p, sent } = pusher([{ complete: false }, { complete: false }, { complete: true, root: root("x") }], timers);
  for (let n = 0; n < 3; n++) {
    p.schedule();
    await timers.run();
  }
  assert.deepEqual(sent, [{ complete: false }, { complete: true, root: root("x"), windowFocused: false }]);
});

test("a change during a build makes one more build after it", async () => {
  const timers = fakeTimers();
  /** @type {(v: unknown) => void} */
  let release = () => {};
  let calls = 0;
  const sent = [];
  const p = new TreePusher({
    build: () => {
      calls++;
      if (calls === 1) return new Promise((resolve) => (release = () => resolve({ complete: true, root: root("old") })));
      return Promise.resolve({ complete: true, root: root("new") });
    },
    send: (body) => (sent.push(body), true),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  p.schedule();
  await timers.run(); // the first build waits
  p.schedule();
  p.schedule();
  assert.equal(timers.pending(), 0); // marked dirty, no second timer while building
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(timers.pending(), 1);
  await timers.run();
  assert.equal(calls, 2);
  assert.deepEqual(sent.map((b) => b.root.title), ["old", "new"]);
});

test("reset: a new port gets the tree again, and a build begun before it sends nothing", async () => {
  const timers = fakeTimers();
  const { p, sent } = pusher([{ complete: true, root: root("x") }], timers);
  p.schedule();
  await timers.run();
  assert.equal(sent.length, 1);
  p.reset();
  p.schedule();
  await timers.run();
  assert.equal(sent.length, 2); // same tree, but the new host has none

  let release = () => {};
  const late = [];
  const q = new TreePusher({
    build: () => new Promise((resolve) => (release = () => resolve({ complete: true, root: root("stale") }))),
    send: (body) => (late.push(body), true),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  q.schedule();
  await timers.run();
  q.reset();
  release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(late.length, 0);
  assert.equal(timers.pending(), 1); // it builds again for the new port
});

test("a build that names retryInMs builds again then; no build while nothing to push", async () => {
  const timers = fakeTimers();
  const { p, sent } = pusher([{ complete: false, retryInMs: 120 }, { complete: true, root: root("x") }], timers);
  p.schedule();
  await timers.run();
  assert.deepEqual(timers.delays(), [120]);
  await timers.run(); // the retry schedules a build
  await timers.run();
  assert.deepEqual(sent.at(-1), { complete: true, root: root("x"), windowFocused: false });

  const idle = fakeTimers();
  const none = pusher([null], idle);
  none.p.schedule();
  await idle.run();
  assert.equal(none.sent.length, 0);
});

test("a failed build tells the host to ask (complete: false), once", async () => {
  const timers = fakeTimers();
  const sent = [];
  let calls = 0;
  const p = new TreePusher({
    build: async () => {
      calls++;
      if (calls === 1) return { complete: true, root: root("x") };
      throw new Error("boom");
    },
    send: (body) => (sent.push(body), true),
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  const warn = console.warn;
  console.warn = () => {};
  try {
    for (let n = 0; n < 3; n++) {
      p.schedule();
      await timers.run();
    }
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(sent.slice(1), [{ complete: false }]);
});

test("a tree the port refuses (over 64 MiB) is replaced by complete: false at the host", async () => {
  const timers = fakeTimers();
  const sent = [];
  let builds = 0;
  const p = new TreePusher({
    build: async () => ({ complete: true, root: root(++builds === 1 ? "small" : "huge") }),
    send: (body) => {
      if (body.root?.title === "huge") return false;
      sent.push(body);
      return true;
    },
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  p.schedule();
  await timers.run();
  p.schedule();
  await timers.run();
  assert.deepEqual(sent, [{ complete: true, root: root("small"), windowFocused: false }, { complete: false }]);
});
