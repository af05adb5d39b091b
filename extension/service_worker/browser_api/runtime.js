// browser_api part: the runtime: the native messaging port, this extension's id and version, the
// browser's brands, whether the user allowed it in incognito, and the toolbar badge's text (the read flash).

/**
 * A connected native port, reduced to what native_port.js needs.
 * @typedef {object} NativePortHandle
 * @property {(message: object) => void} post      throws if the message exceeds 64 MiB
 * @property {() => void} disconnect
 */

/**
 * Open the native messaging port. `onDisconnect` receives chrome.runtime.lastError.message (the
 * reason the browser gives, e.g. "Specified native messaging host not found."), or null.
 * @param {string} name
 * @param {(message: unknown) => void} onMessage
 * @param {(error: string | null) => void} onDisconnect
 * @returns {NativePortHandle}
 */
export function connectNative(name, onMessage, onDisconnect) {
  const port = chrome.runtime.connectNative(name);
  port.onMessage.addListener((message) => onMessage(message));
  port.onDisconnect.addListener(() => onDisconnect(chrome.runtime.lastError?.message ?? null));
  return {
    post: (message) => port.postMessage(message),
    disconnect: () => port.disconnect(),
  };
}

/** @param {string} path extension-relative @returns {string} that file's chrome-extension:// address */
export function ownPageUrl(path) {
  return chrome.runtime.getURL(path);
}

/** @returns {{id: string, version: string}} this extension's id and version */
export function extensionInfo() {
  return { id: chrome.runtime.id, version: chrome.runtime.getManifest().version };
}

/**
 * The browser's brands with full versions (User-Agent Client Hints) and its UA string.
 * @returns {Promise<{brands: {brand: string, version: string}[], userAgent: string}>}
 */
export async function browserBrands() {
  const userAgent = navigator.userAgent;
  /** @type {{getHighEntropyValues?: (hints: string[]) => Promise<{fullVersionList?: {brand: string, version: string}[]}>} | undefined} */
  const uaData = /** @type {any} */ (navigator).userAgentData;
  try {
    const values = await uaData?.getHighEntropyValues?.(["fullVersionList"]);
    return { brands: values?.fullVersionList ?? [], userAgent };
  } catch {
    return { brands: [], userAgent };
  }
}

/** @returns {Promise<boolean>} whether the user allowed this extension in incognito (chrome://extensions) */
export function allowedInIncognito() {
  return chrome.extension.isAllowedIncognitoAccess();
}

/**
 * The toolbar badge's text ("" for none), on every tab (chrome.action.setBadgeText): the read
 * flash (activity.js readBadgeFlasher); the state's own badge is set with the rest of its look
 * (action.js setActionLook). Never throws.
 * @param {string} text
 * @returns {Promise<void>}
 */
export async function setActionBadgeText(text) {
  try {
    await chrome.action.setBadgeText({ text });
  } catch (error) {
    console.warn("webctx: could not set the badge text", error);
  }
}
