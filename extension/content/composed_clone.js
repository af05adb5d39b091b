// The parts of the page its document clone leaves out, folded into that clone where the user sees
// them (docs/internals/extension.md "The page's text"): shadow roots, open and closed (a Lit component's
// text), with each `<slot>` showing the light-DOM nodes assigned to it; and frames whose document
// this one can reach (same origin, `srcdoc`, `about:blank`: a TinyMCE editor's iframe), whose
// body takes the `<iframe>`'s place. A classic script of the isolated world, injected before
// content/page_text.js (PAGE_TEXT_FILES); it only sets `globalThis.webctxComposed`.
//
// Two steps around the caller's pruning of hidden parts (content/hidden_text.js), because the
// pruning walks the live tree and the clone side by side and removes from the clone:
//   collect(live, clone)  before pruning: the hosts, slots and frames of the live tree, each with
//                         its counterpart in the clone (a parallel walk; the clone is unchanged)
//   fill(found, options)  after: each host's clone gets a clone of its shadow root's content
//                         (itself collected, pruned and filled), each reachable frame's clone
//                         becomes a `<div>` of the frame body's clone; parts the pruning removed
//                         are skipped. A frame out of reach (another origin) becomes the
//                         caller's marker text: the worker reads that frame in its own document
//                         and puts its text there (service_worker/page_frames.js).
// Bounded: MAX_DEPTH shadow roots or frames deep, MAX_ELEMENTS elements added in all; past the
// bound a host keeps its light DOM and a frame is left out. Never changes the live page.

(function () {
  "use strict";

  /** Shadow roots and frames nested deeper than this are not followed (hostile nesting). */
  const MAX_DEPTH = 16;
  /** At most this many elements are added to the clone from shadow roots and frames. */
  const MAX_ELEMENTS = 40_000;
  /** Elements whose subtree holds no page text (and no host worth a walk). */
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);

  /**
   * @typedef {object} Found  what `collect` found, in document order
   * @property {Array<{live: Element, clone: Element, root: ShadowRoot, light: Map<Node, Node>}>} hosts
   *   shadow hosts; `light`: each live child node → its clone (for the slots)
   * @property {Array<{live: HTMLSlotElement, clone: Element}>} slots  slots inside a shadow root
   * @property {Array<{live: HTMLIFrameElement | HTMLFrameElement, clone: Element}>} frames
   * @property {Element[]} secrets  clones of secret contenteditables found (removed at fill)
   * @property {number} depth  how many shadow roots / frames deep this tree is
   */

  /**
   * An element's shadow root: an open one, or a custom element's closed one (through
   * `chrome.dom.openOrClosedShadowRoot`, content scripts only; Firefox: the element's
   * `openOrClosedShadowRoot`).
   * @param {Element} element
   * @returns {ShadowRoot | null}
   */
  function shadowRootOf(element) {
    if (element.shadowRoot) return element.shadowRoot;
    // The extension call is asked only of custom elements (a hyphen in the name: every component
    // library's), not of each of a page's 40,000 elements; a closed root on a built-in element
    // stays unread (the safe side: text left out, never text added).
    if (!element.localName.includes("-")) return null;
    const api = /** @type {{dom?: {openOrClosedShadowRoot?: (element: HTMLElement) => ShadowRoot | null}}} */ (
      /** @type {unknown} */ (globalThis.chrome ?? {})
    );
    try {
      if (api.dom?.openOrClosedShadowRoot) return element instanceof HTMLElement ? api.dom.openOrClosedShadowRoot(element) ?? null : null;
      return /** @type {{openOrClosedShadowRoot?: ShadowRoot | null}} */ (/** @type {unknown} */ (element)).openOrClosedShadowRoot ?? null;
    } catch {
      return null; // not a host
    }
  }

  /**
   * Walk `live` and `clone` (its unchanged clone) side by side, element by element, and note the
   * shadow hosts, slots (when `inShadow`), frames and (when `secretsToo`) secret contenteditables.
   * Iterative: a 5,000-deep DOM is fine.
   * @param {Element} live
   * @param {Element} clone
   * @param {{depth?: number, inShadow?: boolean, secretsToo?: boolean}} [where]
   * @returns {Found}
   */
  function collect(live, clone, where = {}) {
    /** @type {Found} */
    const found = { hosts: [], slots: [], frames: [], secrets: [], depth: where.depth ?? 0 };
    const secret = /** @type {{isSecretField: (e: Element) => boolean} | undefined} */ (/** @type {any} */ (globalThis).webctxSecret);
    /** @type {Array<[Element, Element]>} */
    const stack = [[live, clone]];
    while (stack.length > 0) {
      const [element, twin] = /** @type {[Element, Element]} */ (stack.pop());
      if (SKIP.has(element.tagName)) continue;
      const root = shadowRootOf(element);
      if (root) {
        /** @type {Map<Node, Node>} */
        const light = new Map();
        for (let a = element.firstChild, b = twin.firstChild; a && b; a = a.nextSibling, b = b.nextSibling) light.set(a, b);
        found.hosts.push({ live: element, clone: twin, root, light });
      }
      if (where.inShadow && element instanceof HTMLSlotElement) found.slots.push({ live: element, clone: twin });
      if (element instanceof HTMLIFrameElement || element instanceof HTMLFrameElement) found.frames.push({ live: element, clone: twin });
      if (
        where.secretsToo &&
        secret &&
        element instanceof HTMLElement &&
        element.isContentEditable &&
        !element.parentElement?.isContentEditable &&
        secret.isSecretField(element)
      ) {
        found.secrets.push(twin);
        continue;
      }
      /** @type {Array<[Element, Element]>} */
      const children = [];
      let a = element.firstElementChild;
      let b = twin.firstElementChild;
      for (; a && b; a = a.nextElementSibling, b = b.nextElementSibling) children.push([a, b]);
      if (a || b) throw new Error("webctx page text: the clone differs from the page");
      for (let i = children.length - 1; i >= 0; i--) stack.push(/** @type {[Element, Element]} */ (children[i]));
    }
    return found;
  }

  /**
   * Fold what `collect` found into the clone (see the file comment). Call after the caller's
   * pruning of the same clone.
   * @param {Found} found
   * @param {{prune: (live: Element, clone: Element) => number, unreachable?: (frame: Element) => string | null, budget?: {left: number}}} options
   *   `prune`: content/hidden_text.js pruneHidden; `unreachable`: the text that stands for a
   *   frame whose document is out of reach (null: none); `budget`: elements still allowed
   *   (shared by the nested calls)
   * @returns {number} the elements added
   */
  function fill(found, options) {
    const budget = options.budget ?? { left: MAX_ELEMENTS };
    const start = budget.left;
    for (const twin of found.secrets) twin.remove();
    // Slots first: they move the host's light clones into the shadow content built below.
    for (const host of found.hosts) {
      if (!host.clone.isConnected || found.depth >= MAX_DEPTH || budget.left <= 0) continue;
      const doc = /** @type {Document} */ (host.clone.ownerDocument);
      const content = doc.createDocumentFragment();
      /** @type {Found[]} */
      const inner = [];
      for (const child of host.root.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) content.append(child.cloneNode());
        if (!(child instanceof Element) || SKIP.has(child.tagName)) continue;
        const size = 1 + child.getElementsByTagName("*").length;
        if (size > budget.left) break;
        budget.left -= size;
        const copy = /** @type {Element} */ (doc.importNode(child, true));
        const nested = collect(child, copy, { depth: found.depth + 1, inShadow: true, secretsToo: true });
        // The pruning's wrapper keeps `copy` in a tree while it is pruned (it removes by parent).
        const holder = doc.createElement("div");
        holder.append(copy);
        options.prune(child, copy);
        if (copy.parentNode === holder) content.append(copy);
        inner.push(nested);
      }
      // Each slot shows its assigned nodes (their clones, if not pruned), else its own fallback.
      for (const nested of inner) {
        for (const slot of nested.slots) {
          if (!content.contains(slot.clone)) continue; // pruned
          const assigned = slot.live.assignedNodes();
          if (assigned.length === 0) continue;
          slot.clone.replaceChildren();
          for (const node of assigned) {
            const copy = host.light.get(node);
            if (copy && copy.parentNode === host.clone) slot.clone.append(copy);
          }
        }
      }
      host.clone.replaceChildren(content);
      for (const nested of inner) fill(nested, { ...options, budget });
    }
    for (const frame of found.frames) {
      if (!frame.clone.isConnected || found.depth >= MAX_DEPTH || budget.left <= 0) continue;
      const body = frameBody(frame.live);
      const doc = /** @type {Document} */ (frame.clone.ownerDocument);
      if (!body) {
        // Out of reach (another origin): the caller's marker holds its place, for the worker.
        const marker = options.unreachable?.(frame.live) ?? null;
        if (marker) frame.clone.replaceWith(Object.assign(doc.createElement("p"), { textContent: marker }));
        continue;
      }
      const size = body.getElementsByTagName("*").length;
      if (size > budget.left) continue;
      budget.left -= size;
      const copy = /** @type {Element} */ (doc.importNode(body, true));
      const nested = collect(body, copy, { depth: found.depth + 1, secretsToo: true });
      const box = doc.createElement("div");
      box.append(copy);
      options.prune(body, copy);
      // The body's children, not the body (one document has one body), in the frame's place;
      // then what the frame's own tree holds, now in the clone.
      const section = doc.createElement("div");
      if (copy.parentNode === box) section.append(...copy.childNodes);
      frame.clone.replaceWith(section);
      fill(nested, { ...options, budget });
    }
    return start - budget.left;
  }

  /**
   * The body of a frame's document when this document may read it (same origin, `srcdoc`,
   * `about:blank`), else null (cross-origin: the browser gives no document).
   * @param {HTMLIFrameElement | HTMLFrameElement} frame
   * @returns {HTMLElement | null}
   */
  function frameBody(frame) {
    try {
      const doc = frame.contentDocument;
      return doc && doc.body ? doc.body : null;
    } catch {
      return null;
    }
  }

  /** At most this many frames out of reach get a marker (the worker reads each one). */
  const MAX_FRAME_MARKS = 32;

  /**
   * The markers of one page-text read for the frames out of reach (another origin), for
   * `fill`'s `unreachable`: a word of letters and digits (nothing turndown escapes, nothing a
   * page can guess: a random nonce per read), each naming the frame's document by its
   * content-script token (content/report.js `childToken`), which the worker matches to the frame
   * it reads (service_worker/page_frames.js). A frame whose token is unknown gets none.
   * @returns {{nonce: string, frames: Array<{marker: string, token: string}>, mark: (frame: Element) => string | null}}
   */
  function markers() {
    const nonce = [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const ns = /** @type {{childToken?: (w: Window) => string | undefined} | undefined} */ (/** @type {any} */ (globalThis).__webctx);
    /** @type {Array<{marker: string, token: string}>} */
    const frames = [];
    return {
      nonce,
      frames,
      mark(frame) {
        const win = /** @type {HTMLIFrameElement} */ (frame).contentWindow;
        const token = win && ns?.childToken ? ns.childToken(win) : undefined;
        if (!token || frames.length >= MAX_FRAME_MARKS) return null;
        const marker = `webctxframe${nonce}x${frames.length}`;
        frames.push({ marker, token });
        return marker;
      },
    };
  }

  /** @type {any} */ (globalThis).webctxComposed = Object.freeze({ collect, fill, markers, shadowRootOf });
})();
