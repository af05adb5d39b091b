// node --test: where selections, the focused field and the hover go in a Page (pointing.js via
// buildTree; design.md §2 focus path, frame Groups, textbox Groups, one hover).
import assert from "node:assert/strict";
import test from "node:test";

import { IdRegistry } from "../service_worker/ids.js";
import { BUILTIN_VIEWER_ATTRIBUTES, frameParents, pdfTitle, pickPointing } from "../service_worker/pointing.js";
import { buildTree } from "../service_worker/tree.js";

const BROWSER = { name: "Chromium", version: "156.0.8078.114" };

/** @param {Partial<import("../protocol.js").FrameReport>} extra */
function report(extra = {}) {
  return { isTop: true, hasFocus: false, url: "http://127.0.0.1/", selection: null, selectionAt: 0, focus: null, hover: null, ...extra };
}

/** @param {string} text @param {object} [extra] */
function sel(text, extra = {}) {
  return { key: 1, text, before: "", after: "", length: text.length, ...extra };
}

/**
 * One focused window (1) with an active tab (10) and a background tab (11); frames by tab.
 * @param {Record<number, any[]>} framesByTab
 */
function tree(framesByTab, ids = new IdRegistry("i")) {
  const windows = [
    {
      id: 1,
      incognito: false,
      type: "normal",
      state: "normal",
      tabs: [
        { id: 10, index: 0, active: true, title: "A", url: "http://127.0.0.1/a" },
        { id: 11, index: 1, active: false, title: "B", url: "http://127.0.0.1/b" },
      ],
    },
  ];
  const frames = new Map(Object.entries(framesByTab).map(([tabId, list]) => [Number(tabId), list]));
  return buildTree({ browser: BROWSER, windows, lastFocusedWindowId: 1, selections: new Map(), frames }, ids);
}

/** @param {any} element @returns {any[]} */
function walk(element) {
  return [element, ...(element.children ?? []).flatMap(walk)];
}

test("a selection in a subframe sits in a focused frame Group with its url; the focus path has no gaps", () => {
  const root = tree({
    10: [
      { frameId: 0, documentId: "top", report: report({ hasFocus: true, lang: "en" }) },
      { frameId: 4, documentId: "sub", report: report({ isTop: false, hasFocus: true, url: "http://localhost:9/f.html", selection: sel("inside"), selectionAt: 9 }) },
    ],
  });
  const page = root.children[0].children[0];
  assert.deepEqual(page.attributes, { lang: "en" });
  assert.deepEqual(page.children, [
    {
      id: "frame-1",
      role: "Group",
      subrole: "frame",
      url: "http://localhost:9/f.html",
      focused: true,
      children: [{ id: "sel-1", role: "Text", selected: true, content: [{ type: "text", text: "inside" }] }],
    },
  ]);
  assert.deepEqual(walk(root).filter((e) => e.focused).map((e) => e.role), ["Window", "Page", "Group"]);
});

test("the focused field is a focused textbox Group with its text; a selection in it sits inside it", () => {
  const focus = { key: 7, kind: "textarea", title: "Notes", content: "hello world", length: 11 };
  const root = tree({
    10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, focus, selection: sel("world", { field: { key: 7, kind: "textarea" } }) }) }],
  });
  const page = root.children[0].children[0];
  assert.deepEqual(page.children, [
    {
      id: "field-1",
      role: "Group",
      subrole: "textbox",
      focused: true,
      title: "Notes",
      content: [{ type: "text", text: "hello world" }],
      children: [{ id: "sel-1", role: "Text", selected: true, content: [{ type: "text", text: "world" }] }],
    },
  ]);
  assert.deepEqual(walk(root).filter((e) => e.focused).map((e) => e.role), ["Window", "Page", "Group"]);
});

test("a sensitive field is a textbox Group without content", () => {
  const root = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, focus: { key: 2, kind: "input", sensitive: true } }) }] });
  const [box] = root.children[0].children[0].children;
  assert.deepEqual(box, { id: "field-1", role: "Group", subrole: "textbox", focused: true });
});

test("at most one hovered element in the whole tree: the newest hover wins; hidden tabs' hovers are stale", () => {
  const link = { key: 3, role: "Link", url: "http://127.0.0.1/next", title: "Next page", at: 100 };
  const image = { key: 4, role: "Image", url: "http://127.0.0.1/cat.png", title: "A cat", at: 200 };
  const root = tree({
    10: [
      { frameId: 0, documentId: "a", report: report({ hover: link }) },
      { frameId: 5, documentId: "f", report: report({ isTop: false, hover: image }) },
    ],
    11: [{ frameId: 0, documentId: "b", report: report({ hover: { ...image, at: 900 } }) }],
  });
  const hovered = walk(root).filter((e) => e.hovered);
  assert.deepEqual(hovered, [{ id: "img-1", role: "Image", hovered: true, title: "A cat", url: "http://127.0.0.1/cat.png" }]);
  const [group] = root.children[0].children[0].children;
  assert.equal(group.subrole, "frame", "the image sits in its frame's Group");
});

test("pickPointing: the focused frame's selection wins over a newer one elsewhere", () => {
  const frames = [
    { frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("top"), selectionAt: 50 }) },
    { frameId: 2, documentId: "f", report: report({ isTop: false, selection: sel("frame"), selectionAt: 90 }) },
  ];
  assert.equal(pickPointing(frames).selectionFrame?.documentId, "top");
  frames[0].report.hasFocus = false;
  assert.equal(pickPointing(frames).selectionFrame?.documentId, "f", "no focus anywhere: the most recent");
});

test("ids: frame, field and hover ids resolve to what they were minted for, and are not reused", () => {
  const ids = new IdRegistry("i");
  assert.equal(ids.frameId(10, "d1"), "frame-1");
  assert.equal(ids.frameId(10, "d1"), "frame-1");
  assert.equal(ids.fieldId(10, "d1", 3), "field-1");
  assert.equal(ids.hoverId(10, "d1", 3, "Link"), "link-1");
  assert.equal(ids.hoverId(10, "d1", 4, "Image"), "img-1");
  assert.deepEqual(ids.resolve("field-1"), { kind: "field", tabId: 10, documentId: "d1", key: 3 });
  assert.deepEqual(ids.resolve("img-1"), { kind: "hover", tabId: 10, documentId: "d1", key: 4 });
  assert.deepEqual(ids.resolve("frame-1"), { kind: "frame", tabId: 10, documentId: "d1" });
});

test("Chromium's PDF viewer is a Document with subrole pdf, its url and the tab's title", () => {
  const root = tree({ 10: [{ frameId: 0, documentId: "pdfdoc", report: report({ url: "http://127.0.0.1/a.pdf", pdf: true }) }] });
  const page = root.children[0].children[0];
  assert.deepEqual(page.children, [
    { id: "doc-1", role: "Document", subrole: "pdf", title: "A", url: "http://127.0.0.1/a.pdf", attributes: { ...BUILTIN_VIEWER_ATTRIBUTES } },
  ]);
  assert.equal(page.children[0].attributes.selection, "unreadable");
  assert.match(page.children[0].attributes.note, /text resource \(read_page\)/);
});

test("a PDF in an iframe, <embed> or <object> is a Document in its frame's place, pointed at or not", () => {
  const root = tree({
    10: [
      { frameId: 0, documentId: "top", report: report({ url: "http://127.0.0.1/page.html", token: "t0" }) },
      { frameId: 3, documentId: "pdf1", report: report({ url: "http://127.0.0.1/files/My%20report.pdf", pdf: true, isTop: false, parentToken: "t0" }) },
    ],
  });
  const page = root.children[0].children[0];
  assert.deepEqual(page.children, [
    { id: "doc-1", role: "Document", subrole: "pdf", title: "My report.pdf", url: "http://127.0.0.1/files/My%20report.pdf", attributes: { selection: "unreadable" } },
  ]);
});

test("pdfTitle: the address's last path segment, decoded", () => {
  assert.equal(pdfTitle("https://example.org/a/b/c%20d.pdf?x=1"), "c d.pdf");
  assert.equal(pdfTitle("https://example.org/"), "");
  assert.equal(pdfTitle("not a url"), "");
  assert.equal(pdfTitle("https://example.org/%E0%A4%A.pdf"), "%E0%A4%A.pdf");
});

const TOP = "00000000000000000000000000000000";
const A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

test("nested iframes are nested frame Groups; the focus path marks every level", () => {
  const root = tree({
    10: [
      { frameId: 0, documentId: "top", report: report({ hasFocus: true, token: TOP }) },
      // Both frames have hasFocus (an ancestor of the focused frame has it too); B is the deepest.
      { frameId: 4, documentId: "a", report: report({ isTop: false, hasFocus: true, url: "http://localhost:9/a.html", token: A, parentToken: TOP }) },
      {
        frameId: 6,
        documentId: "b",
        report: report({ isTop: false, hasFocus: true, url: "http://127.0.0.1:8/b.html", token: B, parentToken: A, selection: sel("deep"), selectionAt: 3 }),
      },
    ],
  });
  const page = root.children[0].children[0];
  assert.deepEqual(page.children, [
    {
      id: "frame-1",
      role: "Group",
      subrole: "frame",
      url: "http://localhost:9/a.html",
      focused: true,
      children: [
        {
          id: "frame-2",
          role: "Group",
          subrole: "frame",
          url: "http://127.0.0.1:8/b.html",
          focused: true,
          children: [{ id: "sel-1", role: "Text", selected: true, content: [{ type: "text", text: "deep" }] }],
        },
      ],
    },
  ]);
  assert.deepEqual(walk(root).filter((e) => e.focused).map((e) => e.role), ["Window", "Page", "Group", "Group"]);
});

test("a frame whose parent is unknown sits in the Page; a forged loop of parents is cut", () => {
  const frames = [
    { frameId: 0, documentId: "top", report: report({ token: TOP }) },
    { frameId: 4, documentId: "a", report: report({ isTop: false, token: A, parentToken: B }) },
    { frameId: 6, documentId: "b", report: report({ isTop: false, token: B, parentToken: A, selection: sel("x"), selectionAt: 1 }) },
  ];
  const parents = frameParents(/** @type {any} */ (frames));
  assert.equal(parents.size, 1);
  const root = tree({ 10: frames });
  const page = root.children[0].children[0];
  // The link A → B is cut; B → A stays: Page → Group(a) → Group(b) → Text.
  assert.equal(page.children.length, 1);
  assert.equal(page.children[0].children[0].children[0].role, "Text");
  assert.equal(JSON.stringify(root).length > 0, true);
});

test("a selection whose hidden text the content script left out says so: attributes.hiddenOmitted", () => {
  const root = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("seen", { hidden: true }) }) }] });
  const [text] = walk(root).filter((e) => e.role === "Text");
  assert.deepEqual(text.attributes, { hiddenOmitted: true });
  const plain = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("seen") }) }] });
  assert.equal(walk(plain).find((e) => e.role === "Text").attributes, undefined);
});

test("a code editor's selection names the editor read, and says when only the DOM's part was: attributes.editor, partial", () => {
  const read = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("let a", { editor: "codemirror", length: 90000 }) }) }] });
  const [text] = walk(read).filter((e) => e.role === "Text");
  assert.deepEqual(text.attributes, { editor: "codemirror", truncated: true, length: 90000 });
  const part = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("let a", { editor: "monaco", partial: true }) }) }] });
  assert.deepEqual(walk(part).find((e) => e.role === "Text").attributes, { editor: "monaco", partial: true });
  const odd = tree({ 10: [{ frameId: 0, documentId: "top", report: report({ hasFocus: true, selection: sel("let a", { editor: "<b>Monaco</b>" }) }) }] });
  assert.equal(walk(odd).find((e) => e.role === "Text").attributes, undefined, "not a short lowercase name: left out");
});
