// node --test: a PDF's text (offscreen/pdf_markdown.js, service_worker/pdf_text.js, the PDF path of
// service_worker/page_read.js): page marks, the cap, escaping, the offscreen reply's checks, and
// that a PDF tab never answers with the (empty) HTML extraction.
import assert from "node:assert/strict";
import test from "node:test";

import { PdfMarkdown, pageMark, pageText } from "../offscreen/pdf_markdown.js";
import { MAX_PDF_BYTES, OFFSCREEN_PATH, PDF_READ_MS, PdfTextReader, checkedPdfReply, pdfUrlRefusal } from "../service_worker/pdf_text.js";
import { IdRegistry } from "../service_worker/ids.js";
import { PageReader, pdfDocumentUrl } from "../service_worker/page_read.js";
import { normalizeSettings } from "../service_worker/settings.js";
import { PDF_TEXT } from "../protocol.js";

/** @param {string} str @param {boolean} [hasEOL] */
const run = (str, hasEOL = false) => ({ str, hasEOL });

test("a page's text keeps its lines, drops invisible characters and escapes HTML", () => {
  const items = [run("Hello"), run(" "), run("world  ", true), { type: "beginMarkedContent" }, run("<b>x</b> & y\u200b", true), run("", true), run("", true), run("end")];
  assert.equal(pageText(items), "Hello world\n&lt;b&gt;x&lt;/b&gt; &amp; y\n\nend");
  assert.equal(pageText([null, 7, { str: 3 }]), "");
  assert.equal(pageText([run("\ud800a")]), "\ufffda");
});

test("the Markdown has the title, then a mark per page, in order", () => {
  const md = new PdfMarkdown(2, 10_000, "  A <report>\n ");
  assert.equal(md.add(1, [run("one", true)]), true);
  assert.equal(md.add(2, []), true);
  const { markdown, truncated, bytes, pagesWithText } = md.result();
  assert.equal(markdown, `# A &lt;report&gt;\n\n${pageMark(1, 2)}\n\none\n\n## Page 2 of 2\n`);
  assert.equal(truncated, false);
  assert.equal(bytes, Buffer.byteLength(markdown));
  assert.equal(pagesWithText, 1);
});

test("the Markdown stops at the cap, on a character boundary, and says it was cut", () => {
  const md = new PdfMarkdown(100, 1024);
  let n = 1;
  while (md.add(n, [run("é".repeat(100))])) n += 1;
  const { markdown, truncated, bytes } = md.result();
  assert.equal(truncated, true);
  assert.ok(Buffer.byteLength(markdown) <= 1024);
  assert.ok(bytes > 1024, "bytes counts the cut page whole");
  assert.ok(!markdown.includes("\ufffd"));
  assert.ok(n < 100, "no page is read after the cap");
  assert.equal(md.add(n + 1, [run("more")]), false);
  const stopped = new PdfMarkdown(3, 1024);
  stopped.add(1, [run("a")]);
  stopped.stop();
  assert.equal(stopped.result().truncated, true);
});

test("only web and file addresses are fetched again", () => {
  assert.equal(pdfUrlRefusal("https://e.org/a.pdf"), null);
  assert.equal(pdfUrlRefusal("file:///tmp/a.pdf"), null);
  assert.match(/** @type {string} */ (pdfUrlRefusal("blob:https://e.org/1")), /not a web or file address/);
  assert.notEqual(pdfUrlRefusal("data:application/pdf;base64,AA"), null);
});

test("the offscreen reply is held to the cap and its refusal becomes read_failed with its sentence", () => {
  const ok = checkedPdfReply({ ok: true, markdown: "é".repeat(2000), truncated: false, bytes: 4000, title: "T" }, 1024);
  assert.deepEqual(ok, { markdown: "é".repeat(512), truncated: true, bytes: 4000, title: "T" });
  assert.throws(() => checkedPdfReply({ ok: false, reason: "password", message: "The PDF is protected by a password." }, 1024), (/** @type {any} */ e) => e.code === "read_failed" && /password/.test(e.message));
  assert.throws(() => checkedPdfReply(undefined, 1024), (/** @type {any} */ e) => e.code === "read_failed");
  assert.throws(() => checkedPdfReply({ ok: true }, 1024), (/** @type {any} */ e) => e.code === "read_failed");
});

test("the reader makes the offscreen document, asks it with the caps, and refuses without the API", async () => {
  /** @type {unknown[]} */
  const calls = [];
  const reader = new PdfTextReader({
    hasOffscreenApi: () => true,
    ensureOffscreenDocument: async (path) => void calls.push(["ensure", path]),
    closeOffscreenDocument: async () => void calls.push(["close"]),
    sendToExtensionPages: async (message) => (calls.push(["send", message]), { ok: true, markdown: "## Page 1 of 1\n\nx\n", truncated: false, bytes: 18, title: "" }),
  }, 0);
  const text = await reader.read("https://e.org/a.pdf", 4096);
  assert.equal(text.markdown, "## Page 1 of 1\n\nx\n");
  assert.deepEqual(calls, [
    ["ensure", OFFSCREEN_PATH],
    ["send", { type: PDF_TEXT, url: "https://e.org/a.pdf", maxBytes: 4096, maxPdfBytes: MAX_PDF_BYTES, deadlineMs: PDF_READ_MS }],
  ]);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(calls.at(-1), ["close"], "the document closes once idle");
  const none = new PdfTextReader({ hasOffscreenApi: () => false, ensureOffscreenDocument: async () => {}, closeOffscreenDocument: async () => {}, sendToExtensionPages: async () => ({}) }, 0);
  await assert.rejects(none.read("https://e.org/a.pdf", 4096), (/** @type {any} */ e) => e.code === "read_failed" && /offscreen/.test(e.message));
  await assert.rejects(reader.read("blob:https://e.org/1", 4096), (/** @type {any} */ e) => e.code === "read_failed");
});

test("a PDF tab's text comes from the PDF reader, never from the page's (empty) document", async () => {
  assert.equal(pdfDocumentUrl({ pdf: true, url: "https://e.org/a.pdf" }), "https://e.org/a.pdf");
  assert.equal(pdfDocumentUrl({ markdown: "" }), null);
  assert.equal(pdfDocumentUrl(null), null);
  const ids = new IdRegistry("i");
  const tab = { id: 5, windowId: 1, active: true, incognito: false, url: "https://e.org/a.pdf", title: "a.pdf" };
  /** @type {string[]} */
  const calls = [];
  const settings = { ...normalizeSettings(undefined), pageText: true };
  const reader = (/** @type {string[]} */ excluded) =>
    new PageReader({
      ids,
      settings: () => ({ ...settings, excludedSites: excluded }),
      pdf: { read: async (url, maxBytes) => (calls.push(`pdf ${url} ${maxBytes}`), { markdown: "## Page 1 of 1\n\nHi\n", truncated: false, bytes: 19, title: "" }) },
      read: {
        getTab: async () => ({ ...tab }),
        getWindow: async () => undefined,
        getZoom: async () => 1,
        injectTopFrameFiles: async () => void calls.push("inject"),
        runInTopFrame: async () => ({ pdf: true, url: tab.url }),
        frameSites: async () => [{ frameId: 0, url: tab.url, origin: "https://e.org", visible: true }],
        captureVisibleTab: async () => "",
      },
    });
  const text = await reader([]).read({ pageId: ids.tabId(5), kind: "text" });
  assert.deepEqual(text, { kind: "text", markdown: "## Page 1 of 1\n\nHi\n", truncated: false, bytes: 19, source: "pdf", title: "a.pdf", url: tab.url });
  assert.deepEqual(calls, ["pdf https://e.org/a.pdf 262144"], "no page-text scripts are injected into a PDF");
  await assert.rejects(reader(["e.org"]).read({ pageId: ids.tabId(5), kind: "text" }), (/** @type {any} */ e) => e.code === "not_shared");
});
