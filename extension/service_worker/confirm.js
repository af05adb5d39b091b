// The confirmation prompt in the worker (design.md §5 "User control"; settings.js confirmConsequential):
// wires confirm_gate.js (pure) to the browser. page_tool_router.js calls confirmCall() before it
// runs a page tool; main.js hands `tools.cancel` to cancelConfirmation() first.
//
//   confirmCall ──► ConfirmGate.ask ──► chrome.windows.create(popup, confirm/confirm.html?key=K)
//   confirm page ── Port "confirm:K" ──► {type:"view"} back; {type:"answer", allow} in
//   port disconnect, window closed, tab closed or navigated, tools.cancel, the deadline ──► the gate ends it
//
// Only our own confirm page can answer: the Port must come from that extension page (checked in
// browser_api.js onOwnPagePort), and it must name the unguessable key the window was opened with.

import * as api from "./browser_api.js";
import { ConfirmGate, isConsequential, promptTimeoutMs, refusalText } from "./confirm_gate.js";
import { RequestError } from "./native_port.js";
import { normalizeSettings } from "./settings.js";
import { ERROR_CODES } from "../protocol.js";

/** @typedef {import("./confirm_gate.js").Decision} Decision */

const PAGE = "confirm/confirm.html";
const PORT_PREFIX = "confirm:";
/** The prompt window's size, in CSS px. */
const WINDOW_SIZE = Object.freeze({ width: 480, height: 440 });

export const gate = new ConfirmGate({
  enabled: async () => normalizeSettings(await api.readSettings()).confirmConsequential,
  open: (key, _view) => api.openPopupWindow(`${PAGE}?key=${encodeURIComponent(key)}`, WINDOW_SIZE),
  close: (windowId) => api.closeWindow(windowId),
  newKey: () => crypto.randomUUID(),
});

// Listeners at the top level (main.js imports this module through page_tool_router.js).
api.onOwnPagePort(PAGE, PORT_PREFIX, (key, port) => {
  const view = gate.view(key);
  if (!view) {
    port.postMessage({ type: "gone" }); // decided already (timeout, cancel): the page closes itself
    port.disconnect();
    return;
  }
  port.onMessage.addListener((message) => {
    const { type, allow } = /** @type {{type?: unknown, allow?: unknown}} */ (message ?? {});
    if (type === "answer" && typeof allow === "boolean") gate.answer(key, allow);
  });
  port.onDisconnect.addListener(() => gate.portClosed(key));
  port.postMessage({ type: "view", view });
});
api.onWindowRemoved((windowId) => gate.windowClosed(windowId));
api.onTabRemoved((tabId) => gate.tabGone(tabId));
api.onTabLoading((tabId) => gate.tabGone(tabId)); // navigated: the tool asked about has gone

/**
 * Ask the user before a consequential page tool runs (when the setting is on).
 * @param {import("../protocol.js").NativeMessage} message  the `tools.call` {id, name, input, deadlineMs?}
 * @param {number} tabId
 * @param {import("./page_tools.js").TabTools} tabTools  what the tab reported
 * @returns {Promise<{ok: false, error: string} | undefined>} undefined: run the tool; else the
 *   reply to send instead. Throws RequestError page_gone when the tab closed or navigated during
 *   the prompt.
 */
export async function confirmCall(message, tabId, tabTools) {
  const { id, name, input, deadlineMs } = /** @type {Record<string, unknown>} */ (message);
  const tool = tabTools.tools.find((t) => t.name === name);
  if (!tool || !isConsequential(tool)) return undefined; // the common case: no I/O at all
  const pageTitle = (await api.getTab(tabId))?.title ?? "";
  // A cross-origin frame's tool is that frame's: the prompt names it, and the top page as its host.
  const frameOf = tool.origin && tool.origin !== tabTools.origin ? tabTools.origin : undefined;
  const origin = frameOf ? /** @type {string} */ (tool.origin) : tabTools.origin;
  const decision = await gate.ask({ callId: String(id), tabId, tool, origin, frameOf, pageTitle, input, deadlineMs });
  if (decision === "allow") return undefined;
  if (decision === "gone") throw new RequestError(ERROR_CODES.pageGone, "the page closed or navigated during the confirmation");
  return { ok: false, error: refusalText(decision, promptTimeoutMs(deadlineMs)) };
}

/**
 * `tools.cancel {callId}`: when that call waits for the user, close its prompt.
 * @param {import("../protocol.js").NativeMessage} message
 * @returns {{cancelled: true} | undefined} undefined when no prompt was open for the call
 */
export function cancelConfirmation(message) {
  const { callId } = /** @type {Record<string, unknown>} */ (message);
  return typeof callId === "string" && gate.cancel(callId) ? { cancelled: true } : undefined;
}
