// webctx content script, part 3 (see namespace.js for the map): the page's WebMCP tools (design.md §5).
//
//   native WebMCP (document.modelContext visible here, Chromium --enable-features=WebMCP):
//     toolchange ──► getTools() ──► tools.report ──► worker
//     tools.run ──► executeTool(tool, input, {signal}) ──► {ok, text} | {ok:false, error}
//     (a rejection's generic UnknownError gives way to the page's own text: webmcp_errors.js)
//   polyfill (no native API; main_world/polyfill.js owns document.modelContext in the main world):
//     window.postMessage channel "webctx.webmcp": to-ext {kind: "tools" | "result"} is page input:
//     only event.source === window, checked shape and size; to-page {kind: "hello" | "call" | "cancel"}
//   worker ⇄ here: tools.report by runtime.sendMessage; tools.run / tools.abort come on the page
//     channel (page_port.js answers them by type here); once the page has tools it opens its own
//     port (ns.channel.open()), which also carries tools.visibility up.
//
// Top frame only: the native getTools() already lists same-origin iframe tools, and a frame must
// not speak for its parent. What the page sends here can only describe and answer its own tools.

(function webctxWebmcpBridge() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || !ns.channel || ns.webmcp || window !== window.top) return;
  const channel = ns.channel;

  const CHANNEL = "webctx.webmcp";
  /** Coalesce toolchange floods: at most one refresh per this many ms (trailing edge kept). */
  const REFRESH_THROTTLE_MS = 25;
  /** After a cross-origin frame with tools left, wait this long before calling getTools (frameRemoved). */
  const FRAME_SETTLE_MS = 1000;
  /** The values the native host shares (content/wire.js, generated; loaded before this). */
  const wire = /** @type {typeof import("../wire.js")} */ (/** @type {any} */ (globalThis).webctxWire);
  /** Pre-caps, so a hostile page never pushes megabytes through the extension's channel. */
  const MAX_TOOLS = wire.MAX_TOOLS_PER_PAGE;
  const MAX_DESCRIPTION_CHARS = wire.MAX_TOOL_DESCRIPTION_CHARS;
  const MAX_SCHEMA_CHARS = wire.MAX_TOOL_SCHEMA_CHARS;
  /** All schemas of one report together; later tools' schemas over the budget are dropped. */
  const MAX_REPORT_SCHEMA_CHARS = wire.MAX_PAGE_SCHEMA_CHARS;
  /** A result's text, as a JSON string in UTF-8 (what crosses the ports and the native pipe), is
   * at most this many bytes: the browser's 64 MiB per message, with room for the envelope. A larger
   * one is an error at once, naming the limit; posted, it would be dropped and the call would wait
   * for its deadline. The same cap in the worker: service_worker/page_tools.js MAX_RESULT_BYTES. */
  const MAX_RESULT_BYTES = wire.MAX_TOOL_RESULT_BYTES;
  const TOO_LARGE = wire.TOOL_RESULT_TOO_LARGE;
  /** @type {{jsonTextOver: (text: string, maxBytes: number) => boolean} | undefined} */
  const utf8 = /** @type {any} */ (globalThis).webctxUtf8; // content/utf8_cap.js, loaded before this
  /** @param {string} text */
  const tooLarge = (text) => (utf8 ? utf8.jsonTextOver(text, MAX_RESULT_BYTES) : text.length * 3 > MAX_RESULT_BYTES);
  const MAX_ERROR_CHARS = 2000;
  const NAME_PATTERN = wire.WEBMCP_TOOL_NAME_PATTERN;

  /**
   * A tool as sent to the worker (service_worker/page_tools.js `parseToolReport` checks it again).
   * @typedef {{name: string, description: string, title?: string, inputSchema?: string,
   *   annotations?: Record<string, boolean>, origin?: string}} ToolSummary
   */
  /** @typedef {{ok: true, text: string | null} | {ok: false, error: string}} RunReply */

  /** @type {any} */
  const native = /** @type {any} */ (document).modelContext;
  const isNative =
    native !== undefined &&
    native !== null &&
    typeof native.getTools === "function" &&
    typeof native.executeTool === "function";

  /** Native RegisteredTool handles by name (never serialised: they hold a Window). @type {Map<string, any>} */
  let nativeTools = new Map();
  /** In-flight calls by callId. @type {Map<string, {abort: () => void, settle?: (reply: RunReply) => void}>} */
  const calls = new Map();
  let lastReport = "";
  /** @type {ReturnType<typeof setTimeout> | 0} */
  let timer = 0;
  let lastRefresh = 0;
  /** No getTools() before this time (Date.now() ms): a cross-origin frame with tools just left. */
  let settleUntil = 0;

  /** @param {string} text @param {number} max */
  const cap = (text, max) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

  /**
   * Summaries of up to MAX_TOOLS tools (sorted by name), and how many were left out.
   * @param {unknown[]} list
   * @returns {{tools: ToolSummary[], omitted: number}}
   */
  function summarise(list) {
    /** @type {ToolSummary[]} */
    const tools = [];
    let omitted = 0;
    let schemaBudget = MAX_REPORT_SCHEMA_CHARS;
    const seen = new Set();
    for (const raw of list) {
      if (tools.length >= MAX_TOOLS) {
        omitted += 1;
        continue;
      }
      const tool = /** @type {Record<string, unknown>} */ (raw ?? {});
      const { name, description, title, annotations } = tool;
      if (typeof name !== "string" || !NAME_PATTERN.test(name) || seen.has(name)) {
        omitted += 1;
        continue;
      }
      if (typeof description !== "string" || description.length === 0) {
        omitted += 1;
        continue;
      }
      seen.add(name);
      /** @type {ToolSummary} */
      const summary = { name, description: cap(description, MAX_DESCRIPTION_CHARS) };
      if (typeof title === "string" && title) summary.title = cap(title, wire.MAX_TOOL_TITLE_CHARS);
      const schema = schemaText(tool.inputSchema);
      if (schema !== undefined && schema.length <= schemaBudget) {
        summary.inputSchema = schema;
        schemaBudget -= schema.length;
      }
      if (typeof annotations === "object" && annotations !== null) {
        /** @type {Record<string, boolean>} */
        const kept = {};
        for (const key of ["readOnlyHint", "untrustedContentHint", "consequentialHint"]) {
          const v = /** @type {Record<string, unknown>} */ (annotations)[key];
          if (typeof v === "boolean") kept[key] = v;
        }
        summary.annotations = kept;
      }
      const origin = frameOrigin(tool.origin);
      if (origin) summary.origin = origin;
      tools.push(summary);
    }
    return { tools, omitted };
  }

  /**
   * The schema as JSON text (an object from Chromium ≥ 154, a string before, a string from the polyfill).
   * @param {unknown} schema
   * @returns {string | undefined}
   */
  function schemaText(schema) {
    try {
      const text = typeof schema === "string" ? schema : schema === undefined ? undefined : JSON.stringify(schema);
      return typeof text === "string" && text.length <= MAX_SCHEMA_CHARS ? text : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A tool's origin when it is a cross-origin frame's (webmcp_frames.js).
   * @param {unknown} origin
   * @returns {string | undefined}
   */
  function frameOrigin(origin) {
    return typeof origin === "string" && origin !== location.origin && origin.length <= wire.MAX_ORIGIN_CHARS ? origin : undefined;
  }

  /** @param {{tools: ToolSummary[], omitted: number}} report */
  function sendReport(report) {
    const text = JSON.stringify(report);
    if (text === lastReport) return;
    lastReport = text;
    // The token keys this document where the browser gives no documentId (Firefox).
    ns?.send({ type: "tools.report", tools: report.tools, omitted: report.omitted, token: ns?.token });
    if (report.tools.length > 0) channel.open();
  }

  // ---- native WebMCP --------------------------------------------------------------------------

  async function refreshNative() {
    const settling = settleUntil - Date.now(); // see frameRemoved
    if (settling > 0) {
      setTimeout(scheduleRefresh, settling);
      return;
    }
    /** @type {any[]} */
    let list;
    try {
      const fromOrigins = ns?.webmcpFrames?.origins() ?? [];
      list = await native.getTools(fromOrigins.length > 0 ? { fromOrigins } : undefined);
    } catch {
      list = [];
    }
    if (!Array.isArray(list)) list = [];
    /** @type {Map<string, any>} */
    const byName = new Map();
    // A name may appear more than once (an iframe's tool): the top document's wins, then a
    // same-origin frame's, then a cross-origin frame's.
    /** @param {any} tool */
    const rank = (tool) => (tool.window === window || tool.source === window ? 0 : tool.origin === location.origin ? 1 : 2);
    for (const tool of list) {
      const name = tool?.name;
      if (typeof name !== "string") continue;
      const held = byName.get(name);
      if (!held || rank(tool) < rank(held)) byName.set(name, tool);
    }
    nativeTools = byName;
    const ordered = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    sendReport(summarise(ordered));
  }

  /**
   * @param {string} callId
   * @param {string} name
   * @param {Record<string, unknown>} input
   * @returns {Promise<RunReply>}
   */
  async function runNative(callId, name, input) {
    const tool = nativeTools.get(name);
    if (!tool) return { ok: false, error: `The page has no tool named ${name} any more.` };
    const controller = new AbortController();
    calls.set(callId, { abort: () => controller.abort() });
    try {
      const text = await native.executeTool(tool, input, { signal: controller.signal });
      if (text !== null && typeof text !== "string") return { ok: true, text: String(text) };
      if (typeof text === "string" && tooLarge(text)) return { ok: false, error: TOO_LARGE };
      return { ok: true, text };
    } catch (error) {
      if (controller.signal.aborted) return { ok: false, error: "The call was cancelled." };
      // The text the page's execute threw, where the main world recorded it (webmcp_errors.js).
      const thrown = (await ns?.webmcpErrors?.pageErrorFor(name, input, error)) ?? null;
      return { ok: false, error: thrown === null ? errorText(error) : cap(thrown, MAX_ERROR_CHARS) };
    } finally {
      calls.delete(callId);
    }
  }

  /** @param {unknown} error */
  function errorText(error) {
    if (error && typeof error === "object") {
      const { name, message } = /** @type {{name?: unknown, message?: unknown}} */ (error);
      const text = typeof message === "string" && message ? message : String(error);
      return cap(typeof name === "string" && name !== "Error" ? `${name}: ${text}` : text, MAX_ERROR_CHARS);
    }
    return cap(String(error), MAX_ERROR_CHARS);
  }

  // ---- polyfill channel -----------------------------------------------------------------------

  /** @param {Record<string, unknown>} message */
  function toPage(message) {
    window.postMessage({ channel: CHANNEL, dir: "to-page", ...message }, "*");
  }

  /** @param {MessageEvent} event */
  function onWindowMessage(event) {
    if (event.source !== window) return; // only this window's main world (or its page) speaks here
    const data = event.data;
    if (typeof data !== "object" || data === null || data.channel !== CHANNEL || data.dir !== "to-ext") return;
    if (data.kind === "tools") {
      if (!Array.isArray(data.tools) || data.tools.length > MAX_TOOLS * 2) return;
      const report = summarise(data.tools);
      if (Number.isSafeInteger(data.total) && data.total > data.tools.length) {
        report.omitted += Math.min(data.total, 1e9) - data.tools.length;
      }
      sendReport(report);
      return;
    }
    if (data.kind === "result" && typeof data.callId === "string") {
      const call = calls.get(data.callId);
      if (!call || !call.settle) return;
      if (data.ok === true && (data.text === null || typeof data.text === "string")) {
        if (typeof data.text === "string" && tooLarge(data.text)) {
          call.settle({ ok: false, error: TOO_LARGE });
        } else {
          call.settle({ ok: true, text: data.text });
        }
      } else {
        call.settle({ ok: false, error: typeof data.error === "string" ? cap(data.error, MAX_ERROR_CHARS) : "The tool failed." });
      }
    }
  }

  /**
   * @param {string} callId
   * @param {string} name
   * @param {Record<string, unknown>} input
   * @returns {Promise<RunReply>}
   */
  function runPolyfilled(callId, name, input) {
    return new Promise((resolve) => {
      const settle = (/** @type {RunReply} */ reply) => {
        if (!calls.has(callId)) return;
        calls.delete(callId);
        resolve(reply);
      };
      calls.set(callId, {
        settle,
        abort: () => {
          toPage({ kind: "cancel", callId });
          settle({ ok: false, error: "The call was cancelled." });
        },
      });
      toPage({ kind: "call", callId, name, input });
    });
  }

  // ---- both -----------------------------------------------------------------------------------

  function scheduleRefresh() {
    if (timer) return;
    const wait = Math.max(0, lastRefresh + REFRESH_THROTTLE_MS - Date.now());
    timer = setTimeout(() => {
      timer = 0;
      lastRefresh = Date.now();
      if (isNative) void refreshNative();
      else toPage({ kind: "hello" });
    }, wait);
  }

  /**
   * `tools.run` from the worker (page channel): the call's reply, once it settles.
   * @param {Record<string, unknown>} message
   * @returns {Promise<RunReply> | undefined}
   */
  function run(message) {
    const { callId, name, input } = message;
    if (typeof callId !== "string" || typeof name !== "string") return undefined;
    const args = /** @type {Record<string, unknown>} */ (typeof input === "object" && input !== null ? input : {});
    const running = isNative ? runNative(callId, name, args) : runPolyfilled(callId, name, args);
    return running.catch((error) => ({ ok: false, error: errorText(error) }));
  }

  /**
   * `tools.abort {callId}`: abort the call's signal (the call's own reply says it was cancelled).
   * @param {Record<string, unknown>} message
   */
  function abort(message) {
    const { callId } = message;
    if (typeof callId === "string") calls.get(callId)?.abort();
    return { aborted: true };
  }

  channel.answer("tools.run", run);
  channel.answer("tools.abort", abort);
  // A headed browser hides the page when its window is minimized and shows it on restore: tell
  // the worker (only a page with tools has its own port), which compares the exposed tools again.
  // Only a real change counts: a page dispatching fake visibilitychange events sends nothing.
  let visibility = document.visibilityState;
  const onVisibility = () => {
    if (document.visibilityState === visibility) return;
    visibility = document.visibilityState;
    channel.emit({ type: "tools.visibility" });
  };
  ns.listen(document, "visibilitychange", onVisibility);
  // Leaving the page closes its ports (page_port.js, on pagehide: calls in flight are "page gone");
  // back from the back/forward cache the tools are reported again (the worker forgot them when
  // the tab loaded), which opens this document's port again.
  const onPageShow = (/** @type {PageTransitionEvent} */ event) => {
    if (!event.persisted) return;
    lastReport = "";
    scheduleRefresh();
  };
  ns.listen(window, "pageshow", onPageShow);
  if (isNative) {
    ns.webmcpErrors?.listen();
    native.addEventListener("toolchange", scheduleRefresh);
    ns.onStop(() => native.removeEventListener("toolchange", scheduleRefresh));
  } else {
    ns.listen(window, "message", onWindowMessage);
  }
  /**
   * A frame left the DOM. Chromium 156 (native WebMCP) took the whole browser down in most runs
   * when the isolated world called getTools({fromOrigins}) within ~25 ms of a cross-origin frame
   * with exposed tools being removed (tests/e2e/test_page_tools_xorigin.py). So while cross-origin
   * tools are held, drop those whose window has closed at once, and read the registry again
   * (for whatever reason: toolchange, a frame announcing itself) only after FRAME_SETTLE_MS.
   */
  function frameRemoved() {
    const crossHeld = isNative && [...nativeTools.values()].some((tool) => frameOrigin(tool.origin) !== undefined);
    if (!crossHeld) {
      scheduleRefresh();
      return;
    }
    for (const [name, tool] of nativeTools) if ((tool.window ?? tool.source)?.closed) nativeTools.delete(name);
    sendReport(summarise([...nativeTools.values()]));
    settleUntil = Date.now() + FRAME_SETTLE_MS;
    scheduleRefresh();
  }

  // Chromium 156 fires no toolchange in the parent when a frame with tools is removed: re-read
  // when the number of child frames drops (an O(1) check, whatever the page's DOM churn).
  let frameCount = window.frames.length;
  const frames = new MutationObserver(() => {
    const now = window.frames.length;
    if (now < frameCount) frameRemoved();
    frameCount = now;
  });
  // From DOMContentLoaded on: these scripts start at document_start (manifest.json: a later start
  // holds back the load event), and a subtree observer during the parse makes
  // the parser queue a record for every node (the main-world polyfill waits for the same reason).
  // A frame the parser adds cannot be removed before then unless a page script removes it.
  const watchFrames = () => {
    frameCount = window.frames.length;
    frames.observe(document, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") ns.listen(document, "DOMContentLoaded", watchFrames, { once: true });
  else watchFrames();
  ns.onStop(() => frames.disconnect());
  ns.webmcpFrames?.onChange(scheduleRefresh); // a newly seen cross-origin frame may offer tools
  ns.webmcp = { mode: isNative ? "native" : "polyfill" };
  scheduleRefresh();
})();
void 0;
