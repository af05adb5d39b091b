// Answers `location` requests from the native host (design.md §1.2, docs/internals/protocol.md "location").
//
//   id ──ids.resolve──► window: chrome.windows bounds (already points)
//                       tab / selection / frame / field / hover:
//                         `location.get` to the element's document on its page channel
//                         (page_channel.js: by documentId, so a navigated document is "gone";
//                         Firefox: by frameId and the document's token, which the content script checks) ──► content/locate.js measures in CSS px;
//                         for a subframe, at the same time, `location.frame` {child token} to every
//                         parent frame on its page channel (its <iframe>'s box; the frame tree
//                         from selections.js `lineage`), and location.js `climb`s the levels;
//                         where the tree is not known, or a parent does not answer, the subframe
//                         climbs instead: every parent frame sends `location.offset` {token}
//                       ──► location.js: × zoom + viewport origin → points, merged lines, state
//
// The reply is {location, windowBounds?}: the host adds `window` (the OS window number) by
// matching windowBounds (points) against the platform's windows (native_host/provider/platform/).

import * as api from "./browser_api.js";
import { RequestError } from "./native_port.js";
import { climb, goneAnswer, isFrameTransform, pageAnswer, windowAnswer } from "./location.js";
import { withTimeout } from "./selections.js";
import { ERROR_CODES, LOCATION_FRAME, LOCATION_GET } from "../protocol.js";
import { ID_PATTERN } from "../wire.js";

/** @typedef {import("./location.js").LocationAnswer} LocationAnswer */
/** @typedef {import("./location.js").Measured} Measured */
/** @typedef {import("./location.js").FrameOffset} FrameOffset */
/** @typedef {import("./ids.js").IdRegistry} IdRegistry */
/** @typedef {import("./tab_model.js").TabModel} TabModel */

/** How long a measurement may take, including its climb through the frames (ms). */
export const MEASURE_TIMEOUT_MS = 1000;


/**
 * @typedef {object} LocationReply
 * @property {LocationAnswer} location
 * @property {{left: number, top: number, width: number, height: number}} [windowBounds]  points:
 *   the outer bounds of the browser window (the top frame's window.screenX/Y, outerWidth/Height,
 *   the same numbers chrome.windows gives)
 */

export class Locator {
  /**
   * Measurements climbing through frames, by token: the parent frames' offsets so far, and a
   * callback run when one more arrives.
   * @type {Map<string, {tabId: number, offsets: FrameOffset[], wake: () => void}>}
   */
  #pending = new Map();
  /** @type {IdRegistry} */
  #ids;
  /** The page channel (page_channel.js): one port per document, shared with the page tools. */
  #channels;
  /** Windows, tabs and zoom factors in memory (tab_model.js). @type {TabModel} */
  #tabs;
  /** Seeds #tabs when it is not (first use, after a worker restart, out of step). @type {() => Promise<void>} */
  #seed;
  /** The parent frames of a document, nearest first (selections.js `lineage`). @type {Lineage} */
  #lineage;
  /** A window's state from the worker's fast window-state poll, or undefined: read it then.
   * @type {(windowId: number) => string | undefined} */
  #polledWindowState;

  /**
   * @param {IdRegistry} ids
   * @param {TabModel} tabs
   * @param {() => Promise<void>} seed
   * @param {import("./page_channel.js").PageChannels} channels
   * @param {Lineage} [lineage] none: every subframe measurement climbs by postMessage
   * @param {(windowId: number) => string | undefined} [polledWindowState] a window's state as a
   *   poll that runs every few ms last read it (headless Chromium: main.js); none, or undefined
   *   for a window: `chrome.windows.get` beside the measurement
   */
  constructor(ids, tabs, seed, channels, lineage = () => null, polledWindowState = () => undefined) {
    this.#lineage = lineage;
    this.#polledWindowState = polledWindowState;
    this.#ids = ids;
    this.#channels = channels;
    this.#tabs = tabs;
    this.#seed = seed;
  }

  /** @param {number} tabId @returns {Promise<number>} the tab's zoom, from the model or asked once */
  async #zoom(tabId) {
    const known = this.#tabs.zoom(tabId);
    if (known !== undefined) return known;
    const zoom = await api.getZoom(tabId);
    this.#tabs.noteZoom(tabId, zoom);
    return zoom;
  }

  /**
   * A parent frame's `location.offset` message (content/locate.js): its <iframe>'s box.
   * @param {{tabId?: number, frameId?: number}} sender
   * @param {unknown} message
   */
  onOffset(sender, message) {
    if (typeof message !== "object" || message === null) return;
    const { token, offset } = /** @type {{token?: unknown, offset?: unknown}} */ (message);
    const waiting = typeof token === "string" ? this.#pending.get(token) : undefined;
    if (!waiting || waiting.tabId !== sender.tabId || !isOffset(offset)) return;
    if (waiting.offsets.length >= 64) return;
    waiting.offsets.push(offset);
    waiting.wake();
  }

  /**
   * Locate the element `elementId` names.
   * @param {unknown} elementId
   * @returns {Promise<LocationReply>}
   * @throws {RequestError} `invalid_id` (malformed) or `unknown_id` (never issued by this instance)
   */
  async locate(elementId) {
    if (typeof elementId !== "string" || !ID_PATTERN.test(elementId)) {
      throw new RequestError(ERROR_CODES.invalidId, `The id does not match ${ID_PATTERN.source}.`);
    }
    if (elementId === "app") return this.#locateApp();
    const target = this.#ids.resolve(elementId);
    if (!target) throw new RequestError(ERROR_CODES.unknownId, "This provider instance never issued that id.");
    if (target.kind === "window") {
      const win = await api.getWindow(target.windowId);
      return win ? { location: windowAnswer(win), windowBounds: bounds(win) } : { location: goneAnswer() };
    }
    // The measurement, the window's state and the zoom are independent: ask for them at once.
    // The window's bounds come with the top frame's metrics (screenX…); minimized is the window's
    // state (headless keeps visibilityState "visible" there) or a hidden document.
    const wanted =
      target.kind === "tab" || target.kind === "document"
        ? { kind: "page" }
        : target.kind === "frame"
          ? { kind: "frame" }
          : { kind: target.kind, key: target.key };
    // The tab and its window come from the model. The window's state (minimize has no event in
    // headless Chromium) comes from the worker's fast poll where it runs, else that one window is
    // read. The tab is looked up again once the page has answered, so a tab closed meanwhile (its
    // onRemoved came first) is "gone".
    const measuring = this.#measure(target.tabId, target.kind === "tab" ? null : target.documentId, wanted);
    // Each call once the model is seeded, the zoom known and the window's state polled: nothing
    // else to wait for (no extra promise hops before the reply; seeding, zoom and the window read
    // still run beside the measurement when they are needed).
    if (!this.#tabs.seeded) await this.#seed();
    const windowId = this.#tabs.tab(target.tabId)?.windowId;
    const polledState = windowId === undefined ? undefined : this.#polledWindowState(windowId);
    const knownZoom = this.#tabs.zoom(target.tabId);
    /** @type {Measured | null} */
    let measured;
    /** @type {number} */
    let zoom;
    /** @type {{id?: number, state?: string, left?: number, top?: number, width?: number, height?: number} | null | undefined} */
    let windowNow;
    if (knownZoom !== undefined && (windowId === undefined || polledState !== undefined)) {
      measured = await measuring;
      zoom = knownZoom;
      windowNow = windowId === undefined ? undefined : { id: windowId, state: polledState };
    } else {
      [measured, zoom, windowNow] = await Promise.all([
        measuring,
        this.#zoom(target.tabId),
        windowId === undefined ? undefined : polledState !== undefined ? { id: windowId, state: polledState } : api.getWindow(windowId),
      ]);
    }
    const tab = this.#tabs.tab(target.tabId);
    if (!tab || tab.windowId === undefined) return { location: goneAnswer() };
    if (!measured) {
      // A tab whose page cannot be asked (discarded, internal) still exists; a document that
      // cannot be reached was navigated away or closed.
      if (target.kind !== "tab") return { location: goneAnswer() };
      const win = windowNow?.id === tab.windowId && "left" in windowNow ? windowNow : await api.getWindow(tab.windowId);
      return { location: { state: "offscreen", rects: [] }, windowBounds: win ? bounds(win) : undefined };
    }
    const m = measured.metrics;
    const windowBounds = m ? { left: m.screenX, top: m.screenY, width: m.outerWidth, height: m.outerHeight } : undefined;
    const tabShown = Boolean(tab.active) && m?.visible !== false && windowNow?.state !== "minimized";
    return { location: pageAnswer(measured, { zoom, tabShown }), windowBounds };
  }

  /** @returns {Promise<LocationReply>} the Application: the bounds of every normal window */
  async #locateApp() {
    // Bounds and state only: no tabs needed (windows.getAll without populate).
    const windows = (await api.allWindowsWithoutTabs()).filter((w) => w.type === "normal" && !w.incognito);
    const rects = windows.map((w) => windowAnswer(w).rects[0]);
    const shown = windows.some((w) => w.state !== "minimized");
    return { location: { state: windows.length === 0 ? "gone" : shown ? "visible" : "offscreen", rects } };
  }

  /**
   * Ask the document (or the tab's top frame when `documentId` is null) to measure `target`.
   * @param {number} tabId
   * @param {string | null} documentId
   * @param {{kind: string, key?: number}} target
   * @returns {Promise<Measured | null>} null when the document cannot be reached
   */
  async #measure(tabId, documentId, target) {
    const parents = documentId === null ? [] : this.#lineage(tabId, documentId);
    if (parents && parents.length > 0) {
      const measured = await this.#measureWithParents(tabId, /** @type {string} */ (documentId), target, parents);
      if (measured !== undefined) return measured;
    } else if (parents) {
      // A top document (the tab's top frame, or a document the frame tree places at the top):
      // nothing to climb, so no token to mint and wait on. One that turns out to be a subframe
      // after all (the tree moved) is asked again, climbing.
      const measured = await this.#measureTop(tabId, documentId, target);
      if (measured !== undefined) return measured;
    }
    return this.#measureClimbing(tabId, documentId, target);
  }

  /**
   * Ask a top document to measure `target`: one request, no climb.
   * @param {number} tabId
   * @param {string | null} documentId
   * @param {{kind: string, key?: number}} target
   * @returns {Promise<Measured | null | undefined>} null: the document cannot be reached;
   *   undefined: it answered from a subframe (climb instead)
   */
  async #measureTop(tabId, documentId, target) {
    let reply;
    try {
      const message = { type: LOCATION_GET, target, token: "", climb: false };
      reply = await this.#channels.request(tabId, documentId, message, { timeoutMs: MEASURE_TIMEOUT_MS });
    } catch {
      return null;
    }
    const measured = measuredOf(reply);
    if (!measured) return null;
    return measured.depth && measured.status === "ok" ? undefined : measured;
  }

  /**
   * A subframe's measurement and every parent frame's <iframe> box, asked at once on their page
   * channels: one page hop instead of a chain of postMessage and runtime messages up the frames.
   * @param {number} tabId
   * @param {string} documentId
   * @param {{kind: string, key?: number}} target
   * @param {{childToken: string, parentKey: string}[]} parents  nearest first, up to the top frame
   * @returns {Promise<Measured | null | undefined>} null: the document cannot be reached;
   *   undefined: a parent answered that it holds no such frame (the tree moved): climb instead.
   *   A parent that cannot be reached in time (no content script) leaves the measurement
   *   unplaced, as in a climb: the document exists, it cannot be placed (`offscreen`).
   */
  async #measureWithParents(tabId, documentId, target, parents) {
    const options = { timeoutMs: MEASURE_TIMEOUT_MS };
    /** @type {Promise<FrameOffset | null | "unreachable">[]} */
    const asking = parents.map(({ childToken, parentKey }) =>
      this.#channels.request(tabId, parentKey, { type: LOCATION_FRAME, child: childToken }, options).then(
        (reply) => {
          const offset = typeof reply === "object" && reply !== null ? /** @type {{offset?: unknown}} */ (reply).offset : null;
          return isOffset(offset) ? offset : null;
        },
        () => "unreachable",
      ),
    );
    let reply;
    try {
      reply = await this.#channels.request(tabId, documentId, { type: LOCATION_GET, target, token: "", climb: false }, options);
    } catch {
      return null;
    }
    const measured = measuredOf(reply);
    if (!measured) return null;
    if (!measured.depth || measured.status !== "ok") return measured; // "gone" needs no placing
    const offsets = await Promise.all(asking);
    if (measured.depth !== parents.length || offsets.includes(null)) return undefined;
    if (offsets.includes("unreachable")) return { status: measured.status, rects: [] };
    return climb(measured, /** @type {FrameOffset[]} */ (offsets)) ?? undefined;
  }

  /**
   * Ask the document to measure; a subframe posts a token up its parents, each of which sends
   * its <iframe>'s offset (`location.offset`, onOffset).
   * @param {number} tabId
   * @param {string | null} documentId
   * @param {{kind: string, key?: number}} target
   * @returns {Promise<Measured | null>} null when the document cannot be reached
   */
  async #measureClimbing(tabId, documentId, target) {
    const token = crypto.randomUUID();
    /** @type {{tabId: number, offsets: FrameOffset[], wake: () => void}} */
    const waiting = { tabId, offsets: [], wake: () => {} };
    this.#pending.set(token, waiting);
    const message = { type: LOCATION_GET, target, token };
    try {
      let reply;
      try {
        reply = await this.#channels.request(tabId, documentId, message, { timeoutMs: MEASURE_TIMEOUT_MS });
      } catch {
        return null;
      }
      const measured = measuredOf(reply);
      if (!measured) return null;
      if (!measured.depth) return measured;
      // A subframe: wait for every parent frame's offset (they arrive in any order).
      /** @type {Promise<Measured>} */
      const composed = new Promise((resolve) => {
        waiting.wake = () => {
          const done = climb(measured, waiting.offsets);
          if (done) resolve(done);
        };
        waiting.wake();
      });
      try {
        return await withTimeout(composed, MEASURE_TIMEOUT_MS);
      } catch {
        // The document answered, but not every parent frame did (one without the content
        // script): it exists, it cannot be placed.
        return { status: measured.status, rects: [] };
      }
    } finally {
      this.#pending.delete(token);
    }
  }
}

/**
 * @callback Lineage
 * @param {number} tabId
 * @param {string} documentKey
 * @returns {{childToken: string, parentKey: string}[] | null}  null: not known
 */

/** @param {unknown} reply a `location.get` reply @returns {Measured | null} */
function measuredOf(reply) {
  if (typeof reply !== "object" || reply === null || !("measured" in reply)) return null;
  const measured = /** @type {Measured} */ (reply.measured);
  return measured && typeof measured === "object" ? measured : null;
}

/** @param {unknown} r */
const isRect = (r) =>
  typeof r === "object" && r !== null && ["x", "y", "w", "h"].every((k) => Number.isFinite(/** @type {any} */ (r)[k]));

/**
 * Shape check of a `location.offset` body (content scripts relay the page: check it).
 * @param {unknown} value
 * @returns {value is FrameOffset}
 */
function isOffset(value) {
  if (typeof value !== "object" || value === null) return false;
  const o = /** @type {Record<string, unknown>} */ (value);
  return (
    Number.isSafeInteger(o.depth) &&
    /** @type {number} */ (o.depth) >= 0 &&
    Number.isFinite(o.dx) &&
    Number.isFinite(o.dy) &&
    isRect(o.content) &&
    isRect(o.viewport) &&
    (o.transform === undefined || isFrameTransform(o.transform))
  );
}

/**
 * @param {{left?: number, top?: number, width?: number, height?: number}} win
 * @returns {{left: number, top: number, width: number, height: number}}
 */
function bounds(win) {
  return { left: win.left ?? 0, top: win.top ?? 0, width: win.width ?? 0, height: win.height ?? 0 };
}
