// browser_api part: the offscreen document (chrome.offscreen) that reads a PDF's text
// (service_worker/pdf_text.js, offscreen/pdf_text.js): made on demand, closed when idle, and
// messages to it. Firefox has no chrome.offscreen: `hasOffscreenApi` says so.

/** @returns {boolean} whether this browser can make offscreen documents */
export function hasOffscreenApi() {
  return typeof chrome !== "undefined" && typeof chrome.offscreen?.createDocument === "function";
}

/**
 * Make the offscreen document at `path` (extension-relative) unless one is open; one may be open
 * at a time per extension, and a worker restart forgets it, so the browser is asked.
 * @param {string} path
 * @param {string} justification  what the browser records as the reason
 * @returns {Promise<void>}
 */
export async function ensureOffscreenDocument(path, justification) {
  const url = chrome.runtime.getURL(path);
  const open = await chrome.runtime.getContexts({ contextTypes: [chrome.runtime.ContextType.OFFSCREEN_DOCUMENT], documentUrls: [url] });
  if (open.length > 0) return;
  try {
    await chrome.offscreen.createDocument({ url: path, reasons: [chrome.offscreen.Reason.WORKERS], justification });
  } catch (error) {
    // Two reads at once both found none: the second create fails, the first's document serves it.
    if (!/single offscreen document/i.test(String(/** @type {any} */ (error)?.message ?? error))) throw error;
  }
}

/** Close the offscreen document, if one is open. Never throws. @returns {Promise<void>} */
export async function closeOffscreenDocument() {
  try {
    await chrome.offscreen.closeDocument();
  } catch {
    // none was open
  }
}

/**
 * Send `message` to this extension's pages (the offscreen document answers it) and return the answer.
 * @param {object} message
 * @returns {Promise<unknown>}
 */
export function sendToExtensionPages(message) {
  return chrome.runtime.sendMessage(message);
}
