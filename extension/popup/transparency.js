// The popup's transparency sections: one Port "transparency" to the worker
// (service_worker/popup_transparency.js), which sends the tree `current` would answer now and the
// last reads, now, every 500 ms and after each read; shared_now.js and activity.js render them.
// popup.html holds the containers (#shared-now, #never-shared, #activity).

import { renderSharedNow } from "./shared_now.js";
import { renderActivity } from "./activity.js";

/** @param {string} id @returns {HTMLElement} */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const port = chrome.runtime.connect({ name: "transparency" });
port.onMessage.addListener((raw) => {
  const message = /** @type {any} */ (raw);
  if (message?.type !== "transparency") return;
  renderSharedNow(byId("shared-now"), byId("never-shared"), message);
  renderActivity(byId("activity"), Array.isArray(message.activity) ? message.activity : [], message.now);
});
// This popup's window (the one whose toolbar button opened it), so "Shared now" shows that window.
chrome.windows.getCurrent().then(
  (win) => port.postMessage({ windowId: win.id }),
  () => port.postMessage({}),
);
