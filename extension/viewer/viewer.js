// webctx's PDF viewer (docs/internals/extension.md "A PDF's text"): `viewer.html?file=<address>` shows
// the PDF at that address, each page a canvas with pdf.js's TextLayer over it, so a mouse drag
// selects the PDF's text as in any page, and the content scripts this page loads (viewer.html)
// report that selection. The service worker opens it instead of the browser's own viewer when
// "Open PDFs in webctx's viewer" is on (service_worker/main.js openInViewer) and speaks of this
// tab as of the PDF (service_worker/viewer_url.js).
//
//   ?file ──► pdf.js getDocument (from the extension: cookies included, host permissions make it
//     same-site; its parser in a module Worker) ──► one placeholder per page (the first page's
//     size) ──► a page coming near the screen is drawn: canvas + TextLayer
//
// Everything here is page input: the PDF's bytes, its metadata and its text.

/** Pages given a placeholder at most; a longer PDF says where it stops. */
const MAX_PAGES = 2000;
/** The CSS scale of a page at most (1 = 72 dpi); narrower windows fit the page's width. */
const MAX_SCALE = 1.5;
/** Canvas pixels per page at most (a huge page is drawn blurred rather than exhaust memory). */
const MAX_CANVAS_PIXELS = 16 * 1024 * 1024;
/** The schemes the viewer opens (the worker opens no other). */
const VIEWABLE = /^(https?|file):/i;
/** A language tag as /Lang may hold it (BCP 47's shape, bounded). */
const LANG_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8}){0,7}$/;
/** Characters of a title at most. */
const MAX_TITLE_CHARS = 300;

const statusLine = /** @type {HTMLElement} */ (document.getElementById("status"));
const pagesBox = /** @type {HTMLElement} */ (document.getElementById("pages"));

/**
 * The name the tab shows before the PDF's own title is known: the file name of its address.
 * @param {string} url
 * @returns {string}
 */
function fileName(url) {
  try {
    const path = new URL(url).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf("/") + 1)) || url;
  } catch {
    return url;
  }
}

/**
 * Draw one page: a canvas at the device's pixel ratio, the text layer over it.
 * @param {any} pdfjs  the pdf.js module
 * @param {any} pdf  pdf.js PDFDocumentProxy
 * @param {number} number  1-based
 * @param {HTMLElement} box  the page's placeholder
 * @returns {Promise<void>}
 */
async function drawPage(pdfjs, pdf, number, box) {
  const page = await pdf.getPage(number);
  const scale = Math.min(MAX_SCALE, Math.max(0.25, (innerWidth - 32) / page.getViewport({ scale: 1 }).width));
  const viewport = page.getViewport({ scale });
  box.style.width = `${Math.floor(viewport.width)}px`;
  box.style.height = `${Math.floor(viewport.height)}px`;
  box.style.setProperty("--total-scale-factor", String(scale));
  const ratio = Math.min(devicePixelRatio || 1, Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)));
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  const layer = document.createElement("div");
  layer.className = "textLayer";
  box.replaceChildren(canvas, layer);
  await page.render({ canvas, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] }).promise;
  const content = await page.getTextContent();
  // The page's language is the PDF's (its catalog's /Lang), not this viewer's: the Page's `lang`.
  if (typeof content.lang === "string" && LANG_TAG.test(content.lang) && !document.documentElement.lang) document.documentElement.lang = content.lang;
  await new pdfjs.TextLayer({ textContentSource: content, container: layer, viewport }).render();
}

async function main() {
  const file = new URLSearchParams(location.search).get("file") ?? "";
  if (!VIEWABLE.test(file)) {
    statusLine.textContent = "This viewer opens PDFs from the web or from local files only.";
    return;
  }
  document.title = fileName(file).slice(0, MAX_TITLE_CHARS);
  // A dynamic import, as offscreen/pdf_text.js does: vendor/ is not ours to type-check.
  const pdfjs = await import(chrome.runtime.getURL("vendor/pdfjs/pdf.min.mjs"));
  pdfjs.GlobalWorkerOptions.workerSrc = chrome.runtime.getURL("vendor/pdfjs/pdf.worker.min.mjs");
  let pdf;
  try {
    pdf = await pdfjs.getDocument({ url: file, withCredentials: true, isEvalSupported: false }).promise;
  } catch (error) {
    statusLine.textContent = `The PDF could not be opened: ${String(/** @type {any} */ (error)?.message ?? error).slice(0, 300)}`;
    return;
  }
  const meta = await pdf.getMetadata().catch(() => null);
  const title = typeof meta?.info?.Title === "string" ? meta.info.Title.trim() : "";
  if (title) document.title = title.slice(0, MAX_TITLE_CHARS);
  const first = (await pdf.getPage(1)).getViewport({ scale: 1 });
  const scale = Math.min(MAX_SCALE, Math.max(0.25, (innerWidth - 32) / first.width));
  const count = Math.min(pdf.numPages, MAX_PAGES);
  /** @type {Map<Element, number>} */
  const numbers = new Map();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        const number = /** @type {number} */ (numbers.get(entry.target));
        drawPage(pdfjs, pdf, number, /** @type {HTMLElement} */ (entry.target)).catch((error) => console.warn(`webctx viewer: page ${number}`, error));
      }
    },
    { rootMargin: "100% 0px" },
  );
  for (let number = 1; number <= count; number++) {
    const box = document.createElement("div");
    box.className = "page";
    box.dataset.page = String(number);
    box.style.width = `${Math.floor(first.width * scale)}px`;
    box.style.height = `${Math.floor(first.height * scale)}px`;
    numbers.set(box, number);
    pagesBox.append(box);
    observer.observe(box);
  }
  statusLine.textContent = pdf.numPages > count ? `This viewer shows the first ${count} of the PDF's ${pdf.numPages} pages.` : "";
}

void main();
