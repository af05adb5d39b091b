// webctx content script, part 3b (see namespace.js for the map): what the user did, as opposed to
// what the page's own script did (docs/internals/protocol.md "Only the user's selection").
//
// Listens, at window capture, for this document's trusted input (`event.isTrusted`: pointer,
// mouse, touch and key presses and releases): a page cannot forge one, and cannot hide one from us,
// because these listeners are added at document_start, before any page script, and a window
// capture listener runs before every other listener of the same event. A selection change is the
// user's when it follows such an input within USER_WINDOW_MS, or while a pointer button or a touch
// is held (a drag); any other change (a page script's `addRange`, `selectAllChildren`, `select()`
// seconds after load) makes the selection the page's, and report.js reports none until the user's
// next input changes it. Each document tracks its own input: a click into an iframe delivers its
// trusted events to the iframe's document.
//
// `tracker` is pure (times passed in) and unit-tested in extension/test/user_input.test.js.

(function webctxUserInput() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || ns.userInput) return;
  const selection = ns.selection;

  /**
   * How long after a trusted input a selection change still counts as the user's, ms. Long
   * enough for an editor that re-sets the selection in its own handler or a timer after the
   * gesture, and for a loaded machine's task delays; short enough that a page script acting
   * seconds later is not taken for the user (docs/internals/protocol.md).
   */
  const USER_WINDOW_MS = 1000;
  /**
   * How long after the user opens the context menu its "Select all" still counts, ms: the menu
   * is the browser's, so picking an item gives the page no input; any input ends it sooner.
   */
  const MENU_MS = 10000;

  /**
   * What the selection is, cheaply, to tell a change from none: the focused field's offsets, or
   * the DOM selection's boundaries (and, when a boundary is an element, e.g. around a shadow host
   * where a gesture inside the root leaves the document selection, its text length too).
   * @typedef {readonly unknown[]} Snapshot
   */

  /**
   * The trust state machine of one document. Pure: every time is passed in (ms, any one clock).
   * @param {number} windowMs see USER_WINDOW_MS
   */
  function tracker(windowMs) {
    let lastInputAt = -Infinity;
    let held = false;
    /** Until when the browser's context menu may be open (its "Select all" gives the page no input). */
    let menuUntil = -Infinity;
    /** @type {Snapshot | null} */
    let lastSeen = null;
    let lastSeenUsers = false;
    /** @param {Snapshot | null} a @param {Snapshot | null} b */
    const same = (a, b) => a !== null && b !== null && a.length === b.length && a.every((v, i) => v === b[i]);
    /** @param {number} now */
    const recent = (now) => held || now - lastInputAt <= windowMs || now <= menuUntil;
    return {
      /**
       * A trusted input: "press" (pointer/mouse/touch down: held until released), "release"
       * (up, cancel, end), "key" (a key down or up), "menu" (the context menu opens: a change
       * counts until the next press or key, at most MENU_MS), "idle" (a move with no button held, or the
       * window lost focus: nothing is held any more; not an input).
       * @param {"press" | "release" | "key" | "menu" | "idle"} kind @param {number} now
       */
      input(kind, now) {
        // A release or a blur may come after the menu opened (on Linux it opens on the press).
        if (kind === "menu") menuUntil = now + MENU_MS;
        else if (kind === "press" || kind === "key") menuUntil = -Infinity;
        if (kind === "press") held = true;
        if (kind === "release" || kind === "idle") held = false;
        if (kind !== "idle") lastInputAt = now;
      },
      /**
       * The selection changed (a `selectionchange` or `select` event, or a trusted release that
       * found it changed): whose is it now? A change to the same snapshot keeps the verdict (no
       * input makes the page's selection the user's by not moving it).
       * @param {Snapshot} snapshot @param {number} now @returns {boolean} whether it is the user's
       */
      changed(snapshot, now) {
        if (same(snapshot, lastSeen)) return lastSeenUsers;
        lastSeen = snapshot;
        lastSeenUsers = recent(now);
        return lastSeenUsers;
      },
      /**
       * Whether the selection as it is now is the user's: the verdict of its last change, or, for
       * a change whose event has not come yet, whether an input is recent.
       * @param {Snapshot} snapshot @param {number} now
       */
      isUsers(snapshot, now) {
        return same(snapshot, lastSeen) ? lastSeenUsers : recent(now);
      },
      /** @param {Snapshot} snapshot the selection as it is: take it as the user's (see its caller) */
      adopt(snapshot) {
        lastSeen = snapshot;
        lastSeenUsers = true;
      },
      /** @param {Snapshot} snapshot @returns {boolean} whether it differs from the last one seen */
      isNew(snapshot) {
        return !same(snapshot, lastSeen);
      },
    };
  }

  /** @returns {Snapshot} */
  function snapshot() {
    const active = selection.deepActiveElement();
    // A code editor's EditContext (Monaco's default): its selection moves with no DOM selection.
    const context = /** @type {{editContext?: {selectionStart: number, selectionEnd: number, text: string} | null}} */ (
      /** @type {unknown} */ (active ?? {})
    ).editContext;
    if (context) return [active, context.selectionStart, context.selectionEnd, context.text.length];
    if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) {
      try {
        // The value's length too: an editor's hidden textarea (Monaco's) holds the selected text
        // at the same offsets whatever is selected.
        return [active, active.selectionStart, active.selectionEnd, active.value.length];
      } catch {
        return [active, null, null]; // input types without a text selection
      }
    }
    const sel = document.getSelection();
    if (!sel || sel.rangeCount === 0) return [null];
    const { anchorNode, anchorOffset, focusNode, focusOffset } = sel;
    const onElement = anchorNode instanceof Element || focusNode instanceof Element;
    return [anchorNode, anchorOffset, focusNode, focusOffset, onElement ? String(sel).length : -1];
  }

  // Date.now, not performance.now: one clock with the other frames and the worker's `at` times.
  const now = () => Date.now();
  const state = tracker(USER_WINDOW_MS);
  // Injected into a page already open (an install, update or reload of the extension): its input
  // so far went unseen. A selection already there counts as the user's only if the user has
  // interacted with this document at all (sticky user activation, which no script can grant).
  const activation = /** @type {{userActivation?: {hasBeenActive: boolean}}} */ (navigator).userActivation;
  if (document.readyState !== "loading" && activation?.hasBeenActive) state.adopt(snapshot());
  /** @type {(() => void)[]} */
  const releaseHooks = [];

  /**
   * @param {"press" | "release" | "key" | "menu"} kind
   * @param {boolean} reread run the release hooks: after a release or a key's release, when the
   *   gesture's selection change has happened (a press or a keydown comes before it)
   */
  const onInput = (kind, reread = false) => (/** @type {Event} */ event) => {
    if (!event.isTrusted) return;
    state.input(kind, now());
    if (reread) for (const hook of releaseHooks) hook();
  };
  /** @param {Event} event */
  function onMove(event) {
    if (event.isTrusted && /** @type {MouseEvent} */ (event).buttons === 0) state.input("idle", now());
  }

  // Timed into ns.cost like the other handlers (bench/typing_bench.py: every key runs two).
  const capture = /** @type {const} */ ({ capture: true, passive: true });
  const [press, release, keyDown, keyUp] = [
    onInput("press"),
    onInput("release", true),
    onInput("key"),
    onInput("key", true),
  ].map((h) => ns.timed(h));
  ns.listen(window, "contextmenu", onInput("menu"), capture);
  for (const type of ["pointerdown", "mousedown", "touchstart"]) ns.listen(window, type, press, capture);
  for (const type of ["pointerup", "mouseup", "pointercancel", "touchend", "touchcancel", "dblclick", "dragend"]) {
    ns.listen(window, type, release, capture);
  }
  ns.listen(window, "keydown", keyDown, capture);
  ns.listen(window, "keyup", keyUp, capture);
  ns.listen(window, "pointermove", onMove, capture);
  // The window's own blur only: at capture, every element's blur passes here too, and a press
  // that moves the focus blurs the old element while the button is down.
  ns.listen(window, "blur", (/** @type {Event} */ event) => {
    if (event.target === window) state.input("idle", now());
  }, capture);

  ns.userInput = {
    changed: () => state.changed(snapshot(), now()),
    isUsers: () => state.isUsers(snapshot(), now()),
    isNew: () => state.isNew(snapshot()),
    onRelease: (hook) => releaseHooks.push(hook),
  };
})();
void 0;
