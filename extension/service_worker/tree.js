// Builds the Application element that answers `current` (design.md §2, docs/internals/protocol.md "The tree").
//
// Pure: it takes a snapshot of windows, tabs and selections plus the id registry, and returns
// plain JSON. No chrome.* here, so node tests cover every rule: focus path, visible, budgets,
// caps, valid Unicode.
//
//   tree.js (windows, tabs, Pages) ──► pointing.js (what a Page points at: frames, text, hover)
//        └──────────────┬──────────────────┘
//                       ▼
//                text_limits.js (the caps and how text is cut; imports nothing)

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("./ids.js").IdRegistry} IdRegistry */

import { latestHover, pickPointing, pointingChildren, textElement } from "./pointing.js";
import { DEFAULT_MAX_SELECTION_BYTES, MAX_LANG_CHARS, MAX_TITLE_CHARS, MAX_URL_CHARS, firstChars, wellFormed } from "./text_limits.js";
import { PAGE_LINK_MIME_TYPES, RESOURCE_URI_PREFIX } from "../wire.js";
import { viewedPdf } from "./viewer_url.js";

/** Tabs listed per window before the rest are counted in `tabsOmitted` (design.md §2). */
export const DEFAULT_MAX_TABS_PER_WINDOW = 100;

/**
 * URL prefixes of browser-internal pages: their title and url are listed, their content never
 * (design.md §2 "Never reported"). `about:blank` is the exception: it is an ordinary empty document
 * (and the document of many script-built iframes).
 */
export const INTERNAL_URL_PREFIXES = [
  "chrome://",
  "chrome-extension://",
  "chrome-untrusted://",
  "chrome-search://",
  "devtools://",
  "edge://",
  "brave://",
  "vivaldi://",
  "opera://",
  "view-source:",
  "about:",
];

/**
 * The subset of chrome.tabs.Tab the tree reads.
 * @typedef {object} TabInfo
 * @property {number} [id]
 * @property {number} index      position in the tab strip
 * @property {boolean} active
 * @property {boolean} [incognito]
 * @property {string} [title]
 * @property {string} [url]
 * @property {string} [pendingUrl]
 */

/**
 * The subset of chrome.windows.Window the tree reads.
 * @typedef {object} WindowInfo
 * @property {number} [id]
 * @property {boolean} incognito
 * @property {string} [type]     "normal" | "popup" | …
 * @property {string} [state]    "normal" | "minimized" | "maximized" | "fullscreen" | …
 * @property {TabInfo[]} [tabs]
 */

/** @typedef {import("./pointing.js").TabSelection} TabSelection */
/** @typedef {import("./pointing.js").StoredFrame} StoredFrame */

/**
 * Everything `current` is built from.
 * @typedef {object} Snapshot
 * @property {{name: string, version: string}} browser
 * @property {WindowInfo[]} windows             in chrome.windows.getAll order
 * @property {number} [lastFocusedWindowId]     the browser's last-focused window
 * @property {Map<number, TabSelection>} selections  by browser tab id (top-document selections only)
 * @property {Map<number, StoredFrame[]>} [frames]  every frame's report, by browser tab id; where
 *                                                  a tab has these, `selections` is not read
 * @property {Map<number, {names: string[], omitted: number}>} [pageTools]  exposed page-tool names
 *   by browser tab id (design.md §2 `attributes.tools`, §5)
 */

/**
 * @typedef {object} TreeOptions
 * @property {number} [maxTabsPerWindow]
 * @property {number} [maxSelectionBytes]
 * @property {boolean} [includeIncognito]   the user opted in (design.md §2); off by default
 * @property {boolean} [pageText]      Pages link their readable text (settings.pageText)
 * @property {boolean} [screenshots]   active tabs link a screenshot (settings.screenshots)
 */

/**
 * Build the Application element.
 * @param {Snapshot} snapshot
 * @param {IdRegistry} ids mints `win-<n>`, `tab-<n>`, `sel-<n>` for this instance
 * @param {TreeOptions} [options]
 * @returns {Element}
 */
export function buildTree(snapshot, ids, options = {}) {
  const maxTabs = Math.max(1, options.maxTabsPerWindow ?? DEFAULT_MAX_TABS_PER_WINDOW);
  const maxBytes = options.maxSelectionBytes ?? DEFAULT_MAX_SELECTION_BYTES;
  // At most one hovered element in the whole tree (design.md §2): the newest hover among the tabs on
  // screen (a hidden tab never hears the pointer leave, so its hover is stale).
  const shownTabs = new Set(
    snapshot.windows
      .filter((win) => win.state !== "minimized")
      .flatMap((win) => (win.tabs ?? []).filter((tab) => tab.active).map((tab) => tab.id)),
  );
  let hoverTabId = -1;
  let hoverAt = 0;
  for (const [tabId, frames] of snapshot.frames ?? []) {
    const at = shownTabs.has(tabId) ? latestHover(frames) : 0;
    if (at > hoverAt) [hoverTabId, hoverAt] = [tabId, at];
  }
  /** @type {Element[]} */
  const windows = [];
  for (const win of snapshot.windows) {
    if (win.id === undefined || (win.type !== undefined && win.type !== "normal")) continue;
    if (win.incognito && !options.includeIncognito) continue;
    const focused = win.id === snapshot.lastFocusedWindowId;
    const visible = win.state !== "minimized";
    /** @type {Element} */
    const element = { id: ids.windowId(win.id), role: "Window" };
    if (focused) element.focused = true;
    if (!visible) element.visible = false;

    const tabs = [...(win.tabs ?? [])]
      .filter((tab) => tab.id !== undefined && (!tab.incognito || options.includeIncognito))
      .sort((a, b) => a.index - b.index);
    const { kept, omitted } = keepTabs(tabs, maxTabs);
    const pages = kept.map((tab) => {
      const page = pageElement(tab, { focused, visible }, snapshot, ids, maxBytes, tab.id === hoverTabId);
      const links = ids.instance ? pageLinks(tab, page, ids.instance, options) : [];
      if (links.length > 0) page.content = links;
      const tools = tab.id === undefined ? undefined : snapshot.pageTools?.get(tab.id);
      if (tools && (tools.names.length > 0 || tools.omitted > 0)) {
        page.attributes = { ...page.attributes, tools: tools.names };
        // More tools than the per-page cap (page_tools.js MAX_TOOLS_PER_PAGE): say how many were left out.
        if (tools.omitted > 0) page.attributes.toolsOmitted = tools.omitted;
      }
      return page;
    });
    if (pages.length > 0) element.children = pages;
    if (omitted > 0) element.attributes = { tabsOmitted: omitted };
    windows.push(element);
  }
  /** @type {Element} */
  const root = {
    id: "app",
    role: "Application",
    title: wellFormed(snapshot.browser.name),
    attributes: { version: wellFormed(snapshot.browser.version) },
  };
  if (windows.length > 0) root.children = windows;
  return root;
}

/**
 * Keep at most `max` tabs: the active tab and its nearest neighbours, in tab-strip order.
 * @template {{active: boolean}} T
 * @param {T[]} tabs in tab-strip order
 * @param {number} max at least 1
 * @returns {{kept: T[], omitted: number}}
 */
export function keepTabs(tabs, max) {
  if (tabs.length <= max) return { kept: tabs, omitted: 0 };
  const active = Math.max(0, tabs.findIndex((tab) => tab.active));
  // Centre the window of `max` tabs on the active one, then slide it back inside the strip.
  const start = Math.min(Math.max(0, active - Math.floor((max - 1) / 2)), tabs.length - max);
  return { kept: tabs.slice(start, start + max), omitted: tabs.length - max };
}

/**
 * @param {TabInfo} tab
 * @param {{focused: boolean, visible: boolean}} win the window's states
 * @param {Snapshot} snapshot
 * @param {IdRegistry} ids
 * @param {number} maxBytes
 * @param {boolean} showHover  this tab holds the tree's one hovered element
 * @returns {Element}
 */
function pageElement(tab, win, snapshot, ids, maxBytes, showHover) {
  const tabId = /** @type {number} */ (tab.id);
  /** @type {Element} */
  const page = { id: ids.tabId(tabId), role: "Page", subrole: "tab" };
  const title = tab.title ? firstChars(wellFormed(tab.title), MAX_TITLE_CHARS) : "";
  if (title) page.title = title;
  const rawUrl = tabUrl(tab);
  const url = rawUrl ? firstChars(wellFormed(rawUrl), MAX_URL_CHARS) : "";
  if (url) page.url = url;
  if (win.focused && tab.active) page.focused = true;
  // A minimized window's tabs inherit its visible:false; only a shown window's tabs differ.
  if (win.visible && !tab.active) page.visible = false;

  const frames = snapshot.frames?.get(tabId);
  if (frames && !isInternalUrl(rawUrl)) {
    const lang = pickPointing(frames).lang;
    if (lang) page.attributes = { ...page.attributes, lang: firstChars(wellFormed(lang), MAX_LANG_CHARS) };
    const options = { pageFocused: Boolean(page.focused), showHover, maxBytes, title: page.title };
    const children = pointingChildren(tabId, frames, options, ids);
    if (children.length > 0) page.children = children;
    return page;
  }
  const reported = snapshot.selections.get(tabId);
  if (reported && !isInternalUrl(rawUrl)) {
    const text = textElement(tabId, reported, ids, maxBytes);
    if (text) page.children = [text];
  }
  return page;
}

/** The schemes of pages whose text and screenshot can be read: the web, and local files. */
const LINKABLE_URL = /^(https?|file):/i;

/**
 * The resource_links of a Page (design.md §2 "The page on demand"; docs/internals/protocol.md "Page
 * resources (worker side)"): its readable text when `pageText` is on, a screenshot of its visible
 * part when `screenshots` is on and it is its window's active tab; none for a browser-internal
 * page. Nothing is read here: a desktop host reads a link with `resources/read`, which the native
 * host turns into `page.read` (page_read.js).
 * @param {TabInfo} tab
 * @param {Element} page  the Page element (its id, title and url are set)
 * @param {string} instance  the native host's instance (ids.instance)
 * @param {{pageText?: boolean, screenshots?: boolean}} options
 * @returns {import("../protocol.js").ResourceLink[]}
 */
export function pageLinks(tab, page, instance, options) {
  // Only pages an extension may script and capture: about:blank, data: and the like always refuse a
  // read (the browser does not let extensions in), so a link to them would be a dead one.
  if (!LINKABLE_URL.test(tabUrl(tab)) || isInternalUrl(tabUrl(tab))) return [];
  const name = page.title || page.url || page.id;
  /** @type {import("../protocol.js").ResourceLink[]} */
  const links = [];
  if (options.pageText) links.push({ type: "resource_link", uri: pageUri(instance, page.id, "text"), name, mimeType: PAGE_LINK_MIME_TYPES.text });
  if (options.screenshots && tab.active) {
    links.push({ type: "resource_link", uri: pageUri(instance, page.id, "screenshot"), name, mimeType: PAGE_LINK_MIME_TYPES.screenshot });
  }
  return links;
}

/**
 * A page resource's URI, `webctx://<instance>/<pageId>/<kind>` (native_host/protocol/resources.py
 * `format_page_uri`; both are checked against extension/test/wire_cases.json).
 * @param {string} instance
 * @param {string} pageId
 * @param {"text" | "screenshot"} kind
 * @returns {string}
 */
export function pageUri(instance, pageId, kind) {
  return `${RESOURCE_URI_PREFIX}${instance}/${pageId}/${kind}`;
}

/**
 * A tab's address: its url, or while it has none yet, the one it is loading (`pendingUrl`); for a
 * tab in webctx's PDF viewer, the PDF's address (viewer_url.js): the Page is the PDF's.
 * @param {{url?: string, pendingUrl?: string}} tab
 * @returns {string} "" when it has neither
 */
export function tabUrl(tab) {
  const url = tab.url || tab.pendingUrl || "";
  return viewedPdf(url) ?? url;
}

/**
 * Is `url` a browser-internal page whose content is never reported?
 * @param {string} url
 * @returns {boolean}
 */
export function isInternalUrl(url) {
  if (url === "about:blank" || url.startsWith("about:blank#") || url.startsWith("about:blank?")) return false;
  return INTERNAL_URL_PREFIXES.some((prefix) => url.startsWith(prefix));
}
