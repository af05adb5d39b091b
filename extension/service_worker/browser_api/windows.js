// browser_api part: windows and tabs: reads (every window type, as the tab model needs), the tab
// model's events, the events that may change which pages are visible, zoom, the visible part of a
// window's active tab as a PNG (page_read.js), and the confirmation prompt's popup window (confirm.js).

import { IS_FIREFOX } from "./engine.js";

/**
 * Every window type, so a tab event never names a window the tab model was not told about. Each
 * browser validates the list against its own enum: an unknown type throws.
 */
const ALL_WINDOW_TYPES = /** @type {chrome.windows.WindowType[]} */ (
  IS_FIREFOX ? ["normal", "popup", "panel", "devtools"] : ["normal", "popup", "panel", "app", "devtools"]
);

/**
 * Every normal window with its tabs, in the browser's order.
 * @returns {Promise<chrome.windows.Window[]>}
 */
export function normalWindows() {
  return chrome.windows.getAll({ populate: true, windowTypes: ["normal"] });
}

/**
 * Every window of every type with its tabs: the tab model's seed (tab_model.js). Costs about
 * 20 ms at 500 tabs; read it once, not per request.
 * @returns {Promise<chrome.windows.Window[]>}
 */
export function allWindowsWithTabs() {
  return chrome.windows.getAll({ populate: true, windowTypes: ALL_WINDOW_TYPES });
}

/**
 * Every window of every type without tabs (0.2–0.5 ms at any tab count): `state` and `focused`,
 * which have no event in every browser (tab_model.js noteWindowStates).
 * @returns {Promise<chrome.windows.Window[]>}
 */
export function allWindowsWithoutTabs() {
  return chrome.windows.getAll({ populate: false, windowTypes: ALL_WINDOW_TYPES });
}

/**
 * The last-focused normal window: its id, and whether it has the browser's focus now. One call
 * for both. `getLastFocused` is per profile; its `focused` is true only while that window really
 * is the focused one, so across the profiles of one browser at most one says true (handoff.py
 * picks the focus path by it).
 * @returns {Promise<{id: number | undefined, focused: boolean}>}
 */
export async function lastFocusedWindow() {
  try {
    const win = await chrome.windows.getLastFocused({ windowTypes: ["normal"] });
    return { id: win.id, focused: win.focused };
  } catch {
    return { id: undefined, focused: false };
  }
}

/**
 * The page the popup's "This site" section acts on: the active tab of the last-focused normal
 * window (the toolbar bubble belongs to that window; a popup-type window showing the popup, as the
 * tests open it, is skipped the same way).
 * @returns {Promise<{url: string, incognito: boolean} | undefined>} undefined when there is none
 */
export async function activeNormalTab() {
  try {
    const win = await chrome.windows.getLastFocused({ windowTypes: ["normal"], populate: true });
    const tab = win.tabs?.find((t) => t.active);
    return tab ? { url: tab.url ?? tab.pendingUrl ?? "", incognito: tab.incognito } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every normal window's id, state ("normal", "minimized", …) and focus (windows.getAll without tabs).
 * @returns {Promise<{id?: number, state?: string, focused: boolean}[]>}
 */
export async function windowStates() {
  const windows = await chrome.windows.getAll({ windowTypes: ["normal"] });
  return windows.map((win) => ({ id: win.id, state: win.state, focused: win.focused }));
}

/**
 * @param {number} tabId
 * @returns {Promise<chrome.tabs.Tab | undefined>} the tab, or undefined when it is closed
 */
export async function getTab(tabId) {
  try {
    return await chrome.tabs.get(tabId);
  } catch {
    return undefined;
  }
}

/**
 * @param {number} windowId
 * @returns {Promise<chrome.windows.Window | undefined>} the window, or undefined when it is closed
 */
export async function getWindow(windowId) {
  try {
    return await chrome.windows.get(windowId);
  } catch {
    return undefined;
  }
}

/** @param {number} tabId @returns {Promise<number>} the tab's zoom factor (1 = 100 %) */
export async function getZoom(tabId) {
  try {
    return await chrome.tabs.getZoom(tabId);
  } catch {
    return 1;
  }
}

/**
 * Keep `model` current from the chrome.tabs and chrome.windows events. Call at the worker's top
 * level (MV3: listeners registered later miss the event that woke the worker).
 * @param {import("../tab_model.js").TabModel} model
 */
export function followTabModel(model) {
  // Chromium filters windows events to normal and popup windows unless told otherwise; Firefox
  // takes no filter there (it reports every window) and rejects the argument.
  /** @param {chrome.events.Event<any>} event @param {(...args: any[]) => void} listener */
  const onWindows = (event, listener) =>
    IS_FIREFOX ? event.addListener(listener) : /** @type {any} */ (event).addListener(listener, { windowTypes: ALL_WINDOW_TYPES });
  chrome.tabs.onCreated.addListener((tab) => model.tabCreated(tab));
  chrome.tabs.onUpdated.addListener((tabId, _change, tab) => model.tabUpdated(tabId, tab));
  chrome.tabs.onRemoved.addListener((tabId) => model.tabRemoved(tabId));
  chrome.tabs.onMoved.addListener((tabId, info) => model.tabMoved(tabId, info));
  chrome.tabs.onDetached.addListener((tabId) => model.tabDetached(tabId));
  chrome.tabs.onAttached.addListener((tabId, info) => model.tabAttached(tabId, info));
  chrome.tabs.onActivated.addListener((info) => model.tabActivated(info));
  chrome.tabs.onReplaced.addListener((added, removed) => model.tabReplaced(added, removed));
  chrome.tabs.onZoomChange.addListener((info) => model.noteZoom(info.tabId, info.newZoomFactor));
  onWindows(chrome.windows.onCreated, (win) => model.windowCreated(win));
  onWindows(chrome.windows.onRemoved, (windowId) => model.windowRemoved(windowId));
  onWindows(chrome.windows.onFocusChanged, (windowId) => model.focusChanged(windowId));
  // Not in Firefox (bounds there are read when needed: chrome.windows.get).
  chrome.windows.onBoundsChanged?.addListener((win) => model.boundsChanged(win));
}

/**
 * Called whenever the set of visible pages may have changed: tab activated, moved, attached,
 * detached or updated (url, title, status); window created, removed, focused or resized
 * (minimize/restore shows as a bounds change).
 * @param {() => void} listener
 */
export function onVisiblePagesMayChange(listener) {
  const call = () => listener();
  chrome.tabs.onActivated.addListener(call);
  chrome.tabs.onAttached.addListener(call);
  chrome.tabs.onDetached.addListener(call);
  chrome.tabs.onUpdated.addListener((_tabId, change) => {
    if (change.url !== undefined || change.title !== undefined || change.status !== undefined) listener();
  });
  chrome.windows.onCreated.addListener(call);
  chrome.windows.onRemoved.addListener(call);
  chrome.windows.onFocusChanged.addListener(call);
  chrome.windows.onBoundsChanged.addListener(call);
}

/** @param {(tabId: number) => void} listener */
export function onTabRemoved(listener) {
  chrome.tabs.onRemoved.addListener((tabId) => listener(tabId));
}

/**
 * Called when a tab starts loading a document (navigation, reload): its old selection is stale.
 * @param {(tabId: number) => void} listener
 */
export function onTabLoading(listener) {
  chrome.tabs.onUpdated.addListener((tabId, change) => {
    if (change.status === "loading") listener(tabId);
  });
}

/**
 * A PNG of the visible part of the active tab of `windowId` (chrome.tabs.captureVisibleTab): a
 * `data:image/png;base64,…` URL, in device pixels. The browser allows about 2 calls a second
 * (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND) and refuses more with an error saying so.
 * @param {number} windowId
 * @returns {Promise<string>} rejects with the browser's reason
 */
export function captureVisibleTab(windowId) {
  return chrome.tabs.captureVisibleTab(windowId, { format: "png" });
}

// ---- the confirmation prompt's window (confirm.js) --------------------------------------------

/**
 * Open one of this extension's pages in a small popup window in front of the user.
 * @param {string} path  e.g. "confirm/confirm.html?key=…"
 * @param {{width: number, height: number}} size  in CSS px
 * @returns {Promise<number | undefined>} the window id, or undefined when it could not be opened
 */
export async function openPopupWindow(path, size) {
  try {
    const win = await chrome.windows.create({ url: chrome.runtime.getURL(path), type: "popup", focused: true, ...size });
    return win?.id;
  } catch {
    return undefined;
  }
}

/** @param {number} windowId closed quietly (it may be closed already) */
export function closeWindow(windowId) {
  chrome.windows.remove(windowId).catch(() => {});
}

/** @param {(windowId: number) => void} listener */
export function onWindowRemoved(listener) {
  chrome.windows.onRemoved.addListener((windowId) => listener(windowId));
}

/**
 * Show `url` in the tab instead of what it shows now, replacing it in the tab's history where the
 * browser allows (webctx's PDF viewer in place of the browser's own). Never throws.
 * @param {number} tabId
 * @param {string} url  one of this extension's pages
 * @returns {Promise<void>}
 */
export async function showInTab(tabId, url) {
  try {
    await chrome.tabs.update(tabId, { url });
  } catch (error) {
    console.warn("webctx: could not open the PDF in webctx's viewer", error);
  }
}
