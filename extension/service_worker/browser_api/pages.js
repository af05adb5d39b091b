// browser_api part: pages: messages and ports to and from the content scripts (by tab, frame or
// document), the content scripts' injection into open tabs and the pulled frame reports, the
// page-text extraction's on-demand injection (page_read.js), and the ports this extension's own
// pages open (confirm.js).

import { IS_FIREFOX } from "./engine.js";
import { originOf, viewedPdf } from "../viewer_url.js";

/**
 * A sender's address and origin; in webctx's PDF viewer (its content scripts run there as classic
 * scripts, extension/viewer/viewer.html), the PDF's, so the worker treats it as the PDF's page.
 * @param {chrome.runtime.MessageSender} sender
 * @returns {{url?: string, origin?: string, viewer: boolean}}
 */
function senderSite(sender) {
  const pdf = sender.tab && sender.frameId === 0 ? viewedPdf(sender.url) : null;
  return pdf ? { url: pdf, origin: originOf(pdf), viewer: true } : { url: sender.url, origin: sender.origin, viewer: false };
}

/**
 * Send `message` to the content script in a tab's top frame and return its reply.
 * @param {number} tabId
 * @param {object} message
 * @returns {Promise<unknown>} rejects when no content script answers
 */
export function sendToTopFrame(tabId, message) {
  return chrome.tabs.sendMessage(tabId, message, { frameId: 0 });
}

/**
 * Send `message` to the content script of one frame, whatever document it holds now (Firefox
 * has no documentId; the content script checks a token instead: selections.js `documentKey`).
 * @param {number} tabId
 * @param {number} frameId
 * @param {object} message
 * @returns {Promise<unknown>} rejects when no content script answers
 */
export function sendToFrame(tabId, frameId, message) {
  return chrome.tabs.sendMessage(tabId, message, { frameId });
}

/**
 * Send `message` to the content script of one document (any frame of the tab) and return its
 * reply. Rejects when the document is gone (tab closed, navigated, put in the back/forward cache)
 * or has no content script.
 * @param {number} tabId
 * @param {string} documentId
 * @param {object} message
 * @returns {Promise<unknown>}
 */
export function sendToDocument(tabId, documentId, message) {
  return chrome.tabs.sendMessage(tabId, message, { documentId });
}

/**
 * Every frame's report (content/report.js) in one injection; results name each frame's frameId,
 * documentId and origin (`self.origin` in the isolated world: the document's origin, the
 * creator's for about:blank and srcdoc documents, where `location.origin` says "null" for
 * about:srcdoc; a page cannot redefine it there). Frames without the content scripts give null
 * results.
 * @param {number} tabId
 * @returns {Promise<{frameId: number, documentId: string | undefined, origin: string, result: unknown}[]>}
 */
export async function frameReports(tabId) {
  const results = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    // Runs in the isolated world, which the content scripts share.
    func: () => ({ origin: self.origin, report: /** @type {any} */ (globalThis).__webctx?.report?.() ?? null }),
  });
  return results.map((r) => {
    const { origin, report } = /** @type {{origin?: unknown, report?: unknown} | null} */ (r.result) ?? {};
    return { frameId: r.frameId, documentId: r.documentId, origin: typeof origin === "string" ? origin : "", result: report ?? null };
  });
}

/**
 * Every frame of a tab as it is now: its address, its origin (as in frameReports) and whether it
 * has an area on screen (a 0×0 or display:none frame has none). For the screenshot's check that no
 * excluded frame shows (page_read.js).
 * @param {number} tabId
 * @param {boolean} allFrames  false: the top frame only
 * @returns {Promise<{frameId: number, url: string, origin: string, visible: boolean}[]>}
 */
export async function frameSites(tabId, allFrames) {
  const results = await chrome.scripting.executeScript({
    target: allFrames ? { tabId, allFrames: true } : { tabId, frameIds: [0] },
    func: () => ({ url: location.href, origin: self.origin, visible: innerWidth > 0 && innerHeight > 0 }),
  });
  return results.map((r) => {
    const { url, origin, visible } = /** @type {{url?: unknown, origin?: unknown, visible?: unknown} | null} */ (r.result) ?? {};
    return { frameId: r.frameId, url: typeof url === "string" ? url : "", origin: typeof origin === "string" ? origin : "", visible: visible !== false };
  });
}

/**
 * Inject the manifest's content scripts into every open tab (all frames). Tabs where injection is
 * not allowed (chrome://, the Web Store, …) fail quietly. The scripts guard against running twice.
 * @returns {Promise<void>}
 */
export async function injectContentScriptsIntoOpenTabs() {
  // Each manifest entry keeps its world: the main-world polyfill must not land in the isolated world.
  const entries = (chrome.runtime.getManifest().content_scripts ?? [])
    .map((entry) => ({
      files: entry.js ?? [],
      world: /** @type {chrome.scripting.ExecutionWorld} */ (/** @type {{world?: string}} */ (entry).world === "MAIN" ? "MAIN" : "ISOLATED"),
    }))
    .filter((entry) => entry.files.length > 0)
    // The main world first, as at document_start.
    .sort((a, b) => (a.world === b.world ? 0 : a.world === "MAIN" ? -1 : 1));
  if (entries.length === 0) return;
  const tabs = await chrome.tabs.query({});
  await Promise.all(
    tabs.map(async (tab) => {
      if (tab.id === undefined || tab.incognito) return;
      for (const { files, world } of entries) {
        try {
          await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, files, world });
        } catch {
          // Not injectable (internal page, discarded tab, no access): nothing to report there anyway.
        }
      }
    }),
  );
}

/**
 * Open a port to the content script of `documentId`, or of the tab's top frame when null
 * (chrome.tabs.connect; page_channel.js). `onDisconnect` also runs when nothing answers the
 * connection (no such document, no content script). Null in Firefox (no `documentId` in
 * tabs.connect) or when the browser refuses the options: the caller sends one message instead.
 * @param {number} tabId
 * @param {string | null} documentId
 * @param {string} name
 * @param {{onMessage: (message: unknown) => void, onDisconnect: () => void}} listeners
 * @returns {import("../page_channel.js").PagePort | null}
 */
export function connectToDocument(tabId, documentId, name, listeners) {
  if (IS_FIREFOX) return null;
  let port;
  try {
    port = chrome.tabs.connect(tabId, documentId === null ? { name, frameId: 0 } : { name, documentId });
  } catch {
    return null;
  }
  port.onMessage.addListener((message) => listeners.onMessage(message));
  port.onDisconnect.addListener(() => {
    void chrome.runtime.lastError; // read, so the browser does not log it as unchecked
    listeners.onDisconnect();
  });
  return wrapPort(port);
}

/**
 * @param {chrome.runtime.Port} port
 * @returns {import("../page_channel.js").PagePort}
 */
function wrapPort(port) {
  return {
    post(message) {
      try {
        port.postMessage(message);
        return true;
      } catch {
        return false; // disconnected
      }
    },
    disconnect: () => port.disconnect(),
  };
}

/**
 * A message from one of our content scripts or pages, with what the browser says about its sender.
 * @typedef {object} RuntimeMessageSender
 * @property {number} [tabId]
 * @property {number} [frameId]
 * @property {string} [documentId]
 * @property {string} [url]
 * @property {string} [origin]  the document's origin (the creator's for about:blank and srcdoc)
 * @property {boolean} fromOwnPage   sent by one of this extension's own pages (popup)
 * @property {boolean} incognito
 * @property {boolean} [viewer]  the content scripts of webctx's PDF viewer: `url` and `origin` are the PDF's
 */

/**
 * Listen to chrome.runtime.onMessage. `listener` answers synchronously (or not at all); the
 * worker needs no asynchronous replies on this channel yet.
 * @param {(message: unknown, sender: RuntimeMessageSender) => unknown} listener
 */
export function onRuntimeMessage(listener) {
  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id) return false;
    const reply = listener(message, {
      tabId: sender.tab?.id,
      frameId: sender.frameId,
      documentId: sender.documentId,
      ...senderSite(sender),
      fromOwnPage: sender.tab === undefined && (sender.url ?? "").startsWith(chrome.runtime.getURL("")),
      incognito: sender.tab?.incognito ?? false,
    });
    if (reply !== undefined) sendResponse(reply);
    return false;
  });
}

/**
 * A long-lived port one of this extension's content scripts opened from a tab.
 * @typedef {object} ContentPort
 * @property {RuntimeMessageSender} sender
 * @property {(message: object) => boolean} post  false when the port is gone
 * @property {() => void} disconnect  close it (its onDisconnect listener does not run)
 * @property {(listener: (message: unknown) => void) => void} onMessage
 * @property {(listener: () => void) => void} onDisconnect  the document went away (closed,
 *   navigated, put in the back/forward cache) or the content script closed it
 */

/**
 * Listen to chrome.runtime.onConnect for ports named `name` from this extension's content scripts
 * in tabs (other ports are left alone).
 * @param {string} name
 * @param {(port: ContentPort) => void} listener
 */
export function onContentPort(name, listener) {
  chrome.runtime.onConnect.addListener((port) => {
    const sender = port.sender;
    if (port.name !== name || !sender || sender.id !== chrome.runtime.id || !sender.tab) return;
    listener({
      sender: {
        tabId: sender.tab.id,
        frameId: sender.frameId,
        documentId: sender.documentId,
        ...senderSite(sender),
        fromOwnPage: false,
        incognito: sender.tab.incognito,
      },
      ...wrapPort(port),
      onMessage: (handler) => port.onMessage.addListener((message) => handler(message)),
      onDisconnect: (handler) =>
        port.onDisconnect.addListener(() => {
          void chrome.runtime.lastError;
          handler();
        }),
    });
  });
}

/**
 * Ports opened by this extension's own page `path` (never by a content script: those carry the
 * web page's URL as `sender.url`), named `<prefix><rest>`; `listener` gets `rest` and the port.
 * @param {string} path  e.g. "confirm/confirm.html"
 * @param {string} prefix
 * @param {(rest: string, port: chrome.runtime.Port) => void} listener
 */
export function onOwnPagePort(path, prefix, listener) {
  const pageUrl = chrome.runtime.getURL(path);
  chrome.runtime.onConnect.addListener((port) => {
    const { id, url } = port.sender ?? {};
    const fromPage = id === chrome.runtime.id && (url === pageUrl || (url ?? "").startsWith(`${pageUrl}?`));
    if (!fromPage || !port.name.startsWith(prefix)) return;
    listener(port.name.slice(prefix.length), port);
  });
}

/**
 * Run the classic scripts `files` (extension paths, in order) in the isolated world of a tab's
 * top frame (page_read.js: the page-text extraction, injected on demand, never at page load).
 * @param {number} tabId
 * @param {string[]} files
 * @returns {Promise<void>} rejects with the browser's reason when it refuses (an internal page,
 *   the Web Store, file:// without access, an error page, a closed tab)
 */
export async function injectTopFrameFiles(tabId, files) {
  await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, files });
}

/**
 * Run `func(arg)` in the isolated world of a tab's top frame and return what it returned (after
 * awaiting a promise). Rejects with the browser's reason, or with what `func` threw.
 * @template A, R
 * @param {number} tabId
 * @param {(arg: A) => R} func  serialised: it may use its argument and the page's globals only
 * @param {A} arg  JSON-serialisable
 * @returns {Promise<unknown>}
 */
export async function runInTopFrame(tabId, func, arg) {
  const results = await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func, args: [arg] });
  const first = /** @type {{result?: unknown, error?: unknown} | undefined} */ (results[0]);
  if (!first) throw new Error("the browser returned no result for the top frame");
  // Chromium 120+ reports what the function threw here instead of rejecting (Firefox rejects).
  if (first.error !== undefined) throw new Error(String(/** @type {{message?: unknown}} */ (first.error)?.message ?? first.error));
  return first.result;
}

/**
 * The content-script token (content/report.js), address and origin of every frame's document in
 * a tab, by frameId; a frame without our content script has token "".
 * @param {number} tabId
 * @returns {Promise<{frameId: number, token: string, url: string, origin: string}[]>}
 */
export async function frameTokens(tabId) {
  const results = await chrome.scripting.executeScript({
    target: { tabId, allFrames: true },
    func: () => ({ token: /** @type {any} */ (globalThis).__webctx?.token ?? "", url: location.href, origin: self.origin }),
  });
  return results.map((r) => {
    const { token, url, origin } = /** @type {{token?: unknown, url?: unknown, origin?: unknown} | null} */ (r.result) ?? {};
    const text = (/** @type {unknown} */ value) => (typeof value === "string" ? value : "");
    return { frameId: r.frameId, token: text(token), url: text(url), origin: text(origin) };
  });
}

/**
 * Inject classic script `files`, in order, into the isolated world of one frame of a tab.
 * @param {number} tabId @param {number} frameId @param {string[]} files
 * @returns {Promise<void>}
 */
export async function injectFrameFiles(tabId, frameId, files) {
  await chrome.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, files });
}

/**
 * Run `func(arg)` in the isolated world of one frame of a tab (as runInTopFrame does for frame 0).
 * @template A, R
 * @param {number} tabId @param {number} frameId
 * @param {(arg: A) => R} func @param {A} arg
 * @returns {Promise<unknown>}
 */
export async function runInFrame(tabId, frameId, func, arg) {
  const results = await chrome.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, func, args: [arg] });
  const first = /** @type {{result?: unknown, error?: unknown} | undefined} */ (results[0]);
  if (!first) throw new Error("the browser returned no result for the frame");
  if (first.error !== undefined) throw new Error(String(/** @type {{message?: unknown}} */ (first.error)?.message ?? first.error));
  return first.result;
}
