// webctx content script, isolated world, top frame, document_start: the private channel that
// main_world/native_errors.js sends a page tool's error texts down (docs/internals/extension.md "The page's
// error text under native WebMCP").
//
//   here: MessageChannel ── port1 kept for webmcp_errors.js (globalThis.__webctxErrorsPort)
//         port2 ──► synchronous, cancelable MessageEvent "webctx-errors-port" on window
//                   ──► native_errors.js takes it (preventDefault says so)
//
// Both scripts run at document_start in the same documents, before any page script, and the
// hand-over is a synchronous dispatchEvent completed by whichever of the two runs second
// (native_errors.js dispatches "webctx-errors-hello" when it starts): no page listener exists yet
// to see or take the port, and once it is taken nothing here answers a hello any more. Injected
// into a tab that was already open (the extension was just loaded) nothing is handed over: the
// page's scripts could be listening. Error texts stay generic there.

(function webctxErrorsPort() {
  const scope = /** @type {{__webctxErrorsPort?: MessagePort}} */ (/** @type {unknown} */ (globalThis));
  if (window !== window.top || scope.__webctxErrorsPort || document.readyState !== "loading") return;
  const channel = new MessageChannel();
  scope.__webctxErrorsPort = channel.port1;
  const hand = () => {
    const event = new MessageEvent("webctx-errors-port", { ports: [channel.port2], cancelable: true });
    if (window.dispatchEvent(event)) return; // not taken (yet)
    window.removeEventListener("webctx-errors-hello", hand);
  };
  window.addEventListener("webctx-errors-hello", hand);
  hand();
})();
void 0;
