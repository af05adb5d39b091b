// A PDF's text as the Page's Markdown (docs/internals/extension.md "A PDF's text"; design.md §1.3): pure
// string work on what pdf.js's getTextContent gives, page by page, under the same cap as any
// page's text. Imported by offscreen/pdf_text.js (which runs pdf.js) and node-tested
// (extension/test/pdf_markdown.test.js).
//
//   # <the PDF's title>            (its metadata Title, when it has one)
//
//   ## Page 1 of 3
//
//   <page 1's text, one line per line of the PDF>
//
//   ## Page 2 of 3
//   …
//
// A page mark is a Markdown heading, so a reader (or a model) can jump to a page and a renderer
// shows where a page starts. Text keeps the PDF's line breaks; `&`, `<`, `>` become entities and
// invisible characters go (content/text_clean.js, as for any page's text: design.md §2.1).

import "../content/text_clean.js";
import "../content/utf8_cap.js";

/** @type {{stripInvisible: (t: string) => string, escapeHtmlText: (t: string) => string}} */
const clean = /** @type {any} */ (globalThis).webctxTextClean;
/** @type {{capUtf8: (text: string, maxBytes: number) => string}} */
const utf8 = /** @type {any} */ (globalThis).webctxUtf8;

/**
 * One item of pdf.js's `TextContent.items`: a run of text (`str`, `hasEOL` when a line ends after
 * it) or a marked-content marker (no `str`), which is skipped.
 * @typedef {{str?: unknown, hasEOL?: unknown}} TextItem
 */

/**
 * A page's text from its text items: runs joined, a line break where pdf.js saw one; spaces at
 * line ends trimmed, runs of blank lines kept to one, invisible characters dropped, HTML escaped.
 * @param {unknown[]} items  pdf.js TextContent.items (page input: anything may be in it)
 * @returns {string} "" for a page without text (a scanned image)
 */
export function pageText(items) {
  let raw = "";
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const { str, hasEOL } = /** @type {TextItem} */ (item);
    if (typeof str === "string") raw += str;
    if (hasEOL === true) raw += "\n";
  }
  const lines = clean.stripInvisible(raw.toWellFormed()).split(/\r\n|\r|\n/).map((line) => line.replace(/[ \t\u00a0]+$/u, ""));
  return clean.escapeHtmlText(lines.join("\n").replace(/\n{3,}/g, "\n\n").trim());
}

/** @param {number} n @param {number} count @returns {string} the mark that opens page `n` */
export function pageMark(n, count) {
  return `## Page ${n} of ${count}`;
}

/** @param {string} text well-formed @returns {number} its UTF-8 length in bytes */
export function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}

/**
 * The Markdown of a PDF, built one page at a time and cut at `maxBytes` of UTF-8: `add` says when
 * the cap is reached, so the reader stops asking pdf.js for more pages.
 */
export class PdfMarkdown {
  /** @type {string[]} */ #parts = [];
  #bytes = 0;
  /** UTF-8 bytes made, the cut part of the last block included. */
  #made = 0;
  #maxBytes;
  #pageCount;
  #pagesWithText = 0;
  #truncated = false;

  /**
   * @param {number} pageCount  the PDF's number of pages
   * @param {number} maxBytes   the cap of the Markdown, UTF-8 bytes
   * @param {string} [title]    the PDF's metadata Title ("" or absent: none)
   */
  constructor(pageCount, maxBytes, title = "") {
    this.#pageCount = pageCount;
    this.#maxBytes = maxBytes;
    const heading = clean.escapeHtmlText(clean.stripInvisible(title.toWellFormed()).replace(/\s+/g, " ").trim()).slice(0, 1024);
    if (heading) this.#push(`# ${heading}\n\n`);
  }

  /**
   * Add page `n` (1-based, in order) with its text items.
   * @param {number} n
   * @param {unknown[]} items
   * @returns {boolean} true while more pages fit; false once the cap is reached (then `truncated`)
   */
  add(n, items) {
    const text = pageText(items);
    if (text) this.#pagesWithText += 1;
    const block = `${pageMark(n, this.#pageCount)}\n\n${text ? `${text}\n\n` : ""}`;
    return this.#push(block);
  }

  /** Mark the text as cut short (the time ran out before the last page). */
  stop() {
    this.#truncated = true;
  }

  /** @param {string} block @returns {boolean} whether more fits */
  #push(block) {
    if (this.#truncated) return false;
    const size = utf8Bytes(block);
    this.#made += size;
    if (this.#bytes + size > this.#maxBytes) {
      this.#parts.push(utf8.capUtf8(block, this.#maxBytes - this.#bytes));
      this.#bytes = this.#maxBytes;
      this.#truncated = true;
      return false;
    }
    this.#parts.push(block);
    this.#bytes += size;
    return true;
  }

  /**
   * @returns {{markdown: string, truncated: boolean, bytes: number, pagesWithText: number}}
   *   `bytes`: the Markdown's UTF-8 length as far as it was made, before the cut (pages after a cut
   *   are not read: a cut text's `bytes` counts the pages read, the cut one whole)
   */
  result() {
    const markdown = this.#parts.join("").replace(/\n+$/, "\n");
    return { markdown, truncated: this.#truncated, bytes: this.#truncated ? Math.max(utf8Bytes(markdown), this.#made) : utf8Bytes(markdown), pagesWithText: this.#pagesWithText };
  }
}
