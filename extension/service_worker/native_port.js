// The native messaging port to webctx.native_host (design.md §4, docs/internals/protocol.md).
//
// connect → hello (w-<n>) → result {instance, protocol, version} → "connected" (with
// `versionMismatch` when the two sides' versions differ: `versionMismatch`); host requests go to `onRequest`;
// replies are routed to pending requests by id; `chunk` frames are reassembled first (chunks.js);
// a dropped port is retried with backoff. The status the popup shows goes to
// chrome.storage.session, with the command that fixes a dropped port (`fixFor`).

import * as api from "./browser_api.js";
import { installName } from "./browser_identity.js";
import { ChunkGroups } from "./chunks.js";
import { ACTIVITY, CHUNK, ERROR, ERROR_CODES, HELLO, NATIVE_HOST_NAME, PROTOCOL_VERSION, PROVIDER_READY, RESULT } from "../protocol.js";
import { UPDATE_EXTENSION_FIX, UPDATE_HOST_FIX } from "../wire.js";

/** @typedef {import("../protocol.js").NativeMessage} NativeMessage */
/** @typedef {import("../protocol.js").HelloResult} HelloResult */
/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */
/** @typedef {import("./browser_identity.js").BrowserIdentity} BrowserIdentity */

/** How long the host may take to answer hello (it answers before its slow imports). */
export const HELLO_TIMEOUT_MS = 5000;
/** Reconnect backoff (docs/internals/protocol.md): 0.5 s, doubling, capped at 30 s … */
export const RECONNECT_INITIAL_MS = 500;
export const RECONNECT_MAX_MS = 30_000;
/** … and back to 0.5 s after a connection that stayed up this long. */
export const STABLE_CONNECTION_MS = 10_000;

/**
 * The fix to show beside a dropped port's chrome.runtime.lastError.message. Messages as Chromium
 * 156 words them.
 */
const FIXES = [
  { error: "Specified native messaging host not found.", fix: "install" },
  { error: "Access to the specified native messaging host is forbidden.", fix: "install" },
  { error: "Native host has exited.", fix: "doctor" },
  { error: "Error when communicating with the native messaging host.", fix: "doctor" },
];

/**
 * The command that fixes a dropped port: `webctx install` when the browser cannot find or may not
 * start the host, else `webctx doctor`, which checks every link of the chain (design.md §6).
 * @param {string} error chrome.runtime.lastError.message
 * @param {string} browserName
 * @returns {string}
 */
export function fixFor(error, browserName) {
  const known = FIXES.find((entry) => entry.error === error);
  if (!known || known.fix === "doctor") return "webctx doctor";
  return `webctx install --browser ${installName(browserName)}`;
}

export { UPDATE_EXTENSION_FIX, UPDATE_HOST_FIX };

/**
 * The leading numbers of a version ("0.2.7rc1" → [0, 2, 7]), for ordering.
 * @param {string} version
 * @returns {number[]}
 */
function release(version) {
  /** @type {number[]} */
  const numbers = [];
  for (const part of version.split(".")) {
    const digits = /^\d+/.exec(part)?.[0];
    if (!digits) break;
    numbers.push(Number(digits));
    if (digits.length !== part.length) break;
  }
  return numbers;
}

/** @param {number[]} a @param {number[]} b @returns {number} <0, 0, >0 as a sorts before, with, after b */
function compareRelease(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? -1) - (b[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Whether this extension and the native host that answered hello disagree: the
 * protocol's major.minor differ, or both webctx versions are known and differ (extension and host
 * ship together, one release). The same rule and words as native_host/protocol/version.py
 * `version_mismatch`, which the host logs and `webctx doctor` reports.
 * @param {{version: string, protocol: string}} extension  this extension (manifest version, PROTOCOL_VERSION)
 * @param {{version?: string, protocol?: string}} host  the hello reply's `version` and `protocol`
 * @returns {import("../protocol.js").VersionMismatch | undefined}
 */
export function versionMismatch(extension, host) {
  const hostProtocol = typeof host.protocol === "string" ? host.protocol : "?";
  const hostVersion = typeof host.version === "string" ? host.version : undefined;
  const majorMinor = (/** @type {string} */ v) => release(v).slice(0, 2).join(".");
  const ours = release(hostProtocol).length >= 2 ? majorMinor(hostProtocol) : undefined;
  const sameProtocol = ours !== undefined && majorMinor(extension.protocol) === ours;
  const sameVersion = hostVersion === undefined || hostVersion === extension.version;
  if (sameProtocol && sameVersion) return undefined;
  const byVersion = hostVersion !== undefined ? compareRelease(release(extension.version), release(hostVersion)) : 0;
  const olderExtension = byVersion !== 0 ? byVersion < 0 : compareRelease(release(extension.protocol), release(hostProtocol)) < 0;
  const fix = olderExtension ? UPDATE_EXTENSION_FIX : UPDATE_HOST_FIX;
  const message =
    `The extension is webctx ${extension.version} (protocol ${extension.protocol}) but the native host is ` +
    `webctx ${hostVersion ?? "?"} (protocol ${hostProtocol}): ${fix}.`;
  return {
    extension: { version: extension.version, protocol: extension.protocol },
    host: hostVersion === undefined ? { protocol: hostProtocol } : { version: hostVersion, protocol: hostProtocol },
    update: olderExtension ? "extension" : "native host",
    message,
  };
}

/** An error a request handler throws to answer with a specific `error.code`. */
export class RequestError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * @typedef {object} NativePortOptions
 * @property {(message: NativeMessage) => Promise<unknown>} onRequest  answers a host request;
 *   resolves to the `result`, or throws (a RequestError carries its code)
 * @property {() => void} onConnect   a new port: a new native host process, a new instance
 * @property {(instance: string) => void} onInstance   the hello reply named the instance
 * @property {(entry: unknown) => void} [onActivity]   an `activity` event: a desktop host read
 *   through MCP (`entry` unchecked: activity.js checks it)
 */

/**
 * @typedef {object} Pending
 * @property {(value: unknown) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {ReturnType<typeof setTimeout>} timer
 */

export class NativePort {
  /** @param {NativePortOptions} options */
  constructor(options) {
    this.options = options;
  }

  /** @type {import("./browser_api.js").NativePortHandle | null} */ #port = null;
  /** @type {BrowserIdentity} */ #browser = { name: "Chromium", version: "", userAgent: "" };
  #nextId = 1;
  /** @type {Map<string, Pending>} */ #pending = new Map();
  #chunks = new ChunkGroups();
  #connectedAt = 0;
  #retryMs = RECONNECT_INITIAL_MS;
  #stopped = true;
  /** The connected host's instance and MCP port, for the status (reset per port). */
  #instance = "";
  /** @type {number | undefined} */ #instancePort;
  /** true while our host stands by and `#instancePort` is the browser's provider's (another profile's host) */
  #viaProvider = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ #retryTimer;

  /**
   * Connect now and keep reconnecting while the port drops.
   * @param {BrowserIdentity} browser what hello says about the browser
   */
  start(browser) {
    this.#browser = browser;
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#retryMs = RECONNECT_INITIAL_MS;
    this.#connect();
  }

  /**
   * The user switched the provider off (design.md §3): close the port and stay closed until `start`.
   * The native host sees stdin EOF, removes its descriptor and closes its MCP port.
   */
  stop() {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    const port = this.#port;
    this.#port = null;
    port?.disconnect(); // our own disconnect() fires no onDisconnect
    this.#failPending();
    void this.#setStatus({ state: "off" });
  }

  #failPending() {
    for (const [, pending] of this.#pending) {
      clearTimeout(pending.timer);
      pending.reject(new RequestError(ERROR_CODES.portClosed, "the native port closed"));
    }
    this.#pending.clear();
    this.#chunks.clear();
  }

  /**
   * Send a request to the host and wait for its reply.
   * @param {string} type
   * @param {Record<string, unknown>} body
   * @param {number} deadlineMs
   * @returns {Promise<unknown>} the `result`; rejects with a RequestError on `error` or deadline
   */
  request(type, body, deadlineMs) {
    const id = `w-${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new RequestError(ERROR_CODES.deadlineExceeded, `${type} got no reply within ${deadlineMs} ms`));
      }, deadlineMs);
      this.#pending.set(id, { resolve, reject, timer });
      if (!this.#send({ ...body, type, id })) {
        clearTimeout(timer);
        this.#pending.delete(id);
        reject(new RequestError(ERROR_CODES.portClosed, "the native port is not connected"));
      }
    });
  }

  /**
   * Send an event (a message without an id; no reply), e.g. `tools.changed`.
   * @param {string} type
   * @param {Record<string, unknown>} body
   * @returns {boolean} false when there is no port or the browser refused the message
   */
  notify(type, body) {
    return this.#send({ ...body, type });
  }

  /** @returns {boolean} whether the port is open and hello has named the instance */
  get connected() {
    return this.#port !== null && this.#helloDone;
  }

  #helloDone = false;
  /** @type {import("../protocol.js").VersionMismatch | undefined} the last hello reply's, if any */
  #mismatch = undefined;

  #connect() {
    this.#connectedAt = Date.now();
    this.#instance = "";
    this.#instancePort = undefined;
    this.#viaProvider = false;
    this.#helloDone = false;
    this.#mismatch = undefined;
    this.options.onConnect();
    void this.#setStatus({ state: "connecting" });
    const port = api.connectNative(
      NATIVE_HOST_NAME,
      (message) => this.#onMessage(message),
      (error) => this.#onDisconnect(port, error),
    );
    this.#port = port;
    void this.#hello(port);
  }

  /** @param {import("./browser_api.js").NativePortHandle} port the port this hello is for */
  async #hello(port) {
    const extension = api.extensionInfo();
    try {
      const result = /** @type {Partial<HelloResult> | null} */ (
        await this.request(
          HELLO,
          { protocol: PROTOCOL_VERSION, extension, browser: this.#browser, settings: { enabled: true } },
          HELLO_TIMEOUT_MS,
        )
      );
      if (typeof result?.instance !== "string") throw new Error("the hello reply names no instance");
      this.#helloDone = true;
      this.options.onInstance(result.instance);
      this.#instance = result.instance;
      this.#mismatch = versionMismatch(
        { version: extension.version, protocol: PROTOCOL_VERSION },
        { version: result.version, protocol: result.protocol },
      );
      await this.#setStatus(this.#connectedStatus(result.instance));
      console.info("webctx: connected to the native host, protocol %s", result.protocol);
      if (this.#mismatch) console.warn("webctx: version mismatch: %s", this.#mismatch.message);
    } catch (error) {
      if (this.#port !== port) return; // the port dropped; onDisconnect already reported why
      const message = error instanceof Error ? error.message : String(error);
      console.warn("webctx: hello failed: %s", message);
      port.disconnect(); // our own disconnect() fires no onDisconnect, so report the drop here
      this.#onDisconnect(port, `The native host did not complete hello: ${message}`);
    }
  }

  /**
   * @param {import("./browser_api.js").NativePortHandle} port
   * @param {string | null} error
   */
  #onDisconnect(port, error) {
    if (this.#port !== port || this.#stopped) return;
    this.#port = null;
    this.#failPending();

    if (Date.now() - this.#connectedAt >= STABLE_CONNECTION_MS) this.#retryMs = RECONNECT_INITIAL_MS;
    const delayMs = this.#retryMs;
    this.#retryMs = Math.min(this.#retryMs * 2, RECONNECT_MAX_MS);
    const reason = error ?? "The native host closed the connection.";
    console.warn("webctx: native port closed (%s); retrying in %d ms", reason, delayMs);
    void this.#setStatus({ state: "disconnected", error: reason, fix: fixFor(reason, this.#browser.name), retryAt: Date.now() + delayMs });
    // The worker may be stopped before this fires (no port keeps it alive); the next event that
    // starts it connects again from main.js.
    this.#retryTimer = setTimeout(() => this.#connect(), delayMs);
  }

  /** @param {unknown} raw */
  #onMessage(raw) {
    if (typeof raw !== "object" || raw === null || typeof (/** @type {any} */ (raw).type) !== "string") {
      console.warn("webctx: dropped a native message without a type");
      return;
    }
    const message = /** @type {NativeMessage} */ (raw);
    switch (message.type) {
      case RESULT:
      case ERROR:
        this.#settle(message);
        return;
      case CHUNK: {
        // A completed group is handled as if it had arrived whole.
        const completed = this.#chunks.add(message);
        if (completed) this.#onMessage(completed.whole);
        return;
      }
      case PROVIDER_READY:
        void this.#onProviderReady(message);
        return;
      case ACTIVITY: // an event (no id): who read what, for the popup and the badge (activity.js)
        this.options.onActivity?.(message.entry);
        return;
      default:
        void this.#answer(message);
    }
  }

  /**
   * `provider.ready {port, viaProvider?}`: the popup shows the port; with `viaProvider`, our host
   * stands by and the port is the browser's provider's (another profile's host, docs/internals/protocol.md).
   * @param {NativeMessage} message
   */
  async #onProviderReady(message) {
    const { port } = message;
    if (typeof port !== "number" || !Number.isInteger(port) || this.#stopped) return;
    this.#instancePort = port;
    this.#viaProvider = message.viaProvider === true;
    if (this.#instance) await this.#setStatus(this.#connectedStatus(this.#instance));
  }

  /**
   * The "connected" status for `instance`, with the port and how we reach it once known.
   * @param {string} instance
   * @returns {Omit<ConnectionStatus, "at">}
   */
  #connectedStatus(instance) {
    /** @type {Omit<ConnectionStatus, "at">} */
    const status = { state: "connected", instance, port: this.#instancePort };
    if (this.#viaProvider) status.viaProvider = true;
    if (this.#mismatch) status.versionMismatch = this.#mismatch;
    return status;
  }

  /** @param {NativeMessage} message a `result` or `error` */
  #settle(message) {
    const pending = typeof message.id === "string" ? this.#pending.get(message.id) : undefined;
    if (!pending || message.id === undefined) {
      console.warn("webctx: dropped a %s for unknown request %s", message.type, String(message.id));
      return;
    }
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.type === RESULT) {
      pending.resolve(message.result);
    } else {
      const error = /** @type {{code?: unknown, message?: unknown}} */ (message.error ?? {});
      pending.reject(new RequestError(String(error.code ?? "error"), String(error.message ?? "")));
    }
  }

  /**
   * Answer a host request through `onRequest`; a request without an id gets no answer.
   * @param {NativeMessage} message
   */
  async #answer(message) {
    const { id, type } = message;
    if (typeof id !== "string") {
      console.warn("webctx: dropped a %s without an id", type);
      return;
    }
    try {
      const result = await this.options.onRequest(message);
      if (this.#send({ type: RESULT, id, result }) || !this.#port) return;
      // Posting failed with the port still up: the result is over 64 MiB. Say so instead.
      this.#send({ type: ERROR, id, error: { code: ERROR_CODES.internalError, message: "the result is too large to send" } });
    } catch (error) {
      const code = error instanceof RequestError ? error.code : ERROR_CODES.internalError;
      const text = error instanceof Error ? error.message : String(error);
      if (!(error instanceof RequestError)) console.error("webctx: %s %s failed", type, id, error);
      this.#send({ type: ERROR, id, error: { code, message: text } });
    }
  }

  /**
   * @param {Record<string, unknown>} message
   * @returns {boolean} false when there is no port or the browser refused the message
   */
  #send(message) {
    if (!this.#port) return false;
    try {
      this.#port.post(message);
      return true;
    } catch (error) {
      // Above 64 MiB postMessage throws and the port stays up.
      console.warn("webctx: could not post %s: %s", message.type, error instanceof Error ? error.message : error);
      return false;
    }
  }

  /**
   * Add facts to the "connected" status (e.g. `pagesWithTools` after a `current`); ignored otherwise.
   * @param {Partial<Omit<ConnectionStatus, "state" | "at">>} fields
   */
  async noteStatus(fields) {
    if (this.#lastStatus.state !== "connected") return;
    // Written only when a fact changes: `current` runs every 500 ms while the popup is open, and
    // each write re-renders the popup and re-applies the toolbar look.
    const last = /** @type {Record<string, unknown>} */ (this.#lastStatus);
    if (Object.entries(fields).every(([key, value]) => last[key] === value)) return;
    await this.#setStatus({ ...this.#lastStatus, ...fields });
  }

  /** @type {Omit<ConnectionStatus, "at">} */ #lastStatus = { state: "connecting" };

  /** @param {Omit<ConnectionStatus, "at">} status */
  async #setStatus(status) {
    this.#lastStatus = status;
    try {
      await api.writeStatus({ ...status, at: Date.now() });
    } catch (error) {
      console.warn("webctx: could not store the status", error);
    }
  }
}
