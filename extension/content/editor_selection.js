// webctx content script, part 2b (see namespace.js for the map): the selection of code editors
// that keep their text outside the DOM (docs/internals/extension.md "Code editors").
//
//   selection.js read() ──► read(active, domRead): when the focus is in a code editor
//     1. ask the main world (main_world/editor_adapters.js) by a synchronous event on the focused
//        element: the adapter of the editor family reads the editor's own model
//     2. the focused element's EditContext (`editContext.text`, `selectionStart/End`: Monaco's
//        default in Chromium), which this world sees too
//     3. neither can read the model but an adapter knows the editor: the DOM read (`domRead`)
//        marked `partial` (a virtualised editor holds only part of the document in the DOM)
//   locate.js measure() ──► measure(key): the rects of the elements the editor draws the
//     selection with (the adapter's `layer` selector), clipped to the editor's box
//
// The main world's answer is page input: only taken during our own dispatch, a string of bounded
// size, every field type-checked and capped again, and its text checked against what the DOM (or
// the hidden textarea) holds of the selection.

(function webctxEditorSelection() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.secret || ns.editorSelection) return;
  const { selection, secret } = ns;
  const clean = /** @type {TextClean} */ (/** @type {any} */ (globalThis).webctxTextClean);
  const { firstChars, lastChars } = clean;

  /** @typedef {import("../protocol.js").Selection} Selection */
  /** @typedef {import("../service_worker/location.js").Measured} Measured */

  const ASK = "webctx-editor-ask";
  const ANSWER = "webctx-editor-answer";
  /** content/selection.js's caps: text and context, UTF-16 code units. */
  const MAX_TEXT_CHARS = 65536;
  const CONTEXT_CHARS = 200;
  /** An answer longer than this (JSON text) is dropped unread: the capped selection, its context,
   * the document's capped start (a focus read), names; a code unit takes at most 6 (`\u0001`). */
  const MAX_ANSWER_CHARS = 6 * (2 * MAX_TEXT_CHARS + 4 * CONTEXT_CHARS) + 4096;
  const NAME = /^[a-z][a-z0-9-]{0,31}$/;
  const MAX_SELECTOR_CHARS = 256;
  /** How many code units of the DOM's share of the selection (whitespace left out) the editor's text must hold. */
  const CHECK_CHARS = 64;
  /** Editor passages kept for `location`; the oldest are let go. */
  const MAX_KEYS = 64;
  /** Drawn selection elements measured per passage at most (locate.js sends as many). */
  const MAX_RECTS = 2000;

  /** @typedef {{editor: string, root: string, layer: string, reading: {text: string, start: number, length: number, before: string, after: string} | null | "unknown", content?: {text: string, length: number}}} Answer */

  /** Passages by key: the editor's root element and its selection layer. @type {Map<number, {root: WeakRef<Element>, layer: string}>} */
  const passages = new Map();
  /** The passage being selected now. @type {{key: number, root: Element, start: number} | null} */
  let current = null;

  /**
   * The selection when `active` is in a code editor; `domRead()` (selection.js's DOM and field
   * read) otherwise, or marked partial when the editor's model is out of reach.
   * @param {Element | null} active the focused element (shadow roots included)
   * @param {() => Selection | null} domRead
   * @returns {Selection | null}
   */
  function read(active, domRead) {
    if (!active || !mayBeEditor(active) || secret.isSecretField(active)) return domRead();
    const answer = ask(active);
    const context = editContextReading(active);
    const root = answer ? safeClosest(active, answer.root) : null;
    let reading = answer && root && answer.reading !== "unknown" ? answer.reading : undefined;
    if (reading && !agrees(reading, active, root, context)) reading = undefined;
    if (reading === undefined && context !== undefined) reading = context;
    if (reading === null) {
      current = null;
      return null;
    }
    if (reading === undefined) {
      const dom = domRead();
      if (!dom || !answer || !root) return dom;
      remember(dom.key, root, answer.layer);
      return { ...dom, editor: answer.editor, partial: true };
    }
    const holder = root ?? active;
    const same = current !== null && current.root === holder && current.start === reading.start;
    const key = same && current ? current.key : selection.newKey();
    current = { key, root: holder, start: reading.start };
    remember(key, holder, answer && root ? answer.layer : "");
    const text = clean.stripInvisible(reading.text);
    if (text.length === 0) return null;
    /** @type {Selection} */
    const result = {
      key,
      text,
      before: lastChars(clean.stripInvisible(reading.before).replace(/\s+/g, " "), CONTEXT_CHARS),
      after: firstChars(clean.stripInvisible(reading.after).replace(/\s+/g, " "), CONTEXT_CHARS),
      length: Math.max(reading.length, text.length),
      editor: answer && root ? answer.editor : "editcontext",
    };
    const field = fieldOf(active);
    if (field) result.field = field;
    return result;
  }

  /**
   * The focused code editor's document (its capped start and whole length), for its textbox's
   * content; undefined when `active` is no editor an adapter reads (focus_hover.js reads the DOM).
   * Not checked against the DOM, which holds whichever lines are in view: the page writes both.
   * @param {Element} active
   * @returns {{content: string, length: number} | undefined}
   */
  function fieldText(active) {
    if (!mayBeEditor(active) || secret.isSecretField(active)) return undefined;
    const answer = ask(active, "focus");
    const root = answer ? safeClosest(active, answer.root) : null;
    if (!answer || !root || !answer.content || !root.contains(active)) return undefined;
    return { content: clean.stripInvisible(answer.content.text), length: answer.content.length };
  }

  /** @param {Element} element @returns {boolean} whether a code editor may have the focus here */
  function mayBeEditor(element) {
    return (
      element instanceof HTMLTextAreaElement ||
      (element instanceof HTMLElement && element.isContentEditable) ||
      editContextOf(element) !== null
    );
  }

  /**
   * The main world's answer for `active`, or null (no adapter, or a malformed answer).
   * @param {Element} active
   * @param {"selection" | "focus"} [what] "focus": the document's start too (the textbox's content)
   * @returns {Answer | null}
   */
  function ask(active, what = "selection") {
    /** @type {unknown} */
    let raw = null;
    let asking = true;
    const onAnswer = (/** @type {Event} */ event) => {
      if (!asking || raw !== null) return;
      raw = /** @type {CustomEvent} */ (event).detail;
    };
    active.addEventListener(ANSWER, onAnswer);
    try {
      active.dispatchEvent(new CustomEvent(ASK, { bubbles: true, composed: true, detail: what }));
    } finally {
      asking = false;
      active.removeEventListener(ANSWER, onAnswer);
    }
    return parseAnswer(raw);
  }

  /**
   * Check an answer from the page's world: a JSON string of bounded size, every field typed.
   * Pure.
   * @param {unknown} raw
   * @returns {Answer | null}
   */
  function parseAnswer(raw) {
    if (typeof raw !== "string" || raw.length > MAX_ANSWER_CHARS) return null;
    /** @type {any} */
    let data;
    try {
      data = JSON.parse(raw);
    } catch {
      return null;
    }
    if (typeof data !== "object" || data === null) return null;
    const { editor, root, layer, reading } = data;
    if (typeof editor !== "string" || !NAME.test(editor)) return null;
    if (typeof root !== "string" || root.length === 0 || root.length > MAX_SELECTOR_CHARS) return null;
    if (typeof layer !== "string" || layer.length > MAX_SELECTOR_CHARS) return null;
    /** @type {{text: string, length: number} | undefined} */
    let whole;
    const { content } = data;
    if (content !== undefined) {
      if (typeof content !== "object" || content === null) return null;
      if (typeof content.text !== "string" || !Number.isSafeInteger(content.length) || content.length < content.text.length) return null;
      whole = { text: firstChars(content.text, MAX_TEXT_CHARS), length: content.length };
    }
    const base = whole ? { editor, root, layer, content: whole } : { editor, root, layer };
    if (reading === "unknown" || reading === null) return { ...base, reading };
    if (typeof reading !== "object") return null;
    const { text, start, length, before, after } = reading;
    if (typeof text !== "string" || typeof before !== "string" || typeof after !== "string") return null;
    if (!Number.isSafeInteger(start) || start < 0 || !Number.isSafeInteger(length) || length < text.length) return null;
    return {
      ...base,
      reading: {
        text: firstChars(text, MAX_TEXT_CHARS),
        start,
        length,
        before: lastChars(before, CONTEXT_CHARS * 4),
        after: firstChars(after, CONTEXT_CHARS * 4),
      },
    };
  }

  /** @param {Element} element @returns {any} its EditContext (Chromium ≥ 121), or null */
  function editContextOf(element) {
    const context = /** @type {{editContext?: unknown}} */ (/** @type {unknown} */ (element)).editContext;
    return typeof context === "object" && context !== null ? context : null;
  }

  /**
   * The selection of the element's EditContext: null when collapsed, undefined when it has none.
   * @param {Element} element
   * @returns {{text: string, start: number, length: number, before: string, after: string} | null | undefined}
   */
  function editContextReading(element) {
    const context = editContextOf(element);
    if (!context) return undefined;
    const all = context.text;
    const a = context.selectionStart;
    const b = context.selectionEnd;
    if (typeof all !== "string" || !Number.isSafeInteger(a) || !Number.isSafeInteger(b)) return undefined;
    const start = Math.max(0, Math.min(a, b, all.length));
    const end = Math.min(Math.max(a, b), all.length);
    if (end <= start) return null;
    return {
      text: firstChars(all.slice(start, Math.min(end, start + MAX_TEXT_CHARS)), MAX_TEXT_CHARS),
      start,
      length: end - start,
      before: all.slice(Math.max(0, start - CONTEXT_CHARS * 4), start),
      after: all.slice(end, end + CONTEXT_CHARS * 4),
    };
  }

  /**
   * Whether the adapter's reading holds what the browser holds of the selection: the EditContext's
   * selected text when there is one (the same length: the same text), else the first line of the
   * DOM's (or the hidden textarea's) share, whitespace left out (an editor lays lines out in elements).
   * @param {{text: string, length: number}} reading
   * @param {Element} active
   * @param {Element | null} root
   * @param {{text: string, length: number} | null | undefined} context
   * @returns {boolean}
   */
  function agrees(reading, active, root, context) {
    if (context) return context.length !== reading.length || context.text === reading.text;
    // The first line only: a virtualised editor's DOM skips the lines out of view (a gap).
    const first = domShare(active, root).split("\n").map(squeeze).find((line) => line.length > 0) ?? "";
    const sample = first.slice(0, CHECK_CHARS);
    return sample.length === 0 || squeeze(reading.text).includes(sample);
  }

  /** @param {string} text @returns {string} without whitespace */
  const squeeze = (text) => text.replace(/\s+/g, "");

  /**
   * What the DOM holds of the selection's start: the textarea's selected value, or the text of
   * the document selection's first line inside the editor (the text nodes under the same child
   * of the range's common ancestor: CodeMirror's `.cm-line`).
   * @param {Element} active @param {Element | null} root
   * @returns {string}
   */
  function domShare(active, root) {
    if (active instanceof HTMLTextAreaElement) {
      const { selectionStart, selectionEnd, value } = active;
      return value.slice(selectionStart, Math.min(selectionEnd, selectionStart + CHECK_CHARS * 8));
    }
    const dom = document.getSelection();
    if (!dom || dom.rangeCount === 0 || !root || !dom.anchorNode || !root.contains(dom.anchorNode)) return "";
    const range = dom.getRangeAt(0);
    const top = range.commonAncestorContainer;
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
    /** @type {Node | null} */
    let line = null;
    let out = "";
    for (let node = walker.nextNode(), n = 0; node && n < 256 && out.length < CHECK_CHARS * 8; node = walker.nextNode(), n++) {
      if (!range.intersectsNode(node)) continue;
      if (line === null) {
        line = node;
        while (line.parentNode && line.parentNode !== top) line = line.parentNode;
      } else if (!line.contains(node)) break;
      const data = /** @type {Text} */ (node).data;
      out += node === range.startContainer ? data.slice(range.startOffset) : data;
    }
    return out;
  }

  /**
   * The textbox Group the Text goes in, keyed as focus_hover.js keys the focused field.
   * @param {Element} active
   * @returns {{key: number, kind: "input" | "textarea" | "contenteditable"}}
   */
  function fieldOf(active) {
    if (active instanceof HTMLTextAreaElement) return { key: selection.fieldKey(active), kind: "textarea" };
    return { key: selection.fieldKey(selection.editingHost(active) ?? active), kind: "contenteditable" };
  }

  /** @param {Element} element @param {string} selector @returns {Element | null} */
  function safeClosest(element, selector) {
    try {
      return element.closest(selector);
    } catch {
      return null; // not a selector
    }
  }

  /** @param {number} key @param {Element} root @param {string} layer */
  function remember(key, root, layer) {
    passages.delete(key);
    passages.set(key, { root: new WeakRef(root), layer });
    if (passages.size > MAX_KEYS) passages.delete(/** @type {number} */ (passages.keys().next().value));
  }

  /**
   * Where an editor passage is drawn: the editor's selection elements (one per line or block),
   * clipped to the editor's box; the box itself when none is drawn (scrolled out of the editor's
   * view). Undefined when `key` is not an editor passage.
   * @param {number} key
   * @returns {Measured | undefined}
   */
  function measure(key) {
    const passage = passages.get(key);
    if (!passage) return undefined;
    const root = passage.root.deref();
    if (!root || !root.isConnected) return { status: "gone" };
    const box = root.getBoundingClientRect();
    /** @type {Element[]} */
    let drawn = [];
    try {
      drawn = passage.layer ? [...root.querySelectorAll(passage.layer)].slice(0, MAX_RECTS) : [];
    } catch {
      drawn = []; // not a selector
    }
    const rects = drawn.map((element) => clip(element.getBoundingClientRect(), box)).filter((r) => r !== null);
    return { status: "ok", rects: rects.length > 0 ? rects : [plain(box)], avoid: true };
  }

  /** @param {DOMRect} r @returns {import("../service_worker/location.js").Rect} */
  const plain = (r) => ({ x: r.left, y: r.top, w: r.width, h: r.height });

  /**
   * `r` cut to `box` (what of it the editor shows), or null when nothing is left. Pure.
   * @param {{left: number, top: number, right: number, bottom: number}} r
   * @param {{left: number, top: number, right: number, bottom: number}} box
   * @returns {import("../service_worker/location.js").Rect | null}
   */
  function clip(r, box) {
    const left = Math.max(r.left, box.left);
    const top = Math.max(r.top, box.top);
    const right = Math.min(r.right, box.right);
    const bottom = Math.min(r.bottom, box.bottom);
    return right > left && bottom > top ? { x: left, y: top, w: right - left, h: bottom - top } : null;
  }

  ns.editorSelection = { read, measure, parseAnswer, clip, movesLater: (element) => element !== null && editContextOf(element) !== null,
    hasEditContext: (element) => editContextOf(element) !== null,
    fieldText,
  };
})();
void 0;
