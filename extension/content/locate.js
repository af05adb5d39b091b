// webctx content script, part 5 (see namespace.js for the map): measuring for `location`.
//
//   worker ──`location.get` {target, token}──► the element's frame (on the page channel,
//     page_port.js): reply {measured}: rects in its viewport (CSS px), its depth, and from the top
//     frame the viewport metrics. Addressed by frameId (Firefox: no documentId), another document
//     in that frame answers null (the frame navigated: "gone")
//   worker ──`location.frame` {child}──► each parent frame, at the same time (on its page channel,
//     when the worker knows the frame tree: selections.js `lineage`): reply {offset: {depth, dx,
//     dy, content, viewport, metrics?}} for the <iframe> holding the document whose token is
//     `child` (the child told us its token at start, report.js), or {offset: null}. Nothing
//     crosses to the page's windows per request.
//   otherwise (`climb: true` in `location.get`) a subframe also posts {webctxLocate: token} to
//     window.parent, whose content script finds the <iframe> whose contentWindow is the sender
//     (this works across origins) and sends the worker `location.offset` {token, offset}, then
//     posts the token to its own parent, up to the top frame. Only the random token crosses to a
//     parent's window: its page learns nothing about where the child's selection is.
//
// Units: CSS px of each frame (frames of one tab share the tab's zoom).
// service_worker/location.js (`climb`) composes the levels and turns CSS px into points.

(function webctxLocate() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.focusHover || !ns.channel || ns.locate) return;
  const { selection, focusHover, channel } = ns;

  /** @typedef {import("../service_worker/location.js").Rect} Rect */
  /** @typedef {import("../service_worker/location.js").Measured} Measured */

  /** Rect fragments sent per element at most, after dropping those beyond one viewport of this
   * frame's viewport (docs/internals/protocol.md "location": long selections). */
  const MAX_RECTS = 2000;
  const isTop = window === window.top;

  /** @param {DOMRect} r @returns {Rect} */
  const plain = (r) => ({ x: r.left, y: r.top, w: r.width, h: r.height });

  /** @returns {Rect} this frame's viewport in its own CSS px */
  const viewport = () => ({ x: 0, y: 0, w: window.innerWidth, h: window.innerHeight });

  /**
   * Measure the target in this frame.
   * @param {{kind: string, key?: number}} target
   * @returns {Measured}
   */
  function measure(target) {
    const key = Number(target.key);
    switch (target.kind) {
      case "selection": {
        // A code editor's passage: where the editor draws its selection (editor_selection.js).
        const drawn = ns?.editorSelection?.measure(key);
        if (drawn) return drawn;
        const range = selection.rangeFor(key);
        if (range) {
          if (range.collapsed || !range.startContainer.isConnected) return { status: "gone" };
          // A long selection has thousands of fragments: send those within one viewport of this
          // frame's viewport (all of them when none is: the worker keeps the nearest), at most MAX_RECTS.
          const all = [...range.getClientRects()];
          const { innerWidth: vw, innerHeight: vh } = window;
          const near = all.filter((r) => r.bottom > -vh && r.top < 2 * vh && r.right > -vw && r.left < 2 * vw);
          const rects = (near.length > 0 ? near : all).slice(0, MAX_RECTS).map(plain);
          return { status: "ok", rects, merge: true, avoid: true };
        }
        const inField = selection.fieldRange(key);
        if (!inField) return { status: "gone" };
        // The text inside a field has no DOM rects: the field's box stands for it.
        return { status: "ok", rects: [plain(inField.field.getBoundingClientRect())], avoid: true };
      }
      case "field":
      case "hover": {
        const element = target.kind === "field" ? selection.fieldFor(key) : focusHover.hoverElement(key);
        if (!element || !element.isConnected) return { status: "gone" };
        return { status: "ok", rects: [plain(element.getBoundingClientRect())] };
      }
      case "frame":
      case "page":
        return { status: "ok", rects: [viewport()] };
      default:
        return { status: "gone" };
    }
  }

  /** @returns {import("../service_worker/location.js").ViewportMetrics} */
  function metrics() {
    /** @type {import("../service_worker/location.js").ViewportMetrics} */
    const out = {
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      screenX: window.screenX,
      screenY: window.screenY,
      outerWidth: window.outerWidth,
      outerHeight: window.outerHeight,
      visible: document.visibilityState === "visible",
    };
    const pointer = focusHover.pointer();
    if (pointer) out.pointer = pointer;
    return out;
  }

  /** This frame's depth: 0 for the top document, 1 for its iframes, … */
  const depth = (() => {
    let n = 0;
    for (let w = /** @type {Window} */ (window); w !== w.parent && n < 64; w = w.parent) n++;
    return n;
  })();

  /**
   * A child frame asks for its <iframe>'s place: only a random token crosses to this window (so
   * the page here learns nothing about the child's selection); the offset goes to the worker.
   * @param {MessageEvent} event
   */
  function onWindowMessage(event) {
    const data = /** @type {{webctxLocate?: unknown} | null} */ (event.data);
    const token = data && typeof data === "object" ? data.webctxLocate : undefined;
    if (typeof token !== "string" || token.length > 64) return;
    const frame = frameElementOf(event.source);
    if (!frame) return; // not from one of our child frames: ignore (page input)
    ns?.send({ type: "location.offset", token, offset: offsetOf(/** @type {HTMLElement} */ (frame)) });
    if (!isTop) window.parent.postMessage({ webctxLocate: token }, "*");
  }

  /**
   * The element of this document that holds the child window `source`: an <iframe>, <frame> or
   * <object> by its contentWindow; an <embed> (a PDF in Chromium's viewer gets a frame) has none,
   * so it is found by the child's index in window.frames, only while every frame-holding element
   * is counted there (document order, as the frames were made).
   * @param {unknown} source
   * @returns {HTMLElement | undefined}
   */
  function frameElementOf(source) {
    const holders = /** @type {HTMLElement[]} */ ([...document.querySelectorAll("iframe, frame, object, embed")]);
    const found = holders.find((f) => /** @type {HTMLIFrameElement} */ (f).contentWindow === source);
    if (found || !holders.some((f) => f.localName === "embed")) return found;
    const count = Math.min(window.frames.length, 64);
    let index = -1;
    for (let i = 0; i < count; i++) if (window.frames[i] === source) index = i;
    // Only elements that hold a frame count: an <object> showing an image holds none.
    const framed = holders.filter((f) => f.localName === "embed" || /** @type {HTMLIFrameElement} */ (f).contentWindow);
    return index >= 0 && framed.length === window.frames.length ? framed[index] : undefined;
  }

  /**
   * Where a child frame's content box is in this frame.
   * @param {HTMLElement} frame an <iframe> or <frame> of this document
   * @returns {import("../service_worker/location.js").FrameOffset}
   */
  function offsetOf(frame) {
    const box = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    const px = (/** @type {string} */ v) => parseFloat(v) || 0;
    const dx = box.left + frame.clientLeft + px(style.paddingLeft);
    const dy = box.top + frame.clientTop + px(style.paddingTop);
    const content = {
      x: dx,
      y: dy,
      w: frame.clientWidth - px(style.paddingLeft) - px(style.paddingRight),
      h: frame.clientHeight - px(style.paddingTop) - px(style.paddingBottom),
    };
    /** @type {import("../service_worker/location.js").FrameOffset} */
    const offset = { depth, dx, dy, content, viewport: viewport() };
    const transform = transformOf(frame, style);
    if (transform) offset.transform = transform;
    if (isTop) offset.metrics = metrics();
    return offset;
  }

  /**
   * The facts the worker needs to map through a CSS-transformed <iframe> (frame_transform.js `frameMap`):
   * undefined when neither it nor an element above it (flat tree: out of shadow roots and slots)
   * is transformed or zoomed (CSS `zoom`), the common case, where `dx`/`dy` are exact.
   * @param {HTMLElement} frame
   * @param {CSSStyleDeclaration} style the frame's computed style
   * @returns {import("../service_worker/location.js").FrameTransform | undefined}
   */
  function transformOf(frame, style) {
    /** @type {string[][]} */
    const chain = [];
    let perspective = false;
    let zoom = 1;
    /** @type {Element | null} */
    let element = frame;
    for (let n = 0; element && n < 4096; n++) {
      const s = element === frame ? style : getComputedStyle(element);
      if (s.transform !== "none" || s.rotate !== "none" || s.scale !== "none") chain.push([s.transform, s.rotate, s.scale]);
      if (element !== frame && s.perspective !== "none") perspective = true;
      // CSS `zoom` (each element's own factor; they multiply) scales the frame and its content.
      const z = parseFloat(s.zoom);
      if (Number.isFinite(z) && z > 0) zoom *= z;
      const parent = /** @type {Node | null} */ (element.assignedSlot ?? element.parentNode);
      element = parent instanceof ShadowRoot ? parent.host : parent instanceof Element ? parent : null;
    }
    if (chain.length === 0 && Math.abs(zoom - 1) < 1e-9) return undefined;
    const px = (/** @type {string} */ v) => parseFloat(v) || 0;
    const [bl, bt, br, bb] = [style.borderLeftWidth, style.borderTopWidth, style.borderRightWidth, style.borderBottomWidth].map(px);
    const [pl, pt, pr, pb] = [style.paddingLeft, style.paddingTop, style.paddingRight, style.paddingBottom].map(px);
    // The layout size before transforms, unrounded (offsetWidth is an integer).
    const borderBox = style.boxSizing === "border-box";
    const w = borderBox ? px(style.width) : px(style.width) + pl + pr + bl + br;
    const h = borderBox ? px(style.height) : px(style.height) + pt + pb + bt + bb;
    /** @type {import("../service_worker/location.js").FrameTransform} */
    const out = {
      box: plain(frame.getBoundingClientRect()),
      size: { w, h },
      inset: { x: bl + pl, y: bt + pt, w: w - bl - br - pl - pr, h: h - bt - bb - pt - pb },
      chain: chain.reverse().slice(0, 65),
    };
    if (perspective) out.perspective = true;
    if (Math.abs(zoom - 1) >= 1e-9) out.zoom = zoom;
    return out;
  }

  /**
   * `location.frame` {child} → `{offset}`: the box of this document's <iframe> that holds the
   * document whose token is `child` (report.js childWindow), null when none does (the worker then
   * climbs instead); undefined for a malformed message.
   * @param {unknown} message
   * @returns {{offset: import("../service_worker/location.js").FrameOffset | null} | undefined}
   */
  function answerFrame(message) {
    const { child } = /** @type {{child?: unknown}} */ (message);
    if (typeof child !== "string") return undefined;
    const source = ns?.childWindow?.(child);
    const frame = source ? frameElementOf(source) : undefined;
    return { offset: frame ? offsetOf(/** @type {HTMLElement} */ (frame)) : null };
  }

  /**
   * `location.get` → `{measured}` (page_port.js answers `null` for a message addressed by frame
   * to another document); undefined for a malformed one.
   * @param {unknown} message
   * @returns {{measured: Measured | null} | undefined}
   */
  function answer(message) {
    if (typeof message !== "object" || message === null) return undefined;
    const { type, target, token } = /** @type {{type?: unknown, target?: {kind: string, key?: number}, token?: unknown}} */ (message);
    if (type !== "location.get" || !target || typeof token !== "string") return undefined;
    const measured = { ...measure(target), clip: viewport(), depth };
    if (isTop) return { measured: { ...measured, metrics: metrics() } };
    // Unless the worker asks the parent frames itself (`location.frame`), each one sends its
    // <iframe>'s offset (`location.offset`).
    if (/** @type {{climb?: unknown}} */ (message).climb !== false) window.parent.postMessage({ webctxLocate: token }, "*");
    return { measured };
  }

  ns.listen(window, "message", onWindowMessage);
  channel.answer("location.get", answer);
  channel.answer("location.frame", answerFrame);
  ns.locate = { measure };
  ns.startupMs = performance.now() - ns.startedAt;
})();
void 0;
