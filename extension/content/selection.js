// webctx content script, part 2 (see namespace.js for the map): the user's selection.
//
// `read()` gives the selection of this document: the DOM selection (open, closed and nested shadow
// roots included: `shadowRange`; `field` set inside a contenteditable) or the one inside the focused input/textarea
// (`selectionStart/End`). A Selection is {key, text, before, after, length, field?}
// (docs/internals/protocol.md); `key` names this document's live Range (or a field's offsets, moved on
// `input`), so the worker keeps one id per passage. report.js pushes and pulls it.
// Over 400 lines: DOM, shadow-root and field selections share one key space and `current`; what
// of a Range the user can see is content/visible_text.js, not here.

(function webctxSelection() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.secret || ns.selection) return;
  const secret = ns.secret;
  // content/text_clean.js, content/hidden_text.js, content/visible_text.js (loaded before this).
  const clean = /** @type {TextClean} */ (/** @type {any} */ (globalThis).webctxTextClean);
  const { firstChars, lastChars } = clean;
  const hiddenText = /** @type {{textJudge: (doc: Document) => Judge}} */ (/** @type {any} */ (globalThis).webctxHidden);
  const visible = /** @type {{rangeText: (range: Range, maxChars: number, isPageText: (node: Node) => boolean, judge: Judge) => {text: string | null, hidden: boolean, complete: boolean}, contextText: (range: Range, side: "before" | "after", judge: Judge, isPageText: (node: Node) => boolean, maxChars: number, maxNodes: number) => string}} */ (
    /** @type {any} */ (globalThis).webctxVisibleText
  );
  /** @typedef {{hidden: (node: Node) => boolean, checked: () => number}} Judge */

  /** @typedef {import("../protocol.js").Selection} Selection */

  /** Pre-cap so a giant selection never crosses the message channel whole (docs/internals/protocol.md). */
  const MAX_TEXT_CHARS = 65536;
  /** `before` / `after` length, in UTF-16 code units (design.md §2). */
  const CONTEXT_CHARS = 200;
  /** How far the context walk may go, so a sparse document cannot make it slow. */
  const CONTEXT_MAX_NODES = 200;
  /** Live Ranges kept for their keys (for `location` later); the oldest are let go. */
  const MAX_RANGES = 64;
  /** How many shadow roots deep a selection is followed (a bound on hostile nesting). */
  const MAX_SHADOW_DEPTH = 16;
  /** Elements whose text is not page text. */
  const NOT_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA"]);

  let nextKey = 1;
  /**
   * The passage being selected now (`range` null and `field` set for a field selection).
   * `backward`: the anchor is the range's end (a selection made right to left).
   * @type {{key: number, range: Range | null, anchorNode: Node | null, anchorOffset: number, field: Element | null, backward?: boolean} | null}
   */
  let current = null;
  /** @type {Map<number, Range>} */
  const ranges = new Map();

  /**
   * Field selections by key: the field, the offsets (UTF-16 code units into its value) and the
   * value they refer to, adjusted on `input` (see `adjustOffsets`).
   * @type {Map<number, {field: WeakRef<HTMLInputElement | HTMLTextAreaElement>, start: number, end: number, value: string}>}
   */
  const fieldRanges = new Map();
  /** Field keys (the textbox Group's key), per field element. @type {WeakMap<Element, number>} */
  const fieldKeys = new WeakMap();
  /** Fields by key, for `location`. @type {Map<number, WeakRef<Element>>} */
  const fieldsByKey = new Map();

  /**
   * The selection in this document, or null when there is nothing to report.
   * @returns {Selection | null}
   */
  function read() {
    const active = deepActiveElement();
    // A code editor keeps its text (or all of it) outside the DOM: content/editor_selection.js.
    const editors = ns?.editorSelection;
    return editors ? editors.read(active, () => readDom(active)) : readDom(active);
  }

  /**
   * The DOM or field selection (`read` without the code editors).
   * @param {Element | null} active the focused element
   * @returns {Selection | null}
   */
  function readDom(active) {
    if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return readField(active);
    const selection = selectionFor(document);
    if (!selection || selection.rangeCount === 0) return forget();
    // After a real gesture inside a shadow root the document's range may be collapsed next to the
    // host while the selection is a "Range" whose text is the words (Chromium): look inside first.
    const found = selection.type === "Range" ? shadowRange(selection) : null;
    if (!found && selection.isCollapsed) return forget();
    const range = found?.range ?? selection.getRangeAt(0);
    const anchorNode = found ? found.anchorNode : selection.anchorNode;
    const anchorOffset = found ? found.anchorOffset : selection.anchorOffset;
    if (secret.rangeTouchesSecret(range)) return forget(); // secret_fields.js: never read
    const full = selection.toString();
    if (full.length === 0) return forget();

    // Same passage: the same Range object, or the same anchor while the user extends the selection.
    // Inside a shadow root the Range is built here at each read (shadowRange); the one kept from
    // the last read is live, so it followed any edit since: its anchor-side boundary is compared.
    const same =
      current !== null &&
      current.field === null &&
      (current.range === range ||
        (current.anchorNode === anchorNode && current.anchorOffset === anchorOffset) ||
        (found !== null && current.range !== null && sameBoundary(current.range, current.backward, anchorNode, anchorOffset)));
    const key = same && current ? current.key : nextKey++;
    current = { key, range, anchorNode, anchorOffset, field: null, backward: found?.backward ?? false };
    remember(key, range);

    // Only what the user can see (docs/internals/protocol.md "Only what the user can see"): text of hidden
    // elements is left out, invisible characters are stripped; one judge (its cache) per read.
    const judge = hiddenText.textJudge(document);
    const seen = visible.rangeText(range, MAX_TEXT_CHARS, isPageText, judge);
    const text = clean.stripInvisible(firstChars(seen.text ?? full, MAX_TEXT_CHARS));
    if (text.length === 0) return forget();
    /** @type {Selection} */
    const result = {
      key,
      text,
      before: lastChars(clean.stripInvisible(contextText(range, "before", judge)), CONTEXT_CHARS),
      after: firstChars(clean.stripInvisible(contextText(range, "after", judge)), CONTEXT_CHARS),
      // Cut (by a cap, or the checking bound): the whole selection's length, so `truncated` shows.
      length: seen.complete && full.length <= MAX_TEXT_CHARS ? text.length : Math.max(full.length, text.length),
    };
    if (seen.hidden) result.hidden = true;
    const host = editingHost(range.commonAncestorContainer);
    if (host) result.field = { key: fieldKey(host), kind: "contenteditable" };
    return result;
  }

  /**
   * The selection inside an input or textarea (`selectionStart/End`), or null. Secret fields
   * (content/secret_fields.js) are never read.
   * @param {HTMLInputElement | HTMLTextAreaElement} field
   * @returns {Selection | null}
   */
  function readField(field) {
    if (secret.isSecretField(field)) return forget();
    let start;
    let end;
    try {
      start = field.selectionStart;
      end = field.selectionEnd;
    } catch {
      return forget(); // input types without a text selection (number, email in some engines)
    }
    if (start === null || end === null || start === end) return forget();
    const value = field.value;
    const full = value.slice(start, end);
    // Same passage: the same start, or the start the last passage moved to through an edit
    // (`onInput` keeps its offsets on the text), so its id follows the passage.
    const same =
      current !== null &&
      current.field === field &&
      (current.anchorOffset === start || fieldRanges.get(current.key)?.start === start);
    const key = same && current ? current.key : nextKey++;
    current = { key, range: null, anchorNode: field, anchorOffset: start, field };
    fieldRanges.delete(key);
    fieldRanges.set(key, { field: new WeakRef(field), start, end, value });
    if (fieldRanges.size > MAX_RANGES) fieldRanges.delete(/** @type {number} */ (fieldRanges.keys().next().value));
    // A value has no hidden parts (what the user typed or sees in the field), but it may hold
    // invisible characters a page put there: stripped like any selection's (docs/internals/protocol.md).
    const text = clean.stripInvisible(firstChars(full, MAX_TEXT_CHARS));
    if (text.length === 0) return forget();
    return {
      key,
      text,
      before: lastChars(clean.stripInvisible(value.slice(Math.max(0, start - CONTEXT_CHARS * 4), start)).replace(/\s+/g, " "), CONTEXT_CHARS),
      after: firstChars(clean.stripInvisible(value.slice(end, end + CONTEXT_CHARS * 4)).replace(/\s+/g, " "), CONTEXT_CHARS),
      length: full.length > MAX_TEXT_CHARS ? full.length : text.length,
      field: { key: fieldKey(field), kind: field instanceof HTMLTextAreaElement ? "textarea" : "input" },
    };
  }

  /**
   * The user's selection inside shadow roots (open, closed, nested, under a `display: contents`
   * host), as a live Range, or null when the document's own range is the one to use (no shadow
   * root at its boundaries, or a selection that crosses from one tree into another: a live Range
   * cannot span two trees). After a real gesture inside a shadow root Chromium's document
   * selection sits in the host's parent (e.g. `BODY` 5..5 or 5..6, around the host) while `toString()` is the
   * selected text; `getComposedRanges({shadowRoots})` gives the range inside, given the roots.
   * The roots are found one level at a time: the host a boundary spans, then the host the range
   * inside that root spans, … (`spannedHosts`). Closed roots come from
   * `chrome.dom.openOrClosedShadowRoot` (content scripts only; docs/internals/extension.md).
   * @param {globalThis.Selection} selection the document's selection, of type "Range" (its range may
   *   be collapsed before the host)
   * @returns {{range: Range, anchorNode: Node, anchorOffset: number, backward: boolean} | null}
   */
  function shadowRange(selection) {
    const composable = /** @type {{getComposedRanges?: (options: {shadowRoots: ShadowRoot[]}) => StaticRange[]}} */ (
      /** @type {unknown} */ (selection)
    );
    if (typeof composable.getComposedRanges !== "function") return null; // older engines: selectionFor
    /** @type {ShadowRoot[]} */
    const roots = [];
    /** @type {AbstractRange} */
    let inner = selection.getRangeAt(0);
    for (let depth = 0; depth < MAX_SHADOW_DEPTH; depth++) {
      const added = spannedHosts(inner, shadowRootOf).filter((root) => !roots.includes(root));
      if (added.length === 0) break;
      roots.push(...added);
      let composed;
      try {
        [composed] = composable.getComposedRanges({ shadowRoots: roots });
      } catch {
        return null; // an engine with the older rest-argument form: the document range stands
      }
      if (!composed || composed.collapsed) return null;
      inner = composed;
    }
    if (roots.length === 0) return null;
    if (inner.startContainer.getRootNode() !== inner.endContainer.getRootNode()) return null;
    const range = document.createRange();
    range.setStart(inner.startContainer, inner.startOffset);
    range.setEnd(inner.endContainer, inner.endOffset);
    if (range.collapsed) return null;
    const backward = /** @type {{direction?: string}} */ (/** @type {unknown} */ (selection)).direction === "backward";
    return backward
      ? { range, anchorNode: range.endContainer, anchorOffset: range.endOffset, backward }
      : { range, anchorNode: range.startContainer, anchorOffset: range.startOffset, backward };
  }

  /**
   * The shadow roots of the hosts that a range's boundaries span: the child right after the start
   * boundary and the child right before the end boundary, when the boundary sits in an element or
   * a shadow root (a Text boundary spans no host). Pure over the node fields it reads.
   * @param {{startContainer: Node, startOffset: number, endContainer: Node, endOffset: number}} range
   * @param {(node: Node) => ShadowRoot | null} rootOf the shadow root of a node, or null
   * @returns {ShadowRoot[]}
   */
  function spannedHosts(range, rootOf) {
    /** @type {ShadowRoot[]} */
    const found = [];
    const after = childAt(range.startContainer, range.startOffset);
    const before = childAt(range.endContainer, range.endOffset - 1);
    for (const node of [after, before]) {
      const root = node && node.nodeType === 1 ? rootOf(node) : null;
      if (root && !found.includes(root)) found.push(root);
    }
    return found;
  }

  /** @param {Node} container @param {number} index @returns {Node | null} its child at `index` */
  function childAt(container, index) {
    if (container.nodeType !== 1 && container.nodeType !== 11) return null; // Text, Comment, …
    return container.childNodes[index] ?? null;
  }

  /**
   * An element's shadow root, open or closed: closed ones through the extension API
   * `chrome.dom.openOrClosedShadowRoot` (Chromium ≥ 88, Firefox has `openOrClosedShadowRoot` on
   * the element in content scripts).
   * @param {Node} node
   * @returns {ShadowRoot | null}
   */
  function shadowRootOf(node) {
    if (!(node instanceof Element)) return null;
    if (node.shadowRoot) return node.shadowRoot;
    const api = /** @type {{dom?: {openOrClosedShadowRoot?: (element: HTMLElement) => ShadowRoot | null}}} */ (
      /** @type {unknown} */ (globalThis.chrome ?? {})
    );
    const firefox = /** @type {{openOrClosedShadowRoot?: ShadowRoot | null}} */ (/** @type {unknown} */ (node));
    try {
      if (api.dom?.openOrClosedShadowRoot && node instanceof HTMLElement) return api.dom.openOrClosedShadowRoot(node) ?? null;
      return firefox.openOrClosedShadowRoot ?? null;
    } catch {
      return null; // not a host
    }
  }

  /**
   * Whether `range`'s anchor-side boundary (its end when `backward`) is at (`node`, `offset`).
   * @param {Range} range @param {boolean | undefined} backward @param {Node | null} node @param {number} offset
   */
  function sameBoundary(range, backward, node, offset) {
    return backward
      ? range.endContainer === node && range.endOffset === offset
      : range.startContainer === node && range.startOffset === offset;
  }

  /**
   * The Selection object that holds the user's selection in `doc`, looking into open shadow
   * roots: Chromium's document selection points at the shadow host; `ShadowRoot.getSelection()`
   * (Chromium) gives the range inside. The path for engines without `getComposedRanges`
   * (shadowRange) and for selections made with `addRange` on a shadow range.
   * @param {Document} doc
   * @returns {globalThis.Selection | null}
   */
  function selectionFor(doc) {
    let selection = doc.getSelection();
    for (let depth = 0; selection && selection.rangeCount > 0 && depth < 16; depth++) {
      const node = selection.anchorNode;
      const host = node instanceof Element ? node : null;
      const root = /** @type {(ShadowRoot & {getSelection?: () => globalThis.Selection | null}) | null} */ (
        host?.shadowRoot ?? null
      );
      const inner = root?.getSelection?.();
      if (!inner || inner.rangeCount === 0 || inner.isCollapsed) break;
      selection = inner;
    }
    return selection;
  }

  /** @param {number} key @param {Range} range */
  function remember(key, range) {
    ranges.delete(key);
    ranges.set(key, range);
    if (ranges.size > MAX_RANGES) ranges.delete(/** @type {number} */ (ranges.keys().next().value));
  }

  /** @param {Node} node @returns {HTMLElement | null} the contenteditable host holding `node` */
  function editingHost(node) {
    let element = node instanceof HTMLElement ? node : node.parentElement;
    if (!element || !element.isContentEditable) return null;
    while (element.parentElement && element.parentElement.isContentEditable) element = element.parentElement;
    return element;
  }

  /** @param {Element} field @returns {number} the field's key (stable while the element lives) */
  function fieldKey(field) {
    let key = fieldKeys.get(field);
    if (key === undefined) {
      key = nextKey++;
      fieldKeys.set(field, key);
      fieldsByKey.set(key, new WeakRef(field));
      if (fieldsByKey.size > MAX_RANGES) fieldsByKey.delete(/** @type {number} */ (fieldsByKey.keys().next().value));
    }
    return key;
  }

  /**
   * Keep a field selection on its passage through an edit: the edit replaced the text between
   * the common prefix and the common suffix of the old and new values. Returns the new offsets,
   * or null when the passage was deleted. Pure; offsets are UTF-16 code units.
   * @param {{start: number, end: number}} sel
   * @param {string} before the value the offsets refer to
   * @param {string} after the new value
   * @param {number} [caret] the field's selectionEnd after the edit: when the edit is a plain
   *   insertion or deletion ending there (typing), two native string comparisons confirm it, so a
   *   keystroke in a 1 MB field does not walk the value code unit by code unit
   * @returns {{start: number, end: number} | null}
   */
  function adjustOffsets(sel, before, after, caret) {
    const { prefix, oldEnd, suffix } = editAt(before, after, caret) ?? commonEnds(before, after);
    const delta = after.length - before.length;
    if (oldEnd <= sel.start) return { start: sel.start + delta, end: sel.end + delta };
    if (prefix >= sel.end) return sel;
    if (prefix <= sel.start && oldEnd >= sel.end) return null; // the whole passage was replaced
    // A partial overlap: the passage grows to hold the inserted text.
    const inserted = after.length - suffix - prefix;
    const start = Math.min(prefix, sel.start);
    const end = oldEnd >= sel.end ? prefix + inserted : sel.end + delta;
    return end > start ? { start, end } : null;
  }

  /**
   * The edit as the longest common prefix and suffix of the two values.
   * @param {string} before @param {string} after
   * @returns {{prefix: number, oldEnd: number, suffix: number}} the edit replaced before[prefix, oldEnd)
   */
  function commonEnds(before, after) {
    let prefix = 0;
    const max = Math.min(before.length, after.length);
    while (prefix < max && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
    let suffix = 0;
    while (
      suffix < max - prefix &&
      before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
    )
      suffix++;
    return { prefix, oldEnd: before.length - suffix, suffix };
  }

  /**
   * The edit, if it is an insertion ending at `caret` or a deletion at `caret`; else null.
   * @param {string} before @param {string} after @param {number | undefined} caret
   * @returns {{prefix: number, oldEnd: number, suffix: number} | null}
   */
  function editAt(before, after, caret) {
    if (caret === undefined || !Number.isSafeInteger(caret)) return null;
    const delta = after.length - before.length;
    const prefix = delta >= 0 ? caret - delta : caret;
    const oldEnd = delta >= 0 ? prefix : prefix - delta;
    if (prefix < 0 || oldEnd > before.length || caret > after.length) return null;
    if (before.slice(0, prefix) !== after.slice(0, prefix)) return null;
    if (before.slice(oldEnd) !== after.slice(caret)) return null;
    return { prefix, oldEnd, suffix: before.length - oldEnd };
  }

  /** @param {Event} event an `input` event: move the field selections of that field */
  function onInput(event) {
    const field = eventTarget(event);
    if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return;
    for (const [key, sel] of fieldRanges) {
      if (sel.field.deref() !== field) continue;
      /** @type {number | undefined} */
      let caret;
      try {
        caret = field.selectionEnd ?? undefined;
      } catch {
        caret = undefined; // input types without a text selection
      }
      const moved = adjustOffsets(sel, sel.value, field.value, caret);
      if (moved) fieldRanges.set(key, { ...sel, ...moved, value: field.value });
      else fieldRanges.set(key, { ...sel, start: 0, end: 0, value: field.value });
    }
  }

  /** @returns {null} */
  function forget() {
    current = null;
    return null;
  }

  /** @returns {Element | null} the focused element, looking into open and closed shadow roots */
  function deepActiveElement() {
    let element = document.activeElement;
    for (let depth = 0; element && depth < MAX_SHADOW_DEPTH; depth++) {
      const inner = shadowRootOf(element)?.activeElement;
      if (!inner) break;
      element = inner;
    }
    return element;
  }

  /**
   * The element an event really happened on: `event.target` is retargeted to the shadow host
   * for listeners on the document, `composedPath()[0]` is the field inside an open root; inside a
   * closed root (hidden from `composedPath`) the focused element stands in, which is where an
   * `input` or `select` happens.
   * @param {Event} event
   * @returns {EventTarget | null}
   */
  function eventTarget(event) {
    const target = event.target;
    if (!(target instanceof Element) || !shadowRootOf(target)) return target;
    const first = event.composedPath()[0] ?? target;
    return first !== target ? first : deepActiveElement() ?? target;
  }

  /**
   * Up to ~CONTEXT_CHARS of the text the user sees before or after the range (content/visible_text.js
   * `contextText`: rendered text only, a line break between blocks). The text of a secret field
   * next to the selection is skipped (`isPageText`).
   * @param {Range} range
   * @param {"before" | "after"} side
   * @param {Judge} judge
   * @returns {string}
   */
  function contextText(range, side, judge) {
    return visible.contextText(range, side, judge, isPageText, CONTEXT_CHARS * 4, CONTEXT_MAX_NODES);
  }

  /** @param {Node} node a text node @returns {boolean} false for script/style text, a secret field's text */
  function isPageText(node) {
    return !(node.parentElement && NOT_TEXT.has(node.parentElement.tagName)) && !secret.isInSecretField(node);
  }

  /**
   * Where a field selection is now: the field and the current offsets; null when the field is
   * gone or the passage was deleted.
   * @param {number} key
   * @returns {{field: HTMLInputElement | HTMLTextAreaElement, start: number, end: number} | null}
   */
  function fieldRange(key) {
    const sel = fieldRanges.get(key);
    const field = sel?.field.deref();
    if (!sel || !field || !field.isConnected || sel.end <= sel.start) return null;
    return { field, start: sel.start, end: sel.end };
  }

  const onInputTimed = ns.timed(onInput);
  // At window capture, before any page listener (report.js says why).
  ns.listen(window, "input", onInputTimed, true);
  ns.selection = {
    read,
    rangeFor: (key) => ranges.get(key),
    fieldRange,
    fieldFor: (key) => fieldsByKey.get(key)?.deref(),
    fieldKey,
    deepActiveElement,
    eventTarget,
    shadowRootOf,
    editingHost,
    adjustOffsets,
    newKey: () => nextKey++,
  };
})();
void 0;
