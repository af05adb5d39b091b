// webctx content script, part 3b (see namespace.js for the map): the page's own error texts under
// native WebMCP (docs/internals/extension.md "The page's error text under native WebMCP").
//
//   main_world/native_errors.js ── {name, input, message} per failed execute ──► the private port
//   content/errors_port.js made at document_start (globalThis.__webctxErrorsPort) ──► records here
//   webmcp_bridge.js: executeTool rejected with UnknownError ──► pageErrorFor(name, input) ──► the
//   oldest record of the same tool with the same input JSON (waiting at most 50 ms), or null
//
// Chromium's executeTool hands back a generic UnknownError whatever the tool threw; these records
// give the host the page's text instead. Records no call takes expire after 5 s. Injected into a
// tab that was already open there is no port (errors_port.js hands none over then): every call
// gets null, and texts stay generic. Nothing happens here until the bridge calls `listen()` (top
// frame, native WebMCP only).

(function webctxWebmcpErrors() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || ns.webmcpErrors || window !== window.top) return;

  /** How long a failed call waits for its record (it normally arrives before the rejection). */
  const ERROR_RECORD_WAIT_MS = 50;
  /** Records no call has taken are dropped after this many ms (the page's own executeTool calls). */
  const ERROR_RECORD_TTL_MS = 5000;
  /** @type {{name: string, input: string, message: string, at: number}[]} */
  let errorRecords = [];
  /** @type {(() => void)[]} */
  let errorWaiters = [];

  /** @param {MessageEvent} event */
  function onErrorRecord(event) {
    const { name, input, message } = /** @type {Record<string, unknown>} */ (event.data ?? {});
    if (typeof name !== "string" || typeof input !== "string" || typeof message !== "string") return;
    const now = Date.now();
    errorRecords = errorRecords.filter((r) => now - r.at < ERROR_RECORD_TTL_MS).slice(-63);
    errorRecords.push({ name, input, message, at: now });
    for (const wake of errorWaiters.splice(0)) wake();
  }

  /** Read the private port content/errors_port.js opened at document_start (top frame). */
  function listen() {
    const holder = /** @type {{__webctxErrorsPort?: MessagePort}} */ (/** @type {unknown} */ (globalThis));
    const errorsPort = holder.__webctxErrorsPort;
    if (!errorsPort) return; // injected into an open tab: texts stay generic
    errorsPort.onmessage = onErrorRecord;
    ns?.onStop(() => {
      errorsPort.onmessage = null;
    });
  }

  /**
   * What the page's execute threw for this call, if the main world recorded it: the first record
   * of the same tool with the same input (identical calls have interchangeable errors).
   * @param {string} name
   * @param {Record<string, unknown>} input
   * @param {unknown} error what executeTool rejected with (only UnknownError is worth a wait)
   * @returns {Promise<string | null>} the text as recorded; the bridge caps it
   */
  async function pageErrorFor(name, input, error) {
    if (!(error instanceof DOMException) || error.name !== "UnknownError") return null;
    let key;
    try {
      key = JSON.stringify(input);
    } catch {
      return null;
    }
    const deadline = Date.now() + ERROR_RECORD_WAIT_MS;
    for (;;) {
      const index = errorRecords.findIndex((r) => r.name === name && r.input === key);
      if (index >= 0) return errorRecords.splice(index, 1)[0].message;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        errorWaiters.push(() => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    }
  }

  ns.webmcpErrors = { listen, pageErrorFor };
})();
void 0;
