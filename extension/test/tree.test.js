// node --test: the element tree answering `current` (design.md §2, docs/internals/protocol.md "The tree").
import assert from "node:assert/strict";
import test from "node:test";

import { IdRegistry } from "../service_worker/ids.js";
import { DEFAULT_MAX_SELECTION_BYTES, capUtf8, firstChars, lastChars } from "../service_worker/text_limits.js";
import { buildTree, isInternalUrl, keepTabs } from "../service_worker/tree.js";

const BROWSER = { name: "Chromium", version: "156.0.8078.114" };
const utf8Bytes = (/** @type {string} */ s) => Buffer.byteLength(s, "utf8");

/**
 * @param {number} id
 * @param {number} index
 * @param {Partial<import("../service_worker/tree.js").TabInfo>} [extra]
 */
function tab(id, index, extra = {}) {
  return { id, index, active: false, title: `Tab ${id}`, url: `https://example.org/${id}`, ...extra };
}

/**
 * @param {number} id
 * @param {import("../service_worker/tree.js").TabInfo[]} tabs
 * @param {Partial<import("../service_worker/tree.js").WindowInfo>} [extra]
 */
function win(id, tabs, extra = {}) {
  return { id, incognito: false, type: "normal", state: "normal", tabs, ...extra };
}

/**
 * @param {string} text
 * @param {Partial<import("../protocol.js").Selection>} [extra]
 */
function selection(text, extra = {}) {
  return { key: 1, text, before: "", after: "", length: text.length, ...extra };
}

/**
 * @param {import("../service_worker/tree.js").WindowInfo[]} windows
 * @param {{lastFocusedWindowId?: number, selections?: [number, import("../protocol.js").Selection][]}} [more]
 */
function snapshot(windows, more = {}) {
  return {
    browser: BROWSER,
    windows,
    lastFocusedWindowId: more.lastFocusedWindowId,
    selections: new Map((more.selections ?? []).map(([tabId, sel]) => [tabId, { documentId: `doc-${tabId}`, selection: sel }])),
  };
}

/** The Text element under the only page of a one-tab tree. @param {any} root */
function textOf(root) {
  return root.children[0].children[0].children?.[0];
}

/** A one-window, one-tab tree holding `sel`. @param {import("../protocol.js").Selection} sel */
function treeWithSelection(sel, url = "https://example.org/") {
  const snap = snapshot([win(1, [tab(10, 0, { active: true, url })])], { lastFocusedWindowId: 1, selections: [[10, sel]] });
  return buildTree(snap, new IdRegistry("inst"));
}

/** Walk every element. @param {any} element @param {(e: any) => void} visit */
function walk(element, visit) {
  visit(element);
  for (const child of element.children ?? []) walk(child, visit);
}

test("the root is the Application with the browser's name and version", () => {
  const root = buildTree(snapshot([]), new IdRegistry("inst"));
  assert.deepEqual(root, { id: "app", role: "Application", title: "Chromium", attributes: { version: "156.0.8078.114" } });
});

test("the focus path runs from the last-focused window to its active tab, with no gaps", () => {
  const snap = snapshot(
    [win(1, [tab(10, 0, { active: true }), tab(11, 1)]), win(2, [tab(20, 0), tab(21, 1, { active: true })])],
    { lastFocusedWindowId: 2, selections: [[21, selection("picked")]] },
  );
  const root = /** @type {any} */ (buildTree(snap, new IdRegistry("inst")));
  const [w1, w2] = root.children;
  assert.equal(root.focused, undefined);
  assert.equal(w1.focused, undefined);
  assert.equal(w1.children[0].focused, undefined, "active tab of an unfocused window is not focused");
  assert.equal(w2.focused, true);
  assert.equal(w2.children[0].focused, undefined);
  assert.equal(w2.children[1].focused, true);
  const text = w2.children[1].children[0];
  assert.equal(text.role, "Text");
  assert.equal(text.selected, true);
  assert.deepEqual(text.content, [{ type: "text", text: "picked" }]);
});

test("background tabs are visible:false; a minimized window is visible:false on the window only", () => {
  const snap = snapshot(
    [
      win(1, [tab(10, 0), tab(11, 1, { active: true }), tab(12, 2)]),
      win(2, [tab(20, 0, { active: true }), tab(21, 1)], { state: "minimized" }),
    ],
    { lastFocusedWindowId: 1 },
  );
  const root = /** @type {any} */ (buildTree(snap, new IdRegistry("inst")));
  const [shown, minimized] = root.children;
  assert.equal(shown.visible, undefined);
  assert.deepEqual(shown.children.map((/** @type {any} */ p) => p.visible), [false, undefined, false]);
  assert.equal(minimized.visible, false);
  assert.deepEqual(minimized.children.map((/** @type {any} */ p) => p.visible), [undefined, undefined]);
});

test("states are written only where they differ from the default", () => {
  const snap = snapshot(
    [win(1, [tab(10, 0, { active: true }), tab(11, 1)]), win(2, [tab(20, 0, { active: true })], { state: "minimized" })],
    { lastFocusedWindowId: 1, selections: [[10, selection("x")]] },
  );
  walk(buildTree(snap, new IdRegistry("inst")), (element) => {
    for (const state of ["selected", "focused", "hovered"]) assert.notEqual(element[state], false, `${element.id}.${state}`);
    assert.notEqual(element.visible, true, `${element.id}.visible`);
    assert.match(element.id, /^[A-Za-z0-9_-]{1,128}$/);
  });
});

test("pages carry id, subrole, title and url, in tab-strip order", () => {
  const snap = snapshot([win(1, [tab(12, 2), tab(10, 0, { active: true }), tab(11, 1)])], { lastFocusedWindowId: 1 });
  const ids = new IdRegistry("inst");
  const root = /** @type {any} */ (buildTree(snap, ids));
  assert.deepEqual(root.children[0].children.map((/** @type {any} */ p) => p.title), ["Tab 10", "Tab 11", "Tab 12"]);
  const page = root.children[0].children[0];
  assert.deepEqual(page, {
    id: ids.tabId(10),
    role: "Page",
    subrole: "tab",
    title: "Tab 10",
    url: "https://example.org/10",
    focused: true,
  });
});

test("a page without title or url omits them, and pendingUrl stands in for a missing url", () => {
  const snap = snapshot([win(1, [tab(10, 0, { active: true, title: "", url: undefined, pendingUrl: "https://x.test/" })])]);
  const page = /** @type {any} */ (buildTree(snap, new IdRegistry("inst"))).children[0].children[0];
  assert.equal(page.title, undefined);
  assert.equal(page.url, "https://x.test/");
});

test("incognito windows and non-normal windows are never reported", () => {
  const snap = snapshot(
    [win(1, [tab(10, 0, { active: true })]), win(2, [tab(20, 0, { active: true, incognito: true })], { incognito: true }), win(3, [], { type: "popup" })],
    { lastFocusedWindowId: 2, selections: [[20, selection("secret")]] },
  );
  const root = /** @type {any} */ (buildTree(snap, new IdRegistry("inst")));
  assert.equal(root.children.length, 1);
  assert.equal(root.children[0].focused, undefined);
  assert.doesNotMatch(JSON.stringify(root), /secret/);
});

test("ids are stable across answers and match the registry", () => {
  const ids = new IdRegistry("inst");
  const snap = snapshot([win(5, [tab(50, 0, { active: true }), tab(51, 1)])], { lastFocusedWindowId: 5, selections: [[50, selection("s")]] });
  const first = buildTree(snap, ids);
  const second = buildTree(snap, ids);
  assert.deepEqual(second, first);
  const root = /** @type {any} */ (first);
  assert.equal(root.children[0].id, "win-1");
  assert.deepEqual(root.children[0].children.map((/** @type {any} */ p) => p.id), ["tab-1", "tab-2"]);
  assert.equal(root.children[0].children[0].children[0].id, "sel-1");
});

test("tab budget: the active tab and its neighbours are kept, the rest counted in tabsOmitted", () => {
  const many = (/** @type {number} */ active) =>
    Array.from({ length: 150 }, (_, i) => tab(1000 + i, i, { active: i === active }));
  const ids = new IdRegistry("inst");
  const titles = (/** @type {number} */ active, options = {}) => {
    const w = /** @type {any} */ (buildTree(snapshot([win(1, many(active))]), ids, options)).children[0];
    return { titles: w.children.map((/** @type {any} */ p) => p.title), attributes: w.attributes };
  };

  const atStart = titles(0);
  assert.equal(atStart.titles.length, 100);
  assert.equal(atStart.titles[0], "Tab 1000");
  assert.deepEqual(atStart.attributes, { tabsOmitted: 50 });

  const atEnd = titles(149);
  assert.equal(atEnd.titles.at(-1), "Tab 1149");
  assert.equal(atEnd.titles[0], "Tab 1050");

  const middle = titles(75);
  assert.ok(middle.titles.includes("Tab 1075"));
  assert.ok(middle.titles.includes("Tab 1074") && middle.titles.includes("Tab 1076"), "neighbours kept");
  assert.equal(middle.titles[0], "Tab 1026");

  const small = titles(75, { maxTabsPerWindow: 3 });
  assert.deepEqual(small.titles, ["Tab 1074", "Tab 1075", "Tab 1076"]);
  assert.deepEqual(small.attributes, { tabsOmitted: 147 });

  const withinBudget = /** @type {any} */ (buildTree(snapshot([win(1, many(3).slice(0, 100))]), ids)).children[0];
  assert.equal(withinBudget.attributes, undefined);
});

test("keepTabs keeps tab-strip order and never drops the active tab", () => {
  for (let n = 1; n <= 12; n++) {
    for (let active = 0; active < n; active++) {
      for (let max = 1; max <= n + 1; max++) {
        const tabs = Array.from({ length: n }, (_, i) => ({ i, active: i === active }));
        const { kept, omitted } = keepTabs(tabs, max);
        assert.equal(kept.length, Math.min(n, max));
        assert.equal(omitted, n - kept.length);
        assert.ok(kept.some((t) => t.active));
        assert.deepEqual(kept.map((t) => t.i), [...kept.map((t) => t.i)].sort((a, b) => a - b));
      }
    }
  }
});

test("a short selection is reported whole with its surrounding text", () => {
  const text = textOf(treeWithSelection(selection("the selected words", { before: "…before ", after: " after…" })));
  assert.deepEqual(text, {
    id: "sel-1",
    role: "Text",
    selected: true,
    content: [{ type: "text", text: "the selected words" }],
    attributes: { before: "…before ", after: " after…" },
  });
});

test("selection text is capped at 16 KiB of UTF-8 with truncated and the full length", () => {
  const long = "a".repeat(20_000);
  const text = textOf(treeWithSelection(selection(long)));
  assert.equal(text.content[0].text, "a".repeat(DEFAULT_MAX_SELECTION_BYTES));
  assert.deepEqual(text.attributes, { truncated: true, length: 20_000 });
});

test("the UTF-8 cap never splits an emoji at the boundary", () => {
  // 16382 + 4 bytes > 16384: the emoji does not fit and is dropped whole.
  const over = textOf(treeWithSelection(selection(`${"a".repeat(16_382)}😀tail`)));
  assert.equal(over.content[0].text, "a".repeat(16_382));
  assert.equal(over.attributes.truncated, true);
  assert.equal(over.attributes.length, 16_382 + 2 + 4);
  // 16380 + 4 bytes = 16384: it fits exactly.
  const exact = textOf(treeWithSelection(selection(`${"a".repeat(16_380)}😀`)));
  assert.equal(exact.content[0].text, `${"a".repeat(16_380)}😀`);
  assert.equal(exact.attributes, undefined);
  assert.equal(utf8Bytes(exact.content[0].text), DEFAULT_MAX_SELECTION_BYTES);
});

test("capUtf8 counts 1-, 2-, 3- and 4-byte code points", () => {
  for (const unit of ["a", "é", "中", "😀"]) {
    const text = unit.repeat(20_000);
    const capped = capUtf8(text, DEFAULT_MAX_SELECTION_BYTES);
    const size = utf8Bytes(unit);
    assert.equal(utf8Bytes(capped), Math.floor(DEFAULT_MAX_SELECTION_BYTES / size) * size, unit);
    assert.equal(capped, capped.toWellFormed(), `${unit}: no split pair`);
  }
  assert.equal(capUtf8("abc", 2), "ab");
  assert.equal(capUtf8("😀", 3), "");
});

test("a 1 MB selection (pre-capped by the content script) comes out capped and small", () => {
  const full = "Lorem ipsum dolor sit amet. ".repeat(40_000); // 1.12 MB
  const preCapped = full.slice(0, 65_536);
  const text = textOf(treeWithSelection(selection(preCapped, { length: full.length })));
  assert.ok(utf8Bytes(text.content[0].text) <= DEFAULT_MAX_SELECTION_BYTES);
  assert.deepEqual(text.attributes, { truncated: true, length: full.length });

  // Even if a whole megabyte arrived, the answer stays small.
  const whole = textOf(treeWithSelection(selection(full)));
  assert.ok(utf8Bytes(JSON.stringify(whole)) < DEFAULT_MAX_SELECTION_BYTES + 200);
  assert.equal(whole.attributes.length, full.length);
});

test("lone surrogates are replaced everywhere, so the JSON is valid Unicode", () => {
  const snap = snapshot([win(1, [tab(10, 0, { active: true, title: "bad \uD800 title", url: "https://x.test/\uDC00" })])], {
    lastFocusedWindowId: 1,
    selections: [[10, selection("a\uD800b\uDFFFc", { before: "x\uDBFF", after: "\uDC01y" })]],
  });
  const root = /** @type {any} */ (buildTree(snap, new IdRegistry("inst")));
  const page = root.children[0].children[0];
  assert.equal(page.title, "bad \uFFFD title");
  assert.equal(page.url, "https://x.test/\uFFFD");
  const text = page.children[0];
  assert.equal(text.content[0].text, "a\uFFFDb\uFFFDc");
  assert.deepEqual(text.attributes, { before: "x\uFFFD", after: "\uFFFDy" });
  const json = JSON.stringify(root);
  assert.equal(json, json.toWellFormed());
  assert.doesNotThrow(() => new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(json)));
});

test("a well-formed surrogate pair is kept intact", () => {
  const text = textOf(treeWithSelection(selection("smile 😀 and 𝄞")));
  assert.equal(text.content[0].text, "smile 😀 and 𝄞");
});

test("right-to-left text and direction marks are kept as they are", () => {
  const rtl = "\u200Fשלום עולם — مرحبا بالعالم\u200E (123)";
  const text = textOf(treeWithSelection(selection(rtl, { before: "قبل ", after: " אחרי" })));
  assert.equal(text.content[0].text, rtl);
  assert.deepEqual(text.attributes, { before: "قبل ", after: " אחרי" });
});

test("before and after are cut to 200 code units next to the selection, not splitting pairs", () => {
  const before = `${"x".repeat(300)}😀${"b".repeat(199)}`;
  const after = `${"a".repeat(199)}😀${"y".repeat(300)}`;
  const text = textOf(treeWithSelection(selection("sel", { before, after })));
  assert.equal(text.attributes.before, "b".repeat(199), "half of 😀 is not kept");
  assert.equal(text.attributes.after, "a".repeat(199));
  assert.equal(lastChars("ab", 5), "ab");
  assert.equal(firstChars("😀", 1), "");
});

test("browser-internal pages list title and url but never content", () => {
  for (const url of ["chrome://settings/", "chrome-extension://abc/popup.html", "devtools://devtools/x", "edge://flags", "about:version"]) {
    const root = /** @type {any} */ (treeWithSelection(selection("internal text"), url));
    const page = root.children[0].children[0];
    assert.equal(page.url, url);
    assert.equal(page.children, undefined, url);
  }
  const blank = /** @type {any} */ (treeWithSelection(selection("blank text"), "about:blank"));
  assert.equal(blank.children[0].children[0].children[0].content[0].text, "blank text");
  assert.equal(isInternalUrl("https://chrome.com/"), false);
});

test("a background tab's pushed selection sits under its page and inherits visible:false", () => {
  const snap = snapshot([win(1, [tab(10, 0, { active: true }), tab(11, 1)])], {
    lastFocusedWindowId: 1,
    selections: [[11, selection("in the background")]],
  });
  const root = /** @type {any} */ (buildTree(snap, new IdRegistry("inst")));
  const background = root.children[0].children[1];
  assert.equal(background.visible, false);
  assert.equal(background.children[0].visible, undefined);
  assert.equal(background.children[0].content[0].text, "in the background");
});

test("an empty selection is not reported", () => {
  const root = /** @type {any} */ (treeWithSelection(selection("")));
  assert.equal(root.children[0].children[0].children, undefined);
});

test("a huge data: URL is cut", () => {
  const url = `data:text/html,${"x".repeat(100_000)}`;
  const snap = snapshot([win(1, [tab(10, 0, { active: true, url })])]);
  const page = /** @type {any} */ (buildTree(snap, new IdRegistry("inst"))).children[0].children[0];
  assert.ok(page.url.length <= 4096 && url.startsWith(page.url));
});

test("a Page links its text and, when it is the active tab, its screenshot, per the switches", () => {
  const snap = snapshot(
    [
      win(1, [
        tab(10, 0, { active: true }),
        tab(11, 1, { title: "" }),
        tab(12, 2, { url: "chrome://settings/" }),
        tab(13, 3, { title: "", url: "" }),
      ]),
    ],
    { lastFocusedWindowId: 1 },
  );
  const ids = new IdRegistry("AAAAAAAAAAAAAAAAAAAAAA");
  const pages = (/** @type {any} */ root) => root.children[0].children;
  const both = pages(buildTree(snap, ids, { pageText: true, screenshots: true }));
  assert.deepEqual(both[0].content, [
    { type: "resource_link", uri: "webctx://AAAAAAAAAAAAAAAAAAAAAA/tab-1/text", name: "Tab 10", mimeType: "text/markdown" },
    { type: "resource_link", uri: "webctx://AAAAAAAAAAAAAAAAAAAAAA/tab-1/screenshot", name: "Tab 10", mimeType: "image/png" },
  ]);
  // A background tab: text only; the name falls back to the url, then the id.
  assert.deepEqual(both[1].content, [
    { type: "resource_link", uri: "webctx://AAAAAAAAAAAAAAAAAAAAAA/tab-2/text", name: "https://example.org/11", mimeType: "text/markdown" },
  ]);
  assert.equal(both[2].content, undefined, "a browser page links nothing");
  // Pages no extension may read link nothing either (a read would always be refused).
  for (const url of ["about:blank", "data:text/html,hi", "view-source:https://example.org/"]) {
    const one = snapshot([win(1, [tab(20, 0, { active: true, url })])]);
    assert.equal(pages(buildTree(one, ids, { pageText: true, screenshots: true }))[0].content, undefined, url);
  }
  const file = snapshot([win(1, [tab(21, 0, { active: true, url: "file:///home/me/notes.html" })])]);
  assert.equal(pages(buildTree(file, ids, { pageText: true }))[0].content.length, 1);
  assert.equal(both[3].content, undefined, "a tab with no url yet links nothing");
  // The defaults: text on, screenshots off.
  const textOnly = pages(buildTree(snap, ids, { pageText: true, screenshots: false }));
  assert.deepEqual(textOnly[0].content.map((/** @type {any} */ c) => c.uri.split("/").pop()), ["text"]);
  const shotsOnly = pages(buildTree(snap, ids, { pageText: false, screenshots: true }));
  assert.deepEqual(shotsOnly[0].content.map((/** @type {any} */ c) => c.uri.split("/").pop()), ["screenshot"]);
  assert.equal(shotsOnly[1].content, undefined);
  const none = pages(buildTree(snap, ids, {}));
  assert.ok(none.every((/** @type {any} */ p) => p.content === undefined));
  // No instance yet (hello not answered): no links, whatever the switches.
  const noInstance = pages(buildTree(snap, new IdRegistry(), { pageText: true, screenshots: true }));
  assert.ok(noInstance.every((/** @type {any} */ p) => p.content === undefined));
});
