// The user's settings (SPEC §3 "switched off", §2 "Never reported", §5 "User control"), kept in
// chrome.storage.local under SETTINGS_KEY by the popup and the options page, and applied live by
// main.js through chrome.storage.onChanged. Pure helpers here; storage calls in browser_api.js (browser_api/storage.js).

/** The chrome.storage.local key holding the settings object. */
export const SETTINGS_KEY = "settings";

/**
 * @typedef {object} Settings
 * @property {boolean} enabled               the provider switch: off → no native host, no descriptor, no port
 * @property {string[]} excludedSites        host names (a leading "*." or none: the site and its subdomains)
 * @property {boolean} exposePageTools       whether visible pages' WebMCP tools become MCP tools
 * @property {boolean} incognito             report incognito windows too (needs "Allow in Incognito")
 * @property {boolean} confirmConsequential  page tools marked `consequentialHint` ask the user before they run (confirm.js)
 */

/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS = Object.freeze({
  enabled: true,
  excludedSites: [],
  exposePageTools: true,
  incognito: false,
  confirmConsequential: true,
});

/** Most excluded sites kept (a bound on what a hand-edited storage entry can make us scan). */
export const MAX_EXCLUDED_SITES = 500;

/**
 * Settings from storage, with defaults for missing or wrongly typed fields.
 * @param {unknown} raw what chrome.storage.local holds under SETTINGS_KEY
 * @returns {Settings}
 */
export function normalizeSettings(raw) {
  const value = typeof raw === "object" && raw !== null ? /** @type {Record<string, unknown>} */ (raw) : {};
  /** @param {keyof Settings} name @returns {boolean} */
  const flag = (name) => (typeof value[name] === "boolean" ? /** @type {boolean} */ (value[name]) : /** @type {boolean} */ (DEFAULT_SETTINGS[name]));
  const sites = Array.isArray(value.excludedSites) ? value.excludedSites : [];
  return {
    enabled: flag("enabled"),
    excludedSites: parseSiteList(sites.filter((s) => typeof s === "string").join("\n")),
    exposePageTools: flag("exposePageTools"),
    incognito: flag("incognito"),
    confirmConsequential: flag("confirmConsequential"),
  };
}

/** A host name: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/**
 * The host names in a user's list (one per line or separated by commas/spaces): URLs are reduced to
 * their host, a leading "*." is dropped, case is folded, duplicates and junk are dropped.
 * @param {string} text
 * @returns {string[]}
 */
export function parseSiteList(text) {
  /** @type {string[]} */
  const out = [];
  for (const word of text.split(/[\s,]+/)) {
    let host = word.trim().toLowerCase();
    if (!host) continue;
    if (host.includes("://")) {
      try {
        host = new URL(host).hostname;
      } catch {
        continue;
      }
    }
    host = host.replace(/^\*\./, "").replace(/\/.*$/, "").replace(/:\d+$/, "").replace(/\.$/, "");
    if (!HOST_NAME.test(host) || out.includes(host)) continue;
    out.push(host);
    if (out.length >= MAX_EXCLUDED_SITES) break;
  }
  return out;
}

/**
 * True when `url`'s host is an excluded site or a subdomain of one.
 * @param {string} url
 * @param {string[]} excludedSites from normalizeSettings
 * @returns {boolean}
 */
export function isExcluded(url, excludedSites) {
  if (excludedSites.length === 0) return false;
  let host;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return excludedSites.some((site) => host === site || host.endsWith(`.${site}`));
}

/**
 * What the popup shows for a status and the switch (pure, so node tests pin the wording).
 * @param {import("../protocol.js").ConnectionStatus | undefined} status
 * @param {boolean} enabled
 * @returns {{state: string, label: string, detail: string, fix: string, versions: string}}  `detail` names the
 *   endpoint when connected; `versions`: the version mismatch sentence with its fix, or "" (issue 17 item 6)
 */
export function describeStatus(status, enabled) {
  if (!enabled) {
    return { state: "off", label: "Provider off", detail: "No descriptor is written and no port is open.", fix: "", versions: "" };
  }
  switch (status?.state) {
    case "connected": {
      const parts = [];
      if (status.port) {
        parts.push(
          status.viaProvider
            ? `MCP endpoint on 127.0.0.1:${status.port}, served by another profile's native host`
            : `MCP endpoint on 127.0.0.1:${status.port}`,
        );
      }
      if (status.pagesWithTools !== undefined) {
        parts.push(`${status.pagesWithTools} ${status.pagesWithTools === 1 ? "page" : "pages"} with tools`);
      }
      const label = status.viaProvider ? "Provider on: connected through this browser's provider" : "Provider on: connected";
      const versions = status.versionMismatch ? `Version mismatch: ${status.versionMismatch.message}` : "";
      return { state: "connected", label, detail: parts.join(" · "), fix: "", versions };
    }
    case "disconnected": {
      const notInstalled = (status.fix ?? "").startsWith("webctx install");
      return {
        state: "disconnected",
        label: notInstalled ? "Provider on: native host not installed" : "Provider on: native host error",
        detail: status.error ?? "",
        fix: status.fix ?? "",
        versions: "",
      };
    }
    case "connecting":
    case "off": // the switch was just turned on; the worker has not caught up yet
      return { state: "connecting", label: "Provider on: connecting…", detail: "", fix: "", versions: "" };
    default:
      return { state: "", label: "Provider on: not started", detail: "", fix: "", versions: "" };
  }
}

/**
 * How many Pages in a `current` tree list page tools (`attributes.tools`, SPEC §2), for the popup.
 * @param {import("../protocol.js").Element} root the Application element
 * @returns {number}
 */
export function countPagesWithTools(root) {
  let count = 0;
  /** @type {import("../protocol.js").Element[]} */
  const stack = [root];
  while (stack.length > 0) {
    const element = /** @type {import("../protocol.js").Element} */ (stack.pop());
    const tools = /** @type {{tools?: unknown} | undefined} */ (element.attributes)?.tools;
    if (element.role === "Page" && Array.isArray(tools) && tools.length > 0) count += 1;
    stack.push(...(element.children ?? []));
  }
  return count;
}
