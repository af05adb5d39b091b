// node --test: webctx's PDF viewer's address (service_worker/viewer_url.js) and how the tree speaks
// of a tab showing it (tree.js tabUrl): as the PDF's Page; the option is off by default (settings.js).
import assert from "node:assert/strict";
import test from "node:test";

import { normalizeSettings } from "../service_worker/settings.js";
import { pageLinks, tabUrl } from "../service_worker/tree.js";
import { ViewerRedirects, builtinViewerPdf, originOf, setViewerPage, viewedPdf, viewerUrlFor } from "../service_worker/viewer_url.js";

const OWN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/viewer/viewer.html";

test("the option is off by default, and only a boolean turns it on", () => {
  assert.equal(normalizeSettings(undefined).pdfViewer, false);
  assert.equal(normalizeSettings({ pdfViewer: "yes" }).pdfViewer, false);
  assert.equal(normalizeSettings({ pdfViewer: true }).pdfViewer, true);
});

test("the viewer's address names the PDF, and only our viewer's address gives it back", () => {
  setViewerPage(OWN);
  const pdf = "https://example.org/a b.pdf?x=1&y=2#page=3";
  const url = viewerUrlFor(pdf);
  assert.ok(url.startsWith(`${OWN}?file=`), url);
  assert.equal(viewedPdf(url), pdf);
  // Another extension's viewer, a look-alike path, another scheme: not ours, not a PDF.
  assert.equal(viewedPdf(url.replace("abcdefghijklmnop", "ponmlkjihgfedcba")), null);
  assert.equal(viewedPdf(`${OWN}x?file=${encodeURIComponent(pdf)}`), null);
  assert.equal(viewedPdf(`${OWN}?file=${encodeURIComponent("javascript:alert(1)")}`), null);
  assert.equal(viewedPdf(`${OWN}?file=`), null);
  assert.equal(viewedPdf(undefined), null);
  assert.equal(viewedPdf(viewerUrlFor("file:///home/me/a.pdf")), "file:///home/me/a.pdf");
  assert.equal(originOf(pdf), "https://example.org");
  assert.equal(originOf("file:///home/me/a.pdf"), "null");
});

test("a tab in the viewer is the PDF's Page: its address, and its text link", () => {
  setViewerPage(OWN);
  const pdf = "https://example.org/report.pdf";
  const tab = { id: 3, index: 0, active: true, title: "The report", url: viewerUrlFor(pdf) };
  assert.equal(tabUrl(tab), pdf);
  const links = pageLinks(tab, { id: "tab-3", role: "Page", title: "The report", url: pdf }, "inst", { pageText: true });
  assert.equal(links.length, 1);
  // An unrelated chrome-extension:// page stays internal.
  assert.equal(tabUrl({ url: "chrome-extension://abcdefghijklmnopabcdefghijklmnop/options/options.html" }), "chrome-extension://abcdefghijklmnopabcdefghijklmnop/options/options.html");
});

test("only a top document's report of a web or file PDF sends the tab to the viewer", () => {
  assert.equal(builtinViewerPdf(0, { pdf: true, url: "https://example.org/a.pdf" }), "https://example.org/a.pdf");
  assert.equal(builtinViewerPdf(1, { pdf: true, url: "https://example.org/a.pdf" }), null);
  assert.equal(builtinViewerPdf(0, { url: "https://example.org/a.pdf" }), null);
  assert.equal(builtinViewerPdf(0, { pdf: true, url: "data:application/pdf;base64,AA" }), null);
  assert.equal(builtinViewerPdf(0, { pdf: true, url: `https://example.org/${"a".repeat(9000)}` }), null);
  assert.equal(builtinViewerPdf(0, null), null);
});

test("a PDF goes to the viewer once: its document's later reports and Back stay", () => {
  const redirects = new ViewerRedirects();
  const pdf = "https://example.org/a.pdf";
  assert.equal(redirects.shouldOpen(1, "doc-a", pdf), true);
  assert.equal(redirects.shouldOpen(1, "doc-a", pdf), false); // the same document, before it goes
  assert.equal(redirects.shouldOpen(1, "doc-b", pdf), false); // Back: the PDF again, in the browser's viewer
  assert.equal(redirects.shouldOpen(1, "doc-c", pdf), true); // opened once more later
  assert.equal(redirects.shouldOpen(1, "doc-d", "https://example.org/b.pdf"), true);
  assert.equal(redirects.shouldOpen(2, "doc-e", pdf), true); // another tab
  redirects.forget(2);
  assert.equal(redirects.shouldOpen(2, "doc-f", pdf), true);
});
