// webctx popup (an extension page, ES module): shows the native port's status.
//
//   chrome.storage.session "status" (written by service_worker/native_port.js)
//        │ readStatus() + onStatusChanged()
//        ▼
//   render(): state, the dropped port's chrome.runtime.lastError.message, the fixing command

import { onStatusChanged, readStatus } from "../service_worker/browser_api.js";

/** @typedef {import("../protocol.js").ConnectionStatus} ConnectionStatus */

const LABELS = { connecting: "connecting…", connected: "connected", disconnected: "not connected" };

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** @param {ConnectionStatus | undefined} status */
function render(status) {
  const state = byId("state");
  state.textContent = status ? LABELS[status.state] : "not started";
  state.dataset.state = status?.state ?? "";
  const error = byId("error");
  error.hidden = !status?.error;
  error.textContent = status?.error ?? "";
  byId("fix").hidden = !status?.fix;
  byId("fix-command").textContent = status?.fix ?? "";
}

onStatusChanged(render);
readStatus().then(render, () => render(undefined));
