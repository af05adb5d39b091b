// webctx popup (an extension page, ES module): the entry. One module per section, each owning its
// <section> in popup.html:
//
//   status_section.js  the provider switch, the state in words, the fixing command
//   site_section.js    "This site": Don't share this site / Share this site again
//   (#shared-now-section, #activity-section: what is shared now, who read it)
//
//   chrome.storage.local "settings" ──► every section ──(change)──► writeSettings ──► main.js applies it
//   chrome.storage.session "status" (written by service_worker/native_port.js)
//        │ readStatus() + onStatusChanged()
//        ▼
//   render(): renderStatus (describeStatus; a version mismatch in #versions), renderSite (describeSite)
//   Port "popup" (open while the popup is) ──► the worker refreshes pagesWithTools in the status

import { onSettingsChanged, onStatusChanged, readSettings, readStatus } from "../service_worker/browser_api.js";
import { normalizeSettings } from "../service_worker/settings.js";
import { renderSite, wireSite } from "./site_section.js";
import { renderStatus, wireStatus } from "./status_section.js";
import "./transparency.js"; // "Shared now" and "Who read it": their own sections

/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */
/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @type {ConnectionStatus | undefined} */
let status;
/** @type {Settings} */
let settings = normalizeSettings(undefined);

function render() {
  renderStatus(status, settings);
  renderSite(settings);
}

/** @param {Settings} next what a section is about to store: shown at once */
function changed(next) {
  settings = next;
  render();
}

wireStatus(() => settings, changed);
const siteRead = wireSite(() => settings, changed);
/** @type {HTMLElement} */ (document.getElementById("options")).addEventListener("click", (event) => {
  event.preventDefault();
  void chrome.runtime.openOptionsPage();
});

// While this port is open the worker keeps "N pages with tools" current (service_worker/popup_status.js).
chrome.runtime.connect({ name: "popup" });

onStatusChanged((next) => {
  status = next;
  render();
});
onSettingsChanged((raw) => {
  settings = normalizeSettings(raw);
  render();
});
Promise.all([readStatus(), readSettings(), siteRead]).then(
  ([stored, raw]) => {
    status = stored;
    settings = normalizeSettings(raw);
    render();
    document.body.dataset.ready = "true"; // the screenshots and tests wait for the first full render
  },
  () => render(),
);
