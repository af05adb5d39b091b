// What the content scripts of every frame report, per tab (docs/internals/protocol.md "Inside the extension").
//
// Two paths feed it: content scripts push `frame.changed` with their whole FrameReport (leading
// and trailing edge, throttled), and at `current` the worker pulls every frame of the active tab
// of each window whose pushed value may still be moving — a tab whose top frame never pushed (a
// worker restart, a freshly injected script) or any of whose frames pushed within the last
// PUSH_SETTLED_MS — with one chrome.scripting.executeScript over all frames (it also gives each
// frame's documentId). A tab quiet for longer has pushed its final value (the trailing push
// follows the last change by the throttle, 20 ms), so the answer reflects changes made ≥ 50 ms
// before the request (design.md §4) without a round trip to the page on every `current`. A frame
// whose last push left its focused field's text out (`pending`: the user types in a large field,
// content/report.js) keeps its tab pulled until the text follows.
//
// Documents are keyed by the browser's documentId (Chromium). Where there is none (Firefox), the
// key is `ff-<frameId>-<token>`, the token being the random id the content script made for its
// document (`documentKey`); locator.js addresses such a document by frameId and the content
// script checks the token, so a navigated frame still answers "gone".

import * as api from "./browser_api.js";
import { MAX_TITLE_CHARS, MAX_URL_CHARS } from "./text_limits.js";

/** @typedef {import("../protocol.js").Selection} Selection */
/** @typedef {import("../protocol.js").FrameReport} FrameReport */
/** @typedef {import("./pointing.js").StoredFrame} StoredFrame */

/** How long the worker waits for one tab's pull (docs/internals/protocol.md). */
export const SELECTION_PULL_TIMEOUT_MS = 300;

/** A tab whose last push is older than this has settled: its pushed value is trusted (ms). */
export const PUSH_SETTLED_MS = 250;

/** Frame levels `lineage` follows at most (the content scripts count depth up to 64). */
const MAX_FRAME_LEVELS = 64;

/** Size limits on what a content script may send (it relays the page: check shape and size).
 * Text and context are pre-caps, looser than the tree's; titles and urls get the tree's caps. */
const MAX_TEXT_CHARS = 65536;
const MAX_CONTEXT_CHARS = 1024;
const FIELD_KINDS = new Set(["input", "textarea", "contenteditable"]);

/** A content script's document token: 128 bits in hex (content/report.js). */
const TOKEN_PATTERN = /^[0-9a-f]{32}$/;
/** A document key made from a frame id and a token (`documentKey`). */
const FRAME_KEY_PATTERN = /^ff-(\d{1,15})-([0-9a-f]{32})$/;

/**
 * The key of a document: the browser's documentId where it has one (Chromium), else
 * `ff-<frameId>-<token>` (Firefox), else undefined (no token: an old content script).
 * @param {number} frameId
 * @param {string | undefined} documentId
 * @param {string | undefined} token the content script's document token
 * @returns {string | undefined}
 */
export function documentKey(frameId, documentId, token) {
  if (documentId) return documentId;
  return token && TOKEN_PATTERN.test(token) && Number.isSafeInteger(frameId) && frameId >= 0 ? `ff-${frameId}-${token}` : undefined;
}

/**
 * The frame id and token a `documentKey` made without a documentId; null for a browser documentId.
 * @param {string} key
 * @returns {{frameId: number, token: string} | null}
 */
export function parseDocumentKey(key) {
  const match = FRAME_KEY_PATTERN.exec(key);
  return match ? { frameId: Number(match[1]), token: match[2] } : null;
}

/** @param {unknown} s @param {number} max */
const str = (s, max) => (typeof s === "string" ? s.slice(0, max) : "");
/** @param {unknown} n */
const isKey = (n) => Number.isSafeInteger(n) && /** @type {number} */ (n) > 0;

/**
 * Check a Selection sent by a content script; anything else becomes null.
 * @param {unknown} value
 * @returns {Selection | null}
 */
export function parseSelection(value) {
  if (typeof value !== "object" || value === null) return null;
  const { key, text, before, after, length, field, hidden, editor, partial } = /** @type {Record<string, unknown>} */ (value);
  if (!Number.isSafeInteger(key) || typeof text !== "string" || text.length === 0) return null;
  if (text.length > MAX_TEXT_CHARS) return null;
  /** @type {Selection} */
  const out = {
    key: /** @type {number} */ (key),
    text,
    before: str(before, MAX_CONTEXT_CHARS),
    after: str(after, MAX_CONTEXT_CHARS),
    length: Number.isSafeInteger(length) && /** @type {number} */ (length) >= text.length ? /** @type {number} */ (length) : text.length,
  };
  if (hidden === true) out.hidden = true;
  // content/editor_selection.js: the code editor read, a short lowercase name.
  if (typeof editor === "string" && /^[a-z][a-z0-9-]{0,31}$/.test(editor)) out.editor = editor;
  if (partial === true) out.partial = true;
  const f = /** @type {Record<string, unknown> | null} */ (typeof field === "object" ? field : null);
  if (f && isKey(f.key) && FIELD_KINDS.has(/** @type {string} */ (f.kind))) {
    out.field = { key: /** @type {number} */ (f.key), kind: /** @type {any} */ (f.kind) };
  }
  return out;
}

/**
 * Check a FrameReport sent by a content script; anything else becomes null.
 * @param {unknown} value
 * @returns {FrameReport | null}
 */
export function parseReport(value) {
  if (typeof value !== "object" || value === null) return null;
  const v = /** @type {Record<string, unknown>} */ (value);
  /** @type {FrameReport} */
  const out = {
    isTop: v.isTop === true,
    hasFocus: v.hasFocus === true,
    url: str(v.url, MAX_URL_CHARS),
    selection: parseSelection(v.selection),
    selectionAt: typeof v.selectionAt === "number" && Number.isFinite(v.selectionAt) ? v.selectionAt : 0,
    focus: null,
    hover: null,
  };
  if (typeof v.lang === "string" && v.lang) out.lang = v.lang.slice(0, 64);
  if (v.pdf === true) out.pdf = true;
  if (typeof v.token === "string" && TOKEN_PATTERN.test(v.token)) out.token = v.token;
  if (typeof v.parentToken === "string" && TOKEN_PATTERN.test(v.parentToken)) out.parentToken = v.parentToken;
  const focus = /** @type {Record<string, unknown> | null} */ (typeof v.focus === "object" ? v.focus : null);
  if (focus && isKey(focus.key) && FIELD_KINDS.has(/** @type {string} */ (focus.kind))) {
    out.focus = { key: /** @type {number} */ (focus.key), kind: /** @type {any} */ (focus.kind) };
    if (typeof focus.title === "string" && focus.title) out.focus.title = focus.title.slice(0, MAX_TITLE_CHARS);
    if (focus.pending === true) out.focus.pending = true;
    if (focus.sensitive === true) out.focus.sensitive = true;
    else if (typeof focus.content === "string") {
      out.focus.content = focus.content.slice(0, MAX_TEXT_CHARS);
      out.focus.length = Number.isSafeInteger(focus.length) ? /** @type {number} */ (focus.length) : focus.content.length;
    }
  }
  const hover = /** @type {Record<string, unknown> | null} */ (typeof v.hover === "object" ? v.hover : null);
  if (hover && isKey(hover.key) && (hover.role === "Link" || hover.role === "Image")) {
    out.hover = {
      key: /** @type {number} */ (hover.key),
      role: hover.role,
      url: str(hover.url, MAX_URL_CHARS),
      title: str(hover.title, MAX_TITLE_CHARS),
      at: typeof hover.at === "number" && Number.isFinite(hover.at) ? hover.at : 0,
    };
  }
  return out;
}

export class SelectionStore {
  /** What each frame of each tab last pushed, by tab id then frame id. @type {Map<number, Map<number, StoredFrame>>} */
  #frames = new Map();
  /** When each tab last pushed (`performance.now()`, ms). @type {Map<number, number>} */
  #pushedAt = new Map();
  /** Tabs whose top frame pushed at least once (or was pulled, see `collect`). @type {Set<number>} */
  #topSeen = new Set();
  /** Tabs `pullUnseen` already pulled for their current document. @type {Set<number>} */
  #triedPull = new Set();
  /** The clock, replaceable in tests. @type {() => number} */
  #now;

  /** @param {() => number} [now] */
  constructor(now = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Record a `frame.changed` push. A report `{gone: true, token}` (or null, from an older content
   * script) is a document going away (its `pagehide`, e.g. an iframe removed from its page): what
   * it reported is dropped. A push whose focus is `pending` keeps the text last reported for the
   * same field (the tab is pulled at `current` until the text follows).
   * A frame of an excluded site is stored too, with its origin: whether it is shown is decided
   * at every build from the settings of that moment (exclusion.js sharedFrames), the same for
   * pushed and pulled reports.
   * @param {{tabId?: number, frameId?: number, documentId?: string, origin?: string}} sender
   * @param {unknown} report
   */
  push(sender, report) {
    if (sender.tabId === undefined || sender.frameId === undefined) return;
    const gone = report === null || (typeof report === "object" && /** @type {{gone?: unknown}} */ (report).gone === true);
    if (gone) {
      const token = report === null ? undefined : /** @type {{token?: unknown}} */ (report).token;
      const key = documentKey(sender.frameId, sender.documentId, typeof token === "string" ? token : undefined);
      const frames = this.#frames.get(sender.tabId);
      if (key && frames?.get(sender.frameId)?.documentId === key) frames.delete(sender.frameId);
      return;
    }
    const parsed = parseReport(report);
    if (!parsed) return;
    const documentId = documentKey(sender.frameId, sender.documentId, parsed.token);
    if (!documentId) return;
    let frames = this.#frames.get(sender.tabId);
    if (!frames) this.#frames.set(sender.tabId, (frames = new Map()));
    const previous = frames.get(sender.frameId);
    const focus = parsed.focus;
    const before = previous?.documentId === documentId ? previous.report.focus : null;
    if (focus?.pending && focus.content === undefined && before?.key === focus.key && typeof before.content === "string") {
      focus.content = before.content;
      focus.length = before.length;
    }
    /** @type {StoredFrame} */
    const stored = { frameId: sender.frameId, documentId, report: parsed };
    if (sender.origin) stored.origin = sender.origin;
    frames.set(sender.frameId, stored);
    if (sender.frameId === 0) this.#topSeen.add(sender.tabId);
    this.#pushedAt.set(sender.tabId, this.#now());
  }

  /**
   * Pull those of `tabIds` that never reported, once per document (the pushed tree: a page whose
   * content script has not pushed since it started; see `collect`).
   * @param {number[]} tabIds
   * @returns {Promise<boolean>} whether it pulled any (false at once when there was none to pull)
   */
  async pullUnseen(tabIds) {
    const unseen = tabIds.filter((tabId) => !this.#topSeen.has(tabId) && !this.#triedPull.has(tabId));
    if (unseen.length === 0) return false;
    for (const tabId of unseen) this.#triedPull.add(tabId);
    await this.collect(unseen);
    return true;
  }

  /**
   * A `frame.changed` the worker dropped (incognito without the opt-in; an excluded site's is
   * kept, see `push`): what that frame reported before is stale now, so drop it too, and pull the
   * tab before its pushed values are used again (once it may be shown again: the settings changed).
   * @param {{tabId?: number, frameId?: number}} sender
   */
  dropped(sender) {
    if (sender.tabId === undefined) return;
    if (!sender.frameId) return this.forget(sender.tabId);
    this.#frames.get(sender.tabId)?.delete(sender.frameId);
    this.#topSeen.delete(sender.tabId);
    this.#triedPull.delete(sender.tabId);
  }

  /** A tab closed or started loading a new document: what it reported is stale. @param {number} tabId */
  forget(tabId) {
    this.#triedPull.delete(tabId);
    this.#frames.delete(tabId);
    this.#pushedAt.delete(tabId);
    this.#topSeen.delete(tabId);
  }

  /**
   * Whether `tabId`'s pushed values may be stale and must be pulled (see the file comment).
   * @param {number} tabId
   */
  needsPull(tabId) {
    const at = this.#pushedAt.get(tabId);
    if (!this.#topSeen.has(tabId) || at === undefined || this.#now() - at < PUSH_SETTLED_MS) return true;
    for (const frame of this.#frames.get(tabId)?.values() ?? []) if (frame.report.focus?.pending) return true;
    return false;
  }

  /**
   * Whether the pushed values of `activeTabIds` are the answer as a pull would give it (none
   * `needsPull`), and if not, when they will be for a tab that only has to settle (it pushed
   * within PUSH_SETTLED_MS; a tab that never pushed or has a pending field waits for its push).
   * @param {number[]} activeTabIds
   * @returns {{complete: boolean, retryInMs?: number}}
   */
  pushedComplete(activeTabIds) {
    let complete = true;
    /** @type {number | undefined} */
    let retryInMs;
    for (const tabId of activeTabIds) {
      if (!this.needsPull(tabId)) continue;
      complete = false;
      const at = this.#pushedAt.get(tabId);
      const pending = [...(this.#frames.get(tabId)?.values() ?? [])].some((f) => f.report.focus?.pending);
      if (at !== undefined && this.#topSeen.has(tabId) && !pending) {
        const wait = Math.max(0, at + PUSH_SETTLED_MS - this.#now()) + 1;
        retryInMs = Math.min(retryInMs ?? wait, wait);
      }
    }
    return retryInMs === undefined ? { complete } : { complete, retryInMs };
  }

  /**
   * The frames as last pushed (or pulled), without asking any page.
   * @returns {Map<number, StoredFrame[]>}
   */
  pushed() {
    /** @type {Map<number, StoredFrame[]>} */
    const result = new Map();
    for (const [tabId, frames] of this.#frames) if (frames.size > 0) result.set(tabId, [...frames.values()]);
    return result;
  }

  /**
   * The frames to report: pulled fresh from those `activeTabIds` that `needsPull`, the last
   * pushed values elsewhere (and where a pull fails or times out).
   * @param {number[]} activeTabIds
   * @returns {Promise<Map<number, StoredFrame[]>>}
   */
  async collect(activeTabIds) {
    const toPull = activeTabIds.filter((tabId) => this.needsPull(tabId));
    const pulled = await Promise.all(toPull.map((tabId) => this.#pull(tabId)));
    toPull.forEach((tabId, i) => {
      const frames = pulled[i];
      if (frames === undefined) return; // pull failed: keep the pushed values
      this.#frames.set(tabId, new Map(frames.map((f) => [f.frameId, f])));
      // A pulled top frame is as good as a settled push: its content script pushes every change
      // from now on (a worker restart, or a page that never changed since its script started).
      if (frames.some((f) => f.frameId === 0) && !this.#topSeen.has(tabId)) {
        this.#topSeen.add(tabId);
        if (!this.#pushedAt.has(tabId)) this.#pushedAt.set(tabId, this.#now() - PUSH_SETTLED_MS);
      }
    });
    return this.pushed();
  }

  /**
   * @param {number} tabId
   * @returns {Promise<StoredFrame[] | undefined>} undefined when the pull failed
   */
  async #pull(tabId) {
    try {
      const results = await withTimeout(api.frameReports(tabId), SELECTION_PULL_TIMEOUT_MS);
      /** @type {StoredFrame[]} */
      const frames = [];
      for (const { frameId, documentId, origin, result } of results) {
        const report = parseReport(result);
        const key = report ? documentKey(frameId, documentId, report.token) : undefined;
        if (report && key) frames.push(origin ? { frameId, documentId: key, report, origin } : { frameId, documentId: key, report });
      }
      return frames;
    } catch {
      return undefined;
    }
  }

  /**
   * What decides whether a tab's top document is shared (settings.js isExcluded): its address
   * and origin as last reported (the opener's origin for a `window.open("")` window), if known.
   * @param {number} tabId
   * @returns {import("./settings.js").DocumentSite | undefined}
   */
  topSite(tabId) {
    const top = this.#frames.get(tabId)?.get(0);
    return top ? { url: top.report.url, origin: top.origin } : undefined;
  }

  /**
   * Where document `key` sits in tab `tabId`'s frame tree, as far as the frames' reports tell
   * (each names its parent's token, content/report.js): for each level up to the top frame, the
   * parent's document and the token of the child document it holds; nearest parent first. Used by
   * locator.js to ask every parent frame for its <iframe>'s box at once, beside the measurement.
   * Null when a level is not known (a frame that never reported, nor linked to its parent yet).
   * @param {number} tabId
   * @param {string} key a documentKey
   * @returns {{childToken: string, parentKey: string}[] | null}  [] for a top document
   */
  lineage(tabId, key) {
    const frames = this.#frames.get(tabId);
    if (!frames) return null;
    let frame = [...frames.values()].find((f) => f.documentId === key);
    /** @type {{childToken: string, parentKey: string}[]} */
    const levels = [];
    while (frame && frame.frameId !== 0) {
      const parentToken = frame.report.parentToken;
      const parent = parentToken ? [...frames.values()].find((f) => f.report.token === parentToken) : undefined;
      const childToken = frame.report.token;
      if (!parent || !childToken || levels.length >= MAX_FRAME_LEVELS) return null;
      levels.push({ childToken, parentKey: parent.documentId });
      frame = parent;
    }
    return frame ? levels : null;
  }
}

/**
 * Reject with a timeout error when `promise` has not settled within `ms`.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @returns {Promise<T>}
 */
export function withTimeout(promise, ms) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([promise, timeout])).finally(() => clearTimeout(timer));
}
