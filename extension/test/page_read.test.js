// node --test: `page.read` on the worker side (service_worker/page_read.js, screenshot.js): which pages
// may be read and why not (the codes), the text's caps, the screenshot's scale, pacing and retry,
// base64 in chunks, over fakes of the browser's calls.
import assert from "node:assert/strict";
import test from "node:test";

import { IdRegistry } from "../service_worker/ids.js";
import {
  DEFAULT_TEXT_BYTES,
  MAX_TEXT_BYTES,
  MIN_TEXT_BYTES,
  PAGE_TEXT_FILES,
  PageReader,
  checkedText,
  clampMaxBytes,
  refusal,
  scriptRefusal,
} from "../service_worker/page_read.js";
import { CAPTURE_RETRY_MS, CapturePacer, MAX_CAPTURE_WAIT_MS, bytesToBase64, pngSize, scaledSize } from "../service_worker/screenshot.js";
import { normalizeSettings } from "../service_worker/settings.js";

const QUOTA = "This request exceeds the MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND quota.";

test("maxBytes is clamped to [1 KiB, 4 MiB]; no number is the host's default", () => {
  assert.equal(clampMaxBytes(262144), 262144);
  assert.equal(clampMaxBytes(10), MIN_TEXT_BYTES);
  assert.equal(clampMaxBytes(1e12), MAX_TEXT_BYTES);
  assert.equal(clampMaxBytes(2048.7), 2048);
  assert.equal(clampMaxBytes(undefined), DEFAULT_TEXT_BYTES);
  assert.equal(clampMaxBytes("9"), DEFAULT_TEXT_BYTES);
  assert.equal(clampMaxBytes(Number.NaN), DEFAULT_TEXT_BYTES);
  assert.equal(clampMaxBytes(-Infinity), DEFAULT_TEXT_BYTES);
});

test("the extraction's reply is held to the cap, valid Unicode and its shape", () => {
  // 2000 × "é" (2 bytes each) under a 1024-byte cap: cut on a character boundary, bytes kept.
  const long = checkedText({ markdown: "é".repeat(2000), truncated: false, bytes: 4000, source: "readability", title: "T", url: "https://e.org/" }, 1024);
  assert.ok(long);
  assert.equal(long.markdown, "é".repeat(512));
  assert.equal(long.truncated, true);
  assert.equal(long.bytes, 4000);
  assert.equal(long.source, "readability");
  // A pair is never cut in half; a lone surrogate becomes U+FFFD; a wrong `bytes` is recomputed.
  const emoji = checkedText({ markdown: `${"a".repeat(1022)}😀\ud800`, bytes: -1, source: "x" }, 1024);
  assert.ok(emoji);
  assert.equal(emoji.markdown, "a".repeat(1022));
  assert.equal(emoji.bytes, 1022 + 4 + 3);
  assert.equal(emoji.truncated, true);
  assert.equal(emoji.source, "visible-text");
  assert.equal(emoji.title, "");
  // The script's own truncation is kept.
  assert.equal(checkedText({ markdown: "short", truncated: true, bytes: 9000 }, 1024)?.truncated, true);
  assert.equal(checkedText({ markdown: "short", bytes: 5 }, 1024)?.truncated, false);
  assert.equal(checkedText(null, 1024), null);
  assert.equal(checkedText({ markdown: 7 }, 1024), null);
  assert.equal(checkedText({ markdown: "x", title: "t".repeat(5000) }, 1024)?.title.length, 1024);
});

test("a capture is scaled so its longest side is at most 1600 px", () => {
  assert.deepEqual(scaledSize(1280, 720), { width: 1280, height: 720, scale: 1 });
  assert.deepEqual(scaledSize(1600, 900), { width: 1600, height: 900, scale: 1 });
  assert.deepEqual(scaledSize(2560, 1440), { width: 1600, height: 900, scale: 0.625 });
  assert.deepEqual(scaledSize(1000, 4000), { width: 400, height: 1600, scale: 0.4 });
  assert.deepEqual(scaledSize(3201, 1), { width: 1600, height: 1, scale: 1600 / 3201 });
});

test("base64 in chunks equals Node's, at sizes around the chunk", () => {
  for (const size of [0, 1, 2, 3, 0x8000 - 1, 0x8000, 0x8000 + 1, 3 * 0x8000 + 7, 1_000_000]) {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i += 1) bytes[i] = (i * 2654435761) >>> 24;
    assert.equal(bytesToBase64(bytes), Buffer.from(bytes).toString("base64"), `size ${size}`);
  }
  // 8 MiB (a 2560 x 1440 capture can be that big): no "Maximum call stack size exceeded".
  assert.equal(bytesToBase64(new Uint8Array(8 << 20)).length, 4 * Math.ceil((8 << 20) / 3));
});

test("a PNG's size comes from its IHDR; anything else is not a PNG", () => {
  const header = Buffer.from("89504e470d0a1a0a0000000d4948445200000500000002d0", "hex");
  assert.deepEqual(pngSize(new Uint8Array(header)), { width: 1280, height: 720 });
  assert.equal(pngSize(new Uint8Array(header.subarray(0, 20))), null);
  const jpeg = new Uint8Array(header);
  jpeg[0] = 0xff;
  assert.equal(pngSize(jpeg), null);
});

test("executeScript's refusals: a closed tab, a page the browser does not let extensions script, the rest", () => {
  assert.equal(scriptRefusal("No tab with id: 12."), "page_gone");
  assert.equal(scriptRefusal("The extensions gallery cannot be scripted."), "not_shared");
  assert.equal(scriptRefusal("Cannot access a chrome:// URL"), "not_shared");
  assert.equal(scriptRefusal('Cannot access contents of url "file:///tmp/a.html". Extension manifest must request permission to access this host.'), "not_shared");
  assert.equal(scriptRefusal("Frame with ID 0 is showing error page"), "read_failed", "a crashed tab: reloading it helps");
  assert.equal(scriptRefusal("Could not load file: 'content/page_text.js'."), "read_failed");
  assert.equal(scriptRefusal("TypeError: globalThis.webctxPageText is not a function"), "read_failed");
});

const ON = { ...normalizeSettings(undefined), screenshots: true };
const WEB = { id: 5, windowId: 1, active: true, incognito: false, url: "https://e.org/a", title: "A", width: 1280 };

test("refusals in order: the switch, incognito, excluded, internal, then (screenshots) on screen", () => {
  assert.equal(refusal("text", WEB, undefined, ON), null);
  assert.equal(refusal("screenshot", WEB, { state: "normal", type: "normal" }, ON), null);
  assert.equal(refusal("text", WEB, undefined, { ...ON, pageText: false })?.code, "switched_off");
  assert.equal(refusal("screenshot", WEB, undefined, { ...ON, screenshots: false })?.code, "switched_off");
  assert.equal(refusal("screenshot", { ...WEB, url: "chrome://settings" }, undefined, { ...ON, screenshots: false })?.code, "switched_off");
  assert.equal(refusal("text", { ...WEB, incognito: true }, undefined, ON)?.code, "not_shared");
  assert.equal(refusal("text", { ...WEB, incognito: true }, undefined, { ...ON, incognito: true }), null);
  assert.equal(refusal("text", WEB, undefined, { ...ON, excludedSites: ["e.org"] })?.code, "not_shared");
  assert.equal(refusal("text", { ...WEB, url: "", pendingUrl: "https://www.e.org/" }, undefined, { ...ON, excludedSites: ["e.org"] })?.code, "not_shared");
  for (const url of ["chrome://settings/", "chrome-extension://x/popup.html", "view-source:https://e.org/", "about:version"]) {
    assert.equal(refusal("text", { ...WEB, url }, undefined, ON)?.code, "not_shared", url);
  }
  assert.equal(refusal("text", { ...WEB, active: false }, undefined, ON), null, "text of a background tab is fine");
  const background = refusal("screenshot", { ...WEB, active: false }, { state: "normal" }, ON);
  assert.equal(background?.code, "not_capturable");
  // What happened only: the host adds the one fix (protocol/resources.py READ_ERROR_FIXES).
  assert.match(background?.message ?? "", /not the active tab/);
  const words = [
    background,
    refusal("screenshot", WEB, { state: "minimized" }, ON),
    refusal("text", WEB, undefined, { ...ON, pageText: false }),
    refusal("screenshot", WEB, undefined, { ...ON, screenshots: false }),
    refusal("text", { ...WEB, active: false, discarded: true }, undefined, ON),
  ];
  for (const r of words) assert.doesNotMatch(r?.message ?? "", /switch (it|them|tabs)|read it again|can switch|restore windows/i, r?.message);
  assert.equal(refusal("screenshot", WEB, { state: "minimized" }, ON)?.code, "not_capturable");
  assert.equal(refusal("screenshot", WEB, { state: "normal", type: "popup" }, ON)?.code, "not_capturable");
  assert.equal(refusal("text", { ...WEB, active: false, discarded: true }, undefined, ON)?.code, "read_failed");
});

test("captures are paced: never more than 2 starts in any 1.1 s, never a wait over the limit", () => {
  const pacer = new CapturePacer();
  assert.equal(pacer.reserve(0), 0);
  assert.equal(pacer.reserve(10), 0);
  assert.equal(pacer.reserve(20), 1080); // the first + 1000 + 100
  assert.equal(pacer.reserve(30), 1080); // the second + 1100
  assert.equal(pacer.reserve(40), 2160);
  assert.equal(pacer.reserve(50), 2160);
  assert.equal(pacer.reserve(60), null, "past MAX_CAPTURE_WAIT_MS: refused, nothing reserved");
  assert.ok(3260 - 60 > MAX_CAPTURE_WAIT_MS);
  assert.equal(pacer.reserve(5000), 0);
});

/**
 * A PageReader over fakes; `calls` records the browser calls it made.
 * @param {{tabs?: Record<number, any>, windows?: Record<number, any>, settings?: any, capture?: (windowId: number) => Promise<string>, inject?: () => Promise<void>, run?: () => Promise<unknown>, zoom?: number, afterCapture?: () => void}} [fakes]
 */
function reader(fakes = {}) {
  const ids = new IdRegistry("inst");
  /** @type {Record<number, any>} */
  const tabs = fakes.tabs ?? { 5: { ...WEB }, 6: { ...WEB, id: 6, active: false, url: "https://e.org/b" } };
  const windows = fakes.windows ?? { 1: { id: 1, state: "normal", type: "normal" } };
  /** @type {string[]} */
  const calls = [];
  /** @type {number[]} */
  const waits = [];
  let clock = 0;
  /** @type {Set<number>} tabs whose document has the page-text scripts (a fresh one has not) */
  const injected = new Set();
  const pages = new PageReader({
    ids,
    settings: () => fakes.settings ?? ON,
    now: () => clock,
    wait: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
    shrink: async (dataUrl) => ({ mimeType: "image/png", data: dataUrl.slice(dataUrl.indexOf(",") + 1), width: 1600, height: 900, capturedWidth: 2560, capturedHeight: 1440 }),
    read: {
      getTab: async (tabId) => (calls.push(`getTab ${tabId}`), tabs[tabId] ? { ...tabs[tabId] } : undefined),
      getWindow: async (windowId) => (calls.push(`getWindow ${windowId}`), windows[windowId]),
      getZoom: async () => fakes.zoom ?? 1,
      injectTopFrameFiles: async (tabId, files) => {
        calls.push(`inject ${tabId} ${files.join(",")}`);
        await fakes.inject?.();
        injected.add(tabId);
      },
      runInTopFrame: async (tabId, _func, arg) => {
        calls.push(`run ${tabId} ${JSON.stringify(arg)}`);
        if (!injected.has(tabId)) return { missing: true }; // extractText before the injection
        return fakes.run ? fakes.run() : { markdown: "# A", truncated: false, bytes: 3, source: "readability", title: "A", url: "https://e.org/a" };
      },
      // The frames now (not in `calls`): the tab's top document alone unless a test names them.
      frameSites: async (tabId) =>
        fakes.frames?.(tabId) ?? [{ frameId: 0, url: tabs[tabId]?.url ?? "", origin: new URL(tabs[tabId]?.url ?? "https://e.org").origin, visible: true }],
      captureVisibleTab: async (windowId) => {
        calls.push(`capture ${windowId}`);
        const url = await (fakes.capture ?? (async () => "data:image/png;base64,AAAA"))(windowId);
        fakes.afterCapture?.();
        return url;
      },
    },
  });
  return { pages, ids, calls, waits, tabs };
}

/** @param {Promise<unknown>} promise @param {string} code */
async function rejectsWith(promise, code) {
  await assert.rejects(promise, (/** @type {any} */ error) => {
    assert.equal(error.code, code, error.message);
    return true;
  });
}

test("only a Page id this instance minted is read; a closed tab is page_gone", async () => {
  const { pages, ids, calls } = reader();
  for (const pageId of ["tab-1", "../x", "", 7, undefined]) await rejectsWith(pages.read({ pageId, kind: "text" }), "unknown_page");
  const win = ids.windowId(1);
  await rejectsWith(pages.read({ pageId: win, kind: "text" }), "unknown_page");
  const sel = ids.selectionId(5, "doc", 1);
  await rejectsWith(pages.read({ pageId: sel, kind: "text" }), "unknown_page");
  assert.deepEqual(calls, [], "nothing is asked of the browser for an id it never minted");
  await rejectsWith(pages.read({ pageId: ids.tabId(99), kind: "text" }), "page_gone");
  await rejectsWith(pages.read({ pageId: ids.tabId(5), kind: "html" }), "unknown_type");
});

test("text: the files (once per document), then webctxPageText with the clamped cap, in the top frame", async () => {
  const { pages, ids, calls } = reader();
  const result = await pages.read({ pageId: ids.tabId(5), kind: "text", maxBytes: 10 });
  assert.deepEqual(result, { kind: "text", markdown: "# A", truncated: false, bytes: 3, source: "readability", title: "A", url: "https://e.org/a" });
  const run = `run 5 {"maxBytes":1024,"frames":true}`;
  assert.deepEqual(calls, ["getTab 5", run, `inject 5 ${PAGE_TEXT_FILES.join(",")}`, run, "getTab 5"]);
  calls.length = 0;
  await pages.read({ pageId: ids.tabId(5), kind: "text", maxBytes: 10 });
  assert.deepEqual(calls, ["getTab 5", run, "getTab 5"], "a document that has the scripts is not injected again");
  assert.deepEqual(PAGE_TEXT_FILES, [
    "vendor/readability/Readability.js",
    "vendor/turndown/turndown.js",
    "vendor/turndown-plugin-gfm/turndown-plugin-gfm.js",
    "content/utf8_cap.js",
    "content/secret_fields.js",
    "content/hidden_text.js",
    "content/text_clean.js",
    "content/composed_clone.js",
    "content/page_text.js",
  ]);
  // A background tab's text is read too (nothing is shown or switched).
  assert.equal((await pages.read({ pageId: ids.tabId(6), kind: "text" })).kind, "text");
});

test("text: reads of the same tab at once share one extraction; the next read starts a new one", async () => {
  const { pages, ids, calls } = reader();
  const pageId = ids.tabId(5);
  const [a, b] = await Promise.all([pages.read({ pageId, kind: "text" }), pages.read({ pageId, kind: "text" })]);
  assert.deepEqual(a, b);
  assert.equal(calls.filter((c) => c.startsWith("inject")).length, 1);
  assert.equal(calls.filter((c) => c.startsWith("run")).length, 2, "one extraction (and its first look for the scripts)");
  calls.length = 0;
  await pages.read({ pageId, kind: "text" });
  assert.equal(calls.filter((c) => c.startsWith("run")).length, 1);
});

test("text: refusals and failures carry their codes; nothing is injected into a page not shared", async () => {
  const off = reader({ settings: { ...ON, pageText: false } });
  await rejectsWith(off.pages.read({ pageId: off.ids.tabId(5), kind: "text" }), "switched_off");
  const excluded = reader({ settings: { ...ON, excludedSites: ["e.org"] } });
  await rejectsWith(excluded.pages.read({ pageId: excluded.ids.tabId(5), kind: "text" }), "not_shared");
  const internal = reader({ tabs: { 5: { ...WEB, url: "chrome://settings/" } } });
  await rejectsWith(internal.pages.read({ pageId: internal.ids.tabId(5), kind: "text" }), "not_shared");
  for (const r of [off, excluded, internal]) assert.ok(!r.calls.some((c) => c.startsWith("inject")));

  const store = reader({ inject: async () => Promise.reject(new Error("The extensions gallery cannot be scripted.")) });
  await rejectsWith(store.pages.read({ pageId: store.ids.tabId(5), kind: "text" }), "not_shared");
  // about:blank, data: pages: the browser's long sentence stays out of ours (the host's fix must fit).
  const blank = reader({ inject: async () => Promise.reject(new Error('Cannot access contents of url "about:blank". Extension manifest must request permission to access this host.')) });
  await assert.rejects(blank.pages.read({ pageId: blank.ids.tabId(5), kind: "text" }), (e) => e.code === "not_shared" && !/manifest/.test(e.message));
  const crashed = reader({ inject: async () => Promise.reject(new Error("Frame with ID 0 is showing error page")) });
  await assert.rejects(crashed.pages.read({ pageId: crashed.ids.tabId(5), kind: "text" }), (e) => e.code === "read_failed" && /error page/.test(e.message));
  const closed = reader({ inject: async () => Promise.reject(new Error("No tab with id: 5.")) });
  await rejectsWith(closed.pages.read({ pageId: closed.ids.tabId(5), kind: "text" }), "page_gone");
  const threw = reader({ run: async () => Promise.reject(new Error("Readability exploded")) });
  await rejectsWith(threw.pages.read({ pageId: threw.ids.tabId(5), kind: "text" }), "read_failed");
  // What the extraction threw comes back as `thrown` (executeScript itself drops it).
  const thrown = reader({ run: async () => ({ thrown: "RangeError: Maximum call stack size exceeded" }) });
  await assert.rejects(thrown.pages.read({ pageId: thrown.ids.tabId(5), kind: "text" }), /extraction failed: RangeError: Maximum call stack/);
  const junk = reader({ run: async () => "not an object" });
  await rejectsWith(junk.pages.read({ pageId: junk.ids.tabId(5), kind: "text" }), "read_failed");
  // The page navigated to an excluded site while it was read: its text is dropped.
  const moved = reader({ settings: { ...ON, excludedSites: ["bank.test"] }, run: async () => ({ markdown: "secret", url: "https://bank.test/" }) });
  await rejectsWith(moved.pages.read({ pageId: moved.ids.tabId(5), kind: "text" }), "not_shared");
});

test("screenshot: only the active tab of a window on screen, never switched to", async () => {
  const { pages, ids, calls } = reader();
  await rejectsWith(pages.read({ pageId: ids.tabId(6), kind: "screenshot" }), "not_capturable");
  assert.ok(!calls.some((c) => c.startsWith("capture")), "a background tab is not captured (nor activated)");
  const minimized = reader({ windows: { 1: { id: 1, state: "minimized", type: "normal" } } });
  await rejectsWith(minimized.pages.read({ pageId: minimized.ids.tabId(5), kind: "screenshot" }), "not_capturable");
  const off = reader({ settings: normalizeSettings(undefined) }); // the default: off
  await rejectsWith(off.pages.read({ pageId: off.ids.tabId(5), kind: "screenshot" }), "switched_off");
});

test("screenshot: the result's size, scale and device pixel ratio (zoom included)", async () => {
  const { pages, ids, calls } = reader({ zoom: 1.25 });
  const result = await pages.read({ pageId: ids.tabId(5), kind: "screenshot" });
  // 2560 captured px over 1280 DIPs at 125 % zoom = 1024 CSS px: 2.5 image px per CSS px.
  assert.deepEqual(result, { kind: "screenshot", mimeType: "image/png", data: "AAAA", width: 1600, height: 900, devicePixelRatio: 2.5, scale: 0.625 });
  assert.deepEqual(calls, ["getTab 5", "getWindow 1", "capture 1", "getTab 5"]);
});

test("screenshot: refused by the quota → one retry after the window; a second refusal is read_failed", async () => {
  let refusals = 1;
  const once = reader({ capture: async () => (refusals-- > 0 ? Promise.reject(new Error(QUOTA)) : "data:image/png;base64,BBBB") });
  const result = /** @type {any} */ (await once.pages.read({ pageId: once.ids.tabId(5), kind: "screenshot" }));
  assert.equal(result.data, "BBBB");
  assert.deepEqual(once.waits, [CAPTURE_RETRY_MS]);
  const always = reader({ capture: async () => Promise.reject(new Error(QUOTA)) });
  await rejectsWith(always.pages.read({ pageId: always.ids.tabId(5), kind: "screenshot" }), "read_failed");
  assert.equal(always.calls.filter((c) => c.startsWith("capture")).length, 2);
  const broken = reader({ capture: async () => Promise.reject(new Error("Failed to capture tab: unknown error")) });
  await rejectsWith(broken.pages.read({ pageId: broken.ids.tabId(5), kind: "screenshot" }), "read_failed");
  assert.equal(broken.calls.filter((c) => c.startsWith("capture")).length, 1, "no retry for other errors");
});

test("screenshot: three at once are paced (the third waits for the window), none refused", async () => {
  const { pages, ids, waits } = reader();
  const pageId = ids.tabId(5);
  const results = await Promise.all([1, 2, 3].map(() => pages.read({ pageId, kind: "screenshot" })));
  assert.equal(results.length, 3);
  assert.deepEqual(waits, [CAPTURE_RETRY_MS]);
});

test("screenshot: the window showed another tab or address by the time it was captured → not_capturable", async () => {
  /** @type {ReturnType<typeof reader>} */
  let r;
  r = reader({ afterCapture: () => (r.tabs[5].active = false) });
  await rejectsWith(r.pages.read({ pageId: r.ids.tabId(5), kind: "screenshot" }), "not_capturable");
  const s = reader({ afterCapture: () => (s.tabs[5].url = "https://e.org/other") });
  await rejectsWith(s.pages.read({ pageId: s.ids.tabId(5), kind: "screenshot" }), "not_capturable");
  const gone = reader({ afterCapture: () => delete gone.tabs[5] });
  await rejectsWith(gone.pages.read({ pageId: gone.ids.tabId(5), kind: "screenshot" }), "page_gone");
});
