// webctx options page (an extension page, ES module): the settings of settings.js, stored in
// chrome.storage.local on every change; the service worker applies them live (storage.onChanged):
// excluded sites, local files (file://), webctx's PDF viewer, page tools, the page on demand (page text, screenshots), incognito.

import { allowedInIncognito, onSettingsChanged, readSettings, writeSettings } from "../service_worker/browser_api.js";
import { normalizeSettings, validateSiteList } from "../service_worker/settings.js";

/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @type {Settings} */
let settings = normalizeSettings(undefined);

/** @param {string} id @returns {HTMLInputElement} */
function input(id) {
  return /** @type {HTMLInputElement} */ (document.getElementById(id));
}

const sitesBox = /** @type {HTMLTextAreaElement} */ (document.getElementById("excluded-sites"));
const saved = /** @type {HTMLElement} */ (document.getElementById("saved"));
const sitesErrors = /** @type {HTMLElement} */ (document.getElementById("excluded-errors"));

/**
 * Check the site list and show its errors inline, under the box.
 * @returns {string[] | undefined}  the sites, or undefined when an entry is wrong (nothing is saved then)
 */
function checkSites() {
  const { sites, errors } = validateSiteList(sitesBox.value);
  sitesBox.setAttribute("aria-invalid", String(errors.length > 0));
  sitesErrors.hidden = errors.length === 0;
  sitesErrors.replaceChildren();
  if (errors.length === 0) return sites;
  const intro = document.createElement("p");
  intro.style.margin = "0";
  intro.textContent = errors.length === 1 ? "This entry is not a site, so the list is not saved:" : `These ${errors.length} entries are not sites, so the list is not saved:`;
  const list = document.createElement("ul");
  for (const error of errors.slice(0, 20)) {
    const item = document.createElement("li");
    item.textContent = `Line ${error.line}: "${error.entry}": ${error.message}.`;
    list.append(item);
  }
  sitesErrors.append(intro, list);
  return undefined;
}

/** Show `settings` in the form (the site list only when it is not being edited). */
function render() {
  // Not while it is being edited, nor while it shows a wrong list beside its errors.
  if (document.activeElement !== sitesBox && sitesErrors.hidden) sitesBox.value = settings.excludedSites.join("\n");
  input("expose-page-tools").checked = settings.exposePageTools;
  input("confirm-consequential").checked = settings.confirmConsequential;
  input("incognito").checked = settings.incognito;
  input("page-text").checked = settings.pageText;
  input("screenshots").checked = settings.screenshots;
  input("local-files").checked = settings.localFiles;
  input("pdf-viewer").checked = settings.pdfViewer;
  // The opt-in alone reports nothing until the browser lets webctx into incognito: say so.
  void allowedInIncognito().then((allowed) => {
    /** @type {HTMLElement} */ (document.getElementById("incognito-note")).hidden = allowed || !settings.incognito;
  });
}

async function save() {
  const excludedSites = checkSites();
  settings = {
    ...settings,
    excludedSites: excludedSites ?? settings.excludedSites, // a wrong list keeps the stored one
    exposePageTools: input("expose-page-tools").checked,
    confirmConsequential: input("confirm-consequential").checked,
    incognito: input("incognito").checked,
    pageText: input("page-text").checked,
    screenshots: input("screenshots").checked,
    localFiles: input("local-files").checked,
    pdfViewer: input("pdf-viewer").checked,
  };
  await writeSettings(settings);
  saved.textContent = excludedSites ? "Saved; applied at once." : "Other settings saved; the site list is not saved until its errors are fixed.";
}

for (const id of ["expose-page-tools", "confirm-consequential", "incognito", "page-text", "screenshots", "local-files", "pdf-viewer"]) {
  input(id).addEventListener("change", () => void save());
}
sitesBox.addEventListener("change", () => void save());
sitesBox.addEventListener("blur", () => {
  if (sitesErrors.hidden) render(); // a wrong list stays as typed, beside its errors
});

onSettingsChanged((raw) => {
  settings = normalizeSettings(raw);
  render();
});
readSettings().then((raw) => {
  settings = normalizeSettings(raw);
  render();
});
