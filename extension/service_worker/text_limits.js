// Text limits and capping: how long a piece of text in the tree may be, and how it is cut (design.md §2
// "Small content", "valid Unicode"). A leaf among the service worker's modules, so tree.js,
// pointing.js, page_tools.js and selections.js all take the same caps and the same cutting from
// here. The UTF-8 cut itself lives in content/utf8_cap.js (a file that is both a classic script and
// a module), because the page-text extraction (content/page_text.js) cuts with it in the
// page; this module imports it for its effect and re-exports `capUtf8`.
//
//   wellFormed   lone surrogates → U+FFFD (every string the tree shows goes through it)
//   capUtf8      at most N bytes of UTF-8, on a code-point boundary (selected and field text)
//   firstChars   at most N UTF-16 code units from the start, not splitting a surrogate pair
//   lastChars    the same from the end (the context before a selection)
//   jsonTextOver whether text, as a JSON string, passes N bytes of UTF-8 (a page tool's result)

import "../content/utf8_cap.js";
import { MAX_TITLE_CHARS, MAX_URL_CHARS } from "../wire.js";

/** The shared UTF-8 cut (content/utf8_cap.js sets it on the global when imported). */
const utf8 = /** @type {{capUtf8: (text: string, maxBytes: number) => string, jsonTextOver: (text: string, maxBytes: number) => boolean}} */ (
  /** @type {any} */ (globalThis).webctxUtf8
);

/** Cap on a selection's text, in bytes of UTF-8 (design.md §2 "Small content"). */
export const DEFAULT_MAX_SELECTION_BYTES = 16 * 1024;
/** Cap on `before` / `after`, in UTF-16 code units (design.md §2: "up to ~200 characters"). */
export const MAX_CONTEXT_CHARS = 200;
/** Caps on an element's title and url, in UTF-16 code units (wire.js: the host counts on them). */
export { MAX_TITLE_CHARS, MAX_URL_CHARS };
/** Cap on a Page's `attributes.lang` (<html lang>), in UTF-16 code units. */
export const MAX_LANG_CHARS = 64;

/**
 * Replace lone surrogates with U+FFFD so the text is valid Unicode (design.md §2).
 * @param {string} text
 * @returns {string}
 */
export function wellFormed(text) {
  return typeof text === "string" ? text.toWellFormed() : "";
}

/**
 * Cut well-formed `text` to at most `maxBytes` bytes of UTF-8, on a code-point boundary.
 * @param {string} text must be well-formed (no lone surrogates)
 * @param {number} maxBytes
 * @returns {string}
 */
export function capUtf8(text, maxBytes) {
  return utf8.capUtf8(text, maxBytes);
}

/**
 * Whether `text` written as a JSON string takes more than `maxBytes` bytes of UTF-8.
 * @param {string} text
 * @param {number} maxBytes
 * @returns {boolean}
 */
export function jsonTextOver(text, maxBytes) {
  return utf8.jsonTextOver(text, maxBytes);
}

/**
 * The first `max` code units of `text`, not splitting a surrogate pair.
 * @param {string} text
 * @param {number} max
 * @returns {string}
 */
export function firstChars(text, max) {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * The last `max` code units of `text`, not splitting a surrogate pair.
 * @param {string} text
 * @param {number} max
 * @returns {string}
 */
export function lastChars(text, max) {
  if (text.length <= max) return text;
  const start = text.length - max;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

/** @param {number} unit */
function isHighSurrogate(unit) {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** @param {number} unit */
function isLowSurrogate(unit) {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
