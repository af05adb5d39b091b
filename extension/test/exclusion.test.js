// node --test: which frame reports, tabs and page reads exclusion keeps out (service_worker/exclusion.js).
import assert from "node:assert/strict";
import test from "node:test";

import { framesRefusal, sharedFrames, tabExcluded } from "../service_worker/exclusion.js";

const SETTINGS = { excludedSites: ["bank.test"], localFiles: false };

/** @param {number} frameId @param {string} url @param {string} [origin] */
function frame(frameId, url, origin) {
  const report = { isTop: frameId === 0, hasFocus: false, url, selection: null, selectionAt: 0, focus: null, hover: null };
  return origin === undefined ? { frameId, documentId: `d${frameId}`, report } : { frameId, documentId: `d${frameId}`, report, origin };
}

test("one filter for pushed and pulled reports: by the frame's origin, else its address", () => {
  const frames = new Map([
    [1, [frame(0, "https://shop.test/", "https://shop.test"), frame(1, "about:blank", "https://bank.test"), frame(2, "https://bank.test/w")]],
    [2, [frame(0, "about:blank", "https://bank.test")]],
    [3, [frame(0, "file:///tmp/a.html", "file://")]],
  ]);
  const kept = sharedFrames(frames, SETTINGS);
  assert.deepEqual([...kept.keys()], [1]);
  assert.deepEqual(kept.get(1)?.map((f) => f.frameId), [0]);
  assert.deepEqual([...sharedFrames(frames, { excludedSites: [], localFiles: true }).keys()], [1, 2, 3]);
});

test("a document with no site of its own (sandboxed srcdoc, data:) goes with the frame that holds it", () => {
  const withTokens = (/** @type {any} */ f, /** @type {string} */ token, /** @type {string | undefined} */ parentToken) => ({
    ...f,
    report: { ...f.report, token, ...(parentToken ? { parentToken } : {}) },
  });
  const t = (/** @type {string} */ c) => c.repeat(32);
  const top = withTokens(frame(0, "https://shop.test/", "https://shop.test"), t("a"));
  const bank = withTokens(frame(1, "https://bank.test/w", "https://bank.test"), t("b"), t("a"));
  const sandboxed = withTokens(frame(2, "about:srcdoc", "null"), t("c"), t("b"));
  const data = withTokens(frame(3, "data:text/html,hi", "null"), t("d"), t("c"));
  const allowedInBank = withTokens(frame(4, "https://maps.test/", "https://maps.test"), t("e"), t("b"));
  const sandboxedInShop = withTokens(frame(5, "about:srcdoc", "null"), t("f"), t("a"));
  const frames = new Map([[1, [top, bank, sandboxed, data, allowedInBank, sandboxedInShop]]]);
  assert.deepEqual(sharedFrames(frames, SETTINGS).get(1)?.map((f) => f.frameId), [0, 4, 5]);
  // Not linked to its parent yet: a subframe is not shown until it is; a top document stands alone.
  const unlinked = { ...sandboxedInShop, report: { ...sandboxedInShop.report, parentToken: undefined } };
  const dataTop = frame(0, "data:text/html,hi", "null");
  assert.deepEqual(sharedFrames(new Map([[1, [top, unlinked]], [2, [dataTop]]]), SETTINGS).get(1)?.map((f) => f.frameId), [0]);
  assert.equal(sharedFrames(new Map([[2, [dataTop]]]), SETTINGS).get(2)?.length, 1);
});

test("a tab is excluded by its address or by its top document's reported origin", () => {
  const top = new Map([[7, { url: "about:blank", origin: "https://bank.test" }]]);
  const site = (/** @type {number} */ id) => top.get(id);
  assert.equal(tabExcluded({ id: 7, url: "about:blank" }, SETTINGS, site), true);
  assert.equal(tabExcluded({ id: 8, url: "about:blank" }, SETTINGS, site), false);
  assert.equal(tabExcluded({ id: 8, url: "https://www.bank.test/" }, SETTINGS, site), true);
  assert.equal(tabExcluded({ id: 8, url: "file:///tmp/a.html" }, SETTINGS, site), true);
  assert.equal(tabExcluded({ id: 8, url: "file:///tmp/a.html" }, { ...SETTINGS, localFiles: true }, site), false);
});

test("page reads: the top document for text, every frame on screen for a screenshot", () => {
  const top = { frameId: 0, url: "https://shop.test/", origin: "https://shop.test", visible: true };
  assert.equal(framesRefusal([top], SETTINGS), null);
  const bankFrame = { frameId: 3, url: "https://bank.test/widget", origin: "https://bank.test", visible: true };
  assert.deepEqual(framesRefusal([top, bankFrame], SETTINGS), {
    code: "not_shared",
    message:
      "The page shows a frame of an excluded site (bank.test); remove it from Excluded sites in webctx's options to allow screenshots of this page.",
  });
  assert.equal(framesRefusal([top, { ...bankFrame, visible: false }], SETTINGS), null); // a 0×0 frame shows nothing
  assert.equal(framesRefusal([top, { ...bankFrame, url: "about:blank" }], SETTINGS)?.code, "not_shared");
  const blankTop = { frameId: 0, url: "about:blank", origin: "https://bank.test", visible: true };
  assert.match(framesRefusal([blankTop], SETTINGS)?.message ?? "", /site the user excluded/);
  const fileTop = { frameId: 0, url: "file:///tmp/a.html", origin: "file://", visible: true };
  assert.match(framesRefusal([fileTop], SETTINGS)?.message ?? "", /Share local files \(file:\/\/\)/);
  assert.equal(framesRefusal([fileTop], { ...SETTINGS, localFiles: true }), null);
});
