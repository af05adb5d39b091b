// The offscreen document that reads a PDF's text (docs/internals/extension.md "A PDF's text"). The service
// worker cannot run pdf.js: it has no `Worker` for pdf.js's parser and no dynamic `import()`, and
// importing pdf.js statically would load 1.7 MB at every worker start. This page can do both, and
// it starts only when a PDF's text is read (service_worker/pdf_text.js creates and closes it).
//
//   worker pdf.text {url, maxBytes, maxPdfBytes, deadlineMs} ──► fetchPdf: the tab's URL again,
//     from the extension (cookies included; host permissions make it same-site), at most
//     maxPdfBytes (Content-Length first, then counted as it streams) ──► pdf.js getDocument
//     (its parser in a module Worker, vendor/pdfjs/pdf.worker.min.mjs; no eval, no fonts) ──►
//     page by page getTextContent ──► pdf_markdown.js PdfMarkdown (page marks, cap) until the cap,
//     the last page or deadlineMs ──► {ok: true, markdown, truncated, bytes, title, pageCount}
//   or {ok: false, reason, message}: reason "too_big", "password", "not_pdf", "fetch", "no_text",
//     "failed" (the worker words the RequestError)
//
// Everything here is page input: the PDF's bytes, its metadata and its text.

import { PDF_TEXT } from "../protocol.js";
import { PdfMarkdown } from "./pdf_markdown.js";

/** @typedef {{ok: true, markdown: string, truncated: boolean, bytes: number, title: string, pageCount: number} | {ok: false, reason: string, message: string}} PdfReply */

/** pdf.js, loaded on the first read. @type {Promise<any> | undefined} */
let pdfjs;
/** One pdf.js parser worker for every read of this document's life. @type {any} */
let parser;

/** @returns {Promise<{lib: any, worker: any}>} */
async function loadPdfjs() {
  pdfjs ??= import(chrome.runtime.getURL("vendor/pdfjs/pdf.min.mjs"));
  const lib = await pdfjs;
  lib.GlobalWorkerOptions.workerSrc = chrome.runtime.getURL("vendor/pdfjs/pdf.worker.min.mjs");
  parser ??= new lib.PDFWorker({ name: "webctx-pdf-text" });
  return { lib, worker: parser };
}

class Refusal extends Error {
  /** @param {string} reason @param {string} message */
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** @param {number} bytes @returns {string} "12.5 MiB" */
function mib(bytes) {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

/**
 * The PDF's bytes, fetched again from `url` as the tab loaded it.
 * @param {string} url  http(s) or file (the worker checked it)
 * @param {number} maxBytes
 * @param {AbortSignal} signal
 * @returns {Promise<Uint8Array>}
 * @throws {Refusal} too_big, fetch
 */
async function fetchPdf(url, maxBytes, signal) {
  if (url.startsWith("file:")) return fetchFile(url, maxBytes, signal);
  let response;
  try {
    response = await fetch(url, { credentials: "include", signal });
  } catch (error) {
    throw new Refusal("fetch", `The PDF could not be fetched again from its address (${String(/** @type {any} */ (error)?.message ?? error)}).`);
  }
  if (!response.ok) throw new Refusal("fetch", `Fetching the PDF again answered HTTP ${response.status}.`);
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel();
    throw new Refusal("too_big", `The PDF is ${mib(declared)}, more than the ${mib(maxBytes)} webctx reads.`);
  }
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel();
      throw new Refusal("too_big", `The PDF is more than the ${mib(maxBytes)} webctx reads.`);
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/**
 * A local PDF's bytes: fetch() has no file: scheme, XMLHttpRequest has it for an extension the user
 * let read local files.
 * @param {string} url
 * @param {number} maxBytes
 * @param {AbortSignal} signal
 * @returns {Promise<Uint8Array>}
 */
function fetchFile(url, maxBytes, signal) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", url);
    xhr.responseType = "arraybuffer";
    let tooBig = false;
    xhr.onprogress = (event) => {
      if (event.loaded > maxBytes) {
        tooBig = true;
        xhr.abort();
      }
    };
    xhr.onload = () => resolve(new Uint8Array(/** @type {ArrayBuffer} */ (xhr.response)));
    xhr.onerror = () => reject(new Refusal("fetch", "The local PDF could not be read again."));
    xhr.onabort = () => reject(tooBig ? new Refusal("too_big", `The PDF is more than the ${mib(maxBytes)} webctx reads.`) : new Refusal("fetch", "Reading the local PDF took too long."));
    signal.addEventListener("abort", () => xhr.abort());
    xhr.send();
  });
}

/** How many pages are asked of pdf.js at once: its worker answers each in a round trip. */
const PAGES_IN_FLIGHT = 8;

/**
 * One page's text items.
 * @param {any} doc  a pdf.js PDFDocumentProxy
 * @param {number} n  1-based
 * @returns {Promise<unknown[]>}
 */
async function pageItems(doc, n) {
  const page = await doc.getPage(n);
  const content = await page.getTextContent();
  page.cleanup();
  return Array.isArray(content?.items) ? content.items : [];
}

/**
 * Read a PDF's text (the module doc).
 * @param {{url: string, maxBytes: number, maxPdfBytes: number, deadlineMs: number}} request
 * @returns {Promise<PdfReply>}
 */
async function readPdf({ url, maxBytes, maxPdfBytes, deadlineMs }) {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  let task;
  try {
    const [data, { lib, worker }] = await Promise.all([fetchPdf(url, maxPdfBytes, controller.signal), loadPdfjs()]);
    task = lib.getDocument({ data, worker, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, enableXfa: false, verbosity: 0 });
    let doc;
    try {
      doc = await task.promise;
    } catch (error) {
      const name = /** @type {any} */ (error)?.name;
      if (name === "PasswordException") throw new Refusal("password", "The PDF is protected by a password, and webctx does not ask for one.");
      if (name === "InvalidPDFException") throw new Refusal("not_pdf", "The file is not a PDF that can be read (it is damaged or of another type).");
      throw error;
    }
    const meta = await doc.getMetadata().catch(() => null);
    const title = typeof meta?.info?.Title === "string" ? meta.info.Title : "";
    const markdown = new PdfMarkdown(doc.numPages, maxBytes, title);
    // PAGES_IN_FLIGHT pages asked of pdf.js's worker at once (each a round trip), added in order.
    /** @type {Promise<unknown[]>[]} */
    const asked = [];
    const ask = (/** @type {number} */ n) => {
      if (n <= doc.numPages) asked[n] = pageItems(doc, n);
    };
    for (let n = 1; n <= PAGES_IN_FLIGHT; n += 1) ask(n);
    for (let n = 1; n <= doc.numPages; n += 1) {
      if (performance.now() - started > deadlineMs) {
        markdown.stop();
        break;
      }
      const items = await asked[n];
      delete asked[n];
      if (!markdown.add(n, items)) break;
      ask(n + PAGES_IN_FLIGHT);
    }
    await Promise.allSettled(asked.filter(Boolean)); // none left running against a destroyed task
    const result = markdown.result();
    if (result.pagesWithText === 0 && !result.truncated) {
      throw new Refusal("no_text", `The PDF's ${doc.numPages} page(s) hold no text (scanned images without a text layer, perhaps).`);
    }
    return { ok: true, markdown: result.markdown, truncated: result.truncated, bytes: result.bytes, title, pageCount: doc.numPages };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.reason, message: error.message };
    if (controller.signal.aborted) return { ok: false, reason: "fetch", message: "Fetching the PDF again took too long." };
    return { ok: false, reason: "failed", message: `pdf.js could not read the PDF: ${String(/** @type {any} */ (error)?.message ?? error).slice(0, 200)}` };
  } finally {
    clearTimeout(timer);
    void task?.destroy();
  }
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (typeof message !== "object" || message === null || message.type !== PDF_TEXT) return false;
  const { url, maxBytes, maxPdfBytes, deadlineMs } = message;
  if (typeof url !== "string" || ![maxBytes, maxPdfBytes, deadlineMs].every((n) => Number.isSafeInteger(n) && n > 0)) {
    sendResponse({ ok: false, reason: "failed", message: "A malformed pdf.text request." });
    return false;
  }
  void readPdf({ url, maxBytes, maxPdfBytes, deadlineMs }).then(sendResponse);
  return true; // the answer is sent later
});
