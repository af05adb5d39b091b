// How page strings and client names are shown on the extension's own pages (popup, confirmation
// prompt, options): one rule, used by all of them. Pure (node tests: extension/test/display_text.test.js).
//
// A page title, a tool's description or a desktop host's self-declared name is text someone else
// wrote. Characters that are invisible or that move other text (bidi overrides such as U+202E,
// which would show a fake site and reverse the real one) are removed before it is shown; line
// breaks become spaces so a name cannot forge a second line. Each such string is also shown in its
// own direction-isolated element (`<bdi>` or `dir="auto"`, done by the page), so right-to-left
// letters in it cannot reorder the words around it. The same rule on the native host's side:
// native_host/protocol/display_text.py.

/** Characters removed: C0 and C1 controls, the bidi marks, embeddings, overrides and isolates
 * (U+061C, U+200E/F, U+202A–202E, U+2066–2069), zero-width and invisible format characters
 * (U+200B–200D, U+2060–2065, U+206A–206F, U+FEFF, U+180E), characters that draw nothing though
 * they are letters or symbols (U+034F combining grapheme joiner, U+115F/U+1160/U+3164/U+FFA0
 * Hangul fillers, U+17B4/U+17B5 Khmer inherent vowels, U+2800 braille blank) and tag characters
 * (U+E0000–E007F). */
export const HIDDEN =
  /[\u0000-\u001f\u007f-\u009f\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0\u{e0000}-\u{e007f}]/gu;

/** Line and paragraph breaks (they become one space): CR, LF, tab-like controls are in HIDDEN too,
 * but a break between two words must not glue them together. */
export const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/gu;

/**
 * `text` as the extension's pages show it: breaks become a space, HIDDEN characters are removed.
 * @param {unknown} text  anything; a non-string is shown as ""
 * @returns {string}
 */
export function displayText(text) {
  if (typeof text !== "string") return "";
  return text.replace(BREAKS, " ").replace(HIDDEN, "");
}

/**
 * A line of the extension's own words with page strings in it: a plain string is ours, `{page}`
 * someone else's (a title, a client's name), shown through displayText in its own `<bdi>`.
 * @typedef {string | {page: unknown}} TextPart
 */

/**
 * The parts as one string (what the line says; for tests and `data-` attributes).
 * @param {TextPart[]} parts
 * @returns {string}
 */
export function partsText(parts) {
  return parts.map((part) => (typeof part === "string" ? part : displayText(part.page))).join("");
}

/**
 * Replace `element`'s children with `parts`: our words as text, each page string cleaned in a
 * `<bdi dir="auto">`, so its direction cannot reorder the words around it.
 * @param {HTMLElement} element
 * @param {TextPart[]} parts
 */
export function showParts(element, parts) {
  const doc = element.ownerDocument;
  element.replaceChildren(
    ...parts.map((part) => {
      if (typeof part === "string") return doc.createTextNode(part);
      const isolated = doc.createElement("bdi");
      isolated.dir = "auto";
      isolated.textContent = displayText(part.page);
      return isolated;
    }),
  );
}

/**
 * Set `element`'s text to `text` (displayText), isolated: `dir="auto"`, so the page's direction
 * cannot spill over the element's neighbours.
 * @param {HTMLElement} element
 * @param {unknown} text
 */
export function showIsolated(element, text) {
  element.dir = "auto";
  element.textContent = displayText(text);
}
