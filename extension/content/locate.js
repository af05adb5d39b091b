// webctx content script, part 5 (see namespace.js for the map): measuring for `location`.
//
//   worker ──`location.get` {target, token}──► the element's frame: rects in its viewport, CSS px
//     top frame?  reply {measured} with the viewport metrics
//     subframe?   reply {pending: true}; postMessage {webctxLocate} to window.parent, whose
//                 content script finds the <iframe> whose contentWindow is the sender (works
//                 across origins), adds its content-box offset, clips, and passes it up; the top
//                 frame sends `location.measured` {token, measured} to the worker
//
// Units: CSS px of the measuring frame, moved into each parent's CSS px on the way up (frames of
// one tab share the tab's zoom). service_worker/location.js turns them into points.

(function webctxLocate() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.focusHover || ns.locate) return;
  const { selection, focusHover } = ns;

  /** @typedef {import("../service_worker/location.js").Rect} Rect */
  /** @typedef {import("../service_worker/location.js").Measured} Measured */

  /** Rect fragments sent per element at most (a huge selection has thousands). */
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
        const range = selection.rangeFor(key);
        if (range) {
          if (range.collapsed || !range.startContainer.isConnected) return { status: "gone" };
          const rects = [...range.getClientRects()].slice(0, MAX_RECTS).map(plain);
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

  /** @param {Rect} a @param {Rect} b @returns {Rect} the overlap (w/h 0 when none) */
  function intersect(a, b) {
    const x = Math.max(a.x, b.x);
    const y = Math.max(a.y, b.y);
    return { x, y, w: Math.max(0, Math.min(a.x + a.w, b.x + b.w) - x), h: Math.max(0, Math.min(a.y + a.h, b.y + b.h) - y) };
  }

  /**
   * Pass a measurement up: to the parent frame, or, from the top frame, to the worker.
   * @param {string} token
   * @param {Measured} measured  rects and clip in this frame's CSS px
   */
  function passUp(token, measured) {
    if (isTop) {
      ns?.send({ type: "location.measured", token, measured: { ...measured, metrics: metrics() } });
    } else {
      window.parent.postMessage({ webctxLocate: { token, measured } }, "*");
    }
  }

  /** @param {MessageEvent} event a child frame passing its measurement up */
  function onWindowMessage(event) {
    const data = /** @type {{webctxLocate?: {token?: unknown, measured?: Measured}} | null} */ (event.data);
    const up = data && typeof data === "object" ? data.webctxLocate : undefined;
    if (!up || typeof up.token !== "string" || up.token.length > 64 || typeof up.measured !== "object") return;
    const frame = [...document.querySelectorAll("iframe, frame")].find(
      (f) => /** @type {HTMLIFrameElement} */ (f).contentWindow === event.source,
    );
    if (!frame) return; // not from one of our child frames: ignore (page input)
    const box = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    const dx = box.left + frame.clientLeft + parseFloat(style.paddingLeft || "0");
    const dy = box.top + frame.clientTop + parseFloat(style.paddingTop || "0");
    const content = { x: dx, y: dy, w: frame.clientWidth - parseFloat(style.paddingLeft || "0") - parseFloat(style.paddingRight || "0"), h: frame.clientHeight - parseFloat(style.paddingTop || "0") - parseFloat(style.paddingBottom || "0") };
    const measured = up.measured;
    /** @param {Rect} r @returns {Rect} */
    const move = (r) => ({ x: r.x + dx, y: r.y + dy, w: r.w, h: r.h });
    const rects = Array.isArray(measured.rects) ? measured.rects.slice(0, MAX_RECTS).map(move) : [];
    const clip = intersect(intersect(measured.clip ? move(measured.clip) : content, content), viewport());
    passUp(up.token, { status: measured.status === "ok" ? "ok" : "gone", rects, clip, merge: Boolean(measured.merge), avoid: Boolean(measured.avoid) });
  }

  /**
   * @param {unknown} message
   * @param {chrome.runtime.MessageSender} _sender
   * @param {(reply: unknown) => void} sendResponse
   */
  function onMessage(message, _sender, sendResponse) {
    if (typeof message !== "object" || message === null) return false;
    const { type, target, token } = /** @type {{type?: unknown, target?: {kind: string, key?: number}, token?: unknown}} */ (message);
    if (type !== "location.get" || !target || typeof token !== "string") return false;
    const measured = measure(target);
    if (isTop) {
      sendResponse({ measured: { ...measured, clip: viewport(), metrics: metrics() } });
    } else {
      passUp(token, { ...measured, clip: viewport() });
      sendResponse({ pending: true });
    }
    return false;
  }

  window.addEventListener("message", onWindowMessage);
  chrome.runtime.onMessage.addListener(onMessage);
  ns.onStop(() => {
    window.removeEventListener("message", onWindowMessage);
    chrome.runtime.onMessage.removeListener(onMessage);
  });
  ns.locate = { measure };
  ns.startupMs = performance.now() - ns.startedAt;
})();
void 0;
