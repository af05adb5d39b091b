// Pure geometry for the `location` tool (design.md §1.2, docs/internals/protocol.md "location").
//
//   content script (the element's frame)      rects in that frame's viewport, CSS px; its depth
//   each parent frame's content script         its <iframe>'s content-box offset and its viewport
//   the top frame's content script             viewport metrics + the latest pointer calibration
//   this module                                `climb`: compose the levels into top-viewport CSS px,
//                                              clipped by every iframe (through a CSS-transformed
//                                              one: frame_transform.js); × zoom + the viewport's
//                                              screen origin → points; line merge; state
//
// Points are the browser's DIPs (device-independent pixels): the units of chrome.windows bounds,
// window.screenX and MouseEvent.screenX. They do not depend on the device scale factor. A CSS px
// of the page is `zoom` points (chrome.tabs.getZoom). No chrome.* here: node tests import it.

import { frameMap, mapRect } from "./frame_transform.js";

/** @typedef {{x: number, y: number, w: number, h: number}} Rect */

/**
 * What the top frame's content script measures about its window (docs/internals/protocol.md).
 * @typedef {object} ViewportMetrics
 * @property {number} innerWidth     the top viewport, CSS px (window.innerWidth)
 * @property {number} innerHeight
 * @property {number} screenX        the window's outer top-left on the screen, points (window.screenX)
 * @property {number} screenY
 * @property {number} outerWidth     the window's outer size, points
 * @property {number} outerHeight
 * @property {PointerSample} [pointer]  the latest pointer event seen by the top frame
 * @property {boolean} [visible]    document.visibilityState is "visible" (false: a minimized
 *                                  window or a background tab)
 */

/**
 * One pointer event in the top frame: `screen*` in points, `client*` in CSS px; `window*` and
 * `innerWidth` as they were at that moment (to detect a window moved or zoomed since).
 * @typedef {object} PointerSample
 * @property {number} screenX
 * @property {number} screenY
 * @property {number} clientX
 * @property {number} clientY
 * @property {number} windowX
 * @property {number} windowY
 * @property {number} innerWidth
 */

/** Fragments closer than this (in the input unit), or than a line height, merge on one line. */
const MERGE_GAP = 1;

/**
 * Merge rectangle fragments into one rect per line (design.md §1.2: "one rect per line, adjacent
 * fragments on a line merged"). Fragments are on the same line when their vertical extents
 * overlap by at least half the smaller height. Empty rects (w or h ≤ 0) are dropped. The result is
 * sorted top to bottom, then left to right. Units are whatever the input uses.
 * @param {Rect[]} rects
 * @returns {Rect[]}
 */
export function mergeLineRects(rects) {
  const lines = /** @type {Rect[]} */ ([]);
  const sorted = rects
    .filter((r) => isFiniteRect(r) && r.w > 0 && r.h > 0)
    .sort((a, b) => a.y - b.y || a.x - b.x);
  for (const rect of sorted) {
    const line = lines.find((l) => sameLine(l, rect));
    if (line) Object.assign(line, union(line, rect));
    else lines.push({ ...rect });
  }
  // A line merged from its fragments may now overlap the next one's box; merge until stable.
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < lines.length && !changed; i++) {
      for (let j = i + 1; j < lines.length; j++) {
        if (sameLine(lines[i], lines[j])) {
          lines[i] = union(lines[i], lines[j]);
          lines.splice(j, 1);
          changed = true;
          break;
        }
      }
    }
  }
  return lines.sort((a, b) => a.y - b.y || a.x - b.x);
}

/** @param {Rect} a @param {Rect} b */
function sameLine(a, b) {
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (overlap < Math.min(a.h, b.h) / 2) return false;
  // Same band: adjacent when the horizontal gap is under a line height (inline boxes, spaces);
  // farther apart (table cells, columns) they stay separate rects.
  const gap = Math.max(a.x, b.x) - Math.min(a.x + a.w, b.x + b.w);
  return gap <= Math.max(MERGE_GAP, Math.min(a.h, b.h));
}

/** @param {Rect} a @param {Rect} b @returns {Rect} the smallest rect holding both */
export function union(a, b) {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** @param {Rect[]} rects @returns {Rect | null} the bounding box, or null when there are none */
export function boundingBox(rects) {
  return rects.length === 0 ? null : rects.reduce(union);
}

/** @param {Rect} a @param {Rect} b @returns {boolean} whether the two share some area */
export function intersects(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** @param {unknown} r @returns {r is Rect} */
export function isFiniteRect(r) {
  if (typeof r !== "object" || r === null) return false;
  const { x, y, w, h } = /** @type {Record<string, unknown>} */ (r);
  return [x, y, w, h].every((v) => typeof v === "number" && Number.isFinite(v));
}

/**
 * Where the top viewport's top-left corner is on the screen, in points.
 *
 * Preferred: the latest pointer event, `screenX − clientX·zoom` (exact, whatever the browser's
 * toolbars look like), moved by however far the window moved since; it is not used when the zoom
 * or the viewport width changed since (`innerWidth` differs). Otherwise the window geometry: the
 * viewport is centred horizontally in the outer window and sits at its bottom, with the side
 * border repeated below it (Chromium's layout: toolbars on top, equal thin borders elsewhere).
 * @param {ViewportMetrics} metrics
 * @param {number} zoom the tab's zoom factor (1 = 100 %)
 * @returns {{x: number, y: number, source: "pointer" | "window"}}
 */
export function viewportOrigin(metrics, zoom) {
  const p = metrics.pointer;
  if (p && Math.abs(p.innerWidth - metrics.innerWidth) < 0.5) {
    return {
      x: p.screenX - p.clientX * zoom + (metrics.screenX - p.windowX),
      y: p.screenY - p.clientY * zoom + (metrics.screenY - p.windowY),
      source: "pointer",
    };
  }
  const side = Math.max(0, (metrics.outerWidth - metrics.innerWidth * zoom) / 2);
  return {
    x: metrics.screenX + side,
    y: metrics.screenY + Math.max(0, metrics.outerHeight - metrics.innerHeight * zoom - side),
    source: "window",
  };
}

/**
 * Convert a rect in top-viewport CSS px to global points.
 * @param {Rect} rect CSS px, relative to the top viewport
 * @param {{x: number, y: number}} origin the viewport's screen origin, points
 * @param {number} zoom
 * @returns {Rect} points
 */
export function toPoints(rect, origin, zoom) {
  return {
    x: round2(origin.x + rect.x * zoom),
    y: round2(origin.y + rect.y * zoom),
    w: round2(rect.w * zoom),
    h: round2(rect.h * zoom),
  };
}

/** @param {number} v @returns {number} `v` rounded to 1/100 (answers stay short) */
function round2(v) {
  return Math.round(v * 100) / 100;
}

/**
 * A measurement the top frame's content script returns for one element (docs/internals/protocol.md).
 * @typedef {object} Measured
 * @property {"ok" | "gone"} status
 * @property {Rect[]} [rects]    CSS px in the top viewport (already moved through every iframe)
 * @property {Rect} [clip]       the part of the top viewport the element's frame shows, CSS px
 * @property {boolean} [merge]   merge fragments per line (Text)
 * @property {boolean} [avoid]   add `avoid` = the bounding box (Text)
 * @property {ViewportMetrics} [metrics]
 * @property {number} [depth]    the measuring frame's depth (0: the top document)
 */

/**
 * What a parent frame says about the <iframe> a measurement climbs through (content/locate.js).
 * @typedef {object} FrameOffset
 * @property {number} depth     the depth of the frame that holds the <iframe> (0: top document)
 * @property {number} dx        the iframe's content box origin in that frame, CSS px
 * @property {number} dy
 * @property {Rect} content     the iframe's content box in that frame, CSS px
 * @property {Rect} viewport    that frame's viewport, CSS px
 * @property {ViewportMetrics} [metrics]  from the top frame (depth 0)
 * @property {FrameTransform} [transform]  only when the <iframe> or an ancestor is CSS-transformed:
 *   then `dx`, `dy` and `content` are not used (see `frameMap`)
 */

/**
 * What a parent frame measures about a CSS-transformed <iframe> (content/locate.js), in its CSS px.
 * @typedef {object} FrameTransform
 * @property {Rect} box        the iframe's getBoundingClientRect(): its transformed border box's
 *                             bounding box in that frame's viewport
 * @property {{w: number, h: number}} size  its border box before transforms (layout size)
 * @property {Rect} inset      its content box inside the border box, before transforms
 * @property {string[][]} chain  [transform, rotate, scale] computed values of each element from the
 *                             root element down to the iframe whose value is not all "none"
 * @property {boolean} [perspective]  an element on the way has a `perspective`
 * @property {number} [zoom]   the product of the CSS `zoom` of the iframe and the elements above
 *                             it, when not 1: `size` and `inset` are unzoomed CSS px (computed
 *                             values), the box and the child's CSS px are zoomed
 */

/**
 * Shape check of a `FrameTransform` (content scripts relay the page: check it).
 * @param {unknown} value
 * @returns {value is FrameTransform}
 */
export function isFrameTransform(value) {
  if (typeof value !== "object" || value === null) return false;
  const t = /** @type {Record<string, unknown>} */ (value);
  const size = /** @type {Record<string, unknown> | null} */ (typeof t.size === "object" ? t.size : null);
  return (
    isFiniteRect(t.box) &&
    isFiniteRect(t.inset) &&
    size !== null &&
    Number.isFinite(size.w) &&
    Number.isFinite(size.h) &&
    Array.isArray(t.chain) &&
    t.chain.length <= 65 &&
    t.chain.every((e) => Array.isArray(e) && e.length === 3 && e.every((v) => typeof v === "string" && v.length <= 1024)) &&
    (t.perspective === undefined || typeof t.perspective === "boolean") &&
    (t.zoom === undefined || (typeof t.zoom === "number" && Number.isFinite(t.zoom) && t.zoom > 0))
  );
}

/**
 * One level of a climb: how a rect of the child frame moves into its parent frame, and the
 * iframe's content box there (the clip). Without a transform: moved by (dx, dy). With one: through
 * `frameMap`; where that has no answer, every rect becomes the iframe's bounding box (documented:
 * docs/internals/protocol.md "location", transformed frames).
 * @param {FrameOffset} level
 * @returns {{move: (r: Rect) => Rect, content: Rect}}
 */
export function levelMove(level) {
  const t = level.transform;
  if (!t) return { move: (r) => ({ x: r.x + level.dx, y: r.y + level.dy, w: r.w, h: r.h }), content: level.content };
  const map = frameMap(t);
  if (!map) return { move: () => ({ ...t.box }), content: t.box };
  return { move: (r) => mapRect(map, r), content: mapRect(map, { x: 0, y: 0, w: t.inset.w, h: t.inset.h }) };
}

/**
 * Move a subframe's measurement into the top viewport: through the <iframe> of every level from
 * its parent (depth − 1) up to the top (depth 0), clipping by each iframe's content box and each
 * frame's viewport. Returns null while a level is missing.
 * @param {Measured} measured   from the measuring frame (its own CSS px, `depth` set)
 * @param {FrameOffset[]} offsets  one per level, any order
 * @returns {Measured | null}  in top-viewport CSS px, with the top frame's metrics
 */
export function climb(measured, offsets) {
  const depth = measured.depth ?? 0;
  if (depth === 0) return measured;
  let rects = (measured.rects ?? []).filter(isFiniteRect);
  let clip = measured.clip && isFiniteRect(measured.clip) ? measured.clip : null;
  for (let d = depth - 1; d >= 0; d--) {
    const level = offsets.find((o) => o.depth === d);
    if (!level) return null;
    const { move, content } = levelMove(level);
    rects = rects.map(move);
    clip = overlap(overlap(clip ? move(clip) : content, content), level.viewport);
  }
  const top = offsets.find((o) => o.depth === 0);
  if (!top?.metrics) return null;
  return { ...measured, rects, clip: clip ?? undefined, metrics: top.metrics, depth: 0 };
}

/** @param {Rect} a @param {Rect} b @returns {Rect} the overlap (w/h 0 when none) */
function overlap(a, b) {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, w: Math.max(0, Math.min(a.x + a.w, b.x + b.w) - x), h: Math.max(0, Math.min(a.y + a.h, b.y + b.h) - y) };
}

/**
 * @typedef {object} LocationAnswer
 * @property {"visible" | "offscreen" | "gone"} state
 * @property {Rect[]} rects
 * @property {number} [window]
 * @property {Rect} [avoid]
 */

/** @returns {LocationAnswer} */
export function goneAnswer() {
  return { state: "gone", rects: [] };
}

/**
 * Build the design.md §1.2 answer for an element of a page.
 * @param {Measured} measured
 * @param {{zoom: number, tabShown: boolean}} tab  tabShown: the active tab of a non-minimized window
 * @returns {LocationAnswer}
 */
export function pageAnswer(measured, tab) {
  if (measured.status !== "ok") return goneAnswer();
  // It exists but could not be placed (its measurement did not climb to the top frame).
  if (!measured.metrics) return { state: "offscreen", rects: [] };
  const metrics = measured.metrics;
  const all = measured.merge ? mergeLineRects(measured.rects ?? []) : (measured.rects ?? []).filter(isFiniteRect);
  const viewport = { x: 0, y: 0, w: metrics.innerWidth, h: metrics.innerHeight };
  const clip = measured.clip && isFiniteRect(measured.clip) ? measured.clip : viewport;
  const onScreen = all.some((r) => intersects(r, clip) && intersects(r, viewport));
  const css = nearViewport(all, viewport);
  const origin = viewportOrigin(metrics, tab.zoom);
  const rects = css.map((r) => toPoints(r, origin, tab.zoom));
  /** @type {LocationAnswer} */
  const answer = { state: tab.tabShown && onScreen ? "visible" : "offscreen", rects };
  if (measured.avoid) {
    const box = avoidBox(css, overlap(clip, viewport));
    if (box) answer.avoid = toPoints(box, origin, tab.zoom);
  }
  return answer;
}

/** Rects (lines) in one answer at most, after those far beyond the viewport were dropped. */
export const MAX_ANSWER_RECTS = 500;

/**
 * The rects worth sending for an element (docs/internals/protocol.md "location": long selections): those
 * within one viewport of the viewport (the band 3 viewports wide and tall around it), at most
 * MAX_ANSWER_RECTS; when none is, the one nearest to the viewport, so a host still learns where an
 * element scrolled far away lies. Input and output in the top viewport's CSS px, order kept.
 * @param {Rect[]} rects
 * @param {Rect} viewport
 * @returns {Rect[]}
 */
export function nearViewport(rects, viewport) {
  const band = { x: viewport.x - viewport.w, y: viewport.y - viewport.h, w: 3 * viewport.w, h: 3 * viewport.h };
  const near = rects.filter((r) => intersects(r, band));
  if (near.length > 0) return near.slice(0, MAX_ANSWER_RECTS);
  if (rects.length === 0) return [];
  const distance = (/** @type {Rect} */ r) =>
    Math.max(0, viewport.x - (r.x + r.w), r.x - (viewport.x + viewport.w)) +
    Math.max(0, viewport.y - (r.y + r.h), r.y - (viewport.y + viewport.h));
  return [rects.reduce((best, r) => (distance(r) < distance(best) ? r : best))];
}

/**
 * `avoid` (design.md §1.2: "so a host's popover does not cover it"): the bounding box of the parts of
 * `rects` inside `shown` (the viewport as far as every iframe on the way shows it); when no rect
 * is shown, the bounding box of `rects` (the element is offscreen: nothing to avoid on screen,
 * but a host still learns its extent). Null when there are no rects. CSS px.
 * @param {Rect[]} rects
 * @param {Rect} shown
 * @returns {Rect | null}
 */
export function avoidBox(rects, shown) {
  const parts = rects.filter((r) => intersects(r, shown)).map((r) => overlap(r, shown));
  return boundingBox(parts.length > 0 ? parts : rects);
}

/**
 * The answer for a Window element: its outer bounds (chrome.windows, already points).
 * @param {{left?: number, top?: number, width?: number, height?: number, state?: string}} win
 * @returns {LocationAnswer}
 */
export function windowAnswer(win) {
  const rect = { x: win.left ?? 0, y: win.top ?? 0, w: win.width ?? 0, h: win.height ?? 0 };
  return { state: win.state === "minimized" ? "offscreen" : "visible", rects: [rect] };
}
