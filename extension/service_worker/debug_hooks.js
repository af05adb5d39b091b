// Debug hooks for tests and benches on the worker's globalThis, reached only from the worker's own
// context (over the DevTools protocol): they carry ids, field names and counters, never page
// content.
//
//   __webctxTabModelDiff()   where the tab model (tab_model.js) differs from a fresh
//                            windows.getAll({populate: true}): tests/e2e/test_tab_model.py
//   __webctxTreePushStats()  how many pushed trees were built and sent (tree_push.js): bench/README.md
//   __webctxActionLook()     the toolbar look last applied and the browser's error, if any
//                            (action_icon.js): tests/e2e/test_popup_site.py
//   __webctxPageRead(tabId, kind, maxBytes?)  a `page.read` of that tab (page_read.js) as the host
//                            would send it, answered with its sizes, shape and time only, never
//                            the text or the image: tests/e2e/test_page_read_worker.py

import * as api from "./browser_api.js";
import { tabUrl } from "./tree.js";

/** @typedef {import("./tab_model.js").ModelTab} ModelTab */
/** @typedef {import("./tab_model.js").ModelWindow} ModelWindow */
/** @typedef {import("./action_icon.js").ActionLook & {error: string}} ShownLook */

/**
 * Hang the debug hooks on globalThis (main.js, once).
 * @param {import("./tab_model.js").TabModel} tabModel
 * @param {import("./tree_push.js").TreePusher} treePusher
 * @param {() => ShownLook | undefined} shownLook  the toolbar look last applied (main.js)
 * @param {(tabId: number, message: Record<string, unknown>) => Promise<unknown>} [pageRead]  a
 *   `page.read` of a browser tab (main.js: its Page id, then PageReader.read)
 */
export function installDebugHooks(tabModel, treePusher, shownLook, pageRead) {
  /**
   * Where the tab model differs from a fresh windows.getAll({populate: true}), one line each;
   * empty when they agree.
   * @returns {Promise<string[]>}
   */
  const tabModelDiff = async () => {
    const wasSeeded = tabModel.seeded;
    const [states, fresh] = await Promise.all([api.allWindowsWithoutTabs(), api.allWindowsWithTabs()]);
    tabModel.noteWindowStates(states);
    const out = wasSeeded && tabModel.seeded ? [] : ["the model was out of step and seeds again"];
    return [...out, ...diffWindows(tabModel.windows(), fresh)];
  };
  /** @type {{__webctxTabModelDiff?: () => Promise<string[]>}} */ (globalThis).__webctxTabModelDiff = tabModelDiff;
  /** @type {{__webctxTreePushStats?: () => {builds: number, sent: number}}} */ (globalThis).__webctxTreePushStats = () => ({
    builds: treePusher.builds,
    sent: treePusher.sent,
  });
  /** @type {{__webctxActionLook?: () => ShownLook | undefined}} */ (globalThis).__webctxActionLook = shownLook;
  if (pageRead) /** @type {{__webctxPageRead?: unknown}} */ (globalThis).__webctxPageRead = pageReadHook(pageRead);
}

/**
 * @param {(tabId: number, message: Record<string, unknown>) => Promise<unknown>} pageRead
 * @returns {(tabId: number, kind: string, maxBytes?: number) => Promise<Record<string, unknown>>}
 *   `{ok: true, ms, ...the result's fields, with `markdown` and `data` replaced by their lengths}`
 *   or `{ok: false, ms, code, message}`
 */
function pageReadHook(pageRead) {
  return async (tabId, kind, maxBytes) => {
    const start = performance.now();
    try {
      const result = /** @type {Record<string, unknown>} */ (await pageRead(tabId, { type: "page.read", kind, maxBytes }));
      const { markdown, data, ...rest } = result;
      const ms = performance.now() - start;
      // Lengths only: the hooks carry no page content.
      return { ok: true, ms, ...rest, markdownLength: typeof markdown === "string" ? markdown.length : undefined, dataLength: typeof data === "string" ? data.length : undefined };
    } catch (error) {
      const { code, message } = /** @type {{code?: string, message?: string}} */ (error);
      return { ok: false, ms: performance.now() - start, code, message };
    }
  };
}

/**
 * What differs between the model's windows and a fresh windows.getAll({populate: true}): one line
 * per difference, empty when they agree. Compares what `current` and `location` read: window
 * order, id, type, incognito, state, focused, bounds; tab order, id, active, incognito, title
 * and url (or pendingUrl while there is no url).
 * @param {ModelWindow[]} model  TabModel.windows()
 * @param {ModelWindow[]} fresh  the browser's answer
 * @returns {string[]}
 */
export function diffWindows(model, fresh) {
  /** @type {string[]} */
  const out = [];
  const ids = (/** @type {ModelWindow[]} */ list) => list.map((w) => w.id).join(",");
  if (ids(model) !== ids(fresh)) out.push(`windows: model [${ids(model)}], browser [${ids(fresh)}]`);
  for (const want of fresh) {
    const have = model.find((w) => w.id === want.id);
    if (!have) continue;
    for (const key of /** @type {const} */ (["type", "incognito", "state", "focused", "left", "top", "width", "height"])) {
      if (have[key] !== want[key]) out.push(`window ${want.id} ${key}: model ${have[key]}, browser ${want[key]}`);
    }
    const tabIds = (/** @type {ModelWindow} */ w) => (w.tabs ?? []).map((t) => t.id).join(",");
    if (tabIds(have) !== tabIds(want)) out.push(`window ${want.id} tabs: model [${tabIds(have)}], browser [${tabIds(want)}]`);
    for (const tab of want.tabs ?? []) {
      const mine = (have.tabs ?? []).find((t) => t.id === tab.id);
      if (!mine) continue;
      for (const key of /** @type {const} */ (["index", "active", "incognito"])) {
        if (mine[key] !== tab[key]) out.push(`tab ${tab.id} ${key}: model ${mine[key]}, browser ${tab[key]}`);
      }
      // Page content stays out of the message: say which field differs, not its text.
      if ((mine.title ?? "") !== (tab.title ?? "")) out.push(`tab ${tab.id} title differs`);
      if (tabUrl(mine) !== tabUrl(tab)) out.push(`tab ${tab.id} url differs`);
    }
  }
  return out;
}
