// webctx service worker: the entry module (STYLE "Service worker"): listeners and routers only.
//
//   chrome.runtime.connectNative ⇄ native_port.js ── hello, chunk reassembly, reconnect, status
//                                      │ host requests (`current` when the host's pushed tree is
//                                      │ incomplete, `location`); `tree` pushed by tree_push.js on
//                                      │ every change (TabModel.onChange, frame.changed, page tools,
//                                      │ settings, the window-state poll)
//                                      ▼
//   main.js: routers ───────────► current.js ──► tree.js (pure) ◄── ids.js (pure, per-instance ids)
//     ▲ runtime.onMessage              ▲            └─ pointing.js (pure: frame Groups, textbox, hover)
//     │ (frame.changed)                │ windows, tabs      └─ text_limits.js (pure: caps, cutting)
//     │                                │ (tab_model.js), frame reports
//   content scripts ──────────► selections.js (pushed + pulled frame reports)
//     │ (location.offset)
//     └──────────────────────────► locator.js ── location.js (pure: CSS px → points, lines)
//     │ location.get / tools.run / tools.abort, tools.visibility: page_channel.js (a port per document)
//     │ tools.report ─► page_tool_router.js ─► page_tools.js (pure), tool_names.js
//     │                                 └─► tools.changed to the host; tools.call/cancel from it
//   host page.read ──► page_read.js: a Page's text (content/page_text.js injected on demand) or a
//                      screenshot of the active tab (captureVisibleTab, scaled in the worker)
//                                      │
//   browser_api.js (its parts in browser_api/): the only code that calls chrome.*
//
// Every listener is registered synchronously at the top level, so an event that starts the
// worker is never missed; handlers await the one `ready` promise. The id registry lives in
// memory: the worker stays alive while the native port is connected, and a new port is a new
// native host process and instance, whose ids start over anyway (docs/internals/extension.md).

import * as api from "./browser_api.js";
import { IdRegistry } from "./ids.js";
import { NativePort, RequestError } from "./native_port.js";
import { pickBrowser } from "./browser_identity.js";
import { Locator } from "./locator.js";
import { PAGE_CHANNEL_NAME, PageChannels } from "./page_channel.js";
import { SelectionStore } from "./selections.js";
import { TabModel } from "./tab_model.js";
import { installDebugHooks } from "./debug_hooks.js";
import { describeStatus, isExcluded, normalizeSettings } from "./settings.js";
import { actionLook } from "./action_icon.js";
import { isInternalUrl, tabUrl } from "./tree.js";
import { Current } from "./current.js";
import { WINDOW_STATE_POLL_MS, windowStatePollMs } from "./page_tools.js";
import { PageToolRouter } from "./page_tool_router.js";
import { TreePusher } from "./tree_push.js";
import { cancelConfirmation } from "./confirm.js";
import { servePopupStatus } from "./popup_status.js";
import { ActivityFeed, READ_BADGE_TEXT, readBadgeFlasher } from "./activity.js";
import { serveTransparency } from "./popup_transparency.js";
import { PageReader } from "./page_read.js";
import { VIEWER_PATH, ViewerRedirects, builtinViewerPdf, setViewerPage, viewerUrlFor } from "./viewer_url.js";
import {
  CURRENT,
  ERROR_CODES,
  FRAME_CHANGED,
  LOCATION,
  LOCATION_OFFSET,
  PAGE_READ,
  PING,
  TOOLS_CALL,
  TOOLS_CANCEL,
  TOOLS_FRAME,
  TOOLS_REPORT,
  TREE,
} from "../protocol.js";

/** @typedef {import("../protocol.js").NativeMessage} NativeMessage */

// A tab in webctx's PDF viewer is the PDF's Page (viewer_url.js): learn the viewer's address first.
setViewerPage(api.ownPageUrl(VIEWER_PATH));
const viewerRedirects = new ViewerRedirects();
const ids = new IdRegistry();
const selections = new SelectionStore();
// Windows and tabs in memory, kept by events (tab_model.js); seeded now and after a worker restart.
const tabModel = new TabModel();
api.followTabModel(tabModel);
const seedTabModel = () => tabModel.ensureSeeded(api.allWindowsWithTabs);
void seedTabModel();
// One port per document for everything the worker asks a page (page_channel.js).
const channels = new PageChannels();
// The window-state poll's period (page_tools.js): 25 ms in headless Chromium, 1 s otherwise.
const POLL_MS = windowStatePollMs(navigator.userAgent);
/** Each normal window's state ("minimized", …) as the window-state poll last read it. @type {Map<number, string>} */
const polledWindowStates = new Map();
// Where minimizing fires nothing (headless), `location` takes the window's state from the fast
// poll (at most one period old) instead of reading it per call; in a headed browser the poll is a
// 1 s safety net only, so `location` reads the window as the page is measured (locator.js).
const polledWindowState =
  POLL_MS === WINDOW_STATE_POLL_MS ? (/** @type {number} */ windowId) => polledWindowStates.get(windowId) : undefined;
const locator = new Locator(ids, tabModel, seedTabModel, channels, (tabId, key) => selections.lineage(tabId, key), polledWindowState);
// The last reads of desktop hosts (the host's `activity` events) and the badge's read flash.
const activity = new ActivityFeed();
// The flash ends by putting the state's look back (its "!" badge when broken).
// While it flashes, showActionLook keeps "read" on the badge (a status change must not wipe it).
let readFlashing = false;
const flashReadBadge = readBadgeFlasher(
  (text) => {
    readFlashing = text !== "";
    return api.setActionBadgeText(text);
  },
  () => {
    readFlashing = false;
    showActionLook();
  },
);
const port = new NativePort({
  onRequest: routeNativeRequest,
  onConnect: () => {
    ids.reset();
    pageTools.onConnect();
    treePusher.reset();
    activity.clear(); // a new native host: its record of reads starts empty too
  },
  onInstance: (instance) => {
    pageTools.onInstance(ids.useInstance(instance));
    treePusher.schedule();
  },
  // Who read it (activity.js): kept for the popup; the toolbar badge flashes.
  onActivity: (entry) => {
    if (activity.add(entry)) flashReadBadge();
  },
});
// The pushed tree (tree_push.js): whatever the tree shows may have changed → one build, and a
// `tree` message to the host when it differs from the last, so `current` needs no round trip.
const treePusher = new TreePusher({
  build: () => current.pushedTree(),
  send: (body) => port.notify(TREE, body),
});
tabModel.onChange = () => treePusher.schedule();
// Debug checks and counters for tests and benches, reached over the DevTools protocol (debug_hooks.js).
installDebugHooks(tabModel, treePusher, () => shownLook, (tabId, message) => pageReader.read({ ...message, pageId: ids.tabId(tabId) }));

/** The user's settings (settings.js), followed live through storage.onChanged. */
let settings = normalizeSettings(undefined);

/** Resolves once the browser's identity and the settings are known and the port is opened (if on). */
const ready = (async () => {
  const [{ brands, userAgent }, stored] = await Promise.all([api.browserBrands(), api.readSettings()]);
  const browser = pickBrowser(brands, userAgent);
  settings = normalizeSettings(stored);
  applyProviderSwitch(browser);
  void api.readStatus().then((status) => {
    shownStatus ??= status;
    showActionLook();
  });
  return { browser };
})();

/** The status the toolbar icon shows (chrome.storage.session, written by native_port.js). @type {import("../protocol.js").ConnectionStatus | undefined} */
let shownStatus;
/** The look last applied and the browser's error ("" when shown), for the debug hook. @type {import("./debug_hooks.js").ShownLook | undefined} */
let shownLook;
/** The toolbar icon, badge and tooltip follow the status and the switch (action_icon.js). */
function showActionLook() {
  const state = actionLook(describeStatus(shownStatus, settings.enabled));
  const look = readFlashing ? { ...state, badge: READ_BADGE_TEXT } : state;
  void api.setActionLook(look).then((error) => {
    shownLook = { ...look, error };
  });
}
const pageTools = new PageToolRouter({
  port: () => port,
  ids,
  ready,
  channels,
  // The options page's choices apply live: read at every exposure (design.md §5 "User control").
  policy: () => ({
    exposePageTools: settings.exposePageTools,
    isExcluded: (doc) => isExcluded(doc, settings),
  }),
  onMayChange: () => treePusher.schedule(), // Pages list their tools in the tree
});
// `current` (current.js): built from the tab model, the frame reports and the exposed page tools,
// for the host's pull and for every pushed tree.
const current = new Current({
  ids,
  tabModel,
  seed: seedTabModel,
  selections,
  pageTools,
  ready,
  settings: () => settings,
  connected: () => port.connected,
  noteStatus: (fields) => port.noteStatus(fields),
  schedulePush: () => treePusher.schedule(),
});

/**
 * The provider switch (design.md §3): on → connect the native port (hello, descriptor, MCP port);
 * off → close it, and the native host removes its descriptor and closes its port as it exits.
 * @param {import("./browser_identity.js").BrowserIdentity} browser
 */
function applyProviderSwitch(browser) {
  if (settings.enabled) port.start(browser);
  else port.stop();
}

// `page.read` (page_read.js): a Page's readable text or a screenshot, when a desktop host reads
// the Page's resource_link; the switches and exclusions are read at each request.
const pageReader = new PageReader({ ids, settings: () => settings });

// ---- listeners (top level, synchronous) -------------------------------------------------------

api.onRuntimeMessage(routeRuntimeMessage);
api.onContentPort(PAGE_CHANNEL_NAME, (pagePort) => {
  if (pagePort.sender.incognito && !settings.incognito) {
    pagePort.disconnect(); // design.md §2
    return;
  }
  channels.adopt(pagePort);
});
api.onStatusChanged((status) => {
  shownStatus = status;
  showActionLook();
});
api.onSettingsChanged((stored) => {
  void ready.then(({ browser }) => {
    settings = normalizeSettings(stored);
    applyProviderSwitch(browser);
    showActionLook();
    pageTools.scheduleChanged(); // exposure may differ now (page tools on/off, excluded sites)
    treePusher.schedule(); // incognito, excluded sites
  });
});
// Tabs open before this extension was installed, updated, reloaded, enabled or the browser started
// have no content scripts, or orphaned ones (design.md §2). onInstalled/onStartup miss "enabled", so
// decide by chrome.storage.session instead: the browser clears it in exactly those cases, and keeps
// it across a mere worker restart, when the content scripts are still alive.
void ready.then(() => injectOncePerExtensionRun());
api.onTabRemoved((tabId) => {
  selections.forget(tabId);
  viewerRedirects.forget(tabId);
  pageTools.tabGone(tabId);
  treePusher.schedule();
});
api.onTabLoading((tabId) => {
  selections.forget(tabId);
  pageTools.tabGone(tabId);
  treePusher.schedule();
});
api.onVisiblePagesMayChange(() => pageTools.scheduleChanged());
// While the popup is open, its "N pages with tools" follows the exposed page tools (popup_status.js).
servePopupStatus(
  async () => {
    if (!port.connected) return undefined; // nothing to show, and ids wait for the instance
    const pages = pageTools.exposedPages(await api.normalWindows()); // skips incognito and excluded pages
    return [...pages.values()].filter((page) => page.names.length > 0 || page.omitted > 0).length;
  },
  (pagesWithTools) => void port.noteStatus({ pagesWithTools }),
);
// The popup's "Shared now" and "Who read it" (popup_transparency.js): the tree `current` would
// answer now, by the same builds (the pushed one when complete, else the pulled one), and the reads.
serveTransparency({
  tree: async () => {
    if (!port.connected) return null; // nothing is shared while the provider is off or down
    const pushed = await current.pushedTree();
    if (pushed?.complete && pushed.root) return pushed.root;
    return (await current.answer()).root;
  },
  windowElementId: (windowId) => (port.connected ? ids.windowId(windowId) : null),
  never: () => ({ excludedSites: settings.excludedSites.length, incognito: settings.incognito }),
  feed: activity,
});
// Minimize, restore and focus: window events and the page's visibilitychange (on its page channel)
// where the browser has them; while the port is connected, a window-state poll too, every 25 ms in
// headless Chromium (minimizing fires nothing there) and every 1 s as a safety net otherwise. A
// change it sees rebuilds the pushed tree and compares the exposed page tools.
let lastWindowStates = "";
setInterval(() => void pollWindowStates(), POLL_MS);

async function pollWindowStates() {
  if (!port.connected) {
    polledWindowStates.clear(); // not kept while nothing polls: location reads the window instead
    return;
  }
  const windows = await api.windowStates();
  polledWindowStates.clear();
  for (const win of windows) if (win.id !== undefined && win.state) polledWindowStates.set(win.id, win.state);
  const states = windows.map((win) => `${win.id}:${win.state}:${win.focused}`).join(",");
  if (states === lastWindowStates) return;
  lastWindowStates = states;
  treePusher.schedule();
  pageTools.noteWindowStates(states);
}

// ---- routers, by trust: the native port, then our own pages, then content scripts -------------

/**
 * @param {NativeMessage} message a request from the native host
 * @returns {Promise<unknown>} the `result`
 */
async function routeNativeRequest(message) {
  switch (message.type) {
    case CURRENT:
      return current.answer();
    case LOCATION:
      await ready;
      return locator.locate(message.elementId);
    case PING: // bench only (docs/internals/protocol.md): no work, or one page-channel round trip
      return message.page === true ? pingPage() : {};
    case TOOLS_CALL:
      return pageTools.call(message);
    case TOOLS_CANCEL:
      return cancelConfirmation(message) ?? pageTools.cancel(message); // a call may still wait for the user
    case PAGE_READ:
      await ready;
      return pageReader.read(message);
    default:
      throw new RequestError(ERROR_CODES.unknownType, `unknown message type ${JSON.stringify(message.type)}`);
  }
}

/**
 * `ping {page: true}` (bench only): one page-channel round trip to the active tab's top document,
 * timed here. `ping` is no type the content script answers, so it replies null at once.
 * @returns {Promise<{pageMs: number | null}>} ms; null when no active tab shows a web page
 */
async function pingPage() {
  await ready;
  const tab = tabModel
    .windows()
    .flatMap((win) => win.tabs)
    .find((t) => t.active && !isInternalUrl(tabUrl(t)));
  if (!tab) return { pageMs: null };
  const start = performance.now();
  await channels.request(tab.id, null, { type: PING }, { timeoutMs: 1000 });
  return { pageMs: performance.now() - start };
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
  if (sender.tabId === undefined) return undefined;
  const hiddenIncognito = sender.incognito === true && !settings.incognito;
  // By the document's origin too: an about:blank or srcdoc frame is its creator's (settings.js).
  const excluded = isExcluded({ url: sender.url, origin: sender.origin }, settings);
  // An excluded document's frame report and page-tool report are kept in memory and never shown:
  // every build and every exposure applies the same rule (exclusion.js sharedFrames for pushed
  // and pulled reports alike; page_tools.js `exposed`, the policy above), and a page reports only
  // when something changes, so dropping it here would leave "Share this site again" (the popup)
  // without what the page did while it was excluded.
  const keptHidden = excluded && !hiddenIncognito && (type === FRAME_CHANGED || type === TOOLS_REPORT || type === TOOLS_FRAME);
  if ((hiddenIncognito || excluded) && !keptHidden) {
    // Incognito (unless opted in) is never reported (docs/internals/protocol.md). What such a frame reported before
    // is stale from now on: the tab is pulled if it may be shown again.
    if (type === FRAME_CHANGED) selections.dropped(sender);
    return undefined;
  }
  // Content scripts relay the page: parseReport and the locator check shape and size.
  switch (type) {
    case FRAME_CHANGED: {
      const report = /** @type {{report?: unknown}} */ (message).report;
      if (openInViewer(sender, report)) return undefined;
      // The viewer's own address is no page's: its report speaks of the PDF (pages.js senderSite).
      if (sender.viewer && typeof report === "object" && report !== null) /** @type {{url?: unknown}} */ (report).url = sender.url;
      selections.push(sender, report);
      treePusher.schedule();
      return undefined;
    }
    case LOCATION_OFFSET:
      locator.onOffset(sender, message);
      return undefined;
    case TOOLS_REPORT:
      // page_tools.js checks shape and size; only a tab's top frame speaks for its page.
      pageTools.report(sender, message);
      return undefined;
    case TOOLS_FRAME:
      // A cross-origin frame's origin and url, from the browser (sender): what a top document's
      // claim that a tool is that frame's is checked against (page_tools.js).
      if (pageTools.store.noteFrame(sender)) pageTools.scheduleChanged();
      return undefined;
    default:
      return undefined;
  }
}

/**
 * "Open PDFs in webctx's viewer" (settings.pdfViewer): a tab's top document that Chromium's own
 * viewer shows (its report says `pdf`) is replaced by webctx's viewer of the same PDF, where the
 * user's selection can be read. A file: PDF reports only where local files are allowed (the
 * browser runs no content script there otherwise) and shared (settings.localFiles).
 * @param {import("./browser_api.js").RuntimeMessageSender} sender
 * @param {unknown} report
 * Back from the viewer shows the browser's viewer again (ViewerRedirects).
 * @returns {boolean} whether the tab is being sent to the viewer (the report is not kept)
 */
function openInViewer(sender, report) {
  if (!settings.pdfViewer || sender.tabId === undefined || sender.viewer) return false;
  const pdf = builtinViewerPdf(sender.frameId, report);
  if (!pdf || (pdf.startsWith("file:") && !settings.localFiles)) return false;
  if (!viewerRedirects.shouldOpen(sender.tabId, sender.documentId, pdf)) return false;
  void api.showInTab(sender.tabId, viewerUrlFor(pdf));
  return true;
}

// ---- content scripts in tabs that were open before -------------------------------------------

/** The chrome.storage.session key set once this extension run has injected its content scripts. */
const INJECTED_KEY = "contentScriptsInjected";

/** Inject the content scripts into every open tab, once per extension run (see the listeners). */
async function injectOncePerExtensionRun() {
  if (await api.readSessionFlag(INJECTED_KEY)) return;
  await api.writeSessionFlag(INJECTED_KEY);
  await api.injectContentScriptsIntoOpenTabs();
}
