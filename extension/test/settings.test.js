// node --test: the settings' pure logic (service_worker/settings.js).
import assert from "node:assert/strict";
import test from "node:test";

import {
  DEFAULT_SETTINGS,
  MAX_EXCLUDED_SITES,
  countPagesWithTools,
  describePageReads,
  describeStatus,
  isExcluded,
  normalizeSettings,
  parseSiteList,
} from "../service_worker/settings.js";

test("missing or mistyped settings fall back to the defaults", () => {
  assert.deepEqual(normalizeSettings(undefined), { ...DEFAULT_SETTINGS });
  assert.deepEqual(normalizeSettings({ enabled: "no", incognito: 1, excludedSites: "x" }), { ...DEFAULT_SETTINGS });
  const off = normalizeSettings({ enabled: false, excludedSites: ["Example.COM", 7], exposePageTools: false });
  assert.equal(off.enabled, false);
  assert.deepEqual(off.excludedSites, ["example.com"]);
  assert.equal(off.exposePageTools, false);
  assert.equal(off.confirmConsequential, true);
});

test("a site list is reduced to unique host names", () => {
  assert.deepEqual(
    parseSiteList("https://Mail.Example.com/inbox\n*.bank.test, bank.test  localhost:8080\n\n-bad- ../x .dot"),
    ["mail.example.com", "bank.test", "localhost"],
  );
  assert.equal(parseSiteList(Array.from({ length: 600 }, (_, i) => `s${i}.test`).join(" ")).length, MAX_EXCLUDED_SITES);
});

test("a site excludes itself and its subdomains, nothing else", () => {
  const sites = { excludedSites: ["bank.test"], localFiles: true };
  assert.equal(isExcluded("https://bank.test/login", sites), true);
  assert.equal(isExcluded("https://www.bank.test/", sites), true);
  assert.equal(isExcluded("https://notbank.test/", sites), false);
  assert.equal(isExcluded("not a url", sites), false);
  // A trailing dot names the same site (it got a page past its exclusion).
  assert.equal(isExcluded("https://bank.test./login", sites), true);
  assert.equal(isExcluded("https://www.bank.test../", sites), true);
  assert.equal(isExcluded("blob:https://bank.test/0b5d3c1e-1111-4222-8333-444455556666", sites), true);
  assert.equal(isExcluded("blob:https://other.test/0b5d3c1e", sites), false);
  assert.equal(isExcluded("https://bank.test/", { excludedSites: [], localFiles: true }), false);
});

test("exclusion follows the document's origin: blank, srcdoc and opened windows are their creator's", () => {
  const settings = { excludedSites: ["bank.test"], localFiles: false };
  // An about:blank child an excluded frame writes into, a srcdoc frame, a window.open("") window:
  // the address has no host, the origin the browser gives is the creator's.
  assert.equal(isExcluded({ url: "about:blank", origin: "https://bank.test" }, settings), true);
  assert.equal(isExcluded({ url: "about:srcdoc", origin: "https://www.bank.test" }, settings), true);
  assert.equal(isExcluded({ url: "about:blank", origin: "https://other.test" }, settings), false);
  assert.equal(isExcluded({ url: "about:blank" }, settings), false);
  assert.equal(isExcluded({ url: "about:blank", origin: "https://bank.test." }, settings), true);
  // Either decides: an address on the site with an opaque origin (a sandboxed frame) is excluded.
  assert.equal(isExcluded({ url: "https://bank.test/x", origin: "null" }, settings), true);
  assert.equal(isExcluded({ url: "https://other.test/x", origin: "https://bank.test" }, settings), true);
  assert.equal(isExcluded({ url: "data:text/html,hi", origin: "null" }, settings), false);
});

test("local files are excluded unless switched on, also the blank documents they make", () => {
  const off = normalizeSettings({});
  assert.equal(off.localFiles, false);
  assert.equal(isExcluded("file:///home/me/tax-return.html", off), true);
  assert.equal(isExcluded({ url: "about:blank", origin: "file://" }, off), true);
  assert.equal(isExcluded("https://example.org/", off), false);
  const on = normalizeSettings({ localFiles: true });
  assert.equal(isExcluded("file:///home/me/tax-return.html", on), false);
  assert.equal(isExcluded({ url: "about:blank", origin: "file://" }, on), false);
  // A rule on a host never matches a file, and a file never matches a host's rule.
  assert.equal(isExcluded("file:///bank.test/a.html", { ...on, excludedSites: ["bank.test"] }), false);
});

test("the popup's words for each state", () => {
  assert.equal(describeStatus({ state: "connected", at: 0 }, false).label, "Provider off");
  assert.equal(describeStatus({ state: "connected", at: 0 }, true).label, "Provider on: connected");
  assert.equal(describeStatus({ state: "connected", at: 0 }, true).versions, "");
  const versionMismatch = /** @type {const} */ ({
    extension: { version: "0.1.0", protocol: "0.2.0" },
    host: { version: "0.2.0", protocol: "0.3.0" },
    update: "extension",
    message: "The extension is webctx 0.1.0 (protocol 0.2.0) but the native host is webctx 0.2.0 (protocol 0.3.0): update the extension.",
  });
  assert.equal(
    describeStatus({ state: "connected", versionMismatch, at: 0 }, true).versions,
    `Version mismatch: ${versionMismatch.message}`,
  );
  assert.equal(describeStatus({ state: "connected", port: 53817, at: 0 }, true).detail, "MCP endpoint on 127.0.0.1:53817");
  assert.equal(
    describeStatus({ state: "connected", port: 1, pagesWithTools: 2, at: 0 }, true).detail,
    "MCP endpoint on 127.0.0.1:1 · 2 pages with tools",
  );
  // A standby host (another profile's host publishes): the popup names the provider's port as such.
  const standby = describeStatus({ state: "connected", port: 40123, viaProvider: true, at: 0 }, true);
  assert.equal(standby.label, "Provider on: connected through this browser's provider");
  assert.equal(standby.detail, "MCP endpoint on 127.0.0.1:40123, served by another profile's native host");
  const missing = describeStatus(
    { state: "disconnected", error: "Specified native messaging host not found.", fix: "webctx install --browser chromium", at: 0 },
    true,
  );
  assert.equal(missing.label, "Provider on: native host not installed");
  assert.equal(missing.fix, "webctx install --browser chromium");
  assert.equal(missing.detail, "Specified native messaging host not found.");
  const exited = describeStatus({ state: "disconnected", error: "Native host has exited.", fix: "webctx doctor", at: 0 }, true);
  assert.equal(exited.label, "Provider on: native host error");
  assert.equal(describeStatus({ state: "off", at: 0 }, true).label, "Provider on: connecting…");
  assert.equal(describeStatus(undefined, true).label, "Provider on: not started");
});

test("pages with tools are counted from the tree", () => {
  const page = (/** @type {string[] | undefined} */ tools) => ({ id: "p", role: "Page", attributes: tools ? { tools } : {} });
  const root = {
    id: "app",
    role: "Application",
    children: [{ id: "win-1", role: "Window", children: [page(["a"]), page([]), page(undefined), page(["b", "c"])] }],
  };
  assert.equal(countPagesWithTools(root), 2);
  assert.equal(countPagesWithTools({ id: "app", role: "Application" }), 0);
});

test("page text is on and screenshots off by default; the popup says both", () => {
  assert.equal(DEFAULT_SETTINGS.pageText, true);
  assert.equal(DEFAULT_SETTINGS.screenshots, false);
  assert.deepEqual(normalizeSettings({ pageText: "yes", screenshots: 1 }), { ...DEFAULT_SETTINGS });
  const flipped = normalizeSettings({ pageText: false, screenshots: true });
  assert.equal(flipped.pageText, false);
  assert.equal(flipped.screenshots, true);
  assert.equal(describePageReads(normalizeSettings(undefined)), "Page text on request: on. Screenshots of the active tab on request: off.");
  assert.equal(describePageReads(flipped), "Page text on request: off. Screenshots of the active tab on request: on.");
  assert.equal(describePageReads({ ...flipped, enabled: false }), "");
});
