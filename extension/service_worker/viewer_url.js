// webctx's own PDF viewer (extension/viewer/viewer.html; docs/internals/extension.md "A PDF's text"):
// its address names the PDF it shows, `viewer.html?file=<the PDF's address>`. Pure: the viewer's
// address is learnt once (main.js, from browser_api.js), so node tests need no chrome.*.
//
// The worker speaks of a tab in the viewer as of the PDF it shows: tree.js `tabUrl`, and the
// senders of the viewer's content scripts (browser_api/pages.js), carry the PDF's address and
// origin, so the Page, the exclusions and the page's text are the PDF's.

/** The viewer page, extension-relative. */
export const VIEWER_PATH = "viewer/viewer.html";

/** The PDFs the viewer opens: the web, and local files. */
const VIEWABLE = /^(https?|file):/i;

/** This extension's viewer page address ("" until known: nothing is a viewer then). */
let viewerPage = "";

/**
 * Learn the viewer page's address (chrome.runtime.getURL(VIEWER_PATH)); only this extension's.
 * @param {string} url
 */
export function setViewerPage(url) {
  viewerPage = url;
}

/**
 * The viewer's address for the PDF at `pdfUrl`.
 * @param {string} pdfUrl  http(s) or file
 * @returns {string}
 */
export function viewerUrlFor(pdfUrl) {
  return `${viewerPage}?file=${encodeURIComponent(pdfUrl)}`;
}

/**
 * The address of the PDF this extension's viewer shows at `url`, or null when `url` is not the
 * viewer (another extension's page with the same path is not: the prefix holds our id).
 * @param {string | undefined} url
 * @returns {string | null}
 */
export function viewedPdf(url) {
  if (!viewerPage || !url || !url.startsWith(`${viewerPage}?`)) return null;
  let file;
  try {
    file = new URL(url).searchParams.get("file");
  } catch {
    return null;
  }
  return file && VIEWABLE.test(file) ? file : null;
}

/**
 * The origin of a PDF's address, as a document loaded from it would have ("null" for file:).
 * @param {string} url
 * @returns {string}
 */
export function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}

/**
 * Whether the top document's report `report` (content/report.js) is a PDF Chromium's own viewer
 * shows, which webctx's viewer may show instead: an http(s) or file address.
 * @param {number | undefined} frameId
 * @param {unknown} report
 * @returns {string | null} the PDF's address, or null
 */
export function builtinViewerPdf(frameId, report) {
  if (frameId !== 0 || typeof report !== "object" || report === null) return null;
  const { pdf, url } = /** @type {{pdf?: unknown, url?: unknown}} */ (report);
  return pdf === true && typeof url === "string" && url.length <= 8192 && VIEWABLE.test(url) ? url : null;
}

/**
 * Which PDFs go to the viewer: each tab's last one sent, so that Back from the viewer (the PDF's
 * document again, in the browser's own viewer) stays there instead of being sent on again, which
 * would trap the user in the viewer. One entry per tab.
 */
export class ViewerRedirects {
  /** @type {Map<number, {documentId: string | undefined, pdf: string}>} */
  #sent = new Map();

  /**
   * Should the tab's top document, the PDF at `pdf`, be sent to the viewer now?
   * @param {number} tabId
   * @param {string | undefined} documentId  the browser's id of the PDF's document
   * @param {string} pdf
   * @returns {boolean} false for a document already sent (its reports until it goes), and once
   *   for the same PDF again in that tab (Back); true otherwise (and it is noted)
   */
  shouldOpen(tabId, documentId, pdf) {
    const last = this.#sent.get(tabId);
    if (last && documentId !== undefined && last.documentId === documentId) return false;
    if (last && last.pdf === pdf) {
      this.#sent.delete(tabId);
      return false;
    }
    this.#sent.set(tabId, { documentId, pdf });
    return true;
  }

  /** @param {number} tabId  closed */
  forget(tabId) {
    this.#sent.delete(tabId);
  }
}
