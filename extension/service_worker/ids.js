// Element ids for one native-host instance (design.md §2, docs/internals/protocol.md "The tree").
//
// Pure: no chrome.* here, so node tests import it. The registry lives in the worker's memory:
// the worker stays alive while the native port is connected (Chromium ≥ 105), and a new port
// means a new native host process, i.e. a new instance whose ids start over anyway.

/**
 * What an id was minted for.
 * @typedef {{kind: "window", windowId: number}
 *   | {kind: "tab", tabId: number}
 *   | {kind: "selection", tabId: number, documentId: string, key: number}
 *   | {kind: "frame", tabId: number, documentId: string}
 *   | {kind: "document", tabId: number, documentId: string}
 *   | {kind: "field", tabId: number, documentId: string, key: number}
 *   | {kind: "hover", tabId: number, documentId: string, key: number}} IdTarget
 */

export class IdRegistry {
  /** @param {string | null} [instance] the native host instance these ids belong to, if known */
  constructor(instance = null) {
    /** @type {string | null} */
    this.instance = instance;
    this.#clear();
  }

  /**
   * Adopt the instance named by a hello reply. A registry that has not seen an instance yet
   * adopts it and keeps its ids (they were minted for this port's instance); a different
   * instance starts new counters, because ids mean nothing across instances.
   * @param {string} instance
   * @returns {boolean} true when the ids were reset
   */
  useInstance(instance) {
    if (this.instance === instance) return false;
    const reset = this.instance !== null;
    if (reset) this.#clear();
    this.instance = instance;
    return reset;
  }

  /** Forget every id and counter (a new port: a new native host process, a new instance). */
  reset() {
    this.instance = null;
    this.#clear();
  }

  /**
   * @param {number} windowId the browser's window id
   * @returns {string} `win-<n>`
   */
  windowId(windowId) {
    return this.#mint(this.#windows, "win", String(windowId), () => ({ kind: "window", windowId }));
  }

  /**
   * The browser's tab ids are never reused within a browser session, and a reload keeps the tab,
   * so a reloaded page keeps its `tab-<n>` (docs/internals/protocol.md).
   * @param {number} tabId the browser's tab id
   * @returns {string} `tab-<n>`
   */
  tabId(tabId) {
    return this.#mint(this.#tabs, "tab", String(tabId), () => ({ kind: "tab", tabId }));
  }

  /**
   * A passage is named by the document it lives in and the content script's key for its live
   * Range; a reloaded page is a new document, so its selections get new ids.
   * @param {number} tabId
   * @param {string} documentId the browser's documentId of the frame holding the selection
   * @param {number} key the content script's range key
   * @returns {string} `sel-<n>`
   */
  selectionId(tabId, documentId, key) {
    return this.#mint(this.#selections, "sel", `${documentId}\u0000${key}`, () => ({
      kind: "selection",
      tabId,
      documentId,
      key,
    }));
  }

  /**
   * A frame Group: one id per frame document (a navigated frame is a new document).
   * @param {number} tabId
   * @param {string} documentId the frame's documentId
   * @returns {string} `frame-<n>`
   */
  frameId(tabId, documentId) {
    return this.#mint(this.#others, "frame", documentId, () => ({ kind: "frame", tabId, documentId }));
  }

  /**
   * A Document shown by the browser's own viewer (the PDF viewer): one id per document.
   * @param {number} tabId
   * @param {string} documentId
   * @returns {string} `doc-<n>`
   */
  documentElementId(tabId, documentId) {
    return this.#mint(this.#others, "doc", `doc\u0000${documentId}`, () => ({ kind: "document", tabId, documentId }));
  }

  /**
   * A textbox Group: the content script's key for the field element in its document.
   * @param {number} tabId
   * @param {string} documentId
   * @param {number} key
   * @returns {string} `field-<n>`
   */
  fieldId(tabId, documentId, key) {
    return this.#mint(this.#others, "field", `field\u0000${documentId}\u0000${key}`, () => ({
      kind: "field",
      tabId,
      documentId,
      key,
    }));
  }

  /**
   * A hovered Link or Image: the content script's key for the element in its document.
   * @param {number} tabId
   * @param {string} documentId
   * @param {number} key
   * @param {"Link" | "Image"} role
   * @returns {string} `link-<n>` or `img-<n>`
   */
  hoverId(tabId, documentId, key, role) {
    const prefix = role === "Image" ? "img" : "link";
    return this.#mint(this.#others, prefix, `hover\u0000${documentId}\u0000${key}`, () => ({
      kind: "hover",
      tabId,
      documentId,
      key,
    }));
  }

  /**
   * @param {string} id
   * @returns {IdTarget | undefined} what `id` was minted for, if this registry minted it
   */
  resolve(id) {
    return this.#targets.get(id);
  }

  /** @type {Map<string, string>} */ #windows = new Map();
  /** @type {Map<string, string>} */ #tabs = new Map();
  /** @type {Map<string, string>} */ #selections = new Map();
  /** Frames, fields and hovered elements (their keys never collide). @type {Map<string, string>} */ #others = new Map();
  /** @type {Map<string, IdTarget>} */ #targets = new Map();
  /** @type {Record<string, number>} */ #counters = {};

  #clear() {
    this.#windows = new Map();
    this.#tabs = new Map();
    this.#selections = new Map();
    this.#others = new Map();
    this.#targets = new Map();
    this.#counters = { win: 0, tab: 0, sel: 0, frame: 0, field: 0, link: 0, img: 0, doc: 0 };
  }

  /**
   * Return the id already minted for `key`, or mint the next one. Counters only grow, so an id
   * is never reused within an instance.
   * @param {Map<string, string>} map
   * @param {"win" | "tab" | "sel" | "frame" | "field" | "link" | "img" | "doc"} prefix
   * @param {string} key
   * @param {() => IdTarget} target
   * @returns {string}
   */
  #mint(map, prefix, key, target) {
    let id = map.get(key);
    if (id === undefined) {
      this.#counters[prefix] += 1;
      id = `${prefix}-${this.#counters[prefix]}`;
      map.set(key, id);
      this.#targets.set(id, target());
    }
    return id;
  }
}
