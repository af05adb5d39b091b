// `current`: the Application element built from what the worker holds (design.md §2, docs/internals/protocol.md
// "The tree", "Pushed tree").
//
//   host `current` (it has no complete pushed tree) ──► answer()      active tabs that need it pulled
//   tree_push.js, on any change ──────────────────────► pushedTree()  the pushed reports only;
//                                                        incomplete while a tab must be pulled
//        both ──► #build: tab model (tab_model.js, seeded) + every window's state and focus (read
//                 now: minimize has no event in headless Chromium) ──► shownWindows (settings:
//                 incognito, excluded sites) ──► activeWebTabIds ──► frame reports (selections.js)
//                 + exposed page tools (page_tool_router.js) ──► tree.js buildTree
//
// main.js makes one Current and passes it what it reads (like Locator in locator.js); the browser
// reads go through browser_api.js unless a test passes its own. `shownWindows` and
// `activeWebTabIds` are pure.

import * as api from "./browser_api.js";
import { sharedFrames, tabExcluded } from "./exclusion.js";
import { countPagesWithTools } from "./settings.js";
import { buildTree, isInternalUrl, tabUrl } from "./tree.js";

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("./tab_model.js").ListedWindow} ListedWindow */
/** @typedef {import("./tree.js").WindowInfo} WindowInfo */
/** @typedef {import("./tree_push.js").BuiltTree} BuiltTree */

/**
 * What `current` reads, passed in by main.js.
 * @typedef {object} CurrentDeps
 * @property {import("./ids.js").IdRegistry} ids  mints the tree's ids for this instance
 * @property {import("./tab_model.js").TabModel} tabModel  windows and tabs in memory
 * @property {() => Promise<void>} seed  seeds the tab model when it is not (TabModel.ensureSeeded)
 * @property {Pick<import("./selections.js").SelectionStore, "collect" | "pushedComplete" | "pushed" | "pullUnseen" | "topSite">} selections
 *   the frame reports, pushed and pulled
 * @property {{exposedPages: (windows: WindowInfo[]) => Map<number, {names: string[], omitted: number}>}} pageTools
 *   the page-tool names each shown tab exposes (page_tool_router.js)
 * @property {Promise<{browser: {name: string, version: string}}>} ready  the browser's identity, once known
 * @property {() => import("./settings.js").Settings} settings  the user's settings, read at every build
 *   (they apply live)
 * @property {() => boolean} connected  whether the native port is open and hello named the instance
 * @property {(fields: {pagesWithTools: number}) => unknown} noteStatus  the popup's "N pages with tools"
 * @property {() => void} schedulePush  the pushed tree builds again soon (tree_push.js)
 * @property {Pick<typeof api, "allWindowsWithoutTabs" | "lastFocusedWindow">} [read]  the browser
 *   reads; browser_api.js when absent
 */

/**
 * One build: the tree, or why there is none yet; and the active tabs it read (or would have).
 * `loadedTabIds`: those of `activeTabIds` whose page is not loading (tab status), the ones
 * `pullUnseen` may pull (see `pushedTree`).
 * @typedef {({complete: true, root: Element, windowFocused: boolean} | {complete: false, retryInMs?: number}) & {activeTabIds: number[], loadedTabIds: number[]}} Build
 */

export class Current {
  /** @type {CurrentDeps} */ #deps;
  /** @type {NonNullable<CurrentDeps["read"]>} */ #read;

  /** @param {CurrentDeps} deps */
  constructor(deps) {
    this.#deps = deps;
    this.#read = deps.read ?? api;
  }

  /**
   * The Application element (docs/internals/protocol.md "The tree"), and whether one of this profile's
   * windows has the browser's focus now (for the native host that merges several profiles' trees,
   * design.md §3): `current` from the host, which asks only when it has no complete pushed tree. A pull
   * may bring frame reports the last push lacked: the pushed tree follows.
   * @returns {Promise<{root: Element, windowFocused: boolean}>}
   */
  async answer() {
    const built = await this.#build(true);
    this.#deps.schedulePush();
    if (!built.complete) throw new Error("a pulled tree is always complete"); // (for the type checker)
    return { root: built.root, windowFocused: built.windowFocused };
  }

  /**
   * The tree to push (tree_push.js): built from the model and the pushed frame reports, without
   * asking a page; `complete: false` while some active tab's report must be pulled (selections.js
   * `needsPull`: a value still settling, a large field's pending text, a page never heard from —
   * which is pulled once in the background, so its tree completes soon after it loads).
   * @returns {Promise<BuiltTree | null>} null while there is no instance
   */
  async pushedTree() {
    if (!this.#deps.connected()) return null;
    const built = await this.#build(false);
    if (built.complete) return { complete: true, root: built.root, windowFocused: built.windowFocused };
    // Only tabs that finished loading: a chrome.scripting.executeScript into a loading document
    // holds back its load event until the injection's result is sent, and Chromium renders the
    // whole page first (on a 200,000-element page the load event came ~400 ms later
    // item 5: bench/page_load.py). The tab's status "complete" (after the load event) is a tab
    // update, which schedules this push again.
    void this.#deps.selections.pullUnseen(built.loadedTabIds).then((pulled) => pulled && this.#deps.schedulePush(), () => undefined);
    return built.retryInMs === undefined ? { complete: false } : { complete: false, retryInMs: built.retryInMs };
  }

  /**
   * The tree from the tab model, the window states and focus (read now: minimize has no event in
   * headless Chromium), the frame reports and the exposed page tools; notes the popup's "N pages
   * with tools". With `pull`, active tabs that `needsPull` are pulled first; without, the pushed
   * reports are used, and when some active tab needs a pull no tree is built (`complete: false`,
   * with `retryInMs` when that tab only has to settle: selections.js `pushedComplete`).
   * @param {boolean} pull
   * @returns {Promise<Build>}
   */
  async #build(pull) {
    const { ids, tabModel, seed, selections, pageTools } = this.#deps;
    const [{ browser }, , states, lastFocused] = await Promise.all([
      this.#deps.ready,
      seed(),
      this.#read.allWindowsWithoutTabs(),
      this.#read.lastFocusedWindow(),
    ]);
    // If that read shows the model out of step (a window it does not know), seed again.
    tabModel.noteWindowStates(states);
    await seed();
    const settings = this.#deps.settings();
    const topSite = (/** @type {number} */ tabId) => selections.topSite(tabId);
    let shown = shownWindows(tabModel.windows({ normalOnly: true }), settings, topSite);
    const activeTabIds = activeWebTabIds(shown);
    const loadedTabIds = loadedWebTabIds(shown, activeTabIds);
    let frames;
    if (pull) {
      frames = await selections.collect(activeTabIds);
      // A pull may be the first word of a tab's top document (an about:blank window an excluded
      // page opened): decide its tab again with what it told.
      shown = shownWindows(tabModel.windows({ normalOnly: true }), this.#deps.settings(), topSite);
    } else {
      const pushed = selections.pushedComplete(activeTabIds);
      if (!pushed.complete) return { ...pushed, complete: false, activeTabIds, loadedTabIds };
      frames = selections.pushed();
    }
    // The one exclusion filter (exclusion.js), for pushed and pulled reports alike.
    frames = sharedFrames(frames, this.#deps.settings());
    const pages = pageTools.exposedPages(shown);
    const snapshot = { browser, windows: shown, lastFocusedWindowId: lastFocused.id, selections: new Map(), frames, pageTools: pages };
    // design.md §2: incognito is opt-in; the Pages' resource_links follow the two switches.
    const options = { includeIncognito: settings.incognito, pageText: settings.pageText, screenshots: settings.screenshots };
    const root = buildTree(snapshot, ids, options);
    void this.#deps.noteStatus({ pagesWithTools: countPagesWithTools(root) }); // the popup shows it
    return { complete: true, root, windowFocused: lastFocused.focused, activeTabIds, loadedTabIds };
  }
}

/**
 * The windows `current` may show, each with the tabs it may show (design.md §2 "Never reported"):
 * incognito windows only with the user's opt-in, and no tab of an excluded site (by its address
 * or its top document's origin: exclusion.js tabExcluded) nor, unless switched on, a local file.
 * @param {ListedWindow[]} windows  the tab model's normal windows
 * @param {{incognito: boolean, excludedSites: string[], localFiles: boolean}} settings
 * @param {(tabId: number) => import("./settings.js").DocumentSite | undefined} [topSite]  the top
 *   document's reported address and origin (selections.js `topSite`)
 * @returns {ListedWindow[]} fresh window objects; the tab objects are the model's
 */
export function shownWindows(windows, settings, topSite) {
  return windows
    .filter((win) => settings.incognito || !win.incognito)
    .map((win) => ({ ...win, tabs: (win.tabs ?? []).filter((tab) => !tabExcluded(tab, settings, topSite)) }));
}

/**
 * The active tabs of `windows` that show a web page (not a browser-internal one): the tabs whose
 * frame reports the tree reads.
 * @param {ListedWindow[]} windows
 * @returns {number[]} tab ids, in window order
 */
export function activeWebTabIds(windows) {
  return windows.flatMap((win) =>
    (win.tabs ?? [])
      .filter((tab) => tab.active && tab.id !== undefined && !isInternalUrl(tabUrl(tab)))
      .map((tab) => /** @type {number} */ (tab.id)),
  );
}

/**
 * Those of `tabIds` (tabs of `windows`) whose page is not loading: the tab's `status` is not
 * "loading" (Firefox and a seeded model may leave it unset: not loading).
 * @param {ListedWindow[]} windows
 * @param {number[]} tabIds
 * @returns {number[]} tab ids, in the order of `tabIds`
 */
export function loadedWebTabIds(windows, tabIds) {
  const loading = new Set(
    windows.flatMap((win) => (win.tabs ?? []).filter((tab) => tab.status === "loading").map((tab) => tab.id)),
  );
  return tabIds.filter((tabId) => !loading.has(tabId));
}
