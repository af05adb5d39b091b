// webctx, the page's main world, every frame, document_start: read the selection of code editors
// that keep their text outside the DOM (docs/internals/extension.md "Code editors").
//
//   content/editor_selection.js (isolated) ──CustomEvent "webctx-editor-ask" on the focused element──►
//   here (window, capture): the first adapter whose `root` selector holds the element reads the
//   editor's own model ──CustomEvent "webctx-editor-answer" {detail: JSON text} on the same element──►
//   the isolated world, synchronously, inside its dispatchEvent call.
//
// Why the main world: the editor's model hangs off page objects (`monaco.editor.getEditors()`, the
// `cmTile` expando on CodeMirror's content element) that the isolated world cannot see.
// Why a synchronous event and not webmcp_bridge.js's postMessage: the selection is read
// synchronously (on every selectionchange push and at `current`), and an event dispatched on an
// element runs every world's listeners before dispatchEvent returns.
//
// An adapter (the contract, docs/internals/extension.md "Code editors"):
//   {editor: "name", root: "CSS selector of the editor's outer element",
//    input: "CSS selector of the element that has the focus while the user edits (not its find box)",
//    layer: "CSS selector, inside root, of the elements the editor draws the selection with",
//    model(root, focused) → {slice(a, b): the document's text [a, b), from, to: the selection,
//    length: the document's} | undefined (the model is out of reach: the isolated world reads
//    the DOM and says it is partial)}
// The answer: {editor, root, layer, reading: {text, start, length, before, after} | null (nothing
// selected) | "unknown", content?: {text, length} (the document's start, when the ask's detail is
// "focus")}; `text` at most MAX_TEXT_CHARS, `before`/`after` at most CONTEXT_CHARS, UTF-16 code
// units: only what is sent is sliced. Everything here is page-controlled: the isolated world checks
// types and sizes again and treats the answer as untrusted.

(function webctxEditorAdapters() {
  const FLAG = Symbol.for("webctx.editorAdapters");
  const scope = /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (window));
  if (scope[FLAG]) return; // injected again into an open tab
  Object.defineProperty(scope, FLAG, { value: true });

  const ASK = "webctx-editor-ask";
  const ANSWER = "webctx-editor-answer";
  /** The same pre-cap as content/selection.js MAX_TEXT_CHARS. */
  const MAX_TEXT_CHARS = 65536;
  const CONTEXT_CHARS = 200;
  /** How many editor instances are looked through for the focused one. */
  const MAX_EDITORS = 256;
  /** How many tile parents are climbed to CodeMirror's root tile. */
  const MAX_TILE_DEPTH = 64;

  // Built-ins saved before page code can replace them (STYLE "Content scripts and the polyfill").
  const CustomEventCtor = CustomEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const closest = Element.prototype.closest;
  const matches = Element.prototype.matches;
  const stringify = JSON.stringify;
  const apply = Reflect.apply;
  const isSafe = Number.isSafeInteger;

  /**
   * @typedef {{text: string, start: number, length: number, before: string, after: string}} Reading
   * @typedef {{slice: (a: number, b: number) => string, from: number, to: number, length: number}} Model
   * @typedef {{editor: string, root: string, input: string, layer: string,
   *   model: (root: Element, focused: Element) => Model | undefined}} Adapter
   */

  /**
   * The reading of the model's selection `[from, to)`, capped (`to - from` may be huge: only what
   * is sent is sliced); null when nothing is selected, undefined for a malformed model.
   * @param {Model} model
   * @returns {Reading | null | undefined}
   */
  function reading(model) {
    const { slice, from, to, length } = model;
    if (!isSafe(from) || !isSafe(to) || !isSafe(length) || from < 0 || to > length) return undefined;
    if (to <= from) return null;
    return {
      text: String(slice(from, Math.min(to, from + MAX_TEXT_CHARS))),
      start: from,
      length: to - from,
      before: String(slice(Math.max(0, from - CONTEXT_CHARS), from)),
      after: String(slice(to, Math.min(length, to + CONTEXT_CHARS))),
    };
  }

  /**
   * The start of the whole document (the focused textbox's content), capped; undefined for a
   * malformed model.
   * @param {Model} model
   * @returns {{text: string, length: number} | undefined}
   */
  function documentStart(model) {
    if (!isSafe(model.length) || model.length < 0) return undefined;
    return { text: String(model.slice(0, Math.min(model.length, MAX_TEXT_CHARS))), length: model.length };
  }

  /** @type {Adapter[]} */
  const adapters = [
    {
      // Monaco (the AMD build and any page that exposes `monaco`): the editor whose container
      // holds the focus; its model is the whole document.
      editor: "monaco",
      root: ".monaco-editor",
      input: "textarea.inputarea, .native-edit-context",
      layer: ".view-overlays .selected-text",
      model(root) {
        const api = /** @type {any} */ (window).monaco;
        const list = api?.editor?.getEditors?.();
        if (!Array.isArray(list)) return undefined;
        for (const editor of list.slice(0, MAX_EDITORS)) {
          if (editor?.getDomNode?.() !== root && editor?.getContainerDomNode?.() !== root.parentElement) continue;
          const model = editor.getModel?.();
          const selection = editor.getSelection?.();
          if (!model || !selection) return undefined;
          /** @param {number} a @param {number} b */
          const slice = (a, b) => {
            const start = model.getPositionAt(a);
            const end = model.getPositionAt(b);
            return model.getValueInRange({ startLineNumber: start.lineNumber, startColumn: start.column, endLineNumber: end.lineNumber, endColumn: end.column });
          };
          return {
            slice,
            from: model.getOffsetAt(selection.getStartPosition()),
            to: model.getOffsetAt(selection.getEndPosition()),
            length: model.getValueLength(),
          };
        }
        return undefined;
      },
    },
    {
      // CodeMirror 6: the EditorView hangs off the content element's tile (`cmTile`, ≥ 6.38) or
      // view (`cmView`, before); its state holds the whole document.
      editor: "codemirror",
      root: ".cm-editor",
      input: ".cm-content",
      layer: ".cm-selectionBackground",
      model(root) {
        const content = /** @type {any} */ (root.querySelector(".cm-content"));
        let view = null;
        let tile = content?.cmTile;
        for (let n = 0; tile && !view && n < MAX_TILE_DEPTH; n++) {
          view = tile.view ?? null;
          tile = tile.parent;
        }
        view ??= content?.cmView?.rootView?.view ?? content?.cmView?.view ?? null;
        const state = view?.state;
        const main = state?.selection?.main;
        if (!state || !main || typeof state.sliceDoc !== "function") return undefined;
        return { slice: (a, b) => state.sliceDoc(a, b), from: main.from, to: main.to, length: state.doc.length };
      },
    },
  ];

  /** @param {Event} event */
  function onAsk(event) {
    const focused = event.composedPath()[0];
    if (!(focused instanceof Element)) return;
    for (const adapter of adapters) {
      const root = apply(closest, focused, [adapter.root]);
      // The editor's own input only: its find box is a field like any other.
      if (!root || !apply(matches, focused, [adapter.input])) continue;
      /** @type {Reading | null | undefined} */
      let read;
      /** @type {{text: string, length: number} | undefined} */
      let whole;
      try {
        const model = adapter.model(root, focused);
        read = model && reading(model);
        // The focused textbox's content too, when asked for it (content/focus_hover.js).
        if (model && event instanceof CustomEventCtor && event.detail === "focus") whole = documentStart(model);
      } catch {
        read = undefined; // a page's editor of another version: the DOM stands, marked partial
        whole = undefined;
      }
      /** @type {Record<string, unknown>} */
      const answer = { editor: adapter.editor, root: adapter.root, layer: adapter.layer, reading: read === undefined ? "unknown" : read };
      if (whole) answer.content = whole;
      let detail;
      try {
        detail = stringify(answer);
      } catch {
        return;
      }
      apply(dispatch, focused, [new CustomEventCtor(ANSWER, { detail })]);
      return;
    }
  }

  window.addEventListener(ASK, onAsk, true);
})();
void 0;
