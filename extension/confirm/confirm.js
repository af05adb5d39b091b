// webctx confirmation prompt (an extension page, ES module): shows one consequential page-tool
// call and sends the user's Allow / Deny to the service worker (service_worker/confirm.js).
//
//   ?key=K ── chrome.runtime.connect({name: "confirm:K"}) ──► worker
//   worker ── {type: "view", view} ──► render (textContent only: page strings are never HTML;
//     display_text.js strips and direction-isolates them; every argument is listed, and no Allow
//     is offered when they cannot all be shown)
//   Allow / Deny ── {type: "answer", allow} ──► worker, which closes this window
//   closing the window disconnects the port: the worker counts it as declined

import { showIsolated } from "../service_worker/display_text.js";

/** @typedef {import("../service_worker/confirm_gate.js").PromptView} PromptView */
/** @typedef {import("../service_worker/prompt_arguments.js").ArgumentsView} ArgumentsView */

const key = new URLSearchParams(location.search).get("key") ?? "";
const port = chrome.runtime.connect({ name: `confirm:${key}` });

/** @param {string} id @returns {HTMLElement} */
function byId(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * One `<li>` per argument row, indented by depth; key, value and any cut note each isolated.
 * @param {ArgumentsView} args
 */
function renderArguments(args) {
  const list = byId("arguments");
  const items = args.rows.map((row) => {
    const li = document.createElement("li");
    li.dataset.key = row.key;
    li.style.paddingInlineStart = `${row.depth * 1.5}em`;
    const key = document.createElement("bdi");
    key.className = "key";
    showIsolated(key, row.key);
    const value = document.createElement("bdi");
    value.className = "value";
    showIsolated(value, row.value);
    li.append(key, ": ", value);
    if (row.note) {
      const note = document.createElement("span");
      note.className = "note";
      note.textContent = ` ${row.note}`;
      li.append(note);
    }
    return li;
  });
  if (args.complete && items.length === 0) {
    const li = document.createElement("li");
    li.textContent = "(no arguments)";
    items.push(li);
  }
  list.replaceChildren(...items);
  list.hidden = !args.complete;
  const incomplete = byId("incomplete");
  incomplete.textContent = args.problem ?? "";
  incomplete.hidden = args.complete;
  // Nothing to allow that the user cannot see: the button is not there at all.
  byId("allow").hidden = !args.complete;
  if (!args.complete) byId("allow").setAttribute("disabled", "");
}

/** @param {PromptView} view */
function render(view) {
  showIsolated(byId("page-title"), view.pageTitle || "(untitled page)");
  showIsolated(byId("origin"), view.origin);
  byId("frame-of").hidden = !view.frameOf;
  showIsolated(byId("top-origin"), view.frameOf ?? "");
  showIsolated(byId("tool-name"), view.toolName);
  showIsolated(byId("description"), view.description);
  renderArguments(view.arguments);
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
