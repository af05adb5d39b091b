// webctx content script, part 4b (see namespace.js for the map): this document's end of the page
// channel (service_worker/page_channel.js), one mechanism for every request the worker makes here.
//
//   ns.channel.answer(type, handler)  the part that owns `type` answers it: handler(message) →
//                                     a reply, a Promise of one, or undefined (no reply)
//   worker ──{id, message}──► handler ──{id, reply}──► worker     (a port, either end opened it)
//   worker ──{message}──► handler                                  (no reply wanted: tools.abort)
//   worker ──chrome.tabs.sendMessage──► handler ──► sendResponse   (no port: Firefox, first use)
//   ns.channel.open()   open this document's own port (chrome.runtime.connect; the bridge, once
//                       the page has tools): it posts {hello: token} first (Firefox keys it by
//                       that), and carries events up
//   ns.channel.emit(event)  {event} on that port (tools.visibility); dropped when there is none
//
// Messages by frame id carry the document's token (Firefox): another document in that frame
// answers null. The ports live in this isolated world: the page cannot reach them.

(function webctxPagePort() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const ns = scope.__webctx;
  if (!ns || ns.channel) return;
  const NAME = "webctx.page";

  /** @type {Map<string, (message: Record<string, unknown>) => unknown>} */
  const handlers = new Map();
  /** Every open port of this document (the worker's and our own). @type {Set<chrome.runtime.Port>} */
  const ports = new Set();
  /** The port this document opened (null until open(), or after it closed). @type {chrome.runtime.Port | null} */
  let own = null;

  /**
   * The handler's answer to `message` (undefined: nobody here answers it).
   * @param {unknown} message
   * @returns {unknown}
   */
  function dispatch(message) {
    if (typeof message !== "object" || message === null) return undefined;
    const m = /** @type {Record<string, unknown>} */ (message);
    // Addressed by frame (Firefox has no documentId): another document in that frame is not ours.
    if (m.documentToken !== undefined && m.documentToken !== ns?.token) return null;
    const handler = typeof m.type === "string" ? handlers.get(m.type) : undefined;
    return handler ? handler(m) : undefined;
  }

  /** @param {chrome.runtime.Port} port */
  function serve(port) {
    ports.add(port);
    port.onDisconnect.addListener(() => {
      ports.delete(port);
      if (own === port) own = null; // reopened at the next open(); requests come by message meanwhile
    });
    port.onMessage.addListener((/** @type {unknown} */ raw) => {
      const { id, message } = /** @type {{id?: unknown, message?: unknown}} */ (raw ?? {});
      const answer = dispatch(message);
      if (typeof id !== "number") return;
      if (!(answer instanceof Promise)) {
        post(port, { id, reply: answer ?? null }); // at once, in this task (location.get)
        return;
      }
      answer.then(
        (reply) => post(port, { id, reply: reply ?? null }),
        () => post(port, { id, reply: null }),
      );
    });
  }

  /** @param {chrome.runtime.Port} port @param {object} message */
  function post(port, message) {
    try {
      port.postMessage(message);
    } catch {
      // Disconnected meanwhile: the worker already rejected the request.
    }
  }

  /** @param {chrome.runtime.Port} port */
  function onConnect(port) {
    // A port a tab opened (another page's own) reaches us only in webctx's PDF viewer, an extension
    // page: only the worker's are served.
    if (port.name === NAME && !port.sender?.tab) serve(port);
  }

  /**
   * @param {unknown} message
   * @param {chrome.runtime.MessageSender} sender
   * @param {(reply: unknown) => void} sendResponse
   * @returns {boolean} true: answered asynchronously
   */
  function onMessage(message, sender, sendResponse) {
    if (sender.tab) return false; // another page's message, as in onConnect
    const answer = dispatch(message);
    if (answer === undefined) return false;
    if (!(answer instanceof Promise)) {
      sendResponse(answer);
      return false;
    }
    answer.then(sendResponse, () => sendResponse(null));
    return true;
  }

  function open() {
    if (own || !ns?.isAlive()) return;
    try {
      own = chrome.runtime.connect({ name: NAME });
    } catch {
      return; // the extension went away
    }
    own.postMessage({ hello: ns.token });
    serve(own);
  }

  // Leaving the page (a navigation, or into the back/forward cache, where Firefox keeps ports
  // open): close every port, so the worker rejects what waits here at once ("page gone").
  const closeAll = () => {
    for (const port of ports) port.disconnect();
    ports.clear();
    own = null;
  };
  chrome.runtime.onMessage.addListener(onMessage);
  chrome.runtime.onConnect.addListener(onConnect);
  ns.listen(window, "pagehide", closeAll);
  ns.onStop(() => {
    chrome.runtime.onMessage.removeListener(onMessage);
    chrome.runtime.onConnect.removeListener(onConnect);
    closeAll();
  });
  ns.channel = {
    answer: (type, handler) => void handlers.set(type, handler),
    open,
    emit(event) {
      if (own) post(own, { event });
    },
  };
})();
void 0;
