// The page text of frames the top document cannot reach (another origin), put where they show
// (docs/internals/extension.md "The page's text"). content/page_text.js, asked with `frames: true`, leaves
// a marker in its Markdown for each such frame, naming the frame's document by its content-script
// token (content/report.js); here each marked frame whose site is not excluded (settings.js
// isExcluded, by the document's own address and origin, as exclusion.js judges frames) is read in
// its own document, the same way, and its text replaces the marker; its own markers in turn.
// An excluded frame's marker, and any marker not matched, become nothing: an excluded site's text
// never reaches the answer. Bounded: MAX_FRAME_READS reads, MAX_FRAME_LEVELS deep, and no read
// once the merged text is over the cap. `mergeMarked` is pure and node-tested
// (extension/test/page_frames.test.js).

import { isExcluded } from "./settings.js";

/** At most this many frames are read for one page text. */
export const MAX_FRAME_READS = 32;
/** Frames inside frames are followed this many levels deep. */
export const MAX_FRAME_LEVELS = 8;
const NONCE = /^[0-9a-f]{16}$/;
const TOKEN = /^[0-9a-f]{32}$/;

/**
 * What a frame read answers (content/page_text.js PageText, the fields used here).
 * @typedef {{markdown: string, bytes?: unknown, frames?: unknown}} FrameText
 */

/**
 * The markers of a page-text answer, checked (the page's answer is held to the shapes), or null.
 * @param {unknown} raw
 * @returns {{nonce: string, marks: Array<{marker: string, token: string}>} | null}
 */
export function markersOf(raw) {
  const frames = /** @type {{frames?: {nonce?: unknown, marks?: unknown}} | null} */ (raw)?.frames;
  if (!frames || typeof frames.nonce !== "string" || !NONCE.test(frames.nonce) || !Array.isArray(frames.marks)) return null;
  const nonce = frames.nonce;
  const marks = frames.marks
    .slice(0, MAX_FRAME_READS)
    .filter(
      /** @returns {m is {marker: string, token: string}} */
      (m) => typeof m?.token === "string" && TOKEN.test(m.token) && typeof m.marker === "string" && new RegExp(`^webctxframe${nonce}x\\d{1,3}$`).test(m.marker),
    );
  return marks.length > 0 ? { nonce, marks } : null;
}

/**
 * `markdown` with each marker replaced by its text (`texts`, by marker; "" when missing), and any
 * marker left (a cut one at the end included) removed. Pure.
 * @param {string} markdown
 * @param {{nonce: string, marks: Array<{marker: string}>}} markers
 * @param {Map<string, string>} texts
 * @returns {string}
 */
export function mergeMarked(markdown, markers, texts) {
  let out = markdown;
  for (const { marker } of markers.marks) out = out.split(marker).join(texts.get(marker) ?? "");
  out = out.replace(new RegExp(`webctxframe${markers.nonce}x\\d*`, "g"), "");
  // A marker the cap cut short, at the very end.
  const whole = `webctxframe${markers.nonce}x`;
  for (let k = Math.min(whole.length, out.length); k >= 6; k--) {
    if (out.endsWith(whole.slice(0, k))) return out.slice(0, out.length - k);
  }
  return out;
}

/**
 * @typedef {object} FrameReadDeps
 * @property {(tabId: number) => Promise<{frameId: number, token: string, url: string, origin: string}[]>} frameTokens
 * @property {(tabId: number, frameId: number) => Promise<unknown>} readFrame  the frame's page text
 *   (content/page_text.js with `frames: true, heading: false`)
 * @property {{excludedSites: string[], localFiles: boolean}} settings
 * @property {number} maxBytes  the answer's cap (UTF-8 bytes): no frame is read once the text is longer
 */

/**
 * The top frame's answer with the marked frames' texts merged in (see the file comment); the
 * answer itself when it marks none. `bytes` grows by what was merged.
 * @param {number} tabId
 * @param {unknown} raw  the top frame's page-text answer (checked later by page_read.js checkedText)
 * @param {FrameReadDeps} deps
 * @returns {Promise<unknown>}
 */
export async function withFrameTexts(tabId, raw, deps) {
  const top = /** @type {Record<string, unknown>} */ (raw);
  if (typeof top?.markdown !== "string" || !markersOf(raw)) return raw;
  /** @type {{frameId: number, token: string, url: string, origin: string}[]} */
  let docs = [];
  try {
    docs = await deps.frameTokens(tabId);
  } catch {
    docs = []; // the frames cannot be listed now: every marker becomes nothing
  }
  /** @type {Map<string, {frameId: number, url: string, origin: string} | null>} */
  const byToken = new Map();
  for (const doc of docs) {
    if (!TOKEN.test(doc.token)) continue;
    byToken.set(doc.token, byToken.has(doc.token) ? null : doc); // a token two frames claim names neither
  }
  let reads = 0;
  let size = top.markdown.length;
  /** @param {FrameText} answer @param {number} level @returns {Promise<string>} */
  const merged = async (answer, level) => {
    const markers = markersOf(answer);
    if (!markers) return answer.markdown;
    /** @type {Map<string, string>} */
    const texts = new Map();
    for (const { marker, token } of markers.marks) {
      const doc = byToken.get(token);
      if (!doc || level >= MAX_FRAME_LEVELS || reads >= MAX_FRAME_READS || size > deps.maxBytes) continue;
      if (isExcluded({ url: doc.url, origin: doc.origin }, deps.settings)) continue;
      reads += 1;
      let child;
      try {
        child = await deps.readFrame(tabId, doc.frameId);
      } catch {
        continue; // the frame went away or cannot be scripted: nothing in its place
      }
      if (typeof (/** @type {{markdown?: unknown} | null} */ (child)?.markdown) !== "string") continue;
      const text = (await merged(/** @type {FrameText} */ (child), level + 1)).trim();
      size += text.length;
      texts.set(marker, text);
    }
    return mergeMarked(answer.markdown, markers, texts);
  };
  const markdown = await merged(/** @type {FrameText} */ (top), 0);
  const encoder = new TextEncoder();
  const grown = encoder.encode(markdown).length - encoder.encode(top.markdown).length;
  const { frames: _frames, ...rest } = top;
  return { ...rest, markdown, ...(typeof top.bytes === "number" ? { bytes: Math.max(0, top.bytes + grown) } : {}) };
}
