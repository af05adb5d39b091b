// webctx options page (an extension page, ES module): the settings of settings.js, stored in
// chrome.storage.local on every change; the service worker applies them live (storage.onChanged).

import { allowedInIncognito, onSettingsChanged, readSettings, writeSettings } from "../service_worker/browser_api.js";
import { normalizeSettings, parseSiteList } from "../service_worker/settings.js";

/** @typedef {import("../service_worker/settings.js").Settings} Settings */

/** @type {Settings} */
let settings = normalizeSettings(undefined);

/** @param {string} id @returns {HTMLInputElement} */
function input(id) {
  return /** @type {HTMLInputElement} */ (document.getElementById(id));
}

const sitesBox = /** @type {HTMLTextAreaElement} */ (document.getElementById("excluded-sites"));
const saved = /** @type {HTMLElement} */ (document.getElementById("saved"));

/** Show `settings` in the form (the site list only when it is not being edited). */
function render() {
  if (document.activeElement !== sitesBox) sitesBox.value = settings.excludedSites.join("\n");
  input("expose-page-tools").checked = settings.exposePageTools;
  input("confirm-consequential").checked = settings.confirmConsequential;
  input("incognito").checked = settings.incognito;
  // The opt-in alone reports nothing until the browser lets webctx into incognito: say so.
  void allowedInIncognito().then((allowed) => {
    /** @type {HTMLElement} */ (document.getElementById("incognito-note")).hidden = allowed || !settings.incognito;
  });
}

async function save() {
  settings = {
    ...settings,
    excludedSites: parseSiteList(sitesBox.value),
    exposePageTools: input("expose-page-tools").checked,
    confirmConsequential: input("confirm-consequential").checked,
    incognito: input("incognito").checked,
  };
  await writeSettings(settings);
  saved.textContent = "Saved; applied at once.";
}

for (const id of ["expose-page-tools", "confirm-consequential", "incognito"]) {
  input(id).addEventListener("change", () => void save());
}
sitesBox.addEventListener("change", () => void save());
sitesBox.addEventListener("blur", () => render());

onSettingsChanged((raw) => {
  settings = normalizeSettings(raw);
  render();
});
readSettings().then((raw) => {
  settings = normalizeSettings(raw);
  render();
});
