// Requests to one document's content script over a long-lived port (docs/extension.md "Page
// channel"), for `location`: a `chrome.tabs.sendMessage` opens a message channel per call (the
// browser process sets up and tears down a port each time); measured from the worker, its round
// trip is 1.2 ms median against 0.4 ms for a message on a port kept open.
//
//   request(tabId, documentId | null, message)
//     ──► the port for that document (opened on first use by chrome.tabs.connect with
//         {documentId} or {frameId: 0}, name PAGE_CHANNEL_NAME; content/locate.js answers on it)
//     ──► {id, message} … {id, reply}
//   The port closes when the document goes (closed, navigated, put in the back/forward cache,
//   its content script retired): every request waiting on it rejects, as sendMessage would, and
//   the next request opens a new port (for a gone document, that one closes at once: "gone").

import * as api from "./browser_api.js";

/** The port name content/locate.js listens for. */
export const PAGE_CHANNEL_NAME = "webctx.page";

/** Ports kept open at most; the least recently used one is closed first. */
const MAX_PORTS = 32;

/**
 * @typedef {object} Channel
 * @property {import("./browser_api.js").DocumentPortHandle} port
 * @property {Map<number, {resolve: (reply: unknown) => void, reject: (error: Error) => void}>} waiting
 */

/**
 * The browser calls a PageChannels makes (browser_api.js by default; node tests pass fakes).
 * @typedef {object} ChannelDeps
 * @property {typeof api.connectToDocument} connect
 * @property {(tabId: number, documentId: string | null, message: {type: string}) => Promise<unknown>} sendOnce
 */

/** @type {ChannelDeps} */
const BROWSER = {
  connect: (...args) => api.connectToDocument(...args),
  sendOnce: (tabId, documentId, message) =>
    documentId === null ? api.sendToTopFrame(tabId, message) : api.sendToDocument(tabId, documentId, message),
};

export class PageChannels {
  /** @type {ChannelDeps} */
  #deps;
  /** @param {ChannelDeps} [deps] */
  constructor(deps = BROWSER) {
    this.#deps = deps;
  }

  /** Open channels by `${tabId}/${documentId or "top"}`, least recently used first. @type {Map<string, Channel>} */
  #channels = new Map();
  #nextId = 1;

  /**
   * Send `message` to the content script of `documentId` (or of the tab's top frame when null) and
   * resolve with its reply. Rejects when the document cannot be reached or goes meanwhile; the
   * caller bounds the wait (withTimeout).
   * @param {number} tabId
   * @param {string | null} documentId
   * @param {{type: string}} message
   * @returns {Promise<unknown>}
   */
  request(tabId, documentId, message) {
    const key = `${tabId}/${documentId ?? "top"}`;
    let channel = this.#channels.get(key) ?? null;
    if (channel) {
      this.#channels.delete(key); // re-inserted below: most recently used last
    } else {
      channel = this.#open(key, tabId, documentId);
      // No port by documentId in this browser: one message, as before.
      if (!channel) return this.#deps.sendOnce(tabId, documentId, message);
    }
    this.#channels.set(key, channel);
    this.#trim();
    const id = this.#nextId++;
    const open = channel;
    return new Promise((resolve, reject) => {
      open.waiting.set(id, { resolve, reject });
      try {
        open.port.post({ id, message });
      } catch (error) {
        open.waiting.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /**
   * @param {string} key
   * @param {number} tabId
   * @param {string | null} documentId
   * @returns {Channel | null}
   */
  #open(key, tabId, documentId) {
    /** @type {Channel["waiting"]} */
    const waiting = new Map();
    const port = this.#deps.connect(tabId, documentId, PAGE_CHANNEL_NAME, {
      onMessage: (raw) => {
        const { id, reply } = /** @type {{id?: unknown, reply?: unknown}} */ (typeof raw === "object" && raw !== null ? raw : {});
        const entry = typeof id === "number" ? waiting.get(id) : undefined;
        if (!entry || typeof id !== "number") return;
        waiting.delete(id);
        entry.resolve(reply);
      },
      onDisconnect: () => {
        if (this.#channels.get(key)?.waiting === waiting) this.#channels.delete(key);
        for (const entry of waiting.values()) entry.reject(new Error("the document went away"));
        waiting.clear();
      },
    });
    return port ? { port, waiting } : null;
  }

  /** Close the least recently used ports beyond MAX_PORTS. */
  #trim() {
    for (const [key, channel] of this.#channels) {
      if (this.#channels.size <= MAX_PORTS) break;
      this.#channels.delete(key);
      channel.port.disconnect();
      for (const entry of channel.waiting.values()) entry.reject(new Error("channel closed"));
    }
  }
}
