// node --test: the worker's page-tool checks and exposure rules (design.md §5).
import assert from "node:assert/strict";
import test from "node:test";

import { IdRegistry } from "../service_worker/ids.js";
import {
  MAX_DESCRIPTION_CHARS,
  MAX_TOOLS_PER_PAGE,
  PageToolStore,
  parseRunReply,
  parseToolReport,
  WINDOW_STATE_POLL_MS,
  WINDOW_STATE_SAFETY_POLL_MS,
  windowStatePollMs,
  serialisedOrigin,
} from "../service_worker/page_tools.js";

const TOP = { tabId: 5, frameId: 0, documentId: "doc-A", url: "http://127.0.0.1:8000/tools.html" };

test("a report keeps valid tools, sorted, and counts the rest", () => {
  const report = parseToolReport({
    tools: [
      { name: "b", description: "B", inputSchema: '{"type":"object"}', annotations: { readOnlyHint: true, x: 1 } },
      { name: "a", description: "A" },
      { name: "bad name", description: "x" },
      { name: "nodesc", description: "" },
      { name: "a", description: "duplicate" },
      { name: "schema", description: "s", inputSchema: "[1]" },
      null,
    ],
    omitted: 3,
  });
  assert.ok(report);
  assert.deepEqual(report.tools.map((t) => t.name), ["a", "b", "schema"]);
  assert.deepEqual(report.tools[1].inputSchema, { type: "object" });
  assert.deepEqual(report.tools[1].annotations, { readOnlyHint: true });
  assert.equal(report.tools[2].inputSchema, undefined);
  assert.equal(report.omitted, 3 + 4);
  assert.equal(parseToolReport({ tools: "no" }), null);
  assert.equal(parseToolReport(null), null);
});

test("a report is capped per page and long descriptions are cut", () => {
  const tools = Array.from({ length: 500 }, (_, i) => ({ name: `t${String(i).padStart(3, "0")}`, description: "d".repeat(i === 0 ? 1 << 20 : 1) }));
  const report = parseToolReport({ tools });
  assert.ok(report);
  assert.equal(report.tools.length, MAX_TOOLS_PER_PAGE);
  assert.equal(report.omitted, 500 - MAX_TOOLS_PER_PAGE);
  assert.equal(report.tools[0].description.length, MAX_DESCRIPTION_CHARS);
  assert.ok(report.tools[0].description.endsWith("…"));
});

test("only a tab's top frame reports its page's tools", () => {
  const store = new PageToolStore();
  assert.equal(store.report({ ...TOP, frameId: 3 }, { tools: [{ name: "a", description: "A" }] }), false);
  assert.equal(store.report({ ...TOP, tabId: undefined }, { tools: [] }), false);
  assert.equal(store.report(TOP, { tools: [{ name: "a", description: "A" }] }), true);
  assert.equal(store.report(TOP, { tools: [{ name: "a", description: "A" }] }), false, "unchanged");
  assert.equal(store.get(5)?.origin, "http://127.0.0.1:8000");
  assert.equal(store.forget(5), true);
  assert.equal(store.get(5), undefined);
});

test("only the active tab of each shown window is exposed", () => {
  const store = new PageToolStore();
  const ids = new IdRegistry("inst");
  store.report(TOP, { tools: [{ name: "cart.add", description: "Add" }] });
  store.report({ ...TOP, tabId: 6, documentId: "doc-B" }, { tools: [{ name: "hidden", description: "H" }] });
  store.report({ ...TOP, tabId: 7, documentId: "doc-C" }, { tools: [{ name: "minimized", description: "M" }] });
  const windows = [
    { id: 1, incognito: false, type: "normal", state: "normal", tabs: [
      { id: 5, index: 0, active: true, title: "Shop", url: TOP.url },
      { id: 6, index: 1, active: false, title: "Other", url: TOP.url },
    ] },
    { id: 2, incognito: false, type: "normal", state: "minimized", tabs: [{ id: 7, index: 0, active: true, url: TOP.url }] },
  ];
  const { tools, pages } = store.exposed(windows, ids);
  assert.equal(tools.length, 1);
  const pageId = ids.tabId(5);
  assert.deepEqual(tools[0], {
    name: `p${pageId.slice(4)}_cart_add`,
    toolName: "cart.add",
    pageId,
    description: "Add",
    pageTitle: "Shop",
    origin: "http://127.0.0.1:8000",
    url: TOP.url,
  });
  assert.deepEqual(pages.get(5), { names: [tools[0].name], omitted: 0 });
  assert.equal(pages.has(6), false);
});

test("run replies are checked", () => {
  assert.deepEqual(parseRunReply({ ok: true, text: "x" }), { ok: true, text: "x" });
  assert.deepEqual(parseRunReply({ ok: true, text: null }), { ok: true, text: null });
  assert.deepEqual(parseRunReply({ ok: false, error: "boom" }), { ok: false, error: "boom" });
  assert.equal(parseRunReply({ ok: "yes" }), null);
  assert.equal(parseRunReply(null), null);
  assert.equal(parseRunReply({ ok: true, text: 5 })?.ok, false);
});

test("all schemas of a page share a 1 MiB budget", () => {
  const schema = JSON.stringify({ type: "object", description: "s".repeat(60 * 1024) });
  const tools = Array.from({ length: 40 }, (_, i) => ({ name: `t${String(i).padStart(2, "0")}`, description: "d", inputSchema: schema }));
  const report = parseToolReport({ tools });
  assert.ok(report);
  const withSchema = report.tools.filter((t) => t.inputSchema !== undefined).length;
  assert.equal(withSchema, Math.floor((1024 * 1024) / schema.length));
  assert.equal(report.tools.length, 40, "tools over the budget stay, without their schema");
});

test("the user's policy can switch page tools off or exclude sites", () => {
  const store = new PageToolStore();
  const ids = new IdRegistry("inst");
  store.report(TOP, { tools: [{ name: "a", description: "A" }] });
  const windows = [{ id: 1, incognito: false, type: "normal", state: "normal", tabs: [{ id: 5, index: 0, active: true, url: TOP.url }] }];
  assert.equal(store.exposed(windows, ids).tools.length, 1);
  assert.equal(store.exposed(windows, ids, { exposePageTools: false }).tools.length, 0);
  assert.equal(store.exposed(windows, ids, { isExcluded: (doc) => (doc.url ?? "").startsWith("http://127.0.0.1") }).tools.length, 0);
  assert.equal(store.exposed(windows, ids, { isExcluded: () => false }).tools.length, 1);
});

test("the window-state poll meets 100 ms only where it must: headless Chromium", () => {
  const headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36";
  const headed = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
  assert.equal(windowStatePollMs(headless), WINDOW_STATE_POLL_MS);
  assert.ok(WINDOW_STATE_POLL_MS <= 100);
  assert.equal(windowStatePollMs(headed), WINDOW_STATE_SAFETY_POLL_MS);
  assert.ok(WINDOW_STATE_SAFETY_POLL_MS > WINDOW_STATE_POLL_MS);
});

test("a cross-origin frame's tool carries the frame's origin and url, once that frame showed itself", () => {
  const store = new PageToolStore();
  const ids = new IdRegistry("inst");
  store.report(TOP, {
    tools: [
      { name: "framed", description: "F", origin: "http://localhost:9000" },
      { name: "own", description: "O", origin: "http://127.0.0.1:8000" },
      { name: "junk", description: "J", origin: "http://localhost:9000/path" },
      { name: "opaque", description: "J", origin: "null" },
    ],
  });
  const windows = [
    { id: 1, incognito: false, type: "normal", state: "normal", tabs: [{ id: 5, index: 0, active: true, title: "Shop", url: TOP.url }] },
  ];
  // No frame of that origin in the tab yet: the top's claim is not believed.
  assert.deepEqual(store.exposed(windows, ids).tools.map((t) => t.toolName).sort(), ["junk", "opaque", "own"]);
  assert.deepEqual(store.exposed(windows, ids).pages.get(5)?.names.length, 3);
  const frameUrl = "http://localhost:9000/widget.html?x=1";
  assert.equal(store.noteFrame({ tabId: 5, frameId: 3, url: frameUrl, origin: "http://localhost:9000" }), true);
  assert.equal(store.noteFrame({ tabId: 5, frameId: 3, url: frameUrl, origin: "http://localhost:9000" }), false);
  assert.equal(store.noteFrame({ tabId: 5, frameId: 0, url: TOP.url }), false); // the top is no frame
  let byName = Object.fromEntries(store.exposed(windows, ids).tools.map((t) => [t.toolName, t]));
  assert.equal(byName.framed.frameOrigin, "http://localhost:9000");
  assert.equal(byName.framed.frameUrl, frameUrl);
  // A second frame of that origin at another url: which frame offers the tool is not known here.
  assert.equal(store.noteFrame({ tabId: 5, frameId: 4, url: "http://localhost:9000/other.html" }), true);
  byName = Object.fromEntries(store.exposed(windows, ids).tools.map((t) => [t.toolName, t]));
  assert.equal(byName.framed.frameOrigin, "http://localhost:9000");
  assert.equal(byName.framed.frameUrl, undefined);
  assert.equal(byName.framed.origin, "http://127.0.0.1:8000");
  assert.equal(byName.own.frameOrigin, undefined);
  assert.equal(byName.junk.frameOrigin, undefined);
  assert.equal(byName.opaque.frameOrigin, undefined);
  // The top document navigating forgets the tab's frames.
  store.forget(5);
  store.report(TOP, { tools: [{ name: "framed", description: "F", origin: "http://localhost:9000" }] });
  assert.deepEqual(store.exposed(windows, ids).tools, []);
});

test("serialisedOrigin accepts only an http(s)/ws(s) origin as the browser serialises it", () => {
  assert.equal(serialisedOrigin("https://a.example"), "https://a.example");
  assert.equal(serialisedOrigin("http://localhost:9000"), "http://localhost:9000");
  assert.equal(serialisedOrigin("https://a.example/"), null);
  assert.equal(serialisedOrigin("HTTPS://A.example"), null);
  assert.equal(serialisedOrigin("file:///x"), null);
  assert.equal(serialisedOrigin("null"), null);
  assert.equal(serialisedOrigin(42), null);
});

test("exclusion by origin: a page whose top document is an excluded site's, and an excluded frame's tools", async () => {
  const { isExcluded } = await import("../service_worker/settings.js");
  const settings = { excludedSites: ["localhost"], localFiles: false };
  const policy = { isExcluded: (/** @type {any} */ doc) => isExcluded(doc, settings) };
  const ids = new IdRegistry("inst");
  const store = new PageToolStore();
  store.report(TOP, {
    tools: [
      { name: "framed", description: "F", origin: "http://localhost:9000" },
      { name: "own", description: "O" },
    ],
  });
  store.noteFrame({ tabId: 5, frameId: 3, url: "http://localhost:9000/widget.html", origin: "http://localhost:9000" });
  const windows = [{ id: 1, incognito: false, type: "normal", state: "normal", tabs: [{ id: 5, index: 0, active: true, url: TOP.url }] }];
  assert.deepEqual(store.exposed(windows, ids).tools.map((t) => t.toolName).sort(), ["framed", "own"]);
  assert.deepEqual(store.exposed(windows, ids, policy).tools.map((t) => t.toolName), ["own"]);
  // An about:blank page an excluded site opened and wrote: the browser's origin is the opener's.
  const blank = { tabId: 6, frameId: 0, documentId: "doc-B", url: "about:blank", origin: "http://localhost:9000" };
  store.report(blank, { tools: [{ name: "statement", description: "S" }] });
  const blankWindows = [{ id: 2, incognito: false, type: "normal", state: "normal", tabs: [{ id: 6, index: 0, active: true, url: "about:blank" }] }];
  assert.equal(store.exposed(blankWindows, ids).tools[0]?.origin, "http://localhost:9000");
  assert.deepEqual(store.exposed(blankWindows, ids, policy).tools, []);
});
