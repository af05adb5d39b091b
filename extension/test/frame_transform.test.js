// node --test: `location` through CSS-transformed iframes (service_worker/frame_transform.js
// elementLinear, frameMap; location.js levelMove, climb). Numbers are CSS px.
import { test } from "node:test";
import assert from "node:assert/strict";
import { climb, isFrameTransform } from "../service_worker/location.js";
import { elementLinear, frameMap, mapRect } from "../service_worker/frame_transform.js";

/** @param {Record<string, number>} actual @param {Record<string, number>} expected */
const near = (actual, expected, eps = 1e-6) => {
  for (const k of Object.keys(expected)) assert.ok(Math.abs(actual[k] - expected[k]) <= eps, `${k}: ${actual[k]} vs ${expected[k]}`);
};

test("computed transform, rotate and scale values become one linear map", () => {
  near(elementLinear("matrix(0.8, 0, 0, 0.8, 40, 15)", "none", "none"), { a: 0.8, b: 0, c: 0, d: 0.8, e: 0, f: 0 });
  near(elementLinear("none", "90deg", "none"), { a: 0, b: 1, c: -1, d: 0 });
  near(elementLinear("none", "z 0.25turn", "none"), { a: 0, b: 1, c: -1, d: 0 });
  near(elementLinear("none", "none", "0.5 2"), { a: 0.5, b: 0, c: 0, d: 2 });
  near(elementLinear("none", "none", "50%"), { a: 0.5, d: 0.5 });
  // rotate, then scale, then transform (CSS Transforms 2): rotate(90deg) · scale(2, 1)
  near(elementLinear("none", "90deg", "2 1"), { a: 0, b: 2, c: -1, d: 0 });
  // rotateX(60deg) flattened: y shrinks by cos 60°
  near(elementLinear("none", "x 60deg", "none"), { a: 1, b: 0, c: 0, d: 0.5 });
  near(elementLinear("matrix3d(1, 0, 0, 0, 0, 0.5, 0.866, 0, 0, -0.866, 0.5, 0, 10, 20, 0, 1)", "none", "none"), { a: 1, b: 0, c: 0, d: 0.5 });
  // perspective(500px) alone leaves the plane z = 0 as it is; with rotateY(20deg) it is not affine
  near(elementLinear("matrix3d(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -0.002, 0, 0, 0, 1)", "none", "none"), { a: 1, b: 0, c: 0, d: 1 });
  assert.equal(elementLinear("matrix3d(0.94, 0, -0.34, 0.000684, 0, 1, 0, 0, 0.34, 0, 0.94, -0.00188, 0, 0, 0, 1)", "none", "none"), null);
  // nonsense is not understood
  assert.equal(elementLinear("skew(10deg)", "none", "none"), null);
  assert.equal(elementLinear("none", "12 apples", "none"), null);
});

// transformed.html's iframe: 400 x 150 at (300, 200), no border; scale(0.8) about its centre.
const scaled = {
  box: { x: 340, y: 215, w: 320, h: 120 },
  size: { w: 400, h: 150 },
  inset: { x: 0, y: 0, w: 400, h: 150 },
  chain: [["matrix(0.8, 0, 0, 0.8, 0, 0)", "none", "none"]],
};

test("scale: the child's rects shrink and land inside the scaled box", () => {
  const map = frameMap(scaled);
  assert.ok(map);
  near(mapRect(map, { x: 10, y: 30, w: 60, h: 19 }), { x: 348, y: 239, w: 48, h: 15.2 });
});

test("a border and padding: the content box starts inside the border box, scaled too", () => {
  const t = { ...scaled, box: { x: 336, y: 211, w: 330, h: 130 }, size: { w: 412.5, h: 162.5 }, inset: { x: 6.25, y: 6.25, w: 400, h: 150 } };
  near(mapRect(/** @type {any} */ (frameMap(t)), { x: 0, y: 0, w: 10, h: 10 }), { x: 341, y: 216, w: 8, h: 8 });
});

test("nested scales through two levels multiply; the clip is each iframe's scaled content box", () => {
  // outer.html's inner iframe: 300 x 120 at (20, 10), scale(0.5) about its centre → box (95, 40, 150, 60)
  const inner = { box: { x: 95, y: 40, w: 150, h: 60 }, size: { w: 300, h: 120 }, inset: { x: 0, y: 0, w: 300, h: 120 }, chain: [["matrix(0.5, 0, 0, 0.5, 0, 0)", "none", "none"]] };
  const viewport = { x: 0, y: 0, w: 900, h: 613 };
  const measured = { status: /** @type {const} */ ("ok"), rects: [{ x: 10, y: 30, w: 60, h: 19 }], clip: { x: 0, y: 0, w: 300, h: 120 }, depth: 2 };
  const metrics = { innerWidth: 900, innerHeight: 613, screenX: 0, screenY: 0, outerWidth: 900, outerHeight: 700 };
  const offsets = [
    { depth: 1, dx: 0, dy: 0, content: { x: 0, y: 0, w: 0, h: 0 }, viewport: { x: 0, y: 0, w: 400, h: 150 }, transform: inner },
    { depth: 0, dx: 0, dy: 0, content: { x: 0, y: 0, w: 0, h: 0 }, viewport, metrics, transform: scaled },
  ];
  const up = climb(measured, offsets);
  assert.ok(up && up.rects && up.clip);
  // (10, 30) → inner: (100, 55), 30 x 9.5 → top: (340 + 80, 215 + 44) = (420, 259), 24 x 7.6
  near(up.rects[0], { x: 420, y: 259, w: 24, h: 7.6 });
  near(up.clip, { x: 416, y: 247, w: 120, h: 48 });
});

test("rotation: a rect becomes the bounding box of its rotated corners", () => {
  const r = Math.PI / 2;
  // 400 x 150 rotated 90° about its centre (500, 275): the box is 150 x 400 at (425, 75)
  const t = { ...scaled, box: { x: 425, y: 75, w: 150, h: 400 }, chain: [[`matrix(${Math.cos(r)}, ${Math.sin(r)}, ${-Math.sin(r)}, ${Math.cos(r)}, 0, 0)`, "none", "none"]] };
  const map = frameMap(t);
  assert.ok(map);
  // the content's top-left corner (0, 0) lands at the box's top-right
  near(mapRect(map, { x: 0, y: 0, w: 40, h: 20 }), { x: 555, y: 75, w: 20, h: 40 }, 1e-9);
});

test("CSS zoom: the layout size is unzoomed, the box and the content are zoomed", () => {
  // zoom 0.8 on the iframe (400 x 150 at (300, 200)): its box is 320 x 120 at (240, 160)
  const t = { box: { x: 240, y: 160, w: 320, h: 120 }, size: { w: 400, h: 150 }, inset: { x: 0, y: 0, w: 400, h: 150 }, chain: [], zoom: 0.8 };
  near(mapRect(/** @type {any} */ (frameMap(t)), { x: 10, y: 30, w: 100, h: 20 }), { x: 248, y: 184, w: 80, h: 16 });
  assert.equal(frameMap({ ...t, zoom: undefined }), null, "unzoomed, the measured box is not the predicted one");
  assert.equal(isFrameTransform({ ...t, zoom: -1 }), false);
});

test("no answer where the model does not hold: the iframe's bounding box stands for everything", () => {
  assert.equal(frameMap({ ...scaled, perspective: true }), null);
  assert.equal(frameMap({ ...scaled, box: { ...scaled.box, w: 300 } }), null); // not what was measured
  const metrics = { innerWidth: 900, innerHeight: 613, screenX: 0, screenY: 0, outerWidth: 900, outerHeight: 700 };
  const offsets = [{ depth: 0, dx: 0, dy: 0, content: { x: 0, y: 0, w: 0, h: 0 }, viewport: { x: 0, y: 0, w: 900, h: 613 }, metrics, transform: { ...scaled, perspective: true } }];
  const up = climb({ status: "ok", rects: [{ x: 10, y: 30, w: 60, h: 19 }], depth: 1 }, offsets);
  assert.deepEqual(up?.rects, [scaled.box]);
});

test("untransformed levels still move by (dx, dy); malformed transform facts are refused", () => {
  const metrics = { innerWidth: 900, innerHeight: 613, screenX: 0, screenY: 0, outerWidth: 900, outerHeight: 700 };
  const offsets = [{ depth: 0, dx: 300, dy: 200, content: { x: 300, y: 200, w: 400, h: 150 }, viewport: { x: 0, y: 0, w: 900, h: 613 }, metrics }];
  assert.deepEqual(climb({ status: "ok", rects: [{ x: 10, y: 30, w: 60, h: 19 }], depth: 1 }, offsets)?.rects, [{ x: 310, y: 230, w: 60, h: 19 }]);
  assert.equal(isFrameTransform(scaled), true);
  assert.equal(isFrameTransform({ ...scaled, chain: [["none", "none"]] }), false);
  assert.equal(isFrameTransform({ ...scaled, size: { w: "400", h: 150 } }), false);
  assert.equal(isFrameTransform({ ...scaled, chain: Array(66).fill(["none", "none", "none"]) }), false);
});
