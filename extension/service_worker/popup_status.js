// The popup's "N pages with tools", kept true while the popup is open (issue #4, "The extension's
// own UI"). Without this the count came only from the last `current` a desktop host asked, so it
// was stale, or missing, whenever no host had asked lately.
//
//   popup/popup.js ── chrome.runtime.connect({name: "popup"}) ──► servePopupStatus
//     └─ now and every POPUP_REFRESH_MS until the port closes: count() ──► note(n) ──► status

import * as api from "./browser_api.js";

/** How often the count is refreshed while the popup is open, in ms. */
export const POPUP_REFRESH_MS = 500;

/**
 * Serve the popup's Port (only our popup page can open it; browser_api.js onOwnPagePort).
 * @param {() => Promise<number | undefined>} count  the Pages whose page tools are exposed now
 *   (undefined: not connected, nothing to note)
 * @param {(pagesWithTools: number) => void} note  stores it in the status the popup shows
 */
export function servePopupStatus(count, note) {
  api.onOwnPagePort("popup/popup.html", "popup", (_rest, port) => {
    // Compared with the stored status, not with the last note: a reconnect or `provider.ready`
    // rewrites the status without the count.
    const refresh = async () => {
      const n = await count();
      if (n === undefined) return;
      const status = await api.readStatus();
      if (status?.state === "connected" && status.pagesWithTools !== n) note(n);
    };
    void refresh().catch(() => {});
    const timer = setInterval(() => void refresh().catch(() => {}), POPUP_REFRESH_MS);
    port.onDisconnect.addListener(() => clearInterval(timer));
  });
}
