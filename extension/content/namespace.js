// webctx content scripts: the isolated world. Classic scripts, run in manifest order:
//
//   namespace.js   creates globalThis.__webctx once per document: the one namespace the parts share,
//                  the guard against double injection, and the stop hook for orphaned scripts
//   selection.js   selectionchange → `selection.changed` (throttled); answers `selection.get`
//   webmcp_bridge.js  the page's WebMCP tools → `tools.report`; runs `tools.run` (top frame only)
//
// The main world has one script of ours, main_world/polyfill.js (document_start), which provides
// document.modelContext where the browser has none; webmcp_bridge.js talks to it by postMessage.
//
// Thin on purpose: these scripts collect facts and keep the live Ranges; the tree, budgets, caps
// and ids are built by the service worker (STYLE "Layout"). The worker injects these files again
// into tabs that were open before an install/update/start, so every part returns early when its
// piece of the namespace already exists.

/**
 * The shared namespace of the isolated world.
 * @typedef {object} WebctxNamespace
 * @property {string} version       the extension version that created it
 * @property {() => boolean} isAlive false once the extension that injected it was reloaded or removed
 * @property {(message: object) => void} send   chrome.runtime.sendMessage, quiet when nobody listens
 * @property {(cleanup: () => void) => void} onStop  run `cleanup` when this namespace is retired
 * @property {() => void} stop      retire: remove every listener the parts added
 * @property {WebctxSelectionPart} [selection]
 * @property {{mode: "native" | "polyfill"}} [webmcp]  webmcp_bridge.js: where the page's tools come from
 */

/**
 * @typedef {object} WebctxSelectionPart
 * @property {() => import("../protocol.js").Selection | null} read
 * @property {(key: number) => Range | undefined} rangeFor  the live Range a key names
 */

(function webctxNamespace() {
  const scope = /** @type {{__webctx?: WebctxNamespace}} */ (/** @type {unknown} */ (globalThis));
  const existing = scope.__webctx;
  if (existing && existing.isAlive()) return;
  // A namespace whose extension was reloaded is orphaned: its messages go nowhere. Chromium 156
  // gives a reloaded extension a fresh isolated world (checked), so this is only a safety net for
  // browsers that reuse the world: retire the old parts and start over.
  if (existing) existing.stop();

  // Keep this instance's runtime: after a reload, its `id` reads undefined (or throws).
  const runtime = chrome.runtime;
  const isAlive = () => {
    try {
      return Boolean(runtime.id);
    } catch {
      return false;
    }
  };
  /** @type {(() => void)[]} */
  const cleanups = [];
  /** @type {WebctxNamespace} */
  const ns = {
    version: runtime.getManifest().version,
    isAlive,
    send(message) {
      if (!isAlive()) return ns.stop();
      try {
        runtime.sendMessage(message).catch(() => {
          // No listener yet (the worker is starting) or the extension went away: nothing to do.
        });
      } catch {
        ns.stop(); // "Extension context invalidated."
      }
    },
    onStop(cleanup) {
      cleanups.push(cleanup);
    },
    stop() {
      for (const cleanup of cleanups.splice(0)) {
        try {
          cleanup();
        } catch {
          // A part failed to clean up; the others still should.
        }
      }
      if (scope.__webctx === ns) delete scope.__webctx;
    },
  };
  scope.__webctx = ns;
})();
void 0;
