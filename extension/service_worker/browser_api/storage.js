// browser_api part: storage: the user's settings (chrome.storage.local; the popup and the options
// page write them, main.js follows them), the connection status (chrome.storage.session; the
// popup reads it) and the session flags.

import { SETTINGS_KEY as SETTINGS_STORAGE_KEY } from "../settings.js";

/** @typedef {import("../../protocol.js").ConnectionStatus} ConnectionStatus */
/** @typedef {import("../settings.js").Settings} Settings */

/**
 * The user's settings as stored (normalize them with settings.js `normalizeSettings`).
 * @returns {Promise<unknown>}
 */
export async function readSettings() {
  const stored = await chrome.storage.local.get(SETTINGS_STORAGE_KEY);
  return stored[SETTINGS_STORAGE_KEY];
}

/**
 * Store `settings` (the popup and the options page write, main.js follows the change).
 * @param {Settings} settings
 * @returns {Promise<void>}
 */
export function writeSettings(settings) {
  return chrome.storage.local.set({ [SETTINGS_STORAGE_KEY]: settings });
}

/** @param {(raw: unknown) => void} listener called with the new stored settings */
export function onSettingsChanged(listener) {
  chrome.storage.local.onChanged.addListener((changes) => {
    if (SETTINGS_STORAGE_KEY in changes) listener(changes[SETTINGS_STORAGE_KEY].newValue);
  });
}

/**
 * @param {ConnectionStatus} status
 * @returns {Promise<void>}
 */
export function writeStatus(status) {
  return chrome.storage.session.set({ status });
}

/** @returns {Promise<ConnectionStatus | undefined>} */
export async function readStatus() {
  const { status } = await chrome.storage.session.get("status");
  return /** @type {ConnectionStatus | undefined} */ (status);
}

/** @param {(status: ConnectionStatus | undefined) => void} listener */
export function onStatusChanged(listener) {
  chrome.storage.session.onChanged.addListener((changes) => {
    if ("status" in changes) listener(/** @type {ConnectionStatus | undefined} */ (changes.status.newValue));
  });
}

/**
 * @param {string} key
 * @returns {Promise<boolean>} whether `key` is set in chrome.storage.session (cleared when the
 *   extension is reloaded, updated, disabled or the browser restarts; kept across worker restarts)
 */
export async function readSessionFlag(key) {
  const stored = await chrome.storage.session.get(key);
  return stored[key] === true;
}

/** @param {string} key set `key` in chrome.storage.session @returns {Promise<void>} */
export function writeSessionFlag(key) {
  return chrome.storage.session.set({ [key]: true });
}
