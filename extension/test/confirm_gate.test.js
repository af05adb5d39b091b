// node --test: the confirmation gate of consequential page tools (service_worker/confirm_gate.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ConfirmGate,
  cut,
  isConsequential,
  promptTimeoutMs,
  refusalText,
} from "../service_worker/confirm_gate.js";

/** A gate with a fake window and clock; `opened` records (key, view), `closed` window ids. */
function fakeGate({ enabled = true } = {}) {
  const log = { opened: [], closed: [], timers: [], settingsReads: 0 };
  let nextWindow = 100;
  let nextKey = 1;
  const gate = new ConfirmGate({
    enabled: async () => {
      log.settingsReads += 1;
      return enabled;
    },
    open: async (key, view) => {
      log.opened.push({ key, view });
      return nextWindow++;
    },
    close: (windowId) => log.closed.push(windowId),
    newKey: () => `k${nextKey++}`,
    now: () => 1_000,
    setTimer: (fn, ms) => {
      const timer = { fn, ms, cleared: false };
      log.timers.push(timer);
      return timer;
    },
    clearTimer: (timer) => {
      timer.cleared = true;
    },
  });
  return { gate, log };
}

const BUY = { name: "buy", description: "Buy it.", annotations: { consequentialHint: true } };
const request = (callId, extra = {}) => ({
  callId, tabId: 7, tool: BUY, origin: "https://shop.example", pageTitle: "Shop", input: { item: "tea" }, deadlineMs: 5000, ...extra,
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

test("only consequentialHint: true asks; readOnlyHint absent does not", () => {
  assert.equal(isConsequential(BUY), true);
  assert.equal(isConsequential({ name: "x", description: "d" }), false);
  assert.equal(isConsequential({ name: "x", description: "d", annotations: { readOnlyHint: false } }), false);
  assert.equal(isConsequential({ name: "x", description: "d", annotations: { consequentialHint: false } }), false);
  assert.equal(isConsequential(undefined), false);
});

test("a tool that is not consequential is allowed without reading the settings or opening a window", async () => {
  const { gate, log } = fakeGate();
  assert.equal(await gate.ask(request("c1", { tool: { name: "peek", description: "d" } })), "allow");
  assert.equal(log.settingsReads, 0);
  assert.equal(log.opened.length, 0);
});

test("with the setting off a consequential tool is allowed without a prompt", async () => {
  const { gate, log } = fakeGate({ enabled: false });
  assert.equal(await gate.ask(request("c1")), "allow");
  assert.equal(log.opened.length, 0);
});

test("Allow and Deny end the prompt and close its window; a second answer changes nothing", async () => {
  const { gate, log } = fakeGate();
  const first = gate.ask(request("c1"));
  await tick();
  const { key, view } = log.opened[0];
  assert.equal(view.toolName, "buy");
  assert.equal(view.origin, "https://shop.example");
  assert.deepEqual(view.arguments, { rows: [{ depth: 0, key: "item", value: '"tea"' }], complete: true });
  assert.equal(view.expiresAt, 1_000 + promptTimeoutMs(5000));
  gate.answer(key, true);
  gate.answer(key, false);
  assert.equal(await first, "allow");
  assert.deepEqual(log.closed, [100]);
  assert.equal(log.timers[0].cleared, true);
  assert.equal(gate.size, 0);

  const second = gate.ask(request("c2"));
  await tick();
  gate.answer(log.opened[1].key, false);
  assert.equal(await second, "deny");
});

test("closing the window, the timer, a cancel and a closed tab each end the prompt", async () => {
  const { gate, log } = fakeGate();
  const closedByPort = gate.ask(request("c1"));
  const closedWindow = gate.ask(request("c2"));
  const timedOut = gate.ask(request("c3"));
  const cancelled = gate.ask(request("c4"));
  const gone = gate.ask(request("c5", { tabId: 9 }));
  await tick();
  gate.portClosed(log.opened[0].key);
  gate.windowClosed(101);
  log.timers[2].fn();
  assert.equal(gate.cancel("c4"), true);
  assert.equal(gate.cancel("c4"), false);
  gate.tabGone(9);
  assert.deepEqual(await Promise.all([closedByPort, closedWindow, timedOut, cancelled, gone]), ["closed", "closed", "timeout", "cancelled", "gone"]);
  assert.equal(gate.size, 0);
});

test("several pending prompts do not mix: each key answers its own call", async () => {
  const { gate, log } = fakeGate();
  const a = gate.ask(request("a", { input: { item: "A" } }));
  const b = gate.ask(request("b", { input: { item: "B" } }));
  await tick();
  const byItem = Object.fromEntries(log.opened.map((o) => [o.view.arguments.rows[0].value.slice(1, -1), o.key]));
  gate.answer(byItem.B, false);
  gate.answer(byItem.A, true);
  assert.deepEqual(await Promise.all([a, b]), ["allow", "deny"]);
  assert.equal(gate.view(byItem.A), undefined);
});

test("a prompt decided while its window was still opening closes that window when it appears", async () => {
  let openWindow;
  const closed = [];
  const gate = new ConfirmGate({
    enabled: async () => true,
    open: () => new Promise((resolve) => (openWindow = resolve)),
    close: (id) => closed.push(id),
    newKey: () => "k",
  });
  const decided = gate.ask(request("c1"));
  await tick();
  assert.equal(gate.cancel("c1"), true);
  assert.equal(await decided, "cancelled");
  openWindow(42);
  await tick();
  assert.deepEqual(closed, [42]);
});

test("a window that cannot be opened declines at once", async () => {
  const gate = new ConfirmGate({ enabled: async () => true, open: async () => undefined, close: () => {}, newKey: () => "k" });
  assert.equal(await gate.ask(request("c1")), "closed");
});

test("the prompt gives up shortly before the host's deadline", () => {
  assert.equal(promptTimeoutMs(5000), 4500);
  assert.equal(promptTimeoutMs(60_000), 59_000);
  assert.equal(promptTimeoutMs(1000), 800);
  assert.equal(promptTimeoutMs(undefined), 59_000);
  assert.equal(promptTimeoutMs(-1), 59_000);
});

test("cut never splits a surrogate pair", () => {
  assert.equal(cut("ab😀cd", 4), "ab…");
});

test("Allow for arguments the prompt could not show whole is a denial", async () => {
  const { gate, log } = fakeGate();
  const tooMany = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i]));
  const decided = gate.ask(request("c1", { input: tooMany }));
  await tick();
  assert.equal(log.opened[0].view.arguments.complete, false);
  gate.answer(log.opened[0].key, true);
  assert.equal(await decided, "deny");
});

test("a cross-origin frame's tool: the view names the frame's origin and the top page's", async () => {
  const { gate, log } = fakeGate();
  void gate.ask(request("c1", { origin: "https://pay.example", frameOf: "https://shop.example" }));
  await tick();
  assert.equal(log.opened[0].view.origin, "https://pay.example");
  assert.equal(log.opened[0].view.frameOf, "https://shop.example");
  gate.answer(log.opened[0].key, false);
});

test("the refusal sentences name what happened", () => {
  assert.match(refusalText("deny", 4500), /declined by the user/);
  assert.match(refusalText("closed", 4500), /declined by the user/);
  assert.match(refusalText("timeout", 4500), /within 4\.5 s \(confirmation timed out\)/);
  assert.match(refusalText("cancelled", 4500), /cancelled/);
});
