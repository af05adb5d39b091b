// The user's settings (design.md §3 "switched off", §2 "Never reported", §5 "User control"), kept in
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
 * @property {boolean} pageText              a Page links its readable text, and `page.read` extracts it when a
 *   desktop host reads that link (page_read.js); on by default: the host asks for one page, on demand
 * @property {boolean} screenshots           the active tab links a screenshot of its visible part;
 *   off by default: a screenshot holds everything on screen, also what the user did not select
 * @property {boolean} localFiles            file:// pages (and blank documents they make) are shared like
 *   a web site; off by default: a local file is often private (a tax return, a bank statement)
 * @property {boolean} pdfViewer             a PDF a tab opens (http(s); file: with localFiles) is shown in
 *   webctx's viewer (extension/viewer/), where the user's selection can be read; off by default: the
 *   browser's own viewer is the one the user knows
 */

/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS = Object.freeze({
  enabled: true,
  excludedSites: [],
  exposePageTools: true,
  incognito: false,
  confirmConsequential: true,
  pageText: true,
  screenshots: false,
  localFiles: false,
  pdfViewer: false,
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
    pageText: flag("pageText"),
    screenshots: flag("screenshots"),
    localFiles: flag("localFiles"),
    pdfViewer: flag("pdfViewer"),
  };
}

/**
 * The popup's line on what a desktop host may read of a page on demand: the two
 * switches of the options page, in words.
 * @param {Settings} settings
 * @returns {string} "" while the provider is off (nothing is shared at all then)
 */
export function describePageReads(settings) {
  if (!settings.enabled) return "";
  const onOff = (/** @type {boolean} */ on) => (on ? "on" : "off");
  return `Page text on request: ${onOff(settings.pageText)}. Screenshots of the active tab on request: ${onOff(settings.screenshots)}.`;
}

/** A host name: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/**
 * @typedef {object} SiteListError
 * @property {number} line     1-based line of the entry in the user's text
 * @property {string} entry    the entry as typed
 * @property {string} message  what is wrong, in words (shown inline by the options page)
 */

/**
 * Check a user's excluded-sites list: one entry per line (or separated by commas
 * or spaces). An entry is a host name (`mail.example.com`), a host name after `*.`
 * (`*.example.com`: the same as `example.com`, the site and its subdomains) or a URL (reduced to
 * its host); a port, a path and a trailing dot are dropped, case is folded, non-ASCII names become
 * their punycode. Duplicates are dropped silently; anything else is an error naming its line.
 * @param {string} text
 * @returns {{sites: string[], errors: SiteListError[]}}  `sites` holds the valid entries (at most MAX_EXCLUDED_SITES)
 */
export function validateSiteList(text) {
  /** @type {string[]} */
  const sites = [];
  /** @type {SiteListError[]} */
  const errors = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    for (const word of lines[index].split(/[\s,]+/)) {
      if (!word) continue;
      const host = siteEntryHost(word);
      if (typeof host !== "string") {
        errors.push({ line: index + 1, entry: word, message: host.error });
      } else if (sites.length >= MAX_EXCLUDED_SITES) {
        errors.push({ line: index + 1, entry: word, message: `more than ${MAX_EXCLUDED_SITES} sites: this one is not kept` });
      } else if (!sites.includes(host)) {
        sites.push(host);
      }
    }
  }
  return { sites, errors };
}

/**
 * One entry of the excluded-sites list → its host name, or why it is not one.
 * @param {string} word  no white space
 * @returns {string | {error: string}}
 */
function siteEntryHost(word) {
  let host = word.toLowerCase();
  if (host.includes("://")) {
    try {
      host = new URL(host).hostname;
    } catch {
      return { error: "not a valid URL" };
    }
    if (!host) return { error: "this URL has no host name" };
  }
  host = host.replace(/^\*\./, "").replace(/\/.*$/, "").replace(/:\d+$/, "").replace(/\.$/, "");
  if (host.includes("*")) return { error: "a * may only start the entry, as in *.example.com" };
  if (/[^\x00-\x7f]/.test(host)) {
    try {
      host = new URL(`http://${host}`).hostname; // an international name → its punycode
    } catch {
      return { error: "not a host name" };
    }
  }
  if (!host) return { error: "no host name" };
  if (!HOST_NAME.test(host)) {
    return { error: "not a host name: use letters, digits, hyphens and dots, e.g. mail.example.com or *.example.com" };
  }
  return host;
}

/**
 * The host names in a user's list: the valid entries of validateSiteList (junk dropped).
 * @param {string} text
 * @returns {string[]}
 */
export function parseSiteList(text) {
  return validateSiteList(text).sites;
}

/**
 * The site the popup's "Don't share this site" acts on: the host of an http(s) page, or "" for
 * anything else (the browser's own pages, files, extension pages: never reported anyway).
 * @param {string | undefined} url
 * @returns {string}
 */
export function siteOf(url) {
  try {
    const parsed = new URL(url ?? "");
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.hostname.toLowerCase().replace(/\.$/, "") : "";
  } catch {
    return "";
  }
}

/**
 * The entries of `excludedSites` that exclude `host` (the host itself or a parent domain).
 * @param {string[]} excludedSites
 * @param {string} host from siteOf
 * @returns {string[]}
 */
export function rulesExcluding(excludedSites, host) {
  return host ? excludedSites.filter((site) => host === site || host.endsWith(`.${site}`)) : [];
}

/**
 * "Don't share this site": the list with `host` added (unchanged when a rule excludes it already).
 * @param {string[]} excludedSites
 * @param {string} host from siteOf
 * @returns {string[]}
 */
export function excludeSite(excludedSites, host) {
  if (!host || rulesExcluding(excludedSites, host).length > 0) return excludedSites;
  return parseSiteList([...excludedSites, host].join("\n"));
}

/**
 * "Share this site again": the list without every rule that excludes `host` (a parent domain's
 * rule too, or the button would change nothing; the popup names such rules before it is pressed).
 * @param {string[]} excludedSites
 * @param {string} host from siteOf
 * @returns {string[]}
 */
export function shareSiteAgain(excludedSites, host) {
  const rules = rulesExcluding(excludedSites, host);
  return excludedSites.filter((site) => !rules.includes(site));
}

/**
 * What the popup's "This site" section says and offers for the active page (pure).
 * @param {string} host  from siteOf ("" when the page is not a web site)
 * @param {boolean} incognito  the page is in an incognito window
 * @param {Settings} settings
 * @param {boolean} [localFile]  the page is a local file (file://)
 * @returns {{text: string, action: "exclude" | "share" | "", button: string}}  `action` "" hides the button
 */
export function describeSite(host, incognito, settings, localFile = false) {
  if (localFile && !settings.localFiles) {
    return { text: 'This local file is not shared: local files are off. To share it, switch on "Share local files (file://)" in Settings.', action: "", button: "" };
  }
  if (localFile) {
    return { text: 'This local file is shared: "Share local files (file://)" is on in Settings.', action: "", button: "" };
  }
  if (!host) return { text: "This page is not a web site: nothing from it is shared.", action: "", button: "" };
  const rules = rulesExcluding(settings.excludedSites, host);
  if (rules.length > 0) {
    const by = rules.length === 1 && rules[0] === host ? "" : ` by the rule ${rules.map((r) => `*.${r}`).join(", ")}`;
    return { text: `${host} is not shared: it is excluded${by}.`, action: "share", button: "Share this site again" };
  }
  if (incognito && !settings.incognito) {
    return { text: `${host} is in an incognito window: not shared (see Settings).`, action: "exclude", button: "Don't share this site" };
  }
  const when = settings.enabled ? "shared with desktop AI hosts" : "shared when the provider is on";
  return { text: `${host} is ${when}.`, action: "exclude", button: "Don't share this site" };
}

/**
 * What exclusion is decided on for one document: its address and, where the browser gives it,
 * its origin (`MessageSender.origin`, or `self.origin` in the content script's isolated
 * world). An `about:blank`, `about:srcdoc` or `blob:` document has its creator's origin, so a
 * blank frame or `window.open("")` window an excluded page writes into is that site's too.
 * @typedef {object} DocumentSite
 * @property {string} [url]
 * @property {string} [origin]  a serialised origin ("https://bank.test", "file://", "null" when opaque)
 */

/**
 * The host (or "file" for a local file) an address or origin belongs to, "" when it has none
 * (about:blank, data:, an opaque origin, junk). Without a trailing dot, since `https://bank.test./`
 * is the same site as `https://bank.test/` (a trailing dot used to get a page past its exclusion);
 * a `blob:` URL is its creator's origin's (`blob:https://bank.test/<uuid>`).
 * @param {string} address  a URL or a serialised origin
 * @returns {string}
 */
function siteHost(address) {
  try {
    const parsed = new URL(address);
    const inner = parsed.protocol === "blob:" ? new URL(parsed.pathname) : parsed;
    if (inner.protocol === "file:") return "file";
    return inner.hostname.toLowerCase().replace(/\.+$/, "");
  } catch {
    return "";
  }
}

/**
 * True when a document must not be shared because of where it comes from: its origin's host or
 * its URL's host is an excluded site or a subdomain of one, or it is a local file (file://, or a
 * document a file made) while `localFiles` is off. The one rule for every path: pushed and pulled
 * frame reports, Pages in `current`, page text, screenshots and page tools.
 * @param {string | DocumentSite} doc  a URL, or the document's URL and origin
 * @param {{excludedSites: string[], localFiles?: boolean}} settings from normalizeSettings
 * @returns {boolean}
 */
export function isExcluded(doc, settings) {
  const { url = "", origin = "" } = typeof doc === "string" ? { url: doc } : doc;
  const hosts = [siteHost(url), origin === "null" ? "" : siteHost(origin)].filter(Boolean);
  if (hosts.includes("file")) return settings.localFiles !== true;
  return hosts.some((host) => rulesExcluding(settings.excludedSites, host).length > 0);
}

/**
 * The host an excluded document is excluded for, to name it in a refusal ("" when none: a
 * local file, or no host).
 * @param {DocumentSite} doc
 * @returns {string}
 */
export function excludedHost(doc) {
  const host = siteHost(doc.origin && doc.origin !== "null" ? doc.origin : doc.url ?? "");
  return host === "file" ? "" : host;
}

/**
 * @typedef {object} StatusView
 * @property {string} state   off | connecting | connected | disconnected | mismatch | "" (not started) | the
 *   worker's own state name (a generic `{state, words, fix}` status from the service worker)
 * @property {"off" | "busy" | "ok" | "broken"} tone  what the toolbar icon shows (action_icon.js)
 * @property {string} label   the state in words
 * @property {string} detail  the endpoint when connected, the error otherwise
 * @property {string} fix     the command that fixes it ("" when none)
 * @property {string} versions  "Version mismatch: …" with the side to update, or ""
 */

/**
 * What the popup (and the toolbar icon) shows for a status and the switch (pure, so node tests pin
 * the wording; every state in words).
 * @param {import("../protocol.js").ConnectionStatus | undefined} status
 * @param {boolean} enabled
 * @returns {StatusView}
 */
export function describeStatus(status, enabled) {
  if (!enabled) {
    return { state: "off", tone: "off", label: "Provider off", detail: "Nothing is shared: no descriptor is written and no port is open.", fix: "", versions: "" };
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
      // A version mismatch: still connected (the host serves); `versions` says
      // which side to update, with its fix, and turns the toolbar icon red (action_icon.js).
      const versions = status.versionMismatch ? `Version mismatch: ${status.versionMismatch.message}` : "";
      return { state: "connected", tone: "ok", label, detail: parts.join(" · "), fix: "", versions };
    }
    case "disconnected": {
      const notInstalled = (status.fix ?? "").startsWith("webctx install");
      return {
        state: "disconnected",
        tone: "broken",
        label: notInstalled ? "Provider on: native host not installed" : "Provider on: native host error",
        detail: status.error ?? status.words ?? "",
        fix: status.fix ?? "",
        versions: "",
      };
    }
    case "mismatch": // a worker that stops serving over versions would say so; today it serves and sets versionMismatch
      return {
        state: "mismatch",
        tone: "broken",
        label: "Provider on: version mismatch",
        detail: status.words ?? status.error ?? "The extension and the native host are different versions.",
        fix: status.fix ?? "",
        versions: "",
      };
    case "connecting":
    case "off": // the switch was just turned on; the worker has not caught up yet
      return { state: "connecting", tone: "busy", label: "Provider on: connecting…", detail: "", fix: "", versions: "" };
    default: {
      if (!status) return { state: "", tone: "busy", label: "Provider on: not started", detail: "", fix: "", versions: "" };
      // A state this popup does not know yet: the worker's own words, broken when it names a fix.
      const words = status.words ?? status.error ?? String(status.state);
      return { state: String(status.state), tone: status.fix ? "broken" : "busy", label: `Provider on: ${words}`, detail: "", fix: status.fix ?? "", versions: "" };
    }
  }
}

/**
 * How many Pages in a `current` tree list page tools (`attributes.tools`, design.md §2), for the popup.
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
