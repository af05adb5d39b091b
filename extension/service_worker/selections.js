// The selections content scripts report, per tab (docs/protocol.md "Inside the extension").
//
// Two paths feed it: content scripts push `selection.changed` (leading and trailing edge,
// throttled), and at `current` the worker pulls `selection.get` from the active tab of every
// window whose pushed value may still be moving: a tab that never pushed (a worker restart, a
// freshly injected script) or pushed within the last PUSH_SETTLED_MS. A tab quiet for longer has
// pushed its final value (the trailing push follows the last change by the throttle, 20 ms), so
// the answer reflects changes made ≥ 50 ms before the request (SPEC §4) without a round trip to
// the page on every `current` (bench/current_latency.py measured the pull at 1–2 ms of ~7).
// This slice reports the top document only (frameId 0); pushes from subframes are dropped here
// until frame Groups exist.

import * as api from "./browser_api.js";
import { SELECTION_GET } from "../protocol.js";

/** @typedef {import("../protocol.js").Selection} Selection */
/** @typedef {import("./tree.js").TabSelection} TabSelection */

/** How long the worker waits for one tab's `selection.get` reply (docs/protocol.md). */
export const SELECTION_PULL_TIMEOUT_MS = 300;

/** A tab whose last push is older than this has settled: its pushed value is trusted (ms). */
export const PUSH_SETTLED_MS = 250;

/** Size limits on what a content script may send (it relays the page: check shape and size). */
const MAX_TEXT_CHARS = 65536;
const MAX_CONTEXT_CHARS = 1024;

/**
 * Check a Selection sent by a content script; anything else becomes null.
 * @param {unknown} value
 * @returns {Selection | null}
 */
export function parseSelection(value) {
  if (typeof value !== "object" || value === null) return null;
  const { key, text, before, after, length } = /** @type {Record<string, unknown>} */ (value);
  if (!Number.isSafeInteger(key) || typeof text !== "string" || text.length === 0) return null;
  if (text.length > MAX_TEXT_CHARS) return null;
  const context = (/** @type {unknown} */ s) => (typeof s === "string" ? s.slice(0, MAX_CONTEXT_CHARS) : "");
  return {
    key: /** @type {number} */ (key),
    text,
    before: context(before),
    after: context(after),
    length: Number.isSafeInteger(length) && /** @type {number} */ (length) >= text.length ? /** @type {number} */ (length) : text.length,
  };
}

export class SelectionStore {
  /** Last pushed selection of each tab's top document. @type {Map<number, TabSelection | null>} */
  #pushed = new Map();
  /** The top frame's documentId as last seen on a push. @type {Map<number, string>} */
  #documents = new Map();
  /** When each tab last pushed (`performance.now()`, ms). @type {Map<number, number>} */
  #pushedAt = new Map();
  /** The clock, replaceable in tests. @type {() => number} */
  #now;

  /** @param {() => number} [now] */
  constructor(now = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Record a `selection.changed` push.
   * @param {{tabId?: number, frameId?: number, documentId?: string}} sender
   * @param {unknown} selection
   */
  push(sender, selection) {
    if (sender.tabId === undefined || sender.frameId !== 0 || !sender.documentId) return;
    this.#documents.set(sender.tabId, sender.documentId);
    this.#pushedAt.set(sender.tabId, this.#now());
    const parsed = parseSelection(selection);
    this.#pushed.set(sender.tabId, parsed ? { documentId: sender.documentId, selection: parsed } : null);
  }

  /** A tab closed or started loading a new document: what it reported is stale. @param {number} tabId */
  forget(tabId) {
    this.#pushed.delete(tabId);
    this.#documents.delete(tabId);
    this.#pushedAt.delete(tabId);
  }

  /**
   * Whether `tabId`'s pushed value may be stale and must be pulled (see the file comment).
   * @param {number} tabId
   */
  needsPull(tabId) {
    const at = this.#pushedAt.get(tabId);
    return at === undefined || this.#now() - at < PUSH_SETTLED_MS;
  }

  /**
   * The selections to report: pulled fresh from those `activeTabIds` that `needsPull`, the last
   * pushed value elsewhere (and where a pull fails or times out).
   * @param {number[]} activeTabIds
   * @returns {Promise<Map<number, TabSelection>>}
   */
  async collect(activeTabIds) {
    const toPull = activeTabIds.filter((tabId) => this.needsPull(tabId));
    const pulled = await Promise.all(toPull.map((tabId) => this.#pull(tabId)));
    /** @type {Map<number, TabSelection>} */
    const result = new Map();
    for (const [tabId, value] of this.#pushed) if (value) result.set(tabId, value);
    toPull.forEach((tabId, i) => {
      const value = pulled[i];
      if (value === undefined) return; // pull failed: keep the pushed value
      if (value === null) result.delete(tabId);
      else result.set(tabId, value);
    });
    return result;
  }

  /**
   * @param {number} tabId
   * @returns {Promise<TabSelection | null | undefined>} undefined when the pull failed
   */
  async #pull(tabId) {
    try {
      const reply = await withTimeout(api.sendToTopFrame(tabId, { type: SELECTION_GET }), SELECTION_PULL_TIMEOUT_MS);
      if (typeof reply !== "object" || reply === null || !("selection" in reply)) return undefined;
      const selection = parseSelection(reply.selection);
      if (!selection) return null;
      // The reply carries no sender, so the document comes from the last push, or is asked for.
      let documentId = this.#documents.get(tabId);
      if (!documentId) {
        documentId = await withTimeout(api.topDocumentId(tabId), SELECTION_PULL_TIMEOUT_MS);
        if (!documentId) return undefined;
        this.#documents.set(tabId, documentId);
      }
      return { documentId, selection };
    } catch {
      return undefined;
    }
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
