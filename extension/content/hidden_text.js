// Which parts of the page the user cannot see, decided on the LIVE document (its computed style
// and layout) and applied to a clone of it (docs/internals/protocol.md "page.read"; docs/internals/native-host.md
// "Threat model", "Hidden page text"). Readability and turndown work on a clone, which has no
// style or layout: without this, text hidden by a stylesheet (a class with `display: none`,
// `opacity: 0`, off-screen positioning, a 1 px font, text the colour of its background, the
// "visually hidden" clip) reached the text a model reads. A classic script of the isolated world,
// injected before content/page_text.js (PAGE_TEXT_FILES) and loaded by the manifest for the
// selection's text (content/selection.js: `textJudge`); it only sets `globalThis.webctxHidden`
// and does no work until asked.
// Reads the live page (style, layout), never changes it; changes only the clone. The pure colour
// rules are node-tested (extension/test/page_text.test.js), the rest in a real Chromium
// (tests/e2e/test_page_text_extraction.py).

(function () {
  "use strict";

  /** Text at or below this font size (CSS px) is not readable: dropped. */
  const MAX_HIDDEN_FONT_PX = 1;
  /** A box at most this wide or tall (CSS px) that clips its overflow shows nothing: dropped. */
  const MAX_HIDDEN_BOX_PX = 1;
  /** Text indented by this much or more to the left (CSS px, `text-indent: -9999px`) is off-screen. */
  const MIN_TEXT_INDENT_PX = -999;
  /** Below this opacity (the product of the element's and its ancestors') text is not readable. */
  const MIN_OPACITY = 0.1;
  /** Text whose WCAG contrast ratio with its background is below this cannot be told from it. */
  const MIN_CONTRAST = 1.2;

  /**
   * @typedef {[number, number, number, number]} Rgba  channels 0–255, alpha 0–1
   */

  /**
   * A computed colour (`rgb(r, g, b)` / `rgba(r, g, b, a)`, as getComputedStyle writes sRGB
   * colours) as channels; null for any other form (a wide-gamut `color(…)`, `oklch(…)`): unknown.
   * @param {string} text
   * @returns {Rgba | null}
   */
  function parseRgb(text) {
    const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(text);
    if (!match) return null;
    const alphaText = match[4];
    const alpha = alphaText === undefined ? 1 : alphaText.endsWith("%") ? parseFloat(alphaText) / 100 : parseFloat(alphaText);
    return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
  }

  /**
   * `top` painted over the opaque `bottom` (alpha compositing): an opaque colour.
   * @param {Rgba} top
   * @param {Rgba} bottom  opaque (alpha 1)
   * @returns {Rgba}
   */
  function over(top, bottom) {
    const a = top[3];
    const mix = (/** @type {number} */ i) => top[i] * a + bottom[i] * (1 - a);
    return [mix(0), mix(1), mix(2), 1];
  }

  /**
   * WCAG 2 contrast ratio of two opaque colours: 1 (the same) to 21 (black on white).
   * @param {Rgba} a
   * @param {Rgba} b
   * @returns {number}
   */
  function contrast(a, b) {
    const luminance = (/** @type {Rgba} */ c) => {
      const [r, g, bl] = [0, 1, 2].map((i) => {
        const s = c[i] / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
    };
    const [x, y] = [luminance(a), luminance(b)];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  /**
   * Whether text of `color` on the opaque `background` cannot be seen (contrast below
   * MIN_CONTRAST, a transparent colour included). False when either is unknown.
   * @param {Rgba | null} color
   * @param {Rgba | null} background
   * @returns {boolean}
   */
  function blendsIn(color, background) {
    if (!color || !background) return false;
    return contrast(over(color, background), background) < MIN_CONTRAST;
  }

  /**
   * @typedef {object} Context  what an element inherits from its ancestors in the walk
   * @property {Rgba | null} background  the opaque colour behind it; null: unknown (an image)
   * @property {number} opacity  the product of its ancestors' opacity
   * @property {number} scrollX  its scroll containers' scroll offsets, summed (CSS px): added to
   * @property {number} scrollY  its box to give the position it has when they are not scrolled
   */

  /**
   * Remove from `clone` (a `cloneNode(true)` of `live`, not changed since) every part of `live` the
   * user cannot see. The two trees are walked in parallel, element by element (no attribute is set
   * on the live page, which could observe it); each element is looked at once, so the work is
   * linear in the elements (the caller bounds them). A whole subtree goes when the element is not
   * rendered or shown (`display: none`, the `hidden` attribute, `content-visibility: hidden`), when
   * its opacity (times its ancestors', and times any `filter: opacity(…)`) is under MIN_OPACITY
   * (`opacity: 0` or `filter: opacity(0)` here or above), when it
   * is the content of a closed `<details>` (but its `<summary>`), when its box, positioned or
   * transformed, lies wholly before the page's start (off-screen positioning: the user cannot
   * scroll to a negative offset; a fixed box wholly outside the window), when it is a box of at most
   * MAX_HIDDEN_BOX_PX that clips its overflow (the "visually hidden" pattern, a zero-size box), or
   * is clipped away by `clip: rect(0 0 0 0)` or `clip-path: inset(50%)`. Only the element's own text
   * goes (its children are looked at in turn) when it is `visibility: hidden` (a child may be
   * visible again), its font is at most MAX_HIDDEN_FONT_PX (a font-size 0 container is a layout
   * trick), it is indented off-screen (`text-indent: -9999px`, which its children inherit), or
   * the colour its glyphs are filled with (`-webkit-text-fill-color`, else `color`) blends into
   * its background. A `transform: scale(0)` hides the subtree. Text
   * scrolled out of view, in a scrolling box or below the fold, stays: the user can scroll to it.
   * `aria-hidden` changes nothing.
   * @param {Element} live  a live element (the body)
   * @param {Element} clone  its counterpart in the clone
   * @returns {number} the elements removed
   */
  function pruneHidden(live, clone) {
    const view = live.ownerDocument.defaultView;
    if (!view) return 0;
    const ltr = view.getComputedStyle(live.ownerDocument.documentElement).direction !== "rtl";
    /** @type {Node[]} */
    const drop = [];
    /** @type {Array<[Element, Element, Context]>} */
    const stack = [[live, clone, { background: canvas(live, view), opacity: 1, scrollX: view.scrollX, scrollY: view.scrollY }]];
    while (stack.length > 0) {
      const [element, counterpart, context] = /** @type {[Element, Element, Context]} */ (stack.pop());
      const seen = look(element, context, view, ltr);
      if (seen === "subtree") {
        drop.push(counterpart);
        continue;
      }
      if (seen.ownTextHidden) drop.push(...ownText(counterpart));
      const inner = seen.inner;
      let child = element.firstElementChild;
      let twin = counterpart.firstElementChild;
      const closedDetails = isClosedDetails(element);
      if (closedDetails) drop.push(...ownText(counterpart));
      let summary = closedDetails;
      while (child && twin) {
        if (summary && child.localName === "summary") {
          summary = false;
          stack.push([child, twin, inner]);
        } else if (closedDetails) drop.push(twin);
        else stack.push([child, twin, inner]);
        child = child.nextElementSibling;
        twin = twin.nextElementSibling;
      }
      // The clone is the same tree (made just before, nothing ran since); if not, stop rather
      // than remove the wrong parts.
      if (child || twin) throw new Error("webctx page text: the clone differs from the page");
    }
    for (const node of drop) node.parentNode?.removeChild(node);
    return drop.length;
  }

  /**
   * Whether `element` is hidden: "subtree" (it and all it holds), or whether its own text is
   * (`ownTextHidden`), and what its children inherit (`inner`). Each computed property is read
   * once, and layout only where it can hide something: on a page of 40,000 elements these reads
   * are most of the walk's time.
   * @param {Element} element
   * @param {Context} context
   * @param {Window} view
   * @param {boolean} ltr  the document is left-to-right (a negative x offset is not scrollable)
   * @returns {"subtree" | {ownTextHidden: boolean, inner: Context}}
   */
  function look(element, context, view, ltr) {
    const style = view.getComputedStyle(element);
    const display = style.display;
    // Computed style, not checkVisibility(): that looks at every ancestor on each call, n × depth
    // in all (0.9 s on a 5,000-deep page); the walk carries what the ancestors decided instead.
    // content-visibility: auto (skipped until it nears the viewport) stays: the user scrolls to it.
    if (display === "none" || style.contentVisibility === "hidden") return "subtree";
    // A `filter: opacity(…)` fades the element as `opacity` does (its children with it).
    const filter = style.filter;
    const opacity = context.opacity * parseFloat(style.opacity) * (filter === "none" ? 1 : filterOpacity(filter));
    if (opacity < MIN_OPACITY) return "subtree";
    const position = style.position;
    if (clippedAway(style, position)) return "subtree";
    const clips = style.overflowX !== "visible" || style.overflowY !== "visible";
    const fixed = position === "fixed";
    const transform = style.transform;
    // scale(0) (any singular 2D matrix of zeros) shows nothing of the element or its children.
    if (transform.startsWith("matrix(0, 0, 0, 0,")) return "subtree";
    const moved = fixed || position === "absolute" || transform !== "none";
    // display: contents has no box of its own: its children decide.
    if ((clips || moved) && display !== "contents") {
      // A rectangle of every element would cost n × depth on nested inline markup.
      const box = element.getBoundingClientRect();
      // Only a box with content can hide it: an image (Chromium clips replaced elements) not yet
      // loaded, of size 0, stays.
      const tiny = box.width <= MAX_HIDDEN_BOX_PX || box.height <= MAX_HIDDEN_BOX_PX;
      if (clips && tiny && element.hasChildNodes()) return "subtree";
      if (moved && (box.width > 0 || box.height > 0)) {
        if (fixed) {
          if (box.right <= 0 || box.bottom <= 0 || box.left >= view.innerWidth || box.top >= view.innerHeight) return "subtree";
        } else if (box.bottom + context.scrollY <= 0 || (ltr && box.right + context.scrollX <= 0)) return "subtree";
      }
    }
    const background = behind(style, context);
    // Only a box that clips its overflow scrolls; reading the offsets of every element costs layout.
    const scrolls = clips && (element.scrollLeft !== 0 || element.scrollTop !== 0);
    const inner =
      background === context.background && opacity === context.opacity && !scrolls
        ? context
        : {
            background,
            opacity,
            scrollX: scrolls ? context.scrollX + element.scrollLeft : context.scrollX,
            scrollY: scrolls ? context.scrollY + element.scrollTop : context.scrollY,
          };
    // The cheap reads first: walking the element's child nodes costs more than three of them.
    const ownTextHidden =
      (style.visibility !== "visible" ||
        parseFloat(style.fontSize) <= MAX_HIDDEN_FONT_PX ||
        parseFloat(style.textIndent) <= MIN_TEXT_INDENT_PX ||
        glyphsBlendIn(style, background)) &&
      hasOwnText(element);
    return { ownTextHidden, inner };
  }

  /**
   * The product of a computed `filter`'s `opacity()` amounts (`opacity(0.05)`, `opacity(5%)`), 1
   * when it has none.
   * @param {string} filter
   * @returns {number}
   */
  function filterOpacity(filter) {
    let product = 1;
    for (const match of filter.matchAll(/(?:^|[\s)])opacity\(\s*([\d.]+)(%?)\s*\)/g)) {
      const amount = parseFloat(/** @type {string} */ (match[1])) / (match[2] ? 100 : 1);
      product *= Math.min(amount, 1);
    }
    return product;
  }

  /**
   * Whether the element's glyphs cannot be told from `background`: their fill
   * (`-webkit-text-fill-color`, which is `color` unless set) blends in, and no visible
   * `-webkit-text-stroke` outlines them.
   * @param {CSSStyleDeclaration} style
   * @param {Rgba | null} background
   * @returns {boolean}
   */
  function glyphsBlendIn(style, background) {
    if (!blendsInCached(style.getPropertyValue("-webkit-text-fill-color") || style.color, background)) return false;
    if (!(parseFloat(style.getPropertyValue("-webkit-text-stroke-width")) > 0)) return true;
    return blendsIn(parseRgb(style.getPropertyValue("-webkit-text-stroke-color")), background);
  }

  /** The last colour judged: most elements share their parent's colour and background. */
  let last = { color: "", background: /** @type {Rgba | null} */ (null), blends: false };

  /**
   * `blendsIn` of a computed colour on `background`, remembering the last answer.
   * @param {string} color
   * @param {Rgba | null} background
   */
  function blendsInCached(color, background) {
    if (color !== last.color || background !== last.background) {
      last = { color, background, blends: blendsIn(parseRgb(color), background) };
    }
    return last.blends;
  }

  /**
   * Whether the element has text of its own (a text node child that is not only white space).
   * @param {Element} element
   */
  function hasOwnText(element) {
    for (let node = element.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === Node.TEXT_NODE && /\S/.test(node.nodeValue ?? "")) return true;
    }
    return false;
  }

  /**
   * `clip: rect(0 0 0 0)` (any empty rectangle) or an inset clip-path of 50 % or more: nothing shows.
   * @param {CSSStyleDeclaration} style
   * @param {string} position  its `position`
   */
  function clippedAway(style, position) {
    if (position === "absolute" || position === "fixed") {
      const rect = /^rect\(\s*(-?[\d.]+)px,?\s+(-?[\d.]+)px,?\s+(-?[\d.]+)px,?\s+(-?[\d.]+)px\s*\)$/.exec(style.clip);
      if (rect && (Number(rect[3]) <= Number(rect[1]) || Number(rect[2]) <= Number(rect[4]))) return true;
    }
    const inset = /^inset\(\s*([\d.]+)%/.exec(style.clipPath);
    return inset !== null && Number(inset[1]) >= 50;
  }

  /**
   * The opaque colour behind the element's text: its own background over its ancestors'; null
   * when a background image (or an unknown colour) is in the way.
   * @param {CSSStyleDeclaration} style
   * @param {Context} context
   * @returns {Rgba | null}
   */
  function behind(style, context) {
    if (!context.background) return null;
    const color = style.backgroundColor;
    if (style.backgroundImage !== "none") return null;
    // The common case, no background of its own, without parsing.
    if (color === "rgba(0, 0, 0, 0)") return context.background;
    const own = parseRgb(color);
    if (!own) return null;
    return own[3] === 0 ? context.background : over(own, context.background);
  }

  /**
   * The colour of the canvas behind the body: the root's background, else the body's, else white.
   * @param {Element} body
   * @param {Window} view
   * @returns {Rgba | null}
   */
  function canvas(body, view) {
    const white = /** @type {Rgba} */ ([255, 255, 255, 1]);
    const root = body.ownerDocument.documentElement;
    for (const element of [root, body]) {
      const style = view.getComputedStyle(element);
      if (style.backgroundImage !== "none") return null;
      const color = parseRgb(style.backgroundColor);
      if (!color) return null;
      if (color[3] > 0) return over(color, white);
    }
    return white;
  }

  /**
   * The element's own text nodes (not its children's).
   * @param {Element} element
   * @returns {Node[]}
   */
  function ownText(element) {
    return [...element.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE);
  }

  /** @param {Element} element @returns {boolean} a closed `<details>`: only its first `<summary>` shows */
  function isClosedDetails(element) {
    return element.localName === "details" && !(/** @type {HTMLDetailsElement} */ (element).open);
  }

  /**
   * A judge of single text nodes for one read of the live page (a selection's text and context,
   * content/selection.js), by the rules of `look` and `pruneHidden` (closed `<details>`), each
   * element judged with what its ancestors pass down (opacity, background, scroll offsets). Only
   * the elements of the text nodes asked about and their ancestors are looked at, each once per
   * judge (a cache): a selection of n nodes costs n `look`s at most, not n × depth. A text node
   * in a shadow root is judged through its host (the host's styles are what it inherits).
   * Make a new judge per read: the page's styles change between reads.
   * @param {Document} doc
   * @returns {{hidden: (node: Node) => boolean, checked: () => number}} `hidden`: whether the
   *   user cannot see the text node; `checked`: the elements looked at so far
   */
  function textJudge(doc) {
    const view = doc.defaultView;
    /** @type {Map<Element, "subtree" | {ownTextHidden: boolean, inner: Context}>} */
    const verdicts = new Map();
    if (!view || !doc.body || isOwnViewer(doc)) return { hidden: () => false, checked: () => 0 };
    const body = doc.body;
    const ltr = view.getComputedStyle(doc.documentElement).direction !== "rtl";
    /** @type {Context} */
    const top = { background: canvas(body, view), opacity: 1, scrollX: view.scrollX, scrollY: view.scrollY };
    /** @param {Node} node @returns {Element | null} its parent in the tree its styles come from */
    const up = (node) => node.parentElement ?? (node.parentNode instanceof ShadowRoot ? node.parentNode.host : null);
    /** @param {Element} element */
    const verdict = (element) => {
      /** @type {Element[]} */
      const chain = [];
      /** @type {Element | null} */
      let at = element;
      // Up to the body (where the page text's walk starts) or an element already judged.
      while (at && !verdicts.has(at)) {
        chain.push(at);
        if (at === body) break;
        at = up(at);
      }
      let parent = at && verdicts.has(at) ? at : null;
      for (let i = chain.length - 1; i >= 0; i--) {
        const child = /** @type {Element} */ (chain[i]);
        const above = parent ? verdicts.get(parent) : undefined;
        /** @type {"subtree" | {ownTextHidden: boolean, inner: Context}} */
        let seen;
        if (above === "subtree") seen = "subtree";
        else if (parent && isClosedDetails(parent) && parent.querySelector(":scope > summary") !== child) seen = "subtree";
        else seen = look(child, above ? above.inner : top, view, ltr);
        verdicts.set(child, seen);
        parent = child;
      }
      return /** @type {"subtree" | {ownTextHidden: boolean, inner: Context}} */ (verdicts.get(element));
    };
    /** @param {Node} node */
    const hidden = (node) => {
      const element = up(node);
      if (!element) return false;
      if (isClosedDetails(element)) return true; // its own text shows only in its summary
      const seen = verdict(element);
      return seen === "subtree" || seen.ownTextHidden;
    };
    return { hidden, checked: () => verdicts.size };
  }

  /**
   * Is `doc` webctx's own PDF viewer (extension/viewer/viewer.html)? Its text layer's glyphs are
   * transparent by design over the canvas that draws them (pdf.js TextLayer): nothing there is
   * hidden by a page. A web page cannot have this address.
   * @param {Document} doc
   * @returns {boolean}
   */
  function isOwnViewer(doc) {
    const runtime = /** @type {any} */ (globalThis).chrome?.runtime;
    return typeof runtime?.getURL === "function" && doc.URL.startsWith(runtime.getURL("viewer/viewer.html"));
  }

  /** @type {any} */ (globalThis).webctxHidden = Object.freeze({ pruneHidden, textJudge, parseRgb, contrast, blendsIn, filterOpacity });
})();
