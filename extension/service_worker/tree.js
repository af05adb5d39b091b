// Builds the Application element that answers `current` (SPEC §2, docs/protocol.md "The tree").
//
// Pure: it takes a snapshot of windows, tabs and selections plus the id registry, and returns
// plain JSON. No chrome.* here, so node tests cover every rule: focus path, visible, budgets,
// caps, valid Unicode.

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("../protocol.js").Selection} Selection */
/** @typedef {import("./ids.js").IdRegistry} IdRegistry */

/** Tabs listed per window before the rest are counted in `tabsOmitted` (SPEC §2). */
export const DEFAULT_MAX_TABS_PER_WINDOW = 100;
/** Cap on a selection's text, in bytes of UTF-8 (SPEC §2 "Small content"). */
export const DEFAULT_MAX_SELECTION_BYTES = 16 * 1024;
/** Cap on `before` / `after`, in UTF-16 code units (SPEC §2: "up to ~200 characters"). */
export const MAX_CONTEXT_CHARS = 200;
/** Caps on a tab's title and url, in UTF-16 code units: a data: URL can be megabytes long. */
export const MAX_TITLE_CHARS = 1024;
export const MAX_URL_CHARS = 4096;

/**
 * URL prefixes of browser-internal pages: their title and url are listed, their content never
 * (SPEC §2 "Never reported"). `about:blank` is the exception: it is an ordinary empty document
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

/**
 * The selection reported by a tab's top document.
 * @typedef {{documentId: string, selection: Selection}} TabSelection
 */

/**
 * Everything `current` is built from.
 * @typedef {object} Snapshot
 * @property {{name: string, version: string}} browser
 * @property {WindowInfo[]} windows             in chrome.windows.getAll order
 * @property {number} [lastFocusedWindowId]     the browser's last-focused window
 * @property {Map<number, TabSelection>} selections  by browser tab id
 * @property {Map<number, {names: string[], omitted: number}>} [pageTools]  exposed page-tool names
 *   by browser tab id (SPEC §2 `attributes.tools`, §5)
 */

/**
 * @typedef {object} TreeOptions
 * @property {number} [maxTabsPerWindow]
 * @property {number} [maxSelectionBytes]
 * @property {boolean} [includeIncognito]   the user opted in (SPEC §2); off by default
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
      const page = pageElement(tab, { focused, visible }, snapshot.selections, ids, maxBytes);
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
 * @param {Map<number, TabSelection>} selections
 * @param {IdRegistry} ids
 * @param {number} maxBytes
 * @returns {Element}
 */
function pageElement(tab, win, selections, ids, maxBytes) {
  const tabId = /** @type {number} */ (tab.id);
  /** @type {Element} */
  const page = { id: ids.tabId(tabId), role: "Page", subrole: "tab" };
  const title = tab.title ? firstChars(wellFormed(tab.title), MAX_TITLE_CHARS) : "";
  if (title) page.title = title;
  const rawUrl = tab.url || tab.pendingUrl || "";
  const url = rawUrl ? firstChars(wellFormed(rawUrl), MAX_URL_CHARS) : "";
  if (url) page.url = url;
  if (win.focused && tab.active) page.focused = true;
  // A minimized window's tabs inherit its visible:false; only a shown window's tabs differ.
  if (win.visible && !tab.active) page.visible = false;

  const reported = selections.get(tabId);
  if (reported && !isInternalUrl(rawUrl)) {
    const text = textElement(tabId, reported, ids, maxBytes);
    if (text) page.children = [text];
  }
  return page;
}

/**
 * The selected Text element, or null when there is nothing to report.
 * @param {number} tabId
 * @param {TabSelection} reported
 * @param {IdRegistry} ids
 * @param {number} maxBytes
 * @returns {Element | null}
 */
export function textElement(tabId, reported, ids, maxBytes = DEFAULT_MAX_SELECTION_BYTES) {
  const { selection, documentId } = reported;
  const full = wellFormed(selection.text);
  if (full.length === 0) return null;
  const capped = capUtf8(full, maxBytes);
  // The content script pre-caps at 64 Ki code units; `length` is the length before that cap.
  const length = Number.isSafeInteger(selection.length) && selection.length > full.length ? selection.length : full.length;
  /** @type {Record<string, unknown>} */
  const attributes = {};
  const before = lastChars(wellFormed(selection.before ?? ""), MAX_CONTEXT_CHARS);
  const after = firstChars(wellFormed(selection.after ?? ""), MAX_CONTEXT_CHARS);
  if (before) attributes.before = before;
  if (after) attributes.after = after;
  if (capped.length < length) {
    attributes.truncated = true;
    attributes.length = length;
  }
  /** @type {Element} */
  const element = {
    id: ids.selectionId(tabId, documentId, selection.key),
    role: "Text",
    selected: true,
    content: [{ type: "text", text: capped }],
  };
  if (Object.keys(attributes).length > 0) element.attributes = attributes;
  return element;
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

/**
 * Replace lone surrogates with U+FFFD so the text is valid Unicode (SPEC §2).
 * @param {string} text
 * @returns {string}
 */
export function wellFormed(text) {
  return typeof text === "string" ? text.toWellFormed() : "";
}

/**
 * Cut well-formed `text` to at most `maxBytes` bytes of UTF-8, on a code-point boundary.
 * @param {string} text must be well-formed (no lone surrogates)
 * @param {number} maxBytes
 * @returns {string}
 */
export function capUtf8(text, maxBytes) {
  // Every UTF-16 code unit encodes to at most 3 bytes, so short strings need no walk.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const cp = /** @type {number} */ (text.codePointAt(i));
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += cp > 0xffff ? 2 : 1;
  }
  return text.slice(0, i);
}

/**
 * The first `max` code units of `text`, not splitting a surrogate pair.
 * @param {string} text
 * @param {number} max
 * @returns {string}
 */
export function firstChars(text, max) {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * The last `max` code units of `text`, not splitting a surrogate pair.
 * @param {string} text
 * @param {number} max
 * @returns {string}
 */
export function lastChars(text, max) {
  if (text.length <= max) return text;
  const start = text.length - max;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

/** @param {number} unit */
function isHighSurrogate(unit) {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** @param {number} unit */
function isLowSurrogate(unit) {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
