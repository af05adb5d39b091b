// service_worker/page_frames.js: the markers content/page_text.js leaves for frames of other
// origins, replaced by those frames' texts, never an excluded site's.
import { test } from "node:test";
import assert from "node:assert/strict";

import { markersOf, mergeMarked, withFrameTexts } from "../service_worker/page_frames.js";

const NONCE = "0123456789abcdef";
const TOKEN_A = "a".repeat(32);
const TOKEN_B = "b".repeat(32);
const TOKEN_C = "c".repeat(32);
const mark = (/** @type {number} */ i) => `webctxframe${NONCE}x${i}`;
const settings = { excludedSites: ["bank.example"], localFiles: false };

test("markers are held to their shapes", () => {
  assert.equal(markersOf({ markdown: "x" }), null);
  assert.equal(markersOf({ frames: { nonce: "short", marks: [{ marker: mark(0), token: TOKEN_A }] } }), null);
  const found = markersOf({ frames: { nonce: NONCE, marks: [{ marker: mark(0), token: TOKEN_A }, { marker: "other", token: TOKEN_B }, { marker: mark(2), token: "x" }] } });
  assert.deepEqual(found, { nonce: NONCE, marks: [{ marker: mark(0), token: TOKEN_A }] });
});

test("mergeMarked puts each text in its place and drops markers left, a cut one at the end too", () => {
  const markers = { nonce: NONCE, marks: [{ marker: mark(0) }, { marker: mark(1) }] };
  const texts = new Map([[mark(0), "Frame words."]]);
  assert.equal(mergeMarked(`Before.\n\n${mark(0)}\n\nMiddle ${mark(1)} after. webctxframe${NONCE}x9`, markers, texts), "Before.\n\nFrame words.\n\nMiddle  after. ");
  assert.equal(mergeMarked(`Cut here webctxframe${NONCE.slice(0, 5)}`, markers, texts), "Cut here ");
});

test("withFrameTexts reads the marked frames, nested ones too, and never an excluded site's", async () => {
  const docs = [
    { frameId: 3, token: TOKEN_A, url: "https://maps.example/embed", origin: "https://maps.example" },
    { frameId: 4, token: TOKEN_B, url: "https://bank.example/balance", origin: "https://bank.example" },
    { frameId: 5, token: TOKEN_C, url: "about:srcdoc", origin: "null" },
  ];
  /** @type {number[]} */
  const read = [];
  const answers = new Map([
    [3, { markdown: `Map words. ${mark(0)}`, frames: { nonce: NONCE, marks: [{ marker: mark(0), token: TOKEN_C }] } }],
    [4, { markdown: "Balance 98765" }],
    [5, { markdown: "Sandboxed words." }],
  ]);
  const top = {
    markdown: `# Top\n\nBefore.\n\n${mark(0)}\n\n${mark(1)}\n\nAfter.`,
    bytes: 40,
    frames: { nonce: NONCE, marks: [{ marker: mark(0), token: TOKEN_A }, { marker: mark(1), token: TOKEN_B }] },
  };
  const result = /** @type {Record<string, unknown>} */ (
    await withFrameTexts(7, top, {
      frameTokens: async () => docs,
      readFrame: async (_tab, frameId) => {
        read.push(frameId);
        return answers.get(frameId);
      },
      settings,
      maxBytes: 1 << 20,
    })
  );
  assert.equal(result.markdown, "# Top\n\nBefore.\n\nMap words. Sandboxed words.\n\n\n\nAfter.");
  assert.deepEqual(read, [3, 5]); // the bank's frame is never even read
  assert.equal(result.frames, undefined);
  assert.equal(result.bytes, 40 + new TextEncoder().encode(String(result.markdown)).length - new TextEncoder().encode(top.markdown).length);
});

test("withFrameTexts without the frames' list drops the markers", async () => {
  const top = { markdown: `A ${mark(0)} B`, frames: { nonce: NONCE, marks: [{ marker: mark(0), token: TOKEN_A }] } };
  const result = /** @type {Record<string, unknown>} */ (
    await withFrameTexts(7, top, {
      frameTokens: async () => {
        throw new Error("No tab with id: 7");
      },
      readFrame: async () => assert.fail("no frame is read"),
      settings,
      maxBytes: 1 << 20,
    })
  );
  assert.equal(result.markdown, "A  B");
});
