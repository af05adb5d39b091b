// The arguments of a call as the confirmation prompt shows them (confirm_gate.js builds the view,
// confirm/confirm.js draws it). Pure (node tests: extension/test/prompt_arguments.test.js).
//
// The prompt must never hide part of what it asks about: every key is shown with its value, each
// value cut on its own (and the cut said), whitespace runs shown as a count, invisible characters
// counted, nested objects as indented keys. When the arguments cannot all be shown within the
// bounds below (too many keys, nested too deep), the view says so and the prompt offers no Allow:
// a cut that hid a recipient or an amount is what the bounds exist to prevent.
//
//   {"memo": "Thanks" + 2,100 spaces, "to": "X", "amount": 9999}
//     ──► rows: memo "Thanks[2,100 spaces]" · to "X" · amount 9999

import { BREAKS, HIDDEN } from "./display_text.js";

/** Most rows (keys and array items, at every depth) one prompt shows; more: no Allow. */
export const MAX_ARGUMENT_ROWS = 40;
/** Deepest nesting shown (top-level keys are depth 0); deeper: no Allow. */
export const MAX_ARGUMENT_DEPTH = 4;
/** A value is cut to this many characters (after whitespace runs are counted), the cut said. */
export const MAX_VALUE_CHARS = 300;
/** A key is cut to this many characters, the cut said. */
export const MAX_KEY_CHARS = 80;

/**
 * One line of the prompt's arguments.
 * @typedef {object} ArgumentRow
 * @property {number} depth   0 for a top-level key
 * @property {string} key     the key (or `[i]` for an array item), made visible and cut
 * @property {string} value   the value as shown: `"text"`, `9999`, `true`, `null`, `{}`/`[]` when
 *   empty, "" for a non-empty object or array (its keys follow, one deeper)
 * @property {string} [note]  what was cut, e.g. "… (2,140 more characters)"
 */

/**
 * The arguments as the prompt shows them.
 * @typedef {object} ArgumentsView
 * @property {ArgumentRow[]} rows   every key when `complete`; empty when not
 * @property {boolean} complete     false: they cannot all be shown, and the prompt offers no Allow
 * @property {string} [problem]     why not, in words ending with what to do
 */

const GROUPING = new Intl.NumberFormat("en-US");

/**
 * `text` with each run of whitespace other than one plain space shown as a count ("[2,100
 * spaces]", "[line break]") and each run of invisible characters counted ("[3 invisible
 * characters]"): padding cannot push what follows out of view, nor can hidden characters pass
 * unseen.
 * @param {string} text
 * @returns {string}
 */
export function revealText(text) {
  const blanks = /(?:[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]|[\t\n\v\f\r\u0085\u2028\u2029])+/gu;
  return text
    .replace(blanks, (run) => {
      if (run === " ") return run;
      const breaks = (run.match(BREAKS) ?? []).join("").length;
      const spaces = [...run].length;
      if (breaks === spaces) return breaks === 1 ? "[line break]" : `[${GROUPING.format(breaks)} line breaks]`;
      return `[${GROUPING.format(spaces)} ${breaks > 0 ? "blank characters" : "spaces"}]`;
    })
    .replace(new RegExp(`(?:${HIDDEN.source})+`, "gu"), (run) => {
      const n = [...run].length;
      return n === 1 ? "[1 invisible character]" : `[${GROUPING.format(n)} invisible characters]`;
    });
}

/**
 * A key as shown: revealText, and when it holds anything but printable ASCII (or a run of spaces)
 * its code points beside it, each non-ASCII one and each space as `\u{…}`: "аmount" (Cyrillic а) reads "аmount (\u{430}mount)",
 * so it cannot pass for the real "amount" next to it, whatever the script or font.
 * @param {string} key
 * @returns {string}
 */
export function shownKey(key) {
  const shown = revealText(key);
  if (shown === key && /^[\x20-\x7e]*$/.test(key)) return shown;
  return `${shown} (${escaped(key)})`;
}

/**
 * `text` with every code point but printable ASCII other than a space written `\u{hex}`.
 * @param {string} text
 * @returns {string}
 */
function escaped(text) {
  return [...text].map((c) => (/[\x21-\x7e]/.test(c) ? c : `\\u{${/** @type {number} */ (c.codePointAt(0)).toString(16)}}`)).join("");
}

/**
 * The words of a string value that mix Latin letters with Cyrillic or Greek ones ("pаypal" with a
 * Cyrillic а: it reads as "paypal"), escaped; none for words of one script ("café", "Москва").
 * @param {string} text
 * @returns {string[]}
 */
function mixedScriptWords(text) {
  const words = text.match(/[\p{L}\p{M}]+/gu) ?? [];
  return words
    .filter((w) => /\p{Script=Latin}/u.test(w) && /[\p{Script=Cyrillic}\p{Script=Greek}]/u.test(w))
    .map(escaped);
}

/**
 * `text` cut to `max` code points; `note` says how many were left out.
 * @param {string} text
 * @param {number} max
 * @returns {{text: string, note?: string}}
 */
function cutShown(text, max) {
  const points = [...text];
  if (points.length <= max) return { text };
  const more = points.length - max;
  return { text: `${points.slice(0, max).join("")}…`, note: `… (${GROUPING.format(more)} more character${more === 1 ? "" : "s"})` };
}

/**
 * A scalar as shown: strings in quotes (so "9999" and 9999 differ), others as JSON.
 * @param {unknown} value
 * @returns {string}
 */
function scalarText(value) {
  if (typeof value === "string") return `"${revealText(value)}"`;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return `(${typeof value})`; // not from JSON: the worker got the arguments as JSON, so never seen
}

/**
 * The arguments of a call as rows, or why they cannot all be shown.
 * @param {unknown} input  the call's arguments (a JSON object; anything else shows as no arguments)
 * @returns {ArgumentsView}
 */
export function argumentsView(input) {
  /** @type {ArgumentRow[]} */
  const rows = [];
  const root = typeof input === "object" && input !== null ? input : {};
  /** @type {string | undefined} */
  let problem;
  /**
   * @param {object} container
   * @param {number} depth
   * @returns {boolean} false once a bound is passed
   */
  const walk = (container, depth) => {
    const entries = Array.isArray(container) ? container.map((v, i) => [`[${i}]`, v]) : Object.entries(container);
    for (const [rawKey, value] of entries) {
      if (rows.length >= MAX_ARGUMENT_ROWS) {
        problem = `The arguments have more than ${MAX_ARGUMENT_ROWS} keys and values: the prompt cannot show them all, so it does not offer Allow. Deny it, and ask the AI host for a call with fewer arguments.`;
        return false;
      }
      const key = cutShown(shownKey(String(rawKey)), MAX_KEY_CHARS);
      /** @type {ArgumentRow} */
      const row = { depth, key: key.text, value: "" };
      const nested = typeof value === "object" && value !== null;
      if (nested && Object.keys(value).length === 0) row.value = Array.isArray(value) ? "[]" : "{}";
      else if (!nested) {
        const shown = cutShown(scalarText(value), MAX_VALUE_CHARS);
        row.value = shown.text;
        if (shown.note) row.note = shown.note;
        const mixed = typeof value === "string" ? mixedScriptWords(value).slice(0, 3) : [];
        if (mixed.length > 0) row.note = `${row.note ? `${row.note}; ` : ""}mixed scripts: ${mixed.join(" ")}`;
      }
      if (key.note) row.note = row.note ? `key ${key.note}; value ${row.note}` : `key ${key.note}`;
      rows.push(row);
      if (nested && row.value === "") {
        if (depth + 1 > MAX_ARGUMENT_DEPTH) {
          problem = `The arguments are nested more than ${MAX_ARGUMENT_DEPTH + 1} levels deep: the prompt cannot show them all, so it does not offer Allow. Deny it, and ask the AI host for a call with flatter arguments.`;
          return false;
        }
        if (!walk(value, depth + 1)) return false;
      }
    }
    return true;
  };
  try {
    if (walk(root, 0)) {
      if (!lookAlike(rows)) return { rows, complete: true };
      problem = "Two of the arguments' keys look the same in the prompt, so it does not offer Allow: it cannot show which is which. Deny it, and ask the AI host for a call whose keys differ.";
    }
  } catch {
    problem = "The arguments cannot be read, so the prompt does not offer Allow. Deny it.";
  }
  return { rows: [], complete: false, problem };
}

/**
 * Whether two keys of one object would be shown as the same text (a key and its cut note): after
 * shownKey only a key that spells out another's shown form, or keys cut alike, can do that.
 * @param {ArgumentRow[]} rows  in walk order
 * @returns {boolean}
 */
function lookAlike(rows) {
  /** @type {Set<string>[]} the keys seen in each open object, by depth */
  const open = [];
  for (const row of rows) {
    open.length = row.depth + 1;
    const seen = (open[row.depth] ??= new Set());
    const text = `${row.key}\n${row.note ?? ""}`;
    if (seen.has(text)) return true;
    seen.add(text);
  }
  return false;
}

/**
 * The rows as plain text, one per line, indented two spaces a level (for logs of tests and for
 * the prompt's copyable text).
 * @param {ArgumentsView} view
 * @returns {string}
 */
export function argumentsText(view) {
  if (!view.complete) return view.problem ?? "";
  if (view.rows.length === 0) return "(no arguments)";
  return view.rows.map((r) => `${"  ".repeat(r.depth)}${r.key}: ${r.value}${r.note ? ` ${r.note}` : ""}`).join("\n");
}
