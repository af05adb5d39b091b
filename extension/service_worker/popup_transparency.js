// The popup's "Shared now" and "Who read it": what a desktop host would get
// from `current` right now, and the last reads, kept up to date while the popup is open.
//
//   popup/popup.js ── chrome.runtime.connect({name: "transparency"}) ── {windowId} ──► serveTransparency
//     └─ now, every TRANSPARENCY_REFRESH_MS and after each read, until the port closes:
//        tree() (current.js: the very build `current` answers from; no second tree) + the feed
//        ──► {type: "transparency", now, root, windowElementId, never, activity}
//            ──► popup/shared_now.js, popup/activity.js
//
// The Port carries the tree the host may read anyway (the popup is this extension's own page,
// browser_api.js onOwnPagePort); nothing of it is stored.

import * as api from "./browser_api.js";

/** How often the shown tree is rebuilt while the popup is open, in ms. */
export const TRANSPARENCY_REFRESH_MS = 500;

/**
 * What `current` leaves out whatever the page (design.md §2 "Never reported"), for the popup to say.
 * @typedef {object} NeverShared
 * @property {number} excludedSites  how many entries the excluded-sites list has
 * @property {boolean} incognito     whether incognito windows are shared (the user's opt-in)
 */

/**
 * @typedef {object} TransparencyDeps
 * @property {() => Promise<import("../protocol.js").Element | null>} tree  the Application element
 *   `current` would answer now; null while the provider is off or not connected
 * @property {(windowId: number) => string | null} windowElementId  the tree's id of browser window
 *   `windowId` (ids.js), or null while there is no instance
 * @property {() => NeverShared} never
 * @property {import("./activity.js").ActivityFeed} feed
 */

/**
 * Serve the popup's "transparency" Port (only our popup page can open it).
 * @param {TransparencyDeps} deps
 */
export function serveTransparency(deps) {
  api.onOwnPagePort("popup/popup.html", "transparency", (_rest, port) => {
    /** @type {number | undefined} */
    let windowId;
    let closed = false;
    let busy = false;
    const send = async () => {
      if (closed || busy) return;
      busy = true;
      try {
        const root = await deps.tree().catch(() => null);
        const windowElementId = root && windowId !== undefined ? deps.windowElementId(windowId) : null;
        if (closed) return;
        port.postMessage({
          type: "transparency",
          now: Date.now(),
          root,
          windowElementId,
          never: deps.never(),
          activity: deps.feed.entries(),
        });
      } finally {
        busy = false;
      }
    };
    port.onMessage.addListener((message) => {
      const id = /** @type {{windowId?: unknown}} */ (message ?? {}).windowId;
      if (typeof id === "number" && Number.isInteger(id)) windowId = id;
      void send();
    });
    const stopFeed = deps.feed.onChange(() => void send());
    const timer = setInterval(() => void send(), TRANSPARENCY_REFRESH_MS);
    port.onDisconnect.addListener(() => {
      closed = true;
      clearInterval(timer);
      stopFeed();
    });
    void send();
  });
}
