// One long-lived port per document between the worker and its content script (docs/internals/extension.md
// "Page channel"), for everything the worker asks a page: `location.get` (locator.js) and
// `tools.run`/`tools.abort` (page_tool_router.js). A `chrome.tabs.sendMessage` opens a message
// channel per call (the browser sets up and tears down a port each time); measured from the
// worker, its round trip is 1.2 ms median against 0.4 ms for a message on a port kept open.
//
//   request(tabId, key, message)  ──► the document's port ──► {id, message} … {id, reply}
//   post(tabId, key, message)     ──► {message}  (no reply: tools.abort)
//   content script ──► {event: {type, …}} ──► onEvent(type) listeners (tools.visibility)
//
// `key` names the document as selections.js `documentKey` does: the browser's documentId
// (Chromium), `ff-<frameId>-<token>` (Firefox, which has no documentId), or null for whatever
// document the tab's top frame holds. A port comes from either end:
//   - the worker opens one on first use (chrome.tabs.connect by {documentId} or {frameId: 0});
//     browser_api.js gives none in Firefox;
//   - a content script opens one (chrome.runtime.connect, PAGE_CHANNEL_NAME) once its page has
//     tools, so events can come up and Firefox has a port at all: adopt(). A port keys itself by
//     its sender's documentId, else by the `{hello: token}` it posts first (nothing counts before).
// A reply is taken only from the port its request went down, so one document cannot answer
// another's request; the port object lives in the isolated world, out of the page's reach.
// When a port closes (the document closed, navigated, went into the back/forward cache, its
// content script retired) every request waiting on it rejects ("the document went away"). Where no
// port can be had, one message goes by sendMessage (by documentId, or by frame id with the
// document's token, which the content script checks).

import * as api from "./browser_api.js";
import { documentKey, parseDocumentKey } from "./selections.js";

/** The port name content/page_port.js opens and answers. */
export const PAGE_CHANNEL_NAME = "webctx.page";

/** Ports kept open at most; the least recently used one is closed first. */
export const MAX_PORTS = 32;

/**
 * Either end's port, as browser_api.js hands it over.
 * @typedef {object} PagePort
 * @property {(message: object) => boolean} post  false once the port is closed
 * @property {() => void} disconnect               (does not run the onDisconnect listener)
 */

/**
 * @typedef {object} Channel
 * @property {PagePort} port
 * @property {Map<number, {resolve: (reply: unknown) => void, reject: (error: Error) => void}>} waiting
 */

/**
 * The browser calls a PageChannels makes (browser_api.js by default; node tests pass fakes).
 * @typedef {object} ChannelDeps
 * @property {(tabId: number, documentId: string | null, name: string,
 *   listeners: {onMessage: (message: unknown) => void, onDisconnect: () => void}) => PagePort | null} connect
 *   open a port to a document (null where the browser cannot: Firefox)
 * @property {(tabId: number, key: string | null, message: {type: string} & Record<string, unknown>) => Promise<unknown>} sendOnce
 */

/** @type {ChannelDeps} */
const BROWSER = {
  connect: (...args) => api.connectToDocument(...args),
  sendOnce: sendToDocumentKey,
};

/**
 * Request options: `signal` cancels; `timeoutMs` gives up after that many ms.
 * @typedef {{signal?: AbortSignal, timeoutMs?: number}} RequestOptions
 */

export class PageChannels {
  /** @type {ChannelDeps} */
  #deps;
  /** @param {ChannelDeps} [deps] */
  constructor(deps = BROWSER) {
    this.#deps = deps;
  }

  /** Open channels by `${tabId}/${key or "top"}`, least recently used first. @type {Map<string, Channel>} */
  #channels = new Map();
  /** Event listeners by event type. @type {Map<string, (source: {tabId: number, key: string}) => void>} */
  #events = new Map();
  #nextId = 1;

  /**
   * Call `listener` for each event of `type` a content script posts on its port.
   * @param {string} type
   * @param {(source: {tabId: number, key: string}) => void} listener
   */
  onEvent(type, listener) {
    this.#events.set(type, listener);
  }

  /**
   * Send `message` to the content script of document `key` (or of the tab's top frame when null)
   * and resolve with its reply. Rejects when the document cannot be reached, goes meanwhile,
   * `signal` aborts, or no reply came within `timeoutMs` (the request is forgotten then: a late
   * reply is dropped). `timeoutMs` is one timer, cleared by the reply: cheaper per call than an
   * `AbortSignal.timeout`, whose timer always runs out (a task in the worker a second later).
   * @param {number} tabId
   * @param {string | null} key
   * @param {{type: string} & Record<string, unknown>} message
   * @param {RequestOptions} [options]
   * @returns {Promise<unknown>}
   */
  request(tabId, key, message, { signal, timeoutMs } = {}) {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const channel = this.#use(tabId, key);
    if (!channel) return raceTimeout(raceSignal(this.#deps.sendOnce(tabId, key, message), signal), timeoutMs);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const onAbort = () => {
        clearTimeout(timer);
        if (channel.waiting.delete(id)) reject(abortError(/** @type {AbortSignal} */ (signal)));
      };
      channel.waiting.set(id, {
        resolve: (reply) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          if (channel.waiting.delete(id)) reject(timeoutError(timeoutMs));
        }, timeoutMs);
      }
      if (!channel.port.post({ id, message })) this.#close(`${tabId}/${key ?? "top"}`, channel, "the document went away");
    });
  }

  /**
   * Send `message` without waiting for a reply (`tools.abort`). Rejects when it cannot be sent.
   * @param {number} tabId
   * @param {string | null} key
   * @param {{type: string} & Record<string, unknown>} message
   * @returns {Promise<void>}
   */
  async post(tabId, key, message) {
    const channel = this.#use(tabId, key);
    if (!channel) {
      await this.#deps.sendOnce(tabId, key, message);
      return;
    }
    if (!channel.port.post({ message })) {
      this.#close(`${tabId}/${key ?? "top"}`, channel, "the document went away");
      throw new Error("the document went away");
    }
  }

  /**
   * A port a content script opened (browser_api.js onContentPort). The caller has checked the
   * sender (an extension content script in a tab; incognito rules).
   * @param {import("./browser_api.js").ContentPort} port
   */
  adopt(port) {
    const { tabId, frameId, documentId } = port.sender;
    if (tabId === undefined || frameId === undefined) {
      port.disconnect();
      return;
    }
    /** @type {string | undefined} */
    let key = documentKey(frameId, documentId, undefined);
    /** @type {Channel | null} */
    let channel = null;
    const settle = () => {
      if (!key) return;
      channel = { port, waiting: new Map() };
      this.#add(`${tabId}/${key}`, channel);
    };
    settle();
    port.onMessage((raw) => {
      if (typeof raw !== "object" || raw === null) return;
      const data = /** @type {Record<string, unknown>} */ (raw);
      if (!key) {
        // Firefox: the port names its document by the content script's token first.
        if (typeof data.hello !== "string") return;
        key = documentKey(frameId, undefined, data.hello);
        settle();
        return;
      }
      if (channel) this.#receive(channel, { tabId, key }, data);
    });
    port.onDisconnect(() => {
      if (key && channel) this.#close(`${tabId}/${key}`, channel, "the document went away");
    });
  }

  /**
   * The channel to use for a document, most recently used now; opened by the worker if none.
   * @param {number} tabId
   * @param {string | null} key
   * @returns {Channel | null} null where no port can be opened
   */
  #use(tabId, key) {
    const mapKey = `${tabId}/${key ?? "top"}`;
    const known = this.#channels.get(mapKey);
    if (known) {
      this.#channels.delete(mapKey); // re-inserted last: most recently used
      this.#channels.set(mapKey, known);
      return known;
    }
    // A Firefox key names no documentId the browser could connect to.
    if (key !== null && parseDocumentKey(key)) return null;
    /** @type {Channel["waiting"]} */
    const waiting = new Map();
    /** @type {Channel | null} */
    let channel = null;
    const port = this.#deps.connect(tabId, key, PAGE_CHANNEL_NAME, {
      onMessage: (raw) => {
        if (channel && typeof raw === "object" && raw !== null) {
          this.#receive(channel, { tabId, key: key ?? "top" }, /** @type {Record<string, unknown>} */ (raw));
        }
      },
      onDisconnect: () => {
        if (channel) this.#close(mapKey, channel, "the document went away");
      },
    });
    if (!port) return null;
    channel = { port, waiting };
    this.#add(mapKey, channel);
    return channel;
  }

  /**
   * A message on a channel: a reply to one of its own requests, or an event.
   * @param {Channel} channel
   * @param {{tabId: number, key: string}} source
   * @param {Record<string, unknown>} data
   */
  #receive(channel, source, data) {
    if (typeof data.id === "number") {
      const entry = channel.waiting.get(data.id);
      if (!entry) return; // not ours, or forgotten (aborted)
      channel.waiting.delete(data.id);
      entry.resolve(data.reply);
      return;
    }
    const event = /** @type {{type?: unknown} | null} */ (typeof data.event === "object" ? data.event : null);
    const listener = event && typeof event.type === "string" ? this.#events.get(event.type) : undefined;
    listener?.(source);
  }

  /**
   * Keep `channel` under `mapKey` (replacing an older port of the same document), then trim.
   * @param {string} mapKey
   * @param {Channel} channel
   */
  #add(mapKey, channel) {
    const older = this.#channels.get(mapKey);
    if (older && older !== channel) {
      // One port per document: the newer one serves it (a content script's port carries its
      // events). The older one closes once idle; requests already on it still get their replies.
      this.#channels.delete(mapKey);
      if (older.waiting.size === 0) older.port.disconnect();
    }
    this.#channels.set(mapKey, channel);
    for (const [key, open] of this.#channels) {
      if (this.#channels.size <= MAX_PORTS) break;
      open.port.disconnect();
      this.#close(key, open, "channel closed");
    }
  }

  /**
   * Forget a channel and reject what waits on it.
   * @param {string} mapKey
   * @param {Channel} channel
   * @param {string} why
   */
  #close(mapKey, channel, why) {
    if (this.#channels.get(mapKey) === channel) this.#channels.delete(mapKey);
    for (const entry of channel.waiting.values()) entry.reject(new Error(why));
    channel.waiting.clear();
  }
}

/**
 * One message, no port: to the tab's top frame (`key` null), to a document by its documentId
 * (Chromium), or by frame id with the document's token, which the content script checks (Firefox).
 * @param {number} tabId
 * @param {string | null} key
 * @param {{type: string} & Record<string, unknown>} message
 * @returns {Promise<unknown>}
 */
export function sendToDocumentKey(tabId, key, message) {
  if (key === null) return api.sendToTopFrame(tabId, message);
  const byFrame = parseDocumentKey(key);
  if (byFrame) return api.sendToFrame(tabId, byFrame.frameId, { ...message, documentToken: byFrame.token });
  return api.sendToDocument(tabId, key, message);
}

/** @param {AbortSignal} signal @returns {Error} */
function abortError(signal) {
  return signal.reason instanceof Error ? signal.reason : new Error("the request was cancelled");
}

/** @param {number} ms @returns {Error} */
function timeoutError(ms) {
  return new Error(`no answer within ${ms} ms`);
}

/**
 * @param {Promise<unknown>} promise
 * @param {number | undefined} ms
 * @returns {Promise<unknown>} `promise`, or a rejection once `ms` have passed first
 */
function raceTimeout(promise, ms) {
  if (ms === undefined) return promise;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError(ms)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/**
 * @param {Promise<unknown>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<unknown>}
 */
function raceSignal(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
