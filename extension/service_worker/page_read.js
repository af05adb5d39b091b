// `page.read` (design.md §2 "The page on demand"; docs/internals/protocol.md "Page resources (worker
// side)"): a Page's readable text or a screenshot of its visible part, read when a desktop host
// reads the Page's resource_link (tree.js `pageLinks`), never before. Over 400 lines: the
// checks, their refusal sentences and the reads are one contract; the image work is in
// screenshot.js, a PDF's reading in pdf_text.js.
//
//   host page.read {pageId, kind, maxBytes?} ──► PageReader.read
//     ├─ the id (ids.js: Page ids only) ─► the tab now (chrome.tabs.get) ─► refusal(): switches,
//     │  incognito, excluded site, internal page, (screenshot) active tab of a window on screen
//     ├─ text (one at a time per tab): webctxPageText({maxBytes}) in the top frame, PAGE_TEXT_FILES
//     │        injected first where missing (content/page_text.js: Readability + turndown) ─►
//     │        frames of other origins read and merged in (page_frames.js) ─► checkedText (caps, shape);
//     │        a top document that is a PDF (Chromium's viewer) ─► pdf_text.js: the PDF fetched
//     │        again and read by pdf.js, page by page
//     └─ screenshot: captureVisibleTab (paced: 2 a second, screenshot.js CapturePacer; one retry
//              when refused) ─► the tab again (still active, same url, still shared) ─►
//              screenshot.js shrinkScreenshot: longest side ≤ 1600 px, PNG (JPEG above 1.5 MiB), base64
//
// Every refusal is a RequestError with a stable code (protocol.js ERROR_CODES); the host turns it
// into the MCP error a desktop host sees. The pure rules (refusal, clampMaxBytes, checkedText,
// scriptRefusal, isQuotaError) are exported for the node tests.

import * as api from "./browser_api.js";
import { RequestError } from "./native_port.js";
import { isExcluded } from "./settings.js";
import { framesRefusal, notSharedExcluded, notSharedLocalFile } from "./exclusion.js";
import { withFrameTexts } from "./page_frames.js";
import { MAX_TITLE_CHARS, MAX_URL_CHARS, capUtf8, firstChars, wellFormed } from "./text_limits.js";
import { isInternalUrl, tabUrl } from "./tree.js";
import { ERROR_CODES } from "../protocol.js";
import { TEXT_MAX_BYTES } from "../wire.js";
import { CAPTURE_RETRY_MS, CapturePacer, shrinkScreenshot } from "./screenshot.js";
import { PdfTextReader } from "./pdf_text.js";
import { viewedPdf } from "./viewer_url.js";

/** @typedef {import("./screenshot.js").Shrunk} Shrunk */

/** The classic scripts the text extraction injects into the page's top frame, in order: the
 * vendored libraries (extension/vendor/README.md), the UTF-8 cut the worker shares, the secret-field
 * rule the content scripts share (already there in a tab they run in), then the
 * extraction that uses them (content/page_text.js defines webctxPageText). */
export const PAGE_TEXT_FILES = [
  "vendor/readability/Readability.js",
  "vendor/turndown/turndown.js",
  "vendor/turndown-plugin-gfm/turndown-plugin-gfm.js",
  "content/utf8_cap.js",
  "content/secret_fields.js",
  "content/hidden_text.js",
  "content/text_clean.js",
  "content/composed_clone.js",
  "content/page_text.js",
];

/** The cap on the Markdown the host asks for when it names none (its own default), UTF-8 bytes. */
export const DEFAULT_TEXT_BYTES = TEXT_MAX_BYTES;
/** The least and most Markdown the worker extracts, whatever `maxBytes` says (UTF-8 bytes). */
export const MIN_TEXT_BYTES = 1024;
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/**
 * @typedef {object} TextResult
 * @property {"text"} kind
 * @property {string} markdown   at most maxBytes of UTF-8, cut on a code-point boundary
 * @property {boolean} truncated
 * @property {number} bytes      the whole Markdown's UTF-8 length before the cut
 * @property {"readability" | "visible-text" | "pdf"} source  "pdf": a PDF's text (pdf_text.js)
 * @property {string} title
 * @property {string} url
 */

/**
 * @typedef {object} ScreenshotResult
 * @property {"screenshot"} kind
 * @property {"image/png" | "image/jpeg"} mimeType
 * @property {string} data       base64, no `data:` prefix
 * @property {number} width      image px
 * @property {number} height     image px
 * @property {number} devicePixelRatio  captured image px per CSS px of the page (zoom included)
 * @property {number} scale      output px / captured px (≤ 1)
 */

/**
 * What PageReader reads, passed in by main.js (the browser's calls default to browser_api.js).
 * @typedef {object} PageReaderDeps
 * @property {import("./ids.js").IdRegistry} ids
 * @property {() => import("./settings.js").Settings} settings  read at every request (they apply live)
 * @property {Pick<typeof api, "getTab" | "getWindow" | "getZoom" | "injectTopFrameFiles" | "runInTopFrame" | "captureVisibleTab" | "frameSites" | "frameTokens" | "injectFrameFiles" | "runInFrame">} [read]
 * @property {(dataUrl: string) => Promise<Shrunk>} [shrink]  shrinkScreenshot by default
 * @property {(ms: number) => Promise<void>} [wait]  a capture's wait for its turn or its retry
 * @property {() => number} [now]  ms on a monotonic clock (performance.now by default)
 * @property {{read: (url: string, maxBytes: number) => Promise<import("./pdf_text.js").PdfText>}} [pdf]
 *   a PDF's text (pdf_text.js PdfTextReader by default)
 */

export class PageReader {
  /** @type {PageReaderDeps} */ #deps;
  /** @type {NonNullable<PageReaderDeps["read"]>} */ #read;
  /** Every screenshot of this worker goes through one pacer: the browser's quota is per extension. */
  #pacer = new CapturePacer();
  /** @type {NonNullable<PageReaderDeps["pdf"]>} */ #pdf;
  /**
   * Text reads running, by `tabId:maxBytes`: a second read of the same tab waits for the first's
   * answer instead of starting another extraction in the same busy page (a slow page's reads used
   * to pile up there, one per retry).
   * @type {Map<string, Promise<TextResult>>}
   */
  #texts = new Map();

  /** @param {PageReaderDeps} deps */
  constructor(deps) {
    this.#deps = deps;
    this.#read = deps.read ?? api;
    this.#pdf = deps.pdf ?? new PdfTextReader();
  }

  /**
   * Answer `page.read`.
   * @param {Record<string, unknown>} message  `{pageId, kind: "text" | "screenshot", maxBytes?}`
   * @returns {Promise<TextResult | ScreenshotResult>}
   * @throws {RequestError} unknown_page, page_gone, switched_off, not_shared, not_capturable,
   *   read_failed (docs/internals/protocol.md); unknown_type for a kind other than text / screenshot
   */
  async read(message) {
    const { kind } = message;
    if (kind !== "text" && kind !== "screenshot") {
      throw new RequestError(ERROR_CODES.unknownType, `page.read kind must be "text" or "screenshot", not ${JSON.stringify(kind)}.`);
    }
    const tabId = this.#tabOf(message.pageId);
    const tab = await this.#read.getTab(tabId);
    if (!tab) throw new RequestError(ERROR_CODES.pageGone, "The tab was closed.");
    const win = kind === "screenshot" && tab.windowId !== undefined ? await this.#read.getWindow(tab.windowId) : undefined;
    const refused = refusal(kind, tab, win, this.#deps.settings());
    if (refused) throw new RequestError(refused.code, refused.message);
    // webctx's PDF viewer holds no other site's frame (and admits no script to list them).
    const viewed = viewedPdf(tab.url);
    if (viewed === null) await this.#checkFrames(tabId, kind);
    if (kind === "screenshot") return this.#screenshot(/** @type {TabNow} */ (tab));
    const key = `${tabId}:${clampMaxBytes(message.maxBytes)}`;
    let running = this.#texts.get(key);
    if (!running) {
      running = this.#text(tabId, message.maxBytes, viewed).finally(() => this.#texts.delete(key));
      this.#texts.set(key, running);
    }
    return running;
  }

  /**
   * @param {unknown} pageId
   * @returns {number} the browser's tab id
   */
  #tabOf(pageId) {
    const target = typeof pageId === "string" ? this.#deps.ids.resolve(pageId) : undefined;
    if (target?.kind !== "tab") {
      throw new RequestError(ERROR_CODES.unknownPage, "This provider instance never issued that Page id (a Page's id is tab-<n>).");
    }
    return target.tabId;
  }

  /**
   * @param {number} tabId
   * @param {unknown} maxBytes
   * @param {string | null} viewed  the PDF webctx's viewer shows in the tab (viewer_url.js), or null
   * @returns {Promise<TextResult>}
   */
  async #text(tabId, maxBytes, viewed) {
    const cap = clampMaxBytes(maxBytes);
    // webctx's PDF viewer is an extension page no script is injected into: read its PDF directly.
    if (viewed !== null) return this.#checkedNow(tabId, await this.#pdfText(viewed, cap));
    let raw;
    try {
      // Inject the scripts (136 KB) only into a document that does not have them yet: a second
      // read of the same document saves a third of the browser's time (bench/README.md).
      // The isolated world is the extension's own: a page cannot define webctxPageText there.
      // `frames`: the frames of other origins are marked, read in their own documents and
      // merged in where their site is not excluded (page_frames.js).
      raw = await this.#read.runInTopFrame(tabId, extractText, { maxBytes: cap, frames: true });
      if (isMissing(raw)) {
        await this.#read.injectTopFrameFiles(tabId, PAGE_TEXT_FILES);
        raw = await this.#read.runInTopFrame(tabId, extractText, { maxBytes: cap, frames: true });
      }
    } catch (error) {
      throw this.#scriptError(error);
    }
    const pdfUrl = pdfDocumentUrl(raw);
    if (pdfUrl === null) {
      raw = await withFrameTexts(tabId, raw, {
        frameTokens: (id) => this.#read.frameTokens(id),
        readFrame: (id, frameId) => this.#frameText(id, frameId, cap),
        settings: this.#deps.settings(),
        maxBytes: cap,
      });
    }
    const text = pdfUrl === null ? checkedText(raw, cap) : await this.#pdfText(pdfUrl, cap);
    if (!text) {
      const thrown = typeof raw === "object" && raw !== null ? /** @type {{thrown?: unknown}} */ (raw).thrown : undefined;
      const why = typeof thrown === "string" ? `: ${firstChars(wellFormed(thrown), 200)}` : " returned no text result";
      throw new RequestError(ERROR_CODES.readFailed, `The page-text extraction failed${why}.`);
    }
    return this.#checkedNow(tabId, text);
  }

  /**
   * The page may have navigated while it was read: never answer with an excluded or internal page's text.
   * @param {number} tabId @param {TextResult} text
   * @returns {Promise<TextResult>} `text`, its url and title filled in from the tab where missing
   */
  async #checkedNow(tabId, text) {
    const now = await this.#read.getTab(tabId);
    if (!now) throw new RequestError(ERROR_CODES.pageGone, "The tab was closed while its text was read.");
    const refused = refusal("text", now, undefined, this.#deps.settings()) ?? (isExcluded(text.url, this.#deps.settings()) ? notSharedExcluded() : null);
    if (refused) throw new RequestError(refused.code, refused.message);
    if (!text.url) text.url = firstChars(wellFormed(tabUrl(now)), MAX_URL_CHARS);
    if (!text.title) text.title = firstChars(wellFormed(now.title ?? ""), MAX_TITLE_CHARS);
    return text;
  }

  /**
   * One frame's page text (no title heading; its own frames of other origins marked), the files
   * injected first where missing, as for the top frame.
   * @param {number} tabId @param {number} frameId @param {number} cap
   * @returns {Promise<unknown>}
   */
  async #frameText(tabId, frameId, cap) {
    const options = { maxBytes: cap, frames: true, heading: false };
    const raw = await this.#read.runInFrame(tabId, frameId, extractText, options);
    if (!isMissing(raw)) return raw;
    await this.#read.injectFrameFiles(tabId, frameId, PAGE_TEXT_FILES);
    return this.#read.runInFrame(tabId, frameId, extractText, options);
  }

  /**
   * The text of the PDF the tab shows (pdf_text.js), as a TextResult; refused like the tab when the
   * PDF's own address is excluded.
   * @param {string} url  the PDF document's address
   * @param {number} cap
   * @returns {Promise<TextResult>}
   */
  async #pdfText(url, cap) {
    if (isExcluded(url, this.#deps.settings())) {
      const refused = notSharedExcluded();
      throw new RequestError(refused.code, refused.message);
    }
    if (url.startsWith("file:") && !this.#deps.settings().localFiles) {
      const refused = notSharedLocalFile();
      throw new RequestError(refused.code, refused.message);
    }
    const pdf = await this.#pdf.read(url, cap);
    return { kind: "text", markdown: pdf.markdown, truncated: pdf.truncated, bytes: pdf.bytes, source: "pdf", title: pdf.title, url: firstChars(wellFormed(url), MAX_URL_CHARS) };
  }

  /**
   * Refuse a read by the documents' origins as the browser gives them now (the tab's address
   * alone misses an about:blank page an excluded site wrote): text needs the top document
   * shared, a screenshot every frame on screen (an excluded site's iframe in an allowed page).
   * @param {number} tabId
   * @param {"text" | "screenshot"} kind
   * @returns {Promise<void>}
   * @throws {RequestError} not_shared; page_gone, read_failed when the frames cannot be read
   */
  async #checkFrames(tabId, kind) {
    let frames;
    try {
      frames = await this.#read.frameSites(tabId, kind === "screenshot");
    } catch (error) {
      throw this.#scriptError(error);
    }
    const refused = framesRefusal(frames, this.#deps.settings());
    if (refused) throw new RequestError(refused.code, refused.message);
  }

  /** @param {unknown} error what executeScript rejected with @returns {RequestError} */
  #scriptError(error) {
    const reason = error instanceof Error ? error.message : String(error);
    const code = scriptRefusal(reason);
    if (code === ERROR_CODES.pageGone) return new RequestError(code, "The tab was closed.");
    // Chromium's own sentence ("Cannot access contents of url …. Extension manifest must request
    // permission …") would crowd out the fix in the host's 300-character error: say it in ours.
    if (code === ERROR_CODES.notShared) return new RequestError(code, "The browser does not let extensions read this page.");
    if (/showing error page/i.test(reason)) {
      return new RequestError(ERROR_CODES.readFailed, "The tab shows an error page (the page crashed or did not load).");
    }
    return new RequestError(ERROR_CODES.readFailed, `Reading the page's text failed: ${reason}`);
  }

  /**
   * @param {TabNow} tab  checked by refusal: the active tab of a window on screen
   * @returns {Promise<ScreenshotResult>}
   */
  async #screenshot(tab) {
    const windowId = /** @type {number} */ (tab.windowId);
    const zoomed = this.#read.getZoom(/** @type {number} */ (tab.id));
    let dataUrl;
    try {
      dataUrl = await this.#capture(windowId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RequestError(ERROR_CODES.readFailed, `The browser did not capture the tab: ${reason}`);
    }
    // captureVisibleTab takes whatever the window shows now: the tab must still be the active one,
    // at the same address, and still shared, or the image is of something else.
    const now = await this.#read.getTab(/** @type {number} */ (tab.id));
    if (!now) throw new RequestError(ERROR_CODES.pageGone, "The tab was closed while it was captured.");
    if (!now.active || now.windowId !== windowId || tabUrl(now) !== tabUrl(tab)) {
      throw new RequestError(ERROR_CODES.notCapturable, "The tab changed while it was captured (another tab was shown, or it navigated).");
    }
    const refused = refusal("screenshot", now, undefined, this.#deps.settings());
    if (refused) throw new RequestError(refused.code, refused.message);
    await this.#checkFrames(/** @type {number} */ (tab.id), "screenshot"); // what the image holds
    let shrunk;
    try {
      shrunk = await (this.#deps.shrink ?? shrinkScreenshot)(dataUrl);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RequestError(ERROR_CODES.readFailed, `The screenshot could not be scaled: ${reason}`);
    }
    const zoom = await zoomed;
    const cssWidth = (tab.width ?? 0) / (zoom > 0 ? zoom : 1); // tab.width: DIPs; CSS px = DIPs / zoom
    return {
      kind: "screenshot",
      mimeType: shrunk.mimeType,
      data: shrunk.data,
      width: shrunk.width,
      height: shrunk.height,
      devicePixelRatio: cssWidth > 0 ? round4(shrunk.capturedWidth / cssWidth) : 1,
      scale: round4(shrunk.width / shrunk.capturedWidth),
    };
  }

  /**
   * captureVisibleTab when its turn comes (CapturePacer), once more after CAPTURE_RETRY_MS when
   * the browser's quota refused it all the same (a worker restart forgets the last captures).
   * @param {number} windowId
   * @returns {Promise<string>} a data: URL
   */
  async #capture(windowId) {
    const delay = this.#pacer.reserve(this.#deps.now?.() ?? performance.now());
    if (delay === null) {
      throw new Error("more screenshots were asked for at once than the browser allows (2 a second); ask again in a few seconds");
    }
    if (delay > 0) await (this.#deps.wait ?? sleep)(delay);
    try {
      return await this.#read.captureVisibleTab(windowId);
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      await (this.#deps.wait ?? sleep)(CAPTURE_RETRY_MS);
      return this.#read.captureVisibleTab(windowId);
    }
  }
}

/**
 * Runs in the page's isolated world (serialised by executeScript: no closure): the extraction, or
 * what it threw. Chromium 156 answers a function that throws with `result: null` and no error, so
 * the reason would be lost without this catch.
 * @param {{maxBytes: number, frames?: boolean, heading?: boolean}} options
 * @returns {unknown}
 */
function extractText(options) {
  // Chromium's PDF viewer: the document holds no text of the PDF (the viewer draws it elsewhere).
  if (document.contentType === "application/pdf") return { pdf: true, url: location.href };
  if (typeof (/** @type {any} */ (globalThis).webctxPageText) !== "function") return { missing: true };
  try {
    return /** @type {any} */ (globalThis).webctxPageText(options);
  } catch (error) {
    return { thrown: String(/** @type {any} */ (error)?.message ?? error) };
  }
}

/**
 * The PDF's address when extractText found the top document is a PDF, else null.
 * @param {unknown} raw what extractText returned
 * @returns {string | null}
 */
export function pdfDocumentUrl(raw) {
  if (typeof raw !== "object" || raw === null) return null;
  const r = /** @type {{pdf?: unknown, url?: unknown}} */ (raw);
  return r.pdf === true && typeof r.url === "string" ? r.url : null;
}

/**
 * Whether extractText found no `webctxPageText` in the document (the scripts are not injected yet).
 * @param {unknown} raw what extractText returned
 * @returns {boolean}
 */
function isMissing(raw) {
  return typeof raw === "object" && raw !== null && /** @type {{missing?: unknown}} */ (raw).missing === true;
}

/**
 * The tab as chrome.tabs.get gives it (the fields read here).
 * @typedef {{id?: number, windowId?: number, active: boolean, incognito: boolean, url?: string, pendingUrl?: string, title?: string, width?: number, discarded?: boolean}} TabNow
 */

/**
 * Why `page.read` of `kind` may not read `tab` now, or null when it may (design.md §2 "Never
 * reported", "The page on demand"; design16 error codes). In this order: the user's switch, what
 * is never shared (incognito without the opt-in, an excluded site, a browser-internal page), then
 * for a screenshot whether the tab is on screen: the active tab of a normal window that is not
 * minimized (captureVisibleTab captures the active tab; webctx never switches tabs for it).
 * @param {"text" | "screenshot"} kind
 * @param {TabNow} tab
 * @param {{state?: string, type?: string} | undefined} win  the tab's window (screenshots only)
 * @param {{pageText: boolean, screenshots: boolean, incognito: boolean, excludedSites: string[], localFiles: boolean}} settings
 * @returns {{code: string, message: string} | null}
 */
export function refusal(kind, tab, win, settings) {
  if (kind === "text" && !settings.pageText) {
    return { code: ERROR_CODES.switchedOff, message: "Page text is switched off in webctx's options (Settings, \"Page text\")." };
  }
  if (kind === "screenshot" && !settings.screenshots) {
    return { code: ERROR_CODES.switchedOff, message: "Screenshots are switched off in webctx's options (Settings, \"Screenshots\")." };
  }
  if (tab.incognito && !settings.incognito) {
    return { code: ERROR_CODES.notShared, message: "The page is in an incognito window, which webctx does not share (options: \"Report incognito windows too\")." };
  }
  const url = tabUrl(tab);
  if (url.startsWith("file:") && !settings.localFiles) return notSharedLocalFile();
  if (isExcluded(url, settings)) return notSharedExcluded();
  if (isInternalUrl(url)) return { code: ERROR_CODES.notShared, message: "The page is one of the browser's own pages, whose content webctx never shares." };
  if (kind === "screenshot") {
    if (!tab.active) {
      return { code: ERROR_CODES.notCapturable, message: "The page is not the active tab of its window, and only what is on screen can be captured." };
    }
    if (win?.state === "minimized" || (win?.type !== undefined && win.type !== "normal")) {
      return { code: ERROR_CODES.notCapturable, message: "The page's window is minimized, and only what is on screen can be captured." };
    }
  }
  if (tab.discarded) {
    return { code: ERROR_CODES.readFailed, message: "The browser unloaded this tab to save memory (it loads again when the user opens it)." };
  }
  return null;
}


/**
 * The code for an executeScript rejection (Chromium's wording): the tab is gone, or the browser
 * does not let extensions script the page (the Web Store, file:// without access, an error page,
 * a browser page); anything else is a failed read.
 * @param {string} reason
 * @returns {string} an ERROR_CODES value
 */
export function scriptRefusal(reason) {
  if (/^No tab with id/i.test(reason)) return ERROR_CODES.pageGone;
  if (/cannot be scripted|Cannot access|must request permission|Missing host permission/i.test(reason)) {
    return ERROR_CODES.notShared;
  }
  return ERROR_CODES.readFailed;
}

/** @param {unknown} error @returns {boolean} the captureVisibleTab rate limit refused the call */
export function isQuotaError(error) {
  const reason = error instanceof Error ? error.message : String(error);
  return reason.includes("MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND");
}

/**
 * The host's `maxBytes` within [MIN_TEXT_BYTES, MAX_TEXT_BYTES]; DEFAULT_TEXT_BYTES when it is no number.
 * @param {unknown} maxBytes
 * @returns {number} an integer
 */
export function clampMaxBytes(maxBytes) {
  if (typeof maxBytes !== "number" || !Number.isFinite(maxBytes)) return DEFAULT_TEXT_BYTES;
  return Math.min(MAX_TEXT_BYTES, Math.max(MIN_TEXT_BYTES, Math.floor(maxBytes)));
}

/**
 * The extraction's reply, checked: the isolated world is ours, but what it returns comes from the
 * page, so the worker holds it to the cap and the shapes itself.
 * @param {unknown} raw  webctxPageText's return value
 * @param {number} maxBytes  from clampMaxBytes
 * @returns {TextResult | null}  null when it is not a text result at all
 */
export function checkedText(raw, maxBytes) {
  if (typeof raw !== "object" || raw === null) return null;
  const r = /** @type {Record<string, unknown>} */ (raw);
  if (typeof r.markdown !== "string") return null;
  const whole = wellFormed(r.markdown);
  const markdown = capUtf8(whole, maxBytes);
  const cut = markdown.length < whole.length;
  const ownBytes = utf8Length(whole);
  const bytes = Number.isSafeInteger(r.bytes) && /** @type {number} */ (r.bytes) >= ownBytes ? /** @type {number} */ (r.bytes) : ownBytes;
  return {
    kind: "text",
    markdown,
    truncated: r.truncated === true || cut || bytes > utf8Length(markdown),
    bytes,
    source: r.source === "readability" ? "readability" : "visible-text",
    title: typeof r.title === "string" ? firstChars(wellFormed(r.title), MAX_TITLE_CHARS) : "",
    url: typeof r.url === "string" ? firstChars(wellFormed(r.url), MAX_URL_CHARS) : "",
  };
}

/** @param {string} text well-formed @returns {number} its UTF-8 length in bytes */
function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4; // a pair (the text is well-formed): 4 bytes for both units
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** @param {number} value @returns {number} rounded to 4 decimals (no 1.0000000002 on the wire) */
function round4(value) {
  return Math.round(value * 10000) / 10000;
}

/** @param {number} ms @returns {Promise<void>} */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
