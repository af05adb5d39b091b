// webctx content script, part 2 (see namespace.js for the map): the user's selection.
//
// Pushes `selection.changed` on `selectionchange` (throttled, leading and trailing edge) and answers
// `selection.get`. A Selection is {key, text, before, after, length} (docs/protocol.md); `key`
// names this document's live Range, so the worker can keep one id per passage.

(function webctxSelection() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || ns.selection) return;

  /** @typedef {import("../protocol.js").Selection} Selection */

  /** At most one push per this many ms; the last change always gets pushed. */
  const THROTTLE_MS = 20;
  /** Pre-cap so a giant selection never crosses the message channel whole (docs/protocol.md). */
  const MAX_TEXT_CHARS = 65536;
  /** `before` / `after` length, in UTF-16 code units (SPEC §2). */
  const CONTEXT_CHARS = 200;
  /** How far the context walk may go, so a sparse document cannot make it slow. */
  const CONTEXT_MAX_NODES = 200;
  /** Live Ranges kept for their keys (for `location` later); the oldest are let go. */
  const MAX_RANGES = 64;
  /** Fields whose contents are never reported (SPEC §2 "Never reported"). */
  const SENSITIVE_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|one-time-code)(\s|$)/i;
  /** Elements whose text is not page text. */
  const NOT_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA"]);

  let nextKey = 1;
  /** The passage being selected now. @type {{key: number, range: Range, anchorNode: Node | null, anchorOffset: number} | null} */
  let current = null;
  /** @type {Map<number, Range>} */
  const ranges = new Map();
  /** @type {Selection | null} */
  let lastPushed = null;
  /** @type {ReturnType<typeof setTimeout> | 0} */
  let timer = 0;

  /**
   * The selection in this document, or null when there is nothing to report.
   * @returns {Selection | null}
   */
  function read() {
    const active = deepActiveElement();
    // Selections inside input/textarea are a later issue; skipping them all also means a
    // password or card number can never leak through getSelection().toString().
    if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return forget();
    const selection = document.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return forget();
    const range = selection.getRangeAt(0);
    if (isSensitive(range.commonAncestorContainer)) return forget();
    const full = selection.toString();
    if (full.length === 0) return forget();

    // Same passage: the same Range object, or the same anchor while the user extends the selection.
    const same =
      current !== null &&
      (current.range === range ||
        (current.anchorNode === selection.anchorNode && current.anchorOffset === selection.anchorOffset));
    const key = same && current ? current.key : nextKey++;
    current = { key, range, anchorNode: selection.anchorNode, anchorOffset: selection.anchorOffset };
    ranges.delete(key);
    ranges.set(key, range);
    if (ranges.size > MAX_RANGES) ranges.delete(/** @type {number} */ (ranges.keys().next().value));

    return {
      key,
      text: firstChars(full, MAX_TEXT_CHARS),
      before: lastChars(contextText(range, "before"), CONTEXT_CHARS),
      after: firstChars(contextText(range, "after"), CONTEXT_CHARS),
      length: full.length,
    };
  }

  /** @returns {null} */
  function forget() {
    current = null;
    return null;
  }

  /** @returns {Element | null} the focused element, looking into open shadow roots */
  function deepActiveElement() {
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return element;
  }

  /**
   * Inside a password field or one marked `autocomplete="cc-*"` / `one-time-code`?
   * @param {Node} node
   */
  function isSensitive(node) {
    const element = node instanceof Element ? node : node.parentElement;
    if (!element) return false;
    if (element.closest("input[type=password]")) return true;
    const marked = element.closest("[autocomplete]");
    return marked !== null && SENSITIVE_AUTOCOMPLETE.test(marked.getAttribute("autocomplete") ?? "");
  }

  /**
   * Up to ~CONTEXT_CHARS of page text before or after the range, whitespace collapsed. Walks text
   * nodes from the range's boundary container; a reasonable effort, not a layout-aware one.
   * @param {Range} range
   * @param {"before" | "after"} side
   * @returns {string}
   */
  function contextText(range, side) {
    const forward = side === "after";
    const container = forward ? range.endContainer : range.startContainer;
    const offset = forward ? range.endOffset : range.startOffset;
    // Walk the body, not the whole document: <title> and <head> text are not page text.
    const root = container.getRootNode();
    const scope = root instanceof Document ? root.body ?? root : root;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (isPageText(node) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
    });
    /** @type {string[]} */
    const parts = [];
    // Find the node next to the boundary; text of the boundary node itself is taken here, because
    // the walk below starts *after* (or *before*) it.
    /** @type {Node} */
    let start;
    if (container instanceof Text) {
      parts.push(forward ? container.data.slice(offset) : container.data.slice(0, offset));
      start = container;
    } else if (forward) {
      const child = container.childNodes[offset];
      start = child ?? lastDescendant(container);
      if (child instanceof Text && isPageText(child)) parts.push(child.data);
    } else {
      const child = container.childNodes[offset - 1];
      start = child ? lastDescendant(child) : container;
      if (child && start instanceof Text && isPageText(start)) parts.push(start.data);
    }
    walker.currentNode = start;
    let collected = parts.reduce((sum, part) => sum + part.length, 0);
    for (let n = 0; n < CONTEXT_MAX_NODES && collected < CONTEXT_CHARS * 4; n++) {
      const node = forward ? walker.nextNode() : walker.previousNode();
      if (!node) break;
      const data = /** @type {Text} */ (node).data;
      parts.push(data);
      collected += data.length;
    }
    const raw = forward ? parts.join("") : parts.reverse().join("");
    // Collapse layout whitespace; keep one space next to the selection, it marks a word boundary.
    return raw.trim() ? raw.replace(/\s+/g, " ") : "";
  }

  /** @param {Node} node a text node @returns {boolean} false for script/style text and the like */
  function isPageText(node) {
    return !(node.parentElement && NOT_TEXT.has(node.parentElement.tagName));
  }

  /** @param {Node} node @returns {Node} the last node in document order inside `node` */
  function lastDescendant(node) {
    let last = node;
    while (last.lastChild) last = last.lastChild;
    return last;
  }

  /** @param {string} text @param {number} max first `max` code units, not splitting a pair */
  function firstChars(text, max) {
    if (text.length <= max) return text;
    const unit = text.charCodeAt(max - 1);
    return text.slice(0, unit >= 0xd800 && unit <= 0xdbff ? max - 1 : max);
  }

  /** @param {string} text @param {number} max last `max` code units, not splitting a pair */
  function lastChars(text, max) {
    if (text.length <= max) return text;
    const start = text.length - max;
    const unit = text.charCodeAt(start);
    return text.slice(unit >= 0xdc00 && unit <= 0xdfff ? start + 1 : start);
  }

  /** @param {Selection | null} a @param {Selection | null} b */
  function sameSelection(a, b) {
    if (a === null || b === null) return a === b;
    return a.key === b.key && a.length === b.length && a.text === b.text && a.before === b.before && a.after === b.after;
  }

  function push() {
    timer = 0;
    const selection = read();
    if (sameSelection(selection, lastPushed)) return;
    lastPushed = selection;
    /** @type {WebctxNamespace} */ (ns).send({ type: "selection.changed", selection });
  }

  // Leading and trailing edge: the first change after a quiet spell is pushed at once (so the
  // worker learns within one message hop that this tab's selection is moving), later ones at
  // most every THROTTLE_MS, and the last one always.
  function onSelectionChange() {
    if (timer) return;
    push();
    timer = setTimeout(push, THROTTLE_MS);
  }

  /**
   * @param {unknown} message
   * @param {chrome.runtime.MessageSender} _sender
   * @param {(reply: unknown) => void} sendResponse
   */
  function onMessage(message, _sender, sendResponse) {
    if (typeof message === "object" && message !== null && /** @type {{type?: unknown}} */ (message).type === "selection.get") {
      sendResponse({ selection: read() });
    }
    return false;
  }

  document.addEventListener("selectionchange", onSelectionChange);
  chrome.runtime.onMessage.addListener(onMessage);
  ns.onStop(() => {
    document.removeEventListener("selectionchange", onSelectionChange);
    chrome.runtime.onMessage.removeListener(onMessage);
    if (timer) clearTimeout(timer);
  });
  ns.selection = { read, rangeFor: (key) => ranges.get(key) };
})();
void 0;
