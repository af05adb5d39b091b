// The popup's "This site" section: "Don't share this site" adds the active page's
// host to the excluded sites at once; "Share this site again" removes every rule that excludes it.
// The settings live in chrome.storage.local, so the choice survives a browser restart, and the
// service worker applies it on storage.onChanged: the page leaves `current` and the page tools at
// once (main.js). Pure wording and list edits in service_worker/settings.js.

import { activeNormalTab, writeSettings } from "../service_worker/browser_api.js";
import { describeSite, excludeSite, shareSiteAgain, siteOf } from "../service_worker/settings.js";

/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** The active page's host ("" until read, or when it is no web site), whether it is incognito or a local file. */
const page = { host: "", incognito: false, localFile: false };

/**
 * Show what the section says for the active page.
 * @param {Settings} settings
 */
export function renderSite(settings) {
  const view = describeSite(page.host, page.incognito, settings, page.localFile);
  byId("site-state").textContent = view.text;
  const button = byId("site-toggle");
  button.hidden = !view.action;
  button.textContent = view.button;
  button.dataset.action = view.action;
}

/**
 * Read the active page, then wire the button.
 * @param {() => Settings} current  the settings as last read
 * @param {(next: Settings) => void} changed  called with the new settings before they are stored
 * @returns {Promise<void>} once the active page is known
 */
export async function wireSite(current, changed) {
  byId("site-toggle").addEventListener("click", () => {
    const settings = current();
    const exclude = byId("site-toggle").dataset.action === "exclude";
    const excludedSites = exclude ? excludeSite(settings.excludedSites, page.host) : shareSiteAgain(settings.excludedSites, page.host);
    const next = { ...settings, excludedSites };
    changed(next);
    byId("site-done").textContent = exclude ? `${page.host} is no longer shared.` : `${page.host} is shared again.`;
    void writeSettings(next);
    byId("site-toggle").focus(); // the button's label changed under the keyboard user: keep focus on it
  });
  const tab = await activeNormalTab();
  page.host = siteOf(tab?.url);
  page.incognito = tab?.incognito ?? false;
  page.localFile = (tab?.url ?? "").startsWith("file:");
}
