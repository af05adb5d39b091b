// What the page text never carries, whatever the page's markup (docs/internals/protocol.md "page.read";
// docs/internals/native-host.md "Threat model", "Hidden page text"): characters the user cannot see, and HTML
// the page only displayed as text. A classic script of the isolated world, injected before
// content/page_text.js (PAGE_TEXT_FILES) and loaded by the manifest for the selection's text
// (content/selection.js); it only sets `globalThis.webctxTextClean`, so a second injection is harmless. Pure string work, node-tested: extension/test/page_text.test.js.

/**
 * What this script sets on `globalThis.webctxTextClean` (the selection scripts read it).
 * @typedef {{stripInvisible: (text: string) => string, escapeHtmlText: (text: string) => string,
 *   firstChars: (text: string, max: number) => string, lastChars: (text: string, max: number) => string}} TextClean
 */

(function () {
  "use strict";

  /**
   * Invisible code points that are dropped wherever they are:
   * - U+E0000–U+E007F tag characters (an invisible copy of ASCII: the classic carrier of hidden
   *   instructions) and U+E0100–U+E01EF variation selectors 17–256 (invisible; data can be smuggled
   *   in runs of them; the rare ideographic variant they select is not worth it);
   * - U+200B zero width space, U+200E/U+200F and U+202A–U+202E and U+2066–U+2069 bidirectional
   *   marks, embeddings, overrides and isolates (they reorder what is shown, not what is read),
   *   U+2060–U+2064 word joiner and invisible operators, U+206A–U+206F deprecated format
   *   controls, U+FEFF zero width no-break space (BOM), U+FFF9–U+FFFB annotation controls,
   *   U+00AD soft hyphen (shown only at a line break; it splits words for a reader), U+061C Arabic
   *   letter mark (a bidi mark too);
   * - letters and symbols that draw nothing: U+115F, U+1160, U+3164, U+FFA0 Hangul fillers, U+180E
   *   Mongolian vowel separator, U+2800 braille blank, U+034F combining grapheme joiner, U+17B4
   *   and U+17B5 Khmer inherent vowels.
   * ZWNJ and ZWJ (U+200C, U+200D) are handled by JOINERS, U+FE00–U+FE0F by VARIATIONS.
   */
  const INVISIBLE =
    /[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u2800\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]/gu;
  /**
   * A run of variation selectors 1–16 (U+FE00–U+FE0F) and what precedes it. Only one U+FE0E/U+FE0F
   * (text/emoji presentation) right after a character that has both (a pictograph or another
   * non-ASCII symbol: ❤️) is kept, or U+FE0F of a keycap (`1️⃣`: a digit, `#` or `*` before U+20E3);
   * every other selector goes (invisible; a run of them can carry data).
   */
  const VARIATIONS = /([\p{Extended_Pictographic}\p{S}0-9#*])?([\uFE00-\uFE0F]+)/gu;
  /**
   * U+200C/U+200D kept only where they join something visible: between two letters (Persian,
   * Indic scripts need them) or, for ZWJ, between two pictographs of an emoji sequence (👩‍💻; a
   * pictograph may carry a variation selector or a skin-tone modifier). Anywhere else dropped.
   */
  const JOINERS =
    /(\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?\u200D)(?=\p{Extended_Pictographic})|([\p{L}\p{M}][\u200C\u200D])(?=[\p{L}\p{M}])|[\u200C\u200D]/gu;

  /**
   * `text` without its invisible characters (INVISIBLE, VARIATIONS that select nothing, and
   * JOINERS that join nothing visible).
   * @param {string} text
   * @returns {string}
   */
  function stripInvisible(text) {
    return text
      .replace(INVISIBLE, "")
      .replace(VARIATIONS, (/** @type {string} */ run, /** @type {string | undefined} */ base, /** @type {string} */ selectors, /** @type {number} */ at) => {
        if (base === undefined) return "";
        const first = /** @type {string} */ (selectors[0]);
        const keycap = /[0-9#*]/.test(base) && first === "\uFE0F" && text[at + run.length] === "\u20E3";
        const presents = base.charCodeAt(0) > 0x7f && (first === "\uFE0E" || first === "\uFE0F");
        return keycap || presents ? base + first : base;
      })
      .replace(JOINERS, (_, emoji, letters) => /** @type {string | undefined} */ (emoji) ?? /** @type {string | undefined} */ (letters) ?? "");
  }

  /** @type {Record<string, string>} */
  const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

  /**
   * `text` with `&`, `<` and `>` written as entities: text a page displayed (`&lt;img&gt;` shows
   * `<img>`) stays text in Markdown, never raw HTML a renderer would run or hide.
   * @param {string} text
   * @returns {string}
   */
  function escapeHtmlText(text) {
    return text.replace(/[&<>]/g, (char) => /** @type {string} */ (ENTITIES[char]));
  }

  /** @param {string} text @param {number} max first `max` code units, not splitting a pair */
  function firstChars(text, max) {
    if (text.length <= max) return text;
    const unit = text.charCodeAt(max - 1);
    return text.slice(0, unit >= 0xd800 && unit <= 0xdbff ? max - 1 : max);
  }

  /** @param {string} text @param {number} max last `max` code units, not splitting a pair */
  function lastChars(text, max) {
    if (text.length <= max) return text;
    const start = text.length - max;
    const unit = text.charCodeAt(start);
    return text.slice(unit >= 0xdc00 && unit <= 0xdfff ? start + 1 : start);
  }

  /** @type {any} */ (globalThis).webctxTextClean = Object.freeze({ stripInvisible, escapeHtmlText, firstChars, lastChars });
})();
