// webctx content scripts: the isolated world. Classic scripts, run in manifest order:
//
//   namespace.js   creates globalThis.__webctx once per document: the one namespace the parts share,
//                  the guard against double injection, and the stop hook for orphaned scripts
//   secret_fields.js  which fields are secret (passwords, also when shown; card numbers and codes;
//                  PINs; one-time codes): the one rule the parts below and page_text.js use
//   text_clean.js, hidden_text.js  the page text's rules (invisible characters; what the page
//                  hides), also loaded here for the selection: they define functions, nothing runs
//   visible_text.js  what of a selected Range the user can see (docs/internals/protocol.md)
//   selection.js   the selection: DOM ranges (shadow roots, contenteditable), input/textarea offsets
//   focus_hover.js the focused editable field, the hovered Link/Image, the latest pointer event
//   user_input.js  this document's trusted input: whether the selection is the user's or the page's
//   report.js      this frame's report: pushed as `frame.changed`, pulled by the worker at `current`
//                  (and the document's token, the parent frame's token, typing in large fields)
//   page_port.js   this document's end of the page channel: answers the worker's requests by type
//                  (on a port, or by message where there is none) and posts events up
//   locate.js      `location.get`: rects in CSS px; `location.frame`: an <iframe>'s box for a child
//   webmcp_frames.js  the origins of the tab's cross-origin frames, for getTools({fromOrigins})
//   webmcp_errors.js  the page's error texts under native WebMCP (records from native_errors.js)
//   webmcp_bridge.js  the page's WebMCP tools → `tools.report`; runs `tools.run` (top frame only)
//
// The main world has two scripts of ours (document_start): main_world/polyfill.js provides
// document.modelContext where the browser has none, and webmcp_bridge.js talks to it by
// postMessage; main_world/native_errors.js (top frame) records what tools threw under native
// WebMCP, for webmcp_errors.js.
//
// Thin on purpose: these scripts collect facts and keep the live Ranges; the tree, budgets, caps
// and ids are built by the service worker (STYLE "Layout"). The worker injects these files again
// into tabs that were open before an install/update/start, so every part returns early when its
// piece of the namespace already exists.

/**
 * The shared namespace of the isolated world.
 * @typedef {object} WebctxNamespace
 * @property {string} version       the extension version that created it
 * @property {number} startedAt     performance.now() when the first part started
 * @property {number} [startupMs]   how long the parts took to set up, ms (locate.js fills it in)
 * @property {() => boolean} isAlive false once the extension that injected it was reloaded or removed
 * @property {(message: object) => void} send   chrome.runtime.sendMessage, quiet when nobody listens
 * @property {(cleanup: () => void) => void} onStop  run `cleanup` when this namespace is retired
 * @property {() => void} stop      retire: remove every listener the parts added
 * @property {(target: Document | Window, type: string, handler: (event: any) => void, options?: boolean | AddEventListenerOptions) => void} listen
 *   addEventListener on this document or its window that survives `document.open()`, which
 *   erases every listener on both, in every world (HTML "document open steps"; the TinyMCE /
 *   CKEditor 4 editor frames): re-added when the document is re-opened; removed at stop
 * @property {(hook: () => void) => void} onReopen  run `hook` after `document.open()` replaced this
 *   document's contents (for what is not a listener: an observer of the old root element)
 * @property {{ms: number, runs: number, maxMs: number}} cost  time spent in the timed handlers
 *   (input, selection, focus, the pushes), ms (read by bench/typing_bench.py; never sent)
 * @property {<A extends unknown[]>(fn: (...args: A) => void) => (...args: A) => void} timed
 *   wrap a handler so its run time is added to `cost`
 * @property {WebctxSecretPart} [secret]  secret_fields.js: which fields are never read
 * @property {WebctxSelectionPart} [selection]
 * @property {WebctxFocusHoverPart} [focusHover]
 * @property {WebctxUserInputPart} [userInput]
 * @property {() => FrameReport} [report]
 * @property {string} [token]       this document's random token (report.js; Firefox's document key)
 * @property {() => void} [changed]   schedule a `frame.changed` push (report.js)
 * @property {(token: string) => Window | undefined} [childWindow]  the window of the child frame
 *   whose document has `token` (report.js), undefined when none told us, or two claimed it
 * @property {WebctxChannelPart} [channel]  page_port.js: this document's end of the page channel
 * @property {{measure: (target: {kind: string, key?: number}) => import("../service_worker/location.js").Measured}} [locate]
 * @property {{mode: "native" | "polyfill"}} [webmcp]  webmcp_bridge.js: where the page's tools come from
 * @property {{origins: () => string[], onChange: (listener: () => void) => void}} [webmcpFrames]
 *   webmcp_frames.js: the trustworthy origins of the tab's cross-origin frames (top frame; empty elsewhere)
 * @property {{listen: () => void, pageErrorFor: (name: string, input: Record<string, unknown>, error: unknown) => Promise<string | null>}} [webmcpErrors]
 *   webmcp_errors.js (top frame): what a tool's execute threw under native WebMCP, once `listen()`ed
 */

/** @typedef {import("../protocol.js").FrameReport} FrameReport */
/** @typedef {import("../protocol.js").FieldFacts} FieldFacts */
/** @typedef {import("../protocol.js").HoverFacts} HoverFacts */

/**
 * @typedef {object} WebctxSelectionPart
 * @property {() => import("../protocol.js").Selection | null} read
 * @property {(key: number) => Range | undefined} rangeFor  the live Range a key names
 * @property {(key: number) => {field: HTMLInputElement | HTMLTextAreaElement, start: number, end: number} | null} fieldRange
 * @property {(key: number) => Element | undefined} fieldFor  the field a textbox key names
 * @property {(field: Element) => number} fieldKey
 * @property {() => Element | null} deepActiveElement  the focused element, through open and closed shadow roots
 * @property {(event: Event) => EventTarget | null} eventTarget  where an event happened, inside shadow roots
 * @property {(node: Node) => ShadowRoot | null} shadowRootOf  a host's shadow root, open or closed
 * @property {(node: Node) => HTMLElement | null} editingHost
 * @property {(sel: {start: number, end: number}, before: string, after: string, caret?: number) => {start: number, end: number} | null} adjustOffsets
 */

/**
 * @typedef {object} WebctxSecretPart
 * @property {(field: Element) => boolean} isSecretField  an input, textarea or contenteditable host is secret
 * @property {(node: Node) => boolean} isInSecretField  a node (a Text node, an element) is inside a secret field
 * @property {(range: Range) => boolean} rangeTouchesSecret  a range lies inside or spans a secret field
 * @property {(text: string) => boolean} secretHint  a name/id/label/placeholder reads as a secret field's
 * @property {(value: string) => boolean} secretAutocomplete  an `autocomplete` value names a secret
 */

/**
 * user_input.js: whose the selection is (docs/internals/protocol.md "Only the user's selection").
 * @typedef {object} WebctxUserInputPart
 * @property {() => boolean} changed  the selection changed (an event): whether it is the user's now
 * @property {() => boolean} isUsers  whether the selection as it is now is the user's
 * @property {() => boolean} isNew    whether it differs from the one the last change saw
 * @property {(hook: () => void) => void} onRelease  run `hook` after each trusted release (pointer,
 *   touch, key up)
 */

/**
 * @typedef {object} WebctxChannelPart
 * @property {(type: string, handler: (message: Record<string, unknown>) => unknown) => void} answer
 *   the part that owns a request type answers it: a reply, a Promise of one, or undefined (none)
 * @property {() => void} open   open this document's own port (the worker learns its events)
 * @property {(event: {type: string}) => void} emit  post an event on that port, if open
 */

/**
 * @typedef {object} WebctxFocusHoverPart
 * @property {(skipKey?: number) => FieldFacts | null} focus  the field `skipKey` names comes without its text (`pending`)
 * @property {() => HoverFacts | null} hover
 * @property {() => import("../service_worker/location.js").PointerSample | null} pointer
 * @property {(key: number) => Element | undefined} hoverElement
 */

(function webctxNamespace() {
  // The content scripts' cost per page load: locate.js (the last part) measures from here into
  // `startupMs` (read by bench/pointing_bench.py). Not a performance.mark: the page would see it.
  const startedAt = performance.now();
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const existing = scope.__webctx;
  if (existing && existing.isAlive()) return;
  // A namespace whose extension was reloaded is orphaned: its messages go nowhere. Chromium 156
  // gives a reloaded extension a fresh isolated world (checked), so this is only a safety net for
  // browsers that reuse the world: retire the old parts and start over.
  if (existing) existing.stop();

  // Keep this instance's runtime: after a reload, its `id` reads undefined (or throws).
  const runtime = chrome.runtime;
  const isAlive = () => {
    try {
      return Boolean(runtime.id);
    } catch {
      return false;
    }
  };
  /** @type {(() => void)[]} */
  const cleanups = [];
  /** Every listener added through `listen`, to re-add after `document.open()`.
   * @type {{target: Document | Window, type: string, handler: (event: any) => void, options?: boolean | AddEventListenerOptions}[]} */
  const listeners = [];
  /** @type {(() => void)[]} */
  const reopenHooks = [];
  /** The root element last seen: `document.open()` removes it (a new one comes with the write). */
  let root = document.documentElement;
  const cost = { ms: 0, runs: 0, maxMs: 0 };
  /** @type {WebctxNamespace} */
  const ns = {
    version: runtime.getManifest().version,
    startedAt,
    isAlive,
    cost,
    timed(fn) {
      return (...args) => {
        const t0 = performance.now();
        try {
          fn(...args);
        } finally {
          const ms = performance.now() - t0;
          cost.ms += ms;
          cost.runs += 1;
          if (ms > cost.maxMs) cost.maxMs = ms;
        }
      };
    },
    send(message) {
      if (!isAlive()) return ns.stop();
      try {
        runtime.sendMessage(message).catch(() => {
          // No listener yet (the worker is starting) or the extension went away: nothing to do.
        });
      } catch {
        ns.stop(); // "Extension context invalidated."
      }
    },
    onStop(cleanup) {
      cleanups.push(cleanup);
    },
    listen(target, type, handler, options) {
      target.addEventListener(type, handler, options);
      listeners.push({ target, type, handler, options });
      cleanups.push(() => target.removeEventListener(type, handler, options));
    },
    onReopen(hook) {
      reopenHooks.push(hook);
    },
    stop() {
      for (const cleanup of cleanups.splice(0)) {
        try {
          cleanup();
        } catch {
          // A part failed to clean up; the others still should.
        }
      }
      if (scope.__webctx === ns) delete scope.__webctx;
    },
  };
  // `document.open()` keeps the Document and the Window (so this namespace lives on) but erases
  // their listeners, ours included; the parts' listeners would be dead from then on, and the
  // frame would never push again. It also replaces the document's children, which a
  // MutationObserver on the document itself sees (observers are not listeners: they survive).
  // Only the document's own children are watched, so this costs nothing while the page runs.
  const reopened = () => {
    if (document.documentElement === root) return;
    root = document.documentElement;
    // addEventListener ignores a listener already there: re-adding all of them is safe.
    for (const l of listeners) l.target.addEventListener(l.type, l.handler, l.options);
    for (const hook of reopenHooks) {
      try {
        hook();
      } catch {
        // One part failing must not keep the others deaf.
      }
    }
  };
  const rootWatch = new MutationObserver(reopened);
  rootWatch.observe(document, { childList: true });
  cleanups.push(() => rootWatch.disconnect());
  scope.__webctx = ns;
})();
void 0;
