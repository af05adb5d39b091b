// webctx WebMCP polyfill: the page's main world, document_start, every frame (design.md §5).
//
//   document.modelContext (only where the browser has none; invisible where it has the real thing)
//     registerTool(tool, {signal, exposedTo}) → Promise   validation and errors as Chromium 156
//     getTools({fromOrigins}) → Promise<RegisteredTool[]> sorted by name
//     Permissions Policy "tools" (NotAllowedError), document.domain (SecurityError), exposedTo
//     executeTool(tool, input, {signal}) → Promise<string>
//     events: toolchange, toolactivated, toolcancel
//   declarative forms: <form toolname tooldescription [toolautosubmit]> → tools (read at
//     DOMContentLoaded, then a MutationObserver: none while the page is parsed),
//     schema synthesised from the controls, SubmitEvent.agentInvoked + respondWith()
//   bridge: window.postMessage channel "webctx.webmcp" with content/webmcp_bridge.js (isolated)
//     to-page {kind: "hello" | "call" | "cancel"}   to-ext {kind: "tools" | "result"}
//   frames: channel "webctx.webmcp.frames" between polyfill instances of one tab: "policy?"/"policy"
//     (a child asks its parent), "tools"/"reset" (a cross-origin frame → the top), "call"/"cancel"
//     (top → frame) and "result" (frame → top)
//
// Everything here runs beside page code, so the built-ins it uses are saved first. Whatever the
// page posts on the channel can only describe or run the page's own tools.
//
// Why one file of ~1,100 lines: it must run in the page's MAIN world at document_start, before any
// page script, and a manifest content script cannot be an ES module (w3c/webextensions#156), so
// there is no import. Several classic files would have to share the registry, the saved
// built-ins and the channels through a global of the page's own world, where page script could
// read or replace them; one closure keeps them out of its reach. So the file is one IIFE in
// sections, in this order:
//
//   registry and same-origin frames   visibleTools, changed/toolchange, postTools, validate, run
//   Permissions Policy, document.      trustworthyOrigin, allowPermits, the policy, frameEntries,
//     domain, cross-origin frames      runInFrame, postToTop, the "webctx.webmcp.frames" listener
//   ModelContext                       registerTool, getTools, executeTool, on<event> attributes
//   declarative forms                  formSchema, fillForm, invokeForm, submit/reset, syncForms
//   the bridge                         the "webctx.webmcp" listener (hello, call, cancel)
//
// The pure rules (trustworthyOrigin, allowPermits, annotationsOf, frameEntries) are node-tested
// (extension/test/polyfill.test.js): the test runs this file where there is no `document`, and the
// guard below hands it those functions and stops. A page always has a `document`, so the browser
// never takes that path.

(function webctxWebmcpPolyfill() {
  const CHANNEL = "webctx.webmcp";
  const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
  /** Most tools posted to the bridge; the bridge is told the total. */
  const MAX_POSTED_TOOLS = 128;
  /** Coalesce registry changes into one post per this many ms. */
  const POST_THROTTLE_MS = 20;
  /** What a call answers when the page threw something whose text cannot be read (the same
   * sentence as main_world/native_errors.js NOT_AN_ERROR; extension/test/polyfill.test.js). */
  const NOT_AN_ERROR = "The page's tool threw something that is not an Error (no message can be read from it); the tool did not finish. The page's author can fix it by throwing an Error.";
  // Saved before page code can replace it, like the built-ins below; the pure rules use it.
  const URLCtor = URL;

  if (typeof document === "undefined") {
    // node --test only (see the top of this file): the pure rules, and nothing else runs.
    /** @type {any} */ (globalThis).webctxPolyfillRules = { trustworthyOrigin, allowPermits, annotationsOf, frameEntries };
    return;
  }
  if ("modelContext" in Document.prototype || "modelContext" in document) return;
  // Chromium has no document.modelContext in an insecure context (webmcp.md §1.3); neither do we.
  if (!window.isSecureContext) return;

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

  /**
   * @typedef {object} Entry
   * @property {string} name
   * @property {string} title
   * @property {string} description
   * @property {string | undefined} schemaText  JSON text of inputSchema
   * @property {(input: object, options: {signal: AbortSignal}) => unknown} execute
   * @property {Record<string, boolean> | undefined} annotations
   * @property {HTMLFormElement} [form]  a declarative tool's form
   * @property {string[]} [exposedTo]  serialised origins besides this one that may see and run it
   */

  /** @type {Map<string, Entry>} */
  const registry = new Map();

  /**
   * Same-origin frames see each other's tools (webmcp.md §1.4: getTools() walks the tab's
   * documents). Each polyfill instance hangs this small API on its window under a registered
   * symbol; only same-origin script can reach it, and what it offers is that origin's own tools.
   * @typedef {object} FrameApi
   * @property {() => Entry[]} entries
   * @property {(name: string, input: unknown, signal: AbortSignal) => ReturnType<typeof run>} run
   * @property {() => void} childChanged
   * @property {() => boolean} allowed  whether this document may use WebMCP (Permissions Policy)
   * @property {{state: "allowed" | "denied" | "pending", ready: Promise<void>} | null} policy
   */
  const FRAME_KEY = Symbol.for("webctx.webmcp.frame");

  /**
   * A tool this document can see: `api` runs a same-origin frame's, `frame` a cross-origin frame's.
   * @typedef {{entry: Entry, win: Window, origin: string, api: FrameApi | null, frame?: CrossFrame}} Visible
   */

  /**
   * Every tool this document can see, by name: its own first, then those of same-origin
   * descendant frames in document order, then those cross-origin frames exposed to this one (the
   * first of a name wins).
   * @returns {Map<string, Visible>}
   */
  function visibleTools() {
    /** @type {Map<string, Visible>} */
    const all = new Map();
    for (const [name, entry] of registry) all.set(name, { entry, win: window, origin: location.origin, api: null });
    /** @param {Window} parent @param {number} depth */
    const walk = (parent, depth) => {
      if (depth > 8) return;
      for (let i = 0; i < parent.frames.length; i++) {
        try {
          const frame = parent.frames[i];
          if (frame.location.origin !== location.origin) continue;
          const api = /** @type {FrameApi | undefined} */ (/** @type {any} */ (frame)[FRAME_KEY]);
          if (api) {
            for (const entry of api.entries()) {
              if (!all.has(entry.name)) all.set(entry.name, { entry, win: frame, origin: location.origin, api });
            }
          }
          walk(frame, depth + 1);
        } catch {
          // A cross-origin frame: its tools are not ours to list (no exposedTo support here).
        }
      }
    };
    walk(window, 0);
    pruneFrames();
    for (const frame of crossFrames.values()) {
      if (frame.win.closed) continue;
      for (const entry of frame.entries) {
        if (!all.has(entry.name)) all.set(entry.name, { entry, win: frame.win, origin: frame.origin, api: null, frame });
      }
    }
    return all;
  }

  /** Tell a same-origin parent that this document's tools changed (it fires its own toolchange). */
  function notifyParent() {
    try {
      if (window.parent === window) return;
      /** @type {FrameApi | undefined} */ (/** @type {any} */ (window.parent)[FRAME_KEY])?.childChanged();
    } catch {
      // A cross-origin parent cannot see our tools anyway.
    }
  }

  /**
   * The JSON text of a tool's inputSchema; a declarative tool's is synthesised from its form now.
   * @param {Entry} entry
   * @returns {string | undefined}
   */
  function schemaTextOf(entry) {
    return entry.form ? stringify(formSchema(entry.form)) : entry.schemaText;
  }

  /**
   * @param {Entry} entry
   * @returns {object | undefined} a fresh object, as getTools() returns in Chromium ≥ 154
   */
  function schemaOf(entry) {
    const text = schemaTextOf(entry);
    return text === undefined ? undefined : parse(text);
  }

  /** @param {string} name @param {string} message */
  const domError = (name, message) => new DOMExceptionCtor(message, name);

  /** @param {string} type @param {string} [toolName] */
  function fire(type, toolName) {
    const event = new EventCtor(type);
    if (toolName !== undefined) defineProperty(event, "toolName", { value: toolName, enumerable: true });
    dispatch.call(context, event);
  }

  let postPending = false;
  let lastPost = 0;
  /**
   * A registry change: toolchange (a task, as in Chromium) and a post to the bridge, throttled:
   * the first change of a quiet period is posted in the next task, later ones at most every
   * POST_THROTTLE_MS (the last change is always posted).
   */
  function changed() {
    notifyParent();
    return new Promise((resolve) => {
      setTimer(() => {
        fire("toolchange");
        resolve(undefined);
      }, 0);
      if (!postPending) {
        postPending = true;
        setTimer(() => {
          postPending = false;
          lastPost = performance.now();
          postTools();
          postToTop();
        }, Math.max(0, lastPost + POST_THROTTLE_MS - performance.now()));
      }
    });
  }

  function postTools() {
    const visible = visibleTools();
    const names = [...visible.keys()].sort();
    const tools = names.slice(0, MAX_POSTED_TOOLS).map((name) => {
      const { entry, origin } = /** @type {Visible} */ (visible.get(name));
      return {
        name: entry.name,
        title: entry.title,
        description: entry.description,
        inputSchema: schemaTextOf(entry),
        annotations: entry.annotations,
        ...(origin === location.origin ? {} : { origin }),
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
    /** @type {string[]} */
    const exposedTo = [];
    if (options.exposedTo !== undefined && options.exposedTo !== null) {
      for (const value of /** @type {Iterable<unknown>} */ (options.exposedTo)) {
        const origin = trustworthyOrigin(value);
        if (origin === null) throw domError("SecurityError", "Only secure origins are allowed in the exposedTo list.");
        if (origin !== location.origin && !exposedTo.includes(origin)) exposedTo.push(origin);
      }
    }
    return {
      exposedTo,
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
   * The text of what a tool threw. Reading it runs page code (a getter, a Proxy's trap, a missing
   * toString on `Object.create(null)`) that may throw in turn: then the call still answers at once,
   * with NOT_AN_ERROR, instead of waiting for its deadline.
   * @param {unknown} error
   * @returns {string}
   */
  function thrownText(error) {
    try {
      const message = error && typeof error === "object" && "message" in error ? String(error.message) : String(error);
      return message || "The tool failed.";
    } catch {
      return NOT_AN_ERROR;
    }
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
      return { ok: false, error: thrownText(error) };
    }
    if (typeof value === "string") return { ok: true, text: value };
    if (value === null && entry.form) return { ok: true, text: null }; // the form navigated
    try {
      const text = stringify(value);
      return { ok: true, text: text === undefined ? "undefined" : text };
    } catch (error) {
      return { ok: false, error: `The tool's result is not JSON-serialisable (${error instanceof Error ? error.message : "unknown"}).` };
    }
  }

  /**
   * Run a tool this document can see: its own, or a same-origin frame's (run in that frame).
   * @param {string} name
   * @param {unknown} input
   * @param {AbortSignal} signal
   */
  function runVisible(name, input, signal) {
    const found = visibleTools().get(name);
    if (found?.api) return found.api.run(name, input, signal);
    if (found?.frame) return runInFrame(found.frame, name, input, signal);
    return run(name, input, signal);
  }

  /** @type {FrameApi} */
  const frameApi = {
    entries: () => [...registry.values()],
    allowed: () => policy.state === "allowed",
    policy: /** @type {any} */ (null),
    run: (name, input, signal) => run(name, input, signal),
    childChanged: () => {
      void changed(); // a child's registration fires toolchange here too, then further up
    },
  };
  defineProperty(window, FRAME_KEY, { value: frameApi });
  addListener.call(window, "pagehide", () => {
    if (registry.size > 0) notifyParent();
  });

  // ---- Permissions Policy "tools" and cross-origin frames (webmcp.md §1.3, §1.7) -------------
  //
  // Chromium without WebMCP does not know the feature (measured on 156: "tools" is not in
  // document.featurePolicy.features(), and allowsFeature("tools") is false even in the top
  // document), so a frame cannot read its own policy. Its parent can: it sees the <iframe>'s
  // allow attribute. A same-origin parent is read directly (frameElement); a cross-origin parent
  // answers a "policy?" question over postMessage, and only the real parent's answer counts.
  // A cross-origin frame posts the tools it exposed to origin O to the top window with
  // targetOrigin O, so the browser delivers them only while the top document is O; the top checks
  // the frame's <iframe> element itself before listing them, and runs them by posting "call".

  const X_CHANNEL = "webctx.webmcp.frames";
  /** How long a frame waits for its cross-origin parent's policy answer before refusing, in ms. */
  const POLICY_TIMEOUT_MS = 2000;
  // Gecko (Firefox) does not origin-key agent clusters: window.originAgentCluster is false on
  // every page, so Chromium's rule would refuse them all. There the polyfill refuses once this
  // document has set document.domain, the relaxation the rule exists for (docs/internals/extension.md).
  const gecko = typeof (/** @type {{mozInnerScreenX?: unknown}} */ (/** @type {unknown} */ (window))).mozInnerScreenX === "number";
  let domainSet = false;
  if (gecko) watchDomainSetter();
  const originKeyed = () => (gecko ? !domainSet : window.originAgentCluster !== false) || location.protocol === "file:";

  /** Note when this document sets document.domain (Gecko; installed before any page script runs). */
  function watchDomainSetter() {
    const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, "domain");
    const setter = descriptor?.set;
    if (!descriptor || !setter) return;
    const apply = Reflect.apply;
    defineProperty(Document.prototype, "domain", {
      ...descriptor,
      /** @this {Document} @param {string} value */
      set(value) {
        apply(setter, this, [value]);
        if (this === document) domainSet = true;
      },
    });
  }
  const topWindow = /** @type {Window} */ (window.top);
  const setEvery = window.setInterval.bind(window);
  const stopEvery = window.clearInterval.bind(window);

  /**
   * The serialised origin of a potentially trustworthy URL, else null (webmcp.md §1.3 step 8;
   * Chromium 156 accepts https, wss, localhost, *.localhost, 127.0.0.0/8 and [::1], and refuses
   * unparsable text, http elsewhere and opaque origins such as data:).
   * @param {unknown} value
   * @returns {string | null}
   */
  function trustworthyOrigin(value) {
    let url;
    try {
      url = new URLCtor(String(value));
    } catch {
      return null;
    }
    if (url.origin === "null") return null;
    if (url.protocol === "https:" || url.protocol === "wss:") return url.origin;
    const host = url.hostname;
    const loopback = host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
    return loopback ? url.origin : null;
  }

  /**
   * Whether a frame element's `allow` attribute lets `frameOrigin` use "tools" inside a document
   * of `ownerOrigin` (Permissions Policy: the default allowlist is 'self'; `allow="tools"` means
   * 'src'). The Permissions-Policy header is out of a script's reach, so it is not applied.
   * @param {Element} element
   * @param {string} frameOrigin
   * @param {string} ownerOrigin
   * @returns {boolean}
   */
  function allowPermits(element, frameOrigin, ownerOrigin) {
    /** @type {string[] | null} */
    let list = null;
    for (const directive of (element.getAttribute("allow") ?? "").split(";")) {
      const [feature, ...values] = directive.trim().split(/\s+/);
      if (feature === "tools") {
        list = values;
        break;
      }
    }
    if (list === null) return frameOrigin === ownerOrigin;
    if (list.length === 0) list = ["'src'"];
    for (const token of list) {
      if (token === "*") return true;
      if (token === "'self'" && frameOrigin === ownerOrigin) return true;
      if (token === "'src'") {
        const src = element.getAttribute("src");
        let srcOrigin = ownerOrigin;
        if (src && !element.hasAttribute("srcdoc")) {
          try {
            srcOrigin = new URLCtor(src, element.ownerDocument.baseURI).origin;
          } catch {
            srcOrigin = "";
          }
        }
        if (srcOrigin === frameOrigin) return true;
        continue;
      }
      try {
        if (new URLCtor(token).origin === frameOrigin) return true;
      } catch {
        // not an origin: matches nothing
      }
    }
    return false;
  }

  /**
   * The frame element showing `win`, in this document or (with `deep`) in a same-origin
   * descendant document, with the policy of the document holding it.
   * @param {Window} win
   * @param {boolean} deep
   * @returns {{element: Element, ownerAllowed: boolean} | null}
   */
  function frameElementOf(win, deep) {
    /**
     * @param {Document} doc @param {boolean} ownerAllowed @param {number} depth
     * @returns {{element: Element, ownerAllowed: boolean} | null}
     */
    const search = (doc, ownerAllowed, depth) => {
      const elements = Array.from(doc.querySelectorAll("iframe, frame"));
      for (const element of elements) {
        if (/** @type {HTMLIFrameElement} */ (element).contentWindow === win) return { element, ownerAllowed };
      }
      if (!deep || depth >= 8) return null;
      for (const element of elements) {
        try {
          const inner = /** @type {HTMLIFrameElement} */ (element).contentWindow;
          const api = /** @type {FrameApi | undefined} */ (/** @type {any} */ (inner)?.[FRAME_KEY]);
          const doc2 = /** @type {HTMLIFrameElement} */ (element).contentDocument;
          if (!doc2 || !api) continue;
          const found = search(doc2, api.allowed(), depth + 1);
          if (found) return found;
        } catch {
          // a cross-origin frame: its frames are its own business
        }
      }
      return null;
    };
    return search(document, policy.state === "allowed", 0);
  }

  /** This document's "tools" policy: known at once in the top and under a same-origin parent. */
  const policy = {
    /** @type {"allowed" | "denied" | "pending"} */
    state: "pending",
    /** @type {Promise<void>} */
    ready: Promise.resolve(),
  };
  policy.ready = new Promise((resolve) => {
    /** @param {boolean} allowed */
    const settle = (allowed) => {
      if (policy.state !== "pending") return;
      policy.state = allowed ? "allowed" : "denied";
      resolve();
    };
    if (window.parent === window) return settle(true);
    /** @type {Element | null} */
    let owner = null;
    try {
      owner = window.frameElement;
    } catch {
      owner = null;
    }
    if (owner) {
      const parentApi = /** @type {FrameApi | undefined} */ (/** @type {any} */ (window.parent)[FRAME_KEY]);
      const here = allowPermits(owner, location.origin, window.parent.location.origin);
      const parentPolicy = parentApi?.policy;
      if (!parentPolicy || parentPolicy.state !== "pending") return settle(here && parentPolicy?.state !== "denied");
      void parentPolicy.ready.then(() => settle(here && parentPolicy.state === "allowed"));
      return;
    }
    addListener.call(window, "message", (/** @type {Event} */ raw) => {
      const event = /** @type {MessageEvent} */ (raw);
      const data = event.data;
      if (event.source !== window.parent || typeof data !== "object" || data === null) return;
      if (data.channel === X_CHANNEL && data.kind === "policy") settle(data.allowed === true);
    });
    window.parent.postMessage({ channel: X_CHANNEL, kind: "policy?" }, "*");
    setTimer(() => settle(false), POLICY_TIMEOUT_MS);
  });

  /** The error registerTool/getTools reject with in this document, if any (webmcp.md §1.3 steps 2, 3). */
  function policyError() {
    if (!originKeyed()) return domError("SecurityError", "document.modelContext cannot be used when document.domain is enabled.");
    if (policy.state === "denied") return domError("NotAllowedError", 'Access to the feature "tools" is disallowed by permissions policy.');
    return null;
  }

  /**
   * A cross-origin frame's tools as the top document knows them.
   * @typedef {object} CrossFrame
   * @property {Window} win
   * @property {string} origin
   * @property {Entry[]} entries
   * @property {Map<string, (reply: {ok: true, text: string | null} | {ok: false, error: string}) => void>} calls
   */
  /** @type {Map<Window, CrossFrame>} */
  const crossFrames = new Map();
  const PAGE_GONE = "Page gone: the frame that offers this tool navigated or was removed during the call.";

  /**
   * Forget a frame's tools (it navigated, or its element left); its calls end as "page gone".
   * @param {Window} win
   * @returns {boolean} whether it had tools
   */
  function dropFrame(win) {
    const frame = crossFrames.get(win);
    if (!frame) return false;
    crossFrames.delete(win);
    for (const settle of [...frame.calls.values()]) settle({ ok: false, error: PAGE_GONE });
    return frame.entries.length > 0;
  }

  /** Drop frames whose element has gone (a removed iframe's window is closed). */
  function pruneFrames() {
    for (const win of [...crossFrames.keys()]) if (win.closed) dropFrame(win);
  }

  /**
   * Tools a cross-origin frame posted (page input: shape and size checked like the bridge does).
   * @param {unknown[]} list
   * @returns {Entry[]}
   */
  function frameEntries(list) {
    /** @type {Entry[]} */
    const entries = [];
    const seen = new Set();
    for (const raw of list.slice(0, MAX_POSTED_TOOLS)) {
      if (typeof raw !== "object" || raw === null) continue;
      const t = /** @type {Record<string, unknown>} */ (raw);
      if (typeof t.name !== "string" || !NAME_PATTERN.test(t.name) || seen.has(t.name)) continue;
      if (typeof t.description !== "string" || !t.description) continue;
      seen.add(t.name);
      entries.push({
        name: t.name,
        title: typeof t.title === "string" ? t.title : "",
        description: t.description,
        schemaText: typeof t.inputSchema === "string" ? t.inputSchema : undefined,
        execute: () => undefined, // runs in its frame (runInFrame)
        annotations: annotationsOf(t.annotations),
      });
    }
    return entries;
  }

  let frameCallCount = 0;
  /**
   * Run a cross-origin frame's tool there: "call" to the frame, "result" back to the top.
   * @param {CrossFrame} frame
   * @param {string} name
   * @param {unknown} input
   * @param {AbortSignal} signal
   * @returns {Promise<{ok: true, text: string | null} | {ok: false, error: string}>}
   */
  function runInFrame(frame, name, input, signal) {
    return new Promise((resolve) => {
      const callId = `x${++frameCallCount}`;
      /** @type {ReturnType<typeof setInterval> | undefined} */
      let watch;
      /** @param {{ok: true, text: string | null} | {ok: false, error: string}} reply */
      const settle = (reply) => {
        if (!frame.calls.delete(callId)) return;
        stopEvery(watch);
        resolve(reply);
      };
      let payload;
      try {
        payload = parse(stringify(input ?? {}));
      } catch {
        resolve({ ok: false, error: "The input is not JSON-serialisable." });
        return;
      }
      frame.calls.set(callId, settle);
      watch = setEvery(() => {
        if (frame.win.closed) settle({ ok: false, error: PAGE_GONE });
      }, 200);
      addListener.call(signal, "abort", () => {
        if (!frame.calls.has(callId)) return;
        frame.win.postMessage({ channel: X_CHANNEL, kind: "cancel", callId }, frame.origin);
        settle({ ok: false, error: "The call was cancelled." });
      }, { once: true });
      frame.win.postMessage({ channel: X_CHANNEL, kind: "call", callId, name, input: payload }, frame.origin);
    });
  }

  const topIsCrossOrigin = (() => {
    if (topWindow === window) return false;
    try {
      return topWindow.location.origin !== location.origin;
    } catch {
      return true;
    }
  })();
  /** Origins this frame posted tools to, so a tool leaving is posted too. @type {Set<string>} */
  let postedTo = new Set();

  /** A cross-origin frame: post to the top, per origin, the tools exposed to that origin. */
  function postToTop() {
    if (!topIsCrossOrigin || policy.state !== "allowed") return;
    /** @type {Map<string, object[]>} */
    const byOrigin = new Map();
    for (const entry of registry.values()) {
      for (const origin of entry.exposedTo ?? []) {
        const list = byOrigin.get(origin) ?? [];
        list.push({
          name: entry.name,
          title: entry.title,
          description: entry.description,
          inputSchema: schemaTextOf(entry),
          annotations: entry.annotations,
        });
        byOrigin.set(origin, list);
      }
    }
    for (const origin of new Set([...postedTo, ...byOrigin.keys()])) {
      topWindow.postMessage({ channel: X_CHANNEL, kind: "tools", tools: byOrigin.get(origin) ?? [] }, origin);
    }
    postedTo = new Set(byOrigin.keys());
  }

  /** Calls the top document runs in this frame, by callId. @type {Map<string, {controller: AbortController, name: string}>} */
  const frameCalls = new Map();

  addListener.call(window, "message", (/** @type {Event} */ raw) => {
    const event = /** @type {MessageEvent} */ (raw);
    const data = event.data;
    const source = /** @type {Window | null} */ (event.source);
    if (typeof data !== "object" || data === null || data.channel !== X_CHANNEL || !source || source === window) return;
    const kind = data.kind;
    if (kind === "policy?") {
      // A child frame asks whether it may use "tools": only its own <iframe> here can say yes.
      const found = frameElementOf(source, false);
      void policy.ready.then(() => {
        const allowed = policy.state === "allowed" && found !== null && allowPermits(found.element, event.origin, location.origin);
        source.postMessage({ channel: X_CHANNEL, kind: "policy", allowed }, event.origin === "null" ? "*" : event.origin);
      });
    } else if (kind === "call" && source === topWindow && typeof data.callId === "string" && typeof data.name === "string") {
      const entry = registry.get(data.name);
      const callId = data.callId;
      const reply = (/** @type {object} */ body) => topWindow.postMessage({ channel: X_CHANNEL, kind: "result", callId, ...body }, event.origin);
      if (!entry || !(entry.exposedTo ?? []).includes(event.origin) || frameCalls.has(callId)) {
        reply({ ok: false, error: `The frame has no tool named ${data.name} exposed to ${event.origin}.` });
        return;
      }
      const controller = new AbortControllerCtor();
      frameCalls.set(callId, { controller, name: data.name });
      void run(data.name, data.input, controller.signal).then((result) => {
        frameCalls.delete(callId);
        if (!controller.signal.aborted) reply(result);
      });
    } else if (kind === "cancel" && source === topWindow && typeof data.callId === "string") {
      const call = frameCalls.get(data.callId);
      if (!call) return;
      frameCalls.delete(data.callId);
      call.controller.abort(domError("AbortError", "The tool call was cancelled."));
      fire("toolcancel", call.name);
    } else if (window === topWindow && kind === "reset") {
      if (dropFrame(source)) void changed();
    } else if (window === topWindow && kind === "tools" && Array.isArray(data.tools) && event.origin !== location.origin) {
      const found = frameElementOf(source, true);
      if (!found || !found.ownerAllowed || !allowPermits(found.element, event.origin, location.origin)) return;
      const before = crossFrames.get(source);
      const entries = frameEntries(data.tools);
      if (!before && entries.length === 0) return;
      crossFrames.set(source, { win: source, origin: event.origin, entries, calls: before?.calls ?? new Map() });
      void changed();
    } else if (window === topWindow && kind === "result" && typeof data.callId === "string") {
      const settle = crossFrames.get(source)?.calls.get(data.callId);
      if (!settle) return;
      if (data.ok === true && (data.text === null || typeof data.text === "string")) settle({ ok: true, text: data.text });
      else settle({ ok: false, error: typeof data.error === "string" ? data.error.slice(0, 2000) : "The tool failed." });
    }
  });
  // A new document in a frame: whatever the frame's previous document offered the top is gone.
  if (topWindow !== window) topWindow.postMessage({ channel: X_CHANNEL, kind: "reset" }, "*");
  frameApi.policy = policy;

  class ModelContext extends EventTarget {
    /**
     * @param {unknown} tool
     * @param {{signal?: AbortSignal, exposedTo?: unknown}} [options]
     * @returns {Promise<undefined>}
     */
    registerTool(tool, options = {}) {
      const refused = policyError();
      if (refused) return Promise.reject(refused);
      if (policy.state === "pending") return policy.ready.then(() => this.registerTool(tool, options));
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

    /**
     * Tools of this document and its same-origin frames, plus those of cross-origin frames whose
     * origin is in `fromOrigins` and that exposed them to this origin (webmcp.md §1.4, §1.7).
     * @param {{fromOrigins?: unknown}} [options]
     * @returns {Promise<object[]>}
     */
    getTools(options = {}) {
      const refused = policyError();
      if (refused) return Promise.reject(refused);
      /** @type {Set<string>} */
      const from = new Set();
      const fromOrigins = options?.fromOrigins;
      if (fromOrigins !== undefined && fromOrigins !== null) {
        for (const value of /** @type {Iterable<unknown>} */ (fromOrigins)) {
          const origin = trustworthyOrigin(value);
          if (origin === null) {
            return Promise.reject(domError("SecurityError", "Only secure origins are allowed in the fromOrigins list."));
          }
          from.add(origin);
        }
      }
      if (policy.state === "pending") return policy.ready.then(() => this.getTools(options));
      const visible = visibleTools();
      const names = [...visible.keys()].filter((name) => {
        const origin = /** @type {{origin: string}} */ (visible.get(name)).origin;
        return origin === location.origin || from.has(origin);
      });
      names.sort();
      return Promise.resolve(
        names.map((name) => {
          const { entry, win, origin } = /** @type {Visible} */ (visible.get(name));
          return {
            name,
            title: entry.title,
            description: entry.description,
            inputSchema: schemaOf(entry),
            window: win,
            origin,
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
      const refused = policyError();
      if (refused) return Promise.reject(refused);
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
        let settled = false;
        if (outer) {
          addListener.call(outer, "abort", () => {
            if (settled) return; // a late abort cancels nothing
            settled = true;
            controller.abort(domError("AbortError", "The tool call was cancelled."));
            fire("toolcancel", name);
            reject(outer.reason);
          }, { once: true });
        }
        if (!visibleTools().has(name)) return reject(domError("UnknownError", "Tool not found."));
        runVisible(name, input, controller.signal).then((reply) => {
          if (settled) return; // cancelled: a late result is ignored (webmcp.md §1.5)
          settled = true;
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

  // ---- declarative forms (webmcp.md §2, as Chromium 156 behaves) -------------------------------
  //
  // <form toolname tooldescription [toolautosubmit]> is a tool while both attributes are set and
  // the form is in the document. Invoking it fills the controls; with toolautosubmit the form is
  // submitted (SubmitEvent.agentInvoked, respondWith(promise) gives the result), without it the
  // call waits for the user's submit. reset() cancels the call.

  const SKIPPED_TYPES = new Set(["hidden", "file", "button", "submit", "reset", "image"]);
  /** @type {Map<HTMLFormElement, Entry>} */
  const formEntries = new Map();
  /**
   * Calls waiting on a form's submit.
   * @type {Map<HTMLFormElement, {resolve: (value: unknown) => void, reject: (error: unknown) => void, responded: boolean}>}
   */
  const pendingForms = new Map();

  /**
   * The description of a control: toolparamdescription, else its <label>'s text, else aria-description.
   * @param {Element} control
   * @returns {string | undefined}
   */
  function controlDescription(control) {
    const own = control.getAttribute("toolparamdescription");
    if (own) return own;
    const labels = /** @type {HTMLInputElement} */ (control).labels;
    if (labels && labels.length > 0) {
      const text = labels[0].textContent?.trim();
      if (text) return text;
    }
    return control.getAttribute("aria-description") || undefined;
  }

  /**
   * The controls that become parameters, grouped by name, in document order.
   * @param {HTMLFormElement} form
   * @returns {Map<string, HTMLElement[]>}
   */
  function formControls(form) {
    /** @type {Map<string, HTMLElement[]>} */
    const byName = new Map();
    for (const control of Array.from(form.elements)) {
      if (!(control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement || control instanceof HTMLSelectElement)) continue;
      if (!control.name || control.disabled) continue;
      if (control instanceof HTMLInputElement && (SKIPPED_TYPES.has(control.type) || control.readOnly)) continue;
      if (control instanceof HTMLTextAreaElement && control.readOnly) continue;
      const group = byName.get(control.name) ?? [];
      group.push(control);
      byName.set(control.name, group);
    }
    return byName;
  }

  /**
   * The input schema of a declarative tool, synthesised from its form's controls (webmcp.md §2).
   * @param {HTMLFormElement} form
   * @returns {{type: "object", properties: Record<string, object>, required?: string[]}}
   */
  function formSchema(form) {
    /** @type {Record<string, object>} */
    const properties = {};
    /** @type {string[]} */
    const required = [];
    for (const [name, group] of formControls(form)) {
      const first = /** @type {HTMLInputElement} */ (group[0]);
      /** @type {Record<string, unknown>} */
      let property;
      if (first instanceof HTMLSelectElement) {
        const options = Array.from(first.options).filter((o) => !o.disabled);
        const choice = {
          type: "string",
          enum: options.map((o) => o.value),
          anyOf: options.map((o) => ({ type: "string", const: o.value, title: o.text })),
        };
        property = first.multiple ? { type: "array", items: choice, uniqueItems: true } : choice;
      } else if (first.type === "checkbox") {
        const values = group.map((c) => /** @type {HTMLInputElement} */ (c).value);
        const items = { type: "string", enum: values, anyOf: values.map((value) => ({ type: "string", const: value })) };
        property = group.length > 1 ? { type: "array", items, uniqueItems: true } : { type: "boolean" };
      } else if (first.type === "radio") {
        const values = group.map((c) => /** @type {HTMLInputElement} */ (c).value);
        property = { type: "string", enum: values, anyOf: values.map((value) => ({ type: "string", const: value })) };
      } else if (first.type === "number" || first.type === "range") {
        property = { type: "number" };
        if (first.min !== "") property.minimum = Number(first.min);
        if (first.max !== "") property.maximum = Number(first.max);
        const step = first.step || "1";
        if (step !== "any" && Number(step) > 0) property.multipleOf = Number(step);
      } else if (first.type === "date") {
        property = { type: "string", format: "date", description: "Dates MUST be provided in 'YYYY-MM-DD' format." };
      } else {
        property = { type: "string" };
        if (first instanceof HTMLInputElement && first.pattern) property.pattern = first.pattern;
      }
      const description = controlDescription(first);
      if (description && property.description === undefined) property.description = description;
      properties[name] = property;
      if (group.some((c) => /** @type {HTMLInputElement} */ (c).required)) required.push(name);
    }
    return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
  }

  /**
   * Fill the form's controls from `input` (unknown keys are ignored), firing input and change.
   * @param {HTMLFormElement} form
   * @param {Record<string, unknown>} input
   */
  function fillForm(form, input) {
    for (const [name, group] of formControls(form)) {
      if (!(name in input)) continue;
      const value = input[name];
      for (const element of group) {
        const control = /** @type {HTMLInputElement} */ (element);
        if (control instanceof HTMLSelectElement) {
          const wanted = Array.isArray(value) ? value.map(String) : [String(value)];
          for (const option of Array.from(control.options)) option.selected = wanted.includes(option.value);
        } else if (control.type === "checkbox") {
          control.checked = Array.isArray(value) ? value.map(String).includes(control.value) : Boolean(value);
        } else if (control.type === "radio") {
          control.checked = control.value === String(value);
        } else {
          control.value = value === null || value === undefined ? "" : String(value);
        }
        control.dispatchEvent(new EventCtor("input", { bubbles: true }));
        control.dispatchEvent(new EventCtor("change", { bubbles: true }));
      }
    }
  }

  /**
   * Run a declarative tool: fill, then submit (toolautosubmit) or wait for the user's submit.
   * @param {HTMLFormElement} form
   * @param {Record<string, unknown>} input
   * @param {AbortSignal} signal
   * @returns {Promise<unknown>} the value given to respondWith (null when the form navigates)
   */
  function invokeForm(form, input, signal) {
    pendingForms.get(form)?.reject(domError("UnknownError", "Another call to this form started."));
    return new Promise((resolve, reject) => {
      pendingForms.set(form, { resolve, reject, responded: false });
      addListener.call(signal, "abort", () => {
        if (pendingForms.get(form)?.reject === reject) pendingForms.delete(form);
        reject(signal.reason);
      }, { once: true });
      fillForm(form, input);
      if (form.hasAttribute("toolautosubmit")) form.requestSubmit();
    });
  }

  // Capture at the window, before page listeners: mark the agent's submit, offer respondWith.
  addListener.call(window, "submit", (/** @type {Event} */ event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const pending = pendingForms.get(form);
    if (!pending) return;
    defineProperty(event, "agentInvoked", { value: true, configurable: true });
    defineProperty(event, "respondWith", {
      configurable: true,
      value: (/** @type {unknown} */ promise) => {
        pending.responded = true;
        pendingForms.delete(form);
        Promise.resolve(promise).then(pending.resolve, pending.reject);
      },
    });
    // After every listener ran: no respondWith and no preventDefault → the form navigates.
    setTimer(() => {
      if (pending.responded || pendingForms.get(form) !== pending) return;
      pendingForms.delete(form);
      pending.resolve(event.defaultPrevented ? undefined : null);
    }, 0);
  }, true);

  addListener.call(window, "reset", (/** @type {Event} */ event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const pending = pendingForms.get(form);
    if (!pending) return;
    pendingForms.delete(form);
    pending.reject(domError("UnknownError", "Tool execution cancelled by a form reset"));
  }, true);

  /** Register, update or drop the tools of declarative forms after DOM changes. */
  function syncForms() {
    let changedAny = false;
    for (const [form, entry] of formEntries) {
      const keep =
        form.isConnected &&
        form.getAttribute("toolname") === entry.name &&
        form.getAttribute("tooldescription") === entry.description;
      if (keep) continue;
      formEntries.delete(form);
      if (registry.get(entry.name) === entry) registry.delete(entry.name);
      pendingForms.get(form)?.reject(domError("UnknownError", "The form's tool was removed."));
      pendingForms.delete(form);
      changedAny = true;
    }
    for (const form of Array.from(document.querySelectorAll("form[toolname][tooldescription]"))) {
      const f = /** @type {HTMLFormElement} */ (form);
      if (formEntries.has(f)) continue;
      const name = f.getAttribute("toolname") ?? "";
      const description = f.getAttribute("tooldescription") ?? "";
      if (!NAME_PATTERN.test(name) || !description || registry.has(name)) continue;
      /** @type {Entry} */
      const entry = {
        name,
        title: "",
        description,
        schemaText: undefined,
        execute: (input, { signal }) => invokeForm(f, /** @type {Record<string, unknown>} */ (input), signal),
        annotations: undefined,
        form: f,
      };
      formEntries.set(f, entry);
      registry.set(name, entry);
      changedAny = true;
    }
    if (changedAny) void changed();
  }

  // When to look: a document-wide childList/subtree observer installed at
  // document_start makes the parser queue a record for every node it inserts, and Chromium walks
  // each node's ancestors for registered observers: on a 200,000-element page that alone doubled
  // the time to DOMContentLoaded. So nothing observes the document while it is parsed: the forms
  // are read once at DOMContentLoaded, and from then on the observer catches forms added, removed
  // or renamed by script. Chromium 156's own WebMCP does the same as far as a page can tell: a page
  // script running during the parse gets no declarative tool from getTools(), even for a form
  // parsed above it (tests/e2e/test_page_tools_exposure.py, both modes). A page without forms
  // pays one `forms.length` per batch of mutations after DOMContentLoaded.
  let syncQueued = false;
  let watching = false;
  const forms = document.forms; // live
  const observer = new MutationObserver(() => {
    if (syncQueued || (forms.length === 0 && formEntries.size === 0)) return;
    syncQueued = true;
    setTimer(() => {
      syncQueued = false;
      syncForms();
    }, 0);
  });

  /** From DOMContentLoaded (or at once in a document already parsed): observe, and read once. */
  function watchForms() {
    if (watching) return;
    watching = true;
    observer.observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["toolname", "tooldescription"],
    });
    syncForms();
  }
  if (document.readyState === "loading") {
    // On the window, capturing, added before any page script: no page listener can stop it.
    addListener.call(window, "DOMContentLoaded", watchForms, { capture: true, once: true });
  } else {
    watchForms();
  }

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
      // Never without an answer: a failure past run()'s own catch (page code in a frame) is one too.
      runVisible(data.name, data.input, controller.signal).catch(() => ({ ok: false, error: NOT_AN_ERROR })).then((reply) => {
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
