// Pure: the map through a CSS-transformed <iframe> (docs/internals/protocol.md "location",
// CSS-transformed iframes). location.js `levelMove` uses it for each level of a climb.
//
//   content/locate.js   the iframe's bounding box, its layout size and content inset, the computed
//                       [transform, rotate, scale] of each transformed element above it, the zoom
//   this module         `elementLinear` (one element's linear part), `frameMap` (the chain's
//                       product, placed by the bounding box and checked against it), `mapRect`
//
// Units: CSS px. No chrome.* here: node tests import it (extension/test/frame_transform.test.js).

/** @typedef {import("./location.js").Rect} Rect */
/** @typedef {import("./location.js").FrameTransform} FrameTransform */

/**
 * A 2D affine map, DOMMatrix order: X = a·x + c·y + e, Y = b·x + d·y + f.
 * @typedef {{a: number, b: number, c: number, d: number, e: number, f: number}} Affine
 */

/** @param {Affine} m @param {Affine} n @returns {Affine} m ∘ n (n applied first) */
export function multiply(m, n) {
  return {
    a: m.a * n.a + m.c * n.b,
    b: m.b * n.a + m.d * n.b,
    c: m.a * n.c + m.c * n.d,
    d: m.b * n.c + m.d * n.d,
    e: m.a * n.e + m.c * n.f + m.e,
    f: m.b * n.e + m.d * n.f + m.f,
  };
}

const IDENTITY = Object.freeze({ a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 });

/**
 * The linear part of one element's transform, from its computed `transform`, `rotate` and `scale`
 * (CSS Transforms 2 §6: translate, then rotate, then scale, then transform; translations and the
 * transform-origin only move, so they are left out: `frameMap` finds the move from the iframe's
 * bounding box). 3D transforms are flattened (z = 0 in, z dropped out); null when the element's
 * transform is not affine in 2D (a perspective in a matrix3d) or a value is not understood.
 * @param {string} transform computed: "none", "matrix(a, b, c, d, e, f)" or "matrix3d(16 numbers)"
 * @param {string} rotate computed: "none", "45deg", "z 45deg", "x 45deg", "1 1 0 45deg", …
 * @param {string} scale computed: "none", "0.8", "0.8 0.5", "0.8 0.5 2" (numbers or percentages)
 * @returns {Affine | null}
 */
export function elementLinear(transform, rotate, scale) {
  const m = parseMatrix(transform);
  const r = parseRotate(rotate);
  const s = parseScale(scale);
  if (!m || !r || !s) return null;
  return multiply(multiply(r, s), m);
}

/** @param {string} value @returns {Affine | null} */
function parseMatrix(value) {
  if (!value || value === "none") return { ...IDENTITY };
  const match = /^(matrix|matrix3d)\(([^)]*)\)$/.exec(value.trim());
  if (!match) return null;
  const v = match[2].split(",").map(Number);
  if (!v.every(Number.isFinite)) return null;
  if (match[1] === "matrix") return v.length === 6 ? { a: v[0], b: v[1], c: v[2], d: v[3], e: 0, f: 0 } : null;
  // Column-major m11 m12 m13 m14 m21 …; a point (x, y, 0, 1) stays affine when m14 = m24 = 0, m44 = 1.
  if (v.length !== 16 || v[3] !== 0 || v[7] !== 0 || v[15] !== 1) return null;
  return { a: v[0], b: v[1], c: v[4], d: v[5], e: 0, f: 0 };
}

/** @param {string} value @returns {Affine | null} */
function parseRotate(value) {
  if (!value || value === "none") return { ...IDENTITY };
  const parts = value.trim().split(/\s+/);
  const angle = parseAngle(parts.pop() ?? "");
  if (angle === null) return null;
  /** @type {Record<string, number[]>} */
  const named = { x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1] };
  const axis = parts.length === 0 ? [0, 0, 1] : parts.length === 1 ? named[parts[0]] : parts.map(Number);
  if (!axis || axis.length !== 3 || !axis.every(Number.isFinite)) return null;
  const norm = Math.hypot(...axis);
  if (norm === 0) return { ...IDENTITY };
  const [x, y, z] = axis.map((n) => n / norm);
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  // Rodrigues' rotation matrix, its top-left 2×2 (z = 0 in, z dropped out).
  return {
    a: cos + x * x * (1 - cos),
    b: y * x * (1 - cos) + z * sin,
    c: x * y * (1 - cos) - z * sin,
    d: cos + y * y * (1 - cos),
    e: 0,
    f: 0,
  };
}

/** @param {string} value @returns {number | null} radians */
function parseAngle(value) {
  const match = /^(-?[\d.]+(?:e[-+]?\d+)?)(deg|rad|grad|turn)$/i.exec(value);
  if (!match) return null;
  const n = Number(match[1]);
  /** @type {Record<string, number>} */
  const per = { deg: Math.PI / 180, rad: 1, grad: Math.PI / 200, turn: 2 * Math.PI };
  return Number.isFinite(n) ? n * per[match[2].toLowerCase()] : null;
}

/** @param {string} value @returns {Affine | null} */
function parseScale(value) {
  if (!value || value === "none") return { ...IDENTITY };
  const v = value.trim().split(/\s+/).map((p) => (p.endsWith("%") ? Number(p.slice(0, -1)) / 100 : Number(p)));
  if (v.length < 1 || v.length > 3 || !v.every(Number.isFinite)) return null;
  return { a: v[0], b: 0, c: 0, d: v[1] ?? v[0], e: 0, f: 0 };
}

/**
 * Where a CSS-transformed <iframe>'s content lands in its parent frame: the map from the child
 * frame's viewport (its CSS px) to the parent's viewport. The linear part is the product of the
 * chain's transforms (outermost first); the move follows from the iframe's bounding box, whose
 * top-left is the top-left of the transformed border box's corners. Exact for any 2D transform
 * (scale, translate, rotate, skew, flips, nested); a rect through a rotation or skew becomes its
 * bounding box (design.md §1.2 rects are axis-aligned). Null where the model does not hold (a
 * perspective, a value not understood, or the bounding box it predicts is not the one measured,
 * e.g. a motion path): the caller then places everything at the iframe's bounding box.
 * @param {FrameTransform} t
 * @returns {Affine | null}
 */
export function frameMap(t) {
  if (t.perspective || t.chain.length > 64) return null;
  // CSS zoom scales layout (the size and inset are given unzoomed) and the frame's content alike.
  const zoom = t.zoom ?? 1;
  let linear = /** @type {Affine} */ ({ ...IDENTITY, a: zoom, d: zoom });
  for (const entry of t.chain) {
    const next = elementLinear(entry[0] ?? "none", entry[1] ?? "none", entry[2] ?? "none");
    if (!next) return null;
    linear = multiply(linear, next);
  }
  const box = mapRect(linear, { x: 0, y: 0, w: t.size.w, h: t.size.h });
  // The model's bounding box must be the measured one (0.5 px and 0.5 % for sub-pixel layout).
  const tolerance = 0.5 + 0.005 * Math.max(t.box.w, t.box.h);
  if (Math.abs(box.w - t.box.w) > tolerance || Math.abs(box.h - t.box.h) > tolerance) return null;
  const placed = { ...linear, e: t.box.x - box.x, f: t.box.y - box.y };
  // The child's viewport starts at the content box's top-left.
  return multiply(placed, { ...IDENTITY, e: t.inset.x, f: t.inset.y });
}

/**
 * A rect through a map: the bounding box of its transformed corners.
 * @param {Affine} m
 * @param {Rect} r
 * @returns {Rect}
 */
export function mapRect(m, r) {
  const corners = [
    [r.x, r.y],
    [r.x + r.w, r.y],
    [r.x, r.y + r.h],
    [r.x + r.w, r.y + r.h],
  ].map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}
