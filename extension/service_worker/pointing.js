// Where what the user points at goes in a Page (SPEC §2): frame Groups, the selected Text, the
// focused field's textbox Group, the hovered Link/Image. Pure: it reads the FrameReports the
// content scripts of one tab sent (selections.js) and mints ids through the registry.
//
//   Page ── Group/frame (a subframe holding the selection, the focus or the hover)
//        │    └─ …the same kinds, inside it
//        ├─ Group/textbox  focused         (the editable field holding the caret)
//        │    └─ Text selected              (a selection inside that field)
//        ├─ Document/pdf                   (Chromium's PDF viewer: url and title only)
//        ├─ Text selected
//        └─ Link/Image hovered              (at most one in the whole tree)
//
// Nested iframes are not nested Groups: a subframe's Group sits directly in the Page and names
// the innermost frame's url (docs/protocol.md).

import { capUtf8, DEFAULT_MAX_SELECTION_BYTES, firstChars, MAX_TITLE_CHARS, MAX_URL_CHARS, textElement, wellFormed } from "./tree.js";

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("../protocol.js").FrameReport} FrameReport */
/** @typedef {import("./tree.js").StoredFrame} StoredFrame */
/** @typedef {import("./ids.js").IdRegistry} IdRegistry */

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
 * the selection "in the frame that has focus, else the most recently changed" (SPEC §2); the
 * most recent hover.
 * @param {StoredFrame[]} frames
 * @returns {TabPointing}
 */
export function pickPointing(frames) {
  const top = frames.find((f) => f.frameId === 0);
  const focusFrame =
    frames.find((f) => f.frameId !== 0 && f.report.hasFocus) ??
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

  /** @param {StoredFrame} frame @returns {Element[]} the children list of the frame's holder */
  const holder = (frame) => {
    if (frame.frameId === 0) return children;
    let group = groups.get(frame.frameId);
    if (!group) {
      group = { id: ids.frameId(tabId, frame.documentId), role: "Group", subrole: "frame", children: [] };
      const url = firstChars(wellFormed(frame.report.url), MAX_URL_CHARS);
      if (url) group.url = url;
      groups.set(frame.frameId, group);
      children.push(group);
    }
    return /** @type {Element[]} */ (group.children);
  };

  const top = frames.find((f) => f.frameId === 0);
  if (top?.report.pdf) {
    /** @type {Element} */
    const pdf = { id: ids.documentElementId(tabId, top.documentId), role: "Document", subrole: "pdf" };
    if (options.title) pdf.title = options.title;
    const url = firstChars(wellFormed(top.report.url), MAX_URL_CHARS);
    if (url) pdf.url = url;
    children.push(pdf);
  }

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
    if (focusFrame.frameId !== 0) {
      holder(focusFrame);
      /** @type {Element} */ (groups.get(focusFrame.frameId)).focused = true;
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
