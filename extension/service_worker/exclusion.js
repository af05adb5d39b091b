// Which frame reports and tabs `current` may show, and what `page.read` refuses, by the one rule
// of settings.js isExcluded (the document's origin and address: docs/internals/protocol.md "Excluded
// sites"). Applied at every build to pushed and pulled reports alike, so a report pulled right
// after a page loads is filtered exactly as a pushed one, and a settings change applies to what
// is already stored.

import { excludedHost, isExcluded } from "./settings.js";
import { tabUrl } from "./tree.js";
import { ERROR_CODES } from "../protocol.js";

/** @typedef {import("./pointing.js").StoredFrame} StoredFrame */
/** @typedef {import("./tab_model.js").ListedWindow} ListedWindow */

/** Frame levels a document with no origin of its own is followed up (as selections.js `lineage`). */
const MAX_FRAME_LEVELS = 64;

/**
 * Whether a stored frame report's own document is excluded: by the origin the browser gave with
 * the report, else by the address it reported.
 * @param {StoredFrame} frame
 * @param {{excludedSites: string[], localFiles: boolean}} settings
 * @returns {boolean}
 */
function frameExcluded(frame, settings) {
  return isExcluded({ url: frame.report.url, origin: frame.origin }, settings);
}

/**
 * A document with no site of its own: an opaque origin (a sandboxed frame, `data:`) or none,
 * at an about: or data: address. It is judged by the frame that holds it (its parent, by the
 * token each report names), so a sandboxed srcdoc editor an excluded frame makes is excluded too.
 * @param {StoredFrame} frame
 * @returns {boolean}
 */
function hasNoSite(frame) {
  return (!frame.origin || frame.origin === "null") && /^(about|data):/i.test(frame.report.url);
}

/**
 * The frame reports of each tab without those of excluded documents, for pushed and pulled
 * reports alike; a document with no site of its own (hasNoSite) goes with its parent's, and is
 * not shown while its parent is not known.
 * @param {Map<number, StoredFrame[]>} frames  by tab id (selections.js `pushed`, `collect`)
 * @param {{excludedSites: string[], localFiles: boolean}} settings
 * @returns {Map<number, StoredFrame[]>}
 */
export function sharedFrames(frames, settings) {
  /** @type {Map<number, StoredFrame[]>} */
  const result = new Map();
  for (const [tabId, list] of frames) {
    const byToken = new Map(list.filter((f) => f.report.token).map((f) => [f.report.token, f]));
    const excluded = (/** @type {StoredFrame} */ frame) => {
      let at = frame;
      for (let level = 0; level <= MAX_FRAME_LEVELS; level += 1) {
        if (frameExcluded(at, settings)) return true;
        if (!hasNoSite(at)) return false;
        const parent = at.report.parentToken ? byToken.get(at.report.parentToken) : undefined;
        // A subframe not linked to its parent yet (it links at start) is not shown until it is.
        if (!parent) return at.frameId !== 0;
        at = parent;
      }
      return true; // deeper than any real page: not shown
    };
    const kept = list.filter((frame) => !excluded(frame));
    if (kept.length > 0) result.set(tabId, kept);
  }
  return result;
}

/**
 * Whether a tab's page is excluded: its address, or its top document's origin as last reported
 * (an about:blank window an excluded page opened and wrote into has that page's origin).
 * @param {{id?: number, url?: string, pendingUrl?: string}} tab
 * @param {{excludedSites: string[], localFiles: boolean}} settings
 * @param {(tabId: number) => import("./settings.js").DocumentSite | undefined} [topSite]
 * @returns {boolean}
 */
export function tabExcluded(tab, settings, topSite) {
  const top = tab.id === undefined ? undefined : topSite?.(tab.id);
  return isExcluded(tabUrl(tab), settings) || (top !== undefined && isExcluded(top, settings));
}

/** page.read's refusal of an excluded page (page_read.js). @returns {{code: string, message: string}} */
export function notSharedExcluded() {
  return { code: ERROR_CODES.notShared, message: "The page is on a site the user excluded in webctx's options." };
}

/** page.read's refusal of a local file while those are off. @returns {{code: string, message: string}} */
export function notSharedLocalFile() {
  return {
    code: ERROR_CODES.notShared,
    message: "The page is a local file (file://), which webctx does not share; switch on \"Share local files (file://)\" in webctx's options to allow it.",
  };
}

/**
 * Why the frames of a tab, as they are now, may not be read, or null (PageReader's frame check):
 * the top frame (frameId 0) excluded or a local file while those are off; for a screenshot, any
 * frame with an area on screen that is.
 * @param {{frameId: number, url: string, origin: string, visible: boolean}[]} frames  browser_api frameSites
 * @param {{excludedSites: string[], localFiles: boolean}} settings
 * @returns {{code: string, message: string} | null}
 */
export function framesRefusal(frames, settings) {
  for (const frame of frames) {
    if (frame.frameId !== 0 && !frame.visible) continue;
    if (!isExcluded(frame, settings)) continue;
    const host = excludedHost(frame);
    if (frame.frameId === 0) return host ? notSharedExcluded() : notSharedLocalFile();
    return {
      code: ERROR_CODES.notShared,
      message: host
        ? `The page shows a frame of an excluded site (${host}); remove it from Excluded sites in webctx's options to allow screenshots of this page.`
        : "The page shows a local file (file://) in a frame; switch on \"Share local files (file://)\" in webctx's options to allow screenshots of this page.",
    };
  }
  return null;
}
