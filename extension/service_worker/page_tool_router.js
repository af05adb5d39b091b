// Page tools in the worker: the traffic (design.md §5, docs/internals/protocol.md "Page tools").
//
//   content script ── tools.report ──► report() ──► PageToolStore (page_tools.js, pure)
//   tab/window events, a page's visibilitychange, window-state poll (main.js) ──► scheduleChanged() ──► tools.changed
//   host ── tools.call {pageId, name, input} ──► call() ──► tools.run to that tab's top document
//   host ── tools.cancel {callId} ──► cancel() ──► tools.abort to the same document
//   tools.run/tools.abort go to the document on its page channel (page_channel.js: one port per
//   document, shared with `location`; a reply is taken only from the document the call went to),
//   and `tools.visibility` comes up on it.
// Documents are keyed as pointing keys them (selections.js `documentKey`): the browser's documentId
// (Chromium), else `ff-0-<token>` from the content script's document token (Firefox, which has no
// documentId): the report carries the token, and the page channel goes by frame id with the token
// where it has no port (the content script checks it: a navigated tab's new document does not run
// the old one's calls).
//
// main.js owns the listeners and hands the events here; browser_api.js does the chrome.* calls.

import * as api from "./browser_api.js";
import { RequestError } from "./native_port.js";
import { PageToolStore, parseRunReply } from "./page_tools.js";
import { confirmCall } from "./confirm.js";
import { documentKey } from "./selections.js";
import { ERROR_CODES, TOOLS_ABORT, TOOLS_CHANGED, TOOLS_RUN, TOOLS_VISIBILITY } from "../protocol.js";

/** @typedef {import("../protocol.js").NativeMessage} NativeMessage */

/** At most one `tools.changed` per this many ms, so a burst of changes becomes few messages. */
export const TOOLS_CHANGED_INTERVAL_MS = 10;
/** After a page's visibilitychange, the exposure is compared again this many ms later. */
export const VISIBILITY_RECHECK_MS = 40;

/**
 * @typedef {object} RouterDeps
 * @property {() => import("./native_port.js").NativePort} port  the native port (made after this router)
 * @property {import("./ids.js").IdRegistry} ids
 * @property {Promise<unknown>} ready  resolves once the worker has started the port
 * @property {import("./page_channel.js").PageChannels} channels  the page channel (tools.run, tools.abort)
 * @property {() => import("./page_tools.js").ExposurePolicy} [policy]  the user's settings, read
 *   at each exposure (absent: everything is exposed); call scheduleChanged() when they change
 * @property {() => void} [onMayChange]  called whenever the exposure may have changed (the pushed
 *   tree lists each page's tools: main.js schedules a build)
 */

export class PageToolRouter {
  /** @param {RouterDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.store = new PageToolStore();
    deps.channels.onEvent(TOOLS_VISIBILITY, () => this.#visibilityChanged());
  }

  /** @type {ReturnType<typeof setTimeout> | 0} */ #timer = 0;
  #lastSentAt = 0;
  #lastSent = "";
  #lastWindowStates = "";
  /** In-flight `tools.call`s by request id. @type {Map<string, {tabId: number, documentId: string}>} */
  #calls = new Map();
  /** @type {ReturnType<typeof setTimeout> | 0} */ #visibilityTimer = 0;

  /**
   * A page with tools became hidden or visible (its window was minimized or restored, in a
   * headed browser): compare now, and once more a little later in case the window's state
   * reads the old value yet (a second look that finds nothing new sends nothing).
   */
  #visibilityChanged() {
    this.scheduleChanged();
    if (this.#visibilityTimer) return;
    this.#visibilityTimer = setTimeout(() => {
      this.#visibilityTimer = 0;
      this.scheduleChanged();
    }, VISIBILITY_RECHECK_MS);
  }

  /** A new port (a new native host): it knows no tools yet, and names start over. */
  onConnect() {
    this.store.resetNames();
    this.#lastSent = "";
  }

  /**
   * hello named the instance: send the tools (again).
   * @param {boolean} idsWereReset the id registry started over
   */
  onInstance(idsWereReset) {
    if (idsWereReset) this.store.resetNames();
    this.scheduleChanged();
  }

  /**
   * A `tools.report` from a content script (checked by the store; top frames only), its document
   * keyed by documentId or by the report's `token` (Firefox).
   * @param {{tabId?: number, frameId?: number, documentId?: string, url?: string}} sender
   * @param {unknown} message
   */
  report(sender, message) {
    const { token } = /** @type {{token?: unknown}} */ (message ?? {});
    const key = documentKey(sender.frameId ?? -1, sender.documentId, typeof token === "string" ? token : undefined);
    if (this.store.report({ ...sender, documentId: key }, message)) this.scheduleChanged();
  }

  /**
   * A tab closed or started loading another document: its tools and calls are gone.
   * @param {number} tabId
   */
  tabGone(tabId) {
    if (this.store.forget(tabId)) this.scheduleChanged();
    for (const [id, call] of this.#calls) if (call.tabId === tabId) this.#calls.delete(id);
  }

  /**
   * The exposed names per tab, for the Page elements of `current`.
   * @param {import("./tree.js").WindowInfo[]} windows
   */
  exposedPages(windows) {
    return this.store.exposed(windows, this.deps.ids, this.deps.policy?.()).pages;
  }

  /** Send `tools.changed` soon: in the next task after a quiet period, else at most every TOOLS_CHANGED_INTERVAL_MS. */
  scheduleChanged() {
    this.deps.onMayChange?.();
    if (this.#timer) return;
    const waitMs = Math.max(0, this.#lastSentAt + TOOLS_CHANGED_INTERVAL_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = 0;
      this.#lastSentAt = Date.now();
      void this.#sendChanged();
    }, waitMs);
  }

  /**
   * The worker's window-state poll read `states` (browser_api.js windowStates; minimize/restore
   * fire no event in headless Chromium): compare the exposure when they changed.
   * @param {string} states
   */
  noteWindowStates(states) {
    if (!this.store.hasAny() || states === this.#lastWindowStates) return;
    this.#lastWindowStates = states;
    this.scheduleChanged();
  }

  /** Send the exposed tools to the host when they differ from what it has. */
  async #sendChanged() {
    await this.deps.ready;
    const port = this.deps.port();
    if (!port.connected) return; // hello's reply schedules another one
    const windows = (await api.normalWindows()).filter((win) => !win.incognito);
    const { tools } = this.store.exposed(windows, this.deps.ids, this.deps.policy?.());
    const text = JSON.stringify(tools);
    if (text === this.#lastSent) return;
    if (port.notify(TOOLS_CHANGED, { tools })) this.#lastSent = text;
  }

  /**
   * `tools.call {id, pageId, name, input}`: run the page's tool in that tab's top document.
   * @param {NativeMessage} message
   * @returns {Promise<unknown>} `{ok, text}` or `{ok: false, error}` (native_host/protocol/native.py ToolCallReply)
   */
  async call(message) {
    const { id, pageId, name, input } = /** @type {Record<string, unknown>} */ (message);
    if (typeof id !== "string" || typeof pageId !== "string" || typeof name !== "string") {
      throw new RequestError(ERROR_CODES.internalError, "tools.call needs a string pageId and name");
    }
    const target = this.deps.ids.resolve(pageId);
    if (!target || target.kind !== "tab") throw new RequestError(ERROR_CODES.unknownPage, `no page ${pageId}`);
    const tab = this.store.get(target.tabId);
    if (!tab || !tab.tools.some((tool) => tool.name === name)) {
      throw new RequestError(ERROR_CODES.pageGone, `page ${pageId} no longer offers that tool`);
    }
    const refusal = await confirmCall(message, target.tabId, tab); // consequential tools may ask the user first
    if (refusal) return refusal;
    this.#calls.set(id, { tabId: target.tabId, documentId: tab.documentId });
    let reply;
    try {
      reply = await this.deps.channels.request(target.tabId, tab.documentId, {
        type: TOOLS_RUN,
        callId: id,
        name,
        input: typeof input === "object" && input !== null ? input : {},
      });
    } catch {
      throw new RequestError(ERROR_CODES.pageGone, `page ${pageId} closed or navigated during the call`);
    } finally {
      this.#calls.delete(id);
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
  async cancel(message) {
    const { callId } = /** @type {Record<string, unknown>} */ (message);
    const call = typeof callId === "string" ? this.#calls.get(callId) : undefined;
    if (!call) return { cancelled: false };
    try {
      await this.deps.channels.post(call.tabId, call.documentId, { type: TOOLS_ABORT, callId });
    } catch {
      return { cancelled: false };
    }
    return { cancelled: true };
  }
}
