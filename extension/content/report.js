// webctx content script, part 4 (see namespace.js for the map): this frame's report.
//
//   report()          {isTop, hasFocus, url, lang?, selection, selectionAt, focus, hover}
//                     (docs/protocol.md "FrameReport"); the worker pulls it from every frame
//                     with chrome.scripting.executeScript at `current`
//   `frame.changed`   pushed on selection, focus, hover and input changes (throttled, leading
//                     and trailing edge), so the worker rarely needs the pull; `report: null`
//                     on `pagehide` (the document goes away: e.g. its iframe was removed)

(function webctxReport() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.focusHover || ns.report) return;
  const { selection, focusHover } = ns;

  /** At most one push per this many ms; the last change always gets pushed. */
  const THROTTLE_MS = 20;

  /** When the selection last changed, ms since the epoch (picks among frames, SPEC §2). */
  let selectionAt = 0;
  /** @type {string} */
  let lastPushed = "";
  /** @type {ReturnType<typeof setTimeout> | 0} */
  let timer = 0;

  /** @returns {FrameReport} */
  function report() {
    const lang = document.documentElement?.lang;
    /** @type {FrameReport} */
    const out = {
      isTop: window === window.top,
      hasFocus: document.hasFocus(),
      url: location.href,
      selection: selection.read(),
      selectionAt,
      focus: focusHover.focus(),
      hover: focusHover.hover(),
    };
    if (lang) out.lang = lang.slice(0, 64);
    // Chromium's PDF viewer: the top document is a shell around the viewer (SPEC §2: a Document
    // with subrole pdf; its text selection lives in the viewer's own frame, out of our reach).
    if (document.contentType === "application/pdf") out.pdf = true;
    return out;
  }

  function push() {
    timer = 0;
    const value = report();
    const text = JSON.stringify(value);
    if (text === lastPushed) return;
    lastPushed = text;
    /** @type {WebctxNamespace} */ (ns).send({ type: "frame.changed", report: value });
  }

  // Leading and trailing edge: the first change after a quiet spell is pushed at once, later ones
  // at most every THROTTLE_MS, and the last one always.
  function changed() {
    if (timer) return;
    push();
    timer = setTimeout(push, THROTTLE_MS);
  }

  /** The document goes away (navigation, its iframe removed): the worker drops its report. */
  function onPageHide() {
    if (timer) clearTimeout(timer);
    timer = 0;
    lastPushed = "";
    /** @type {WebctxNamespace} */ (ns).send({ type: "frame.changed", report: null });
  }

  function onSelectionChange() {
    selectionAt = Date.now();
    changed();
  }

  const events = /** @type {const} */ (["focusin", "focusout", "input"]);
  document.addEventListener("selectionchange", onSelectionChange, true);
  document.addEventListener("select", onSelectionChange, true);
  for (const type of events) document.addEventListener(type, changed, true);
  window.addEventListener("focus", changed);
  window.addEventListener("blur", changed);
  window.addEventListener("pagehide", onPageHide);
  window.addEventListener("pageshow", changed); // back from the back/forward cache
  ns.onStop(() => {
    window.removeEventListener("pagehide", onPageHide);
    window.removeEventListener("pageshow", changed);
    document.removeEventListener("selectionchange", onSelectionChange, true);
    document.removeEventListener("select", onSelectionChange, true);
    for (const type of events) document.removeEventListener(type, changed, true);
    window.removeEventListener("focus", changed);
    window.removeEventListener("blur", changed);
    if (timer) clearTimeout(timer);
  });
  ns.changed = changed;
  ns.report = report;
})();
void 0;
