// webctx content script, part 3 (see namespace.js for the map): focus, hover and the pointer.
//
//   focus()   the focused editable field (input/textarea/contenteditable, open shadow roots
//             included) as {key, kind, title?, content?, length, sensitive?}: the textbox Group
//   hover()   the innermost Link (a[href]) or Image (img) under the pointer, from trusted
//             `mouseover` / `pointerover` only (the browser's own hit test; nothing runs per
//             `mousemove` but four number stores)
//   pointer() the latest pointer event of this frame: screen (points) and client (CSS px)
//             coordinates, for the viewport's screen origin (service_worker/location.js)
//
// Secret fields (content/secret_fields.js) report no content.

(function webctxFocusHover() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.selection || !ns.secret || ns.focusHover) return;
  const selection = ns.selection;
  const secret = ns.secret;

  /** Pre-cap on a field's content, UTF-16 code units (the worker caps at 16 KiB of UTF-8). */
  const MAX_CONTENT_CHARS = 65536;
  /** Cap on a link's text / an image's alt, UTF-16 code units. */
  const MAX_TITLE_CHARS = 1024;
  /** Input types whose value is free text (the others are not a textbox). */
  const TEXT_INPUT_TYPES = new Set(["text", "search", "url", "tel", "email", "password", "number", ""]);

  let nextKey = 1;
  /** @type {WeakMap<Element, number>} */
  const hoverKeys = new WeakMap();
  /** @type {Map<number, WeakRef<Element>>} */
  const hoverElements = new Map();
  /** @type {Element | null} */
  let hovered = null;
  /** When `hovered` last changed, ms since the epoch. */
  let hoverAt = 0;
  /** @type {import("../service_worker/location.js").PointerSample | null} */
  let pointerSample = null;

  /**
   * @param {Element | null} element
   * @returns {{field: Element, kind: "input" | "textarea" | "contenteditable"} | null}
   */
  function asField(element) {
    if (element instanceof HTMLTextAreaElement) return { field: element, kind: "textarea" };
    if (element instanceof HTMLInputElement) {
      return TEXT_INPUT_TYPES.has(element.type) ? { field: element, kind: "input" } : null;
    }
    const host = element ? selection.editingHost(element) : null;
    if (host) return { field: host, kind: "contenteditable" };
    // A code editor's EditContext element (Monaco's default): a textbox, not contenteditable.
    return element && ns?.editorSelection?.hasEditContext(element) ? { field: element, kind: "contenteditable" } : null;
  }

  /**
   * @param {number} [skipKey] a field key: when the focused field is that one, leave its text
   *   out and mark it `pending` (report.js, typing in a large field)
   * @returns {FieldFacts | null} the focused editable field of this document, if any
   */
  function focus(skipKey = 0) {
    const found = asField(selection.deepActiveElement());
    if (!found) return null;
    const { field, kind } = found;
    /** @type {FieldFacts} */
    const facts = { key: selection.fieldKey(field), kind };
    const title = field.getAttribute("aria-label") || field.getAttribute("placeholder") || field.getAttribute("name");
    if (title) facts.title = title.slice(0, MAX_TITLE_CHARS);
    if (secret.isSecretField(field)) {
      facts.sensitive = true;
      return facts;
    }
    if (skipKey !== 0 && facts.key === skipKey) {
      facts.pending = true;
      return facts;
    }
    // A code editor's text is its model's, not the element's (a virtualised editor's DOM holds the
    // lines in view; Monaco's hidden textarea an excerpt): content/editor_selection.js.
    const active = selection.deepActiveElement();
    const edited = active ? ns?.editorSelection?.fieldText(active) : undefined;
    if (edited) {
      facts.content = edited.content.slice(0, MAX_CONTENT_CHARS);
      facts.length = edited.length;
      return facts;
    }
    const valued = field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement;
    if (!valued && !(field instanceof HTMLElement && field.isContentEditable)) return facts;
    const text =
      field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement
        ? field.value
        : /** @type {HTMLElement} */ (field).innerText;
    facts.content = text.slice(0, MAX_CONTENT_CHARS);
    facts.length = text.length;
    return facts;
  }

  /** @returns {HoverFacts | null} */
  function hover() {
    const element = hovered;
    if (!element || !element.isConnected) return null;
    let key = hoverKeys.get(element);
    if (key === undefined) {
      key = nextKey++;
      hoverKeys.set(element, key);
      hoverElements.set(key, new WeakRef(element));
      if (hoverElements.size > 64) hoverElements.delete(/** @type {number} */ (hoverElements.keys().next().value));
    }
    if (element instanceof HTMLImageElement) {
      return { key, role: "Image", url: element.currentSrc || element.src, title: element.alt.slice(0, MAX_TITLE_CHARS), at: hoverAt };
    }
    const link = /** @type {HTMLAnchorElement} */ (element);
    const text = (link.innerText || link.textContent || "").replace(/\s+/g, " ").trim();
    return { key, role: "Link", url: link.href, title: text.slice(0, MAX_TITLE_CHARS), at: hoverAt };
  }

  /** @param {MouseEvent} event */
  function onMouseOver(event) {
    // Only the user's pointer: a page's synthetic `mouseover` (isTrusted false) is not a hover.
    if (!event.isTrusted) return;
    /** @type {Element | null} */
    let found = null;
    for (const target of event.composedPath()) {
      if (target instanceof HTMLImageElement || (target instanceof HTMLAnchorElement && target.hasAttribute("href"))) {
        found = target;
        break;
      }
    }
    sample(event);
    if (found !== hovered) {
      hovered = found;
      hoverAt = Date.now();
      ns?.changed?.();
    }
  }

  /** @param {MouseEvent} event */
  function onMouseOut(event) {
    if (event.isTrusted && event.relatedTarget === null && hovered !== null) {
      hovered = null; // the pointer left this document
      hoverAt = Date.now();
      ns?.changed?.();
    }
  }

  /** @param {MouseEvent} event */
  function sample(event) {
    if (!event.isTrusted) return; // a page's synthetic event would place the viewport wrongly
    pointerSample = {
      screenX: event.screenX,
      screenY: event.screenY,
      clientX: event.clientX,
      clientY: event.clientY,
      windowX: window.screenX,
      windowY: window.screenY,
      innerWidth: window.innerWidth,
    };
  }

  // At window capture, added at document_start: before any listener of the page's, so a page
  // that stops these events cannot hide the user's pointer from us.
  const listen = /** @type {const} */ ({ capture: true, passive: true });
  ns.listen(window, "mouseover", onMouseOver, listen);
  ns.listen(window, "mouseout", onMouseOut, listen);
  // Where the page's listener came first after all (a frame it wrote with document.open(), which
  // erased ours until the next task), it may stop `mouseover`: the pointer events of the same
  // move are other events, and a repeat of the same target changes nothing.
  ns.listen(window, "pointerover", onMouseOver, listen);
  ns.listen(window, "pointerout", onMouseOut, listen);
  ns.listen(window, "mousemove", sample, listen);
  ns.focusHover = {
    focus,
    hover,
    pointer: () => pointerSample,
    hoverElement: (key) => hoverElements.get(key)?.deref(),
  };
})();
void 0;
