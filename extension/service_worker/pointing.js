// Where what the user points at goes in a Page (design.md §2): frame Groups, the selected Text, the
// focused field's textbox Group, the hovered Link/Image. Pure: it reads the FrameReports the
// content scripts of one tab sent (selections.js) and mints ids through the registry.
//
//   Page ── Group/frame (a subframe holding the selection, the focus or the hover)
//        │    └─ …the same kinds, inside it
//        ├─ Group/textbox  focused         (the editable field holding the caret)
//        │    └─ Text selected              (a selection inside that field)
//        ├─ Document/pdf                   (a PDF in Chromium's viewer: the tab's, or one in an
//        │                                  iframe, <embed> or <object>, in its frame's place;
//        │                                  url, title, and that its selection cannot be read)
//        ├─ Text selected
//        └─ Link/Image hovered              (at most one in the whole tree)
//
// Nested iframes are nested Groups: each frame's report names its parent frame's token (learnt by
// postMessage, content/report.js), so a Group sits in its parent frame's Group, and the focus path
// marks every Group from the Page down to the focused frame. A frame whose parent is not known (its
// parent has no content script, or has not answered yet) sits directly in the Page.
//
// tree.js imports this module (and `textElement`, the selected Text, for a tab without frame
// reports); this one imports only text_limits.js, never tree.js.

import {
  DEFAULT_MAX_SELECTION_BYTES,
  MAX_CONTEXT_CHARS,
  MAX_TITLE_CHARS,
  MAX_URL_CHARS,
  capUtf8,
  firstChars,
  lastChars,
  wellFormed,
} from "./text_limits.js";

/**
 * The attributes of the Document of a tab's PDF while Chromium's viewer shows it (design.md §2):
 * the viewer keeps its selection to itself, so the host learns why the user's is missing and
 * where the PDF's text is instead. A PDF in a frame says `selection` only (its text is not the
 * Page's text resource).
 */
export const BUILTIN_VIEWER_ATTRIBUTES = Object.freeze({
  selection: "unreadable",
  note: "The browser's PDF viewer keeps its selection from webctx. The PDF's text is the Page's text resource (read_page): ask the user which passage they mean, or to switch on \"Open PDFs in webctx's viewer\" in webctx's options page, where a selection is read.",
});

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("../protocol.js").FrameReport} FrameReport */
/** @typedef {import("../protocol.js").Selection} Selection */
/** @typedef {import("./ids.js").IdRegistry} IdRegistry */

/**
 * One frame's last report, with the browser's ids for the frame and its document.
 * @typedef {{frameId: number, documentId: string, report: FrameReport, origin?: string}} StoredFrame  `origin`: the
 *   document's origin as the browser gives it (the creator's for about:blank and srcdoc; settings.js isExcluded)
 */

/**
 * The selection reported by a tab's top document.
 * @typedef {{documentId: string, selection: Selection}} TabSelection
 */

/**
 * What one tab points at, chosen among its frames.
 * @typedef {object} TabPointing
 * @property {StoredFrame | undefined} focusFrame     the frame holding the keyboard focus
 * @property {StoredFrame | undefined} selectionFrame the frame whose selection is reported
 * @property {StoredFrame | undefined} hoverFrame     the frame with the hovered Link/Image
 * @property {string | undefined} lang                the top document's <html lang>
 */

/**
 * Pick, among a tab's frames: the focused frame (a subframe with `hasFocus` wins over the top
 * document, whose hasFocus is also true then; else a frame whose focus is an editable field);
 * the selection "in the frame that has focus, else the most recently changed" (design.md §2); the
 * most recent hover.
 * @param {StoredFrame[]} frames
 * @returns {TabPointing}
 */
export function pickPointing(frames) {
  const top = frames.find((f) => f.frameId === 0);
  // An ancestor of the focused frame has hasFocus too (HTML "has focus steps"): take the deepest,
  // the one no other focused subframe names as its parent.
  const focusedSubframes = frames.filter((f) => f.frameId !== 0 && f.report.hasFocus);
  const focusedParents = new Set(focusedSubframes.map((f) => f.report.parentToken));
  const focusFrame =
    (focusedSubframes.find((f) => !f.report.token || !focusedParents.has(f.report.token)) ?? focusedSubframes[0]) ??
    (top?.report.hasFocus ? top : undefined) ??
    frames.find((f) => f.report.focus !== null);
  const withSelection = frames.filter((f) => f.report.selection !== null);
  const selectionFrame =
    (focusFrame && focusFrame.report.selection ? focusFrame : undefined) ??
    withSelection.sort((a, b) => b.report.selectionAt - a.report.selectionAt)[0];
  const hoverFrame = frames
    .filter((f) => f.report.hover !== null)
    .sort((a, b) => (b.report.hover?.at ?? 0) - (a.report.hover?.at ?? 0))[0];
  return { focusFrame, selectionFrame, hoverFrame, lang: top?.report.lang };
}

/** Frame Groups nest at most this deep; a longer chain of parents (a loop) ends in the Page. */
const MAX_FRAME_DEPTH = 16;
/** A Text's `editor` attribute (content/editor_selection.js names the code editor read). */
const EDITOR_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Each subframe's parent frame, by the parent token its report names (content/report.js). The top
 * frame, and frames whose parent is unknown, have none. A frame never is its own parent.
 * @param {StoredFrame[]} frames
 * @returns {Map<StoredFrame, StoredFrame>}
 */
export function frameParents(frames) {
  /** @type {Map<string, StoredFrame>} */
  const byToken = new Map();
  for (const f of frames) if (f.report.token) byToken.set(f.report.token, f);
  /** @type {Map<StoredFrame, StoredFrame>} */
  const parents = new Map();
  for (const f of frames) {
    const parent = f.frameId !== 0 && f.report.parentToken ? byToken.get(f.report.parentToken) : undefined;
    if (parent && parent !== f) parents.set(f, parent);
  }
  // A loop of parent tokens (only a forging page makes one): cut it where it is found.
  for (const f of frames) {
    const seen = new Set([f]);
    for (let p = parents.get(f); p; p = parents.get(p)) {
      if (seen.has(p)) {
        parents.delete(f);
        break;
      }
      seen.add(p);
    }
  }
  return parents;
}

/**
 * The newest hover time among a tab's frames (to keep at most one hovered element per tree).
 * @param {StoredFrame[]} frames
 * @returns {number} ms since the epoch; 0 when nothing is hovered
 */
export function latestHover(frames) {
  return Math.max(0, ...frames.map((f) => f.report.hover?.at ?? 0));
}

/**
 * The children of a Page for what its frames point at.
 * @param {number} tabId
 * @param {StoredFrame[]} frames
 * @param {{pageFocused: boolean, showHover: boolean, maxBytes?: number, title?: string}} options
 *   pageFocused: the Page is on the focus path; showHover: this tab holds the tree's one hover;
 *   title: the tab's title (a PDF Document's title)
 * @param {IdRegistry} ids
 * @returns {Element[]}
 */
export function pointingChildren(tabId, frames, options, ids) {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SELECTION_BYTES;
  const { focusFrame, selectionFrame, hoverFrame } = pickPointing(frames);
  /** @type {Element[]} */
  const children = [];
  /** @type {Map<number, Element>} */
  const groups = new Map();

  const parentOf = frameParents(frames);

  /**
   * @param {StoredFrame} frame
   * @param {number} [depth] guards against a loop of parent tokens (a page can forge one)
   * @returns {Element[]} the children list of the frame's holder
   */
  const holder = (frame, depth = 0) => {
    if (frame.frameId === 0) return children;
    let group = groups.get(frame.frameId);
    if (!group) {
      // The parent's Group first: ids are minted from the outside in.
      const parent = parentOf.get(frame);
      const into = parent && depth < MAX_FRAME_DEPTH ? holder(parent, depth + 1) : children;
      // A frame that is a PDF (an iframe, <embed> or <object> showing one) is its Document.
      group = frame.report.pdf
        ? { ...pdfDocument(tabId, frame, pdfTitle(frame.report.url), ids), attributes: { selection: BUILTIN_VIEWER_ATTRIBUTES.selection } }
        : { id: ids.frameId(tabId, frame.documentId), role: "Group", subrole: "frame", children: [] };
      group.children = [];
      const url = firstChars(wellFormed(frame.report.url), MAX_URL_CHARS);
      if (url) group.url = url;
      groups.set(frame.frameId, group);
      into.push(group);
    }
    return /** @type {Element[]} */ (group.children);
  };

  const top = frames.find((f) => f.frameId === 0);
  if (top?.report.pdf) {
    const pdf = pdfDocument(tabId, top, options.title ?? "", ids);
    const url = firstChars(wellFormed(top.report.url), MAX_URL_CHARS);
    if (url) pdf.url = url;
    children.push(pdf);
  }
  // Every PDF in a frame, pointed at or not: what the user has open (frames in report order).
  for (const frame of frames) if (frame.frameId !== 0 && frame.report.pdf) holder(frame);

  /** @type {Map<string, Element>} textbox Groups by `${frameId}:${key}` */
  const textboxes = new Map();
  /**
   * @param {StoredFrame} frame
   * @param {number} key
   * @returns {Element}
   */
  const textbox = (frame, key) => {
    const name = `${frame.frameId}:${key}`;
    let box = textboxes.get(name);
    if (!box) {
      box = { id: ids.fieldId(tabId, frame.documentId, key), role: "Group", subrole: "textbox" };
      textboxes.set(name, box);
      holder(frame).push(box);
    }
    return box;
  };

  if (focusFrame && options.pageFocused) {
    // The focus path: every frame Group from the Page down to the focused frame.
    holder(focusFrame);
    /** @type {StoredFrame | undefined} */
    let f = focusFrame;
    for (let n = 0; f && f.frameId !== 0 && n <= MAX_FRAME_DEPTH; n++) {
      const group = groups.get(f.frameId);
      if (group) group.focused = true;
      f = parentOf.get(f);
    }
    const focus = focusFrame.report.focus;
    if (focus) {
      const box = textbox(focusFrame, focus.key);
      box.focused = true;
      if (focus.title) box.title = firstChars(wellFormed(focus.title), MAX_TITLE_CHARS);
      if (!focus.sensitive && typeof focus.content === "string" && focus.content.length > 0) {
        const text = wellFormed(focus.content);
        const capped = capUtf8(text, maxBytes);
        box.content = [{ type: "text", text: capped }];
        const length = Math.max(focus.length ?? text.length, text.length);
        if (capped.length < length) box.attributes = { truncated: true, length };
      }
    }
  }

  if (selectionFrame?.report.selection) {
    const selection = selectionFrame.report.selection;
    const text = textElement(tabId, { documentId: selectionFrame.documentId, selection }, ids, maxBytes);
    if (text) {
      if (selection.field) {
        const box = textbox(selectionFrame, selection.field.key);
        (box.children ??= []).push(text);
      } else {
        holder(selectionFrame).push(text);
      }
    }
  }

  if (options.showHover && hoverFrame?.report.hover) {
    const hover = hoverFrame.report.hover;
    /** @type {Element} */
    const element = { id: ids.hoverId(tabId, hoverFrame.documentId, hover.key, hover.role), role: hover.role, hovered: true };
    const title = firstChars(wellFormed(hover.title), MAX_TITLE_CHARS);
    if (title) element.title = title;
    const url = firstChars(wellFormed(hover.url), MAX_URL_CHARS);
    if (url) element.url = url;
    holder(hoverFrame).push(element);
  }

  for (const group of groups.values()) if (group.children?.length === 0) delete group.children;
  return children;
}

/**
 * The Document of a PDF that Chromium's viewer shows in `frame` (its url is set by the caller).
 * @param {number} tabId
 * @param {StoredFrame} frame
 * @param {string} title  "" for none
 * @param {IdRegistry} ids
 * @returns {Element}
 */
function pdfDocument(tabId, frame, title, ids) {
  /** @type {Element} */
  const pdf = { id: ids.documentElementId(tabId, frame.documentId), role: "Document", subrole: "pdf" };
  const shown = firstChars(wellFormed(title), MAX_TITLE_CHARS);
  if (shown) pdf.title = shown;
  pdf.attributes = { ...BUILTIN_VIEWER_ATTRIBUTES };
  return pdf;
}

/**
 * A PDF's title from its address, as Chromium's viewer names a PDF without one: the last path
 * segment, percent-decoded ("report 2024.pdf"); "" when there is none.
 * @param {string} url
 * @returns {string}
 */
export function pdfTitle(url) {
  let path = "";
  try {
    path = new URL(url).pathname;
  } catch {
    return "";
  }
  const last = path.slice(path.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The selected Text element, or null when there is nothing to report.
 * @param {number} tabId
 * @param {TabSelection} reported
 * @param {IdRegistry} ids
 * @param {number} maxBytes
 * @returns {Element | null}
 */
export function textElement(tabId, reported, ids, maxBytes = DEFAULT_MAX_SELECTION_BYTES) {
  const { selection, documentId } = reported;
  const full = wellFormed(selection.text);
  if (full.length === 0) return null;
  const capped = capUtf8(full, maxBytes);
  // The content script pre-caps at 64 Ki code units; `length` is the length before that cap.
  const length = Number.isSafeInteger(selection.length) && selection.length > full.length ? selection.length : full.length;
  /** @type {Record<string, unknown>} */
  const attributes = {};
  const before = lastChars(wellFormed(selection.before ?? ""), MAX_CONTEXT_CHARS);
  const after = firstChars(wellFormed(selection.after ?? ""), MAX_CONTEXT_CHARS);
  if (before) attributes.before = before;
  if (after) attributes.after = after;
  if (capped.length < length) {
    attributes.truncated = true;
    attributes.length = length;
  }
  if (selection.hidden) attributes.hiddenOmitted = true;
  // Named by the page's world (content/editor_selection.js): a short lowercase name or nothing.
  if (typeof selection.editor === "string" && EDITOR_NAME.test(selection.editor)) attributes.editor = selection.editor;
  if (selection.partial === true) attributes.partial = true;
  /** @type {Element} */
  const element = {
    id: ids.selectionId(tabId, documentId, selection.key),
    role: "Text",
    selected: true,
    content: [{ type: "text", text: capped }],
  };
  if (Object.keys(attributes).length > 0) element.attributes = attributes;
  return element;
}
