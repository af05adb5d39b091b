// Which browser this is, by the names it goes by: the name and full version `hello` reports
// (pickBrowser, from UA Client Hints or the UA string) and the name `webctx install --browser`
// takes (installName, for the command that fixes a dropped port). Pure.

/** @typedef {{name: string, version: string, userAgent: string}} BrowserIdentity */

/** `webctx install --browser <name>` names, by the name `pickBrowser` gives. */
const INSTALL_BROWSER_NAMES = /** @type {Record<string, string>} */ ({
  "Chromium": "chromium",
  "Google Chrome": "chrome",
  "Microsoft Edge": "edge",
  "Brave": "brave",
  "Firefox": "firefox",
});

/** Brands in order of preference: the most specific product first, the engine last. */
const BRAND_PREFERENCE = ["Microsoft Edge", "Brave", "Google Chrome", "Chromium"];

/**
 * Name and full version of the browser from UA Client Hints' `fullVersionList`. Headless Chromium
 * says `HeadlessChrome` in its UA string; that is Chromium.
 * @param {{brand: string, version: string}[]} brands
 * @param {string} userAgent
 * @returns {BrowserIdentity}
 */
export function pickBrowser(brands, userAgent) {
  for (const name of BRAND_PREFERENCE) {
    const found = brands.find((b) => b.brand === name);
    if (found) return { name, version: found.version, userAgent };
  }
  const firefox = /Firefox\/([\d.]+)/.exec(userAgent); // no UA Client Hints in Firefox
  if (firefox && brands.length === 0) return { name: "Firefox", version: firefox[1], userAgent };
  const headless = brands.find((b) => b.brand === "HeadlessChrome");
  if (headless) return { name: "Chromium", version: headless.version, userAgent };
  const match = /(?:HeadlessChrome|Chrome|Chromium)\/([\d.]+)/.exec(userAgent);
  return { name: "Chromium", version: match ? match[1] : "", userAgent };
}

/**
 * The `webctx install --browser` name of a browser `pickBrowser` named; "chromium" for another.
 * @param {string} browserName
 * @returns {string}
 */
export function installName(browserName) {
  return INSTALL_BROWSER_NAMES[browserName] ?? "chromium";
}
