// The UTF-8 cap on text (design.md §2 "Small content", "valid Unicode"): one rule in one place for the
// two worlds that cut text. It is both a classic script and an ES module (no import or export; it
// only sets `globalThis.webctxUtf8`):
//   - the service worker's service_worker/text_limits.js imports it for that effect and re-exports
//     `capUtf8` (the tree's selected and field text);
//   - the page-text extraction injects it, as a classic script, before content/page_text.js (the
//     page's Markdown is cut in the page, so a huge page never crosses to the worker whole).
//   - the content scripts load it before content/webmcp_bridge.js (manifest.json): a page tool's
//     result is measured in bytes there (`jsonTextOver`), where a too-large one would be dropped.
// Re-injection is harmless (it only replaces the frozen object with an equal one). Node-tested:
// extension/test/utf8_cap.test.js.

(function () {
  /**
   * Cut well-formed `text` to at most `maxBytes` bytes of UTF-8, on a code-point boundary: never
   * half of a surrogate pair.
   * @param {string} text must be well-formed (no lone surrogates: `String.prototype.toWellFormed`)
   * @param {number} maxBytes
   * @returns {string}
   */
  function capUtf8(text, maxBytes) {
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
   * The length of `text` in UTF-8 bytes once well-formed: a lone surrogate counts as the 3 bytes of
   * the U+FFFD that replaces it. Walks the string; allocates nothing (no TextEncoder copy of a
   * page-sized string).
   * @param {string} text
   * @returns {number}
   */
  function utf8Length(text) {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit < 0x80) bytes += 1;
      else if (unit < 0x800) bytes += 2;
      else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          bytes += 4;
          i++;
        } else bytes += 3;
      } else bytes += 3;
    }
    return bytes;
  }

  /**
   * Whether `text`, written as a JSON string (quotes and escapes included, as it crosses a port
   * or the native-messaging pipe), takes more than `maxBytes` bytes of UTF-8. Short text is
   * answered without a walk (a code unit takes at most 6 bytes: `\u0001`).
   * @param {string} text
   * @param {number} maxBytes
   * @returns {boolean}
   */
  function jsonTextOver(text, maxBytes) {
    if (text.length * 6 + 2 <= maxBytes) return false;
    if (text.length > maxBytes) return true;
    return utf8Length(JSON.stringify(text)) > maxBytes;
  }

  /** @type {any} */ (globalThis).webctxUtf8 = Object.freeze({ capUtf8, utf8Length, jsonTextOver });
})();
