// webctx WebMCP polyfill: the page's main world, document_start, every frame (SPEC §5).
//
//   document.modelContext (only where the browser has none; invisible where it has the real thing)
//     registerTool(tool, {signal, exposedTo}) → Promise   validation and errors as Chromium 156
//     getTools() → Promise<RegisteredTool[]> sorted by name
//     executeTool(tool, input, {signal}) → Promise<string>
//     events: toolchange, toolactivated, toolcancel
//   declarative forms: <form toolname tooldescription [toolautosubmit]> → tools
//   bridge: window.postMessage channel "webctx.webmcp" with content/webmcp_bridge.js (isolated)
//     to-page {kind: "hello" | "call" | "cancel"}   to-ext {kind: "tools" | "result"}
//
// Everything here runs beside page code, so the built-ins it uses are saved first. Whatever the
// page posts on the channel can only describe or run the page's own tools.

(function webctxWebmcpPolyfill() {
  if ("modelContext" in Document.prototype || "modelContext" in document) return;

  const CHANNEL = "webctx.webmcp";
  const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
  /** Most tools posted to the bridge; the bridge is told the total. */
  const MAX_POSTED_TOOLS = 128;
  /** Coalesce registry changes into one post per this many ms. */
  const POST_THROTTLE_MS = 20;

  // Built-ins saved before page code can replace them (STYLE "Content scripts and the polyfill").
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const defineProperty = Object.defineProperty;
  const addListener = EventTarget.prototype.addEventListener;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const postMessage = window.postMessage.bind(window);
  const setTimer = window.setTimeout.bind(window);
  const DOMExceptionCtor = DOMException;
  const EventCtor = Event;
  const AbortControllerCtor = AbortController;
  const URLCtor = URL;

  /**
   * @typedef {object} Entry
   * @property {string} name
   * @property {string} title
   * @property {string} description
   * @property {string | undefined} schemaText  JSON text of inputSchema
   * @property {(input: object, options: {signal: AbortSignal}) => unknown} execute
   * @property {Record<string, boolean> | undefined} annotations
   * @property {HTMLFormElement} [form]  a declarative tool's form
   */

  /** @type {Map<string, Entry>} */
  const registry = new Map();

  /** @param {string} name @param {string} message */
  const domError = (name, message) => new DOMExceptionCtor(message, name);

  /** @param {string} type @param {string} [toolName] */
  function fire(type, toolName) {
    const event = new EventCtor(type);
    if (toolName !== undefined) defineProperty(event, "toolName", { value: toolName, enumerable: true });
    dispatch.call(context, event);
  }

  let postPending = false;
  /** A registry change: toolchange (a task, as in Chromium) and a throttled post to the bridge. */
  function changed() {
    return new Promise((resolve) => {
      setTimer(() => {
        fire("toolchange");
        resolve(undefined);
      }, 0);
      if (!postPending) {
        postPending = true;
        setTimer(() => {
          postPending = false;
          postTools();
        }, POST_THROTTLE_MS);
      }
    });
  }

  function postTools() {
    const names = [...registry.keys()].sort();
    const tools = names.slice(0, MAX_POSTED_TOOLS).map((name) => {
      const entry = /** @type {Entry} */ (registry.get(name));
      return {
        name: entry.name,
        title: entry.title,
        description: entry.description,
        inputSchema: entry.schemaText,
        annotations: entry.annotations,
      };
    });
    postMessage({ channel: CHANNEL, dir: "to-ext", kind: "tools", tools, total: names.length }, "*");
  }

  /**
   * @param {unknown} value
   * @returns {Record<string, boolean> | undefined}
   */
  function annotationsOf(value) {
    if (typeof value !== "object" || value === null) return undefined;
    const a = /** @type {Record<string, unknown>} */ (value);
    return {
      readOnlyHint: Boolean(a.readOnlyHint),
      untrustedContentHint: Boolean(a.untrustedContentHint),
      consequentialHint: Boolean(a.consequentialHint),
      debugging: Boolean(a.debugging),
    };
  }

  /**
   * Validate and store a tool (webmcp.md §1.3, in the spec's order). Throws as Chromium rejects.
   * @param {unknown} tool
   * @param {{signal?: AbortSignal, exposedTo?: unknown}} options
   * @param {HTMLFormElement} [form]
   * @returns {Entry}
   */
  function validate(tool, options, form) {
    if (typeof tool !== "object" || tool === null) throw new TypeError("The tool must be an object.");
    const t = /** @type {Record<string, unknown>} */ (tool);
    const name = String(t.name ?? "");
    const description = t.description === undefined ? "" : String(t.description);
    if (typeof t.execute !== "function") throw new TypeError("The tool's execute must be a function.");
    let schemaText;
    if (t.inputSchema !== undefined) {
      if (typeof t.inputSchema !== "object" || t.inputSchema === null) {
        throw new TypeError("The tool's inputSchema must be an object.");
      }
      schemaText = stringify(t.inputSchema); // throws TypeError on a circular schema
      if (schemaText === undefined) throw new TypeError("The tool's inputSchema cannot be serialised.");
    }
    if (registry.has(name)) throw domError("InvalidStateError", "Duplicate tool name");
    if (!NAME_PATTERN.test(name)) {
      throw domError("InvalidStateError", "Tool names are 1 to 128 characters of A-Z, a-z, 0-9, '_', '.' and '-'.");
    }
    if (description.length === 0) throw domError("InvalidStateError", "The tool's description must not be empty.");
    if (options.exposedTo !== undefined) {
      for (const origin of /** @type {Iterable<unknown>} */ (options.exposedTo)) {
        const url = new URLCtor(String(origin));
        const trustworthy = url.protocol === "https:" || url.hostname === "localhost" || url.hostname === "127.0.0.1";
        if (!trustworthy) throw domError("SecurityError", `${String(origin)} is not a potentially trustworthy origin.`);
      }
    }
    return {
      name,
      title: t.title === undefined ? "" : String(t.title),
      description,
      schemaText,
      execute: /** @type {Entry["execute"]} */ (t.execute),
      annotations: annotationsOf(t.annotations),
      form,
    };
  }

  /**
   * Run a registered tool; the bridge needs the real error message, executeTool the browser's error.
   * @param {string} name
   * @param {unknown} input
   * @param {AbortSignal} signal
   * @returns {Promise<{ok: true, text: string | null} | {ok: false, error: string}>}
   */
  async function run(name, input, signal) {
    const entry = registry.get(name);
    if (!entry) return { ok: false, error: `The page has no tool named ${name}.` };
    let inputObject;
    try {
      inputObject = parse(stringify(input ?? {}));
    } catch {
      return { ok: false, error: "The input is not JSON-serialisable." };
    }
    fire("toolactivated", name);
    let value;
    try {
      value = await entry.execute.call(undefined, inputObject, { signal });
    } catch (error) {
      const message = error && typeof error === "object" && "message" in error ? String(error.message) : String(error);
      return { ok: false, error: message || "The tool failed." };
    }
    if (typeof value === "string") return { ok: true, text: value };
    try {
      const text = stringify(value);
      return { ok: true, text: text === undefined ? "undefined" : text };
    } catch (error) {
      return { ok: false, error: `The tool's result is not JSON-serialisable (${error instanceof Error ? error.message : "unknown"}).` };
    }
  }

  class ModelContext extends EventTarget {
    /**
     * @param {unknown} tool
     * @param {{signal?: AbortSignal, exposedTo?: unknown}} [options]
     * @returns {Promise<undefined>}
     */
    registerTool(tool, options = {}) {
      let entry;
      try {
        entry = validate(tool, options ?? {});
      } catch (error) {
        return Promise.reject(error);
      }
      const signal = options?.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      registry.set(entry.name, entry);
      if (signal) {
        addListener.call(signal, "abort", () => {
          if (registry.get(entry.name) !== entry) return;
          registry.delete(entry.name);
          void changed();
        }, { once: true });
      }
      return /** @type {Promise<undefined>} */ (changed());
    }

    /** @returns {Promise<object[]>} */
    getTools() {
      const names = [...registry.keys()].sort();
      return Promise.resolve(
        names.map((name) => {
          const entry = /** @type {Entry} */ (registry.get(name));
          return {
            name,
            title: entry.title,
            description: entry.description,
            inputSchema: entry.schemaText === undefined ? undefined : parse(entry.schemaText),
            window,
            origin: location.origin,
            annotations: entry.annotations,
          };
        }),
      );
    }

    /**
     * @param {{name?: unknown}} tool
     * @param {unknown} [input]
     * @param {{signal?: AbortSignal}} [options]
     * @returns {Promise<string | null>}
     */
    executeTool(tool, input = {}, options = {}) {
      if (typeof input !== "object" || input === null) {
        return Promise.reject(new TypeError("invalid input object: value is not an object"));
      }
      try {
        stringify(input);
      } catch (error) {
        return Promise.reject(error);
      }
      const outer = options?.signal;
      if (outer?.aborted) return Promise.reject(outer.reason);
      const name = String(tool?.name ?? "");
      const controller = new AbortControllerCtor();
      return new Promise((resolve, reject) => {
        if (outer) {
          addListener.call(outer, "abort", () => {
            controller.abort(domError("AbortError", "The tool call was cancelled."));
            fire("toolcancel", name);
            reject(outer.reason);
          }, { once: true });
        }
        if (!registry.has(name)) return reject(domError("UnknownError", "Tool not found."));
        run(name, input, controller.signal).then((reply) => {
          if (reply.ok) resolve(reply.text);
          else reject(domError("UnknownError", "Tool was executed but the invocation failed. For example, the script function threw an error"));
        });
      });
    }
  }

  // on<event> handler attributes, as EventHandler IDL attributes behave.
  for (const type of ["toolchange", "toolactivated", "toolcancel"]) {
    /** @type {WeakMap<object, EventListener | null>} */
    const handlers = new WeakMap();
    defineProperty(ModelContext.prototype, `on${type}`, {
      configurable: true,
      enumerable: true,
      get() {
        return handlers.get(this) ?? null;
      },
      set(value) {
        handlers.set(this, typeof value === "function" ? value : null);
      },
    });
  }

  const context = new ModelContext();
  for (const type of ["toolchange", "toolactivated", "toolcancel"]) {
    addListener.call(context, type, (event) => {
      const handler = /** @type {any} */ (context)[`on${type}`];
      if (typeof handler === "function") handler.call(context, event);
    });
  }
  defineProperty(Document.prototype, "modelContext", {
    configurable: true,
    enumerable: true,
    get() {
      return this === document ? context : undefined;
    },
  });

  // ---- the bridge to the isolated world -------------------------------------------------------

  /** In-flight bridge calls by callId. @type {Map<string, {controller: AbortController, name: string}>} */
  const calls = new Map();

  addListener.call(window, "message", (/** @type {Event} */ raw) => {
    const event = /** @type {MessageEvent} */ (raw);
    if (event.source !== window) return;
    const data = event.data;
    if (typeof data !== "object" || data === null || data.channel !== CHANNEL || data.dir !== "to-page") return;
    if (data.kind === "hello") {
      postTools();
    } else if (data.kind === "call" && typeof data.callId === "string" && typeof data.name === "string") {
      if (calls.has(data.callId)) return;
      const controller = new AbortControllerCtor();
      calls.set(data.callId, { controller, name: data.name });
      const callId = data.callId;
      run(data.name, data.input, controller.signal).then((reply) => {
        calls.delete(callId);
        if (controller.signal.aborted) return;
        postMessage({ channel: CHANNEL, dir: "to-ext", kind: "result", callId, ...reply }, "*");
      });
    } else if (data.kind === "cancel" && typeof data.callId === "string") {
      const call = calls.get(data.callId);
      if (!call) return;
      calls.delete(data.callId);
      call.controller.abort(domError("AbortError", "The tool call was cancelled."));
      fire("toolcancel", call.name);
    }
  });
})();
void 0;
