// The popup's "Shared now": what a desktop host would get from `current` for
// this window right now, each part with its element kind, and what is never shared. Pure
// `sharedRows` (unit-tested) and `renderSharedNow` (DOM); the tree comes from the worker
// (service_worker/popup_transparency.js), the very build `current` answers from.
//
// Never the focused field's value: only its kind and label, and whether its text goes to hosts.

import { partsText, showParts } from "../service_worker/display_text.js";

/** @typedef {import("../protocol.js").Element} Element */
/** @typedef {import("../service_worker/display_text.js").TextPart} TextPart */

/** Words of the selection shown. */
export const SELECTION_WORDS = 8;

/**
 * One line of "Shared now".
 * @typedef {object} SharedRow
 * @property {"page" | "selection" | "field" | "hover" | "pdf" | "tools" | "tabs" | "windows"} what
 * @property {string} label   e.g. "Page", "Selection"
 * @property {string} text    what it shows (never a field's value), page strings cleaned
 * @property {TextPart[]} parts  the same, page strings apart (each shown direction-isolated)
 * @property {string} kind    the element kind hosts see: `Page`, `Text (selected)`, `Group/textbox`, …
 * @property {string} [id]    the element's id in `current`
 */

/**
 * @param {Element} element
 * @returns {Element[]} every element below, depth first
 */
function descendants(element) {
  /** @type {Element[]} */
  const out = [];
  const stack = [...(element.children ?? [])].reverse();
  while (stack.length > 0) {
    const next = /** @type {Element} */ (stack.pop());
    out.push(next);
    stack.push(...[...(next.children ?? [])].reverse());
  }
  return out;
}

/** @param {Element} element @returns {string} */
function kindOf(element) {
  const base = element.subrole ? `${element.role}/${element.subrole}` : element.role;
  return element.selected ? `${base} (selected)` : base;
}

/** @param {string | undefined} url @returns {string} the site: host name, or the scheme */
export function siteOf(url) {
  if (!url) return "";
  try {
    const parsed = new URL(url);
    return parsed.hostname || parsed.protocol.replace(/:$/, "");
  } catch {
    return "";
  }
}

/** @param {string} text @param {number} words @returns {string} */
export function firstWords(text, words) {
  const all = text.trim().split(/\s+/).filter(Boolean);
  const shown = all.slice(0, words).join(" ");
  return all.length > words || shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
}

/**
 * The window `current` shows for this popup: the one with `windowElementId`, else the focused one,
 * else the first.
 * @param {Element | null} root  the Application element
 * @param {string | null} windowElementId
 * @returns {Element | undefined}
 */
export function pickWindow(root, windowElementId) {
  const windows = root?.children ?? [];
  return windows.find((w) => w.id === windowElementId) ?? windows.find((w) => w.focused) ?? windows[0];
}

/**
 * @param {Omit<SharedRow, "text" | "parts">} fields
 * @param {TextPart[]} parts
 * @returns {SharedRow}
 */
function row(fields, parts) {
  return { ...fields, text: partsText(parts), parts };
}

/**
 * "Shared now" for one window of a `current` tree: its active page (title, site), the selection's
 * first words, the focused field's kind, the hovered element, page tools, the other tabs and windows.
 * @param {Element | null} root  the Application element (null: nothing is shared)
 * @param {string | null} windowElementId  the popup's window in the tree
 * @returns {SharedRow[]}
 */
export function sharedRows(root, windowElementId) {
  const win = pickWindow(root, windowElementId);
  if (!root || !win) return [];
  /** @type {SharedRow[]} */
  const rows = [];
  const pages = win.children ?? [];
  const page = pages.find((p) => p.visible !== false && win.visible !== false) ?? pages.find((p) => p.visible !== false);
  if (page) {
    const site = siteOf(page.url);
    const title = page.title || "(no title)";
    rows.push(row({ what: "page", label: "Page", kind: kindOf(page), id: page.id }, [{ page: title }, site ? ` — ${site}` : ""]));
    for (const element of descendants(page)) {
      if (element.role === "Text" && element.selected) {
        const text = element.content?.find((c) => c.type === "text")?.text ?? "";
        rows.push(row({ what: "selection", label: "Selection", kind: kindOf(element), id: element.id }, ["“", { page: firstWords(text, SELECTION_WORDS) }, "”"]));
      } else if (element.subrole === "textbox" && element.focused) {
        const label = element.title ? [" “", { page: element.title }, "”"] : [];
        const shared = element.content ? "its text is shared" : "its text is not shared";
        rows.push(row({ what: "field", label: "Focused field", kind: kindOf(element), id: element.id }, ["text field", ...label, `; ${shared}`]));
      } else if (element.hovered) {
        rows.push(row({ what: "hover", label: "Under the pointer", kind: kindOf(element), id: element.id }, [{ page: element.title || element.role }]));
      } else if (element.role === "Document" && element.subrole === "pdf") {
        rows.push(row({ what: "pdf", label: "PDF", kind: kindOf(element), id: element.id }, [element.title ? { page: element.title } : "a PDF document"]));
      }
    }
    const tools = Array.isArray(page.attributes?.tools) ? page.attributes.tools.length : 0;
    rows.push(row({ what: "tools", label: "Page tools", kind: "Page attributes.tools", id: page.id }, [`${tools} tool${tools === 1 ? "" : "s"} hosts can call`]));
  }
  const others = pages.length - (page ? 1 : 0);
  if (others > 0) {
    rows.push(row({ what: "tabs", label: "Other tabs", kind: "Page" }, [`${others}: their titles and addresses`]));
  }
  const otherWindows = (root.children ?? []).length - 1;
  if (otherWindows > 0) {
    rows.push(row({ what: "windows", label: "Other windows", kind: "Window" }, [`${otherWindows}, shared the same way`]));
  }
  return rows;
}

/**
 * "Never shared" in words (design.md §2 "Never reported").
 * @param {{excludedSites: number, incognito: boolean}} never
 * @returns {string}
 */
export function neverSharedText(never) {
  const sites = never.excludedSites === 1 ? "1 excluded site" : `${never.excludedSites} excluded sites`;
  // The secret fields of content/secret_fields.js, in a few words.
  const base = "Never shared: passwords (also when shown), card numbers and codes, PINs, one-time codes, browser pages";
  return never.incognito
    ? `${base}, ${sites}. Incognito windows are shared: you allowed it in Settings.`
    : `${base}, ${sites}, incognito windows.`;
}

/**
 * Render "Shared now" into `list` and the never-shared line into `never`.
 * @param {HTMLElement} list  a <ul>
 * @param {HTMLElement} neverLine
 * @param {{root: Element | null, windowElementId: string | null, never: {excludedSites: number, incognito: boolean}}} state
 */
export function renderSharedNow(list, neverLine, state) {
  const rows = sharedRows(state.root, state.windowElementId);
  const items = rows.map((row) => {
    const li = document.createElement("li");
    li.dataset.what = row.what;
    if (row.id) li.dataset.id = row.id;
    const label = document.createElement("strong");
    label.textContent = `${row.label}: `;
    const text = document.createElement("span");
    text.className = "text";
    showParts(text, row.parts);
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = ` (${row.kind})`;
    li.append(label, text, kind);
    return li;
  });
  if (items.length === 0) {
    const li = document.createElement("li");
    li.dataset.what = "nothing";
    li.textContent = state.root ? "Nothing from this window." : "Nothing: the provider is off or not connected.";
    items.push(li);
  }
  list.replaceChildren(...items);
  neverLine.textContent = neverSharedText(state.never);
}
