// webctx confirmation prompt (an extension page, ES module): shows one consequential page-tool
// call and sends the user's Allow / Deny to the service worker (service_worker/confirm.js).
//
//   ?key=K ── chrome.runtime.connect({name: "confirm:K"}) ──► worker
//   worker ── {type: "view", view} ──► render (textContent only: page strings are never HTML)
//   Allow / Deny ── {type: "answer", allow} ──► worker, which closes this window
//   closing the window disconnects the port: the worker counts it as declined

/** @typedef {import("../service_worker/confirm_gate.js").PromptView} PromptView */

const key = new URLSearchParams(location.search).get("key") ?? "";
const port = chrome.runtime.connect({ name: `confirm:${key}` });

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** @param {PromptView} view */
function render(view) {
  byId("page-title").textContent = view.pageTitle || "(untitled page)";
  byId("origin").textContent = view.origin;
  byId("tool-name").textContent = view.toolName;
  byId("description").textContent = view.description;
  byId("arguments").textContent = view.argumentsText;
  byId("details").hidden = false;
  const tick = () => {
    const left = Math.max(0, Math.ceil((view.expiresAt - Date.now()) / 1000));
    byId("countdown").textContent = `No answer in ${left} s declines it.`;
  };
  tick();
  setInterval(tick, 1000);
  byId("deny").focus();
}

/** @param {boolean} allow */
function answer(allow) {
  port.postMessage({ type: "answer", allow });
  byId("allow").setAttribute("disabled", "");
  byId("deny").setAttribute("disabled", "");
}

port.onMessage.addListener((message) => {
  const { type, view } = /** @type {{type?: string, view?: PromptView}} */ (message ?? {});
  if (type === "view" && view) render(view);
  else if (type === "gone") {
    byId("gone").hidden = false;
    window.close();
  }
});
byId("allow").addEventListener("click", () => answer(true));
byId("deny").addEventListener("click", () => answer(false));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") answer(false);
});
