// Page tools in the worker (design.md §5, docs/internals/protocol.md "Page tools").
//
//   content script ── tools.report {tools, omitted} ──► PageToolStore.report()   (shape/size checked)
//   windows + tabs + ids + names ──► exposedTools() ──► tools.changed {tools} to the native host
//   tools.call {pageId, name, input} ──► target() ──► tools.run to that tab's top document
//
// Pure: no chrome.* here (main.js does the calls), so node tests cover the checks and the
// exposure rules: only the tools of visible pages (the active tab of each non-minimized normal
// window) are exposed, each under a name from tool_names.js.

import { ToolNameRegistry } from "./tool_names.js";
import {
  MAX_ORIGIN_CHARS,
  MAX_PAGE_SCHEMA_CHARS,
  MAX_TOOL_DESCRIPTION_CHARS,
  MAX_TOOL_SCHEMA_CHARS,
  MAX_TOOLS_PER_PAGE,
  MAX_TOOL_RESULT_BYTES,
  MAX_TOOL_TITLE_CHARS,
  TOOL_RESULT_TOO_LARGE,
  WEBMCP_TOOL_NAME_PATTERN,
} from "../wire.js";
import { MAX_URL_CHARS, firstChars, jsonTextOver, wellFormed } from "./text_limits.js";
import { isInternalUrl, tabUrl } from "./tree.js";

export { MAX_TOOLS_PER_PAGE };
/** A tool description longer than this many UTF-16 code units is cut (and ends with "…"). */
export const MAX_DESCRIPTION_CHARS = MAX_TOOL_DESCRIPTION_CHARS;
/** A tool's title is cut to this many code units. */
export const MAX_TITLE_CHARS = MAX_TOOL_TITLE_CHARS;
/** An inputSchema whose JSON is longer than this many code units is replaced by `{type:"object"}`. */
export const MAX_SCHEMA_CHARS = MAX_TOOL_SCHEMA_CHARS;
/** All schemas of one page together, in code units: a page cannot make every change cost megabytes. */
export { MAX_PAGE_SCHEMA_CHARS };
/** The WebMCP name rule (webmcp.md §1.3 step 5). */
export const TOOL_NAME_PATTERN = WEBMCP_TOOL_NAME_PATTERN;
/** How often the worker compares window states (and focus) in headless Chromium, in ms: there
 * minimizing fires no event at all (no windows.onBoundsChanged/onFocusChanged, and the page stays
 * "visible"; restoring fires onFocusChanged), so this poll is what meets design.md §5's "within 100 ms"
 * for page tools and design.md §4's 50 ms freshness for the pushed tree (tree_push.js: a change seen
 * here is pushed within a poll period plus one build). One chrome.windows.getAll without tabs per
 * tick, while the native port is connected. */
export const WINDOW_STATE_POLL_MS = 25;
/** The same poll in a headed browser, a safety net only: minimize/restore hide/show the page
 * (its visibilitychange reaches the worker on the tools port) and fire window events there. */
export const WINDOW_STATE_SAFETY_POLL_MS = 1000;

/**
 * The window-state poll period for a browser with this user agent (headless Chromium says
 * "HeadlessChrome").
 * @param {string} userAgent
 * @returns {number} ms
 */
export function windowStatePollMs(userAgent) {
  return /Headless/.test(userAgent) ? WINDOW_STATE_POLL_MS : WINDOW_STATE_SAFETY_POLL_MS;
}
/** Result text a content script may send back: its JSON string in UTF-8 bytes (the content
 * script checks the same, content/webmcp_bridge.js; results up to 32 MiB arrive whole). Over it,
 * the reply to the host would pass the browser's 64 MiB per message and be dropped. */
export const MAX_RESULT_BYTES = MAX_TOOL_RESULT_BYTES;
/** The error a result over MAX_RESULT_BYTES answers (the content script says the same). */
export const RESULT_TOO_LARGE = TOOL_RESULT_TOO_LARGE;

/**
 * One page tool as a content script reports it (checked).
 * @typedef {object} ReportedTool
 * @property {string} name          the page's WebMCP name
 * @property {string} description
 * @property {string} [title]
 * @property {Record<string, unknown>} [inputSchema]
 * @property {{readOnlyHint?: boolean, untrustedContentHint?: boolean, consequentialHint?: boolean}} [annotations]
 * @property {string} [origin]      a cross-origin frame's tool: that frame's origin (the top
 *   document lists it because the frame has allow="tools" and exposed it to the top's origin)
 */

/**
 * What one tab's top document reported.
 * @typedef {object} TabTools
 * @property {string} documentId  the top frame's documentId (calls go to exactly this document)
 * @property {string} origin      the reporting document's origin
 * @property {ReportedTool[]} tools  at most MAX_TOOLS_PER_PAGE, distinct names, sorted by name
 * @property {number} omitted     tools over the cap (or malformed) that were left out
 */

/**
 * One exposed tool, as `tools.changed` carries it (native_host/protocol/native.py `PageTool`).
 * @typedef {object} ExposedTool
 * @property {string} name       `p<n>_…`
 * @property {string} toolName   the page's original name
 * @property {string} pageId     `tab-<n>`
 * @property {string} description
 * @property {string} [title]
 * @property {string} pageTitle
 * @property {string} origin
 * @property {string} url
 * @property {Record<string, unknown>} [inputSchema]
 * @property {ReportedTool["annotations"]} [annotations]
 * @property {string} [frameOrigin]  set for a cross-origin frame's tool: the frame's origin
 * @property {string} [frameUrl]     and that frame's url, when only one url of that origin is in the tab
 */

/**
 * Check a `tools.report` body sent by a content script (it relays the page: shape and size).
 * Malformed tools are dropped and counted in `omitted`; duplicate names keep the first.
 * @param {unknown} value
 * @returns {{tools: ReportedTool[], omitted: number} | null} null when the body is not a report
 */
export function parseToolReport(value) {
  if (typeof value !== "object" || value === null) return null;
  const { tools, omitted } = /** @type {{tools?: unknown, omitted?: unknown}} */ (value);
  if (!Array.isArray(tools)) return null;
  let dropped = Number.isSafeInteger(omitted) && /** @type {number} */ (omitted) > 0 ? /** @type {number} */ (omitted) : 0;
  /** @type {Map<string, ReportedTool>} */
  const byName = new Map();
  const budget = { schemaChars: MAX_PAGE_SCHEMA_CHARS };
  for (const raw of tools.slice(0, MAX_TOOLS_PER_PAGE * 4)) {
    const tool = parseTool(raw, budget);
    if (!tool || byName.has(tool.name)) {
      dropped += 1;
      continue;
    }
    byName.set(tool.name, tool);
  }
  dropped += Math.max(0, tools.length - MAX_TOOLS_PER_PAGE * 4);
  const sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  dropped += Math.max(0, sorted.length - MAX_TOOLS_PER_PAGE);
  return { tools: sorted.slice(0, MAX_TOOLS_PER_PAGE), omitted: dropped };
}

/**
 * @param {unknown} raw
 * @param {{schemaChars: number}} budget what is left of MAX_PAGE_SCHEMA_CHARS (updated)
 * @returns {ReportedTool | null}
 */
function parseTool(raw, budget) {
  if (typeof raw !== "object" || raw === null) return null;
  const { name, description, title, inputSchema, annotations, origin } = /** @type {Record<string, unknown>} */ (raw);
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) return null;
  if (typeof description !== "string" || description.length === 0) return null;
  /** @type {ReportedTool} */
  const tool = { name, description: capText(description, MAX_DESCRIPTION_CHARS) };
  if (typeof title === "string" && title) tool.title = capText(title, MAX_TITLE_CHARS);
  const schema = typeof inputSchema === "string" && inputSchema.length <= budget.schemaChars ? parseSchema(inputSchema) : null;
  if (schema) {
    tool.inputSchema = schema;
    budget.schemaChars -= /** @type {string} */ (inputSchema).length;
  }
  if (typeof annotations === "object" && annotations !== null) {
    const a = /** @type {Record<string, unknown>} */ (annotations);
    /** @type {NonNullable<ReportedTool["annotations"]>} */
    const kept = {};
    for (const key of /** @type {const} */ (["readOnlyHint", "untrustedContentHint", "consequentialHint"])) {
      if (typeof a[key] === "boolean") kept[key] = /** @type {boolean} */ (a[key]);
    }
    if (Object.keys(kept).length > 0) tool.annotations = kept;
  }
  const frame = serialisedOrigin(origin);
  if (frame) tool.origin = frame;
  return tool;
}

/**
 * The origin of `url`, or "" when it does not parse.
 * @param {string} url
 */
function safeOrigin(url) {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/**
 * `value` when it is a serialised http(s)/ws(s) origin (what RegisteredTool.origin holds), else null.
 * @param {unknown} value
 * @returns {string | null}
 */
export function serialisedOrigin(value) {
  if (typeof value !== "string" || value.length > MAX_ORIGIN_CHARS) return null;
  try {
    const url = new URL(value);
    return url.origin === value && /^(https?|wss?):$/.test(url.protocol) ? value : null;
  } catch {
    return null;
  }
}

/**
 * An inputSchema arrives as JSON text (the content script serialises it); keep it when it parses
 * to an object and is not too large.
 * @param {unknown} value
 * @returns {Record<string, unknown> | null}
 */
function parseSchema(value) {
  if (typeof value !== "string" || value.length > MAX_SCHEMA_CHARS) return null;
  try {
    const parsed = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} text
 * @param {number} max
 */
function capText(text, max) {
  const clean = wellFormed(text);
  return clean.length <= max ? clean : `${firstChars(clean, max - 1)}…`;
}

/**
 * Check a content script's reply to `tools.run`.
 * @param {unknown} value
 * @returns {{ok: true, text: string | null} | {ok: false, error: string} | null}
 */
export function parseRunReply(value) {
  if (typeof value !== "object" || value === null) return null;
  const { ok, text, error } = /** @type {Record<string, unknown>} */ (value);
  if (ok === true && (text === null || (typeof text === "string" && !jsonTextOver(text, MAX_RESULT_BYTES)))) {
    return { ok: true, text: text === null ? null : wellFormed(text) };
  }
  if (ok === true) return { ok: false, error: RESULT_TOO_LARGE };
  if (ok === false) return { ok: false, error: typeof error === "string" ? capText(error, 2000) : "The tool failed." };
  return null;
}

/**
 * What the user decided about page tools (main's settings.js `exposePageTools`, `excludedSites`).
 * @typedef {object} ExposurePolicy
 * @property {boolean} [exposePageTools]        false: no page tool is exposed (default true)
 * @property {(doc: import("./settings.js").DocumentSite) => boolean} [isExcluded]  true for a document of an excluded
 *   site (by its address and origin: settings.js isExcluded)
 */

/** Most cross-origin frames remembered per tab. */
export const MAX_FRAMES_PER_TAB = 64;

export class PageToolStore {
  /** @type {Map<number, TabTools>} by browser tab id */
  #tabs = new Map();
  /**
   * Cross-origin frames seen in each tab since its top document loaded, by frameId: their
   * origin and url, from the browser's `sender` of `tools.frame` (content/webmcp_frames.js).
   * @type {Map<number, Map<number, {origin: string, url: string}>>}
   */
  #frames = new Map();
  /** Exposed names, remembered per (page, original name) for the instance. */
  names = new ToolNameRegistry();

  /**
   * Record a `tools.report` from a tab's top frame. Returns whether the stored tools changed.
   * @param {{tabId?: number, frameId?: number, documentId?: string, url?: string, origin?: string}} sender
   * @param {unknown} body
   * @returns {boolean}
   */
  report(sender, body) {
    if (sender.tabId === undefined || sender.frameId !== 0 || !sender.documentId) return false;
    const parsed = parseToolReport(body);
    if (!parsed) return false;
    // The browser's origin where it gives one: an about:blank page's is its creator's.
    let origin = sender.origin && sender.origin !== "null" ? sender.origin : "";
    try {
      origin ||= new URL(sender.url ?? "").origin;
    } catch {
      origin = "";
    }
    const before = this.#tabs.get(sender.tabId);
    /** @type {TabTools} */
    const next = { documentId: sender.documentId, origin, tools: parsed.tools, omitted: parsed.omitted };
    if (parsed.tools.length === 0 && parsed.omitted === 0) this.#tabs.delete(sender.tabId);
    else this.#tabs.set(sender.tabId, next);
    return JSON.stringify(before ?? null) !== JSON.stringify(this.#tabs.get(sender.tabId) ?? null);
  }

  /**
   * A tab closed or started loading another document. Returns whether it had tools.
   * @param {number} tabId
   */
  forget(tabId) {
    this.#frames.delete(tabId);
    return this.#tabs.delete(tabId);
  }

  /**
   * A frame of a tab said it is there (`tools.frame`). Returns whether its origin or url is new.
   * @param {{tabId?: number, frameId?: number, url?: string, origin?: string}} sender
   * @returns {boolean}
   */
  noteFrame(sender) {
    if (sender.tabId === undefined || !sender.frameId || !sender.url) return false;
    const origin = serialisedOrigin(sender.origin ?? safeOrigin(sender.url));
    if (!origin) return false;
    const frames = this.#frames.get(sender.tabId) ?? new Map();
    const before = frames.get(sender.frameId);
    if (before?.origin === origin && before.url === sender.url) return false;
    if (!before && frames.size >= MAX_FRAMES_PER_TAB) return false;
    frames.set(sender.frameId, { origin, url: sender.url });
    this.#frames.set(sender.tabId, frames);
    return true;
  }

  /**
   * Whether a frame of `origin` is in the tab, and its url when exactly one url of that origin
   * is known (several frames of one origin: which one offers a tool is not known here).
   * @param {number} tabId
   * @param {string} origin
   * @returns {{url?: string} | null} null when no frame of that origin showed itself
   */
  #frameOf(tabId, origin) {
    const urls = new Set();
    for (const frame of this.#frames.get(tabId)?.values() ?? []) if (frame.origin === origin) urls.add(frame.url);
    if (urls.size === 0) return null;
    return urls.size === 1 ? { url: [...urls][0] } : {};
  }

  /**
   * What a tab reported, if anything.
   * @param {number} tabId
   * @returns {TabTools | undefined}
   */
  get(tabId) {
    return this.#tabs.get(tabId);
  }

  /** @returns {boolean} whether any tab reported tools */
  hasAny() {
    return this.#tabs.size > 0;
  }

  /** A new native-host instance: exposed names start over (page ids do too). */
  resetNames() {
    this.names.reset();
  }

  /**
   * The exposed tools: those of the active tab of each non-minimized, non-incognito normal window.
   * `policy` is the user's choice (design.md §5 "User control"): `exposePageTools: false` exposes
   * nothing, `isExcluded` drops the pages of excluded sites (by the top document's address and
   * origin) and the tools a page says are an excluded frame's.
   * @param {import("./tree.js").WindowInfo[]} windows
   * @param {import("./ids.js").IdRegistry} ids
   * @param {ExposurePolicy} [policy]
   * @returns {{tools: ExposedTool[], pages: Map<number, {names: string[], omitted: number}>}}
   */
  exposed(windows, ids, policy = {}) {
    /** @type {ExposedTool[]} */
    const tools = [];
    /** @type {Map<number, {names: string[], omitted: number}>} */
    const pages = new Map();
    if (policy.exposePageTools === false) return { tools, pages };
    for (const win of windows) {
      if (win.incognito || win.state === "minimized" || (win.type !== undefined && win.type !== "normal")) continue;
      const tab = (win.tabs ?? []).find((t) => t.active);
      if (!tab || tab.id === undefined || tab.incognito) continue;
      const reported = this.#tabs.get(tab.id);
      const url = tabUrl(tab);
      if (!reported || isInternalUrl(url) || policy.isExcluded?.({ url, origin: reported.origin })) continue;
      const pageId = ids.tabId(tab.id);
      const pageNumber = Number(pageId.slice("tab-".length));
      const names = this.names.namesFor(pageNumber, reported.tools.map((t) => t.name));
      const tabId = tab.id;
      reported.tools.forEach((tool, i) => {
        // A tool the top document says is a cross-origin frame's is listed only once a frame of
        // that origin has shown itself in this tab (the polyfill's report is page input).
        const frameOrigin = tool.origin && tool.origin !== reported.origin ? tool.origin : undefined;
        const frame = frameOrigin ? this.#frameOf(tabId, frameOrigin) : null;
        if (frameOrigin && !frame) return;
        if (frameOrigin && policy.isExcluded?.({ url: frame?.url, origin: frameOrigin })) return;
        /** @type {ExposedTool} */
        const exposed = {
          name: names[i],
          toolName: tool.name,
          pageId,
          description: tool.description,
          pageTitle: firstChars(wellFormed(tab.title ?? ""), MAX_TOOL_TITLE_CHARS),
          origin: reported.origin,
          url: firstChars(wellFormed(url), MAX_URL_CHARS),
        };
        if (tool.title) exposed.title = tool.title;
        if (tool.inputSchema) exposed.inputSchema = tool.inputSchema;
        if (tool.annotations) exposed.annotations = tool.annotations;
        if (frameOrigin && frame) {
          exposed.frameOrigin = frameOrigin;
          if (frame.url !== undefined) exposed.frameUrl = firstChars(wellFormed(frame.url), MAX_URL_CHARS);
        }
        tools.push(exposed);
      });
      const listed = new Set(tools.filter((t) => t.pageId === pageId).map((t) => t.name));
      pages.set(tab.id, { names: names.filter((name) => listed.has(name)), omitted: reported.omitted });
    }
    return { tools, pages };
  }
}
