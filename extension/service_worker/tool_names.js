// Exposed MCP names for page tools (design.md §5 "Exposure").
//
// Pure: no chrome.* here, so node tests import it. A page tool `toolName` on Page `tab-<n>`
// becomes `p<n>_<clean>`, where every character outside [A-Za-z0-9_] is `_`; at most 48
// characters. When the name is longer, or when two names of one page clean to the same string,
// the later one gets a short stable hash suffix (`_` + 6 base-36 digits of FNV-1a over the
// original name). Names are remembered per (tab, original name) for the whole instance, so a
// reload, or a tool that comes and goes, keeps its exposed name.

import { PAGE_TOOL_NAME_PATTERN } from "../wire.js";

/** Longest exposed name (design.md §5: Claude Code prefixes `mcp__<server>__` and caps at 64). */
export const MAX_EXPOSED_NAME_CHARS = 48;
/** Length of the hash suffix's digits. */
export const HASH_CHARS = 6;

/** What today's strictest MCP clients accept (Cursor: letters, digits and `_`). */
export const EXPOSED_NAME_PATTERN = PAGE_TOOL_NAME_PATTERN;

/**
 * FNV-1a (32 bit) of the UTF-16 code units of `text`, as 6 base-36 digits.
 * @param {string} text
 * @returns {string}
 */
export function shortHash(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(HASH_CHARS, "0").slice(-HASH_CHARS);
}

/**
 * `p<n>_` + `toolName` with every character outside [A-Za-z0-9_] replaced by `_` (not cut).
 * @param {number} pageNumber the `<n>` of the Page id `tab-<n>`
 * @param {string} toolName the page's original name
 * @returns {string}
 */
export function cleanName(pageNumber, toolName) {
  return `p${pageNumber}_${toolName.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/**
 * `clean` cut so that `_` + hash fits in MAX_EXPOSED_NAME_CHARS, then the suffix.
 * @param {string} clean
 * @param {string} toolName
 * @param {number} [salt] bumps the hash when even the hashed name is taken
 * @returns {string}
 */
function hashedName(clean, toolName, salt = 0) {
  const suffix = `_${shortHash(salt ? `${toolName}\u0000${salt}` : toolName)}`;
  return clean.slice(0, MAX_EXPOSED_NAME_CHARS - suffix.length) + suffix;
}

/** Per-instance memory of exposed names: (page number, original name) → exposed name. */
export class ToolNameRegistry {
  /** @type {Map<string, string>} key `<n>\u0000<toolName>` → exposed name */
  #byOriginal = new Map();
  /** @type {Map<string, string>} exposed name → key */
  #taken = new Map();

  /** Forget every name (a new native-host instance). */
  reset() {
    this.#byOriginal.clear();
    this.#taken.clear();
  }

  /**
   * The exposed names of one page's tools, in the order given. Names that need no cleaning and
   * fit are claimed first, so `cart_add_item` keeps the plain name even when `cart.add-item` was
   * listed before it.
   * @param {number} pageNumber the `<n>` of `tab-<n>`
   * @param {string[]} toolNames the page's original names (distinct)
   * @returns {string[]} exposed names, parallel to `toolNames`
   */
  namesFor(pageNumber, toolNames) {
    const order = toolNames
      .map((name, index) => ({ name, index }))
      .sort((a, b) => rank(pageNumber, a.name) - rank(pageNumber, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    /** @type {string[]} */
    const out = new Array(toolNames.length);
    for (const { name, index } of order) out[index] = this.nameFor(pageNumber, name);
    return out;
  }

  /**
   * The exposed name of one tool, minted on first sight and then remembered.
   * @param {number} pageNumber
   * @param {string} toolName
   * @returns {string}
   */
  nameFor(pageNumber, toolName) {
    const key = `${pageNumber}\u0000${toolName}`;
    const known = this.#byOriginal.get(key);
    if (known !== undefined) return known;
    const clean = cleanName(pageNumber, toolName);
    let exposed = clean.length <= MAX_EXPOSED_NAME_CHARS ? clean : hashedName(clean, toolName);
    for (let salt = 0; this.#taken.has(exposed); salt++) exposed = hashedName(clean, toolName, salt);
    this.#byOriginal.set(key, exposed);
    this.#taken.set(exposed, key);
    return exposed;
  }
}

/**
 * 0 for a name that is exposed as is (no cleaning, fits), 1 otherwise.
 * @param {number} pageNumber
 * @param {string} toolName
 */
function rank(pageNumber, toolName) {
  const clean = cleanName(pageNumber, toolName);
  return clean.length <= MAX_EXPOSED_NAME_CHARS && /^[A-Za-z0-9_]*$/.test(toolName) ? 0 : 1;
}
