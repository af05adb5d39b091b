// webctx content script, part 3a (see namespace.js for the map): which cross-origin frames the
// top document should ask for WebMCP tools (design.md §5).
//
//   a frame's isolated world ── window.top.postMessage({channel: "webctx.webmcp.origin"}) ──►
//   the top's isolated world: event.origin (set by the browser, not the sender) → origins()
//
// With native WebMCP the top document sees a cross-origin frame's tools only through
// getTools({fromOrigins:[thatOrigin]}), so it must know the origins framed in its tab. A frame
// announces its own origin when it loads; the top, when it starts, asks the frames already
// there to announce again. Every announcement makes the top re-read its tools, since a frame that
// navigated takes its tools along without a toolchange in the top. The messages carry nothing but the channel name (no url, no data):
// a page learns nothing it could not read from `event.origin` of any message. Only potentially
// trustworthy origins are kept (getTools rejects the rest with SecurityError), at most 32.

(function webctxWebmcpFrames() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || ns.webmcpFrames) return;

  const CHANNEL = "webctx.webmcp.origin";
  const MAX_ORIGINS = 32;
  const top = window.top;
  const announce = () => top?.postMessage({ channel: CHANNEL, kind: "here" }, "*");

  if (window !== top) {
    /** @param {MessageEvent} event */
    const onAsk = (event) => {
      if (event.source === top && event.data?.channel === CHANNEL && event.data.kind === "who") announce();
    };
    ns.listen(window, "message", onAsk);
    announce();
    // The worker learns this frame's origin and url from the browser (sender), to check a top
    // document's claim that a tool is this frame's. Only frames of another origin than the top.
    let crossOrigin = false;
    try {
      crossOrigin = top?.location.origin !== location.origin;
    } catch {
      crossOrigin = true;
    }
    if (crossOrigin) ns.send({ type: "tools.frame" });
    ns.webmcpFrames = { origins: () => [], onChange: () => {} };
    return;
  }

  /** @type {Set<string>} */
  const origins = new Set();
  /** @type {(() => void)[]} */
  const listeners = [];

  /**
   * A serialised origin the browser accepts in fromOrigins (https, wss, loopback), else null.
   * @param {string} origin
   */
  function trustworthy(origin) {
    let url;
    try {
      url = new URL(origin);
    } catch {
      return null;
    }
    if (url.origin === "null" || url.origin !== origin) return null;
    if (url.protocol === "https:" || url.protocol === "wss:") return origin;
    const host = url.hostname;
    const loopback = host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
    return loopback ? origin : null;
  }

  /** @param {MessageEvent} event */
  function onHere(event) {
    if (event.data?.channel !== CHANNEL || event.data.kind !== "here" || event.source === window) return;
    const origin = trustworthy(event.origin);
    if (!origin || origin === location.origin) return;
    if (!origins.has(origin)) {
      if (origins.size >= MAX_ORIGINS) return;
      origins.add(origin);
    }
    // A new document in some frame: the old one's tools are gone (Chromium fires no toolchange
    // here for that), and the new one may have exposed some. Listeners throttle their re-reads.
    for (const listener of listeners) listener();
  }

  /** Ask every frame of the tab (cross-origin frames' frames too: `frames` is readable) to announce. */
  function askFrames() {
    /** @param {Window} win @param {number} depth */
    const walk = (win, depth) => {
      for (let i = 0; i < win.frames.length && i < 256; i++) {
        const frame = win.frames[i];
        frame.postMessage({ channel: CHANNEL, kind: "who" }, "*");
        if (depth < 8) walk(frame, depth + 1);
      }
    };
    walk(window, 0);
  }

  ns.listen(window, "message", onHere);
  ns.webmcpFrames = {
    origins: () => [...origins],
    onChange: (listener) => {
      listeners.push(listener);
    },
  };
  askFrames();
})();
void 0;
