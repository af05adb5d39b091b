// webctx content script, part 4 (see namespace.js for the map): this frame's report.
//
//   report()          {isTop, hasFocus, url, lang?, selection, selectionAt, focus, hover, token,
//                     parentToken?} (docs/internals/protocol.md "FrameReport"); the worker pulls it from
//                     every frame with chrome.scripting.executeScript at `current`
//   `frame.changed`   pushed on selection, focus, hover and input changes (throttled, leading
//                     and trailing edge), so the worker rarely needs the pull; `report: {gone,
//                     token}` on `pagehide` (the document goes away: e.g. its iframe was removed)
//   typing in a large field (≥ LARGE_FIELD_CHARS at the last read) pushes the focus once,
//                     without its text and marked `pending`, then nothing more per keystroke; the
//                     text goes once typing pauses for FIELD_PUSH_MS. While `pending`, the worker
//                     pulls the report at `current` (selections.js), so `current` stays fresh and a
//                     keystroke in a 1 MB textarea costs next to nothing (docs/internals/extension.md)
//   token             a random id for this document (ns.token): keys it where the browser has no
//                     documentId (Firefox) and links frames: each frame learns its parent's token
//                     by postMessage ({webctxFrameToken}; only to child frames of this window),
//                     and tells its parent its own ({webctxChildToken}), which keeps the child's
//                     window by it (ns.childWindow: locate.js finds the <iframe> a worker names)

(function webctxReport() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.focusHover || !ns.userInput || ns.report) return;
  const { selection, focusHover, userInput } = ns;

  /** At most one push per this many ms; the last change always gets pushed. */
  const THROTTLE_MS = 20;
  /** A focused field this long (UTF-16 code units, at its last read) is "large": see the file comment. */
  const LARGE_FIELD_CHARS = 4096;
  /** While typing in a large field, its text is pushed once typing pauses this long (ms). */
  const FIELD_PUSH_MS = 250;
  const isTop = window === window.top;

  /** This document's token: 128 random bits in hex (crypto.randomUUID needs a secure context). */
  const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  /** The parent frame's token, once its content script told us. @type {string | undefined} */
  let parentToken;
  /** Child frames' windows by the token their content script sent (at most MAX_CHILDREN). @type {Map<string, Window>} */
  const children = new Map();
  const MAX_CHILDREN = 256;
  const TOKEN = /^[0-9a-f]{32}$/;
  /** The key of the focused field found large at its last read (0: none). */
  let largeFieldKey = 0;
  /** Input in the large field since its text was last pushed. */
  let fieldDirty = false;
  /** @type {ReturnType<typeof setTimeout> | 0} */
  let fieldTimer = 0;

  /** When the selection last changed, ms since the epoch (picks among frames, design.md §2). */
  let selectionAt = 0;
  /** @type {string} */
  let lastPushed = "";
  /** @type {ReturnType<typeof setTimeout> | 0} */
  let timer = 0;
  /** The last push said `pending`: until typing pauses, keystrokes push nothing more. */
  let pendingPushed = false;

  /**
   * @param {boolean} [light] leave out the large field's text (a push while the user types)
   * @returns {FrameReport}
   */
  function report(light = false) {
    const lang = document.documentElement?.lang;
    const focus = focusHover.focus(light ? largeFieldKey : 0);
    if (focus && !focus.pending) largeFieldKey = (focus.length ?? 0) >= LARGE_FIELD_CHARS ? focus.key : 0;
    // Typing goes on without pushes: tell the worker to pull (a pulled report has the text too).
    if (focus && fieldDirty && focus.key === largeFieldKey) focus.pending = true;
    /** @type {FrameReport} */
    const out = {
      isTop,
      hasFocus: document.hasFocus(),
      url: location.href,
      // A selection the page's own script made is not the user's (user_input.js).
      selection: userInput.isUsers() ? selection.read() : null,
      selectionAt,
      focus,
      hover: focusHover.hover(),
      token,
    };
    if (parentToken) out.parentToken = parentToken;
    if (lang) out.lang = lang.slice(0, 64);
    // Chromium's PDF viewer: the top document is a shell around the viewer (design.md §2: a Document
    // with subrole pdf; its text selection lives in the viewer's own frame, out of our reach).
    if (document.contentType === "application/pdf") out.pdf = true;
    return out;
  }

  function push() {
    timer = 0;
    const value = report(fieldDirty);
    const text = JSON.stringify(value);
    if (text === lastPushed) return;
    lastPushed = text;
    pendingPushed = value.focus?.pending === true;
    /** @type {WebctxNamespace} */ (ns).send({ type: "frame.changed", report: value });
  }

  // Leading and trailing edge: the first change after a quiet spell is pushed at once, later ones
  // at most every THROTTLE_MS, and the last one always.
  function changed() {
    if (timer) return;
    push();
    timer = setTimeout(timedPush, THROTTLE_MS);
  }

  /** The large field's text, due: push the full report. */
  function pushField() {
    fieldTimer = 0;
    fieldDirty = false;
    push();
  }

  /** @param {Event} event */
  function onInput(event) {
    const target = selection.eventTarget(event); // the field itself, also inside a shadow root
    if (largeFieldKey && target instanceof Element && selection.fieldKey(target) === largeFieldKey) {
      fieldDirty = true;
      // Debounced: the text goes once typing pauses; until then `pending` makes the worker pull.
      if (fieldTimer) clearTimeout(fieldTimer);
      fieldTimer = setTimeout(timedPushField, FIELD_PUSH_MS);
      if (pendingPushed) return; // the worker already knows to pull
    }
    changed();
  }

  /** The document goes away (navigation, its iframe removed): the worker drops its report. */
  function onPageHide() {
    if (timer) clearTimeout(timer);
    if (fieldTimer) clearTimeout(fieldTimer);
    timer = 0;
    fieldTimer = 0;
    fieldDirty = false;
    pendingPushed = false;
    lastPushed = "";
    /** @type {WebctxNamespace} */ (ns).send({ type: "frame.changed", report: { gone: true, token } });
  }

  /**
   * Frame linking: a child asks (`webctxChildHello`) and its parent answers with its token; a
   * parent also tells its child frames at start (whichever content script runs first).
   * @param {MessageEvent} event
   */
  function onWindowMessage(event) {
    const data = /** @type {Record<string, unknown> | null} */ (event.data);
    if (!data || typeof data !== "object") return;
    if (typeof data.webctxChildToken === "string" && isChildWindow(event.source)) {
      noteChild(data.webctxChildToken, /** @type {Window} */ (event.source));
    }
    if (data.webctxChildHello === true && isChildWindow(event.source)) {
      /** @type {Window} */ (event.source).postMessage({ webctxFrameToken: token }, "*");
    } else if (typeof data.webctxFrameToken === "string" && !isTop && event.source === window.parent) {
      const value = data.webctxFrameToken;
      if (TOKEN.test(value) && value !== parentToken) {
        parentToken = value;
        // The parent's content script may have started after our hello: tell it our token now.
        window.parent.postMessage({ webctxChildToken: token }, "*");
        changed();
      }
    }
  }

  /**
   * Keep a child frame's window by its document's token. A token two windows claim names
   * neither (a page cannot forge a message from another frame's window, but may repeat a token).
   * @param {string} value
   * @param {Window} source
   */
  function noteChild(value, source) {
    if (!TOKEN.test(value)) return;
    const known = children.get(value);
    if (known === source) return;
    if (known) {
      children.set(value, window); // ambiguous: childWindow answers nothing for it
      return;
    }
    if (children.size >= MAX_CHILDREN) children.delete(children.keys().next().value ?? "");
    children.set(value, source);
  }
  /** @param {unknown} source @returns {boolean} whether `source` is one of this window's frames */
  function isChildWindow(source) {
    for (let i = 0; i < window.frames.length; i++) if (window.frames[i] === source) return true;
    return false;
  }

  function announce() {
    for (let i = 0; i < window.frames.length; i++) window.frames[i].postMessage({ webctxFrameToken: token }, "*");
    if (!isTop) window.parent.postMessage({ webctxChildHello: true, webctxChildToken: token }, "*");
  }

  function onSelectionChange() {
    if (userInput.changed()) selectionAt = Date.now();
    if (fieldDirty && pendingPushed) return; // typing: the worker pulls (see onInput)
    changed();
  }

  // Every handler and timer is timed into ns.cost (bench/typing_bench.py).
  const timedPush = ns.timed(push);
  const timedPushField = ns.timed(pushField);
  const onChange = ns.timed(changed);
  const onInputTimed = ns.timed(onInput);
  const onSelection = ns.timed(onSelectionChange);
  const events = /** @type {const} */ (["focusin", "focusout"]);
  // Through ns.listen: they come back after a document.open() (namespace.js). At window capture,
  // added at document_start: they run before any listener of the page's, so a page that stops
  // these events (`stopImmediatePropagation` at window or document) cannot hide a change from us.
  ns.listen(window, "input", onInputTimed, true);
  ns.listen(window, "message", onWindowMessage);
  ns.listen(window, "selectionchange", onSelection, true);
  ns.listen(window, "select", onSelection, true);
  for (const type of events) ns.listen(window, type, onChange, true);
  // A trusted release (pointer, touch, key up) re-reads the selection: a change whose event the
  // page kept from us (or that has not come yet) is still seen.
  userInput.onRelease(() => {
    if (userInput.isNew()) onSelection();
    // An EditContext editor (Monaco) may move its selection in its next frame, with no event.
    else if (ns?.editorSelection?.movesLater(selection.deepActiveElement())) requestAnimationFrame(() => setTimeout(lateRelease));
  });
  const lateRelease = ns.timed(() => {
    if (userInput.isNew()) onSelection();
  });
  ns.listen(window, "focus", onChange);
  ns.listen(window, "blur", onChange);
  ns.listen(window, "pagehide", onPageHide);
  // Back from the back/forward cache only: the first pageshow (these scripts start at
  // document_start) would read the report, and a selection read lays the whole page out.
  ns.listen(window, "pageshow", (/** @type {Event} */ event) => {
    if (/** @type {PageTransitionEvent} */ (event).persisted) onChange();
  });
  // The page's language (the Page's `attributes.lang`) has no event: watch the one attribute.
  const langWatch = new MutationObserver(onChange);
  const watchLang = () => {
    langWatch.disconnect();
    if (document.documentElement) langWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  };
  watchLang();
  // document.open(): a new root element (watch its lang), and the new contents may hold the
  // selection and the focus already (an editor frame written with focus in it): push at once, and
  // tell the parent our token again (its hello may have come while our listener was erased).
  ns.onReopen(() => {
    watchLang();
    announce();
    onChange();
  });
  ns.onStop(() => {
    langWatch.disconnect();
    if (timer) clearTimeout(timer);
    if (fieldTimer) clearTimeout(fieldTimer);
  });
  ns.changed = changed;
  ns.report = () => report();
  ns.token = token;
  ns.childWindow = (value) => {
    const child = children.get(value);
    return child && child !== window ? child : undefined;
  };
  ns.childToken = (child) => {
    for (const [value, known] of children) if (known === child) return value;
    return undefined;
  };
  announce();
  // A tab's PDF in the browser's own viewer reports at once: the worker may show it in webctx's
  // viewer instead (the "Open PDFs in webctx's viewer" option; service_worker/main.js openInViewer).
  if (isTop && document.contentType === "application/pdf") changed();
})();
void 0;
