// An in-memory model of the browser's windows and tabs, so `current` and `location` need not call
// chrome.windows.getAll({populate: true}) per request (20 ms at 500 tabs; docs/internals/extension.md "Tab
// model").
//
//   seed: windows.getAll({populate: true}) once (worker start, port open, or after the model
//         noticed it is out of step) ──► TabModel.seed
//   chrome.tabs.* / chrome.windows.* events (browser_api.js followTabModel) ──► one method each
//   every build of the pushed tree (tree_push.js; each event above schedules one through
//         `onChange`) and every pulled `current` re-read what has no reliable event (a window's
//         `state`: minimize fires nothing in headless Chromium; `focused`) with windows.getAll()
//         without tabs, which also checks the set of windows ──► TabModel.noteWindowStates; the
//         worker's window-state poll (main.js) schedules a build when that read changes
//
// Pure: no chrome.* here; node tests drive every event. Tab order is structural (one id list per
// window, in tab-strip order): an event's `tab` object may already be ahead of the events still
// queued (its `index`, `windowId`), so those two fields come from the lists, never from it.
// Anything the model cannot place (an event for an unknown tab or window, onReplaced) marks it
// `stale`; the next read seeds it again rather than answer from a guess.

/** @typedef {import("./tree.js").TabInfo} TabInfo */
/** @typedef {import("./tree.js").WindowInfo} WindowInfo */

/**
 * The fields of a chrome.tabs.Tab the model keeps (all optional as in the API's typings).
 * @typedef {object} ModelTab
 * @property {number} [id]
 * @property {number} [windowId]
 * @property {number} [index]
 * @property {boolean} active
 * @property {boolean} incognito
 * @property {string} [title]
 * @property {string} [url]
 * @property {string} [pendingUrl]
 * @property {string} [status]
 * @property {boolean} [discarded]
 */

/**
 * The fields of a chrome.windows.Window the model keeps.
 * @typedef {object} ModelWindow
 * @property {number} [id]
 * @property {boolean} incognito
 * @property {string} [type]
 * @property {string} [state]
 * @property {boolean} focused
 * @property {number} [left]   outer bounds, points (DIPs)
 * @property {number} [top]
 * @property {number} [width]
 * @property {number} [height]
 * @property {ModelTab[]} [tabs]
 */

/** @typedef {ModelTab & {id: number, windowId: number, index: number}} ListedTab */
/** @typedef {Omit<ModelWindow, "tabs"> & {id: number, tabs: ListedTab[]}} ListedWindow */

/** chrome.windows.WINDOW_ID_NONE: focus left the browser. */
export const WINDOW_ID_NONE = -1;

/** @param {ModelTab} tab @returns {ModelTab} the fields the model keeps, copied */
function keepTab(tab) {
  return {
    id: tab.id,
    windowId: tab.windowId,
    active: Boolean(tab.active),
    incognito: Boolean(tab.incognito),
    title: tab.title,
    url: tab.url,
    pendingUrl: tab.pendingUrl,
    status: tab.status,
    discarded: tab.discarded,
  };
}

/** @param {ModelWindow} win @returns {ModelWindow} the fields the model keeps, without tabs */
function keepWindow(win) {
  return {
    id: win.id,
    incognito: Boolean(win.incognito),
    type: win.type,
    state: win.state,
    focused: Boolean(win.focused),
    left: win.left,
    top: win.top,
    width: win.width,
    height: win.height,
  };
}

export class TabModel {
  /** Windows by id, in the order the browser lists them (creation order). @type {Map<number, {win: ModelWindow, tabIds: number[]}>} */
  #windows = new Map();
  /** Tabs by id (their `windowId` and `index` are filled in on read). @type {Map<number, ModelTab>} */
  #tabs = new Map();
  /** Zoom factors by tab (chrome.tabs.onZoomChange, or asked once). @type {Map<number, number>} */
  #zooms = new Map();
  /** Counts every event applied, so a seed can tell whether one arrived while it was in flight. */
  events = 0;
  /** False until the first seed, and again once an event could not be placed. */
  seeded = false;

  /** The seed in flight, shared by concurrent reads. @type {Promise<void> | null} */
  #seeding = null;

  /** Called after every event applied (the pushed tree schedules a build: tree_push.js). @type {(() => void) | null} */
  onChange = null;

  /** An event was applied: count it, and tell `onChange`. */
  #changed() {
    this.events++;
    this.onChange?.();
  }

  /** The model can no longer be trusted: the next read seeds it again. */
  markStale() {
    this.seeded = false;
  }

  /**
   * Replace everything with a windows.getAll({populate: true}) answer.
   * @param {ModelWindow[]} windows
   */
  seed(windows) {
    this.#windows.clear();
    this.#tabs.clear();
    for (const win of windows) {
      if (win.id === undefined) continue;
      const tabs = [...(win.tabs ?? [])].filter((t) => t.id !== undefined).sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      this.#windows.set(win.id, { win: keepWindow(win), tabIds: tabs.map((t) => /** @type {number} */ (t.id)) });
      for (const tab of tabs) this.#tabs.set(/** @type {number} */ (tab.id), { ...keepTab(tab), windowId: win.id });
    }
    for (const tabId of this.#zooms.keys()) if (!this.#tabs.has(tabId)) this.#zooms.delete(tabId);
    this.seeded = true;
  }

  /**
   * Seed when needed (first read, after a worker restart, or once marked stale). An event that
   * arrives while the browser's answer is in flight may or may not be in it: the answer is used
   * (it is as fresh as a direct read), and the next read seeds again.
   * @param {() => Promise<ModelWindow[]>} readAll  windows.getAll({populate: true}) over every type
   * @returns {Promise<void>}
   */
  async ensureSeeded(readAll) {
    if (this.seeded) return;
    this.#seeding ??= (async () => {
      try {
        const before = this.events;
        const windows = await readAll();
        this.seed(windows);
        if (this.events !== before) this.markStale();
      } finally {
        this.#seeding = null;
      }
    })();
    await this.#seeding;
  }

  // ---- chrome.tabs events ----------------------------------------------------------------------

  /** @param {ModelTab} tab chrome.tabs.onCreated */
  tabCreated(tab) {
    this.#changed();
    const entry = tab.windowId === undefined ? undefined : this.#windows.get(tab.windowId);
    if (tab.id === undefined || !entry) return this.markStale();
    this.#unlink(tab.id); // a repeated event must not list the tab twice
    entry.tabIds.splice(clampIndex(tab.index, entry.tabIds.length), 0, tab.id);
    this.#tabs.set(tab.id, keepTab(tab));
    if (tab.active) this.#activate(tab.windowId ?? WINDOW_ID_NONE, tab.id);
  }

  /**
   * chrome.tabs.onUpdated: take the tab's fields, except where it sits and whether it is active
   * (structural: from onMoved/onAttached/onActivated, which may still be queued behind this one).
   * @param {number} tabId
   * @param {ModelTab} tab
   */
  tabUpdated(tabId, tab) {
    this.#changed();
    const known = this.#tabs.get(tabId);
    if (!known) return this.markStale();
    this.#tabs.set(tabId, { ...keepTab(tab), windowId: known.windowId, active: known.active });
  }

  /** @param {number} tabId chrome.tabs.onRemoved */
  tabRemoved(tabId) {
    this.#changed();
    this.#unlink(tabId);
    this.#tabs.delete(tabId);
    this.#zooms.delete(tabId);
  }

  /**
   * chrome.tabs.onMoved (within one window).
   * @param {number} tabId
   * @param {{windowId: number, toIndex: number}} info
   */
  tabMoved(tabId, info) {
    this.#changed();
    const entry = this.#windows.get(info.windowId);
    const at = entry ? entry.tabIds.indexOf(tabId) : -1;
    if (!entry || at < 0) return this.markStale();
    entry.tabIds.splice(at, 1);
    entry.tabIds.splice(clampIndex(info.toIndex, entry.tabIds.length), 0, tabId);
  }

  /**
   * chrome.tabs.onDetached: the tab leaves its window (onAttached follows).
   * @param {number} tabId
   */
  tabDetached(tabId) {
    this.#changed();
    if (!this.#tabs.has(tabId)) return this.markStale();
    this.#unlink(tabId);
  }

  /**
   * chrome.tabs.onAttached.
   * @param {number} tabId
   * @param {{newWindowId: number, newPosition: number}} info
   */
  tabAttached(tabId, info) {
    this.#changed();
    const tab = this.#tabs.get(tabId);
    const entry = this.#windows.get(info.newWindowId);
    if (!tab || !entry) return this.markStale();
    this.#unlink(tabId);
    entry.tabIds.splice(clampIndex(info.newPosition, entry.tabIds.length), 0, tabId);
    tab.windowId = info.newWindowId;
    // The window it joins keeps its active tab; onActivated says otherwise when it changes.
    tab.active = entry.tabIds.length === 1;
  }

  /** @param {{tabId: number, windowId: number}} info chrome.tabs.onActivated */
  tabActivated(info) {
    this.#changed();
    const tab = this.#tabs.get(info.tabId);
    if (!tab || tab.windowId !== info.windowId) return this.markStale();
    this.#activate(info.windowId, info.tabId);
  }

  /**
   * chrome.tabs.onReplaced (prerendering, instant): the new tab's fields are unknown here.
   * @param {number} _addedTabId
   * @param {number} removedTabId
   */
  tabReplaced(_addedTabId, removedTabId) {
    this.#changed();
    this.#zooms.delete(removedTabId);
    this.markStale();
  }

  /** @param {number} tabId @param {number} zoom chrome.tabs.onZoomChange's newZoomFactor */
  noteZoom(tabId, zoom) {
    if (Number.isFinite(zoom) && zoom > 0) this.#zooms.set(tabId, zoom);
  }

  /** @param {number} tabId @returns {number | undefined} the tab's zoom factor, when known */
  zoom(tabId) {
    return this.#zooms.get(tabId);
  }

  // ---- chrome.windows events -------------------------------------------------------------------

  /** @param {ModelWindow} win chrome.windows.onCreated (its tabs come as tabs.onCreated) */
  windowCreated(win) {
    this.#changed();
    if (win.id === undefined) return;
    if (!this.#windows.has(win.id)) this.#windows.set(win.id, { win: keepWindow(win), tabIds: [] });
    else Object.assign(/** @type {{win: ModelWindow}} */ (this.#windows.get(win.id)).win, keepWindow(win));
  }

  /** @param {number} windowId chrome.windows.onRemoved */
  windowRemoved(windowId) {
    this.#changed();
    const entry = this.#windows.get(windowId);
    if (!entry) return;
    for (const tabId of entry.tabIds) {
      this.#tabs.delete(tabId);
      this.#zooms.delete(tabId);
    }
    this.#windows.delete(windowId);
  }

  /** @param {number} windowId chrome.windows.onFocusChanged (WINDOW_ID_NONE: focus left the browser) */
  focusChanged(windowId) {
    this.#changed();
    for (const [id, { win }] of this.#windows) win.focused = id === windowId;
  }

  /** @param {ModelWindow} win chrome.windows.onBoundsChanged */
  boundsChanged(win) {
    this.#changed();
    const entry = win.id === undefined ? undefined : this.#windows.get(win.id);
    if (!entry) return this.markStale();
    Object.assign(entry.win, { left: win.left, top: win.top, width: win.width, height: win.height, state: win.state });
  }

  /**
   * What has no event everywhere: each window's `state` (minimize/restore fire nothing in headless
   * Chromium) and `focused`, from windows.getAll() without tabs. A window the model lacks, or one
   * it has that the browser no longer lists, marks it stale.
   * @param {ModelWindow[]} windows  every window of the types the model follows
   */
  noteWindowStates(windows) {
    let listed = 0;
    for (const win of windows) {
      const entry = win.id === undefined ? undefined : this.#windows.get(win.id);
      if (!entry) return this.markStale();
      listed++;
      entry.win.state = win.state;
      entry.win.focused = Boolean(win.focused);
    }
    if (listed !== this.#windows.size) this.markStale();
  }

  // ---- reads -----------------------------------------------------------------------------------

  /**
   * Every window with its tabs in tab-strip order, as windows.getAll({populate: true}) would list
   * them. Fresh objects: callers may keep or change them.
   * @param {{normalOnly?: boolean}} [options]
   * @returns {ListedWindow[]}
   */
  windows(options = {}) {
    /** @type {ListedWindow[]} */
    const out = [];
    for (const [id, { win, tabIds }] of this.#windows) {
      if (options.normalOnly && win.type !== "normal") continue;
      /** @type {ListedTab[]} */
      const tabs = [];
      for (const tabId of tabIds) {
        const tab = this.#tabs.get(tabId);
        if (tab) tabs.push({ ...tab, id: tabId, windowId: id, index: tabs.length });
      }
      out.push({ ...win, id, tabs });
    }
    return out;
  }

  /** @param {number} tabId @returns {(ModelTab & {index: number}) | undefined} */
  tab(tabId) {
    const tab = this.#tabs.get(tabId);
    if (!tab || tab.windowId === undefined) return undefined;
    const entry = this.#windows.get(tab.windowId);
    const index = entry ? entry.tabIds.indexOf(tabId) : -1;
    return index < 0 ? undefined : { ...tab, index };
  }

  /** @param {number} windowId @returns {ModelWindow | undefined} the window, without its tabs */
  window(windowId) {
    const entry = this.#windows.get(windowId);
    return entry ? { ...entry.win } : undefined;
  }

  // ---- internals -------------------------------------------------------------------------------

  /** @param {number} tabId take the tab out of its window's list (it stays in #tabs) */
  #unlink(tabId) {
    const windowId = this.#tabs.get(tabId)?.windowId;
    const entry = windowId === undefined ? undefined : this.#windows.get(windowId);
    const at = entry ? entry.tabIds.indexOf(tabId) : -1;
    if (entry && at >= 0) entry.tabIds.splice(at, 1);
  }

  /** @param {number} windowId @param {number} tabId the window's one active tab */
  #activate(windowId, tabId) {
    for (const id of this.#windows.get(windowId)?.tabIds ?? []) {
      const tab = this.#tabs.get(id);
      if (tab) tab.active = id === tabId;
    }
  }
}

/** @param {number | undefined} index @param {number} length @returns {number} within 0…length */
function clampIndex(index, length) {
  return Math.min(Math.max(0, index ?? length), length);
}
