// webctx popup (an extension page, ES module): the provider switch and the connection status.
//
//   chrome.storage.local "settings" ──► the switch ──(change)──► writeSettings ──► main.js applies it
//   chrome.storage.session "status" (written by service_worker/native_port.js)
//        │ readStatus() + onStatusChanged()
//        ▼
//   render(): describeStatus() → state label, the dropped port's lastError message, the fixing command,
//     a version mismatch between extension and native host with the side to update (#versions)
//   Port "popup" (open while the popup is) ──► the worker refreshes pagesWithTools in the status

import {
  onSettingsChanged,
  onStatusChanged,
  readSettings,
  readStatus,
  writeSettings,
} from "../service_worker/browser_api.js";
import { describeStatus, normalizeSettings } from "../service_worker/settings.js";

/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */
/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @type {ConnectionStatus | undefined} */
let status;
/** @type {Settings} */
let settings = normalizeSettings(undefined);

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

function render() {
  const view = describeStatus(status, settings.enabled);
  /** @type {HTMLInputElement} */ (byId("enabled")).checked = settings.enabled;
  const state = byId("state");
  state.textContent = view.label;
  state.dataset.state = view.state;
  byId("detail").hidden = !view.detail;
  byId("detail").textContent = view.detail;
  byId("fix").hidden = !view.fix;
  byId("fix-command").textContent = view.fix;
  byId("versions").hidden = !view.versions;
  byId("versions").textContent = view.versions;
}

byId("enabled").addEventListener("change", (event) => {
  const enabled = /** @type {HTMLInputElement} */ (event.target).checked;
  settings = { ...settings, enabled };
  render();
  void writeSettings(settings);
});
byId("options").addEventListener("click", (event) => {
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
Promise.all([readStatus(), readSettings()]).then(
  ([stored, raw]) => {
    status = stored;
    settings = normalizeSettings(raw);
    render();
  },
  () => render(),
);
