// The popup's status section: the provider switch and the state in words, with
// the fixing command when it is broken, and whether page text and screenshots may be read.
// Pure wording in service_worker/settings.js describeStatus and describePageReads.

import { writeSettings } from "../service_worker/browser_api.js";
import { describePageReads, describeStatus } from "../service_worker/settings.js";

/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */
/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * Show the status and the switch.
 * @param {ConnectionStatus | undefined} status
 * @param {Settings} settings
 */
export function renderStatus(status, settings) {
  const view = describeStatus(status, settings.enabled);
  /** @type {HTMLInputElement} */ (byId("enabled")).checked = settings.enabled;
  const state = byId("state");
  state.textContent = view.label;
  state.dataset.state = view.state;
  state.dataset.tone = view.tone;
  byId("detail").hidden = !view.detail;
  byId("detail").textContent = view.detail;
  byId("fix").hidden = !view.fix;
  byId("fix-command").textContent = view.fix;
  byId("versions").hidden = !view.versions; // which side to update
  byId("versions").textContent = view.versions;
  // What a desktop host may read on request (the options page's two switches).
  const reads = describePageReads(settings);
  byId("page-reads").hidden = !reads;
  byId("page-reads").textContent = reads;
}

/**
 * Wire the switch: a change stores the settings (main.js applies them).
 * @param {() => Settings} current  the settings as last read
 * @param {(next: Settings) => void} changed  called with the new settings before they are stored
 */
export function wireStatus(current, changed) {
  byId("enabled").addEventListener("change", (event) => {
    const next = { ...current(), enabled: /** @type {HTMLInputElement} */ (event.target).checked };
    changed(next);
    void writeSettings(next);
  });
}
