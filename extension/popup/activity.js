// The popup's "Who read it": the last reads of desktop hosts, newest first, in
// words: "Claude Code 2.1 read the selection in 'Tidal…' 2 min ago". Pure `describeRead` and
// `ago` (unit-tested; `webctx activity` says the same: native_host/cli/activity.py) and
// `renderActivity` (DOM). Entries come from the worker (service_worker/activity.js).

import { displayText, partsText, showParts } from "../service_worker/display_text.js";

/** @typedef {import("../service_worker/activity.js").ActivityEntry} ActivityEntry */
/** @typedef {import("../service_worker/display_text.js").TextPart} TextPart */

/** Reads listed in the popup (the rest: `webctx activity`). */
export const SHOWN_READS = 10;

/**
 * @param {number} atMs @param {number} nowMs
 * @returns {string} "just now", "12 s ago", "2 min ago", "3 h ago", "2 d ago"
 */
export function ago(atMs, nowMs) {
  const seconds = Math.max(0, Math.floor((nowMs - atMs) / 1000));
  if (seconds < 10) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

/** @param {string | undefined} title @returns {TextPart} the title cut, quoted, isolated */
function quoted(title, limit = 40) {
  const t = displayText(title) || "an untitled page";
  return { page: `'${t.length <= limit ? t : `${t.slice(0, limit - 1)}…`}'` };
}

/**
 * One read in words.
 * @param {ActivityEntry} entry
 * @param {number} nowMs
 * @returns {string}
 */
export function describeRead(entry, nowMs) {
  return partsText(readParts(entry, nowMs));
}

/**
 * One read in words, the client's name and the page titles as page strings (display_text.js).
 * @param {ActivityEntry} entry
 * @param {number} nowMs
 * @returns {TextPart[]}
 */
export function readParts(entry, nowMs) {
  const declared = [entry.client.name, entry.client.version].map(displayText).filter(Boolean).join(" ");
  /** @type {TextPart[]} */
  const who = declared ? [{ page: declared }] : ["unknown client"];
  if (entry.client.via) who.push(" (via ", { page: entry.client.via }, ")");
  /** @type {Map<string | undefined, string | undefined>} */
  const titles = new Map();
  for (const e of entry.elements) if (e.kind === "page") titles.set(e.page, e.title);
  const byKind = new Map(entry.elements.map((e) => [e.kind, e]));
  /** @type {TextPart[]} */
  let what;
  if (entry.tool === "current") {
    const selection = byKind.get("selection");
    const field = byKind.get("field");
    if (selection) what = ["read the selection in ", quoted(titles.get(selection.page))];
    else if (field) what = ["read the focused field in ", quoted(titles.get(field.page))];
    else if (titles.size > 0) {
      const pages = [...titles.values()];
      what = ["read the page ", quoted(pages[0]), pages.length > 1 ? ` and ${pages.length - 1} more page(s)` : ""];
    } else what = ["read the browser's windows"];
  } else if (entry.tool === "location") {
    what = ["located ", { page: entry.elements[0]?.id ?? "an element" }, " on the screen"];
  } else if (entry.tool === "resources/read") {
    // A page resource (provider/page_resources.py _record): the page, and a text or screenshot element.
    const title = quoted([...titles.values()][0]);
    what = byKind.has("screenshot") ? ["read a screenshot of ", title] : byKind.has("text") ? ["read the text of ", title] : ["read the page ", title];
  } else {
    what = ["called the page tool ", { page: entry.tool }, ...(titles.size > 0 ? [" in ", quoted([...titles.values()][0])] : [])];
  }
  return [...who, " ", ...what, `${entry.ok ? "" : " (it failed)"} ${ago(entry.at, nowMs)}`];
}

/**
 * Render the reads into `list` (a <ul>), newest first.
 * @param {HTMLElement} list
 * @param {ActivityEntry[]} entries  newest first
 * @param {number} nowMs
 */
export function renderActivity(list, entries, nowMs) {
  const items = entries.slice(0, SHOWN_READS).map((entry) => {
    const li = document.createElement("li");
    li.dataset.client = displayText(entry.client.name);
    li.dataset.tool = entry.tool;
    showParts(li, readParts(entry, nowMs));
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = "No desktop host has read anything since the provider started.";
    items.push(li);
  }
  list.replaceChildren(...items);
}
