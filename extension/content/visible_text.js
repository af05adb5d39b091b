// The text of a selection that the user can see (docs/internals/protocol.md "Only what the user can see"):
// the text nodes of a Range whose element is hidden (content/hidden_text.js `textJudge`, the same
// rule as the page text) are left out, and invisible characters are stripped (content/text_clean.js
// `stripInvisible`) by content/selection.js; and the text the user sees around it (`contextText`:
// the selection's `before` / `after`). A classic script of the isolated world, loaded by the
// manifest before selection.js; it only sets `globalThis.webctxVisibleText` and does no work until
// a selection is read. `joinPieces` is pure and node-tested (extension/test/visible_text.test.js).

(function () {
  "use strict";

  /**
   * Elements checked per read (each once; content/hidden_text.js). Past it the rest of the range
   * is not looked at and not reported, as if cut by the text cap: a select-all of a huge page, or a
   * page of one-letter elements, stays fast and never reports text nobody judged. 20,000 took
   * 270 ms a read on 40,000 one-letter paragraphs (bench/selection_read.py); the worker shows
   * 16 KiB of text by default, which 5,000 elements cover unless they average under 4 characters.
   */
  const MAX_CHECKED_ELEMENTS = 5000;
  /** Elements whose text is not page text (their text is never shown as such). */
  const NOT_TEXT = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA"]);
  /** Elements that start a new line: the built text breaks between them like the selection's. */
  const BLOCKS = new Set(
    "ADDRESS ARTICLE ASIDE BLOCKQUOTE BODY BR DD DETAILS DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE TD TH TR UL".split(" "),
  );

  /**
   * @typedef {object} Piece  one text node's part inside the range
   * @property {string} text
   * @property {Element | null} block  its nearest block element (BLOCKS); a change starts a line
   */

  /**
   * The pieces joined as a selection's text: white space collapsed to one space, a line break
   * where the block changes (no spaces around it), no white space at either end. Pure.
   * @param {Array<{text: string, block: unknown}>} pieces
   * @returns {string}
   */
  function joinPieces(pieces) {
    let out = "";
    /** @type {unknown} */
    let block;
    let first = true;
    for (const piece of pieces) {
      const text = piece.text.replace(/\s+/g, " ");
      if (!first && piece.block !== block && text.trim()) {
        out = out.replace(/ $/, "") + "\n";
        out += text.replace(/^ /, "");
      } else if (out.endsWith(" ") || out.endsWith("\n") || out === "") out += text.replace(/^ /, "");
      else out += text;
      if (text.trim()) {
        block = piece.block;
        first = false;
      }
    }
    return out.trim();
  }

  /** @param {Node} node @returns {Element | null} the nearest block element holding `node` */
  function blockOf(node) {
    for (let at = node.parentElement; at; at = at.parentElement) if (BLOCKS.has(at.tagName)) return at;
    return null;
  }

  /**
   * What of `range` the user can see. `hidden` is true when some text was left out; `complete` is
   * false when the walk stopped at MAX_CHECKED_ELEMENTS or `maxChars` (the text is then a prefix).
   * `text` is null when nothing is hidden and the walk was complete: the caller keeps the
   * browser's own serialisation (Selection.toString(), with its line breaks) then.
   * @param {Range} range
   * @param {number} maxChars  stop once this much visible text is collected (UTF-16 code units)
   * @param {(node: Node) => boolean} isPageText  false for text that is never reported (a secret field's)
   * @param {{hidden: (node: Node) => boolean, checked: () => number}} judge  this read's
   *   content/hidden_text.js `textJudge`
   * @returns {{text: string | null, hidden: boolean, complete: boolean}}
   */
  function rangeText(range, maxChars, isPageText, judge) {
    const root = range.commonAncestorContainer;
    /** @type {Piece[]} */
    const pieces = [];
    let hidden = false;
    let complete = true;
    let collected = 0;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    /** @type {Node | null} */
    let node = root.nodeType === Node.TEXT_NODE ? root : walker.nextNode();
    for (; node; node = root.nodeType === Node.TEXT_NODE ? null : walker.nextNode()) {
      if (!range.intersectsNode(node)) {
        // Text nodes come in document order: past the end, nothing more intersects.
        if (range.comparePoint(node, 0) > 0) break;
        continue;
      }
      const data = /** @type {Text} */ (node).data;
      const start = node === range.startContainer ? range.startOffset : 0;
      const end = node === range.endContainer ? range.endOffset : data.length;
      const text = data.slice(start, end);
      const parent = node.parentElement;
      if (parent && NOT_TEXT.has(parent.tagName)) continue;
      if (!isPageText(node)) continue;
      if (!/\S/.test(text)) {
        pieces.push({ text, block: blockOf(node) }); // layout white space: no element to judge
        continue;
      }
      if (judge.checked() >= MAX_CHECKED_ELEMENTS || collected >= maxChars) {
        complete = false;
        break;
      }
      if (judge.hidden(node)) {
        hidden = true;
        continue;
      }
      pieces.push({ text, block: blockOf(node) });
      collected += text.length;
    }
    if (!hidden && complete) return { text: null, hidden, complete };
    return { text: joinPieces(pieces), hidden, complete };
  }

  /**
   * Up to about `maxChars` of the text the user sees before or after `range` (a selection's
   * `before` / `after`), as a reader sees it: a line break where the block changes (joinPieces),
   * so two paragraphs are not glued; white space collapsed; one space (or line break) kept next
   * to the selection, which marks a word boundary. Left out: text of hidden elements (`judge`),
   * of `aria-hidden` subtrees (decoration that is no reading text: an editor's line-number gutter,
   * an icon button's label), of script/style and of what `isPageText` refuses (a secret field's).
   * Walks text nodes of the boundary's tree (the body, or the shadow root) from the boundary, at
   * most `maxNodes` of them.
   * @param {Range} range
   * @param {"before" | "after"} side
   * @param {{hidden: (node: Node) => boolean}} judge  this read's content/hidden_text.js `textJudge`
   * @param {(node: Node) => boolean} isPageText
   * @param {number} maxChars  UTF-16 code units to collect at least, when there are that many
   * @param {number} maxNodes
   * @returns {string}
   */
  function contextText(range, side, judge, isPageText, maxChars, maxNodes) {
    const forward = side === "after";
    const container = forward ? range.endContainer : range.startContainer;
    const offset = forward ? range.endOffset : range.startOffset;
    // The body, not the whole document: <title> and <head> text are not page text.
    const root = container.getRootNode();
    const scope = root instanceof Document ? root.body ?? root : root;
    /** @type {Map<Element, boolean>} */
    const decoration = new Map();
    /** @param {Node} node */
    const shown = (node) =>
      !(node.parentElement && NOT_TEXT.has(node.parentElement.tagName)) && isPageText(node) && !ariaHidden(node, decoration, scope) && !judge.hidden(node);
    /** @type {Piece[]} */
    const pieces = [];
    // The boundary's own text node, then the walk away from it.
    /** @type {Node} */
    let start;
    if (container instanceof Text) {
      if (shown(container)) pieces.push({ text: forward ? container.data.slice(offset) : container.data.slice(0, offset), block: blockOf(container) });
      start = container;
    } else if (forward) {
      const child = container.childNodes[offset];
      start = child ?? lastDescendant(container);
      if (child instanceof Text && shown(child)) pieces.push({ text: child.data, block: blockOf(child) });
    } else {
      const child = container.childNodes[offset - 1];
      start = child ? lastDescendant(child) : container;
      if (child && start instanceof Text && shown(start)) pieces.push({ text: start.data, block: blockOf(start) });
    }
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    walker.currentNode = start;
    let collected = pieces.reduce((sum, piece) => sum + piece.text.length, 0);
    for (let n = 0; n < maxNodes && collected < maxChars; n++) {
      const node = forward ? walker.nextNode() : walker.previousNode();
      if (!node) break;
      if (!shown(node)) continue;
      const text = /** @type {Text} */ (node).data;
      pieces.push({ text, block: blockOf(node) });
      collected += text.length;
    }
    if (!forward) pieces.reverse();
    const text = joinPieces(pieces);
    if (!text) return "";
    // What separates the context from the selection: a block change, else the white space there.
    const inside = container instanceof Text ? container : (forward ? container.childNodes[offset - 1] : container.childNodes[offset]) ?? container;
    const boundary = inside instanceof Element && BLOCKS.has(inside.tagName) ? inside : blockOf(inside);
    const near = /** @type {Piece} */ (forward ? pieces.find((p) => /\S/.test(p.text)) : pieces.findLast((p) => /\S/.test(p.text)));
    const nearRaw = forward ? pieces.slice(0, pieces.indexOf(near) + 1).map((p) => p.text).join("") : pieces.slice(pieces.indexOf(near)).map((p) => p.text).join("");
    const gap = near.block !== boundary ? "\n" : (forward ? /^\s/.test(nearRaw) : /\s$/.test(nearRaw)) ? " " : "";
    return forward ? gap + text : text + gap;
  }

  /**
   * Whether `node` lies in an `aria-hidden="true"` subtree of `scope` (cached per element).
   * @param {Node} node @param {Map<Element, boolean>} cache @param {Node} scope
   * @returns {boolean}
   */
  function ariaHidden(node, cache, scope) {
    /** @type {Element[]} */
    const chain = [];
    let verdict = false;
    for (let at = node.parentElement; at && at !== scope; at = at.parentElement) {
      const known = cache.get(at);
      if (known !== undefined) {
        verdict = known;
        break;
      }
      chain.push(at);
      if (at.getAttribute("aria-hidden") === "true") {
        verdict = true;
        break;
      }
    }
    for (const element of chain) cache.set(element, verdict);
    return verdict;
  }

  /** @param {Node} node @returns {Node} the last node in document order inside `node` */
  function lastDescendant(node) {
    let last = node;
    while (last.lastChild) last = last.lastChild;
    return last;
  }

  /** @type {any} */ (globalThis).webctxVisibleText = Object.freeze({ rangeText, contextText, joinPieces, MAX_CHECKED_ELEMENTS });
})();
