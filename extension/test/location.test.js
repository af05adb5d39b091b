import { test } from "node:test";
import assert from "node:assert/strict";
import {
  mergeLineRects,
  viewportOrigin,
  toPoints,
  pageAnswer,
  windowAnswer,
  boundingBox,
  nearViewport,
  avoidBox,
  MAX_ANSWER_RECTS,
} from "../service_worker/location.js";

test("fragments on one line merge; lines stay separate, top to bottom", () => {
  const merged = mergeLineRects([
    { x: 50, y: 30, w: 40, h: 18 },
    { x: 10, y: 10, w: 30, h: 18 },
    { x: 40, y: 10, w: 25, h: 18 },
    { x: 65, y: 11, w: 10, h: 16 },
    { x: 10, y: 30, w: 40, h: 18 },
  ]);
  assert.deepEqual(merged, [
    { x: 10, y: 10, w: 65, h: 18 },
    { x: 10, y: 30, w: 80, h: 18 },
  ]);
});

test("empty and non-finite fragments are dropped; far-apart boxes on a band stay apart", () => {
  const merged = mergeLineRects([
    { x: 0, y: 0, w: 0, h: 18 },
    { x: 1, y: 0, w: NaN, h: 18 },
    { x: 10, y: 0, w: 20, h: 18 },
    { x: 300, y: 0, w: 20, h: 18 },
  ]);
  assert.deepEqual(merged, [
    { x: 10, y: 0, w: 20, h: 18 },
    { x: 300, y: 0, w: 20, h: 18 },
  ]);
});

const metrics = { innerWidth: 780, innerHeight: 493, screenX: 10, screenY: 10, outerWidth: 780, outerHeight: 580 };

test("the viewport origin falls back to the window geometry (toolbars on top)", () => {
  assert.deepEqual(viewportOrigin(metrics, 1), { x: 10, y: 97, source: "window" });
  const zoomed = { ...metrics, innerWidth: 520, innerHeight: 493 / 1.5 };
  assert.deepEqual(viewportOrigin(zoomed, 1.5), { x: 10, y: 97, source: "window" });
  const bordered = { ...metrics, outerWidth: 790, outerHeight: 590 };
  assert.deepEqual(viewportOrigin(bordered, 1), { x: 15, y: 102, source: "window" });
});

test("a pointer sample calibrates the origin and follows a window move", () => {
  const pointer = { screenX: 475, screenY: 292, clientX: 310, clientY: 130, windowX: 10, windowY: 10, innerWidth: 520 };
  const m = { ...metrics, innerWidth: 520, screenX: 110, screenY: 60, pointer };
  assert.deepEqual(viewportOrigin(m, 1.5), { x: 110, y: 147, source: "pointer" });
  // zoom changed since the sample: the viewport width differs, so the window geometry is used
  assert.equal(viewportOrigin({ ...m, innerWidth: 780 }, 1).source, "window");
});

test("CSS px become points with the zoom", () => {
  assert.deepEqual(toPoints({ x: 100, y: 50, w: 32, h: 18 }, { x: 10, y: 97 }, 1.5), { x: 160, y: 172, w: 48, h: 27 });
});

test("pageAnswer: visible, offscreen when scrolled out or in a background tab, gone", () => {
  const measured = { status: "ok", rects: [{ x: 100, y: 50, w: 30, h: 18 }, { x: 130, y: 50, w: 2, h: 18 }], merge: true, avoid: true, metrics };
  const visible = pageAnswer(/** @type {any} */ (measured), { zoom: 1, tabShown: true });
  assert.deepEqual(visible, { state: "visible", rects: [{ x: 110, y: 147, w: 32, h: 18 }], avoid: { x: 110, y: 147, w: 32, h: 18 } });
  assert.equal(pageAnswer(/** @type {any} */ (measured), { zoom: 1, tabShown: false }).state, "offscreen");
  const below = { ...measured, rects: [{ x: 100, y: 900, w: 30, h: 18 }] };
  assert.equal(pageAnswer(/** @type {any} */ (below), { zoom: 1, tabShown: true }).state, "offscreen");
  const clipped = { ...measured, clip: { x: 0, y: 0, w: 50, h: 50 } };
  assert.equal(pageAnswer(/** @type {any} */ (clipped), { zoom: 1, tabShown: true }).state, "offscreen");
  assert.deepEqual(pageAnswer(/** @type {any} */ ({ status: "gone" }), { zoom: 1, tabShown: true }), { state: "gone", rects: [] });
});

test("windowAnswer and boundingBox", () => {
  assert.deepEqual(windowAnswer({ left: 100, top: 50, width: 780, height: 580, state: "normal" }), {
    state: "visible",
    rects: [{ x: 100, y: 50, w: 780, h: 580 }],
  });
  assert.equal(windowAnswer({ state: "minimized" }).state, "offscreen");
  assert.equal(boundingBox([]), null);
});

test("climb: a subframe's rects move through every <iframe> into the top viewport, clipped by each", async () => {
  const { climb } = await import("../service_worker/location.js");
  const measured = { status: "ok", rects: [{ x: 10, y: 30, w: 100, h: 20 }], clip: { x: 0, y: 0, w: 400, h: 150 }, depth: 2, merge: true };
  const inner = { depth: 1, dx: 5, dy: 7, content: { x: 5, y: 7, w: 300, h: 100 }, viewport: { x: 0, y: 0, w: 500, h: 500 } };
  const top = { depth: 0, dx: 300, dy: 200, content: { x: 300, y: 200, w: 400, h: 150 }, viewport: { x: 0, y: 0, w: 780, h: 493 }, metrics };
  assert.equal(climb(/** @type {any} */ (measured), [top]), null, "a level is missing");
  const done = climb(/** @type {any} */ (measured), [top, inner]);
  assert.deepEqual(done?.rects, [{ x: 315, y: 237, w: 100, h: 20 }]);
  assert.deepEqual(done?.clip, { x: 305, y: 207, w: 300, h: 100 });
  assert.equal(done?.metrics, metrics);
  assert.equal(done?.depth, 0);
  const topLevel = { status: "ok", rects: [], depth: 0 };
  assert.equal(climb(/** @type {any} */ (topLevel), []), topLevel);
});

test("a long selection: rects beyond one viewport are dropped, avoid is what the viewport shows", () => {
  // 2000 lines of 18 px (what locate.js sends at most) from y = -18,000: the viewport (780 × 493)
  // sits in the middle.
  const lines = Array.from({ length: 2000 }, (_, i) => ({ x: 8, y: -18000 + i * 18, w: 700, h: 18 }));
  const measured = { status: "ok", rects: lines, merge: true, avoid: true, metrics };
  const answer = pageAnswer(/** @type {any} */ (measured), { zoom: 1, tabShown: true });
  assert.equal(answer.state, "visible");
  assert.ok(answer.rects.length <= Math.ceil((3 * 493) / 18) + 2, `${answer.rects.length} rects`);
  for (const r of answer.rects) assert.ok(r.y + r.h > 97 - 493 && r.y < 97 + 2 * 493, JSON.stringify(r));
  // avoid: the selection as far as the viewport shows it, in points (origin 10, 97)
  assert.deepEqual(answer.avoid, { x: 18, y: 97, w: 700, h: 493 });
});

test("nearViewport keeps the nearest rect of an element far away, and caps the count", () => {
  const viewport = { x: 0, y: 0, w: 800, h: 500 };
  const far = [{ x: 0, y: 5000, w: 10, h: 10 }, { x: 0, y: 3000, w: 10, h: 10 }];
  assert.deepEqual(nearViewport(far, viewport), [{ x: 0, y: 3000, w: 10, h: 10 }]);
  assert.deepEqual(nearViewport([], viewport), []);
  const many = Array.from({ length: 2000 }, (_, i) => ({ x: i % 700, y: (i % 400) + 10, w: 5, h: 5 }));
  assert.equal(nearViewport(many, viewport).length, MAX_ANSWER_RECTS);
});

test("avoidBox clips to what is shown, and falls back to the whole box offscreen", () => {
  const shown = { x: 0, y: 0, w: 100, h: 100 };
  assert.deepEqual(avoidBox([{ x: 10, y: 50, w: 50, h: 200 }, { x: 0, y: 400, w: 10, h: 10 }], shown), { x: 10, y: 50, w: 50, h: 50 });
  assert.deepEqual(avoidBox([{ x: 0, y: 400, w: 10, h: 10 }], shown), { x: 0, y: 400, w: 10, h: 10 });
  assert.equal(avoidBox([], shown), null);
});
