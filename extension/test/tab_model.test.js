// node --test: the in-memory tab model (tab_model.js) driven by chrome.tabs/windows events.
import assert from "node:assert/strict";
import test from "node:test";

import { diffWindows } from "../service_worker/debug_hooks.js";
import { TabModel, WINDOW_ID_NONE } from "../service_worker/tab_model.js";

/**
 * @param {number} id
 * @param {number} windowId
 * @param {number} index
 * @param {Partial<import("../service_worker/tab_model.js").ModelTab>} [extra]
 */
function tab(id, windowId, index, extra = {}) {
  return { id, windowId, index, active: false, incognito: false, title: `T${id}`, url: `https://e.org/${id}`, ...extra };
}

/**
 * @param {number} id
 * @param {import("../service_worker/tab_model.js").ModelTab[]} tabs
 * @param {Partial<import("../service_worker/tab_model.js").ModelWindow>} [extra]
 */
function win(id, tabs, extra = {}) {
  return { id, incognito: false, focused: false, type: "normal", state: "normal", left: 0, top: 0, width: 800, height: 600, tabs, ...extra };
}

/** Two windows: 1 with tabs 10 (active), 11, 12; 2 with tab 20 (active). */
function seeded() {
  const model = new TabModel();
  model.seed([
    win(1, [tab(11, 1, 1), tab(10, 1, 0, { active: true }), tab(12, 1, 2)], { focused: true }),
    win(2, [tab(20, 2, 0, { active: true })]),
  ]);
  return model;
}

/** @param {TabModel} model @param {number} windowId @returns {number[]} tab ids in strip order */
const order = (model, windowId) => (model.windows().find((w) => w.id === windowId)?.tabs ?? []).map((t) => t.id);
/** @param {TabModel} model @param {number} windowId @returns {number[]} the active tab ids */
const active = (model, windowId) =>
  (model.windows().find((w) => w.id === windowId)?.tabs ?? []).filter((t) => t.active).map((t) => t.id);

test("a seed lists windows in the browser's order and tabs by index, with indexes", () => {
  const model = seeded();
  assert.equal(model.seeded, true);
  assert.deepEqual(model.windows().map((w) => w.id), [1, 2]);
  assert.deepEqual(order(model, 1), [10, 11, 12]);
  assert.deepEqual(model.windows()[0].tabs.map((t) => t.index), [0, 1, 2]);
  assert.equal(model.tab(12)?.index, 2);
  assert.equal(model.tab(12)?.windowId, 1);
  assert.equal(model.tab(99), undefined);
});

test("onCreated inserts at its index; an active new tab takes over from the old one", () => {
  const model = seeded();
  model.tabCreated(tab(13, 1, 1, { active: true }));
  assert.deepEqual(order(model, 1), [10, 13, 11, 12]);
  assert.deepEqual(active(model, 1), [13]);
  model.tabCreated(tab(13, 1, 1, { active: true })); // a repeat does not list it twice
  assert.deepEqual(order(model, 1), [10, 13, 11, 12]);
});

test("onUpdated takes title and url but not index, window or active (those are structural)", () => {
  const model = seeded();
  model.tabUpdated(11, tab(11, 2, 0, { title: "new", url: "https://n.org/", active: true }));
  const t = model.tab(11);
  assert.equal(t?.title, "new");
  assert.equal(t?.url, "https://n.org/");
  assert.equal(t?.windowId, 1);
  assert.equal(t?.index, 1);
  assert.equal(t?.active, false);
});

test("onRemoved takes the tab out and forgets its zoom", () => {
  const model = seeded();
  model.noteZoom(11, 1.5);
  model.tabRemoved(11);
  assert.deepEqual(order(model, 1), [10, 12]);
  assert.equal(model.zoom(11), undefined);
  model.tabRemoved(11); // twice is harmless
  assert.equal(model.seeded, true);
});

test("onMoved reorders within the window", () => {
  const model = seeded();
  model.tabMoved(10, { windowId: 1, toIndex: 2 });
  assert.deepEqual(order(model, 1), [11, 12, 10]);
  model.tabMoved(12, { windowId: 1, toIndex: 0 });
  assert.deepEqual(order(model, 1), [12, 11, 10]);
});

test("onDetached + onAttached move a tab to another window; onActivated picks the active tabs", () => {
  const model = seeded();
  model.tabDetached(10);
  model.tabActivated({ tabId: 11, windowId: 1 });
  model.tabAttached(10, { newWindowId: 2, newPosition: 1 });
  assert.deepEqual(order(model, 1), [11, 12]);
  assert.deepEqual(order(model, 2), [20, 10]);
  assert.deepEqual(active(model, 1), [11]);
  assert.deepEqual(active(model, 2), [20]);
  model.tabActivated({ tabId: 10, windowId: 2 });
  assert.deepEqual(active(model, 2), [10]);
  assert.equal(model.tab(10)?.windowId, 2);
});

test("a tab dragged out into a new window is that window's active tab", () => {
  const model = seeded();
  model.windowCreated(win(3, []));
  model.tabDetached(12);
  model.tabAttached(12, { newWindowId: 3, newPosition: 0 });
  assert.deepEqual(order(model, 3), [12]);
  assert.deepEqual(active(model, 3), [12]);
});

test("window create, remove, focus, bounds", () => {
  const model = seeded();
  model.windowCreated(win(3, [], { type: "popup" }));
  model.tabCreated(tab(30, 3, 0, { active: true }));
  assert.deepEqual(model.windows().map((w) => w.id), [1, 2, 3]);
  assert.deepEqual(model.windows({ normalOnly: true }).map((w) => w.id), [1, 2]);
  model.focusChanged(2);
  assert.deepEqual(model.windows().map((w) => w.focused), [false, true, false]);
  model.focusChanged(WINDOW_ID_NONE);
  assert.deepEqual(model.windows().map((w) => w.focused), [false, false, false]);
  model.boundsChanged(win(2, [], { left: 5, top: 6, width: 7, height: 8, state: "maximized" }));
  const { tabs: _tabs, ...bounded } = win(2, [], { left: 5, top: 6, width: 7, height: 8, state: "maximized" });
  assert.deepEqual(model.window(2), bounded);
  model.windowRemoved(1);
  assert.deepEqual(model.windows().map((w) => w.id), [2, 3]);
  assert.equal(model.tab(10), undefined);
  assert.equal(model.seeded, true);
});

test("what the model cannot place marks it stale: unknown tab, unknown window, onReplaced", () => {
  for (const apply of [
    (/** @type {TabModel} */ m) => m.tabUpdated(99, tab(99, 1, 0)),
    (/** @type {TabModel} */ m) => m.tabCreated(tab(99, 7, 0)),
    (/** @type {TabModel} */ m) => m.tabMoved(99, { windowId: 1, toIndex: 0 }),
    (/** @type {TabModel} */ m) => m.tabActivated({ tabId: 10, windowId: 2 }),
    (/** @type {TabModel} */ m) => m.tabAttached(10, { newWindowId: 7, newPosition: 0 }),
    (/** @type {TabModel} */ m) => m.tabReplaced(50, 10),
    (/** @type {TabModel} */ m) => m.boundsChanged(win(7, [])),
  ]) {
    const model = seeded();
    apply(model);
    assert.equal(model.seeded, false, String(apply));
  }
});

test("noteWindowStates takes state and focus, and marks stale when the window sets differ", () => {
  const model = seeded();
  model.noteWindowStates([win(1, [], { state: "minimized" }), win(2, [], { focused: true })]);
  assert.deepEqual(model.windows().map((w) => [w.state, w.focused]), [["minimized", false], ["normal", true]]);
  assert.equal(model.seeded, true);
  model.noteWindowStates([win(1, [])]);
  assert.equal(model.seeded, false);
  const other = seeded();
  other.noteWindowStates([win(1, []), win(2, []), win(3, [])]);
  assert.equal(other.seeded, false);
});

test("ensureSeeded reads once, shares a read in flight, and seeds again when an event raced it", async () => {
  const model = new TabModel();
  let reads = 0;
  const readAll = async () => {
    reads++;
    return [win(1, [tab(10, 1, 0, { active: true })])];
  };
  await Promise.all([model.ensureSeeded(readAll), model.ensureSeeded(readAll)]);
  assert.equal(reads, 1);
  await model.ensureSeeded(readAll);
  assert.equal(reads, 1);
  // An event while the read is in flight: that answer is used, and the next read seeds again.
  const racing = async () => {
    reads++;
    model.tabCreated(tab(11, 1, 1));
    return [win(1, [tab(10, 1, 0, { active: true }), tab(11, 1, 1)])];
  };
  model.markStale();
  await model.ensureSeeded(racing);
  assert.deepEqual(order(model, 1), [10, 11]);
  assert.equal(model.seeded, false);
  await model.ensureSeeded(readAll);
  assert.equal(model.seeded, true);
  assert.equal(reads, 3);
});

test("a scripted sequence of events leaves the model equal to the browser's own answer", () => {
  const model = seeded();
  model.tabCreated(tab(13, 1, 3));
  model.tabMoved(13, { windowId: 1, toIndex: 0 });
  model.tabUpdated(13, tab(13, 1, 0, { title: "x", url: "https://x.org/" }));
  model.windowCreated(win(3, [], { focused: true }));
  model.focusChanged(3);
  model.tabDetached(11);
  model.tabActivated({ tabId: 12, windowId: 1 });
  model.tabAttached(11, { newWindowId: 3, newPosition: 0 });
  model.tabActivated({ tabId: 11, windowId: 3 });
  model.tabRemoved(20);
  model.windowRemoved(2);
  const browser = [
    win(1, [tab(13, 1, 0, { title: "x", url: "https://x.org/" }), tab(10, 1, 1), tab(12, 1, 2, { active: true })]),
    win(3, [tab(11, 3, 0, { active: true })], { focused: true }),
  ];
  assert.deepEqual(diffWindows(model.windows(), browser), []);
  const moved = structuredClone(browser);
  moved[0].tabs.reverse();
  moved[0].tabs.forEach((t, i) => (t.index = i));
  moved[1].tabs[0].title = "secret";
  const diff = diffWindows(model.windows(), moved);
  assert.ok(diff.some((line) => line.startsWith("window 1 tabs:")));
  assert.ok(diff.includes("tab 11 title differs"));
  assert.ok(!diff.join("\n").includes("secret"), "no page content in the diff");
});
