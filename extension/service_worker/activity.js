// Who read it: the native host's `activity` events, kept for the popup, and the
// toolbar badge's short flash after each read.
//
//   native host ── activity {entry} ──► native_port.js onActivity ──► ActivityFeed.add (checked,
//                                                                       the last MAX_ACTIVITY kept)
//                                                                   └─► flashReadBadge (READ_BADGE_MS)
//   popup/activity.js ◄── popup_transparency.js (port "transparency") ◄── ActivityFeed.onChange
//
// The feed lives in memory: the worker stays alive while the native port is connected, and a new
// port is a new native host whose own record (provider/activity.py) starts empty too. Entries hold
// ids, roles, page titles and the client's self-declared name, never content (docs/internals/protocol.md).

/** Entries kept, newest first (the host keeps as many). */
export const MAX_ACTIVITY = 50;

/** How long the toolbar badge shows READ_BADGE_TEXT after a read, in ms ("~2 s"). */
export const READ_BADGE_MS = 2000;

/** The badge's text while it flashes (at most 4 characters fit a toolbar badge). */
export const READ_BADGE_TEXT = "read";

/**
 * One read, as the host sends it (provider/activity.py ActivityEntry).
 * @typedef {object} ActivityEntry
 * @property {number} at  ms since the epoch
 * @property {{name: string, version?: string, via?: string}} client  the client's self-declared
 *   clientInfo; `via`: the bridge it came through (`webctx mcp`), which named it
 * @property {string} tool  `current`, `location` or a page tool's MCP name
 * @property {boolean} ok  false: the answer was an `isError`
 * @property {{kind: string, id: string, page?: string, title?: string}[]} elements
 */

/**
 * `raw` as an ActivityEntry, or null when it has the wrong shape (strings cut, at most 20 elements).
 * @param {unknown} raw
 * @returns {ActivityEntry | null}
 */
export function parseEntry(raw) {
  if (typeof raw !== "object" || raw === null) return null;
  const e = /** @type {Record<string, any>} */ (raw);
  const name = e.client?.name;
  if (typeof e.at !== "number" || typeof e.tool !== "string" || typeof name !== "string") return null;
  /** @type {ActivityEntry["client"]} */
  const client = { name: name.slice(0, 64) };
  if (typeof e.client.version === "string" && e.client.version) client.version = e.client.version.slice(0, 64);
  if (typeof e.client.via === "string" && e.client.via) client.via = e.client.via.slice(0, 64);
  const elements = (Array.isArray(e.elements) ? e.elements : [])
    .filter((el) => typeof el === "object" && el !== null && typeof el.kind === "string" && typeof el.id === "string")
    .slice(0, 20)
    .map((el) => {
      /** @type {ActivityEntry["elements"][number]} */
      const out = { kind: el.kind.slice(0, 16), id: el.id.slice(0, 128) };
      if (typeof el.page === "string") out.page = el.page.slice(0, 128);
      if (typeof el.title === "string") out.title = el.title.slice(0, 80);
      return out;
    });
  return { at: e.at, client, tool: e.tool.slice(0, 128), ok: e.ok !== false, elements };
}

/** The last MAX_ACTIVITY reads of this worker's native host, newest first. */
export class ActivityFeed {
  /** @type {ActivityEntry[]} */ #entries = [];
  /** @type {Set<() => void>} */ #listeners = new Set();

  /**
   * Keep one read (dropped when its shape is wrong); tell the listeners.
   * @param {unknown} raw  the event's `entry`
   * @returns {boolean} whether it was kept
   */
  add(raw) {
    const entry = parseEntry(raw);
    if (!entry) return false;
    this.#entries.unshift(entry);
    this.#entries.length = Math.min(this.#entries.length, MAX_ACTIVITY);
    for (const listener of this.#listeners) listener();
    return true;
  }

  /** A new native host: its record starts empty, so does ours. */
  clear() {
    this.#entries = [];
    for (const listener of this.#listeners) listener();
  }

  /** @returns {ActivityEntry[]} newest first (a copy) */
  entries() {
    return [...this.#entries];
  }

  /**
   * @param {() => void} listener  called after every change
   * @returns {() => void} removes it
   */
  onChange(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * The read flash: the toolbar badge shows READ_BADGE_TEXT for READ_BADGE_MS after the last read,
 * then `restore` puts the provider state's look back (main.js showActionLook: its badge is "!" when
 * the provider is broken, else none). The badge's colour and the icon are the state's
 * (action_icon.js); only the text flashes.
 * @param {(text: string) => unknown} setText  browser_api.js setActionBadgeText
 * @param {() => unknown} [restore]  what ends the flash (default: no badge text)
 * @returns {() => void} flash: call once per read
 */
export function readBadgeFlasher(setText, restore = () => setText("")) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  return () => {
    clearTimeout(timer);
    void setText(READ_BADGE_TEXT);
    timer = setTimeout(() => void restore(), READ_BADGE_MS);
  };
}
