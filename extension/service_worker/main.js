// webctx service worker: the entry module (STYLE "Service worker").
//
//   chrome.runtime.connectNative ⇄ native_port.js ── hello, chunk reassembly, reconnect, status
//                                      │ host requests (`current`)
//                                      ▼
//   main.js: routers ───────────► tree.js (pure) ◄── ids.js (pure, per-instance id registry)
//     ▲ runtime.onMessage              ▲
//     │ (selection.changed)            │ windows, tabs, selections
//   content scripts ──────────► selections.js (pushed + pulled selections)
//     │ tools.report / tools.run ─► page_tools.js (pure: checks, visible pages, tool_names.js)
//     │                                 └─► tools.changed to the host; tools.call/cancel from it
//                                      │
//   browser_api.js: the only module that calls chrome.*
//
// Every listener is registered synchronously at the top level, so an event that starts the
// worker is never missed; handlers await the one `ready` promise. The id registry lives in
// memory: the worker stays alive while the native port is connected, and a new port is a new
// native host process and instance, whose ids start over anyway (docs/extension.md).

import * as api from "./browser_api.js";
import { IdRegistry } from "./ids.js";
import { NativePort, RequestError, pickBrowser } from "./native_port.js";
import { SelectionStore } from "./selections.js";
import { buildTree, isInternalUrl } from "./tree.js";
import { PageToolStore, WINDOW_STATE_POLL_MS, parseRunReply } from "./page_tools.js";
import {
  CURRENT,
  ERROR_CODES,
  SELECTION_CHANGED,
  TOOLS_ABORT,
  TOOLS_CALL,
  TOOLS_CANCEL,
  TOOLS_CHANGED,
  TOOLS_REPORT,
  TOOLS_RUN,
} from "../protocol.js";

/** @typedef {import("../protocol.js").NativeMessage} NativeMessage */
/** @typedef {import("../protocol.js").Element} Element */

const ids = new IdRegistry();
const selections = new SelectionStore();
const pageTools = new PageToolStore();
const port = new NativePort({
  onRequest: routeNativeRequest,
  onConnect: () => {
    ids.reset();
    pageTools.resetNames();
    lastToolsChanged = "";
  },
  onInstance: (instance) => {
    if (ids.useInstance(instance)) pageTools.resetNames();
    scheduleToolsChanged();
  },
});

/** Resolves once the browser's identity is known and the native port has been opened. */
const ready = (async () => {
  const { brands, userAgent } = await api.browserBrands();
  const browser = pickBrowser(brands, userAgent);
  port.start(browser);
  return { browser };
})();

// ---- listeners (top level, synchronous) -------------------------------------------------------

api.onRuntimeMessage(routeRuntimeMessage);
api.onInstalledOrStartup(() => {
  // Tabs open before install/update/start have no (or orphaned) content scripts (SPEC §2).
  void ready.then(() => api.injectContentScriptsIntoOpenTabs());
});
api.onTabRemoved((tabId) => {
  selections.forget(tabId);
  if (pageTools.forget(tabId)) scheduleToolsChanged();
});
api.onTabLoading((tabId) => {
  selections.forget(tabId);
  if (pageTools.forget(tabId)) scheduleToolsChanged();
  abortCallsIn(tabId);
});
api.onVisiblePagesMayChange(scheduleToolsChanged);
// Minimize and restore fire no event in headless Chromium (and not on every window manager):
// while some page has tools, compare window states every WINDOW_STATE_POLL_MS.
setInterval(() => void pollWindowStates(), WINDOW_STATE_POLL_MS);

// ---- routers, by trust: the native port, then our own pages, then content scripts -------------

/**
 * @param {NativeMessage} message a request from the native host
 * @returns {Promise<unknown>} the `result`
 */
async function routeNativeRequest(message) {
  switch (message.type) {
    case CURRENT:
      return { root: await answerCurrent() };
    case TOOLS_CALL:
      return runPageTool(message);
    case TOOLS_CANCEL:
      return cancelPageTool(message);
    default:
      throw new RequestError(ERROR_CODES.unknownType, `unknown message type ${JSON.stringify(message.type)}`);
  }
}

/**
 * @param {unknown} message
 * @param {import("./browser_api.js").RuntimeMessageSender} sender
 * @returns {unknown} a synchronous reply, or undefined for none
 */
function routeRuntimeMessage(message, sender) {
  if (typeof message !== "object" || message === null) return undefined;
  const { type } = /** @type {{type?: unknown}} */ (message);
  if (sender.fromOwnPage) return undefined; // the popup reads chrome.storage.session directly
  if (sender.tabId === undefined || sender.incognito) return undefined; // incognito: never reported
  // Content scripts relay the page: parseSelection checks shape and size.
  switch (type) {
    case SELECTION_CHANGED:
      selections.push(sender, /** @type {{selection?: unknown}} */ (message).selection);
      return undefined;
    case TOOLS_REPORT:
      // page_tools.js checks shape and size; only a tab's top frame speaks for its page.
      if (pageTools.report(sender, message)) scheduleToolsChanged();
      return undefined;
    default:
      return undefined;
  }
}

// ---- current ----------------------------------------------------------------------------------

/** @returns {Promise<Element>} the Application element (docs/protocol.md "The tree") */
async function answerCurrent() {
  const { browser } = await ready;
  const [windows, lastFocusedWindowId] = await Promise.all([api.normalWindows(), api.lastFocusedWindowId()]);
  const shown = windows.filter((win) => !win.incognito);
  const activeTabIds = shown.flatMap((win) =>
    (win.tabs ?? [])
      .filter((tab) => tab.active && tab.id !== undefined && !isInternalUrl(tab.url || tab.pendingUrl || ""))
      .map((tab) => /** @type {number} */ (tab.id)),
  );
  const reported = await selections.collect(activeTabIds);
  const { pages } = pageTools.exposed(shown, ids);
  return buildTree({ browser, windows: shown, lastFocusedWindowId, selections: reported, pageTools: pages }, ids);
}

// ---- page tools (SPEC §5) ---------------------------------------------------------------------

let lastWindowStates = "";

async function pollWindowStates() {
  if (!pageTools.hasAny() || !port.connected) return;
  const states = await api.windowStates();
  if (states === lastWindowStates) return;
  lastWindowStates = states;
  scheduleToolsChanged();
}

/** At most one `tools.changed` per this many ms, so a burst of changes becomes few messages. */
const TOOLS_CHANGED_DELAY_MS = 10;
/** @type {ReturnType<typeof setTimeout> | 0} */
let toolsChangedTimer = 0;
let lastToolsChanged = "";
/** In-flight `tools.call`s by request id. @type {Map<string, {tabId: number, documentId: string}>} */
const calls = new Map();

let lastToolsChangedAt = 0;

/** Send `tools.changed` soon: in the next task after a quiet period, else TOOLS_CHANGED_DELAY_MS after the last one. */
function scheduleToolsChanged() {
  if (toolsChangedTimer) return;
  const waitMs = Math.max(0, lastToolsChangedAt + TOOLS_CHANGED_DELAY_MS - Date.now());
  toolsChangedTimer = setTimeout(() => {
    toolsChangedTimer = 0;
    lastToolsChangedAt = Date.now();
    void sendToolsChanged();
  }, waitMs);
}

/** Send the exposed tools to the host when they differ from what it has. */
async function sendToolsChanged() {
  await ready;
  if (!port.connected) return; // hello's reply schedules another one
  const windows = (await api.normalWindows()).filter((win) => !win.incognito);
  const { tools } = pageTools.exposed(windows, ids);
  const text = JSON.stringify(tools);
  if (text === lastToolsChanged) return;
  if (port.notify(TOOLS_CHANGED, { tools })) lastToolsChanged = text;
}

/**
 * `tools.call {id, pageId, name, input}`: run the page's tool in that tab's top document.
 * @param {NativeMessage} message
 * @returns {Promise<unknown>} `{ok, text}` or `{ok: false, error}` (native_host/wire.py ToolCallReply)
 */
async function runPageTool(message) {
  const { id, pageId, name, input } = /** @type {Record<string, unknown>} */ (message);
  if (typeof id !== "string" || typeof pageId !== "string" || typeof name !== "string") {
    throw new RequestError(ERROR_CODES.internal, "tools.call needs a string pageId and name");
  }
  const target = ids.resolve(pageId);
  if (!target || target.kind !== "tab") throw new RequestError(ERROR_CODES.unknownPage, `no page ${pageId}`);
  const tab = pageTools.get(target.tabId);
  if (!tab || !tab.tools.some((tool) => tool.name === name)) {
    throw new RequestError(ERROR_CODES.pageGone, `page ${pageId} no longer offers that tool`);
  }
  calls.set(id, { tabId: target.tabId, documentId: tab.documentId });
  let reply;
  try {
    reply = await api.sendToDocument(target.tabId, tab.documentId, {
      type: TOOLS_RUN,
      callId: id,
      name,
      input: typeof input === "object" && input !== null ? input : {},
    });
  } catch {
    throw new RequestError(ERROR_CODES.pageGone, `page ${pageId} closed or navigated during the call`);
  } finally {
    calls.delete(id);
  }
  const parsed = parseRunReply(reply);
  if (!parsed) throw new RequestError(ERROR_CODES.pageGone, `page ${pageId} gave no answer`);
  return parsed;
}

/**
 * `tools.cancel {id, callId}`: abort the page's signal of a running call.
 * @param {NativeMessage} message
 * @returns {Promise<{cancelled: boolean}>}
 */
async function cancelPageTool(message) {
  const { callId } = /** @type {Record<string, unknown>} */ (message);
  const call = typeof callId === "string" ? calls.get(callId) : undefined;
  if (!call) return { cancelled: false };
  try {
    await api.sendToDocument(call.tabId, call.documentId, { type: TOOLS_ABORT, callId });
  } catch {
    return { cancelled: false };
  }
  return { cancelled: true };
}

/**
 * A tab started loading another document: its calls' content script is gone with it.
 * (sendToDocument rejects for them by itself; nothing to abort here but the bookkeeping.)
 * @param {number} tabId
 */
function abortCallsIn(tabId) {
  for (const [id, call] of calls) if (call.tabId === tabId) calls.delete(id);
}
