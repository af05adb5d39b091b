// Text limits and capping: how long a piece of text in the tree may be, and how it is cut (SPEC §2
// "Small content", "valid Unicode"). A leaf: it imports nothing, so tree.js, pointing.js,
// page_tools.js and selections.js all take the same caps and the same cutting from here.
//
//   wellFormed   lone surrogates → U+FFFD (every string the tree shows goes through it)
//   capUtf8      at most N bytes of UTF-8, on a code-point boundary (selected and field text)
//   firstChars   at most N UTF-16 code units from the start, not splitting a surrogate pair
//   lastChars    the same from the end (the context before a selection)

/** Cap on a selection's text, in bytes of UTF-8 (SPEC §2 "Small content"). */
export const DEFAULT_MAX_SELECTION_BYTES = 16 * 1024;
/** Cap on `before` / `after`, in UTF-16 code units (SPEC §2: "up to ~200 characters"). */
export const MAX_CONTEXT_CHARS = 200;
/** Caps on a tab's title and url, in UTF-16 code units: a data: URL can be megabytes long. */
export const MAX_TITLE_CHARS = 1024;
export const MAX_URL_CHARS = 4096;
/** Cap on a Page's `attributes.lang` (<html lang>), in UTF-16 code units. */
export const MAX_LANG_CHARS = 64;

/**
 * Replace lone surrogates with U+FFFD so the text is valid Unicode (SPEC §2).
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
  // Every UTF-16 code unit encodes to at most 3 bytes, so short strings need no walk.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const cp = /** @type {number} */ (text.codePointAt(i));
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += cp > 0xffff ? 2 : 1;
  }
  return text.slice(0, i);
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
