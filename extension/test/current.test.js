// node --test: `current` (current.js): which windows and tabs it shows, which tabs' reports it
// reads, and a pulled answer against a pushed one, over fakes of what main.js passes in.
import assert from "node:assert/strict";
import test from "node:test";

import { Current, activeWebTabIds, loadedWebTabIds, shownWindows } from "../service_worker/current.js";
import { IdRegistry } from "../service_worker/ids.js";
import { normalizeSettings } from "../service_worker/settings.js";
import { TabModel } from "../service_worker/tab_model.js";

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
  return { id, incognito: false, focused: false, type: "normal", state: "normal", tabs, ...extra };
}

/**
 * Window 1: tab 10 (active, web), 11 (excluded site); window 2 (incognito): tab 20 (active);
 * window 3: tab 30 (active, chrome://), 31.
 */
function model() {
  const tabs = new TabModel();
  tabs.seed([
    win(1, [tab(10, 1, 0, { active: true }), tab(11, 1, 1, { url: "https://news.example/a" })], { focused: true }),
    win(2, [tab(20, 2, 0, { active: true, incognito: true })], { incognito: true }),
    win(3, [tab(30, 3, 0, { active: true, url: "chrome://settings/" }), tab(31, 3, 1, { url: "", pendingUrl: "https://e.org/p" })]),
  ]);
  return tabs;
}

test("shown: incognito windows only with the opt-in, never a tab of an excluded site", () => {
  const windows = model().windows({ normalOnly: true });
  const settings = { incognito: false, excludedSites: ["example"] };
  const shown = shownWindows(windows, settings);
  assert.deepEqual(shown.map((w) => w.id), [1, 3]);
  assert.deepEqual(shown[0].tabs.map((t) => t.id), [10]);
  assert.deepEqual(shown[1].tabs.map((t) => t.id), [30, 31]);
  assert.deepEqual(shownWindows(windows, { ...settings, incognito: true }).map((w) => w.id), [1, 2, 3]);
  // A tab still loading is judged by the url it loads.
  const loading = shownWindows(windows, { incognito: false, excludedSites: ["e.org"] });
  assert.deepEqual(loading[1].tabs.map((t) => t.id), [30]);
  assert.equal(windows[0].tabs.length, 2, "the model's windows are left as they were");
});

test("the tabs whose reports are read: active ones showing a web page", () => {
  const shown = shownWindows(model().windows({ normalOnly: true }), { incognito: true, excludedSites: [] });
  assert.deepEqual(activeWebTabIds(shown), [10, 20]);
});

/**
 * A Current over fakes; `calls` records what it asked.
 * @param {{complete: boolean, retryInMs?: number}} pushedState what selections.pushedComplete says
 * @param {boolean} [connected]
 */
function currentWith(pushedState, connected = true) {
  const tabs = model();
  /** @type {string[]} */
  const calls = [];
  const frames = new Map();
  const current = new Current({
    ids: (() => {
      const ids = new IdRegistry();
      ids.useInstance("i-test");
      return ids;
    })(),
    tabModel: tabs,
    seed: async () => {
      calls.push("seed");
    },
    selections: {
      collect: async (tabIds) => {
        calls.push(`collect ${tabIds}`);
        return frames;
      },
      pushedComplete: (tabIds) => {
        calls.push(`pushedComplete ${tabIds}`);
        return pushedState;
      },
      pushed: () => frames,
      topSite: () => undefined,
      pullUnseen: async (tabIds) => {
        calls.push(`pullUnseen ${tabIds}`);
        return tabIds.length > 0; // as selections.js: false when there is none to pull
      },
    },
    pageTools: { exposedPages: () => new Map([[10, { names: ["search"], omitted: 0 }]]) },
    ready: Promise.resolve({ browser: { name: "Chromium", version: "156" } }),
    settings: () => normalizeSettings({ excludedSites: ["news.example"] }),
    connected: () => connected,
    noteStatus: (fields) => calls.push(`noteStatus ${fields.pagesWithTools}`),
    schedulePush: () => calls.push("schedulePush"),
    read: {
      allWindowsWithoutTabs: async () => tabs.windows().map(({ tabs: _, ...w }) => ({ ...w, focused: w.id === 1 })),
      lastFocusedWindow: async () => ({ id: 1, focused: true }),
    },
  });
  return { current, calls, tabs };
}

test("answer pulls the active web tabs, builds the tree and schedules a push", async () => {
  const { current, calls } = currentWith({ complete: false });
  const { root, windowFocused } = await current.answer();
  assert.equal(windowFocused, true);
  assert.equal(root.role, "Application");
  assert.deepEqual(root.children?.map((w) => w.focused ?? false), [true, false]); // window 1, window 3
  const page = root.children?.[0].children?.[0];
  assert.deepEqual([page?.url, page?.focused, page?.attributes?.tools], ["https://e.org/10", true, ["search"]]);
  assert.equal(root.children?.[0].children?.length, 1, "the excluded site's tab is left out");
  assert.deepEqual(calls, ["seed", "seed", "collect 10", "noteStatus 1", "schedulePush"]);
});

test("pushedTree waits for a tab that must be pulled, and pulls the unseen ones in the background", async () => {
  const { current, calls } = currentWith({ complete: false, retryInMs: 120 });
  assert.deepEqual(await current.pushedTree(), { complete: false, retryInMs: 120 });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(calls, ["seed", "seed", "pushedComplete 10", "pullUnseen 10", "schedulePush"]);
});

test("pushedTree pulls a tab in the background only once it has loaded", async () => {
  // An executeScript pull into a loading document holds back its load event (docs/internals/extension.md
  // "When the content scripts start"); the tab's "complete" update schedules the push again.
  const { current, calls, tabs } = currentWith({ complete: false });
  tabs.tabUpdated(10, tab(10, 1, 0, { active: true, status: "loading" }));
  assert.deepEqual(await current.pushedTree(), { complete: false });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(calls, ["seed", "seed", "pushedComplete 10", "pullUnseen "]);
  calls.length = 0;
  tabs.tabUpdated(10, tab(10, 1, 0, { active: true, status: "complete" }));
  await current.pushedTree();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(calls, ["seed", "seed", "pushedComplete 10", "pullUnseen 10", "schedulePush"]);
});

test("loaded tabs: those not loading, a status left unset included", () => {
  const windows = [win(1, [tab(1, 1, 0, { status: "loading" }), tab(2, 1, 1, { status: "complete" }), tab(3, 1, 2)])];
  const listed = /** @type {import("../service_worker/tab_model.js").ListedWindow[]} */ (windows);
  assert.deepEqual(loadedWebTabIds(listed, [3, 1, 2]), [3, 2]);
});

test("pushedTree builds from the pushed reports when they are complete, and nothing without a port", async () => {
  const { current, calls } = currentWith({ complete: true });
  const built = await current.pushedTree();
  assert.equal(built?.complete, true);
  assert.equal(built?.windowFocused, true);
  assert.deepEqual(calls, ["seed", "seed", "pushedComplete 10", "noteStatus 1"]);
  const closed = currentWith({ complete: true }, false);
  assert.equal(await closed.current.pushedTree(), null);
  assert.deepEqual(closed.calls, []);
});
