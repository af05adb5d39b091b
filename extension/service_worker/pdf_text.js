// A PDF's text for `page.read` (design.md §1.3; docs/internals/extension.md "A PDF's text"): the tab shows
// a PDF (its top document's contentType is application/pdf, page_read.js asks), so the worker has
// the PDF read again by pdf.js in the offscreen document (offscreen/pdf_text.js: why not here).
//
//   page_read.js ──► PdfTextReader.read(url, maxBytes)
//     ├─ pdfUrlRefusal: only an http(s) or file: address the tab shows
//     ├─ ensureOffscreenDocument (made on the first read; closed OFFSCREEN_IDLE_MS after the last)
//     └─ pdf.text {url, maxBytes, maxPdfBytes: MAX_PDF_BYTES, deadlineMs: PDF_READ_MS} ──► checkedPdfReply
//          ──► {markdown, truncated, bytes, title}, or a RequestError whose sentence says why
//
// The text is never an empty success: a PDF without any text, one behind a password, too big or
// not fetchable is a `read_failed` (a browser without offscreen documents too).

import * as api from "./browser_api.js";
import { RequestError } from "./native_port.js";
import { MAX_TITLE_CHARS, capUtf8, firstChars, wellFormed } from "./text_limits.js";
import { ERROR_CODES, PDF_TEXT } from "../protocol.js";

/** The largest PDF whose text is read, in bytes of the file (32 MiB): pdf.js holds it whole in memory. */
export const MAX_PDF_BYTES = 32 * 1024 * 1024;
/** How long one PDF's fetch and text may take, ms: under the host's 10 s for a page's text
 * (native_host/protocol/native.py PAGE_TEXT_DEADLINE_MS); pages not read by then are cut (`truncated`). */
export const PDF_READ_MS = 8000;
/** The offscreen document closes this long after the last PDF read, ms (it holds pdf.js, ~2 MB). */
export const OFFSCREEN_IDLE_MS = 30_000;
/** The offscreen document, extension-relative. */
export const OFFSCREEN_PATH = "offscreen/pdf_text.html";

/** The schemes whose PDFs are fetched again: the web and local files (what the tab may show). */
const FETCHABLE = /^(https?|file):/i;

/**
 * @typedef {object} PdfText
 * @property {string} markdown  at most maxBytes of UTF-8
 * @property {boolean} truncated
 * @property {number} bytes     the Markdown's UTF-8 length before the cut (pdf_markdown.js: as far as it was read)
 * @property {string} title     the PDF's metadata Title, "" when it has none
 */

/**
 * What PdfTextReader calls, passed in by tests (browser_api.js by default).
 * @typedef {Pick<typeof api, "hasOffscreenApi" | "ensureOffscreenDocument" | "closeOffscreenDocument" | "sendToExtensionPages">} OffscreenApi
 */

/**
 * Why the PDF at `url` is not fetched again, or null when it may be.
 * @param {string} url  the PDF document's address (its frame's location.href)
 * @returns {string | null} a sentence
 */
export function pdfUrlRefusal(url) {
  if (!FETCHABLE.test(url)) return "The PDF's address is not a web or file address, so webctx cannot fetch it again to read its text.";
  return null;
}

/**
 * The offscreen document's answer, checked (it came from a PDF's content): text within the cap,
 * the shapes held, a refusal's reason turned into a RequestError.
 * @param {unknown} reply
 * @param {number} maxBytes
 * @returns {PdfText}
 * @throws {RequestError} read_failed
 */
export function checkedPdfReply(reply, maxBytes) {
  if (typeof reply !== "object" || reply === null) {
    throw new RequestError(ERROR_CODES.readFailed, "The PDF reader gave no answer.");
  }
  const r = /** @type {Record<string, unknown>} */ (reply);
  if (r.ok !== true) {
    const message = typeof r.message === "string" && r.message ? firstChars(wellFormed(r.message), 300) : "The PDF's text could not be read.";
    throw new RequestError(ERROR_CODES.readFailed, message);
  }
  if (typeof r.markdown !== "string") throw new RequestError(ERROR_CODES.readFailed, "The PDF reader answered without text.");
  const whole = wellFormed(r.markdown);
  const markdown = capUtf8(whole, maxBytes);
  const cut = markdown.length < whole.length;
  const bytes = Number.isSafeInteger(r.bytes) && /** @type {number} */ (r.bytes) >= 0 ? /** @type {number} */ (r.bytes) : 0;
  return {
    markdown,
    truncated: r.truncated === true || cut,
    bytes: Math.max(bytes, new TextEncoder().encode(markdown).length),
    title: typeof r.title === "string" ? firstChars(wellFormed(r.title), MAX_TITLE_CHARS) : "",
  };
}

export class PdfTextReader {
  /** @type {OffscreenApi} */ #api;
  #running = 0;
  #idleMs;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ #idle;

  /**
   * @param {OffscreenApi} [offscreen]
   * @param {number} [idleMs]  how long the offscreen document outlives the last read (OFFSCREEN_IDLE_MS)
   */
  constructor(offscreen = api, idleMs = OFFSCREEN_IDLE_MS) {
    this.#api = offscreen;
    this.#idleMs = idleMs;
  }

  /**
   * The text of the PDF at `url`, at most `maxBytes` of Markdown.
   * @param {string} url
   * @param {number} maxBytes  clamped by page_read.js
   * @returns {Promise<PdfText>}
   * @throws {RequestError} read_failed with the reason (address, size, password, no text, …)
   */
  async read(url, maxBytes) {
    const refused = pdfUrlRefusal(url);
    if (refused) throw new RequestError(ERROR_CODES.readFailed, refused);
    if (!this.#api.hasOffscreenApi()) {
      throw new RequestError(ERROR_CODES.readFailed, "This browser cannot read a PDF's text for webctx (it has no offscreen documents).");
    }
    this.#running += 1;
    clearTimeout(this.#idle);
    try {
      await this.#api.ensureOffscreenDocument(OFFSCREEN_PATH, "Reads the text of a PDF the user has open, with pdf.js in a worker, when a desktop host asks for it.");
      const reply = await this.#api.sendToExtensionPages({ type: PDF_TEXT, url, maxBytes, maxPdfBytes: MAX_PDF_BYTES, deadlineMs: PDF_READ_MS });
      return checkedPdfReply(reply, maxBytes);
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw new RequestError(ERROR_CODES.readFailed, `The PDF reader failed: ${firstChars(String(/** @type {any} */ (error)?.message ?? error), 200)}`);
    } finally {
      this.#running -= 1;
      if (this.#running === 0) this.#idle = setTimeout(() => void this.#api.closeOffscreenDocument(), this.#idleMs);
    }
  }
}
