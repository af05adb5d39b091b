// The only service-worker module that touches chrome.* (STYLE: "Only browser_api.js knows
// Chromium from Firefox"). Thin wrappers: no policy here, just the calls and their error shapes.

/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */

/**
 * A connected native port, reduced to what native_port.js needs.
 * @typedef {object} NativePortHandle
 * @property {(message: object) => void} post      throws if the message exceeds 64 MiB
 * @property {() => void} disconnect
 */

/**
 * Open the native messaging port. `onDisconnect` receives chrome.runtime.lastError.message (the
 * reason the browser gives, e.g. "Specified native messaging host not found."), or null.
 * @param {string} name
 * @param {(message: unknown) => void} onMessage
 * @param {(error: string | null) => void} onDisconnect
 * @returns {NativePortHandle}
 */
export function connectNative(name, onMessage, onDisconnect) {
  const port = chrome.runtime.connectNative(name);
  port.onMessage.addListener((message) => onMessage(message));
  port.onDisconnect.addListener(() => onDisconnect(chrome.runtime.lastError?.message ?? null));
  return {
    post: (message) => port.postMessage(message),
    disconnect: () => port.disconnect(),
  };
}

/** @returns {{id: string, version: string}} this extension's id and version */
export function extensionInfo() {
  return { id: chrome.runtime.id, version: chrome.runtime.getManifest().version };
}

/**
 * The browser's brands with full versions (User-Agent Client Hints) and its UA string.
 * @returns {Promise<{brands: {brand: string, version: string}[], userAgent: string}>}
 */
export async function browserBrands() {
  const userAgent = navigator.userAgent;
  /** @type {{getHighEntropyValues?: (hints: string[]) => Promise<{fullVersionList?: {brand: string, version: string}[]}>} | undefined} */
  const uaData = /** @type {any} */ (navigator).userAgentData;
  try {
    const values = await uaData?.getHighEntropyValues?.(["fullVersionList"]);
    return { brands: values?.fullVersionList ?? [], userAgent };
  } catch {
    return { brands: [], userAgent };
  }
}

/**
 * Every normal window with its tabs, in the browser's order.
 * @returns {Promise<chrome.windows.Window[]>}
 */
export function normalWindows() {
  return chrome.windows.getAll({ populate: true, windowTypes: ["normal"] });
}

/** Firefox: it has no `documentId` addressing, and its WindowType enum has no "app". */
const IS_FIREFOX = /Firefox\//.test(globalThis.navigator?.userAgent ?? ""); // no navigator in node tests

/**
 * Every window type, so a tab event never names a window the tab model was not told about. Each
 * browser validates the list against its own enum: an unknown type throws.
 */
const ALL_WINDOW_TYPES = /** @type {chrome.windows.WindowType[]} */ (
  IS_FIREFOX ? ["normal", "popup", "panel", "devtools"] : ["normal", "popup", "panel", "app", "devtools"]
);

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
 * The last-focused normal window: its id, and whether it has the browser's focus now (see
 * windowFocusedNow). One call for both.
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
 * Keep `model` current from the chrome.tabs and chrome.windows events. Call at the worker's top
 * level (MV3: listeners registered later miss the event that woke the worker).
 * @param {import("./tab_model.js").TabModel} model
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
 * The state of every window ("normal", "minimized", …) by window id, without their tabs (cheap).
 * @returns {Promise<Map<number, string | undefined>>}
 */
export async function windowStateMap() {
  const windows = await chrome.windows.getAll({ populate: false });
  return new Map(windows.filter((w) => w.id !== undefined).map((w) => [/** @type {number} */ (w.id), w.state]));
}

/** @returns {Promise<number | undefined>} the browser's last-focused normal window, if any */
export async function lastFocusedWindowId() {
  try {
    return (await chrome.windows.getLastFocused({ windowTypes: ["normal"] })).id;
  } catch {
    return undefined;
  }
}

/**
 * Whether one of this profile's windows has the browser's focus now. `getLastFocused` is per
 * profile; its `focused` is true only while that window really is the focused one, so across the
 * profiles of one browser at most one says true (handoff.py picks the focus path by it).
 * @returns {Promise<boolean>}
 */
export async function windowFocusedNow() {
  try {
    return (await chrome.windows.getLastFocused({ windowTypes: ["normal"] })).focused;
  } catch {
    return false;
  }
}

/**
 * Send `message` to the content script in a tab's top frame and return its reply.
 * @param {number} tabId
 * @param {object} message
 * @returns {Promise<unknown>} rejects when no content script answers
 */
export function sendToTopFrame(tabId, message) {
  return chrome.tabs.sendMessage(tabId, message, { frameId: 0 });
}

/**
 * Send `message` to the content script of one frame, whatever document it holds now (Firefox
 * has no documentId; the content script checks a token instead: selections.js `documentKey`).
 * @param {number} tabId
 * @param {number} frameId
 * @param {object} message
 * @returns {Promise<unknown>} rejects when no content script answers
 */
export function sendToFrame(tabId, frameId, message) {
  return chrome.tabs.sendMessage(tabId, message, { frameId });
}

/**
 * Every frame's report (content/report.js) in one injection; results name each frame's frameId
 * and documentId. Frames without the content scripts give null results.
 * @param {number} tabId
 * @returns {Promise<{frameId: number, documentId: string | undefined, result: unknown}[]>}
 */
export async function frameReports(tabId) {
  const results = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    // Runs in the isolated world, which the content scripts share.
    func: () => /** @type {any} */ (globalThis).__webctx?.report?.() ?? null,
  });
  return results.map((r) => ({ frameId: r.frameId, documentId: r.documentId, result: r.result }));
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

/**
 * Called when a tab's zoom factor changes (the user's Ctrl +/-, chrome.tabs.setZoom).
 * @param {(tabId: number, zoom: number) => void} listener
 */
export function onZoomChange(listener) {
  chrome.tabs.onZoomChange.addListener((info) => listener(info.tabId, info.newZoomFactor));
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
 * Inject the manifest's content scripts into every open tab (all frames). Tabs where injection is
 * not allowed (chrome://, the Web Store, …) fail quietly. The scripts guard against running twice.
 * @returns {Promise<void>}
 */
export async function injectContentScriptsIntoOpenTabs() {
  // Each manifest entry keeps its world: the main-world polyfill must not land in the isolated world.
  const entries = (chrome.runtime.getManifest().content_scripts ?? [])
    .map((entry) => ({
      files: entry.js ?? [],
      world: /** @type {chrome.scripting.ExecutionWorld} */ (/** @type {{world?: string}} */ (entry).world === "MAIN" ? "MAIN" : "ISOLATED"),
    }))
    .filter((entry) => entry.files.length > 0)
    // The main world first, as at document_start.
    .sort((a, b) => (a.world === b.world ? 0 : a.world === "MAIN" ? -1 : 1));
  if (entries.length === 0) return;
  const tabs = await chrome.tabs.query({});
  await Promise.all(
    tabs.map(async (tab) => {
      if (tab.id === undefined || tab.incognito) return;
      for (const { files, world } of entries) {
        try {
          await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, files, world });
        } catch {
          // Not injectable (internal page, discarded tab, no access): nothing to report there anyway.
        }
      }
    }),
  );
}

/**
 * Send `message` to the content script of one document (any frame of the tab) and return its
 * reply. Rejects when the document is gone (tab closed, navigated, put in the back/forward cache)
 * or has no content script.
 * @param {number} tabId
 * @param {string} documentId
 * @param {object} message
 * @returns {Promise<unknown>}
 */
export function sendToDocument(tabId, documentId, message) {
  return chrome.tabs.sendMessage(tabId, message, { documentId });
}

/**
 * Open a port to the content script of `documentId`, or of the tab's top frame when null
 * (chrome.tabs.connect; page_channel.js). `onDisconnect` also runs when nothing answers the
 * connection (no such document, no content script). Null in Firefox (no `documentId` in
 * tabs.connect) or when the browser refuses the options: the caller sends one message instead.
 * @param {number} tabId
 * @param {string | null} documentId
 * @param {string} name
 * @param {{onMessage: (message: unknown) => void, onDisconnect: () => void}} listeners
 * @returns {import("./page_channel.js").PagePort | null}
 */
export function connectToDocument(tabId, documentId, name, listeners) {
  if (IS_FIREFOX) return null;
  let port;
  try {
    port = chrome.tabs.connect(tabId, documentId === null ? { name, frameId: 0 } : { name, documentId });
  } catch {
    return null;
  }
  port.onMessage.addListener((message) => listeners.onMessage(message));
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError; // read, so the browser does not log it as unchecked
    listeners.onDisconnect();
  });
  return wrapPort(port);
}

/**
 * @param {chrome.runtime.Port} port
 * @returns {import("./page_channel.js").PagePort}
 */
function wrapPort(port) {
  return {
    post(message) {
      try {
        port.postMessage(message);
        return true;
      } catch {
        return false; // disconnected
      }
    },
    disconnect: () => port.disconnect(),
  };
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

/**
 * @param {ConnectionStatus} status
 * @returns {Promise<void>}
 */
export function writeStatus(status) {
  return chrome.storage.session.set({ status });
}

/**
 * @param {string} key
 * @returns {Promise<boolean>} whether `key` is set in chrome.storage.session (cleared when the
 *   extension is reloaded, updated, disabled or the browser restarts; kept across worker restarts)
 */
export async function readSessionFlag(key) {
  const stored = await chrome.storage.session.get(key);
  return stored[key] === true;
}

/** @param {string} key set `key` in chrome.storage.session @returns {Promise<void>} */
export function writeSessionFlag(key) {
  return chrome.storage.session.set({ [key]: true });
}

/** @returns {Promise<ConnectionStatus | undefined>} */
export async function readStatus() {
  const { status } = await chrome.storage.session.get("status");
  return /** @type {ConnectionStatus | undefined} */ (status);
}

/** @param {(status: ConnectionStatus | undefined) => void} listener */
export function onStatusChanged(listener) {
  chrome.storage.session.onChanged.addListener((changes) => {
    if ("status" in changes) listener(/** @type {ConnectionStatus | undefined} */ (changes.status.newValue));
  });
}

/**
 * A message from one of our content scripts or pages, with what the browser says about its sender.
 * @typedef {object} RuntimeMessageSender
 * @property {number} [tabId]
 * @property {number} [frameId]
 * @property {string} [documentId]
 * @property {string} [url]
 * @property {boolean} fromOwnPage   sent by one of this extension's own pages (popup)
 * @property {boolean} incognito
 */

/**
 * Listen to chrome.runtime.onMessage. `listener` answers synchronously (or not at all); the
 * worker needs no asynchronous replies on this channel yet.
 * @param {(message: unknown, sender: RuntimeMessageSender) => unknown} listener
 */
export function onRuntimeMessage(listener) {
  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id) return false;
    const reply = listener(message, {
      tabId: sender.tab?.id,
      frameId: sender.frameId,
      documentId: sender.documentId,
      url: sender.url,
      fromOwnPage: sender.tab === undefined && (sender.url ?? "").startsWith(chrome.runtime.getURL("")),
      incognito: sender.tab?.incognito ?? false,
    });
    if (reply !== undefined) sendResponse(reply);
    return false;
  });
}

/**
 * A long-lived port one of this extension's content scripts opened from a tab.
 * @typedef {object} ContentPort
 * @property {RuntimeMessageSender} sender
 * @property {(message: object) => boolean} post  false when the port is gone
 * @property {() => void} disconnect  close it (its onDisconnect listener does not run)
 * @property {(listener: (message: unknown) => void) => void} onMessage
 * @property {(listener: () => void) => void} onDisconnect  the document went away (closed,
 *   navigated, put in the back/forward cache) or the content script closed it
 */

/**
 * Listen to chrome.runtime.onConnect for ports named `name` from this extension's content scripts
 * in tabs (other ports are left alone).
 * @param {string} name
 * @param {(port: ContentPort) => void} listener
 */
export function onContentPort(name, listener) {
  chrome.runtime.onConnect.addListener((port) => {
    const sender = port.sender;
    if (port.name !== name || !sender || sender.id !== chrome.runtime.id || !sender.tab) return;
    listener({
      sender: {
        tabId: sender.tab.id,
        frameId: sender.frameId,
        documentId: sender.documentId,
        url: sender.url,
        fromOwnPage: false,
        incognito: sender.tab.incognito,
      },
      ...wrapPort(port),
      onMessage: (handler) => port.onMessage.addListener((message) => handler(message)),
      onDisconnect: (handler) =>
        port.onDisconnect.addListener(() => {
          void chrome.runtime.lastError;
          handler();
        }),
    });
  });
}

/** @param {() => void} listener called on install, update and browser start */
export function onInstalledOrStartup(listener) {
  chrome.runtime.onInstalled.addListener(() => listener());
  chrome.runtime.onStartup.addListener(() => listener());
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

/** @typedef {import("./settings.js").Settings} Settings */

/**
 * The user's settings as stored (normalize them with settings.js `normalizeSettings`).
 * @returns {Promise<unknown>}
 */
export async function readSettings() {
  const stored = await chrome.storage.local.get(SETTINGS_STORAGE_KEY);
  return stored[SETTINGS_STORAGE_KEY];
}

/**
 * Store `settings` (the popup and the options page write, main.js follows the change).
 * @param {Settings} settings
 * @returns {Promise<void>}
 */
export function writeSettings(settings) {
  return chrome.storage.local.set({ [SETTINGS_STORAGE_KEY]: settings });
}

/** @param {(raw: unknown) => void} listener called with the new stored settings */
export function onSettingsChanged(listener) {
  chrome.storage.local.onChanged.addListener((changes) => {
    if (SETTINGS_STORAGE_KEY in changes) listener(changes[SETTINGS_STORAGE_KEY].newValue);
  });
}

/** Same as settings.js SETTINGS_KEY (kept here so this module imports nothing). */
const SETTINGS_STORAGE_KEY = "settings";

/** @returns {Promise<boolean>} whether the user allowed this extension in incognito (chrome://extensions) */
export function allowedInIncognito() {
  return chrome.extension.isAllowedIncognitoAccess();
}

// ---- the confirmation prompt (confirm.js) -----------------------------------------------------

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
 * Ports opened by this extension's own page `path` (never by a content script: those carry the
 * web page's URL as `sender.url`), named `<prefix><rest>`; `listener` gets `rest` and the port.
 * @param {string} path  e.g. "confirm/confirm.html"
 * @param {string} prefix
 * @param {(rest: string, port: chrome.runtime.Port) => void} listener
 */
export function onOwnPagePort(path, prefix, listener) {
  const pageUrl = chrome.runtime.getURL(path);
  chrome.runtime.onConnect.addListener((port) => {
    const { id, url } = port.sender ?? {};
    const fromPage = id === chrome.runtime.id && (url === pageUrl || (url ?? "").startsWith(`${pageUrl}?`));
    if (!fromPage || !port.name.startsWith(prefix)) return;
    listener(port.name.slice(prefix.length), port);
  });
}
